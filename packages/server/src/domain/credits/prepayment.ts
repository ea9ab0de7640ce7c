import { events, type credits } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { DEFAULT_BANK_ACCOUNT, checkBankAccount } from '../banking/accounts.js';
import { findContact, finishContact } from '../contacts/contacts.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { creditDate, fieldError } from './common.js';
import { CREDIT_COLUMNS, creditLine, keepCredit, newCreditId, remainingOne, toCredit, type CreditRow } from './ledger.js';

/**
 * books.creditPrepayment: money received from a customer, or paid to a supplier, before any
 * invoice or bill: Dr bank / Cr 1100 under the credit's id (customer), or Dr 2000 under it / Cr
 * bank (supplier). It records money that already moved (the bank line is matched to its journal,
 * as a payment recorded by invoiceRecordPayment is). It carries no GST: GST falls on the tax
 * invoice or bill it is later allocated to. A reference identifies it, as a payment's does.
 */
type Params = z.infer<typeof credits.creditPrepayment.params>;

async function prior(uow: Uow, p: Params, reference: string): Promise<CreditRow | null> {
  if (reference === '') return null;
  const row = await uow.tx.get<CreditRow>(
    `SELECT ${CREDIT_COLUMNS} FROM contact_credits
     WHERE org_id = ? AND contact_id = ? AND side = ? AND source_kind = 'prepayment' AND reference = ?`,
    [uow.orgId, p.contactId, p.side, reference],
  );
  if (!row) return null;
  if (Number(row.amount_cents) !== p.amountCents || (p.date !== undefined && p.date !== row.dated)) {
    throw conflict(
      `contact ${p.contactId} already has ${p.side} prepayment ${row.id} with reference ${reference}: ` +
        `${Number(row.amount_cents)} cents on ${row.dated}; use another reference for another prepayment`,
    );
  }
  return row;
}

export async function creditPrepayment(p: Params, uow: Uow) {
  const contact = await findContact(uow.tx, uow.orgId, p.contactId, uow.caps.forUpdate);
  if (!contact) throw fieldError('NOT_FOUND', 'contactId', `no contact ${p.contactId} in this organisation`);
  const reference = p.reference ?? '';
  const same = await prior(uow, p, reference);
  if (same) return { ...toCredit(same, await remainingOne(uow.tx, uow.orgId, same)), reference, noop: true };
  const date = creditDate(uow, p.date, null);
  const bank = p.accountCode ?? DEFAULT_BANK_ACCOUNT;
  await checkBankAccount(uow.tx, uow.orgId, bank, 'accountCode');
  const id = newCreditId();
  const journalId = newJournalId();
  const memo = `${p.side === 'customer' ? 'Prepayment from' : 'Prepayment to'} ${contact.name}, kept as credit ${id}${reference ? ` (${reference})` : ''}`;
  const bankLine =
    p.side === 'customer'
      ? { account: bank, debitCents: p.amountCents, description: memo }
      : { account: bank, creditCents: p.amountCents, description: memo };
  await postJournal(uow, {
    id: journalId,
    date,
    memo: memo.slice(0, 500),
    source: { kind: 'credit_prepayment', id },
    lines:
      p.side === 'customer'
        ? [bankLine, creditLine('customer', id, p.amountCents, memo)]
        : [creditLine('supplier', id, p.amountCents, memo), bankLine],
  });
  const event = await uow.emit(events.creditPrepayment, {
    entityId: id,
    payload: {
      creditId: id,
      contactId: contact.id,
      side: p.side,
      amountCents: p.amountCents,
      date,
      reference,
      accountCode: bank,
      journalId,
    },
  });
  const row: CreditRow = {
    id,
    contact_id: contact.id,
    side: p.side,
    source_kind: 'prepayment',
    source_id: null,
    document_id: null,
    amount_cents: p.amountCents,
    dated: date,
    reference,
    account_code: bank,
    journal_id: journalId,
    ledger_id: event.ledgerId,
  };
  await keepCredit(uow, row);
  // Money from a customer makes the contact a customer (to a supplier, a supplier), as a document would.
  const flag = p.side === 'customer' ? contact.is_customer : contact.is_supplier;
  await finishContact(
    uow,
    { contactId: contact.id, payeeName: contact.name, created: false, change: { kind: Number(flag) !== 1, email: null } },
    p.side,
    event.ledgerId,
  );
  return { ...toCredit(row, p.amountCents), reference };
}
