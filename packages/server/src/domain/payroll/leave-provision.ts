import { events, payroll } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict } from '../../errors.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { checkPostable } from '../gl/periods.js';
import { accountBalanceCents, newJournalId, postJournal } from '../gl/post.js';
import { leaveBalancesReport } from '../reports/payroll.js';

/**
 * books.leaveProvision: the employees' annual leave as a liability on the balance sheet. The
 * liability is the leave_balances report's own figure (reports/payroll.ts): each active
 * employee's annual leave balance as at asAt, valued at the pay in force on asAt, half up to the
 * cent once per employee, so the report and the provision can never disagree. Annual leave loading
 * is not modelled, so it is not provided for.
 *
 * The journal posts only the difference between that total and 2350's balance as at asAt (its
 * earlier provisions, an opening balance, any manual journal to it): Dr 6150 / Cr 2350 when the
 * liability grew, Dr 2350 / Cr 6150 when leave taken or a lower rate shrank it. Leave paid in a
 * run is expensed to 6100 with the wages; the next provision releases it from 2350 through 6150,
 * so 6100 + 6150 is the period's cost of leave earned. Running it again at the same date finds
 * nothing to post: a state no-op, no event. A provision dated after asAt already measured the
 * liability later on; posting behind it would leave that one wrong, so it is CONFLICT.
 */
type Params = z.infer<typeof payroll.leaveProvision.params>;
type Result = ResultOf<typeof payroll.leaveProvision>;

const SOURCE_KIND = 'leave_provision';

export async function leaveProvision(p: Params, uow: Uow): Promise<Result> {
  if (p.asAt > uow.today) throw badRequest(`asAt: ${p.asAt} is in the future (today is ${uow.today})`);
  checkPostable(uow, p.asAt, 'asAt');
  const later = await uow.tx.get<{ date: string; id: string }>(
    'SELECT date, id FROM journals WHERE org_id = ? AND source_kind = ? AND date > ? ORDER BY date DESC, id DESC LIMIT 1',
    [uow.orgId, SOURCE_KIND, p.asAt],
  );
  if (later) {
    throw conflict(
      `the leave provision was already posted as at ${later.date} (journal ${later.id}), after asAt ${p.asAt}: ` +
        `post it as at ${later.date} or later, so the latest provision stays the measured one`,
    );
  }
  const report = await leaveBalancesReport(uow.tx, uow.orgId, p.asAt);
  const employees = report.employees.map((e) => ({
    employeeId: e.employeeId,
    name: e.name,
    milliHours: e.annual.milliHours,
    annualSalaryCents: e.annualSalaryCents,
    hourlyRateCents: e.hourlyRateCents,
    hoursPerWeek: e.hoursPerWeek,
    amountCents: e.annual.valueCents,
  }));
  const totalCents = report.totals.annual.valueCents;
  // 2350 is credit-normal: its provision is the credit balance.
  const balanceBeforeCents = -(await accountBalanceCents(uow.tx, uow.orgId, payroll.LEAVE_PROVISION_ACCOUNT, p.asAt));
  const differenceCents = totalCents - balanceBeforeCents;
  const base = { asAt: p.asAt, employees, totalCents, balanceBeforeCents };
  if (differenceCents === 0) {
    const last = await uow.tx.get<{ id: string; ledger_id: string }>(
      `SELECT j.id, j.ledger_id FROM journals j
       WHERE j.org_id = ? AND j.date <= ?
         AND EXISTS (SELECT 1 FROM journal_lines l WHERE l.org_id = j.org_id AND l.journal_id = j.id AND l.account_code = ?)
       ORDER BY j.date DESC, j.created_at DESC, j.id DESC LIMIT 1`,
      [uow.orgId, p.asAt, payroll.LEAVE_PROVISION_ACCOUNT],
    );
    return { ...base, differenceCents: 0, journalId: last?.id ?? null, ledgerId: last?.ledger_id ?? null, noop: true };
  }
  const amount = Math.abs(differenceCents);
  const grew = differenceCents > 0;
  const journalId = newJournalId();
  const what = grew ? 'increase' : 'decrease';
  await postJournal(uow, {
    id: journalId,
    date: p.asAt,
    dateField: 'asAt',
    memo: `Annual leave provision as at ${p.asAt}: ${what} to the liability of ${employees.length} employee(s)`,
    source: { kind: SOURCE_KIND, id: p.asAt },
    lines: [
      {
        account: payroll.LEAVE_EXPENSE_ACCOUNT,
        ...(grew ? { debitCents: amount } : { creditCents: amount }),
        description: `Annual leave expense: provision ${what} as at ${p.asAt}`,
      },
      {
        account: payroll.LEAVE_PROVISION_ACCOUNT,
        ...(grew ? { creditCents: amount } : { debitCents: amount }),
        description: `Provision for annual leave ${what} as at ${p.asAt}`,
      },
    ],
  });
  const event = await uow.emit(events.leaveProvision, {
    entityId: journalId,
    payload: { asAt: p.asAt, totalCents, balanceBeforeCents, differenceCents, employeeCount: employees.length, journalId },
  });
  return { ...base, differenceCents, journalId, ledgerId: event.ledgerId };
}
