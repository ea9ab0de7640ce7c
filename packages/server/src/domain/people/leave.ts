import type { people } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { hoursOfMilli, milliHoursOf } from '../payroll/gross.js';
import { MILLI, type LeaveType } from '../payroll/leave-accrual.js';
import { loadEmployee } from './employees.js';
import { balancesOf } from './leave-ledger.js';

/**
 * books.leaveRequest and books.leaveApprove. A request above the available balance is
 * accepted with a `warning`: the NES lets an employer agree to annual leave in advance, and the
 * one approving is the one to decide, so the request records the shortfall instead of refusing it
 * (docs/decisions.md "People"). Casual employees accrue no paid leave: CONFLICT. Approved leave is
 * paid, and leaves the balance, in the pay run of its period (leave-ledger.ts takeLeave).
 */
type RequestParams = z.infer<typeof people.leaveRequest.params>;
type ApproveParams = z.infer<typeof people.leaveApprove.params>;

interface LeaveRow {
  id: string;
  employee_id: string;
  leave_type: LeaveType;
  start_date: string;
  end_date: string;
  /** Hours to the hundredth, stored exactly in milli-hours (migration 43). */
  milli_hours: number | string;
  status: 'requested' | 'approved';
  warning: string | null;
  ledger_id: string;
}

const LEAVE_COLUMNS = 'id, employee_id, leave_type, start_date, end_date, milli_hours, status, warning, ledger_id';

const hoursText = (milli: number) => {
  const sign = milli < 0 ? '-' : '';
  const abs = Math.abs(milli);
  const frac = String(abs % MILLI)
    .padStart(3, '0')
    .replace(/0+$/, '');
  return `${sign}${Math.floor(abs / MILLI)}${frac ? `.${frac}` : ''}`;
};

function shortfall(type: LeaveType, availableBefore: number, milliHours: number): string | null {
  const after = availableBefore - milliHours;
  if (after >= 0) return null;
  return (
    `${hoursText(milliHours)} hours exceed the available ${type} leave of ${hoursText(availableBefore)} hours by ${hoursText(-after)} hours; ` +
    'approving it grants leave in advance of accrual'
  );
}

function toLeave(row: LeaveRow, availableAfter: number, extra: { noop?: true } = {}) {
  return {
    id: row.id,
    employeeId: row.employee_id,
    status: row.status,
    leaveType: row.leave_type,
    startDate: row.start_date,
    endDate: row.end_date,
    hours: hoursOfMilli(Number(row.milli_hours)),
    warning: row.warning,
    availableAfterMilliHours: availableAfter,
    ledgerId: row.ledger_id,
    ...extra,
  };
}

export async function leaveRequest(p: RequestParams, uow: Uow): Promise<ResultOf<typeof people.leaveRequest>> {
  const emp = await loadEmployee(uow.tx, uow.orgId, p.employeeId, uow.caps.forUpdate);
  if (emp.status !== 'active') {
    throw conflict(`employee ${emp.id} is ${emp.status} (next step ${emp.next_step ?? 'none'}): only an active employee takes leave`);
  }
  if (emp.employment_basis === 'casual') {
    throw conflict(`employee ${emp.id} is casual: casual employees accrue no paid annual or personal leave`);
  }
  if (p.startDate < emp.start_date) throw badRequest(`startDate: must not be before the employee's start date ${emp.start_date}`);
  const available = (await balancesOf(uow.tx, uow.orgId, emp.id))[p.leaveType].availableMilliHours;
  const milliHours = milliHoursOf(p.hours);
  const warning = shortfall(p.leaveType, available, milliHours);
  const id = newId('lv');
  const event = await uow.emit(events.leaveRequest, {
    entityId: id,
    payload: {
      employeeId: emp.id,
      leaveType: p.leaveType,
      startDate: p.startDate,
      endDate: p.endDate,
      milliHours,
      status: 'requested',
      warning,
    },
  });
  await uow.tx.run(
    `INSERT INTO leave_requests (org_id, id, employee_id, leave_type, start_date, end_date, milli_hours, status, warning, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'requested', ?, ?, ?)`,
    [uow.orgId, id, emp.id, p.leaveType, p.startDate, p.endDate, milliHours, warning, uow.now, event.ledgerId],
  );
  const row: LeaveRow = {
    id,
    employee_id: emp.id,
    leave_type: p.leaveType,
    start_date: p.startDate,
    end_date: p.endDate,
    milli_hours: milliHours,
    status: 'requested',
    warning,
    ledger_id: event.ledgerId,
  };
  return toLeave(row, available - milliHours);
}

export async function leaveApprove(p: ApproveParams, uow: Uow): Promise<ResultOf<typeof people.leaveApprove>> {
  const row = await uow.tx.get<LeaveRow>(`SELECT ${LEAVE_COLUMNS} FROM leave_requests WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    p.id,
  ]);
  if (!row) throw notFound('leave request', p.id);
  // The available balance already counts this request (requested or approved, not yet paid).
  const available = (await balancesOf(uow.tx, uow.orgId, row.employee_id))[row.leave_type].availableMilliHours;
  if (row.status === 'approved') return toLeave(row, available, { noop: true });
  const milliHours = Number(row.milli_hours);
  const warning = shortfall(row.leave_type, available + milliHours, milliHours);
  const event = await uow.emit(events.leaveApprove, {
    entityId: row.id,
    payload: { employeeId: row.employee_id, leaveType: row.leave_type, milliHours, status: 'approved', warning },
  });
  const moved = await uow.tx.run(
    `UPDATE leave_requests SET status = 'approved', warning = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND status = 'requested'`,
    [warning, event.ledgerId, uow.orgId, row.id],
  );
  invariant(moved.changes === 1, 'a leave request is approved once');
  return toLeave({ ...row, status: 'approved', warning, ledger_id: event.ledgerId }, available);
}
