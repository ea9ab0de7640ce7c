import { currencies, events, type payables } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { checkBankAccount, DEFAULT_BANK_ACCOUNT } from '../banking/accounts.js';
import { checkAudBound, isForeign, resolveRate, toAud } from '../currencies/rates.js';
import { FX_KEY } from '../currencies/revalue-keys.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { BILL_COLUMNS, type BillRow } from './bills.js';
import { foreignBillPaid } from './foreign.js';
import { PAYABLES_ACCOUNT } from './ledger-api.js';
import { carriedOn } from '../currencies/carried.js';

/**
 * books.billRecordPayment: paying a bill in another currency (an AUD bill is paid by a run or a
 * bank-line match, which stay AUD only). amountCents is in the bill's currency; the bank pays the
 * AUD it converts to at the payment's rate; 2000 is debited with the AUD carried for the part
 * settled (everything left when this payment settles the bill, else the part at the bill's rate);
 * the difference is realised on 4400 (paying less AUD than carried is a gain). As
 * invoiceRecordPayment, the same non-empty reference again is a no-op when amount and date agree
 * and CONFLICT when they do not.
 */
type Params = z.infer<typeof payables.billRecordPayment.params>;

interface PaymentRow {
  id: string;
  amount_cents: number;
  paid_on: string;
  exchange_rate_micros: number;
  aud_amount_cents: number;
  aud_settled_cents: number;
  journal_id: string;
  ledger_id: string;
}

function result(bill: BillRow, pay: Omit<PaymentRow, 'ledger_id'>, reference: string, status: BillRow['status'], left: number) {
  return {
    id: bill.id,
    paymentId: pay.id,
    amountCents: Number(pay.amount_cents),
    date: pay.paid_on,
    reference,
    status,
    outstandingCents: left,
    currency: bill.currency ?? '',
    exchangeRate: currencies.rateString(Number(pay.exchange_rate_micros)),
    audAmountCents: Number(pay.aud_amount_cents),
    audSettledCents: Number(pay.aud_settled_cents),
    audGainCents: Number(pay.aud_settled_cents) - Number(pay.aud_amount_cents),
    journalId: pay.journal_id,
  };
}

export async function billRecordPayment(p: Params, uow: Uow) {
  const bill = await uow.tx.get<BillRow>(`SELECT ${BILL_COLUMNS} FROM bills WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    p.id,
  ]);
  if (!bill) throw notFound('bill', p.id);
  if (!isForeign(bill.currency) || bill.exchange_rate_micros === null) {
    throw conflict(`bill ${bill.id} is in AUD: pay it in a payment run or match its bank line; this records payments of foreign bills`);
  }
  const owedOf = async () => Number(bill.total_cents) - ((await foreignBillPaid(uow.tx, uow.orgId, [bill.id])).get(bill.id) ?? 0);
  const reference = p.reference ?? '';
  if (reference !== '') {
    const prior = await uow.tx.get<PaymentRow>(
      `SELECT id, amount_cents, paid_on, exchange_rate_micros, aud_amount_cents, aud_settled_cents, journal_id, ledger_id
       FROM bill_fx_payments WHERE org_id = ? AND bill_id = ? AND reference = ?`,
      [uow.orgId, bill.id, reference],
    );
    if (prior) {
      if (Number(prior.amount_cents) !== p.amountCents || (p.date !== undefined && p.date !== prior.paid_on)) {
        throw conflict(
          `bill ${bill.id} already has payment ${prior.id} with reference ${reference}: ${Number(prior.amount_cents)} ${bill.currency} cents on ${prior.paid_on}; use another reference for another payment`,
        );
      }
      return { ...result(bill, prior, reference, bill.status, await owedOf()), ledgerId: prior.ledger_id, noop: true };
    }
  }
  if (bill.status !== 'approved') throw conflict(`bill ${bill.id} is ${bill.status}; only an approved bill can be paid`);
  invariant(bill.journal_id !== null, 'an approved foreign bill is posted');
  const date = p.date ?? uow.today;
  const dated = bill.issued_on ?? '';
  if (date < dated) throw badRequest(`date: ${date} is before bill ${bill.id} is dated (${dated})`);
  if (date > uow.today) throw badRequest(`date: ${date} is in the future; record a payment once it is made`);
  const bankAccount = p.accountCode ?? DEFAULT_BANK_ACCOUNT;
  await checkBankAccount(uow.tx, uow.orgId, bankAccount, 'accountCode');
  const owed = await owedOf();
  if (p.amountCents > owed) {
    throw badRequest(`amountCents: ${p.amountCents} is more than the ${owed} ${bill.currency} cents outstanding on bill ${bill.id}`);
  }
  const rate = await resolveRate(uow, bill.currency, date, p.exchangeRate);
  const audAmount = toAud(p.amountCents, rate.micros);
  checkAudBound(audAmount, 'amountCents');
  if (audAmount === 0) throw badRequest(`amountCents: ${p.amountCents} ${bill.currency} cents is less than one AUD cent at this rate`);
  const carried = (await carriedOn(uow.tx, uow.orgId, PAYABLES_ACCOUNT, 'credit', [bill.id])).get(bill.id) ?? 0;
  const audSettled = p.amountCents === owed ? carried : Math.min(carried, toAud(p.amountCents, Number(bill.exchange_rate_micros)));
  invariant(audSettled >= 0, `bill ${bill.id} carries no debit balance`);
  // Paying less AUD than the bill carries is a gain (credited), more a loss (debited).
  const gain = audSettled - audAmount;
  const paymentId = newId('bpy');
  const journalId = newJournalId();
  const memo = `Payment ${paymentId} of bill ${bill.id} to ${bill.payee_name}: ${bill.currency} ${p.amountCents} cents at ${currencies.rateString(rate.micros)}${reference ? ` (${reference})` : ''}`;
  await postJournal(uow, {
    id: journalId,
    date,
    memo,
    source: { kind: 'bill_payment', id: bill.id },
    lines: [
      { account: PAYABLES_ACCOUNT, debitCents: audSettled, docId: bill.id, description: memo },
      { account: bankAccount, creditCents: audAmount, description: memo },
      gain >= 0
        ? { account: { key: FX_KEY }, creditCents: gain, description: `Exchange gain on bill ${bill.id}` }
        : { account: { key: FX_KEY }, debitCents: -gain, description: `Exchange loss on bill ${bill.id}` },
    ],
  });
  const left = owed - p.amountCents;
  const status: BillRow['status'] = left === 0 ? 'paid' : 'approved';
  const event = await uow.emit(events.billPayment, {
    entityId: bill.id,
    payload: {
      payee: bill.payee_name,
      amountCents: p.amountCents,
      date,
      reference,
      journalId,
      outstandingCents: left,
      accountCode: bankAccount,
      currency: bill.currency,
      exchangeRate: currencies.rateString(rate.micros),
      billExchangeRate: currencies.rateString(Number(bill.exchange_rate_micros)),
      audAmountCents: audAmount,
      audSettledCents: audSettled,
      audGainCents: gain,
    },
  });
  await uow.tx.run(
    `INSERT INTO bill_fx_payments (org_id, id, bill_id, amount_cents, paid_on, reference, exchange_rate_micros, aud_amount_cents,
       aud_settled_cents, journal_id, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, paymentId, bill.id, p.amountCents, date, reference, rate.micros, audAmount, audSettled, journalId, uow.now, event.ledgerId],
  );
  if (status === 'paid') {
    await uow.tx.run('UPDATE bills SET status = ?, paid_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [
      'paid',
      uow.now,
      event.ledgerId,
      uow.orgId,
      bill.id,
    ]);
  }
  const pay = {
    id: paymentId,
    amount_cents: p.amountCents,
    paid_on: date,
    exchange_rate_micros: rate.micros,
    aud_amount_cents: audAmount,
    aud_settled_cents: audSettled,
    journal_id: journalId,
  };
  return { ...result(bill, pay, reference, status, left), ledgerId: event.ledgerId };
}
