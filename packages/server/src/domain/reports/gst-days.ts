import type { Migration } from '../../storage/migration-types.js';
import type { Queryable } from '../../storage/types.js';

/**
 * The GST summary's sums (gst.ts) kept per day and tax code, so a BAS period reads days × codes
 * instead of every tagged line of the period. Written by postJournal with the lines, as additive
 * upserts (the same form as the account totals per day, merged on PostgreSQL into one statement
 * per write-out).
 *
 * Whether a reduction (a credit note, void, bill return or adjustment note) is an adjustment
 * depends on the period asked for: it is when its document was first posted before the period.
 * So a reduction's rows are kept apart under `reduces`, the document it names (its journal's
 * source id), and the report looks each of those few up as it did; a bad debt written off (always
 * an adjustment) under '*', every other tagged line under ''. Nothing here depends on anything
 * but the journal itself, so nothing posted later changes a kept row.
 */
/**
 * Journals that reduce a document, and the kind of journal that first posted that document. A bad
 * debt written off (bad_debt) reduces GST on sales exactly as a credit note does; a supplier's
 * adjustment note (bill_credit_note) reduces GST on purchases exactly as a bill returned does.
 */
const REDUCING = ['credit_note', 'invoice_void', 'bill_return', 'bad_debt', 'bill_credit_note'] as const;
export const REDUCING_SOURCES = `(${REDUCING.map((k) => `'${k}'`).join(', ')})`;
export const ORIGIN_SOURCES = "('invoice', 'bill')";
const SUPPLY = '';
const BAD_DEBT = '*';

/** A journal's rows: org, date, tax code, reduces, base, GST, lines. */
export const ADD_GST_DAY_SQL = `INSERT INTO gst_day_totals (org_id, date, tax_code, reduces, base_cents, gst_cents, lines)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (org_id, date, tax_code, reduces) DO UPDATE SET
    base_cents = gst_day_totals.base_cents + excluded.base_cents,
    gst_cents = gst_day_totals.gst_cents + excluded.gst_cents,
    lines = gst_day_totals.lines + excluded.lines`;

/** What `reduces` a journal's rows are kept under (the same rule as reducesSql). */
function reducesOf(source: { readonly kind: string; readonly id: string }): string {
  if (source.kind === 'bad_debt') return BAD_DEBT;
  return (REDUCING as readonly string[]).includes(source.kind) ? source.id : SUPPLY;
}

/** A journal's tagged lines summed per tax code, for ADD_GST_DAY_SQL (postJournal). */
export function gstDayRows(
  source: { readonly kind: string; readonly id: string },
  lines: readonly { readonly taxCode: string | null; readonly taxBaseCents: number; readonly gstCents: number }[],
): { taxCode: string; reduces: string; base: number; gst: number; lines: number }[] {
  const byCode = new Map<string, { taxCode: string; reduces: string; base: number; gst: number; lines: number }>();
  const reduces = reducesOf(source);
  for (const l of lines) {
    if (l.taxCode === null) continue;
    const t = byCode.get(l.taxCode) ?? { taxCode: l.taxCode, reduces, base: 0, gst: 0, lines: 0 };
    t.base += l.taxBaseCents;
    t.gst += l.gstCents;
    t.lines += 1;
    byCode.set(l.taxCode, t);
  }
  return [...byCode.values()];
}

const reducesSql = `CASE WHEN j.source_kind = 'bad_debt' THEN '${BAD_DEBT}'
  WHEN j.source_kind IN ${REDUCING_SOURCES} THEN j.source_id ELSE '${SUPPLY}' END`;

/** The rows as the stored lines give them; `scope` is a condition on journals j. */
const fromLines = (scope: string) => `SELECT x.org_id AS org_id, x.date AS date, x.tax_code AS tax_code, x.reduces AS reduces,
    SUM(x.base) AS base, SUM(x.gst) AS gst, COUNT(*) AS n
  FROM (
    SELECT l.org_id AS org_id, j.date AS date, l.tax_code AS tax_code, ${reducesSql} AS reduces,
      l.tax_base_cents AS base, l.gst_cents AS gst
    FROM journals j JOIN journal_lines l ON l.org_id = j.org_id AND l.journal_id = j.id
    WHERE ${scope} AND l.tax_code IS NOT NULL
  ) x
  GROUP BY x.org_id, x.date, x.tax_code, x.reduces`;

const INSERT_FROM_LINES = 'INSERT INTO gst_day_totals (org_id, date, tax_code, reduces, base_cents, gst_cents, lines)';

export const migration: Migration = {
  id: 64,
  name: 'reports: GST per day and tax code',
  statements: [
    `CREATE TABLE gst_day_totals (
      org_id TEXT NOT NULL,
      date TEXT NOT NULL,
      tax_code TEXT NOT NULL,
      reduces TEXT NOT NULL,
      base_cents BIGINT NOT NULL,
      gst_cents BIGINT NOT NULL,
      lines BIGINT NOT NULL,
      PRIMARY KEY (org_id, date, tax_code, reduces)
    )`,
    // A period's sums from the index alone.
    'CREATE INDEX gst_day_totals_sums ON gst_day_totals (org_id, date, tax_code, reduces, base_cents, gst_cents, lines)',
    // Organisations already on the books: their rows from the lines.
    `${INSERT_FROM_LINES} ${fromLines('1 = 1')}`,
  ],
};

/** Recompute one organisation's rows (the benchmark's seeding; tests). */
export async function rebuildGstDays(q: Queryable, orgId: string): Promise<void> {
  await q.run('DELETE FROM gst_day_totals WHERE org_id = ?', [orgId]);
  await q.run(`${INSERT_FROM_LINES} ${fromLines('j.org_id = ?')}`, [orgId]);
}

export interface GstDay {
  date: string;
  taxCode: string;
  reduces: string;
  base: number;
  gst: number;
  lines: number;
}

const rowsOf = (rows: Record<string, unknown>[]): GstDay[] =>
  rows.map((r) => ({
    date: String(r.date),
    taxCode: String(r.tax_code),
    reduces: String(r.reduces),
    base: Number(r.base),
    gst: Number(r.gst),
    lines: Number(r.n),
  }));

/** The rows as the lines give them now, for comparison with the kept rows (tests). */
export async function gstDaysFromLines(q: Queryable, orgId: string): Promise<GstDay[]> {
  return rowsOf(await q.all(`SELECT * FROM (${fromLines('j.org_id = ?')}) r ORDER BY date, tax_code, reduces`, [orgId]));
}

/** The kept rows, in the same shape and order as gstDaysFromLines. */
export async function keptGstDays(q: Queryable, orgId: string): Promise<GstDay[]> {
  return rowsOf(
    await q.all(
      `SELECT date, tax_code, reduces, base_cents AS base, gst_cents AS gst, lines AS n FROM gst_day_totals
       WHERE org_id = ? ORDER BY date, tax_code, reduces`,
      [orgId],
    ),
  );
}
