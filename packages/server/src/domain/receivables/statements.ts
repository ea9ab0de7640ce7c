import type { receivables } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { enqueueEmail } from '../../adapters/outbox.js';
import { badRequest } from '../../errors.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import type { Uow } from '../../write-path.js';
import type { OpenItem } from '../gl/open-items.js';
import { openInvoicesAsOf } from './ledger-api.js';

/**
 * books.statementRun: what each customer owes as at a date, from the ledger (openInvoicesAsOf),
 * so a statement as at a past date shows what was open then. Customers are grouped by payee name
 * as written on the invoices. A customer is emailed at the address of their latest invoice that
 * has one. A new act every run (each appends its event): each run sends statements again.
 */
type Params = z.infer<typeof receivables.statementRun.params>;

interface Statement {
  payeeName: string;
  openCents: number;
  invoices: { id: string; issuedOn: string; dueOn: string; totalCents: number; outstandingCents: number }[];
  emailed: boolean;
}

function group(items: readonly OpenItem[], only: string | undefined): Statement[] {
  const byPayee = new Map<string, Statement>();
  for (const item of items) {
    if (only !== undefined && item.party.toLowerCase() !== only.toLowerCase()) continue;
    const s = byPayee.get(item.party) ?? { payeeName: item.party, openCents: 0, invoices: [], emailed: false };
    s.openCents += item.outstandingCents;
    const { id, issuedOn, dueOn, totalCents, outstandingCents } = item;
    s.invoices.push({ id, issuedOn, dueOn, totalCents, outstandingCents });
    byPayee.set(item.party, s);
  }
  return [...byPayee.values()].sort((a, b) => (a.payeeName < b.payeeName ? -1 : a.payeeName > b.payeeName ? 1 : 0));
}

/** Each payee's latest email address (newest invoice first; the first seen wins). */
async function addresses(uow: Uow): Promise<Map<string, string>> {
  const rows = await uow.tx.all<{ payee_name: string; payee_email: string }>(
    `SELECT payee_name, payee_email FROM invoices WHERE org_id = ? AND payee_email IS NOT NULL
     ORDER BY created_at DESC, id DESC`,
    [uow.orgId],
  );
  const out = new Map<string, string>();
  for (const r of rows) if (!out.has(r.payee_name)) out.set(r.payee_name, r.payee_email);
  return out;
}

function statementMessage(s: Statement, to: string, asOf: string) {
  return {
    to,
    subject: `Statement as at ${asOf}: ${formatCents(s.openCents)} owing`,
    text: [
      `Dear ${s.payeeName},`,
      '',
      `Your statement as at ${asOf}:`,
      '',
      ...s.invoices.map(
        (i) =>
          `  ${i.id}  issued ${i.issuedOn}  due ${i.dueOn}  total ${formatCents(i.totalCents)}  outstanding ${formatCents(i.outstandingCents)}`,
      ),
      '',
      `Total owing: ${formatCents(s.openCents)}.`,
      'If you have already paid, thank you and please disregard this statement.',
      '',
      'Kind regards,',
      'Accounts receivable',
    ].join('\n'),
  };
}

export async function statementRun(p: Params, uow: Uow) {
  const today = uow.today;
  const asOf = p.asOf ?? today;
  if (asOf > today) throw badRequest(`asOf: must be today (${today}) or earlier`);
  const statements = group(await openInvoicesAsOf(uow.tx, uow.orgId, asOf), p.payeeName);
  const emails = await addresses(uow);
  const messages = statements.flatMap((s) => {
    const to = emails.get(s.payeeName);
    if (to === undefined) return [];
    s.emailed = true;
    return [statementMessage(s, to, asOf)];
  });
  const runId = newId('stm');
  const openCents = statements.reduce((sum, s) => sum + s.openCents, 0);
  // Redacted by design: counts and totals, the channel and recipients, no bodies.
  const event = await uow.emit(events.statementRun, {
    entityId: runId,
    payload: {
      asOf,
      payeeName: p.payeeName ?? null,
      customers: statements.length,
      invoices: statements.reduce((n, s) => n + s.invoices.length, 0),
      openCents,
      channel: 'email',
      recipients: messages.length,
    },
  });
  for (const m of messages) await enqueueEmail(uow.tx, uow.orgId, uow.now, m);
  await uow.tx.run(
    `INSERT INTO statement_runs (org_id, id, as_of, payee_name, customers, emailed, open_cents, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, runId, asOf, p.payeeName ?? null, statements.length, messages.length, openCents, uow.now, event.ledgerId],
  );
  return { runId, asOf, statements, ledgerId: event.ledgerId };
}
