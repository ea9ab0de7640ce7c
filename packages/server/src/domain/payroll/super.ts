import { divHalfUp, scaled, toSafe } from './decimal.js';
import { PayrollDataError } from './withholding.js';
import { SCHEDULE1 } from './schedule1-data.js';

/**
 * Superannuation guarantee: the rate in force on the payment date (the date wages are paid,
 * not worked) × gross, half up to a cent; it is an employer cost, never taken from net pay.
 *
 * Maximum contribution base (MCB): no SG is owed on earnings above it. Up to 30 June 2026 it is a
 * quarterly amount (quarters July–September, October–December, January–March, April–June); from
 * 1 July 2026 (Payday Super) an annual one, and the 2026-27 figure ($270,830) is not confirmed.
 * The caller gives the earnings already paid to this employee in the same MCB period
 * (`earningsBeforeCents`); SG is the rate × the part of this pay still under the base. Gross is
 * taken as ordinary time earnings (no overtime or non-OTE allowances are modelled yet).
 */
export interface SuperInput {
  readonly grossCents: number;
  readonly paymentDate: string;
  /** Earnings already paid to the employee in the same MCB period (quarter, or year from 2026-27). */
  readonly earningsBeforeCents?: number;
}

export interface SuperGuarantee {
  readonly superCents: number;
  /** The SG rate as the data gives it ("0.12"). */
  readonly rate: string;
  readonly mcb: {
    readonly period: 'quarter' | 'year';
    readonly from: string;
    readonly to: string;
    readonly maxCents: number;
    /** False for the 2026-27 annual base, which the data marks uncertain. */
    readonly confirmed: boolean;
  } | null;
  /** The part of this pay SG was calculated on (gross, or less when the MCB is reached). */
  readonly baseCents: number;
}

/** The SG rate in force on a payment date, as a decimal string. */
export function superRateOn(paymentDate: string): string {
  const row = SCHEDULE1.superGuaranteeRates.find((r) => r.from <= paymentDate && (r.to === null || paymentDate <= r.to));
  if (!row) throw new PayrollDataError(`no super guarantee rate for payments made on ${paymentDate}`);
  return row.rate;
}

/** "2025-26" for any date from 1 July 2025 to 30 June 2026. */
export function financialYearOf(date: string): string {
  const y = Number(date.slice(0, 4));
  const start = Number(date.slice(5, 7)) >= 7 ? y : y - 1;
  return `${start}-${String((start + 1) % 100).padStart(2, '0')}`;
}

const QUARTERS = [
  ['07-01', '09-30'],
  ['10-01', '12-31'],
  ['01-01', '03-31'],
  ['04-01', '06-30'],
] as const;

function quarterOf(date: string): { from: string; to: string } {
  const month = Number(date.slice(5, 7));
  const [from, to] = QUARTERS[Math.floor(((month + 5) % 12) / 3)] ?? QUARTERS[0];
  const year = date.slice(0, 4);
  return { from: `${year}-${from}`, to: `${year}-${to}` };
}

/** The maximum contribution base that applies to a payment date, or null when the data has none. */
export function mcbOn(paymentDate: string): SuperGuarantee['mcb'] {
  const fy = financialYearOf(paymentDate);
  const row = SCHEDULE1.maximumContributionBase.find((m) => m.financialYear === fy);
  if (!row) return null;
  if (row.perQuarterDollars !== null) {
    return { period: 'quarter', ...quarterOf(paymentDate), maxCents: row.perQuarterDollars * 100, confirmed: true };
  }
  if (row.perYearDollars === null) return null;
  const start = Number(fy.slice(0, 4));
  return { period: 'year', from: `${start}-07-01`, to: `${start + 1}-06-30`, maxCents: row.perYearDollars * 100, confirmed: false };
}

export function superGuarantee(input: SuperInput): SuperGuarantee {
  const before = input.earningsBeforeCents ?? 0;
  if (!Number.isSafeInteger(input.grossCents) || input.grossCents < 0 || !Number.isSafeInteger(before) || before < 0) {
    throw new PayrollDataError('grossCents and earningsBeforeCents must be safe integers of at least 0');
  }
  const rate = superRateOn(input.paymentDate);
  const mcb = mcbOn(input.paymentDate);
  const room = mcb === null ? input.grossCents : Math.max(0, mcb.maxCents - before);
  const base = Math.min(input.grossCents, room);
  const superCents = divHalfUp(BigInt(base) * scaled(rate, 6), 1_000_000n);
  return { superCents: toSafe(superCents), rate, mcb, baseCents: base };
}
