import type { payroll } from '@finance-desk/protocol';
import type { z } from 'zod';
import { invariant } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { hoursPerWeekOf, payBasisOf, type EmployeeRow } from '../people/employees.js';
import { taxScaleFor } from '../people/tax-treatment.js';
import { divHalfUp, toSafe } from './decimal.js';
import { MILLI, ordinaryMilliHours } from './leave-accrual.js';
import { milliHoursOf } from './gross.js';
import { itemisedPayLine, type EarningInput, type PricedItem } from './pay-items.js';
import { mcbOn } from './super.js';
import { finalPayTerms, proratedMilliHours, proratedOrdinaryCents, withFinalPay, type FinalPay } from './termination.js';

/**
 * One employee's line of a draft: itemisedPayLine (pay-items.ts: ordinary pay and the earnings
 * lines given for the employee, PAYG, super, net) plus the leave it pays. Hours are milli-hours.
 *
 * Approved leave not yet paid whose startDate is on or before periodEnd is paid whole in the run
 * (a request is paid once, by the first run that reaches its start). Paid leave is part of gross,
 * not extra to it: a salaried employee's gross is unchanged (leave replaces ordinary hours); an
 * hourly employee paid ordinary hours likewise; an hourly employee with hours given is paid those
 * hours worked plus the leave hours. leaveCents is the leave's share of gross (STP reports paid
 * leave apart from salary and wages): hourly, rate × leave hours; salaried, ordinary pay × leave
 * hours ÷ ordinary hours, half up; never more than the ordinary pay. Leave accrues on ordinary hours paid, worked or
 * on leave, at most the period's ordinary hours (hours beyond are overtime, which accrues none).
 */
type Params = z.infer<typeof payroll.payrollDraft.params>;

export interface DraftLine {
  readonly employeeId: string;
  readonly name: string;
  readonly basis: EmployeeRow['employment_basis'];
  readonly grossCents: number;
  readonly paygCents: number;
  readonly superCents: number;
  readonly netCents: number;
  /** Hours paid (given plus leave) in milli-hours; null where ordinary hours were paid. */
  readonly milliHours: number | null;
  readonly leaveMilliHours: number;
  readonly leaveCents: number;
  readonly leaveIds: readonly string[];
  readonly ordinaryMilliHours: number;
  /** The earnings lines priced (pay-items.ts), salary sacrifice and ordinary time earnings. */
  readonly items: readonly PricedItem[];
  readonly salarySacrificeCents: number;
  readonly oteCents: number;
  readonly taxScale: number;
  readonly confirmed: boolean;
  readonly bsb: string | null;
  readonly accountNumber: string | null;
  readonly accountName: string | null;
  /** An employee's final pay (termination.ts): ordinary pay to the termination date, unused leave paid out. */
  readonly termination?: FinalPay;
}

/**
 * Ordinary time earnings already paid to the employee in the super maximum contribution base period
 * (super.ts): the signed runs paid in it, plus the gross the previous software paid when a
 * conversion (conversion.ts) carried in a year to date that lies wholly in the period. That year
 * to date runs from 1 July to the conversion date, so it counts for an annual base, and for a
 * quarterly base only when the conversion fell in the year's first quarter; in a later quarter the
 * share earned in that quarter is unknown, and leaving it out can only pay more super than the
 * minimum, never less (docs/decisions.md "Payroll").
 */
async function earningsBefore(uow: Uow, employeeId: string, paymentDate: string): Promise<number> {
  const mcb = mcbOn(paymentDate);
  if (!mcb) return 0;
  const row = await uow.tx.get<{ s: number | string | null }>(
    `SELECT SUM(l.ote_cents) AS s FROM pay_run_lines l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND l.employee_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ?`,
    [uow.orgId, employeeId, mcb.from, mcb.to],
  );
  const carried = mcb.from.endsWith('-07-01')
    ? await uow.tx.get<{ gross_cents: number | string }>(
        `SELECT gross_cents FROM payroll_opening WHERE org_id = ? AND employee_id = ? AND conversion_date >= ? AND conversion_date <= ?`,
        [uow.orgId, employeeId, mcb.from, mcb.to],
      )
    : undefined;
  return Number(row?.s ?? 0) + Number(carried?.gross_cents ?? 0);
}

export async function computeLine(
  uow: Uow,
  p: Params,
  e: EmployeeRow,
  hoursGiven: number | undefined,
  earnings: readonly EarningInput[] = [],
): Promise<DraftLine> {
  const leave = await uow.tx.all<{ id: string; milli_hours: number | string }>(
    `SELECT id, milli_hours FROM leave_requests WHERE org_id = ? AND employee_id = ? AND status = 'approved' AND pay_run_id IS NULL
     AND start_date <= ? ORDER BY start_date, id`,
    [uow.orgId, e.id, p.periodEnd],
  );
  const leaveMilli = leave.reduce((s, l) => s + Number(l.milli_hours), 0);
  invariant(e.tfn !== null && e.residency !== null && e.tax_declared_on !== null, `active employee ${e.id} has a tax declaration`);
  const declaration = {
    tfn: e.tfn,
    residency: e.residency,
    claimsTaxFreeThreshold: Number(e.claims_tax_free_threshold) === 1,
    declaredOn: e.tax_declared_on,
  };
  const scale = taxScaleFor(declaration, p.paymentDate);
  const basis = payBasisOf(e);
  // The run whose period contains a recorded termination date is the employee's final pay.
  const final = await finalPayTerms(uow, p, e);
  const milliHours = hoursGiven === undefined ? null : milliHoursOf(hoursGiven) + leaveMilli;
  const line = itemisedPayLine({
    basis,
    frequency: p.payFrequency,
    hoursPerWeek: hoursPerWeekOf(e),
    paymentDate: p.paymentDate,
    scale,
    residency: e.residency,
    ...(milliHours === null ? {} : { milliHours }),
    ...(final && milliHours === null ? { ordinaryCents: proratedOrdinaryCents(basis, p.payFrequency, final) } : {}),
    items: earnings,
    earningsBeforeCents: await earningsBefore(uow, e.id, p.paymentDate),
  });
  const ordinary = proratedMilliHours(ordinaryMilliHours(hoursPerWeekOf(e), p.payFrequency), final);
  // Paid leave is a share of the ordinary pay, never of overtime or other earnings lines.
  const leaveCents = Math.min(
    line.ordinaryCents,
    'hourlyRateCents' in basis
      ? toSafe(divHalfUp(BigInt(basis.hourlyRateCents) * BigInt(leaveMilli), BigInt(MILLI)))
      : toSafe(divHalfUp(BigInt(line.ordinaryCents) * BigInt(leaveMilli), BigInt(ordinary))),
  );
  // Penalty hours are ordinary hours at a penalty rate (leave accrues on them); overtime accrues none.
  const penaltyMilli = line.items.reduce((s, i) => s + (i.type === 'penalty' ? (i.milliHours ?? 0) : 0), 0);
  const out: DraftLine = {
    employeeId: e.id,
    name: e.name,
    basis: e.employment_basis,
    grossCents: line.grossCents,
    paygCents: line.paygCents,
    superCents: line.superCents,
    netCents: line.netCents,
    milliHours,
    leaveMilliHours: leaveMilli,
    leaveCents,
    leaveIds: leave.map((l) => l.id),
    ordinaryMilliHours: milliHours === null ? ordinary : Math.min(ordinary, milliHours + penaltyMilli),
    items: line.items,
    salarySacrificeCents: line.salarySacrificeCents,
    oteCents: line.oteCents,
    taxScale: line.scale,
    confirmed: line.confirmed,
    bsb: e.bank_bsb,
    accountNumber: e.bank_account_number,
    accountName: e.bank_account_name,
  };
  if (!final) return out;
  const context = { basis, hoursPerWeek: hoursPerWeekOf(e), employmentBasis: e.employment_basis, frequency: p.payFrequency };
  return withFinalPay(uow, e, final, out, { ...context, paymentDate: p.paymentDate, scale: line.scale, residency: e.residency });
}
