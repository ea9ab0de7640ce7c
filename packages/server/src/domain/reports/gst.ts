import { basDollars, gstOfInclusive, TAX_CODE_NAMES, TAX_CODES, type TaxCode } from '@finance-desk/protocol';
import { invariant } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { ORIGIN_SOURCES } from './gst-days.js';

/**
 * The GST summary for a BAS period (docs/reference/gst-bas.md), from the tax tags on journal
 * lines: each line that carries a supply has its tax code, its GST-inclusive amount
 * (tax_base_cents, negative for a credit note or reversal) and its GST. Accruals basis: a sale
 * counts when its invoice is issued, a purchase when its bill is approved, because that is when
 * the ledger posts them.
 *
 * Labels come from TAX_CODES (each code lists the labels its amounts go to). The BAS takes whole
 * dollars, cents dropped and never negative (TAA 1953 Sch 1 s 388-85; basDollars). 1A/1B by
 * the accounts method are the GST recorded on each document plus adjustments; by the calculation
 * worksheet they are G9 = G8 ÷ 11 and G20 = G19 ÷ 11 of the whole-dollar labels.
 *
 * Adjustments (ATO BAS instructions, worksheet G7/G18; docs/books.md "Adjustments"): a credit
 * note, void or bill return in this period on a document posted in an earlier period changes
 * GST already reported, so it does not reduce this period's G1/G10/G11 — it is an adjustment.
 * Less GST on sales (a later credit note on a sale) is a decreasing adjustment: G18, so 1B; less
 * GST on purchases (a bill returned later) is an increasing adjustment: G7, so 1A. Adjustments of
 * supplies that carry no GST (exports, GST-free, input-taxed) change no GST and are not reported.
 * A reduction with no earlier document to point at (a manual refund journal) that would leave a
 * supply code negative for the period is treated the same way, so nothing is ever dropped by
 * the "never negative" rule. A credit in the same period as its document nets into its labels.
 * A bad debt written off is always an adjustment (GST Act Division 21: writing off a debt does not
 * change the supply's price, as a credit note does), even in the period of its invoice.
 */
const LABELS = ['G1', 'G2', 'G3', 'G4', 'G10', 'G11', 'G13', 'G14', 'G15', 'W1', 'W2'] as const;
type Label = (typeof LABELS)[number];
type Labels = Record<Label, number>;

export interface CodeTotal {
  readonly taxCode: TaxCode;
  readonly lines: number;
  /** This period's supplies of the code (adjustments of earlier periods excluded). */
  readonly baseCents: number;
  readonly gstCents: number;
  /** Adjustments of earlier periods' supplies of the code, signed as tagged (a credit is negative). */
  readonly adjustmentBaseCents: number;
  readonly adjustmentGstCents: number;
  readonly labels: readonly string[];
}

const isTaxCode = (code: string): code is TaxCode => (TAX_CODE_NAMES as readonly string[]).includes(code);

interface TotalRow {
  tax_code: string;
  adj: unknown;
  base: unknown;
  gst: unknown;
  n: unknown;
}

/**
 * Sums per tax code, split into this period's supplies (adj 0) and reductions of documents first
 * posted before the period (adj 1): the kept days × codes of the period (gst-days.ts), each
 * reduction's rows with its document looked up, as many as the period has reductions.
 */
async function sumsByCode(q: Queryable, orgId: string, from: string, to: string): Promise<TotalRow[]> {
  return q.all<TotalRow>(
    `SELECT x.tax_code AS tax_code, x.adj AS adj, SUM(x.base) AS base, SUM(x.gst) AS gst, SUM(x.n) AS n
     FROM (
       SELECT t.tax_code AS tax_code, t.base_cents AS base, t.gst_cents AS gst, t.lines AS n,
         CASE WHEN t.reduces = '' THEN 0 WHEN t.reduces = '*' THEN 1 WHEN EXISTS (
           SELECT 1 FROM journals o WHERE o.org_id = t.org_id AND o.source_id = t.reduces
             AND o.source_kind IN ${ORIGIN_SOURCES} AND o.date < ?
         ) THEN 1 ELSE 0 END AS adj
       FROM gst_day_totals t WHERE t.org_id = ? AND t.date >= ? AND t.date <= ?
     ) x
     GROUP BY x.tax_code, x.adj`,
    [from, orgId, from, to],
  );
}

/** A tax code's sums before the "never negative" rule: this period's supplies and adjustments. */
export interface CodeSums {
  lines: number;
  base: number;
  gst: number;
  adjBase: number;
  adjGst: number;
}

async function totalsByCode(q: Queryable, orgId: string, from: string, to: string): Promise<CodeTotal[]> {
  const byCode = new Map<TaxCode, CodeSums>();
  for (const r of await sumsByCode(q, orgId, from, to)) {
    invariant(isTaxCode(r.tax_code), `journal lines carry known tax codes (${r.tax_code})`);
    const t = byCode.get(r.tax_code) ?? { lines: 0, base: 0, gst: 0, adjBase: 0, adjGst: 0 };
    const base = Number(r.base ?? 0);
    const gst = Number(r.gst ?? 0);
    invariant(Number.isSafeInteger(base) && Number.isSafeInteger(gst), 'GST sums are safe integers');
    invariant(TAX_CODES[r.tax_code].gst || gst === 0, `${r.tax_code} lines carry no GST`);
    t.lines += Number(r.n);
    if (Number(r.adj) === 1) {
      t.adjBase += base;
      t.adjGst += gst;
    } else {
      t.base += base;
      t.gst += gst;
    }
    byCode.set(r.tax_code, t);
  }
  return codeTotals(byCode);
}

/** Sums per code as reported, in TAX_CODE_NAMES order (also the BAS's cash basis, domain/tax/cash.ts). */
export function codeTotals(byCode: ReadonlyMap<TaxCode, CodeSums>): CodeTotal[] {
  return TAX_CODE_NAMES.flatMap((code) => {
    const t = byCode.get(code);
    if (!t) return [];
    // A supply code netting below zero in its period is a reduction of earlier supplies.
    const spill = TAX_CODES[code].side !== null && t.base < 0;
    return [
      {
        taxCode: code,
        lines: t.lines,
        baseCents: spill ? 0 : t.base,
        gstCents: spill ? 0 : t.gst,
        adjustmentBaseCents: t.adjBase + (spill ? t.base : 0),
        adjustmentGstCents: t.adjGst + (spill ? t.gst : 0),
        labels: TAX_CODES[code].labels,
      },
    ];
  });
}

function labelCents(totals: readonly CodeTotal[]): Labels {
  const out = Object.fromEntries(LABELS.map((l) => [l, 0])) as Labels;
  for (const t of totals) {
    for (const label of t.labels) {
      invariant(label in out, `tax code ${t.taxCode} maps to a reported label (${label})`);
      out[label as Label] += t.baseCents;
    }
  }
  return out;
}

/**
 * Adjustments in GST-inclusive cents and their GST: G7 (increasing: less GST on purchases) and
 * G18 (decreasing: less GST on sales). Only GST-bearing codes adjust GST. A reduction is
 * negative as tagged; an increase of an earlier period (not produced today) goes the other way.
 */
function adjustments(totals: readonly CodeTotal[]) {
  const a = { G7: 0, G18: 0, increasingGst: 0, decreasingGst: 0 };
  for (const t of totals) {
    const code = TAX_CODES[t.taxCode];
    if (!code.gst || code.side === null) continue;
    const base = code.side === 'sale' ? t.adjustmentBaseCents : -t.adjustmentBaseCents;
    const gst = code.side === 'sale' ? t.adjustmentGstCents : -t.adjustmentGstCents;
    if (base >= 0) {
      a.G7 += base;
      a.increasingGst += gst;
    } else {
      a.G18 -= base;
      a.decreasingGst -= gst;
    }
  }
  return a;
}

/**
 * The calculation worksheet (G5 = G2+G3+G4, G6 = G1−G5, G8 = G6+G7, G9 = G8÷11, G12 = G10+G11,
 * G16 = G13+G14+G15, G17 = G12−G16, G19 = G17+G18, G20 = G19÷11) over label values in one unit.
 */
function worksheet(l: Labels & { G7: number; G18: number }, eleventh: (n: number) => number, clamp: (n: number) => number) {
  const G5 = l.G2 + l.G3 + l.G4;
  const G6 = clamp(l.G1 - G5);
  const G8 = G6 + l.G7;
  const G12 = l.G10 + l.G11;
  const G16 = l.G13 + l.G14 + l.G15;
  const G17 = clamp(G12 - G16);
  const G19 = G17 + l.G18;
  const { G1, G2, G3, G4, G7, G10, G11, G13, G14, G15, G18 } = l;
  return {
    G1,
    G2,
    G3,
    G4,
    G5,
    G6,
    G7,
    G8,
    G9: eleventh(G8),
    G10,
    G11,
    G12,
    G13,
    G14,
    G15,
    G16,
    G17,
    G18,
    G19,
    G20: eleventh(G19),
  };
}

export async function gstSummary(q: Queryable, orgId: string, from: string, to: string, method: 'accounts' | 'worksheet') {
  return summariseGst(await totalsByCode(q, orgId, from, to), from, to, method);
}

/** The report from totals per code (accruals here; the BAS's cash basis passes its own totals). */
export function summariseGst(byTaxCode: readonly CodeTotal[], from: string, to: string, method: 'accounts' | 'worksheet') {
  const cents = labelCents(byTaxCode);
  const adj = adjustments(byTaxCode);
  const gstOn = (side: 'sale' | 'purchase') =>
    byTaxCode.filter((t) => TAX_CODES[t.taxCode].side === side).reduce((s, t) => s + t.gstCents, 0);
  const gstOnSalesCents = gstOn('sale');
  const gstOnPurchasesCents = gstOn('purchase');
  const dollars = Object.fromEntries(LABELS.map((l) => [l, basDollars(cents[l])])) as Labels;
  // Whole dollars are never negative on the form; the exact-cents worksheet keeps signs.
  const sheet = worksheet(
    { ...dollars, G7: basDollars(adj.G7), G18: basDollars(adj.G18) },
    (n) => (n - (n % 11)) / 11,
    (n) => Math.max(n, 0),
  );
  const sheetCents = worksheet({ ...cents, G7: adj.G7, G18: adj.G18 }, gstOfInclusive, (n) => n);
  const a1Cents = gstOnSalesCents + adj.increasingGst;
  const b1Cents = gstOnPurchasesCents + adj.decreasingGst;
  const accountsMethod = {
    gstOnSalesCents,
    gstOnPurchasesCents,
    increasingAdjustmentsCents: adj.increasingGst,
    decreasingAdjustmentsCents: adj.decreasingGst,
    '1A': basDollars(a1Cents),
    '1B': basDollars(b1Cents),
  };
  const a1 = method === 'accounts' ? accountsMethod['1A'] : sheet.G9;
  const b1 = method === 'accounts' ? accountsMethod['1B'] : sheet.G20;
  const { G1, G2, G3, G10, G11, W1, W2 } = dollars;
  const front = { G1, G2, G3, G10, G11, '1A': a1, '1B': b1, W1, W2 };
  const label4 = dollars.W2;
  const net = a1 + label4 - b1;
  return {
    type: 'gst_summary' as const,
    from,
    to,
    basis: 'accruals' as const,
    gstMethod: method,
    exactCents: { ...cents, G7: adj.G7, G18: adj.G18, '1A': a1Cents, '1B': b1Cents },
    front,
    worksheet: sheet,
    worksheetCents: sheetCents,
    accountsMethod,
    summary: {
      '4': label4,
      '8A': a1 + label4,
      '8B': b1,
      '9': Math.abs(net),
      position: net > 0 ? ('payable' as const) : net < 0 ? ('refundable' as const) : ('nil' as const),
      // Signed: positive is owed to the ATO, negative is a refund (1A − 1B, and label 4).
      netGst: a1 - b1,
      net,
    },
    byTaxCode,
  };
}
