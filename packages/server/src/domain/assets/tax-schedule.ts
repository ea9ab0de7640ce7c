import type { TaxTreatment } from '@finance-desk/protocol';
import { invariant } from '../../errors.js';

/**
 * The tax depreciation of fixed assets for a small business entity (ITAA 1997 Subdiv 328-D,
 * simplified depreciation), beside the book schedule. Pure: figures from each asset's cost, the
 * income year it was first used, its treatment and its disposal; nothing is posted.
 *
 * - instant_write_off: the whole GST-exclusive cost is deducted in the income year the asset is
 *   first used when the cost is below that year's threshold (s 328-180); one not below it is
 *   pooled, as the simplified depreciation rules require.
 * - small_business_pool: added to the pool in the year first used; the pool deducts 15 % of the
 *   year's additions and 30 % of its opening balance (s 328-190), rounded half up to a cent once,
 *   and the whole balance when the balance before the deduction is below the year's threshold
 *   (s 328-210). Termination values (GST-exclusive proceeds) of pooled assets reduce the pool;
 *   past its balance they are assessable and the pool closes at 0 (s 328-215).
 * - same_as_book: the book depreciation is the deduction.
 */

/**
 * Instant asset write-off and low pool balance thresholds by income year (the year starting
 * 1 July of the key), GST-exclusive cost, exclusive ("less than"). Source: the ATO's "Instant asset
 * write-off for eligible businesses" (ato.gov.au) and Income Tax (Transitional Provisions) Act
 * 1997 s 328-180 — $20,000 for 2023-24 (Treasury Laws Amendment (Tax Incentives and Integrity)
 * Act 2024), 2024-25 and 2025-26. A year not listed uses $1,000, the permanent threshold of
 * ITAA 1997 s 328-180: add a year here when the law sets it.
 */
export const INSTANT_WRITE_OFF_THRESHOLDS: Readonly<Record<number, number>> = {
  2023: 2_000_000,
  2024: 2_000_000,
  2025: 2_000_000,
};
export const PERMANENT_THRESHOLD_CENTS = 100_000;

export const thresholdCents = (year: number): number => INSTANT_WRITE_OFF_THRESHOLDS[year] ?? PERMANENT_THRESHOLD_CENTS;

/** The income year (by its starting calendar year) holding a date: 1 July to 30 June. */
export function incomeYearOf(date: string): number {
  const y = Number(date.slice(0, 4));
  return date.slice(5, 7) >= '07' ? y : y - 1;
}

export const incomeYearLabel = (year: number): string => `${year}-${String((year + 1) % 100).padStart(2, '0')}`;

export type TaxMethod = 'book' | 'instant_write_off' | 'pool';

export function taxMethodOf(treatment: TaxTreatment, costCents: number, firstUsedYear: number): TaxMethod {
  if (treatment === 'same_as_book') return 'book';
  if (treatment === 'instant_write_off' && costCents < thresholdCents(firstUsedYear)) return 'instant_write_off';
  return 'pool';
}

/** numerator ÷ 100, half up (numerator ≥ 0), in BigInt. */
function percentHalfUp(numerator: bigint): number {
  return Number((2n * numerator + 100n) / 200n);
}

export interface PoolYear {
  readonly openingCents: number;
  readonly additionsCents: number;
  readonly disposalsCents: number;
  readonly deductionCents: number;
  readonly closingCents: number;
  readonly assessableCents: number;
  readonly lowBalanceWriteOff: boolean;
}

/** One pool year from its opening balance, additions (costs) and termination values. */
export function poolYear(year: number, openingCents: number, additionsCents: number, disposalsCents: number): PoolYear {
  invariant(openingCents >= 0 && additionsCents >= 0 && disposalsCents >= 0, 'pool amounts are not negative');
  const balance = openingCents + additionsCents - disposalsCents;
  const base = { openingCents, additionsCents, disposalsCents };
  if (balance <= 0) return { ...base, deductionCents: 0, closingCents: 0, assessableCents: -balance, lowBalanceWriteOff: false };
  if (balance < thresholdCents(year))
    return { ...base, deductionCents: balance, closingCents: 0, assessableCents: 0, lowBalanceWriteOff: true };
  const deduction = Math.min(percentHalfUp(15n * BigInt(additionsCents) + 30n * BigInt(openingCents)), balance);
  return { ...base, deductionCents: deduction, closingCents: balance - deduction, assessableCents: 0, lowBalanceWriteOff: false };
}

export interface PooledAsset {
  readonly firstUsedYear: number;
  readonly costCents: number;
  /** The income year it left the pool and its GST-exclusive proceeds; null while held. */
  readonly disposal: { readonly year: number; readonly terminationValueCents: number } | null;
}

/** The pool's year `year`, rolled forward from the first year any asset joined it. */
export function poolFor(year: number, assets: readonly PooledAsset[]): PoolYear {
  const first = Math.min(year, ...assets.map((a) => a.firstUsedYear));
  let opening = 0;
  let current = poolYear(first, 0, 0, 0);
  for (let y = first; y <= year; y += 1) {
    const additions = assets.filter((a) => a.firstUsedYear === y).reduce((s, a) => s + a.costCents, 0);
    const disposals = assets.filter((a) => a.disposal?.year === y).reduce((s, a) => s + (a.disposal?.terminationValueCents ?? 0), 0);
    current = poolYear(y, opening, additions, disposals);
    opening = current.closingCents;
  }
  return current;
}
