import { DomainError, invariant } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { checkPostable } from '../gl/periods.js';
import { RECEIVABLES_ACCOUNT, outstandingOn } from '../receivables/ledger-api.js';

/**
 * What the corrections share: the date a correction is posted on, the mirror of a
 * journal, and how a reopened document's status follows its ledger balance.
 */

/**
 * The date of a correction: `date` or today; not in the future, not before `notBefore` (the
 * journal or payment it undoes: a reversal dated before what it reverses would leave the control
 * account owing the other way for those days), not on or before the lock date.
 */
export function correctionDate(uow: Uow, date: string | undefined, notBefore: string, what: string): string {
  const d = date ?? uow.today;
  if (d > uow.today) throw new DomainError('BAD_REQUEST', `date: ${d} is in the future (today is ${uow.today})`, { field: 'date' });
  if (d < notBefore) {
    throw new DomainError('BAD_REQUEST', `date: ${d} is before ${what} (${notBefore}); date the correction on or after it`, {
      field: 'date',
    });
  }
  checkPostable(uow, d, 'date');
  return d;
}

// The mirror of a journal lives with the ledger (gl/mirror.ts): recode reversals use it too.
export { mirrorOf } from '../gl/mirror.js';

export interface JournalHead {
  id: string;
  date: string;
  source_kind: string;
  source_id: string;
  reversed_by: string | null;
}

export async function journalHead(uow: Uow, journalId: string): Promise<JournalHead | undefined> {
  return uow.tx.get<JournalHead>(
    `SELECT id, date, source_kind, source_id, reversed_by FROM journals WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, journalId],
  );
}

/**
 * An invoice whose payment was undone owes again: `sent` when all of its total is owed, else
 * `part_paid` (payments or credit notes stand). Returns the status and what is owed.
 */
export async function reopenInvoice(
  uow: Uow,
  invoiceId: string,
  ledgerId: string,
): Promise<{ status: 'sent' | 'part_paid'; outstandingCents: number }> {
  const row = await uow.tx.get<{ status: string; total_cents: number }>(
    'SELECT status, total_cents FROM invoices WHERE org_id = ? AND id = ?',
    [uow.orgId, invoiceId],
  );
  invariant(row, `invoice ${invoiceId} exists`);
  const owed = await outstandingOn(uow.tx, uow.orgId, invoiceId);
  invariant(owed > 0, `invoice ${invoiceId} owes again on ${RECEIVABLES_ACCOUNT}`);
  const status = owed >= Number(row.total_cents) ? 'sent' : 'part_paid';
  if (status !== row.status) {
    await uow.tx.run('UPDATE invoices SET status = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [status, ledgerId, uow.orgId, invoiceId]);
  }
  return { status, outstandingCents: owed };
}

/** A paid bill whose payment came back is approved (payable) again. */
export async function reopenBill(uow: Uow, billId: string, ledgerId: string): Promise<string> {
  const row = await uow.tx.get<{ status: string }>('SELECT status FROM bills WHERE org_id = ? AND id = ?', [uow.orgId, billId]);
  invariant(row, `bill ${billId} exists`);
  if (row.status === 'paid') {
    await uow.tx.run("UPDATE bills SET status = 'approved', paid_at = NULL, ledger_id = ? WHERE org_id = ? AND id = ?", [
      ledgerId,
      uow.orgId,
      billId,
    ]);
    return 'approved';
  }
  return row.status;
}

/** A paid expense claim whose reimbursement was undone is approved (payable) again. */
export async function reopenClaim(uow: Uow, claimId: string, ledgerId: string): Promise<string> {
  const row = await uow.tx.get<{ status: string }>('SELECT status FROM expense_claims WHERE org_id = ? AND id = ?', [uow.orgId, claimId]);
  invariant(row, `expense claim ${claimId} exists`);
  if (row.status === 'paid') {
    await uow.tx.run("UPDATE expense_claims SET status = 'approved', paid_at = NULL, ledger_id = ? WHERE org_id = ? AND id = ?", [
      ledgerId,
      uow.orgId,
      claimId,
    ]);
    return 'approved';
  }
  return row.status;
}
