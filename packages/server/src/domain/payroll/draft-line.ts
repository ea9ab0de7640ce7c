import type { payroll } from '@finance-desk/protocol';
import type { z } from 'zod';
import { invariant } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { payBasisOf, type EmployeeRow } from '../people/employees.js';
import { taxScaleFor } from '../people/tax-treatment.js';
import { divHalfUp, toSafe } from './decimal.js';
import { MILLI, ordinaryMilliHours } from './leave-accrual.js';
import { payLine } from './pay-line.js';
import { mcbOn } from './super.js';

/**
 * One employee's line of a draft: payLine (gross, PAYG, super, net) plus the leave it pays.
 *
 * Approved leave not yet paid whose startDate is on or before periodEnd is paid whole in the run
 * (a request is paid once, by the first run that reaches its start). Paid leave is part of gross,
 * not extra to it: a salaried employee's gross is unchanged (leave replaces ordinary hours); an
 * hourly employee paid ordinary hours likewise; an hourly employee with hours given is paid those
 * hours worked plus the leave hours. leaveCents is the leave's share of gross (STP reports paid
 * leave apart from salary and wages): hourly, rate × leave hours; salaried, gross × leave hours ÷
 * ordinary hours, half up; never more than gross. Leave accrues on ordinary hours paid, worked or
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
  readonly hours: number | null;
  readonly leaveHours: number;
  readonly leaveCents: number;
  readonly leaveIds: readonly string[];
  readonly ordinaryMilliHours: number;
  readonly taxScale: number;
  readonly confirmed: boolean;
  readonly bsb: string | null;
  readonly accountNumber: string | null;
  readonly accountName: string | null;
}

/** Gross already paid to the employee in the super maximum contribution base period (super.ts). */
async function earningsBefore(uow: Uow, employeeId: string, paymentDate: string): Promise<number> {
  const mcb = mcbOn(paymentDate);
  if (!mcb) return 0;
  const row = await uow.tx.get<{ s: number | string | null }>(
    `SELECT SUM(l.gross_cents) AS s FROM pay_run_lines l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND l.employee_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ?`,
    [uow.orgId, employeeId, mcb.from, mcb.to],
  );
  return Number(row?.s ?? 0);
}

export async function computeLine(uow: Uow, p: Params, e: EmployeeRow, hoursGiven: number | undefined): Promise<DraftLine> {
  const leave = await uow.tx.all<{ id: string; hours: number | string }>(
    `SELECT id, hours FROM leave_requests WHERE org_id = ? AND employee_id = ? AND status = 'approved' AND pay_run_id IS NULL
     AND start_date <= ? ORDER BY start_date, id`,
    [uow.orgId, e.id, p.periodEnd],
  );
  const leaveHours = leave.reduce((s, l) => s + Number(l.hours), 0);
  invariant(e.tfn !== null && e.residency !== null && e.tax_declared_on !== null, `active employee ${e.id} has a tax declaration`);
  const declaration = {
    tfn: e.tfn,
    residency: e.residency,
    claimsTaxFreeThreshold: Number(e.claims_tax_free_threshold) === 1,
    declaredOn: e.tax_declared_on,
  };
  const scale = taxScaleFor(declaration, p.paymentDate);
  const basis = payBasisOf(e);
  const hours = hoursGiven === undefined ? null : hoursGiven + leaveHours;
  const line = payLine({
    basis,
    frequency: p.payFrequency,
    paymentDate: p.paymentDate,
    scale,
    residency: e.residency,
    ...(hours === null ? {} : { hours }),
    earningsBeforeCents: await earningsBefore(uow, e.id, p.paymentDate),
  });
  const ordinary = ordinaryMilliHours(Number(e.hours_per_week), p.payFrequency);
  const leaveMilli = leaveHours * MILLI;
  const leaveCents = Math.min(
    line.grossCents,
    'hourlyRateCents' in basis
      ? basis.hourlyRateCents * leaveHours
      : toSafe(divHalfUp(BigInt(line.grossCents) * BigInt(leaveMilli), BigInt(ordinary))),
  );
  return {
    employeeId: e.id,
    name: e.name,
    basis: e.employment_basis,
    grossCents: line.grossCents,
    paygCents: line.paygCents,
    superCents: line.superCents,
    netCents: line.netCents,
    hours,
    leaveHours,
    leaveCents,
    leaveIds: leave.map((l) => l.id),
    ordinaryMilliHours: hours === null ? ordinary : Math.min(ordinary, hours * MILLI),
    taxScale: line.scale,
    confirmed: line.confirmed,
    bsb: e.bank_bsb,
    accountNumber: e.bank_account_number,
    accountName: e.bank_account_name,
  };
}
