import { limits } from '@finance-desk/protocol';

/** The six signature acts' action classes and PB-B1's (D7). */
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

/** Organisation policy (D8). Decision rights list the user ids who may decide each class. */
export interface Policy {
  readonly billApprovalFloorCents: number;
  readonly materialityFloorCents: number;
  readonly approvalExpiryMs: number;
  readonly decisionRights: Readonly<Partial<Record<ActionClass, readonly string[]>>>;
}

export function defaultPolicy(deciders: readonly string[]): Policy {
  const rights: Partial<Record<ActionClass, readonly string[]>> = {};
  if (deciders.length > 0) for (const c of ACTION_CLASSES) rights[c] = [...deciders];
  return {
    billApprovalFloorCents: 500_000,
    materialityFloorCents: 100_000,
    approvalExpiryMs: limits.approvalExpiryMsDefault,
    decisionRights: rights,
  };
}
