import type { receivables } from '@finance-desk/protocol';
import { currencies, events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, DomainError, invariant } from '../../errors.js';
import { newId } from '../../ids.js';
import { checkAudBound, isForeign, resolveRate, toAud } from '../currencies/rates.js';
import { FX_KEY } from '../currencies/revalue-keys.js';
import { carriedOn } from '../currencies/carried.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { creditFromSource, keepCredit, newCreditId } from '../credits/ledger.js';
import { loadInvoice, outstandingOf, type InvoiceRow } from './invoices.js';
import { applyInvoicePayment, OPEN_STATUSES as OPEN, outstandingOn, RECEIVABLES_ACCOUNT } from './ledger-api.js';
import { DEFAULT_BANK_ACCOUNT, checkBankAccount } from '../banking/accounts.js';

/**
 * books.invoiceRecordPayment: money received against an invoice (ledger-api.ts posts it). A
 * payment's reference identifies it: the same non-empty reference on the same invoice again is
 * the same payment — a no-op when amount and date agree (a retry), CONFLICT when they do not (a
 * typing slip that would double-count). Without a reference every call is a payment.
 * With excess 'credit', what is received beyond what is outstanding pays the invoice in full and
 * the rest is the customer's credit (credits/ledger.ts): one journal Dr bank (all of it) / Cr 1100
 * invoice (what was owed) / Cr 1100 credit (the rest). The payment row keeps what paid the
 * invoice; the credit row names the payment as its source, so a retry finds both.
 */
type Params = z.infer<typeof receivables.invoiceRecordPayment.params>;

interface PaymentRow {
  id: string;
  amount_cents: number;
  paid_on: string;
  reference: string;
  journal_id: string;
  ledger_id: string;
}

async function priorPayment(uow: Uow, p: Params, reference: string) {
  if (reference === '') return null;
  const prior = await uow.tx.get<PaymentRow>(
    `SELECT id, amount_cents, paid_on, reference, journal_id, ledger_id FROM invoice_payments
     WHERE org_id = ? AND invoice_id = ? AND reference = ?`,
    [uow.orgId, p.id, reference],
  );
  if (!prior) return null;
  const credit = await creditFromSource(uow.tx, uow.orgId, prior.id);
  const received = Number(prior.amount_cents) + Number(credit?.amount_cents ?? 0);
  if (received !== p.amountCents || (p.date !== undefined && p.date !== prior.paid_on)) {
    throw conflict(
      `invoice ${p.id} already has payment ${prior.id} with reference ${reference}: ` +
        `${received} cents on ${prior.paid_on}; use another reference for another payment`,
    );
  }
  return { ...prior, credit };
}

export async function invoiceRecordPayment(p: Params, uow: Uow) {
  const invoice = await loadInvoice(uow, p.id);
  const reference = p.reference ?? '';
  const prior = await priorPayment(uow, p, reference);
  if (isForeign(invoice.currency)) return foreignPayment(p, uow, invoice, reference, prior);
  if (p.exchangeRate !== undefined) {
    throw new DomainError(
      'BAD_REQUEST',
      `exchangeRate: invoice ${invoice.id} is in AUD; an exchange rate is for an invoice in another currency`,
      {
        field: 'exchangeRate',
      },
    );
  }
  if (prior) {
    return {
      id: invoice.id,
      paymentId: prior.id,
      amountCents: Number(prior.amount_cents),
      date: prior.paid_on,
      reference,
      status: invoice.status,
      outstandingCents: await outstandingOn(uow.tx, uow.orgId, invoice.id),
      journalId: prior.journal_id,
      ledgerId: prior.ledger_id,
      ...(prior.credit ? { creditId: prior.credit.id, creditCents: Number(prior.credit.amount_cents) } : {}),
      noop: true,
    };
  }
  const date = p.date ?? uow.today;
  const bankAccount = p.accountCode ?? DEFAULT_BANK_ACCOUNT;
  await checkBankAccount(uow.tx, uow.orgId, bankAccount, 'accountCode');
  // What the event states is known before the posting; applyInvoicePayment re-checks and refuses
  // when the state or amount does not allow it. It posts before the event, which binds the lines.
  const owed = await outstandingOn(uow.tx, uow.orgId, invoice.id);
  // State refusals (applyInvoicePayment's) come first: only a posted, open invoice is refused for its amount here.
  if (p.amountCents > owed && p.excess === undefined && OPEN.includes(invoice.status) && invoice.journal_id !== null) {
    throw badRequest(
      `amountCents: ${p.amountCents} is more than the ${owed} cents outstanding on invoice ${invoice.id}; ` +
        `pass excess 'credit' to keep the ${p.amountCents - owed} cents beyond it as a credit on the customer`,
    );
  }
  // The credit's id is reserved now: the payment's journal holds the excess under it.
  const creditId = p.excess === 'credit' && p.amountCents > owed ? newCreditId() : undefined;
  const journalId = newJournalId();
  const applied = await applyInvoicePayment(uow, {
    invoiceId: invoice.id,
    amountCents: p.amountCents,
    date,
    reference,
    journalId,
    bankAccount,
    ...(creditId !== undefined ? { excessCreditId: creditId } : {}),
  });
  const excess = applied.excessCents;
  const event = await uow.emit(events.invoicePayment, {
    entityId: invoice.id,
    payload: {
      payee: invoice.payee_name,
      amountCents: p.amountCents,
      date,
      reference,
      journalId,
      outstandingCents: owed - (p.amountCents - excess),
      // Named when the caller chose it; absent means 1000, as before.
      ...(p.accountCode !== undefined ? { accountCode: bankAccount } : {}),
      ...(creditId !== undefined ? { creditId, creditCents: excess } : {}),
    },
  });
  await applied.record(event.ledgerId);
  invariant(applied.outstandingCents === owed - (p.amountCents - excess), 'the event states what the payment left outstanding');
  if (creditId !== undefined) {
    invariant(invoice.contact_id !== null, `invoice ${invoice.id} has a contact`);
    await keepCredit(uow, {
      id: creditId,
      contact_id: invoice.contact_id,
      side: 'customer',
      source_kind: 'overpayment',
      source_id: applied.paymentId,
      document_id: invoice.id,
      amount_cents: excess,
      dated: date,
      reference,
      account_code: bankAccount,
      journal_id: journalId,
      ledger_id: event.ledgerId,
    });
  }
  return {
    id: invoice.id,
    paymentId: applied.paymentId,
    amountCents: p.amountCents,
    date,
    reference,
    status: applied.status,
    outstandingCents: applied.outstandingCents,
    journalId,
    ledgerId: event.ledgerId,
    ...(creditId !== undefined ? { creditId, creditCents: excess } : {}),
  };
}

/**
 * A payment of an invoice in another currency (foreign.ts): amountCents is in that currency, at
 * most what is outstanding in it. The bank gets the AUD it converts to at the payment's rate; 1100
 * is credited with the AUD carried for the part settled: everything left when this payment
 * settles the invoice (no cent stays behind), else the part at the invoice's rate; the difference
 * is realised on 4400 (a gain credited, a loss debited). One journal, one event.
 */
async function foreignPayment(
  p: Params,
  uow: Uow,
  invoice: InvoiceRow,
  reference: string,
  prior: Awaited<ReturnType<typeof priorPayment>>,
) {
  invariant(invoice.currency !== null && invoice.exchange_rate_micros !== null, `foreign invoice ${invoice.id} has its rate`);
  if (prior) {
    const row = await uow.tx.get<{ exchange_rate_micros: number; aud_amount_cents: number; aud_settled_cents: number }>(
      'SELECT exchange_rate_micros, aud_amount_cents, aud_settled_cents FROM invoice_payments WHERE org_id = ? AND id = ?',
      [uow.orgId, prior.id],
    );
    invariant(row, `payment ${prior.id} exists`);
    return {
      id: invoice.id,
      paymentId: prior.id,
      amountCents: Number(prior.amount_cents),
      date: prior.paid_on,
      reference,
      status: invoice.status,
      outstandingCents: await outstandingOf(uow.tx, uow.orgId, invoice),
      journalId: prior.journal_id,
      ledgerId: prior.ledger_id,
      ...fxResult(invoice.currency, Number(row.exchange_rate_micros), Number(row.aud_amount_cents), Number(row.aud_settled_cents)),
      noop: true,
    };
  }
  if (p.excess !== undefined) {
    throw new DomainError(
      'BAD_REQUEST',
      `excess: invoice ${invoice.id} is in ${invoice.currency}; an overpayment kept as credit is for AUD invoices only`,
      {
        field: 'excess',
      },
    );
  }
  if (!OPEN.includes(invoice.status)) {
    throw conflict(`invoice ${invoice.id} is ${invoice.status}; only a sent or part_paid invoice can take a payment`);
  }
  invariant(invoice.journal_id !== null && invoice.issued_on !== null, 'a sent foreign invoice is posted');
  const date = p.date ?? uow.today;
  if (date < invoice.issued_on) throw badRequest(`date: ${date} is before invoice ${invoice.id} was issued (${invoice.issued_on})`);
  if (date > uow.today) throw badRequest(`date: ${date} is in the future; record a payment once it is received`);
  const bankAccount = p.accountCode ?? DEFAULT_BANK_ACCOUNT;
  await checkBankAccount(uow.tx, uow.orgId, bankAccount, 'accountCode');
  const owed = await outstandingOf(uow.tx, uow.orgId, invoice);
  if (p.amountCents > owed) {
    throw badRequest(
      `amountCents: ${p.amountCents} is more than the ${owed} ${invoice.currency} cents outstanding on invoice ${invoice.id}`,
    );
  }
  const rate = await resolveRate(uow, invoice.currency, date, p.exchangeRate);
  const audAmount = toAud(p.amountCents, rate.micros);
  checkAudBound(audAmount, 'amountCents');
  if (audAmount === 0)
    throw badRequest(
      `amountCents: ${p.amountCents} ${invoice.currency} cents is less than one AUD cent at ${currencies.rateString(rate.micros)}`,
    );
  const carried = (await carriedOn(uow.tx, uow.orgId, RECEIVABLES_ACCOUNT, 'debit', [invoice.id])).get(invoice.id) ?? 0;
  const settles = p.amountCents === owed;
  // Part by part at the invoice's rate, never more than is carried; the last part takes the rest.
  const audSettled = settles ? carried : Math.min(carried, toAud(p.amountCents, Number(invoice.exchange_rate_micros)));
  invariant(audSettled >= 0, `invoice ${invoice.id} carries no credit balance`);
  const gain = audAmount - audSettled;
  const paymentId = newId('pay');
  const journalId = newJournalId();
  const memo = `Payment ${paymentId} of invoice ${invoice.id} from ${invoice.payee_name}: ${invoice.currency} ${p.amountCents} cents at ${currencies.rateString(rate.micros)}${reference ? ` (${reference})` : ''}`;
  await postJournal(uow, {
    id: journalId,
    date,
    memo,
    source: { kind: 'invoice_payment', id: invoice.id },
    lines: [
      { account: bankAccount, debitCents: audAmount, description: memo },
      { account: RECEIVABLES_ACCOUNT, creditCents: audSettled, docId: invoice.id, description: memo },
      gain >= 0
        ? { account: { key: FX_KEY }, creditCents: gain, description: `Exchange gain on invoice ${invoice.id}` }
        : { account: { key: FX_KEY }, debitCents: -gain, description: `Exchange loss on invoice ${invoice.id}` },
    ],
  });
  const left = owed - p.amountCents;
  const status: 'paid' | 'part_paid' = left === 0 ? 'paid' : 'part_paid';
  const event = await uow.emit(events.invoicePayment, {
    entityId: invoice.id,
    payload: {
      payee: invoice.payee_name,
      amountCents: p.amountCents,
      date,
      reference,
      journalId,
      outstandingCents: left,
      ...(p.accountCode !== undefined ? { accountCode: bankAccount } : {}),
      currency: invoice.currency,
      exchangeRate: currencies.rateString(rate.micros),
      invoiceExchangeRate: currencies.rateString(Number(invoice.exchange_rate_micros)),
      audAmountCents: audAmount,
      audSettledCents: audSettled,
      audGainCents: gain,
    },
  });
  await uow.tx.run(
    `INSERT INTO invoice_payments (org_id, id, invoice_id, amount_cents, paid_on, reference, journal_id, created_at, ledger_id,
       exchange_rate_micros, aud_amount_cents, aud_settled_cents)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uow.orgId,
      paymentId,
      invoice.id,
      p.amountCents,
      date,
      reference,
      journalId,
      uow.now,
      event.ledgerId,
      rate.micros,
      audAmount,
      audSettled,
    ],
  );
  if (status !== invoice.status) {
    await uow.tx.run('UPDATE invoices SET status = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [
      status,
      event.ledgerId,
      uow.orgId,
      invoice.id,
    ]);
  }
  return {
    id: invoice.id,
    paymentId,
    amountCents: p.amountCents,
    date,
    reference,
    status,
    outstandingCents: left,
    journalId,
    ledgerId: event.ledgerId,
    ...fxResult(invoice.currency, rate.micros, audAmount, audSettled),
  };
}

/** The result's foreign fields: currency, the payment's rate, AUD banked, AUD settled, the difference. */
function fxResult(currency: string, micros: number, audAmount: number, audSettled: number) {
  return {
    currency,
    exchangeRate: currencies.rateString(micros),
    audAmountCents: audAmount,
    audSettledCents: audSettled,
    audGainCents: audAmount - audSettled,
  };
}
