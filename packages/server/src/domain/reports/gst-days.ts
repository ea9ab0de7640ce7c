import type { Migration } from '../../storage/migration-types.js';
import type { Queryable } from '../../storage/types.js';

/**
 * The GST summary's sums (gst.ts) kept per day and tax code, so a BAS period reads days × codes
 * instead of every tagged line of the period with a look-up of each reduction's original document.
 *
 * Whether a reduction (a credit note, void, bill return or adjustment note) is an adjustment
 * depends on the period asked for: it is when its document was first posted before the period.
 * So each row also carries `origin_date`, the earliest date of the journals that first posted the
 * document the reduction names: a period starting after it reads the row as an adjustment. Rows
 * that are never adjustments (supplies; a reduction with no such document) carry '9999-12-31', a
 * bad debt written off (always an adjustment) ''. Added with each batch's journals before COMMIT
 * (cash-flow-days.ts runs both), from the journals just written, by the one SQL text the migration
 * and a rebuild use.
 *
 * What can change after posting: nothing the rows read. Lines, dates and sources are fixed; a
 * document is first posted (issued, approved) before anything reduces it, so a reduction's
 * origin_date is already known when it is posted.
 */
/**
 * Journals that reduce a document, and the kind of journal that first posted that document. A bad
 * debt written off (bad_debt) reduces GST on sales exactly as a credit note does; a supplier's
 * adjustment note (bill_credit_note) reduces GST on purchases exactly as a bill returned does.
 */
export const REDUCING_SOURCES = "('credit_note', 'invoice_void', 'bill_return', 'bad_debt', 'bill_credit_note')";
export const ORIGIN_SOURCES = "('invoice', 'bill')";
const NEVER = '9999-12-31';

/** The selected journals' tagged lines per org, date, code and origin date; `scope` is a condition on journals j. */
function rowsSql(scope: string): string {
  return `SELECT x.org_id AS org_id, x.date AS date, x.tax_code AS tax_code, x.origin_date AS origin_date,
      SUM(x.base) AS base, SUM(x.gst) AS gst, COUNT(*) AS n
    FROM (
      SELECT l.org_id AS org_id, j.date AS date, l.tax_code AS tax_code, l.tax_base_cents AS base, l.gst_cents AS gst,
        CASE WHEN j.source_kind = 'bad_debt' THEN ''
          WHEN j.source_kind IN ${REDUCING_SOURCES} THEN COALESCE((SELECT MIN(o.date) FROM journals o
            WHERE o.org_id = j.org_id AND o.source_id = j.source_id AND o.source_kind IN ${ORIGIN_SOURCES}), '${NEVER}')
          ELSE '${NEVER}' END AS origin_date
      FROM journals j JOIN journal_lines l ON l.org_id = j.org_id AND l.journal_id = j.id
      WHERE ${scope} AND l.tax_code IS NOT NULL
    ) x
    WHERE 1 = 1
    GROUP BY x.org_id, x.date, x.tax_code, x.origin_date`;
}

/** Add the selected journals' rows (WHERE 1 = 1 above: SQLite's upsert after a SELECT). */
export function addGstSql(scope: string): string {
  return `INSERT INTO gst_day_totals (org_id, date, tax_code, origin_date, base_cents, gst_cents, lines)
  ${rowsSql(scope)}
  ON CONFLICT (org_id, date, tax_code, origin_date) DO UPDATE SET
    base_cents = gst_day_totals.base_cents + excluded.base_cents,
    gst_cents = gst_day_totals.gst_cents + excluded.gst_cents,
    lines = gst_day_totals.lines + excluded.lines`;
}

export const migration: Migration = {
  id: 64,
  name: 'reports: GST per day and tax code',
  statements: [
    `CREATE TABLE gst_day_totals (
      org_id TEXT NOT NULL,
      date TEXT NOT NULL,
      tax_code TEXT NOT NULL,
      origin_date TEXT NOT NULL,
      base_cents BIGINT NOT NULL,
      gst_cents BIGINT NOT NULL,
      lines BIGINT NOT NULL,
      PRIMARY KEY (org_id, date, tax_code, origin_date)
    )`,
    // A period's sums from the index alone.
    'CREATE INDEX gst_day_totals_sums ON gst_day_totals (org_id, date, tax_code, origin_date, base_cents, gst_cents, lines)',
    // Organisations already on the books: their rows from the lines.
    addGstSql('1 = 1'),
  ],
};

/** Recompute one organisation's rows (the benchmark's seeding; tests). */
export async function rebuildGstDays(q: Queryable, orgId: string): Promise<void> {
  await q.run('DELETE FROM gst_day_totals WHERE org_id = ?', [orgId]);
  await q.run(addGstSql('j.org_id = ?'), [orgId]);
}

export interface GstDay {
  date: string;
  taxCode: string;
  originDate: string;
  base: number;
  gst: number;
  lines: number;
}

const rowsOf = (rows: Record<string, unknown>[]): GstDay[] =>
  rows.map((r) => ({
    date: String(r.date),
    taxCode: String(r.tax_code),
    originDate: String(r.origin_date),
    base: Number(r.base),
    gst: Number(r.gst),
    lines: Number(r.n),
  }));

/** The rows as the lines give them now, for comparison with the kept rows (tests). */
export async function gstDaysFromLines(q: Queryable, orgId: string): Promise<GstDay[]> {
  return rowsOf(await q.all(`SELECT * FROM (${rowsSql('j.org_id = ?')}) r ORDER BY date, tax_code, origin_date`, [orgId]));
}

/** The kept rows, in the same shape and order as gstDaysFromLines. */
export async function keptGstDays(q: Queryable, orgId: string): Promise<GstDay[]> {
  return rowsOf(
    await q.all(
      `SELECT date, tax_code, origin_date, base_cents AS base, gst_cents AS gst, lines AS n FROM gst_day_totals
       WHERE org_id = ? ORDER BY date, tax_code, origin_date`,
      [orgId],
    ),
  );
}
