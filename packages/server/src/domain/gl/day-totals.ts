import type { Migration } from '../../storage/migration-types.js';
import type { Queryable } from '../../storage/types.js';

/**
 * Each account's debits, credits and line count per journal date: what the ledger reads that sum
 * an account over a date range (trial balance, balance sheet, profit and loss, books.accounts,
 * one account's balance) read instead of every journal line. Their cost then follows accounts ×
 * days in the range, not the organisation's history: at 100 000 documents a trial balance sums
 * about 11 000 rows here against 400 000 lines.
 *
 * Kept by postJournal in the journal's own queued statements, so it commits with the lines and
 * the event or not at all. Journals and their lines are never changed or deleted (a correction is
 * another journal; journals.reversed_by is the only column ever updated), and a journal's date is
 * fixed, so adding each journal once is the whole of its upkeep. Days, not months: a month's
 * roll-up would need a day-level remainder for any range that does not start and end on a month
 * boundary, and a decade of days over a few dozen accounts is still well under 100 000 rows.
 */

/** One upsert per (account, date) of a journal. Parameters: org, account, date, debit, credit, lines. */
export const ADD_DAY_TOTAL_SQL = `INSERT INTO account_day_totals (org_id, account_code, date, debit_cents, credit_cents, lines)
  VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (org_id, account_code, date) DO UPDATE SET
    debit_cents = account_day_totals.debit_cents + excluded.debit_cents,
    credit_cents = account_day_totals.credit_cents + excluded.credit_cents,
    lines = account_day_totals.lines + excluded.lines`;

/** The table's rows computed from the lines themselves; `scope` narrows it (e.g. one organisation). */
const fromLines = (scope: string) => `SELECT l.org_id, l.account_code, j.date, SUM(l.debit_cents), SUM(l.credit_cents), COUNT(*)
  FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
  ${scope}
  GROUP BY l.org_id, l.account_code, j.date`;

const INSERT_FROM_LINES = 'INSERT INTO account_day_totals (org_id, account_code, date, debit_cents, credit_cents, lines)';

export const migration: Migration = {
  id: 62,
  name: 'gl: account totals per day',
  statements: [
    `CREATE TABLE account_day_totals (
      org_id TEXT NOT NULL,
      account_code TEXT NOT NULL,
      date TEXT NOT NULL,
      debit_cents BIGINT NOT NULL,
      credit_cents BIGINT NOT NULL,
      lines BIGINT NOT NULL,
      PRIMARY KEY (org_id, account_code, date)
    )`,
    // The sums from the index alone: one account's days to a date (a balance) as a range of it,
    // every account over a date range (a report) as the organisation's part of it, already in
    // account order for the GROUP BY.
    'CREATE INDEX account_day_totals_sums ON account_day_totals (org_id, account_code, date, debit_cents, credit_cents, lines)',
    `${INSERT_FROM_LINES} ${fromLines('')}`,
  ],
};

/**
 * Recompute one organisation's rows from its lines: for rows written other than by postJournal
 * (the benchmark's seeding) and for checking the kept table against the lines (tests).
 */
export async function rebuildDayTotals(q: Queryable, orgId: string): Promise<void> {
  await q.run('DELETE FROM account_day_totals WHERE org_id = ?', [orgId]);
  await q.run(`${INSERT_FROM_LINES} ${fromLines('WHERE l.org_id = ?')}`, [orgId]);
}

/** The rows as the lines give them, for comparison with the kept table (tests, verify). */
export async function dayTotalsFromLines(
  q: Queryable,
  orgId: string,
): Promise<{ account_code: string; date: string; dr: number; cr: number; n: number }[]> {
  const rows = await q.all<{ account_code: string; date: string; dr: unknown; cr: unknown; n: unknown }>(
    `SELECT l.account_code AS account_code, j.date AS date, SUM(l.debit_cents) AS dr, SUM(l.credit_cents) AS cr, COUNT(*) AS n
     FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
     WHERE l.org_id = ? GROUP BY l.account_code, j.date ORDER BY l.account_code, j.date`,
    [orgId],
  );
  return rows.map((r) => ({ account_code: r.account_code, date: r.date, dr: Number(r.dr), cr: Number(r.cr), n: Number(r.n) }));
}

/** The kept rows, in the same shape and order as dayTotalsFromLines. */
export async function keptDayTotals(
  q: Queryable,
  orgId: string,
): Promise<{ account_code: string; date: string; dr: number; cr: number; n: number }[]> {
  const rows = await q.all<{ account_code: string; date: string; dr: unknown; cr: unknown; n: unknown }>(
    `SELECT account_code, date, debit_cents AS dr, credit_cents AS cr, lines AS n FROM account_day_totals
     WHERE org_id = ? ORDER BY account_code, date`,
    [orgId],
  );
  return rows.map((r) => ({ account_code: r.account_code, date: r.date, dr: Number(r.dr), cr: Number(r.cr), n: Number(r.n) }));
}
