import type { receivables } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, invariant } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { newJournalId } from '../gl/post.js';
import { loadInvoice } from './invoices.js';
import { applyInvoicePayment, outstandingOn } from './ledger-api.js';
import { DEFAULT_BANK_ACCOUNT, checkBankAccount } from '../banking/accounts.js';

/**
 * books.invoiceRecordPayment: money received against an invoice (ledger-api.ts posts it). A
 * payment's reference identifies it: the same non-empty reference on the same invoice again is
 * the same payment — a no-op when amount and date agree (a retry), CONFLICT when they do not (a
 * typing slip that would double-count). Without a reference every call is a payment.
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
  if (Number(prior.amount_cents) !== p.amountCents || (p.date !== undefined && p.date !== prior.paid_on)) {
    throw conflict(
      `invoice ${p.id} already has payment ${prior.id} with reference ${reference}: ` +
        `${Number(prior.amount_cents)} cents on ${prior.paid_on}; use another reference for another payment`,
    );
  }
  return prior;
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
      noop: true,
    };
  }
  const date = p.date ?? uow.today;
  const bankAccount = p.accountCode ?? DEFAULT_BANK_ACCOUNT;
  await checkBankAccount(uow.tx, uow.orgId, bankAccount, 'accountCode');
  // What the event states is known before the posting; applyInvoicePayment re-checks and refuses
  // when the state or amount does not allow it. It posts before the event, which binds the lines.
  const owed = await outstandingOn(uow.tx, uow.orgId, invoice.id);
  const journalId = newJournalId();
  const applied = await applyInvoicePayment(uow, {
    invoiceId: invoice.id,
    amountCents: p.amountCents,
    date,
    reference,
    journalId,
    bankAccount,
  });
  const event = await uow.emit(events.invoicePayment, {
    entityId: invoice.id,
    payload: {
      payee: invoice.payee_name,
      amountCents: p.amountCents,
      date,
      reference,
      journalId,
      outstandingCents: owed - p.amountCents,
      // Named when the caller chose it; absent means 1000, as before.
      ...(p.accountCode !== undefined ? { accountCode: bankAccount } : {}),
    },
  });
  await applied.record(event.ledgerId);
  invariant(applied.outstandingCents === owed - p.amountCents, 'the event states what the payment left outstanding');
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
  };
}
