/** The signature law's vocabulary (seed §3, D7, D8), shared by server and clients. */
export const ACTION_CLASSES = [
  'books.payroll_sign',
  'books.tax_sign_lodge',
  'books.bill_schedule_run',
  'books.invoice_chase_step',
  'books.onboarding_advance',
  'books.match_hold_resolve',
  'books.bill_approve',
] as const;
export type ActionClass = (typeof ACTION_CLASSES)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** PB-B1 (D8), in order of precedence: BANK_DETAILS_CHANGED, then ABOVE_FLOOR, then NEW_PAYEE. */
export const HELD_REASONS = ['BANK_DETAILS_CHANGED', 'ABOVE_FLOOR', 'NEW_PAYEE'] as const;
export type HeldReason = (typeof HELD_REASONS)[number];

export const USER_ROLES = ['owner', 'approver', 'bookkeeper'] as const;
export type UserRole = (typeof USER_ROLES)[number];
