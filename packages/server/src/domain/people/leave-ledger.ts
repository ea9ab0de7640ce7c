import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { accrualForPay, type EmploymentBasis, type LeaveType } from '../payroll/leave-accrual.js';
import { placeholders } from '../../storage/sql.js';

/**
 * The leave accrual ledger (migration 20, `leave_ledger`): per employee and leave type, signed
 * milli-hours: + accrual with each pay, − leave taken when a pay run pays it. The balance is the
 * sum. Pay runs (payrollSign) call accrueLeave and takeLeave inside their
 * own unit of work; entry ids are natural keys (`accrual:<payRunId>`, `taken:<leaveId>`), so one pay
 * run can never accrue twice for an employee, nor one leave request be paid twice.
 */
export const LEAVE_TYPES: readonly LeaveType[] = ['annual', 'personal'];

export interface Balance {
  readonly balanceMilliHours: number;
  readonly approvedMilliHours: number;
  readonly requestedMilliHours: number;
  readonly availableMilliHours: number;
}

export type Balances = Readonly<Record<LeaveType, Balance>>;

const EMPTY: Balance = { balanceMilliHours: 0, approvedMilliHours: 0, requestedMilliHours: 0, availableMilliHours: 0 };

/** Balances of several employees: ledger sums, less leave approved or requested and not yet paid. */
export async function leaveBalances(q: Queryable, orgId: string, employeeIds: readonly string[]): Promise<Map<string, Balances>> {
  const out = new Map<string, Balances>();
  if (employeeIds.length === 0) return out;
  const ids = placeholders(employeeIds.length);
  const ledger = await q.all<{ employee_id: string; leave_type: LeaveType; s: number | string | null }>(
    `SELECT employee_id, leave_type, SUM(milli_hours) AS s FROM leave_ledger
     WHERE org_id = ? AND employee_id IN (${ids}) GROUP BY employee_id, leave_type`,
    [orgId, ...employeeIds],
  );
  const pending = await q.all<{ employee_id: string; leave_type: LeaveType; status: string; s: number | string | null }>(
    `SELECT employee_id, leave_type, status, SUM(milli_hours) AS s FROM leave_requests
     WHERE org_id = ? AND employee_id IN (${ids}) AND pay_run_id IS NULL GROUP BY employee_id, leave_type, status`,
    [orgId, ...employeeIds],
  );
  for (const id of employeeIds) {
    const one = (type: LeaveType): Balance => {
      const balance = Number(ledger.find((r) => r.employee_id === id && r.leave_type === type)?.s ?? 0);
      const hours = (status: string) =>
        Number(pending.find((r) => r.employee_id === id && r.leave_type === type && r.status === status)?.s ?? 0);
      const approved = hours('approved');
      const requested = hours('requested');
      return {
        balanceMilliHours: balance,
        approvedMilliHours: approved,
        requestedMilliHours: requested,
        availableMilliHours: balance - approved - requested,
      };
    };
    out.set(id, { annual: one('annual'), personal: one('personal') });
  }
  return out;
}

export async function balancesOf(q: Queryable, orgId: string, employeeId: string): Promise<Balances> {
  return (await leaveBalances(q, orgId, [employeeId])).get(employeeId) ?? { annual: EMPTY, personal: EMPTY };
}

export interface AccrualInput {
  readonly employeeId: string;
  readonly basis: EmploymentBasis;
  readonly payRunId: string;
  readonly onDate: string;
  /** Ordinary hours paid in this pay (worked or on paid leave), in milli-hours. */
  readonly ordinaryMilliHours: number;
  readonly ledgerId: string;
}

/** Accrue one pay's annual and personal leave (nothing for casuals); returns what was accrued. */
export async function accrueLeave(uow: Uow, a: AccrualInput) {
  if (a.basis === 'casual') return { annualMilliHours: 0, personalMilliHours: 0 };
  const before = await uow.tx.get<{ s: number | string | null }>(
    `SELECT SUM(ordinary_milli_hours) AS s FROM leave_ledger
     WHERE org_id = ? AND employee_id = ? AND leave_type = 'annual' AND kind = 'accrual'`,
    [uow.orgId, a.employeeId],
  );
  const accrual = accrualForPay(a.basis, Number(before?.s ?? 0), a.ordinaryMilliHours);
  for (const type of LEAVE_TYPES) {
    await uow.tx.run(
      `INSERT INTO leave_ledger (org_id, employee_id, leave_type, entry_id, kind, milli_hours, ordinary_milli_hours,
         on_date, source_kind, source_id, ledger_id, created_at)
       VALUES (?, ?, ?, ?, 'accrual', ?, ?, ?, 'pay_run', ?, ?, ?)`,
      [
        uow.orgId,
        a.employeeId,
        type,
        `accrual:${a.payRunId}`,
        type === 'annual' ? accrual.annualMilliHours : accrual.personalMilliHours,
        a.ordinaryMilliHours,
        a.onDate,
        a.payRunId,
        a.ledgerId,
        uow.now,
      ],
    );
  }
  return accrual;
}

/** Pay an approved leave request in a pay run: its hours leave the balance; the request is marked paid. */
export async function takeLeave(uow: Uow, t: { leaveId: string; payRunId: string; onDate: string; ledgerId: string }) {
  const row = await uow.tx.get<{
    employee_id: string;
    leave_type: LeaveType;
    milli_hours: number | string;
    status: string;
    pay_run_id: string | null;
  }>(
    `SELECT employee_id, leave_type, milli_hours, status, pay_run_id FROM leave_requests WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, t.leaveId],
  );
  if (!row || row.status !== 'approved' || row.pay_run_id !== null) {
    throw new Error(`invariant violated: leave ${t.leaveId} is not approved and unpaid`);
  }
  await uow.tx.run(
    `INSERT INTO leave_ledger (org_id, employee_id, leave_type, entry_id, kind, milli_hours, ordinary_milli_hours,
       on_date, source_kind, source_id, ledger_id, created_at)
     VALUES (?, ?, ?, ?, 'taken', ?, 0, ?, 'pay_run', ?, ?, ?)`,
    [uow.orgId, row.employee_id, row.leave_type, `taken:${t.leaveId}`, -Number(row.milli_hours), t.onDate, t.payRunId, t.ledgerId, uow.now],
  );
  await uow.tx.run('UPDATE leave_requests SET pay_run_id = ? WHERE org_id = ? AND id = ?', [t.payRunId, uow.orgId, t.leaveId]);
}
