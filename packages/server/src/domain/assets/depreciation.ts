import type { AssetMethod } from '@finance-desk/protocol';
import { invariant } from '../../errors.js';

/**
 * Depreciation by days held (ITAA 1997 Div 40): a period of `days` days over 365 —
 * prime cost = cost × days/365 ÷ life; diminishing value = (cost − depreciation so far) × days/365
 * × 2 ÷ life (200% of prime cost, as for assets acquired after 10 May 2006). Each amount is
 * rounded half up to a cent, in BigInt (no floats anywhere), and never takes the book value
 * below zero. Days are counted inclusive of both ends: the day an asset starts is a day held,
 * so a whole calendar year is 365 days (366 in a leap year, which the ATO's days/365 allows).
 */
export interface DepreciationInput {
  readonly method: AssetMethod;
  readonly costCents: number;
  readonly lifeYears: number;
  /** Depreciation already posted for the asset. */
  readonly accumulatedCents: number;
  readonly days: number;
}

/** numerator ÷ denominator, rounded half up (both non-negative). */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

export function depreciationCents(input: DepreciationInput): number {
  const { method, costCents, lifeYears, accumulatedCents, days } = input;
  invariant(Number.isSafeInteger(costCents) && costCents >= 0, 'asset cost is a non-negative integer');
  invariant(Number.isSafeInteger(days) && days >= 0, 'days held is a non-negative integer');
  invariant(Number.isSafeInteger(lifeYears) && lifeYears >= 1, 'effective life is at least a year');
  const bookValue = costCents - accumulatedCents;
  invariant(bookValue >= 0, 'book value is never below zero');
  if (days === 0 || bookValue === 0) return 0;
  const base = BigInt(method === 'prime_cost' ? costCents : bookValue);
  const factor = method === 'prime_cost' ? 1n : 2n;
  const amount = divideHalfUp(base * BigInt(days) * factor, 365n * BigInt(lifeYears));
  return Math.min(Number(amount), bookValue);
}

/** Days from `from` to `to`, both included (0 when `to` is before `from`). */
export function daysInclusive(from: string, to: string): number {
  const ms = Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`);
  return ms < 0 ? 0 : Math.round(ms / 86_400_000) + 1;
}

export function dayAfter(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** The last day of its month (a depreciation run's periodEnd must be one). */
export function isMonthEnd(date: string): boolean {
  return dayAfter(date).slice(8, 10) === '01';
}

/** Where an asset's next period starts: the day after it was last depreciated to, or its start. */
export function periodStart(startDate: string, depreciatedTo: string | null): string {
  if (depreciatedTo === null || depreciatedTo < startDate) return startDate;
  return dayAfter(depreciatedTo);
}
