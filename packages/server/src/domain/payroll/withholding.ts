import { divHalfUp, floorDiv, scaled, toSafe } from './decimal.js';
import { SCHEDULE1 } from './schedule1-data.js';
import type { CoefficientRow, CoefficientScale, CoefficientSet, PayPeriod } from './schedule1-types.js';

/**
 * PAYG withholding by ATO Schedule 1 (NAT 1004), as restated in docs/reference/payg-withholding.md:
 * the coefficient set in force on the payment date; weekly earnings x with its cents
 * dropped and 99 cents added; y = a·x − b rounded to the nearest dollar (50 cents up) straight from
 * the unrounded value; the period amount from the rounded weekly amount. Integers only: a and b are
 * scaled by 10^4, x is in cents, so 10^6·y = A·X − 100·B exactly (BigInt).
 *
 * Not modelled (the data's notInScope): Medicare levy adjustment, STSL/HELP (Schedule 8), the extra
 * withholding for a 53rd weekly / 27th fortnightly pay, working holiday makers (Schedule 15).
 */
export type TaxScale = CoefficientScale | 4;

export class PayrollDataError extends Error {
  override readonly name = 'PayrollDataError';
}

export interface WithholdingInput {
  /** Earnings plus allowances subject to withholding for the period, in cents (≥ 0). */
  readonly grossCents: number;
  readonly period: PayPeriod;
  /** YYYY-MM-DD: the date the payment is made chooses the coefficients (not the pay period). */
  readonly paymentDate: string;
  readonly scale: TaxScale;
  /** Scale 4 (no TFN) only: 47% for a resident, 45% for a foreign resident. */
  readonly residency?: 'resident' | 'foreign';
  /** Annual tax offsets claimed on a withholding declaration (scales 2, 5, 6), in cents. */
  readonly taxOffsetsAnnualCents?: number;
}

export interface Withholding {
  /** A whole number of dollars, in cents (as Schedule 1 withholds). */
  readonly paygCents: number;
  readonly scale: TaxScale;
  /** The coefficient set used (null for Scale 4, which has no coefficients). */
  readonly coefficientSet: string | null;
  /** False when the set used is not confirmed against ato.gov.au (2026-07-01). */
  readonly confirmed: boolean;
  /** Weekly earnings x in cents, 99 cents included (null for Scale 4). */
  readonly weeklyEarningsCents: number | null;
  /** y before rounding, in millionths of a dollar (null for Scale 4). */
  readonly weeklyMicroDollars: bigint | null;
  /** The rounded weekly amount in dollars (null for Scale 4). */
  readonly weeklyDollars: number | null;
  /** The tax offset reduction taken off the period amount, in whole dollars. */
  readonly offsetReductionDollars: number;
}

/** Scale 3 is not restated in the 2026-07-01 set; see foreignResidentCarryForward below. */
const FOREIGN_SCALE: CoefficientScale = 3;

/**
 * The last payment date the data can answer for. The latest set has no end date, but the 2025
 * income tax cuts take the 16% rate to 15% from 1 July 2026 and to 14% from 1 July 2027, so
 * Schedule 1 changes again then: a payment after this date is refused rather than withheld from
 * a schedule known to be stale. Move it when a 2027-07-01 set is added to the data.
 */
export const SCHEDULE1_KNOWN_UNTIL = '2027-06-30';

/** The coefficient set in force on a payment date. */
export function coefficientSetOn(paymentDate: string): CoefficientSet {
  if (paymentDate > SCHEDULE1_KNOWN_UNTIL) {
    throw new PayrollDataError(
      `no Schedule 1 coefficients for payments made on ${paymentDate}: the data ends on ${SCHEDULE1_KNOWN_UNTIL} (a new schedule applies from 1 July 2027)`,
    );
  }
  const set = SCHEDULE1.coefficientSets.find(
    (s) => s.effectiveFrom <= paymentDate && (s.effectiveTo === null || paymentDate <= s.effectiveTo),
  );
  if (!set) throw new PayrollDataError(`no Schedule 1 coefficients for payments made on ${paymentDate}`);
  return set;
}

/**
 * The rows of a scale for a payment date. Scale 3 (foreign residents) is carried forward from the
 * latest earlier set when a set does not restate it: the 2026-27 changes (the 16% bracket cut to
 * 15% and the Medicare levy low-income thresholds) touch residents only, and foreign residents'
 * rates (30% to $135,000, 37% to $190,000, 45% above) are unchanged (docs/decisions.md). Scales 5
 * and 6 embed resident rates, so they are never carried forward.
 */
export function scaleRows(paymentDate: string, scale: CoefficientScale): { set: CoefficientSet; rows: readonly CoefficientRow[] } {
  const inForce = coefficientSetOn(paymentDate);
  const own = inForce.scales[`${scale}`];
  if (own) return { set: inForce, rows: own };
  if (scale === FOREIGN_SCALE) {
    const earlier = SCHEDULE1.coefficientSets
      .filter((s) => s.effectiveFrom < inForce.effectiveFrom && s.scales['3'] !== undefined)
      .sort((x, y) => (x.effectiveFrom < y.effectiveFrom ? 1 : -1))[0];
    const rows = earlier?.scales['3'];
    if (earlier && rows) return { set: earlier, rows };
  }
  throw new PayrollDataError(`Schedule 1 set ${inForce.id} has no Scale ${scale} coefficients`);
}

/**
 * Weekly earnings x, in cents (step 1): whole dollars of the weekly equivalent plus 99 cents.
 * Monthly: an amount ending in exactly 33 cents gets 1 cent more, then × 3 ÷ 13.
 */
export function weeklyEarningsCents(grossCents: number, period: PayPeriod): bigint {
  let g = BigInt(grossCents);
  if (g < 0n) throw new PayrollDataError('earnings must not be negative');
  let divisor: bigint; // cents of the period per 100 cents (one dollar) of weekly earnings
  switch (period) {
    case 'weekly':
      divisor = 100n;
      break;
    case 'fortnightly':
      divisor = 200n;
      break;
    case 'monthly':
      if (g % 100n === 33n) g += 1n;
      g *= 3n;
      divisor = 1300n;
      break;
    case 'quarterly':
      divisor = 1300n;
      break;
  }
  return floorDiv(g, divisor) * 100n + 99n;
}

/** The first band whose "less than" figure is greater than x (x in cents). */
export function bandOf(rows: readonly CoefficientRow[], x: bigint): CoefficientRow {
  const row = rows.find((r) => r.lessThan === null || BigInt(r.lessThan) * 100n > x);
  if (!row) throw new PayrollDataError('coefficient table has no "and over" band');
  return row;
}

/** 10^6·y = A·X − 100·B with A, B scaled by 10^4 and X in cents. */
export function weeklyMicroDollars(row: CoefficientRow, x: bigint): bigint {
  return scaled(row.a, 4) * x - 100n * scaled(row.b, 4);
}

/** Step 4: the period's amount from the rounded weekly amount (monthly × 13 ÷ 3, half up). */
export function periodDollars(weekly: bigint, period: PayPeriod): bigint {
  switch (period) {
    case 'weekly':
      return weekly;
    case 'fortnightly':
      return weekly * 2n;
    case 'monthly':
      return divHalfUp(weekly * 13n, 3n);
    case 'quarterly':
      return weekly * 13n;
  }
}

/**
 * Step 5: tax offsets claimed on a withholding declaration (scales 2, 5, 6) reduce the period
 * amount by a percentage of the annual offset (weekly 1.9%, fortnightly 3.8%; monthly 8.3% and
 * quarterly 25% are unconfirmed in the data), rounded to the nearest dollar.
 */
export function offsetReductionDollars(annualCents: number, period: PayPeriod): bigint {
  const percent = scaled(SCHEDULE1.taxOffsetReductionPercent[period], 2); // hundredths of a percent
  return divHalfUp(BigInt(annualCents) * percent, 100n * 100n * 100n);
}

/** Scale 4 (no TFN quoted): the rate on the earnings with cents ignored, the result's cents dropped. */
function noTfn(input: WithholdingInput): Withholding {
  const rate = scaled(input.residency === 'foreign' ? SCHEDULE1.scale4.foreign : SCHEDULE1.scale4.resident, 4);
  const dollars = floorDiv(floorDiv(BigInt(input.grossCents), 100n) * rate, 10_000n);
  return {
    paygCents: toSafe(dollars * 100n),
    scale: 4,
    coefficientSet: null,
    confirmed: true,
    weeklyEarningsCents: null,
    weeklyMicroDollars: null,
    weeklyDollars: null,
    offsetReductionDollars: 0,
  };
}

export function withholding(input: WithholdingInput): Withholding {
  if (!Number.isSafeInteger(input.grossCents) || input.grossCents < 0) {
    throw new PayrollDataError('grossCents must be a safe integer of at least 0');
  }
  if (input.scale === 4) return noTfn(input);
  const { set, rows } = scaleRows(input.paymentDate, input.scale);
  const x = weeklyEarningsCents(input.grossCents, input.period);
  const micro = weeklyMicroDollars(bandOf(rows, x), x);
  const weekly = micro <= 0n ? 0n : divHalfUp(micro, 1_000_000n);
  const offsets = input.taxOffsetsAnnualCents ?? 0;
  if (offsets > 0 && input.scale !== 2 && input.scale !== 5 && input.scale !== 6) {
    throw new PayrollDataError(`tax offsets reduce withholding on scales 2, 5 and 6 only, not Scale ${input.scale}`);
  }
  const reduction = offsets > 0 ? offsetReductionDollars(offsets, input.period) : 0n;
  const period = periodDollars(weekly, input.period) - reduction;
  // A carried-forward Scale 3 is an assumption for the later period, so never "confirmed".
  const carried = set.id !== coefficientSetOn(input.paymentDate).id;
  return {
    paygCents: toSafe((period > 0n ? period : 0n) * 100n),
    scale: input.scale,
    coefficientSet: set.id,
    confirmed: set.confirmed && !carried,
    weeklyEarningsCents: toSafe(x),
    weeklyMicroDollars: micro,
    weeklyDollars: toSafe(weekly),
    offsetReductionDollars: toSafe(reduction),
  };
}
