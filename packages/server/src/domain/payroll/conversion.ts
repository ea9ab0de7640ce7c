import type { corrections } from '@finance-desk/protocol';
import type { z } from 'zod';
import { DomainError, notFound } from '../../errors.js';
import { placeholders } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { MILLI } from './leave-accrual.js';
import { financialYear, financialYearLabel, type FinancialYear } from './stp-year.js';

/**
 * Converting payroll mid-year (books.openingBalances `payroll`, docs/books.md "Opening
 * balances"). The old software paid the employees up to the conversion date and reported it to
 * the ATO; this software carries on from there. Nothing is posted for it (the old system's pay
 * runs are in the opening balances of 2200, 2300 and the equity they came from). What is kept:
 *
 * - year to date: the financial year holding the conversion date, per employee, in
 *   payroll_opening. STP reports year-to-date totals, so every pay event and the finalisation of
 *   that year add these figures to the runs signed here (stp.ts ytdOf) and say which part the
 *   previous software reported (the payee's carriedIn block), or the ATO would see the year
 *   restart at zero.
 * - leave: the balances as `opening` entries of the leave ledger dated the conversion date, so
 *   every balance (books.employees, leave requests, leave_balances, books.leaveProvision) starts
 *   from them and accrual and leave taken here move them on.
 */
type Carried = NonNullable<z.infer<typeof corrections.openingBalances.params>['payroll']>;

const bad = (field: string, message: string) => new DomainError('BAD_REQUEST', `${field}: ${message}`, { field });

/** Hours with at most two decimals (the schema's check) as exact milli-hours. */
const milliHoursOf = (hours: number | undefined): number => Math.round((hours ?? 0) * 100) * (MILLI / 100);

/** The carried-in payroll with its hours as integer hundredths, for the conversion's params hash (canonical JSON holds integers only). */
export function hashablePayroll(carried: Carried) {
  return {
    ...carried,
    employees: carried.employees.map(({ annualLeaveHours, personalLeaveHours, ...e }) => ({
      ...e,
      annualLeaveHundredths: Math.round((annualLeaveHours ?? 0) * 100),
      personalLeaveHundredths: Math.round((personalLeaveHours ?? 0) * 100),
    })),
  };
}

/** Each employee is this organisation's (NOT_FOUND otherwise), employed by the conversion date, and a casual carries no leave. */
export async function checkCarriedPayroll(uow: Uow, carried: Carried, conversionDate: string): Promise<void> {
  const ids = carried.employees.map((e) => e.employeeId);
  const rows = await uow.tx.all<{ id: string; start_date: string; employment_basis: string }>(
    `SELECT id, start_date, employment_basis FROM employees WHERE org_id = ? AND id IN (${placeholders(ids.length)})`,
    [uow.orgId, ...ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const [i, e] of carried.employees.entries()) {
    const row = byId.get(e.employeeId);
    if (!row) throw notFound('employee', e.employeeId);
    const path = `payroll.employees[${i}]`;
    if (row.start_date > conversionDate) {
      throw bad(
        `${path}.employeeId`,
        `${e.employeeId} starts on ${row.start_date}, after conversionDate ${conversionDate}: the old software never paid them`,
      );
    }
    if (row.employment_basis === 'casual') {
      for (const field of ['annualLeaveHours', 'personalLeaveHours'] as const) {
        if ((e[field] ?? 0) > 0) throw bad(`${path}.${field}`, `${e.employeeId} is casual: casual employees accrue no paid leave`);
      }
    }
  }
}

/** Store what was carried in, under the conversion's event; returns the financial year of the figures. */
export async function recordCarriedPayroll(uow: Uow, carried: Carried, conversionDate: string, ledgerId: string): Promise<string> {
  const year = financialYearLabel(financialYear(conversionDate));
  for (const e of carried.employees) {
    const annual = milliHoursOf(e.annualLeaveHours);
    const personal = milliHoursOf(e.personalLeaveHours);
    await uow.tx.run(
      `INSERT INTO payroll_opening (org_id, employee_id, conversion_date, financial_year, gross_cents, paid_leave_cents, payg_cents,
         super_cents, annual_milli_hours, personal_milli_hours, previous_bms_id, previous_payroll_id, created_at, ledger_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        uow.orgId,
        e.employeeId,
        conversionDate,
        year,
        e.grossCents,
        e.paidLeaveCents ?? 0,
        e.paygWithheldCents,
        e.superGuaranteeCents,
        annual,
        personal,
        carried.previousBmsId ?? null,
        e.previousPayrollId ?? null,
        uow.now,
        ledgerId,
      ],
    );
    for (const [type, milliHours] of [
      ['annual', annual],
      ['personal', personal],
    ] as const) {
      if (milliHours === 0) continue;
      // ordinary_milli_hours 0: the next accrual continues from this software's own ordinary hours.
      await uow.tx.run(
        `INSERT INTO leave_ledger (org_id, employee_id, leave_type, entry_id, kind, milli_hours, ordinary_milli_hours,
           on_date, source_kind, source_id, ledger_id, created_at)
         VALUES (?, ?, ?, 'opening', 'opening', ?, 0, ?, 'opening_balances', ?, ?, ?)`,
        [uow.orgId, e.employeeId, type, milliHours, conversionDate, uow.orgId, ledgerId, uow.now],
      );
    }
  }
  return year;
}

/** Figures the previous software reported for one employee's year, as carried in. */
export interface CarriedYtd {
  readonly conversionDate: string;
  readonly grossCents: number;
  readonly paidLeaveCents: number;
  readonly paygWithheldCents: number;
  readonly superLiabilityCents: number;
  readonly previousBmsId: string | null;
  readonly previousPayrollId: string | null;
}

/** The year-to-date figures carried in for `fy`, per employee (none when the conversion fell in another year). */
export async function carriedYtdOf(
  q: Queryable,
  orgId: string,
  employeeIds: readonly string[],
  fy: FinancialYear,
): Promise<Map<string, CarriedYtd>> {
  if (employeeIds.length === 0) return new Map();
  const rows = await q.all<{
    employee_id: string;
    conversion_date: string;
    gross_cents: number | string;
    paid_leave_cents: number | string;
    payg_cents: number | string;
    super_cents: number | string;
    previous_bms_id: string | null;
    previous_payroll_id: string | null;
  }>(
    `SELECT employee_id, conversion_date, gross_cents, paid_leave_cents, payg_cents, super_cents, previous_bms_id, previous_payroll_id
     FROM payroll_opening WHERE org_id = ? AND financial_year = ? AND employee_id IN (${placeholders(employeeIds.length)})`,
    [orgId, financialYearLabel(fy), ...employeeIds],
  );
  return new Map(
    rows.map((r) => [
      r.employee_id,
      {
        conversionDate: r.conversion_date,
        grossCents: Number(r.gross_cents),
        paidLeaveCents: Number(r.paid_leave_cents),
        paygWithheldCents: Number(r.payg_cents),
        superLiabilityCents: Number(r.super_cents),
        previousBmsId: r.previous_bms_id,
        previousPayrollId: r.previous_payroll_id,
      },
    ]),
  );
}

/** The employees with figures carried in for the year `label` (`2025-26`): they are finalised for it as those paid here are. */
export async function carriedEmployeesOf(q: Queryable, orgId: string, label: string): Promise<string[]> {
  const rows = await q.all<{ employee_id: string }>('SELECT employee_id FROM payroll_opening WHERE org_id = ? AND financial_year = ?', [
    orgId,
    label,
  ]);
  return rows.map((r) => r.employee_id);
}
