/** The signature law's vocabulary, shared by server and clients. */
/**
 * The action classes of the six signature acts and the bill-approval rule's approval, each
 * written once, here; a method's declaration names its class through this map.
 */
export const ACTION_CLASS = {
  payrollSign: 'books.payroll_sign',
  taxSignLodge: 'books.tax_sign_lodge',
  billScheduleRun: 'books.bill_schedule_run',
  invoiceChaseStep: 'books.invoice_chase_step',
  onboardingAdvance: 'books.onboarding_advance',
  matchHoldResolve: 'books.match_hold_resolve',
  billApprove: 'books.bill_approve',
} as const;

export const ACTION_CLASSES = [
  ACTION_CLASS.payrollSign,
  ACTION_CLASS.taxSignLodge,
  ACTION_CLASS.billScheduleRun,
  ACTION_CLASS.invoiceChaseStep,
  ACTION_CLASS.onboardingAdvance,
  ACTION_CLASS.matchHoldResolve,
  ACTION_CLASS.billApprove,
] as const;
export type ActionClass = (typeof ACTION_CLASSES)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Why the bill-approval rule holds a bill, in order of precedence: BANK_DETAILS_CHANGED, then ABOVE_FLOOR, then NEW_PAYEE. */
export const HELD_REASONS = ['BANK_DETAILS_CHANGED', 'ABOVE_FLOOR', 'NEW_PAYEE'] as const;
export type HeldReason = (typeof HELD_REASONS)[number];

export const USER_ROLES = ['owner', 'approver', 'bookkeeper'] as const;
export type UserRole = (typeof USER_ROLES)[number];
