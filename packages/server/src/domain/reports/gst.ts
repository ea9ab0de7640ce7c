import { basDollars, gstOfInclusive, TAX_CODE_NAMES, TAX_CODES, type TaxCode } from '@finance-desk/protocol';
import { invariant } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';

/**
 * The GST summary for a BAS period (../shared/data/gst/README.md), from the tax tags on journal
 * lines: each line that carries a supply has its tax code, its GST-inclusive amount
 * (tax_base_cents, negative for a credit note or reversal) and its GST. Accruals basis: a sale
 * counts when its invoice is issued, a purchase when its bill is approved, because that is when
 * the ledger posts them.
 *
 * Labels come from TAX_CODES (each code lists the labels its amounts go to). The BAS takes whole
 * dollars, cents dropped and never negative (TAA 1953 Sch 1 s 388-85; basDollars). 1A/1B by
 * the accounts method are the GST recorded on each document; by the calculation worksheet they
 * are G8 ÷ 11 and G19 ÷ 11 of the whole-dollar labels. G7 and G18 (adjustments) are 0: credit
 * notes and reversals are netted into the labels of their period instead.
 */
const LABELS = ['G1', 'G2', 'G3', 'G4', 'G10', 'G11', 'G13', 'G14', 'G15', 'W1', 'W2'] as const;
type Label = (typeof LABELS)[number];
type Labels = Record<Label, number>;

export interface CodeTotal {
  readonly taxCode: TaxCode;
  readonly lines: number;
  readonly baseCents: number;
  readonly gstCents: number;
  readonly labels: readonly string[];
}

const isTaxCode = (code: string): code is TaxCode => (TAX_CODE_NAMES as readonly string[]).includes(code);

async function totalsByCode(q: Queryable, orgId: string, from: string, to: string): Promise<CodeTotal[]> {
  const rows = await q.all<{ tax_code: string; base: unknown; gst: unknown; n: unknown }>(
    `SELECT l.tax_code AS tax_code, SUM(l.tax_base_cents) AS base, SUM(l.gst_cents) AS gst, COUNT(*) AS n
     FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
     WHERE l.org_id = ? AND j.date >= ? AND j.date <= ? AND l.tax_code IS NOT NULL
     GROUP BY l.tax_code`,
    [orgId, from, to],
  );
  const byCode = new Map<TaxCode, CodeTotal>();
  for (const r of rows) {
    invariant(isTaxCode(r.tax_code), `journal lines carry known tax codes (${r.tax_code})`);
    const total = {
      taxCode: r.tax_code,
      lines: Number(r.n),
      baseCents: Number(r.base ?? 0),
      gstCents: Number(r.gst ?? 0),
      labels: TAX_CODES[r.tax_code].labels,
    };
    const safe = Number.isSafeInteger(total.baseCents) && Number.isSafeInteger(total.gstCents);
    invariant(safe, 'GST sums are safe integers');
    invariant(TAX_CODES[r.tax_code].gst || total.gstCents === 0, `${r.tax_code} lines carry no GST`);
    byCode.set(r.tax_code, total);
  }
  return TAX_CODE_NAMES.flatMap((c) => byCode.get(c) ?? []);
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
 * The calculation worksheet (G5 = G2+G3+G4, G6 = G1−G5, G8 = G6+G7, G9 = G8÷11, G12 = G10+G11,
 * G16 = G13+G14+G15, G17 = G12−G16, G19 = G17+G18, G20 = G19÷11) over label values in one unit.
 */
function worksheet(l: Labels, eleventh: (n: number) => number, clamp: (n: number) => number) {
  const G5 = l.G2 + l.G3 + l.G4;
  const G6 = clamp(l.G1 - G5);
  const G8 = G6;
  const G12 = l.G10 + l.G11;
  const G16 = l.G13 + l.G14 + l.G15;
  const G17 = clamp(G12 - G16);
  const G19 = G17;
  const { G1, G2, G3, G4, G10, G11, G13, G14, G15 } = l;
  return {
    G1, G2, G3, G4, G5, G6, G7: 0, G8, G9: eleventh(G8),
    G10, G11, G12, G13, G14, G15, G16, G17, G18: 0, G19, G20: eleventh(G19),
  };
}

export async function gstSummary(
  q: Queryable,
  orgId: string,
  from: string,
  to: string,
  method: 'accounts' | 'worksheet',
) {
  const byTaxCode = await totalsByCode(q, orgId, from, to);
  const cents = labelCents(byTaxCode);
  const gstOn = (side: 'sale' | 'purchase') =>
    byTaxCode.filter((t) => TAX_CODES[t.taxCode].side === side).reduce((s, t) => s + t.gstCents, 0);
  const gstOnSalesCents = gstOn('sale');
  const gstOnPurchasesCents = gstOn('purchase');
  const dollars = Object.fromEntries(LABELS.map((l) => [l, basDollars(cents[l])])) as Labels;
  // Whole dollars are never negative on the form; the exact-cents worksheet keeps signs.
  const sheet = worksheet(dollars, (n) => (n - (n % 11)) / 11, (n) => Math.max(n, 0));
  const sheetCents = worksheet(cents, gstOfInclusive, (n) => n);
  const accountsMethod = {
    gstOnSalesCents,
    gstOnPurchasesCents,
    '1A': basDollars(gstOnSalesCents),
    '1B': basDollars(gstOnPurchasesCents),
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
    exactCents: { ...cents, '1A': gstOnSalesCents, '1B': gstOnPurchasesCents },
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
    },
    byTaxCode,
  };
}
