import { events, type credits } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { DEFAULT_BANK_ACCOUNT, checkBankAccount } from '../banking/accounts.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { creditDate, fieldError } from './common.js';
import { creditLine, loadCredit, remainingOne } from './ledger.js';

/**
 * books.creditRefund: what is left of a credit went back through a bank account, money that
 * already moved (paid out to the customer, or received back from the supplier). Dr 1100 credit
 * / Cr bank, or Dr bank / Cr 2000 credit. No GST: a credit note's GST was adjusted when the note
 * was issued, and a prepayment or overpayment never carried any. A reference identifies a refund
 * of a credit, as a payment's does; without one every call is a refund.
 */
type Params = z.infer<typeof credits.creditRefund.params>;

interface RefundRow {
  id: string;
  amount_cents: number;
  dated: string;
  account_code: string;
  journal_id: string;
  ledger_id: string;
}

export async function creditRefund(p: Params, uow: Uow) {
  const credit = await loadCredit(uow, p.creditId);
  const reference = p.reference ?? '';
  if (reference !== '') {
    const prior = await uow.tx.get<RefundRow>(
      `SELECT id, amount_cents, dated, account_code, journal_id, ledger_id FROM credit_applications
       WHERE org_id = ? AND credit_id = ? AND kind = 'refund' AND reference = ?`,
      [uow.orgId, credit.id, reference],
    );
    if (prior) {
      const amount = Number(prior.amount_cents);
      if ((p.amountCents !== undefined && p.amountCents !== amount) || (p.date !== undefined && p.date !== prior.dated)) {
        throw conflict(
          `credit ${credit.id} already has refund ${prior.id} with reference ${reference}: ${amount} cents on ${prior.dated}; ` +
            'use another reference for another refund',
        );
      }
      return {
        refundId: prior.id,
        creditId: credit.id,
        amountCents: amount,
        date: prior.dated,
        reference,
        accountCode: prior.account_code,
        creditRemainingCents: await remainingOne(uow.tx, uow.orgId, credit),
        journalId: prior.journal_id,
        ledgerId: prior.ledger_id,
        noop: true,
      };
    }
  }
  const remaining = await remainingOne(uow.tx, uow.orgId, credit);
  if (remaining <= 0) throw conflict(`credit ${credit.id} has nothing left to refund`);
  const date = creditDate(uow, p.date, { date: credit.dated, what: `credit ${credit.id} arose` });
  const bank = p.accountCode ?? DEFAULT_BANK_ACCOUNT;
  await checkBankAccount(uow.tx, uow.orgId, bank, 'accountCode');
  const amount = p.amountCents ?? remaining;
  if (amount > remaining) {
    throw fieldError('BAD_REQUEST', 'amountCents', `${amount} is more than the ${remaining} cents left of credit ${credit.id}`);
  }
  const id = newId('crf');
  const journalId = newJournalId();
  const memo = `Refund ${id} of credit ${credit.id}${reference ? ` (${reference})` : ''}`.slice(0, 500);
  const takeDown = creditLine(credit.side, credit.id, amount, memo, -1);
  await postJournal(uow, {
    id: journalId,
    date,
    memo,
    source: { kind: 'credit_refund', id: credit.id },
    lines:
      credit.side === 'customer'
        ? [takeDown, { account: bank, creditCents: amount, description: memo }]
        : [{ account: bank, debitCents: amount, description: memo }, takeDown],
  });
  const left = remaining - amount;
  const event = await uow.emit(events.creditRefund, {
    entityId: credit.id,
    payload: {
      refundId: id,
      creditId: credit.id,
      amountCents: amount,
      date,
      reference,
      accountCode: bank,
      creditRemainingCents: left,
      journalId,
    },
  });
  await uow.tx.run(
    `INSERT INTO credit_applications (org_id, id, credit_id, kind, document_id, amount_cents, dated, reference, account_code, journal_id, created_at, ledger_id)
     VALUES (?, ?, ?, 'refund', NULL, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, id, credit.id, amount, date, reference, bank, journalId, uow.now, event.ledgerId],
  );
  return {
    refundId: id,
    creditId: credit.id,
    amountCents: amount,
    date,
    reference,
    accountCode: bank,
    creditRemainingCents: left,
    journalId,
    ledgerId: event.ledgerId,
  };
}
