import type { Queryable } from '../../storage/types.js';

/**
 * Tax liabilities carried in by books.openingBalances (books.taxObligations). The conversion
 * journal's credit on a liability account (2300 super, 2200 PAYG withholding) is what the old
 * system's pay runs left owing: older than any pay run here, so payments to the account settle it
 * first. Without this, the June super paid in July marked July's runs paid (and the read owed less
 * than the account).
 *
 * A payment is any movement on the account by a journal that is not one of the account's own
 * postings: not a pay run (its credit is the run's obligation), not a recall (it takes its run out
 * instead), not the conversion itself, nor what `alsoNot` names (2200: the BAS settlement, which
 * reports the withholding on a BAS). Credits among them count against the payments (a reversed
 * payment, a refund), so what is owed follows the account.
 */
const OWN_POSTINGS = ['pay_run', 'pay_run_recall', 'opening_balances'] as const;

export interface CarriedIn {
  /** The conversion journal's id, and its date. */
  readonly journalId: string;
  readonly conversionDate: string;
  /** The account's opening credit (negative when the conversion put it in debit: paid ahead). */
  readonly openingCents: number;
}

/** The conversion's balance on `account`, when the conversion is dated on or before asOf. */
export async function carriedIn(q: Queryable, orgId: string, account: string, asOf: string): Promise<CarriedIn | null> {
  const row = await q.get<{ journal_id: string; conversion_date: string; cents: number | string | null }>(
    `SELECT o.journal_id, o.conversion_date,
       (SELECT SUM(l.credit_cents) - SUM(l.debit_cents) FROM journal_lines l
         WHERE l.org_id = o.org_id AND l.journal_id = o.journal_id AND l.account_code = ?) AS cents
     FROM opening_balances o WHERE o.org_id = ? AND o.conversion_date <= ?`,
    [account, orgId, asOf],
  );
  if (!row) return null;
  return { journalId: row.journal_id, conversionDate: row.conversion_date, openingCents: Number(row.cents ?? 0) };
}

/**
 * Payments to `account` dated on or before asOf (debits less credits of the journals that pay it;
 * may be negative). CROSS JOIN keeps SQLite on the account's lines first (a few), each probing its
 * journal: joined freely it walked every journal up to asOf (0.3 s at 100 000 documents).
 */
export async function paymentsTo(
  q: Queryable,
  orgId: string,
  account: string,
  asOf: string,
  alsoNot: readonly string[] = [],
): Promise<number> {
  const not = [...OWN_POSTINGS, ...alsoNot];
  const row = await q.get<{ cents: number | string | null }>(
    `SELECT SUM(l.debit_cents) - SUM(l.credit_cents) AS cents FROM journal_lines l
     CROSS JOIN journals j
     WHERE j.org_id = l.org_id AND j.id = l.journal_id AND l.org_id = ? AND l.account_code = ? AND j.date <= ? AND j.source_kind NOT IN (${not.map(() => '?').join(', ')})`,
    [orgId, account, asOf, ...not],
  );
  return Number(row?.cents ?? 0);
}
