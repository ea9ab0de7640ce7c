import { floorDiv, scaled, toSafe } from './decimal.js';

/**
 * Leave accrual rules (Fair Work Act NES ss 87 and 96): full- and part-time
 * employees accrue annual leave of 4 weeks and personal/carer's leave of 10 days a year,
 * progressively and pro rata to their ordinary hours; casuals accrue neither.
 *
 * With W ordinary hours a week, a year's 52·W hours earn 4·W hours of annual leave (4/52 of each
 * ordinary hour) and 10 days = 2 weeks = 2·W hours of personal leave (2/52). Amounts are in
 * milli-hours (1/1000 hour) so the ledger holds integers. Each accrual is the difference of the
 * cumulative entitlement before and after the pay's hours, each floored to the milli-hour, so the
 * running balance is exactly ⌊total ordinary hours × rate⌋ and no rounding drifts across pays.
 */
export type EmploymentBasis = 'full_time' | 'part_time' | 'casual';
export type LeaveType = 'annual' | 'personal';

/** Weeks of leave per 52 weeks of ordinary hours. */
const WEEKS_PER_YEAR: Readonly<Record<LeaveType, bigint>> = { annual: 4n, personal: 2n };

export const MILLI = 1000;

/** Cumulative entitlement in milli-hours after `ordinaryMilliHours` of ordinary hours worked. */
export function entitlementMilliHours(type: LeaveType, ordinaryMilliHours: number): number {
  return toSafe(floorDiv(BigInt(ordinaryMilliHours) * WEEKS_PER_YEAR[type], 52n));
}

export interface Accrual {
  readonly annualMilliHours: number;
  readonly personalMilliHours: number;
}

/**
 * What one pay accrues: `beforeMilliHours` is the ordinary hours already accrued on (the sum of
 * the ledger's earlier accrual rows), `thisPayMilliHours` the ordinary hours in this pay (paid
 * leave counts: leave accrues while it is taken).
 */
export function accrualForPay(basis: EmploymentBasis, beforeMilliHours: number, thisPayMilliHours: number): Accrual {
  if (basis === 'casual') return { annualMilliHours: 0, personalMilliHours: 0 };
  if (beforeMilliHours < 0 || thisPayMilliHours < 0) throw new Error('ordinary hours must not be negative');
  const after = beforeMilliHours + thisPayMilliHours;
  const step = (t: LeaveType) => entitlementMilliHours(t, after) - entitlementMilliHours(t, beforeMilliHours);
  return { annualMilliHours: step('annual'), personalMilliHours: step('personal') };
}

/**
 * Ordinary hours of one pay period in milli-hours: hoursPerWeek × 1, × 2, or × 52 ÷ 12 (floored).
 * Hours a week (to the hundredth) are read exactly from their decimal form, never multiplied as a float.
 */
export function ordinaryMilliHours(hoursPerWeek: number, frequency: 'weekly' | 'fortnightly' | 'monthly'): number {
  const weekly = scaled(String(hoursPerWeek), 3);
  if (frequency === 'weekly') return toSafe(weekly);
  if (frequency === 'fortnightly') return toSafe(weekly * 2n);
  return toSafe(floorDiv(weekly * 52n, 12n));
}

/** The yearly entitlement in hours for a weekly pattern (for docs and reads): annual 4·W, personal 2·W. */
export function yearlyEntitlementHours(type: LeaveType, hoursPerWeek: number): number {
  return toSafe(scaled(String(hoursPerWeek), 3) * WEEKS_PER_YEAR[type]) / MILLI;
}
