import { badRequest, conflict, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { accountExists, byThenId, openDocumentRowsAsOf, owedOnDocuments, postJournal, rowsOfDocuments } from '../gl/post.js';
import type { OpenItem } from '../gl/open-items.js';
import { refuseForeign } from './foreign.js';
import { receivables } from '@finance-desk/protocol';

/**
 * What other areas (reconciliation, reports) use of receivables. These functions never emit an
 * event: the caller's act reserves a journal id, applies the payment before its one event (write
 * path; the event binds the journal's lines), then records it with the event's ledgerId, so the
 * payment journal points at the caller's event.
 */
export const RECEIVABLES_ACCOUNT = '1100';

/** Statuses that can take a payment or a credit note: posted and not yet settled. */
export const OPEN_STATUSES: readonly string[] = ['sent', 'part_paid'];

/** What is still owed to us on one invoice (debit-positive), over every posting to date. */
export async function outstandingOn(q: Queryable, orgId: string, invoiceId: string): Promise<number> {
  return (await owedOnDocuments(q, orgId, RECEIVABLES_ACCOUNT, 'debit', [invoiceId])).get(invoiceId) ?? 0;
}

interface OpenInvoiceRow {
  id: string;
  number: string | null;
  reference: string | null;
  payee_name: string;
  issued_on: string;
  due_on: string;
  total_cents: number;
}

/** The words a customer's payment may quote for an invoice: its number, its reference. */
export function quotedOf(...words: readonly (string | null)[]): string[] {
  return words.filter((w): w is string => w !== null && w.trim() !== '');
}

/**
 * Invoices owed to us as at `asOf` (aged receivables, match suggestions, statements): every
 * posted invoice whose lines on 1100 Accounts receivable dated on or before `asOf` leave
 * something owed, oldest due first. The ledger decides, not the status, so an invoice paid after
 * `asOf` is still open as at `asOf`.
 */
export async function openInvoicesAsOf(q: Queryable, orgId: string, asOf: string): Promise<OpenItem[]> {
  return invoiceItems(await openDocumentRowsAsOf<OpenInvoiceRow>(q, orgId, RECEIVABLES_ACCOUNT, asOf, INVOICE_DOCUMENTS));
}

/** Posted invoices, for openDocumentRowsAsOf. */
const INVOICE_DOCUMENTS = {
  from: 'invoices d',
  columns:
    'd.id AS id, d.number AS number, d.reference AS reference, d.payee_name AS payee_name, d.issued_on AS issued_on, d.due_on AS due_on, d.total_cents AS total_cents',
  where: 'd.journal_id IS NOT NULL',
  params: [],
};

/** The same items for documents whose balances (debit-positive, as documentBalances gives them) are known: match suggestions look up only some. */
export async function openInvoicesOf(q: Queryable, orgId: string, balances: ReadonlyMap<string, number>): Promise<OpenItem[]> {
  if (balances.size === 0) return [];
  const rows = await rowsOfDocuments<OpenInvoiceRow>(
    q,
    (list) => `SELECT id, number, reference, payee_name, issued_on, due_on, total_cents FROM invoices
     WHERE org_id = ? AND journal_id IS NOT NULL AND id IN (${list})`,
    [orgId],
    balances.keys(),
  );
  return invoiceItems(rows.map((row) => ({ row, balance: balances.get(row.id) ?? 0 })));
}

/** Open items of invoice rows with their balances (debit-positive), oldest due first; nothing owed, none. */
function invoiceItems(rows: readonly { row: OpenInvoiceRow; balance: number }[]): OpenItem[] {
  const out: OpenItem[] = [];
  for (const { row: r, balance: owed } of [...rows].sort((a, b) => byDueThenId(a.row, b.row))) {
    if (owed <= 0) continue;
    out.push({
      id: r.id,
      kind: 'invoice',
      party: r.payee_name,
      reference: r.id,
      quoted: quotedOf(r.number, r.reference),
      issuedOn: r.issued_on,
      postedOn: r.issued_on,
      dueOn: r.due_on,
      totalCents: Number(r.total_cents),
      outstandingCents: owed,
    });
  }
  return out;
}

const byDueThenId = byThenId<OpenInvoiceRow>((r) => r.due_on);

export interface InvoicePayment {
  readonly invoiceId: string;
  readonly amountCents: number;
  readonly date: string;
  readonly reference: string;
  readonly journalId: string;
  /** The bank account the money arrived in; default 1000. */
  readonly bankAccount?: string;
  /**
   * The customer credit that keeps what is received beyond what is outstanding (Cr 1100 under
   * its id, in the payment's journal); without it an overpayment is refused.
   */
  readonly excessCreditId?: string;
}

interface PayableInvoiceRow {
  id: string;
  currency: string | null;
  status: string;
  payee_name: string;
  issued_on: string | null;
  journal_id: string | null;
}

/** State and date checks shared by payments; throws the refusal a caller shows as is. */
async function loadForPayment(uow: Uow, p: InvoicePayment): Promise<PayableInvoiceRow & { issued_on: string }> {
  const row = await uow.tx.get<PayableInvoiceRow>(
    `SELECT id, status, payee_name, issued_on, journal_id, currency FROM invoices WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, p.invoiceId],
  );
  if (!row) throw notFound('invoice', p.invoiceId);
  // A bank line is AUD: matching it would settle foreign cents with AUD ones.
  refuseForeign(
    'invoice',
    row,
    'matching a bank line',
    `record the payment with ${receivables.invoiceRecordPayment.name} (amountCents in its currency)`,
  );
  if (!OPEN_STATUSES.includes(row.status)) {
    throw conflict(`invoice ${row.id} is ${row.status}; only a sent or part_paid invoice can take a payment`);
  }
  if (row.journal_id === null || row.issued_on === null) {
    throw conflict(`invoice ${row.id} was sent before invoices were posted to the ledger; it has nothing receivable to pay`);
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(p.date)) throw badRequest('date: must be a date YYYY-MM-DD');
  if (p.date < row.issued_on) throw badRequest(`date: ${p.date} is before invoice ${row.id} was issued (${row.issued_on})`);
  if (p.date > uow.today) throw badRequest(`date: ${p.date} is in the future; record a payment once it is received`);
  return { ...row, issued_on: row.issued_on };
}

/**
 * Apply money received against an invoice, in full or in part: Dr bank (1000 unless
 * `bankAccount`) / Cr 1100 Accounts receivable (docId = invoice id), dated `date`. The invoice
 * becomes part_paid, or paid when nothing is left owing; when its status moves, its ledgerId
 * becomes the caller's event. Called before that event, which binds the journal's lines: `record`
 * keeps the payment and the invoice's status once the event has its ledgerId.
 * BAD_REQUEST naming amountCents when it would overpay (with what is outstanding), CONFLICT when
 * the invoice is not sent/part_paid (naming its state), NOT_FOUND when not this organisation's.
 */
export async function applyInvoicePayment(
  uow: Uow,
  p: InvoicePayment,
): Promise<{
  paymentId: string;
  status: 'paid' | 'part_paid';
  outstandingCents: number;
  /** What went beyond the outstanding amount to the excess credit (0 without one). */
  excessCents: number;
  record: (ledgerId: string) => Promise<void>;
}> {
  if (!Number.isSafeInteger(p.amountCents) || p.amountCents <= 0) {
    throw badRequest('amountCents: must be an integer greater than 0');
  }
  const invoice = await loadForPayment(uow, p);
  const bank = p.bankAccount ?? '1000';
  if (!(await accountExists(uow.tx, uow.orgId, bank))) throw badRequest(`bankAccount: account ${bank} does not exist`);
  const owed = await outstandingOn(uow.tx, uow.orgId, invoice.id);
  if (p.amountCents > owed && p.excessCreditId === undefined) {
    throw badRequest(`amountCents: ${p.amountCents} is more than the ${owed} cents outstanding on invoice ${invoice.id}`);
  }
  // What pays the invoice; the rest (with excessCreditId) is the customer's credit.
  const applied = Math.min(p.amountCents, owed);
  const excess = p.amountCents - applied;
  const paymentId = newId('pay');
  const memo = `Payment ${paymentId} of invoice ${invoice.id} from ${invoice.payee_name}${p.reference ? ` (${p.reference})` : ''}`;
  await postJournal(uow, {
    id: p.journalId,
    date: p.date,
    memo,
    source: { kind: 'invoice_payment', id: invoice.id },
    lines: [
      { account: bank, debitCents: p.amountCents, description: memo },
      { account: RECEIVABLES_ACCOUNT, creditCents: applied, docId: invoice.id, description: memo },
      ...(excess > 0 && p.excessCreditId !== undefined
        ? [
            {
              account: RECEIVABLES_ACCOUNT,
              creditCents: excess,
              docId: p.excessCreditId,
              description: `Overpayment kept as credit ${p.excessCreditId}`,
            },
          ]
        : []),
    ],
  });
  const left = owed - applied;
  invariant(left >= 0, `invoice ${invoice.id} is not overpaid`);
  const status = left === 0 ? 'paid' : 'part_paid';
  const record = async (ledgerId: string) => {
    await uow.tx.run(
      `INSERT INTO invoice_payments (org_id, id, invoice_id, amount_cents, paid_on, reference, journal_id, created_at, ledger_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [uow.orgId, paymentId, invoice.id, applied, p.date, p.reference, p.journalId, uow.now, ledgerId],
    );
    // ledger_id is the event that moved the invoice into its status (a repeat is a no-op), so only a move sets it.
    if (status !== invoice.status) {
      await uow.tx.run('UPDATE invoices SET status = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [
        status,
        ledgerId,
        uow.orgId,
        invoice.id,
      ]);
    }
  };
  return { paymentId, status, outstandingCents: left, excessCents: excess, record };
}
