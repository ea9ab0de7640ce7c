import { divHalfUp, scaled, toSafe } from './decimal.js';

/**
 * Gross pay for one period, in integer cents, half up:
 * - salaried: annualSalaryCents ÷ 52 (weekly), ÷ 26 (fortnightly) or ÷ 12 (monthly);
 * - hourly: hourlyRateCents × hours (exact to the milli-hour, the product rounded half up once),
 *   where hours are those given for the period or else the
 *   ordinary hours: hoursPerWeek × 1, × 2, or × 52 ÷ 12 for a month. The month's product is formed
 *   whole first (rate × hoursPerWeek × 52) and divided by 12 once, so nothing is rounded twice.
 */
export type PayFrequency = 'weekly' | 'fortnightly' | 'monthly';

export type PayBasis = { readonly annualSalaryCents: number } | { readonly hourlyRateCents: number; readonly hoursPerWeek: number };

export const PERIODS_PER_YEAR: Readonly<Record<PayFrequency, bigint>> = { weekly: 52n, fortnightly: 26n, monthly: 12n };

/**
 * Ordinary hours in a period, as an exact fraction num/den of hours (monthly: hoursPerWeek × 52 / 12).
 * Hours a week may have two decimals (22.8), so they enter as milli-hours over 1000, never as a float.
 */
export function ordinaryHours(hoursPerWeek: number, frequency: PayFrequency): { num: bigint; den: bigint } {
  const h = BigInt(milliHoursOf(hoursPerWeek));
  if (frequency === 'weekly') return { num: h, den: 1000n };
  if (frequency === 'fortnightly') return { num: h * 2n, den: 1000n };
  return { num: h * 52n, den: 12_000n };
}

/**
 * Hours as a JSON number (7.6, 38) in milli-hours, read exactly from the number's shortest decimal
 * form (the form the request carried), never by floating-point arithmetic; more than three
 * decimal places throws (the protocol allows two).
 */
export function milliHoursOf(hours: number): number {
  return toSafe(scaled(String(hours), 3));
}

/** Milli-hours as the JSON number of hours they are (7600 → 7.6): for display and results only. */
export function hoursOfMilli(milli: number): number {
  return milli / 1000;
}

/** Gross for one period; `hours` (hours worked, up to three decimals) replaces the ordinary hours for hourly staff. */
export function grossForPeriod(basis: PayBasis, frequency: PayFrequency, hours?: number): number {
  return grossForMilliHours(basis, frequency, hours === undefined ? undefined : milliHoursOf(hours));
}

/** Gross for one period with the hours worked given in milli-hours (hourly staff). */
export function grossForMilliHours(basis: PayBasis, frequency: PayFrequency, milliHours?: number): number {
  if ('annualSalaryCents' in basis) {
    return toSafe(divHalfUp(BigInt(basis.annualSalaryCents), PERIODS_PER_YEAR[frequency]));
  }
  const rate = BigInt(basis.hourlyRateCents);
  if (milliHours !== undefined) return toSafe(divHalfUp(rate * BigInt(milliHours), 1000n));
  const { num, den } = ordinaryHours(basis.hoursPerWeek, frequency);
  return toSafe(divHalfUp(rate * num, den));
}

/** The annual equivalent of a pay basis, in cents (hourly: rate × hoursPerWeek × 52, half up once). */
export function annualEquivalentCents(basis: PayBasis): number {
  if ('annualSalaryCents' in basis) return basis.annualSalaryCents;
  return toSafe(divHalfUp(BigInt(basis.hourlyRateCents) * BigInt(milliHoursOf(basis.hoursPerWeek)) * 52n, 1000n));
}
