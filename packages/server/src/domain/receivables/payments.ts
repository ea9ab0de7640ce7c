import type { receivables } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, invariant } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { newJournalId } from '../gl/post.js';
import { creditFromSource, keepCredit, newCreditId } from '../credits/ledger.js';
import { loadInvoice } from './invoices.js';
import { applyInvoicePayment, OPEN_STATUSES as OPEN, outstandingOn } from './ledger-api.js';
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
