import { TAX_CODE_NAMES, type TaxCode } from '@finance-desk/protocol';
import { invariant } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { codeTotals, type CodeSums, type CodeTotal } from '../reports/gst.js';

/**
 * The cash basis of the BAS (GST Act Div 29-5, "accounting on a cash basis"): a sale or purchase
 * on a document (invoice, bill, expense claim) counts in the period its payment is received or
 * made, in proportion: each payment's share of its document's GST-inclusive base and GST per tax
 * code. A tagged line with no document (a manual journal, a bank line recoded) is cash already
 * and counts on its date, as on the accrual basis.
 *
 * From the ledger alone: a document's postings are the journals with tagged lines and a control
 * line (1100, 2000, 2500) naming it (issue, credit notes, void, return); its payments are the
 * untagged journals with such a control line. The document's net bases per code (to the period's
 * end) are apportioned to the amount paid up to a date, cumulatively: the period gets
 * share(paid to its end) − share(paid before its start), so the shares over all periods add up
 * to the document exactly once it is paid. Each share is integer cents by the largest remainder
 * (Hamilton): floors first, the cents left to the largest fractions, ties to the earlier code.
 *
 * Contact credits (migration 49) hold money on the control accounts under their own ids. The part
 * of a credit or adjustment note beyond what its document owed is a tagged journal whose only
 * control line is such a credit: the document was paid, so its GST is cash when the note is
 * issued, and it counts on its date as a line with no document does. Allocating a credit is an
 * untagged journal naming the document: a payment of it that day, as any other.
 */
const CONTROL = "('1100', '2000', '2500')";
/** Debit-normal control accounts: a payment credits them. The others are credit-normal. */
const DEBIT_NORMAL = new Set(['1100']);
/** A control line of a document, not of a contact credit. Parameter: orgId. */
const DOCUMENT_LINE = (c: string) =>
  `${c}.account_code IN ${CONTROL} AND ${c}.doc_id IS NOT NULL AND ${c}.doc_id NOT IN (SELECT k.id FROM contact_credits k WHERE k.org_id = ?)`;

interface ControlRow {
  doc_id: string;
  account_code: string;
  date: string;
  dr: unknown;
  cr: unknown;
  tagged: unknown;
}

interface DocTagRow {
  doc_id: string;
  tax_code: string;
  base: unknown;
  gst: unknown;
}

interface Doc {
  gross: number;
  paidBefore: number;
  paidToEnd: number;
  codes: Map<TaxCode, { base: number; gst: number }>;
}

const num = (v: unknown) => {
  const n = Number(v ?? 0);
  invariant(Number.isSafeInteger(n), 'ledger sums are safe integers');
  return n;
};

const isTaxCode = (c: string): c is TaxCode => (TAX_CODE_NAMES as readonly string[]).includes(c);

/** floor(a / b) for b > 0, in integers. */
function floorDiv(a: bigint, b: bigint): bigint {
  return a >= 0n ? a / b : -((-a + b - 1n) / b);
}

/**
 * Largest-remainder shares of `weights` scaled by num/den (den > 0): each share is within a cent
 * of its exact value and they sum to round(Σw · num / den), half up.
 */
export function apportion(weights: readonly number[], num: number, den: number): number[] {
  invariant(den > 0, 'apportioning over a positive whole');
  const d = BigInt(den);
  const exact = weights.map((w) => BigInt(w) * BigInt(num));
  const floors = exact.map((x) => floorDiv(x, d));
  const total = exact.reduce((s, x) => s + x, 0n);
  const target = floorDiv(2n * total + d, 2n * d);
  let left = Number(target - floors.reduce((s, x) => s + x, 0n));
  const order = exact
    .map((x, i) => ({ i, rem: x - (floors[i] ?? 0n) * d }))
    .sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  const out = floors.map(Number);
  for (const { i } of order) {
    if (left <= 0) break;
    out[i] = (out[i] ?? 0) + 1;
    left -= 1;
  }
  return out;
}

async function documents(q: Queryable, orgId: string, from: string, to: string): Promise<Map<string, Doc>> {
  const hasTags =
    'EXISTS (SELECT 1 FROM journal_lines t WHERE t.org_id = l.org_id AND t.journal_id = l.journal_id AND t.tax_code IS NOT NULL)';
  const control = await q.all<ControlRow>(
    `SELECT l.doc_id AS doc_id, l.account_code AS account_code, j.date AS date, l.debit_cents AS dr, l.credit_cents AS cr,
       CASE WHEN ${hasTags} THEN 1 ELSE 0 END AS tagged
     FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
     WHERE l.org_id = ? AND l.account_code IN ${CONTROL} AND l.doc_id IS NOT NULL AND j.date <= ?`,
    [orgId, to],
  );
  const docs = new Map<string, Doc>();
  for (const r of control) {
    const d = docs.get(r.doc_id) ?? { gross: 0, paidBefore: 0, paidToEnd: 0, codes: new Map() };
    const increase = DEBIT_NORMAL.has(r.account_code) ? num(r.dr) - num(r.cr) : num(r.cr) - num(r.dr);
    if (Number(r.tagged) === 1) d.gross += increase;
    else {
      d.paidToEnd -= increase;
      if (r.date < from) d.paidBefore -= increase;
    }
    docs.set(r.doc_id, d);
  }
  const tags = await q.all<DocTagRow>(
    `SELECT c.doc_id AS doc_id, l.tax_code AS tax_code, SUM(l.tax_base_cents) AS base, SUM(l.gst_cents) AS gst
     FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
     JOIN journal_lines c ON c.org_id = l.org_id AND c.journal_id = l.journal_id
       AND c.account_code IN ${CONTROL} AND c.doc_id IS NOT NULL
     WHERE l.org_id = ? AND l.tax_code IS NOT NULL AND j.date <= ?
     GROUP BY c.doc_id, l.tax_code`,
    [orgId, to],
  );
  for (const r of tags) {
    invariant(isTaxCode(r.tax_code), `journal lines carry known tax codes (${r.tax_code})`);
    docs.get(r.doc_id)?.codes.set(r.tax_code, { base: num(r.base), gst: num(r.gst) });
  }
  return docs;
}

/** Tagged lines dated in the period on journals that name no document: cash when posted. */
async function cashLines(q: Queryable, orgId: string, from: string, to: string) {
  return q.all<{ tax_code: string; base: unknown; gst: unknown; n: unknown }>(
    `SELECT l.tax_code AS tax_code, SUM(l.tax_base_cents) AS base, SUM(l.gst_cents) AS gst, COUNT(*) AS n
     FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
     WHERE l.org_id = ? AND j.date >= ? AND j.date <= ? AND l.tax_code IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM journal_lines c WHERE c.org_id = l.org_id AND c.journal_id = l.journal_id
         AND ${DOCUMENT_LINE('c')})
     GROUP BY l.tax_code`,
    [orgId, from, to, orgId],
  );
}

/** The period's share of one document, per code: share(paid to end) − share(paid before). */
function docShares(d: Doc): { code: TaxCode; base: number; gst: number }[] {
  if (d.gross <= 0 || d.paidToEnd === d.paidBefore) return [];
  const clamp = (x: number) => Math.min(Math.max(x, 0), d.gross);
  const codes = [...d.codes.entries()];
  const bases = codes.map(([, v]) => v.base);
  const gsts = codes.map(([, v]) => v.gst);
  const share = (paid: number) => ({ base: apportion(bases, clamp(paid), d.gross), gst: apportion(gsts, clamp(paid), d.gross) });
  const end = share(d.paidToEnd);
  const start = share(d.paidBefore);
  return codes.map(([code], i) => ({
    code,
    base: (end.base[i] ?? 0) - (start.base[i] ?? 0),
    gst: (end.gst[i] ?? 0) - (start.gst[i] ?? 0),
  }));
}

/** Totals per tax code on the cash basis, in the GST report's shape (negatives become adjustments there). */
export async function cashCodeTotals(q: Queryable, orgId: string, from: string, to: string): Promise<CodeTotal[]> {
  const sums = new Map<TaxCode, CodeSums>();
  const add = (code: TaxCode, base: number, gst: number, lines: number) => {
    const t = sums.get(code) ?? { lines: 0, base: 0, gst: 0, adjBase: 0, adjGst: 0 };
    t.lines += lines;
    t.base += base;
    t.gst += gst;
    sums.set(code, t);
  };
  for (const r of await cashLines(q, orgId, from, to)) {
    invariant(isTaxCode(r.tax_code), `journal lines carry known tax codes (${r.tax_code})`);
    add(r.tax_code, num(r.base), num(r.gst), num(r.n));
  }
  for (const d of (await documents(q, orgId, from, to)).values()) {
    for (const s of docShares(d)) add(s.code, s.base, s.gst, 1);
  }
  return codeTotals(sums);
}
