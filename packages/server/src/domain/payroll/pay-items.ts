import type { payroll } from '@finance-desk/protocol';
import { divHalfUp, scaled, toSafe } from './decimal.js';
import { grossForMilliHours, type PayBasis, type PayFrequency } from './gross.js';
import { lumpSumWithholding } from './lump-sum.js';
import type { PayLine } from './pay-line.js';
import { superGuarantee } from './super.js';
import { withholding, type TaxScale } from './withholding.js';

/**
 * One employee's pay line with its earnings lines (docs/books.md "Pay items"): the ordinary pay
 * (gross.ts) plus overtime, penalties, allowances, bonuses and back pay, less salary sacrifice.
 *
 * - overtime and penalty: hours × the base hourly rate × the multiplier, one exact product rounded
 *   half up once. The base rate of hourly staff is their rate; of salaried staff annual salary ÷ 52
 *   ÷ hoursPerWeek, kept as that fraction (never rounded to a cent an hour first).
 * - allowance, bonus, back_pay, salary_sacrifice: the amount given.
 * - PAYG: Schedule 1 on the normal earnings (gross less bonus, back pay and salary sacrifice) plus
 *   the ATO's method for additional payments (lump-sum.ts) on bonus and back pay together. A
 *   sacrifice larger than the normal earnings comes out of the additional payments.
 * - Super guarantee on ordinary time earnings: gross less overtime (ordinary pay, paid leave,
 *   penalties, every allowance, bonus, back pay), before salary sacrifice.
 * - Net = gross − salary sacrifice − PAYG; a line whose net would be negative is refused.
 */
export type EarningType = (typeof payroll.EARNING_TYPES)[number];
export type AllowanceCategory = (typeof payroll.ALLOWANCE_CATEGORIES)[number];

export interface EarningInput {
  readonly type: EarningType;
  /** overtime and penalty: hours (up to two decimals) and the multiplier of the base rate. */
  readonly hours?: number;
  readonly multiplier?: number;
  readonly amountCents?: number;
  readonly category?: AllowanceCategory;
}

export interface PricedItem {
  readonly type: EarningType;
  readonly category: AllowanceCategory | null;
  readonly milliHours: number | null;
  /** The multiplier in thousandths (1.5 → 1500). */
  readonly multiplierMilli: number | null;
  readonly amountCents: number;
}

/** A line that cannot be paid as given (the caller names the field: earnings). */
export class PayItemError extends Error {
  override readonly name = 'PayItemError';
}

/** A number as given in a request (hours, multiplier) scaled exactly: its shortest decimal form, never float arithmetic. */
const exact = (n: number, places: number): number => toSafe(scaled(String(n), places));

/** The base hourly rate in cents as an exact fraction num/den (salaried: over their ordinary hours a week). */
export function baseHourlyRate(basis: PayBasis, hoursPerWeek: number): { num: bigint; den: bigint } {
  if ('hourlyRateCents' in basis) return { num: BigInt(basis.hourlyRateCents), den: 1n };
  const milliWeek = exact(hoursPerWeek, 3);
  if (milliWeek <= 0) throw new PayItemError('a salaried employee needs hours per week for an hourly rate');
  // annual ÷ 52 ÷ hoursPerWeek, with hoursPerWeek in milli-hours: × 1000 / (52 × milli).
  return { num: BigInt(basis.annualSalaryCents) * 1000n, den: 52n * BigInt(milliWeek) };
}

export function priceItem(basis: PayBasis, hoursPerWeek: number, e: EarningInput): PricedItem {
  if (e.type === 'overtime' || e.type === 'penalty') {
    if (e.hours === undefined || e.multiplier === undefined) throw new PayItemError(`${e.type} needs hours and a multiplier`);
    const milliHours = exact(e.hours, 3);
    const multiplierMilli = exact(e.multiplier, 3);
    const { num, den } = baseHourlyRate(basis, hoursPerWeek);
    const amountCents = toSafe(divHalfUp(num * BigInt(milliHours) * BigInt(multiplierMilli), den * 1_000_000n));
    return { type: e.type, category: null, milliHours, multiplierMilli, amountCents };
  }
  if (e.amountCents === undefined) throw new PayItemError(`${e.type} needs amountCents`);
  return {
    type: e.type,
    category: e.type === 'allowance' ? (e.category ?? null) : null,
    milliHours: null,
    multiplierMilli: null,
    amountCents: e.amountCents,
  };
}

/** Sums of priced items by type (an absent type is 0). */
export function itemTotals(items: readonly Pick<PricedItem, 'type' | 'amountCents'>[]): Record<EarningType, number> {
  const t: Record<EarningType, number> = { overtime: 0, penalty: 0, allowance: 0, bonus: 0, back_pay: 0, salary_sacrifice: 0 };
  for (const i of items) t[i.type] += i.amountCents;
  return t;
}

export interface ItemisedInput {
  readonly basis: PayBasis;
  readonly frequency: PayFrequency;
  /** Ordinary hours a week: a salaried employee's base hourly rate is annual salary ÷ 52 ÷ these. */
  readonly hoursPerWeek: number;
  readonly paymentDate: string;
  readonly scale: TaxScale;
  readonly residency: 'resident' | 'foreign';
  /** Hours worked in the period (hourly staff), milli-hours; default their ordinary hours. */
  readonly milliHours?: number;
  /** The ordinary pay when it is not the period's: a final pay's, up to the termination date (termination.ts). */
  readonly ordinaryCents?: number;
  readonly items: readonly EarningInput[];
  /** Ordinary time earnings already paid in the same maximum-contribution-base period (super.ts). */
  readonly earningsBeforeCents?: number;
}

/** A pay line (gross is ordinary pay and every earnings line but salary sacrifice, which is part of it, paid to super) with its items. */
export interface ItemisedLine extends PayLine {
  readonly ordinaryCents: number;
  readonly items: readonly PricedItem[];
  readonly totals: Readonly<Record<EarningType, number>>;
  readonly salarySacrificeCents: number;
  /** Ordinary time earnings: the super guarantee base. */
  readonly oteCents: number;
}

export function itemisedPayLine(input: ItemisedInput): ItemisedLine {
  const ordinaryCents = input.ordinaryCents ?? grossForMilliHours(input.basis, input.frequency, input.milliHours);
  const items = input.items.map((e) => priceItem(input.basis, input.hoursPerWeek, e));
  const t = itemTotals(items);
  const grossCents = ordinaryCents + t.overtime + t.penalty + t.allowance + t.bonus + t.back_pay;
  const sacrifice = t.salary_sacrifice;
  if (sacrifice > grossCents) {
    throw new PayItemError(`salary_sacrifice of ${sacrifice} cents is more than the gross of ${grossCents} cents it comes from`);
  }
  // Normal earnings less the sacrifice; what the sacrifice exceeds them by comes out of the additional payments.
  const normalBefore = grossCents - t.bonus - t.back_pay;
  const normal = Math.max(0, normalBefore - sacrifice);
  const additional = t.bonus + t.back_pay - Math.max(0, sacrifice - normalBefore);
  const base = { period: input.frequency, paymentDate: input.paymentDate, scale: input.scale, residency: input.residency };
  const w = withholding({ ...base, grossCents: normal });
  const paygCents = w.paygCents + lumpSumWithholding({ ...base, normalGrossCents: normal, additionalCents: additional });
  const oteCents = grossCents - t.overtime;
  const sg = superGuarantee({ grossCents: oteCents, paymentDate: input.paymentDate, earningsBeforeCents: input.earningsBeforeCents ?? 0 });
  const netCents = grossCents - sacrifice - paygCents;
  if (netCents < 0) {
    throw new PayItemError(
      `net pay would be ${netCents} cents (gross ${grossCents} less salary sacrifice ${sacrifice} and PAYG ${paygCents}); it must not be negative`,
    );
  }
  return {
    ordinaryCents,
    items,
    totals: t,
    grossCents,
    salarySacrificeCents: sacrifice,
    oteCents,
    paygCents,
    superCents: sg.superCents,
    netCents,
    scale: w.scale,
    coefficientSet: w.coefficientSet,
    confirmed: w.confirmed && (sg.mcb?.confirmed ?? true),
  };
}
