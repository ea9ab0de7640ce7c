import { withholding, type TaxScale } from './withholding.js';
import type { PayPeriod } from './schedule1-types.js';

/**
 * PAYG on a payment made with normal earnings but not earned in the period alone: a bonus or
 * commission, a back payment, unused annual leave paid on a normal termination. The ATO's method
 * for them (Schedule 5, Method A; Schedule 7 sends unused leave on a normal termination to the same
 * marginal-rate method) spreads the payment over the year's pay periods:
 *
 *   1. normal earnings for the period, cents ignored;  2. withholding on them (Schedule 1);
 *   3. the additional payments ÷ pay periods in the year (52, 26, 12, 4), cents ignored;
 *   4. step 1 + step 3;  5. withholding on step 4;  6. step 5 − step 2 (nil if negative);
 *   7. step 6 × pay periods in the year;  8. the payments × the top marginal rate (47%), cents
 *      ignored; the lesser of 7 and 8 is withheld from the payments.
 *
 * Scale 4 (no TFN) withholds its flat rate from the payment itself: there is no table to spread
 * over. Everything is in whole dollars as the schedules are; the result is in cents.
 */
export const PERIODS_IN_YEAR: Readonly<Record<PayPeriod, number>> = { weekly: 52, fortnightly: 26, monthly: 12, quarterly: 4 };

/** The top marginal rate (45%) with the Medicare levy (2%), in basis points. */
const TOP_MARGINAL_BP = 4_700n;

export interface LumpSumInput {
  /** Gross for the period without the additional payments (what Schedule 1 alone would tax). */
  readonly normalGrossCents: number;
  /** The additional payments made with it, together. */
  readonly additionalCents: number;
  readonly period: PayPeriod;
  readonly paymentDate: string;
  readonly scale: TaxScale;
  readonly residency: 'resident' | 'foreign';
}

const dollars = (cents: number): number => Math.floor(cents / 100);

/** The withholding on the additional payments alone, in cents (a whole number of dollars). */
export function lumpSumWithholding(input: LumpSumInput): number {
  if (input.additionalCents <= 0) return 0;
  const base = { period: input.period, paymentDate: input.paymentDate, scale: input.scale, residency: input.residency };
  if (input.scale === 4) return withholding({ ...base, grossCents: input.additionalCents }).paygCents;
  const periods = PERIODS_IN_YEAR[input.period];
  const normal = dollars(input.normalGrossCents) * 100;
  const onNormal = withholding({ ...base, grossCents: normal }).paygCents;
  const spread = dollars(Math.floor(input.additionalCents / periods)) * 100;
  const onBoth = withholding({ ...base, grossCents: normal + spread }).paygCents;
  const marginal = Math.max(0, onBoth - onNormal) * periods;
  const capped = Number((BigInt(dollars(input.additionalCents)) * TOP_MARGINAL_BP) / 10_000n) * 100;
  return Math.min(marginal, capped);
}
