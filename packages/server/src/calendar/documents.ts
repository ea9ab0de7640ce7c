import { owedOnDocuments } from '../domain/gl/post.js';
import { PAYABLES_ACCOUNT } from '../domain/payables/ledger-api.js';
import { RECEIVABLES_ACCOUNT } from '../domain/receivables/ledger-api.js';
import { quoted } from '../governance/quote.js';
import { formatCents } from '../money.js';
import type { Queryable } from '../storage/types.js';
import { afterCursor, type MeetingItem, type Window } from './window.js';

/**
 * The calendar's document sources (meetings.list): each one query over an index
 * led by (org_id, date), keyset after the cursor, at most `take` rows. Names customers and payees
 * typed by agents are quoted (governance/quote.ts); the rest of every title is the server's.
 */

interface DocRow {
  id: string;
  payee_name: string;
  due_on: string;
  total_cents: number | string;
  status: string;
  journal_id: string | null;
  ledger_id: string;
}

/** What is still owed on each document: the ledger once posted, else the total (not yet posted). */
async function outstanding(q: Queryable, orgId: string, account: string, side: 'debit' | 'credit', rows: readonly DocRow[]) {
  const posted = rows.filter((r) => r.journal_id !== null).map((r) => r.id);
  const owed = await owedOnDocuments(q, orgId, account, side, posted);
  return (r: DocRow) => (r.journal_id !== null ? (owed.get(r.id) ?? 0) : Number(r.total_cents));
}

/** invoice.due: sent or part-paid invoices (not fully paid) due in range, with what is outstanding. */
export async function invoicesDue(q: Queryable, w: Window): Promise<MeetingItem[]> {
  const k = afterCursor(w, 'invoice.due', 'due_on', 'id');
  const rows = await q.all<DocRow>(
    `SELECT id, payee_name, due_on, total_cents, status, journal_id, ledger_id FROM invoices
     WHERE org_id = ? AND ${k.sql} AND status IN ('sent', 'part_paid') ORDER BY due_on, id LIMIT ${w.take}`,
    [w.orgId, ...k.args],
  );
  const owed = await outstanding(q, w.orgId, RECEIVABLES_ACCOUNT, 'debit', rows);
  return rows.map((r) => {
    const left = owed(r);
    const overdue = r.due_on < w.today ? ' (overdue)' : '';
    return {
      date: r.due_on,
      kind: 'invoice.due',
      id: r.id,
      subjectId: r.id,
      title: `Invoice ${r.id} to ${quoted(r.payee_name)} due${overdue}: ${formatCents(left)} outstanding of ${formatCents(Number(r.total_cents))}`,
      amountCents: left,
      status: r.status,
      ledgerId: r.ledger_id,
    };
  });
}

/** bill.due: approved bills not yet paid (a payment run pays them: status paid), due in range. */
export async function billsDue(q: Queryable, w: Window): Promise<MeetingItem[]> {
  const k = afterCursor(w, 'bill.due', 'due_on', 'id');
  const rows = await q.all<DocRow>(
    `SELECT id, payee_name, due_on, total_cents, status, journal_id, ledger_id FROM bills
     WHERE org_id = ? AND status = 'approved' AND ${k.sql} ORDER BY due_on, id LIMIT ${w.take}`,
    [w.orgId, ...k.args],
  );
  const owed = await outstanding(q, w.orgId, PAYABLES_ACCOUNT, 'credit', rows);
  return rows.map((r) => {
    const left = owed(r);
    const overdue = r.due_on < w.today ? ' (overdue)' : '';
    return {
      date: r.due_on,
      kind: 'bill.due',
      id: r.id,
      subjectId: r.id,
      title: `Bill ${r.id} from ${quoted(r.payee_name)} due${overdue}: ${formatCents(left)} to pay of ${formatCents(Number(r.total_cents))}`,
      amountCents: left,
      status: r.status,
      ledgerId: r.ledger_id,
    };
  });
}

interface PromiseRow {
  id: string;
  invoice_id: string;
  promised_on: string;
  amount_cents: number | string;
  ledger_id: string;
  payee_name: string;
}

/**
 * promise: the latest promise to pay on each open invoice (a customer who promises again replaces
 * the date they gave), on its promised date. Status `missed` once the date has passed while the
 * invoice is still open, else `promised`. The promise's note is not shown (it is about a person).
 */
export async function promises(q: Queryable, w: Window): Promise<MeetingItem[]> {
  const k = afterCursor(w, 'promise', 'p.promised_on', 'p.id');
  const rows = await q.all<PromiseRow>(
    `SELECT p.id, p.invoice_id, p.promised_on, p.amount_cents, p.ledger_id, i.payee_name
     FROM invoice_promises p JOIN invoices i ON i.org_id = p.org_id AND i.id = p.invoice_id
     WHERE p.org_id = ? AND ${k.sql} AND i.status IN ('sent', 'part_paid')
       AND NOT EXISTS (SELECT 1 FROM invoice_promises l WHERE l.org_id = p.org_id AND l.invoice_id = p.invoice_id
         AND (l.created_at > p.created_at OR (l.created_at = p.created_at AND l.id > p.id)))
     ORDER BY p.promised_on, p.id LIMIT ${w.take}`,
    [w.orgId, ...k.args],
  );
  return rows.map((r) => {
    const missed = r.promised_on < w.today;
    const amount = Number(r.amount_cents);
    return {
      date: r.promised_on,
      kind: 'promise',
      id: r.id,
      subjectId: r.invoice_id,
      title: `${quoted(r.payee_name)} promised to pay ${formatCents(amount)} on invoice ${r.invoice_id}${missed ? ' (missed: the invoice is still open)' : ''}`,
      amountCents: amount,
      status: missed ? 'missed' : 'promised',
      ledgerId: r.ledger_id,
    };
  });
}

interface PayRunRow {
  id: string;
  status: string;
  period_start: string;
  period_end: string;
  payment_date: string;
  pay_frequency: string;
  net_cents: number | string;
  ledger_id: string;
}

/** payday: drafted or signed pay runs (a recalled run pays nobody) on their payment dates. */
export async function payRuns(q: Queryable, w: Window): Promise<MeetingItem[]> {
  const k = afterCursor(w, 'payday', 'payment_date', 'id');
  const rows = await q.all<PayRunRow>(
    `SELECT id, status, period_start, period_end, payment_date, pay_frequency, net_cents, ledger_id FROM pay_runs
     WHERE org_id = ? AND ${k.sql} AND status IN ('draft', 'signed') ORDER BY payment_date, id LIMIT ${w.take}`,
    [w.orgId, ...k.args],
  );
  return rows.map((r) => {
    const net = Number(r.net_cents);
    const todo = r.status === 'draft' ? '; to be signed by a human (books.payrollSign)' : '';
    return {
      date: r.payment_date,
      kind: 'payday',
      id: r.id,
      subjectId: r.id,
      title: `Pay day: ${r.pay_frequency} pay run ${r.id} (${r.status}) for ${r.period_start} to ${r.period_end}, net ${formatCents(net)}${todo}`,
      amountCents: net,
      status: r.status,
      ledgerId: r.ledger_id,
    };
  });
}
