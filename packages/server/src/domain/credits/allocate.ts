import { refuseForeign } from '../receivables/foreign.js';
import { events, type books, type credits } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, invariant } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { PAYABLE_BILL_STATUSES, PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { owedOnDocument } from '../payables/settle.js';
import { OPEN_STATUSES, RECEIVABLES_ACCOUNT, outstandingOn } from '../receivables/ledger-api.js';
import { creditDate, fieldError } from './common.js';
import { creditLine, loadCredit, remainingOne, type CreditRow, type CreditSide } from './ledger.js';

/**
 * books.creditAllocate: a contact's credit settles (part of) one of its open documents: Dr 1100
 * credit / Cr 1100 invoice, or Dr 2000 bill / Cr 2000 credit, dated the allocation. The journal
 * is untagged and names the document on its control account, so the cash basis of the BAS counts
 * it as a payment of the document that day (tax/cash.ts), and payment runs, aged reports and
 * statuses see the document owe less. One allocation per credit and document: again with the
 * same amount (or none) is a no-op; with another, CONFLICT.
 */
type Params = z.infer<typeof credits.creditAllocate.params>;
type Status = z.infer<typeof books.invoiceStatus> | z.infer<typeof books.billStatus>;

/** The document a credit settles, as this act needs it. */
interface Target {
  readonly kind: 'invoice' | 'bill';
  readonly id: string;
  readonly status: Status;
  readonly contactId: string | null;
  readonly party: string;
  /** The date it was posted: nothing settles it before. */
  readonly postedOn: string | null;
  readonly payable: readonly string[];
}

const KIND_OF: Readonly<Record<CreditSide, 'invoice' | 'bill'>> = { customer: 'invoice', supplier: 'bill' };

async function invoiceOf(uow: Uow, id: string): Promise<Target | undefined> {
  const r = await uow.tx.get<{
    status: Status;
    contact_id: string | null;
    payee_name: string;
    issued_on: string | null;
    journal_id: string | null;
    currency: string | null;
  }>(
    `SELECT status, contact_id, payee_name, issued_on, journal_id, currency FROM invoices WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, id],
  );
  if (!r) return undefined;
  // A credit is AUD: applied to a foreign invoice it would settle foreign cents with AUD ones.
  refuseForeign('invoice', { id, currency: r.currency }, 'allocating a credit', 'refund the credit, or keep it for an AUD invoice');
  return {
    kind: 'invoice',
    id,
    status: r.status,
    contactId: r.contact_id,
    party: r.payee_name,
    postedOn: r.journal_id === null ? null : r.issued_on,
    payable: OPEN_STATUSES,
  };
}

async function billOf(uow: Uow, id: string): Promise<Target | undefined> {
  const r = await uow.tx.get<{ status: Status; contact_id: string | null; payee_name: string; currency: string | null }>(
    `SELECT status, contact_id, payee_name, currency FROM bills WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, id],
  );
  if (!r) return undefined;
  refuseForeign(
    'bill',
    { id, currency: r.currency },
    'allocating a credit',
    'keep the credit for an AUD bill, or have the supplier refund it',
  );
  const posted = await uow.tx.get<{ date: string }>(
    'SELECT j.date AS date FROM bills b JOIN journals j ON j.org_id = b.org_id AND j.id = b.journal_id WHERE b.org_id = ? AND b.id = ?',
    [uow.orgId, id],
  );
  return {
    kind: 'bill',
    id,
    status: r.status,
    contactId: r.contact_id,
    party: r.payee_name,
    postedOn: posted?.date ?? null,
    payable: PAYABLE_BILL_STATUSES,
  };
}

/** The document, of the credit's side and contact; refusals name documentId. */
async function targetOf(uow: Uow, credit: CreditRow, documentId: string): Promise<Target> {
  const want = KIND_OF[credit.side];
  const target = want === 'invoice' ? await invoiceOf(uow, documentId) : await billOf(uow, documentId);
  if (!target) {
    const other = want === 'invoice' ? await billOf(uow, documentId) : await invoiceOf(uow, documentId);
    if (other) {
      throw fieldError(
        'BAD_REQUEST',
        'documentId',
        `${documentId} is ${other.kind === 'invoice' ? 'an invoice' : 'a bill'}; a ${credit.side} credit settles ${want}s`,
      );
    }
    throw fieldError('NOT_FOUND', 'documentId', `no ${want} ${documentId} in this organisation`);
  }
  if (target.contactId !== credit.contact_id) {
    throw fieldError(
      'BAD_REQUEST',
      'documentId',
      `${want} ${documentId} is not of contact ${credit.contact_id}, whose credit ${credit.id} is; a credit settles its own contact's documents`,
    );
  }
  return target;
}

const owedOn = (uow: Uow, t: Target) =>
  t.kind === 'invoice' ? outstandingOn(uow.tx, uow.orgId, t.id) : owedOnDocument(uow.tx, uow.orgId, PAYABLES_ACCOUNT, t.id);

interface AllocationRow {
  id: string;
  amount_cents: number;
  dated: string;
  journal_id: string;
  ledger_id: string;
}

export async function creditAllocate(p: Params, uow: Uow) {
  const credit = await loadCredit(uow, p.creditId);
  const target = await targetOf(uow, credit, p.documentId);
  const prior = await uow.tx.get<AllocationRow>(
    `SELECT id, amount_cents, dated, journal_id, ledger_id FROM credit_applications
     WHERE org_id = ? AND credit_id = ? AND kind = 'allocation' AND document_id = ?`,
    [uow.orgId, credit.id, target.id],
  );
  if (prior) {
    const amount = Number(prior.amount_cents);
    if ((p.amountCents !== undefined && p.amountCents !== amount) || (p.date !== undefined && p.date !== prior.dated)) {
      throw conflict(
        `credit ${credit.id} was already allocated to ${target.kind} ${target.id} (${prior.id}: ${amount} cents on ${prior.dated}); ` +
          'a credit is allocated to a document once',
      );
    }
    return {
      allocationId: prior.id,
      creditId: credit.id,
      documentId: target.id,
      amountCents: amount,
      date: prior.dated,
      creditRemainingCents: await remainingOne(uow.tx, uow.orgId, credit),
      status: target.status,
      outstandingCents: await owedOn(uow, target),
      journalId: prior.journal_id,
      ledgerId: prior.ledger_id,
      noop: true,
    };
  }
  // State first, then dates and amounts.
  if (!target.payable.includes(target.status) || target.postedOn === null) {
    const states = target.kind === 'invoice' ? 'a sent or part_paid invoice' : 'an approved bill';
    throw conflict(`${target.kind} ${target.id} is ${target.status}; only ${states} can take a credit`);
  }
  const remaining = await remainingOne(uow.tx, uow.orgId, credit);
  if (remaining <= 0) throw conflict(`credit ${credit.id} has nothing left to allocate`);
  const owed = await owedOn(uow, target);
  if (owed <= 0) throw conflict(`${target.kind} ${target.id} has nothing owing to settle`);
  const date = creditDate(
    uow,
    p.date,
    credit.dated > target.postedOn
      ? { date: credit.dated, what: `credit ${credit.id} arose` }
      : { date: target.postedOn, what: `${target.kind} ${target.id} was posted` },
  );
  const amount = p.amountCents ?? Math.min(remaining, owed);
  if (amount > remaining) {
    throw fieldError('BAD_REQUEST', 'amountCents', `${amount} is more than the ${remaining} cents left of credit ${credit.id}`);
  }
  if (amount > owed) {
    throw fieldError('BAD_REQUEST', 'amountCents', `${amount} is more than the ${owed} cents outstanding on ${target.kind} ${target.id}`);
  }
  const id = newId('cra');
  const journalId = newJournalId();
  const memo = `Credit ${credit.id} of ${target.party} applied to ${target.kind} ${target.id}`.slice(0, 500);
  const docLine: PostingLine =
    target.kind === 'invoice'
      ? { account: RECEIVABLES_ACCOUNT, creditCents: amount, docId: target.id, description: memo }
      : { account: PAYABLES_ACCOUNT, debitCents: amount, docId: target.id, description: memo };
  const takeDown = creditLine(credit.side, credit.id, amount, memo, -1);
  await postJournal(uow, {
    id: journalId,
    date,
    memo,
    source: { kind: 'credit_allocation', id: credit.id },
    lines: target.kind === 'invoice' ? [takeDown, docLine] : [docLine, takeDown],
  });
  const left = owed - amount;
  const creditLeft = remaining - amount;
  const event = await uow.emit(events.creditAllocate, {
    entityId: credit.id,
    payload: {
      allocationId: id,
      creditId: credit.id,
      documentId: target.id,
      amountCents: amount,
      date,
      creditRemainingCents: creditLeft,
      outstandingCents: left,
      journalId,
    },
  });
  await uow.tx.run(
    `INSERT INTO credit_applications (org_id, id, credit_id, kind, document_id, amount_cents, dated, reference, account_code, journal_id, created_at, ledger_id)
     VALUES (?, ?, ?, 'allocation', ?, ?, ?, '', NULL, ?, ?, ?)`,
    [uow.orgId, id, credit.id, target.id, amount, date, journalId, uow.now, event.ledgerId],
  );
  const status = await settle(uow, target, left, event.ledgerId);
  return {
    allocationId: id,
    creditId: credit.id,
    documentId: target.id,
    amountCents: amount,
    date,
    creditRemainingCents: creditLeft,
    status,
    outstandingCents: left,
    journalId,
    ledgerId: event.ledgerId,
  };
}

/** The document's status after the allocation: an invoice part_paid or paid, a bill paid when nothing is owed. */
async function settle(uow: Uow, t: Target, left: number, ledgerId: string): Promise<Status> {
  invariant(left >= 0, `${t.kind} ${t.id} is not over-settled`);
  if (t.kind === 'invoice') {
    const status = left === 0 ? 'paid' : 'part_paid';
    if (status !== t.status) {
      await uow.tx.run('UPDATE invoices SET status = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [status, ledgerId, uow.orgId, t.id]);
    }
    return status;
  }
  if (left > 0) return t.status;
  await uow.tx.run("UPDATE bills SET status = 'paid', paid_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?", [
    uow.now,
    ledgerId,
    uow.orgId,
    t.id,
  ]);
  return 'paid';
}
