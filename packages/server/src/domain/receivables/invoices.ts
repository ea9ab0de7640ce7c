import type { books } from '@finance-desk/protocol';
import type { z } from 'zod';
import { addDays, isoDate } from '../../clock.js';
import { conflict, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';

/**
 * Invoice state machine (docs/methods.md): draft → sent. Later issues add payment, credit and
 * void; every illegal move is a CONFLICT naming the current state.
 */
interface InvoiceRow {
  id: string;
  status: 'draft' | 'sent' | 'paid' | 'void';
  payee_name: string;
  description: string;
  total_cents: number;
  due_days: number;
  created_at: string;
  issued_on: string | null;
  due_on: string | null;
  payee_email: string | null;
  chase_step: number;
  ledger_id: string;
}

const COLUMNS =
  'id, status, payee_name, description, total_cents, due_days, created_at, issued_on, due_on, payee_email, chase_step, ledger_id';

function toInvoice(row: InvoiceRow) {
  return {
    id: row.id,
    status: row.status,
    payeeName: row.payee_name,
    description: row.description,
    totalCents: Number(row.total_cents),
    dueDays: Number(row.due_days),
    createdAt: row.created_at,
    issuedOn: row.issued_on,
    dueOn: row.due_on,
    payeeEmail: row.payee_email,
    chaseStep: Number(row.chase_step),
    ledgerId: row.ledger_id,
  };
}

async function load(uow: Uow, id: string): Promise<InvoiceRow> {
  const row = await uow.tx.get<InvoiceRow>(
    `SELECT ${COLUMNS} FROM invoices WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, id],
  );
  if (!row) throw notFound('invoice', id);
  return row;
}

export async function invoiceDraft(params: z.infer<typeof books.invoiceDraft.params>, uow: Uow) {
  const id = newId('inv');
  const event = await uow.emit({
    family: 'books',
    kind: 'books.invoice.draft',
    entityId: id,
    payload: {
      payee: params.payeeName,
      description: params.description,
      totalCents: params.totalCents,
      dueDays: params.dueDays,
    },
  });
  const row: InvoiceRow = {
    id,
    status: 'draft',
    payee_name: params.payeeName,
    description: params.description,
    total_cents: params.totalCents,
    due_days: params.dueDays,
    created_at: uow.now,
    issued_on: null,
    due_on: null,
    payee_email: params.payeeEmail ?? null,
    chase_step: 0,
    ledger_id: event.ledgerId,
  };
  await uow.tx.run(
    `INSERT INTO invoices (org_id, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, id, 'draft', row.payee_name, row.description, row.total_cents, row.due_days, uow.now, null, null, row.payee_email, 0, event.ledgerId],
  );
  return toInvoice(row);
}

/** Send a draft: it is issued today and falls due `dueDays` later. Sent again → no-op (D3). */
export async function invoiceSend(params: z.infer<typeof books.invoiceSend.params>, uow: Uow) {
  const row = await load(uow, params.id);
  if (row.status === 'sent') return { ...toInvoice(row), noop: true };
  if (row.status !== 'draft') {
    throw conflict(`invoice ${row.id} is ${row.status}; only a draft invoice can be sent`);
  }
  const issuedOn = isoDate(uow.now);
  const dueOn = addDays(issuedOn, Number(row.due_days));
  const event = await uow.emit({
    family: 'books',
    kind: 'books.invoice.send',
    entityId: row.id,
    payload: { payee: row.payee_name, totalCents: Number(row.total_cents), issuedOn, dueOn },
  });
  const moved = await uow.tx.run(
    `UPDATE invoices SET status = 'sent', issued_on = ?, due_on = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND status = 'draft'`,
    [issuedOn, dueOn, event.ledgerId, uow.orgId, row.id],
  );
  invariant(moved.changes === 1, 'a draft invoice is sent exactly once');
  return toInvoice({ ...row, status: 'sent', issued_on: issuedOn, due_on: dueOn, ledger_id: event.ledgerId });
}
