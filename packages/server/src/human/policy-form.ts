import { ACTION_CLASSES, validate } from '@finance-desk/protocol';
import { DomainError } from '../errors.js';
import { policyPatchSchema, type PolicyPatch } from '../governance/policy-admin.js';

/**
 * The policy form speaks dollars and minutes; the policy stores cents and milliseconds. The
 * conversion is exact (no floating point on money) and the result is validated by the same
 * schema as the JSON API and the CLI.
 */
const DOLLARS = /^\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/;

export function dollarsToCents(field: string, input: string): number {
  const m = DOLLARS.exec(input.trim());
  if (!m) throw new DomainError('BAD_REQUEST', `${field}: must be an amount in dollars, e.g. 5,000.00`);
  const whole = Number((m[1] ?? '').replace(/,/g, ''));
  const cents = Number((m[2] ?? '').padEnd(2, '0'));
  const total = whole * 100 + cents;
  if (!Number.isSafeInteger(total)) throw new DomainError('BAD_REQUEST', `${field}: amount is too large`);
  return total;
}

function minutesToMs(input: string): number {
  const minutes = Number(input.trim());
  if (input.trim() === '' || !Number.isFinite(minutes)) {
    throw new DomainError('BAD_REQUEST', 'approvalExpiryMinutes: must be a number of minutes');
  }
  return Math.round(minutes * 60_000);
}

/** The whole form is the whole policy: an unticked class gets an empty list (nobody may decide). */
export function policyPatchFromForm(form: URLSearchParams): PolicyPatch {
  const rights: Record<string, string[]> = {};
  for (const cls of ACTION_CLASSES) rights[cls] = form.getAll(`rights:${cls}`);
  const patch = {
    billApprovalFloorCents: dollarsToCents('billApprovalFloor', form.get('billApprovalFloor') ?? ''),
    materialityFloorCents: dollarsToCents('materialityFloor', form.get('materialityFloor') ?? ''),
    approvalExpiryMs: minutesToMs(form.get('approvalExpiryMinutes') ?? ''),
    decisionRights: rights,
  };
  const out = validate(policyPatchSchema, patch);
  if (!out.ok) throw new DomainError('BAD_REQUEST', out.message);
  return out.value;
}
