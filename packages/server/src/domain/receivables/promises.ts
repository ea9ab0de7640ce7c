import type { receivables } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { loadInvoice, outstandingOf } from './invoices.js';
import { OPEN_STATUSES } from './ledger-api.js';

/**
 * books.invoicePromise: a customer's promise to pay, for collections. A new act every call (each
 * appends its event): a customer who promises again has made a second promise, and both are history
 * worth keeping. Nothing is posted; the promise does not change what is owed or the invoice's
 * status.
 */
type Params = z.infer<typeof receivables.invoicePromise.params>;

export async function invoicePromise(p: Params, uow: Uow) {
  const row = await loadInvoice(uow, p.id);
  if (!OPEN_STATUSES.includes(row.status)) {
    throw conflict(`invoice ${row.id} is ${row.status}; only a sent or part_paid invoice can take a promise to pay`);
  }
  const today = uow.today;
  if (p.promisedOn < today) throw badRequest(`promisedOn: must be today (${today}) or later`);
  const owed = await outstandingOf(uow.tx, uow.orgId, row);
  const amountCents = p.amountCents ?? owed;
  if (amountCents > owed) {
    throw badRequest(`amountCents: ${amountCents} is more than the ${owed} cents outstanding on invoice ${row.id}`);
  }
  const promiseId = newId('prm');
  // The note is the agent's free text about a person's circumstances: kept in the row, not hashed
  // into the permanent chain (record that it happened, not the body).
  const event = await uow.emit(events.invoicePromise, {
    entityId: row.id,
    payload: {
      promiseId,
      payee: row.payee_name,
      promisedOn: p.promisedOn,
      amountCents,
      outstandingCents: owed,
      hasNote: p.note !== undefined,
    },
  });
  await uow.tx.run(
    `INSERT INTO invoice_promises (org_id, id, invoice_id, promised_on, amount_cents, note, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, promiseId, row.id, p.promisedOn, amountCents, p.note ?? null, uow.now, event.ledgerId],
  );
  return {
    id: row.id,
    promiseId,
    promisedOn: p.promisedOn,
    amountCents,
    outstandingCents: owed,
    note: p.note ?? null,
    ledgerId: event.ledgerId,
  };
}
