import type { booksReads } from '@finance-desk/protocol';
import type { z } from 'zod';
import { invariant } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { divHalfUp, toSafe } from '../payroll/decimal.js';
import { milliHoursOf } from '../payroll/gross.js';
import { MILLI, type LeaveType } from '../payroll/leave-accrual.js';
import { loadChanges, termsOn } from '../people/employee-terms.js';
import { EMPLOYEE_COLUMNS, type EmployeeRow } from '../people/employees.js';
import { LEAVE_TYPES } from '../people/leave-ledger.js';
import { readConsistently } from './ledger-totals.js';

/**
 * The payroll reports of books.reports. They read the signed pay runs and the leave ledger, not the
 * general ledger, and never a draft or a recalled run.
 *
 * payroll_activity sums the stored lines of the signed runs paid in the period (by payment date),
 * the same lines and the same sums as the Single Touch Payroll pay event's year-to-date figures
 * (payroll/stp.ts): salary and wages are gross less paid leave, so a report from 1 July to a run's
 * payment date equals what that run's pay event told the ATO.
 *
 * leave_balances values each balance at the employee's hourly-equivalent rate in force on asOf
 * (today by default, so the current rate; books.employeeUpdate's dated changes are applied), as
 * the draft values paid leave for salaried staff (payroll/draft-line.ts): one exact fraction,
 * rounded half up to the cent once — hourly, rate × milli-hours ÷ 1000; salaried, salary ×
 * milli-hours ÷ (hoursPerWeek × 52 × 1000). Annual leave loading is not modelled, so annual leave
 * is valued at the base rate.
 */
export type PayrollActivity = z.infer<typeof booksReads.payrollActivity>;
export type LeaveBalancesReport = z.infer<typeof booksReads.leaveBalancesReport>;
type Figures = PayrollActivity['totals'];

const sum = (v: number | string | null | undefined): number => {
  const n = Number(v ?? 0);
  invariant(Number.isSafeInteger(n), 'payroll sums are safe integers');
  return n;
};

const zeroFigures = (): Figures => ({
  runs: 0,
  earnings: { salaryWagesCents: 0, paidLeaveCents: 0 },
  grossCents: 0,
  paygWithheldCents: 0,
  superCents: 0,
  netCents: 0,
  leaveTakenMilliHours: { annual: 0, personal: 0 },
});

interface LineSums {
  employee_id: string;
  name: string;
  runs: number | string;
  gross: number | string | null;
  leave: number | string | null;
  payg: number | string | null;
  super: number | string | null;
  net: number | string | null;
  sacrifice: number | string | null;
  /** Unused leave and loading paid in final pays (books.employeeTerminate). */
  unused_leave: number | string | null;
}

/** Pay items by type (overtime, bonus, allowance) added to a figures' earnings: a key only once some was paid. */
function addItems(f: Figures, overtime: number, bonus: number, allowance: number, sacrifice: number): void {
  const e = f.earnings;
  if (overtime !== 0) e.overtimeCents = (e.overtimeCents ?? 0) + overtime;
  if (bonus !== 0) e.bonusesCommissionsCents = (e.bonusesCommissionsCents ?? 0) + bonus;
  if (allowance !== 0) e.allowancesCents = (e.allowancesCents ?? 0) + allowance;
  if (sacrifice !== 0) f.salarySacrificeCents = (f.salarySacrificeCents ?? 0) + sacrifice;
}

/** Sort by name, then id: the order every payroll report lists employees in (the same on both engines). */
const byName = (a: { name: string; employeeId: string }, b: { name: string; employeeId: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.employeeId < b.employeeId ? -1 : a.employeeId > b.employeeId ? 1 : 0;

export async function payrollActivity(q: Queryable, orgId: string, from: string, to: string): Promise<PayrollActivity> {
  const args = [orgId, from, to];
  const { lines, taken, runs, items } = await readConsistently(q, orgId, async (q) => {
    const [lineRows, takenRows, runRow, itemRows] = await Promise.all([
      q.all<LineSums>(
        `SELECT l.employee_id, e.name, COUNT(*) AS runs, SUM(l.gross_cents) AS gross, SUM(l.leave_cents) AS leave,
           SUM(l.payg_cents) AS payg, SUM(l.super_cents) AS super, SUM(l.net_cents) AS net, SUM(l.salary_sacrifice_cents) AS sacrifice,
           SUM(l.unused_leave_cents + l.leave_loading_cents) AS unused_leave
         FROM pay_run_lines l
         JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
         JOIN employees e ON e.org_id = l.org_id AND e.id = l.employee_id
         WHERE l.org_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ?
         GROUP BY l.employee_id, e.name`,
        args,
      ),
      // The leave ledger's `taken` rows are the leave each run paid (negative milli-hours).
      q.all<{ employee_id: string; leave_type: LeaveType; s: number | string | null }>(
        `SELECT l.employee_id, l.leave_type, SUM(l.milli_hours) AS s
         FROM leave_ledger l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.source_id
         WHERE l.org_id = ? AND l.kind = 'taken' AND l.source_kind = 'pay_run' AND r.status = 'signed'
           AND r.payment_date >= ? AND r.payment_date <= ?
         GROUP BY l.employee_id, l.leave_type`,
        args,
      ),
      q.get<{ n: number | string }>(
        `SELECT COUNT(*) AS n FROM pay_runs WHERE org_id = ? AND status = 'signed' AND payment_date >= ? AND payment_date <= ?`,
        args,
      ),
      // The pay items STP reports apart from salary and wages (payroll/stp.ts ytdSplit).
      q.all<{ employee_id: string; item_type: string; s: number | string | null }>(
        `SELECT i.employee_id, i.item_type, SUM(i.amount_cents) AS s
         FROM pay_run_items i JOIN pay_runs r ON r.org_id = i.org_id AND r.id = i.pay_run_id
         WHERE i.org_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ?
           AND i.item_type IN ('overtime', 'bonus', 'allowance')
         GROUP BY i.employee_id, i.item_type`,
        args,
      ),
    ]);
    return { lines: lineRows, taken: takenRows, runs: sum(runRow?.n), items: itemRows };
  });
  const totals = zeroFigures();
  totals.runs = runs;
  const employees = lines.map((l) => {
    const gross = sum(l.gross);
    const leave = sum(l.leave);
    const takenOf = (type: LeaveType) => -sum(taken.find((t) => t.employee_id === l.employee_id && t.leave_type === type)?.s);
    const itemOf = (type: string) => sum(items.find((i) => i.employee_id === l.employee_id && i.item_type === type)?.s);
    const [overtime, bonus, allowance, sacrifice] = [itemOf('overtime'), itemOf('bonus'), itemOf('allowance'), sum(l.sacrifice)];
    const unused = sum(l.unused_leave);
    const row: PayrollActivity['employees'][number] = {
      employeeId: l.employee_id,
      name: l.name,
      runs: sum(l.runs),
      earnings: { salaryWagesCents: gross - leave - overtime - bonus - allowance - unused, paidLeaveCents: leave },
      grossCents: gross,
      paygWithheldCents: sum(l.payg),
      superCents: sum(l.super),
      netCents: sum(l.net),
      leaveTakenMilliHours: { annual: takenOf('annual'), personal: takenOf('personal') },
    };
    addItems(row, overtime, bonus, allowance, sacrifice);
    addItems(totals, overtime, bonus, allowance, sacrifice);
    // Unused leave paid on termination is its own earnings type, a key only once some was paid.
    if (unused !== 0) {
      row.earnings.unusedLeaveOnTerminationCents = unused;
      totals.earnings.unusedLeaveOnTerminationCents = (totals.earnings.unusedLeaveOnTerminationCents ?? 0) + unused;
    }
    totals.earnings.salaryWagesCents += row.earnings.salaryWagesCents;
    totals.earnings.paidLeaveCents += row.earnings.paidLeaveCents;
    totals.grossCents += row.grossCents;
    totals.paygWithheldCents += row.paygWithheldCents;
    totals.superCents += row.superCents;
    totals.netCents += row.netCents;
    for (const t of LEAVE_TYPES) totals.leaveTakenMilliHours[t] += row.leaveTakenMilliHours[t];
    return row;
  });
  const sacrificed = totals.salarySacrificeCents ?? 0;
  invariant(
    totals.grossCents - sacrificed - totals.paygWithheldCents === totals.netCents,
    `payroll activity ${from} to ${to}: net ${totals.netCents} is gross ${totals.grossCents} less salary sacrifice ${sacrificed} and PAYG ${totals.paygWithheldCents}`,
  );
  return { type: 'payroll_activity', from, to, employees: employees.sort(byName), totals };
}

/** The value of `milliHours` of leave in cents at the employee's hourly-equivalent rate, half up (negative balances too). */
export function leaveValueCents(
  rate: { annualSalaryCents: number | null; hourlyRateCents: number | null; hoursPerWeek: number },
  milliHours: number,
): number {
  const m = BigInt(milliHours);
  if (rate.annualSalaryCents !== null) {
    invariant(rate.hoursPerWeek > 0, 'a salaried employee has hours per week');
    // Hours a week to the hundredth, as milli-hours: salary × m ÷ (hours × 52 × 1000) = salary × m ÷ (milli-week × 52).
    return toSafe(divHalfUp(BigInt(rate.annualSalaryCents) * m, BigInt(milliHoursOf(rate.hoursPerWeek)) * 52n));
  }
  invariant(rate.hourlyRateCents !== null, 'an employee has a salary or an hourly rate');
  return toSafe(divHalfUp(BigInt(rate.hourlyRateCents) * m, BigInt(MILLI)));
}

export async function leaveBalancesReport(q: Queryable, orgId: string, asOf: string): Promise<LeaveBalancesReport> {
  const { people, ledger, changes } = await readConsistently(q, orgId, async (q) => {
    const [peopleRows, ledgerRows] = await Promise.all([
      q.all<EmployeeRow>(`SELECT ${EMPLOYEE_COLUMNS} FROM employees WHERE org_id = ? AND status = 'active' AND start_date <= ?`, [
        orgId,
        asOf,
      ]),
      q.all<{ employee_id: string; leave_type: LeaveType; s: number | string | null }>(
        `SELECT employee_id, leave_type, SUM(milli_hours) AS s FROM leave_ledger
         WHERE org_id = ? AND on_date <= ? GROUP BY employee_id, leave_type`,
        [orgId, asOf],
      ),
    ]);
    const changeRows = await loadChanges(
      q,
      orgId,
      peopleRows.map((e) => e.id),
    );
    return { people: peopleRows, ledger: ledgerRows, changes: changeRows };
  });
  const zero = () => ({ milliHours: 0, valueCents: 0 });
  const totals = { annual: zero(), personal: zero(), valueCents: 0 };
  const employees = people.map((e) => {
    // The row holds every recorded change, future-dated ones too: the pay in force on asOf is the one valued.
    const terms = termsOn(e, changes.get(e.id) ?? [], asOf);
    const rate = { annualSalaryCents: terms.annualSalaryCents, hourlyRateCents: terms.hourlyRateCents, hoursPerWeek: terms.hoursPerWeek };
    const balance = (type: LeaveType) => {
      const milliHours = sum(ledger.find((r) => r.employee_id === e.id && r.leave_type === type)?.s);
      return { milliHours, valueCents: leaveValueCents(rate, milliHours) };
    };
    const byType = { annual: balance('annual'), personal: balance('personal') };
    const valueCents = byType.annual.valueCents + byType.personal.valueCents;
    for (const t of LEAVE_TYPES) {
      totals[t].milliHours += byType[t].milliHours;
      totals[t].valueCents += byType[t].valueCents;
    }
    totals.valueCents += valueCents;
    return { employeeId: e.id, name: e.name, employmentBasis: e.employment_basis, ...rate, ...byType, valueCents };
  });
  return { type: 'leave_balances', asOf, employees: employees.sort(byName), totals };
}
