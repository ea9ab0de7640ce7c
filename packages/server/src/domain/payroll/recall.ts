import type { payroll } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, invariant } from '../../errors.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { loadItems, loadLines, loadRun, payRunResult, toPayRun, type PayRunRow } from './runs.js';
import { runPostingLines } from './sign.js';
import { queueStpPayEvent } from './stp.js';
import { reopenFinalPays } from './termination.js';

/**
 * books.payrollRecall. The pay run state machine: draft → signed → recalled, draft →
 * recalled. A draft is discarded (nothing was posted). A signed run is reversed only before its
 * paymentDate (the organisation's today) and only when no net pay ABA file was written: a file
 * may already be with the bank, and nothing here can unsend it (CONFLICT naming the file). On or
 * after the paymentDate the money has gone: CONFLICT, correct it in a later run.
 *
 * Reversing posts the run's journal with sides swapped, dated today but never before the journal
 * it reverses (a reversal dated earlier would show negative wages in every report between the
 * two dates; recall happens before the payment date, so in practice it is dated paymentDate). The
 * run's leave ledger entries (its accrual, the leave it took) are removed and its leave requests
 * become unpaid again, so the next run pays them; the event chain keeps the history. Recalling a
 * recalled run is a no-op.
 */
type Params = z.infer<typeof payroll.payrollRecall.params>;

function refusal(run: PayRunRow, today: string): string | null {
  if (today >= run.payment_date) {
    return (
      `pay run ${run.id} is signed and its payment date ${run.payment_date} has come (today is ${today}): the money has gone; ` +
      'correct it in a later pay run'
    );
  }
  if (run.file_name !== null) {
    return `pay run ${run.id} is signed and its net pay bank file ${run.file_name} was written; it cannot be recalled here — stop the file at the bank and correct it in a later pay run`;
  }
  return null;
}

export async function payrollRecall(p: Params, uow: Uow): Promise<ResultOf<typeof payroll.payrollRecall>> {
  const run = await loadRun(uow.tx, uow.orgId, p.id, uow.caps.forUpdate);
  if (run.status === 'recalled') {
    return { ...toPayRun(run, await loadLines(uow.tx, uow.orgId, run.id), await loadItems(uow.tx, uow.orgId, run.id)), noop: true };
  }
  if (run.status === 'signed') {
    const why = refusal(run, uow.today);
    if (why) throw conflict(why);
  }
  const reversalId = run.status === 'signed' ? newJournalId() : null;
  const date = uow.today > run.payment_date ? uow.today : run.payment_date;
  if (reversalId !== null) {
    await postJournal(uow, {
      id: reversalId,
      date,
      memo: `Recall of pay run ${run.id}: ${p.reason}`,
      source: { kind: 'pay_run_recall', id: run.id },
      // Each line the other way round, its W1/W2 tag negated, so the BAS nets the run out.
      lines: runPostingLines(run, null).map((l) => ({
        ...l,
        debitCents: l.creditCents ?? 0,
        creditCents: l.debitCents ?? 0,
        taxBaseCents: -(l.taxBaseCents ?? 0),
      })),
    });
  }
  const event = await uow.emit(events.payRunRecall, {
    entityId: run.id,
    payload: { id: run.id, from: run.status, reason: p.reason, journalId: run.journal_id, reversalJournalId: reversalId },
  });
  if (reversalId !== null) {
    await uow.tx.run(`DELETE FROM leave_ledger WHERE org_id = ? AND source_kind = 'pay_run' AND source_id = ?`, [uow.orgId, run.id]);
    await uow.tx.run('UPDATE leave_requests SET pay_run_id = NULL WHERE org_id = ? AND pay_run_id = ?', [uow.orgId, run.id]);
    // A final pay recalled: the leave payout went with the entries above; the employee is active again, the termination unpaid.
    await reopenFinalPays(uow, run.id);
  }
  const moved = await uow.tx.run(
    `UPDATE pay_runs SET status = 'recalled', reversal_journal_id = ?, recall_reason = ?, recalled_at = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND status = ?`,
    [reversalId, p.reason, uow.now, event.ledgerId, uow.orgId, run.id, run.status],
  );
  invariant(moved.changes === 1, `pay run ${run.id} moves to recalled once`);
  // STP: a signed run was reported; the correcting pay event reports YTD without it.
  if (run.status === 'signed') await queueStpPayEvent(uow, run.id, 'correction', event.ledgerId, p.reason);
  return payRunResult(uow.tx, uow.orgId, run.id);
}
