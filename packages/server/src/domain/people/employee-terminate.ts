import { events, people } from '@finance-desk/protocol';
import type { z } from 'zod';
import { addDays } from '../../clock.js';
import { badRequest, conflict } from '../../errors.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { scaled, toSafe } from '../payroll/decimal.js';
import { isRedundancyOrInvalidity, TERMINATION_COLUMNS, type TerminationRow } from '../payroll/termination.js';
import { loadEmployee, type EmployeeRow } from './employees.js';

/**
 * books.employeeTerminate: record the end of an active employee's employment. It records only:
 * the pay run whose period contains the termination date is the final pay (payroll/termination.ts)
 * and money moves when a human signs it (books.payrollSign), which makes the employee `terminated`.
 *
 * Dates: not before the start date; in the past, or up to TERMINATION_DAYS_AHEAD_MAX days ahead
 * (a notice period); after the period of every signed run that paid the employee (a run already
 * signed over the date paid ordinary time past it and no final pay: CONFLICT naming it).
 *
 * State: the same termination again is a no-op. Other details before the final pay is signed
 * replace the recorded ones (one event, naming what was replaced): a mistaken date or reason is
 * corrected rather than refused, as long as no draft run pays the employee on or after either date
 * (its figures would no longer match: CONFLICT naming it, recall it first). Once the final pay is
 * signed the termination is history: another is CONFLICT naming that run (recall it to change it).
 */
type Params = z.infer<typeof people.employeeTerminate.params>;
type Result = ResultOf<typeof people.employeeTerminate>;

/** "17.5" or 17.5 as hundredths of a percent (1750), exactly from its decimal form. */
function loadingHundredths(p: Params): number | null {
  if (p.leaveLoadingPercent === undefined) return null;
  return toSafe(scaled(String(p.leaveLoadingPercent), 2));
}

function percentText(hundredths: number | string | null): string | null {
  if (hundredths === null) return null;
  const h = Number(hundredths);
  return `${Math.floor(h / 100)}.${String(h % 100).padStart(2, '0')}`;
}

function resultOf(e: EmployeeRow, t: TerminationRow, extra: { noop?: true } = {}): Result {
  return {
    employeeId: e.id,
    name: e.name,
    status: e.status,
    terminationDate: t.termination_date,
    reason: t.reason,
    cessationTypeCode: t.cessation_code,
    leaveLoadingPercent: percentText(t.leave_loading_hundredths),
    finalPayRunId: t.final_pay_run_id,
    ledgerId: t.ledger_id,
    ...extra,
  };
}

function checkInput(p: Params, e: EmployeeRow, today: string): void {
  const who = `employee ${e.id} (${e.name})`;
  if (p.terminationDate < e.start_date) throw badRequest(`terminationDate: must not be before ${who}'s start date ${e.start_date}`);
  const latest = addDays(today, people.TERMINATION_DAYS_AHEAD_MAX);
  if (p.terminationDate > latest) {
    throw badRequest(
      `terminationDate: must be at most ${people.TERMINATION_DAYS_AHEAD_MAX} days after today (${latest}); record a termination further ahead nearer the time`,
    );
  }
  if (isRedundancyOrInvalidity(p.reason) && e.residency === 'foreign') {
    throw badRequest(
      `reason: ${who} is a foreign resident; the withholding on unused leave for ${p.reason} (genuine redundancy or invalidity) is modelled for residents only`,
    );
  }
}

/** A signed run that paid the employee for a period ending on or after `date`, or a draft that would (either blocks). */
async function runOver(uow: Uow, employeeId: string, status: 'signed' | 'draft', date: string) {
  return uow.tx.get<{ id: string; period_start: string; period_end: string }>(
    `SELECT r.id, r.period_start, r.period_end FROM pay_run_lines l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND l.employee_id = ? AND r.status = ? AND r.period_end >= ? ORDER BY r.period_end DESC, r.id LIMIT 1`,
    [uow.orgId, employeeId, status, date],
  );
}

export async function employeeTerminate(p: Params, uow: Uow): Promise<Result> {
  const e = await loadEmployee(uow.tx, uow.orgId, p.employeeId, uow.caps.forUpdate);
  checkInput(p, e, uow.today);
  const hundredths = loadingHundredths(p);
  const was = await uow.tx.get<TerminationRow>(
    `SELECT ${TERMINATION_COLUMNS} FROM employee_terminations WHERE org_id = ? AND employee_id = ?${uow.caps.forUpdate}`,
    [uow.orgId, e.id],
  );
  const same =
    was !== undefined &&
    was.termination_date === p.terminationDate &&
    was.reason === p.reason &&
    (was.leave_loading_hundredths === null ? null : Number(was.leave_loading_hundredths)) === hundredths;
  if (was && same) return resultOf(e, was, { noop: true });
  if (was?.final_pay_run_id) {
    throw conflict(
      `employee ${e.id} (${e.name}) was terminated on ${was.termination_date} (${was.reason}) and pay run ${was.final_pay_run_id} paid the final pay; ` +
        'recall that run (books.payrollRecall) to change the termination',
    );
  }
  if (e.status !== 'active') {
    throw conflict(
      `employee ${e.id} (${e.name}) is ${e.status} (next step ${e.next_step ?? 'none'}); only an active employee is terminated`,
    );
  }
  const signed = await runOver(uow, e.id, 'signed', p.terminationDate);
  if (signed) {
    throw conflict(
      `pay run ${signed.id} (signed, ${signed.period_start} to ${signed.period_end}) already paid employee ${e.id} for a period ending on or after ` +
        `${p.terminationDate}; the final pay must be the run whose period contains the termination date: recall that run first, or give a later terminationDate`,
    );
  }
  const from = was && was.termination_date < p.terminationDate ? was.termination_date : p.terminationDate;
  const draft = await runOver(uow, e.id, 'draft', from);
  if (draft) {
    throw conflict(
      `pay run ${draft.id} (draft, ${draft.period_start} to ${draft.period_end}) pays employee ${e.id} on or after ${from}; ` +
        'recall it (books.payrollRecall) and draft it again after recording the termination, so it pays the final pay',
    );
  }
  const code = people.CESSATION_CODES[p.reason];
  const event = await uow.emit(events.employeeTerminate, {
    entityId: e.id,
    payload: {
      terminationDate: p.terminationDate,
      reason: p.reason,
      cessationTypeCode: code,
      leaveLoadingPercent: percentText(hundredths),
      replaced: was ? { terminationDate: was.termination_date, reason: was.reason } : null,
    },
  });
  if (was) {
    await uow.tx.run(
      `UPDATE employee_terminations SET termination_date = ?, reason = ?, cessation_code = ?, leave_loading_hundredths = ?, updated_at = ?, ledger_id = ?
       WHERE org_id = ? AND employee_id = ?`,
      [p.terminationDate, p.reason, code, hundredths, uow.now, event.ledgerId, uow.orgId, e.id],
    );
  } else {
    await uow.tx.run(
      `INSERT INTO employee_terminations (org_id, employee_id, termination_date, reason, cessation_code, leave_loading_hundredths, final_pay_run_id,
         created_at, updated_at, ledger_id)
       VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
      [uow.orgId, e.id, p.terminationDate, p.reason, code, hundredths, uow.now, uow.now, event.ledgerId],
    );
  }
  const row: TerminationRow = {
    employee_id: e.id,
    termination_date: p.terminationDate,
    reason: p.reason,
    cessation_code: code,
    leave_loading_hundredths: hundredths,
    final_pay_run_id: null,
    ledger_id: event.ledgerId,
  };
  return resultOf(e, row);
}
