import { tax, TAX_CODES } from '@finance-desk/protocol';

const { BAS_LABELS } = tax;
import type { Queryable } from '../../storage/types.js';
import { gstSummary, summariseGst } from '../reports/gst.js';
import { cashCodeTotals } from './cash.js';

/**
 * The figures of a BAS, from the GST summary report (domain/reports/gst.ts, reused as is: the
 * accounts method, adjustments of earlier periods in G7/G18, the organisation's own dates), plus
 * what the settlement journal needs. Accrual basis, or cash basis from cash.ts.
 *
 * W1/W2 are the report's: journal lines tagged BAS_EXCLUDED_WAGES / BAS_EXCLUDED_PAYGW dated in
 * the period. A signed pay run's journal is dated its paymentDate and tags its gross wages and
 * PAYG withheld so (domain/payroll/sign.ts), which makes them the "signed pay runs whose
 * paymentDate is in the period" that W1/W2 count; a recall's reversal carries the tags negated.
 */
export type Labels = Record<(typeof BAS_LABELS)[number], number>;

export interface Figures {
  readonly labels: Labels;
  readonly exactCents: Record<string, number>;
  readonly summary: { '4': number; '8A': number; '8B': number; '9': number; position: 'payable' | 'refundable' | 'nil'; net: number };
  /** summary.net × 100: what is owed to (positive) or by (negative) the ATO, in cents. */
  readonly netCents: number;
  /** What the settlement clears, exact cents, signed in each account's normal direction. */
  readonly settlement: { readonly gstCollectedCents: number; readonly gstPaidCents: number; readonly paygCents: number };
}

export type Basis = 'accrual' | 'cash';

export async function basFigures(q: Queryable, orgId: string, from: string, to: string, basis: Basis): Promise<Figures> {
  const r =
    basis === 'cash'
      ? summariseGst(await cashCodeTotals(q, orgId, from, to), from, to, 'accounts')
      : await gstSummary(q, orgId, from, to, 'accounts');
  const labels = Object.fromEntries(BAS_LABELS.map((l) => [l, r.front[l]])) as Labels;
  // The GST each side's documents carried in the period, credits and returns included: what
  // their postings put into 2100 and 1200 (each tagged line's GST is its GST account's share).
  const gstOf = (side: 'sale' | 'purchase') =>
    r.byTaxCode.filter((t) => TAX_CODES[t.taxCode].side === side).reduce((s, t) => s + t.gstCents + t.adjustmentGstCents, 0);
  const { position, net } = r.summary;
  return {
    labels,
    exactCents: r.exactCents,
    summary: { '4': r.summary['4'], '8A': r.summary['8A'], '8B': r.summary['8B'], '9': r.summary['9'], position, net },
    netCents: net * 100,
    settlement: { gstCollectedCents: gstOf('sale'), gstPaidCents: gstOf('purchase'), paygCents: r.exactCents.W2 ?? 0 },
  };
}

/**
 * What differs between two computations: whole-dollar labels (`G1 39405 → 39505`), else the
 * exact cents (`1A 269005 cents → 269006 cents`) — a change of cents alone still changes what
 * the settlement clears.
 */
export function changedFigures(before: Figures, now: Figures): string[] {
  const labels = BAS_LABELS.filter((l) => before.labels[l] !== now.labels[l]).map((l) => `${l} ${before.labels[l]} → ${now.labels[l]}`);
  if (labels.length > 0) return labels;
  const keys = [...new Set([...Object.keys(before.exactCents), ...Object.keys(now.exactCents)])].sort();
  const cents = (f: Figures, k: string) => f.exactCents[k] ?? 0;
  return keys.filter((k) => cents(before, k) !== cents(now, k)).map((k) => `${k} ${cents(before, k)} cents → ${cents(now, k)} cents`);
}

/** Quarterly BAS: the 28th of the month after the quarter, the December quarter 28 February; monthly: the 21st of the next month (ATO). */
export function basDueOn(periodStart: string, periodEnd: string): string {
  const [y, m] = periodEnd.split('-').map(Number) as [number, number];
  const next = m === 12 ? { y: y + 1, m: 1 } : { y, m: m + 1 };
  const ym = (a: { y: number; m: number }) => `${a.y}-${String(a.m).padStart(2, '0')}`;
  if (frequencyOf(periodStart, periodEnd) === 'month') return `${ym(next)}-21`;
  return m === 12 ? `${y + 1}-02-28` : `${ym(next)}-28`;
}

export function frequencyOf(periodStart: string, periodEnd: string): 'quarter' | 'month' {
  return periodStart.slice(0, 7) === periodEnd.slice(0, 7) ? 'month' : 'quarter';
}
