import { corrections, events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { owedOnDocument } from '../payables/settle.js';
import { correctionDate, journalHead, mirrorOf, reopenBill } from './common.js';

/**
 * books.billPaymentReturn: a payment to a supplier came back. A bill is paid
 * by a payment run (its runId: one journal Dr 2000 per bill / Cr bank) or by a bank line matched
 * to it (its matchId: a journal of that payment alone). The return posts Dr the bank the money
 * left / Cr 2000 (docId = bill) for what that payment paid the bill, and the bill is approved
 * (payable) again. One row per bill and payment (bill_payment_returns): again is a no-op.
 */
type Params = z.infer<typeof corrections.billPaymentReturn.params>;

interface Paid {
  readonly amountCents: number;
  readonly date: string;
  readonly lines: (amount: number) => Promise<PostingLine[]>;
}

interface ReturnRow {
  amount_cents: number;
  returned_on: string;
  reason: string;
  journal_id: string;
  ledger_id: string;
}

/** The payment `paymentId` made to the bill: from its run or its bank-line match. */
async function paymentOf(uow: Uow, billId: string, paymentId: string): Promise<Paid> {
  const run = await uow.tx.get<{ payments: string; payment_date: string; journal_id: string }>(
    'SELECT payments, payment_date, journal_id FROM payment_runs WHERE org_id = ? AND id = ?',
    [uow.orgId, paymentId],
  );
  if (run) {
    const payments = JSON.parse(run.payments) as { billId: string; amountCents: number }[];
    const paid = payments.find((x) => x.billId === billId);
    if (!paid) throw notFound(`payment of bill ${billId}`, paymentId);
    const bank = await uow.tx.get<{ account_code: string }>(
      `SELECT account_code FROM journal_lines WHERE org_id = ? AND journal_id = ? AND credit_cents > 0 AND doc_id IS NULL ORDER BY line_no LIMIT 1`,
      [uow.orgId, run.journal_id],
    );
    invariant(bank, `payment run ${paymentId} credits a bank account`);
    return {
      amountCents: paid.amountCents,
      date: run.payment_date,
      lines: (amount) =>
        Promise.resolve([
          { account: bank.account_code, debitCents: amount, description: `Returned payment of bill ${billId} (run ${paymentId})` },
          {
            account: PAYABLES_ACCOUNT,
            creditCents: amount,
            docId: billId,
            description: `Returned payment of bill ${billId} (run ${paymentId})`,
          },
        ]),
    };
  }
  const match = await uow.tx.get<{
    target_kind: string;
    target_id: string;
    amount_cents: number;
    journal_id: string;
    reversed_at: string | null;
  }>('SELECT target_kind, target_id, amount_cents, journal_id, reversed_at FROM bank_feed_matches WHERE org_id = ? AND id = ?', [
    uow.orgId,
    paymentId,
  ]);
  if (!match || match.target_kind !== 'bill' || match.target_id !== billId) throw notFound(`payment of bill ${billId}`, paymentId);
  if (match.reversed_at !== null) {
    throw conflict(`match ${paymentId} of bill ${billId} was undone by ${corrections.lineUnmatch.name}; there is no payment to return`);
  }
  const journal = await journalHead(uow, match.journal_id);
  invariant(journal, `match ${paymentId} has its journal`);
  return { amountCents: Number(match.amount_cents), date: journal.date, lines: () => mirrorOf(uow, match.journal_id) };
}

export async function billPaymentReturn(p: Params, uow: Uow) {
  const bill = await uow.tx.get<{ id: string; status: string; payee_name: string }>(
    `SELECT id, status, payee_name FROM bills WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, p.id],
  );
  if (!bill) throw notFound('bill', p.id);
  const prior = await uow.tx.get<ReturnRow>(
    'SELECT amount_cents, returned_on, reason, journal_id, ledger_id FROM bill_payment_returns WHERE org_id = ? AND bill_id = ? AND payment_id = ?',
    [uow.orgId, bill.id, p.paymentId],
  );
  if (prior) {
    return {
      id: bill.id,
      paymentId: p.paymentId,
      amountCents: Number(prior.amount_cents),
      date: prior.returned_on,
      reason: prior.reason,
      status: bill.status,
      outstandingCents: await owedOnDocument(uow.tx, uow.orgId, PAYABLES_ACCOUNT, bill.id),
      journalId: prior.journal_id,
      ledgerId: prior.ledger_id,
      noop: true as const,
    };
  }
  const paid = await paymentOf(uow, bill.id, p.paymentId);
  const date = correctionDate(uow, p.date, paid.date, `payment ${p.paymentId} was made`);
  const owed = (await owedOnDocument(uow.tx, uow.orgId, PAYABLES_ACCOUNT, bill.id)) + paid.amountCents;
  const journalId = newJournalId();
  await postJournal(uow, {
    id: journalId,
    date,
    memo: `Returned payment ${p.paymentId} of bill ${bill.id} to ${bill.payee_name}`.slice(0, 500),
    source: { kind: 'bill_payment_return', id: bill.id },
    lines: await paid.lines(paid.amountCents),
  });
  const event = await uow.emit(events.billPaymentReturn, {
    entityId: bill.id,
    payload: { paymentId: p.paymentId, amountCents: paid.amountCents, date, reason: p.reason, journalId, outstandingCents: owed },
  });
  await uow.tx.run(
    `INSERT INTO bill_payment_returns (org_id, id, bill_id, payment_id, amount_cents, returned_on, reason, journal_id, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, newId('bpr'), bill.id, p.paymentId, paid.amountCents, date, p.reason, journalId, uow.now, event.ledgerId],
  );
  const status = await reopenBill(uow, bill.id, event.ledgerId);
  invariant((await owedOnDocument(uow.tx, uow.orgId, PAYABLES_ACCOUNT, bill.id)) === owed, 'the event states what is owed again');
  return {
    id: bill.id,
    paymentId: p.paymentId,
    amountCents: paid.amountCents,
    date,
    reason: p.reason,
    status,
    outstandingCents: owed,
    journalId,
    ledgerId: event.ledgerId,
  };
}
