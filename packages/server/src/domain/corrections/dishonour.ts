import { corrections, events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, DomainError, invariant, notFound } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { outstandingOn } from '../receivables/ledger-api.js';
import { refuseForeign } from '../receivables/foreign.js';
import { creditFromSource, remainingOne } from '../credits/ledger.js';
import { correctionDate, mirrorOf, reopenInvoice } from './common.js';

/**
 * books.invoicePaymentDishonour: a customer's payment bounced. The payment's
 * own journal (Dr bank / Cr 1100, docId) is mirrored — Dr 1100 (docId) / Cr the bank it arrived
 * in — so the invoice owes again and chasing resumes. The payment row stays, marked dishonoured
 * (never deleted). The same payment again is a no-op.
 */
type Params = z.infer<typeof corrections.invoicePaymentDishonour.params>;

interface PaymentRow {
  id: string;
  invoice_id: string;
  amount_cents: number;
  paid_on: string;
  journal_id: string;
  reversed_on: string | null;
  reversal_kind: string | null;
  reversal_reason: string | null;
  reversal_journal_id: string | null;
  reversal_ledger_id: string | null;
}

const PAYMENT_COLUMNS =
  'id, invoice_id, amount_cents, paid_on, journal_id, reversed_on, reversal_kind, reversal_reason, reversal_journal_id, reversal_ledger_id';

/**
 * The payment `paymentId` names: the payment's own id (pay_…), or the bank-line match that recorded
 * it (mat_…), as books.billPaymentReturn takes a match. A payment matched from a bank line is
 * posted in the match's journal, so the match finds it by that journal (and this invoice: one
 * journal pays one document). Anything else, or another invoice's payment, is NOT_FOUND naming
 * paymentId.
 */
async function paymentOf(uow: Uow, invoiceId: string, paymentId: string): Promise<PaymentRow> {
  let pay = await uow.tx.get<PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM invoice_payments WHERE org_id = ? AND id = ?`, [
    uow.orgId,
    paymentId,
  ]);
  if (!pay) {
    const match = await uow.tx.get<{ journal_id: string }>('SELECT journal_id FROM bank_feed_matches WHERE org_id = ? AND id = ?', [
      uow.orgId,
      paymentId,
    ]);
    if (match) {
      pay = await uow.tx.get<PaymentRow>(
        `SELECT ${PAYMENT_COLUMNS} FROM invoice_payments WHERE org_id = ? AND journal_id = ? AND invoice_id = ?`,
        [uow.orgId, match.journal_id, invoiceId],
      );
    }
  }
  if (!pay || pay.invoice_id !== invoiceId) {
    throw new DomainError(
      'NOT_FOUND',
      `paymentId: ${paymentId} is not a payment (pay_…) or bank-line match (mat_…) of invoice ${invoiceId}`,
      {
        field: 'paymentId',
      },
    );
  }
  return pay;
}

export async function invoicePaymentDishonour(p: Params, uow: Uow) {
  const invoice = await uow.tx.get<{ id: string; status: string; payee_name: string; currency: string | null }>(
    `SELECT id, status, payee_name, currency FROM invoices WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, p.id],
  );
  if (!invoice) throw notFound('invoice', p.id);
  // Its status would be judged from AUD against a foreign total: refused rather than guessed.
  refuseForeign('invoice', invoice, 'dishonouring a payment', 'a payment of a foreign invoice is not undone here');
  const pay = await paymentOf(uow, invoice.id, p.paymentId);
  if (pay.reversed_on !== null) {
    if (pay.reversal_kind === 'dishonoured') {
      return {
        id: invoice.id,
        paymentId: pay.id,
        amountCents: Number(pay.amount_cents),
        date: pay.reversed_on,
        reason: pay.reversal_reason ?? '',
        status: invoice.status,
        outstandingCents: await outstandingOn(uow.tx, uow.orgId, invoice.id),
        journalId: pay.reversal_journal_id ?? '',
        ledgerId: pay.reversal_ledger_id ?? '',
        noop: true as const,
      };
    }
    throw conflict(
      `payment ${pay.id} of invoice ${invoice.id} was undone by ${corrections.lineUnmatch.name} on ${pay.reversed_on}; there is nothing to dishonour`,
    );
  }
  if (invoice.status === 'void') throw conflict(`invoice ${invoice.id} is void; its payments cannot be dishonoured`);
  // An overpayment's credit is in the payment's journal, so the mirror takes it back too: only while none of it was used.
  const credit = await creditFromSource(uow.tx, uow.orgId, pay.id);
  if (credit && (await remainingOne(uow.tx, uow.orgId, credit)) !== Number(credit.amount_cents)) {
    throw conflict(
      `payment ${pay.id} left credit ${credit.id}, which has been allocated or refunded since; it cannot be dishonoured whole`,
    );
  }
  const date = correctionDate(uow, p.date, pay.paid_on, `payment ${pay.id} was received`);
  const amount = Number(pay.amount_cents);
  const owedBefore = await outstandingOn(uow.tx, uow.orgId, invoice.id);
  const owed = owedBefore + amount;
  const total = await uow.tx.get<{ total_cents: number }>('SELECT total_cents FROM invoices WHERE org_id = ? AND id = ?', [
    uow.orgId,
    invoice.id,
  ]);
  const status = owed >= Number(total?.total_cents ?? 0) ? 'sent' : 'part_paid';
  const journalId = newJournalId();
  await postJournal(uow, {
    id: journalId,
    date,
    memo: `Dishonoured payment ${pay.id} of invoice ${invoice.id} from ${invoice.payee_name}`.slice(0, 500),
    source: { kind: 'invoice_payment_dishonour', id: pay.id },
    lines: await mirrorOf(uow, pay.journal_id),
  });
  const event = await uow.emit(events.invoicePaymentDishonour, {
    entityId: invoice.id,
    payload: { paymentId: pay.id, amountCents: amount, date, reason: p.reason, journalId, outstandingCents: owed, status },
  });
  await uow.tx.run(
    `UPDATE invoice_payments SET reversed_on = ?, reversal_kind = 'dishonoured', reversal_reason = ?, reversal_journal_id = ?,
       reversal_ledger_id = ? WHERE org_id = ? AND id = ? AND reversed_on IS NULL`,
    [date, p.reason, journalId, event.ledgerId, uow.orgId, pay.id],
  );
  const reopened = await reopenInvoice(uow, invoice.id, event.ledgerId);
  invariant(reopened.outstandingCents === owed && reopened.status === status, 'the event states what the dishonour left owing');
  return {
    id: invoice.id,
    paymentId: pay.id,
    amountCents: amount,
    date,
    reason: p.reason,
    status,
    outstandingCents: owed,
    journalId,
    ledgerId: event.ledgerId,
  };
}
