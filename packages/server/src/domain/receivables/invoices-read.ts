import { currencies, type receivables } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { DomainError } from '../../errors.js';
import { owedOnDocuments } from '../gl/post.js';
import { searchKey } from '../search-key.js';
import { checkContactFilter, containsPattern, pageOfDocuments } from '../paging.js';
import { loadSaleLines } from './invoice-lines.js';
import { audOutstandingOf, INVOICE_COLUMNS, outstandingOf, outstandingOffLedger, toInvoice, type InvoiceRow } from './invoices.js';
import { foreignPaid } from './foreign.js';
import { isForeign } from '../currencies/rates.js';
import { RECEIVABLES_ACCOUNT } from './ledger-api.js';
import { filesOf, withFiles } from '../attachments/store.js';

/**
 * books.invoices: invoices oldest first (ids are time-ordered), filtered, paged by id, each with
 * its lines and outstandingCents (as invoices.ts outstandingOf, for a page at once).
 */
type Params = z.infer<typeof receivables.invoices.params>;
type OneParams = z.infer<typeof receivables.invoiceRead.params>;

export async function listInvoices(p: Params, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  await checkContactFilter(ctx.db.reader, orgId, p.contactId);
  const { rows: page, nextCursor } = await pageOfDocuments<InvoiceRow>(
    ctx.db.reader,
    orgId,
    { table: 'invoices', noun: 'invoice', columns: INVOICE_COLUMNS },
    [
      ['status = ?', p.status],
      // A key normalised in TypeScript, not SQL LOWER (which folds only ASCII on SQLite).
      ["payee_search LIKE ? ESCAPE '!'", p.payeeName === undefined ? undefined : containsPattern(searchKey(p.payeeName))],
      ['contact_id = ?', p.contactId],
      ['due_on < ?', p.dueBefore],
      // The invoice number, exact (unique per organisation, so at most one).
      ['number = ?', p.number],
    ],
    p,
  );
  const ids = page.map((r) => r.id);
  const foreign = page.filter((r) => isForeign(r.currency)).map((r) => r.id);
  const [lines, owed, paid, files] = await Promise.all([
    loadSaleLines(ctx.db.reader, orgId, ids),
    owedOnDocuments(ctx.db.reader, orgId, RECEIVABLES_ACCOUNT, 'debit', ids),
    foreignPaid(ctx.db.reader, orgId, foreign),
    filesOf(ctx.db.reader, orgId, 'invoice', ids),
  ]);
  const invoices = page.map((r) => {
    const aud = r.status === 'void' ? 0 : (owed.get(r.id) ?? 0);
    // A foreign invoice owes its total less its standing payments, in its currency (foreign.ts).
    const outstanding = outstandingOffLedger(r) ?? (isForeign(r.currency) ? Number(r.total_cents) - (paid.get(r.id) ?? 0) : aud);
    return withFiles(toInvoice(r, lines.get(r.id) ?? [], outstanding, aud), files.get(r.id));
  });
  return { invoices, nextCursor };
}

interface PaymentRow {
  id: string;
  amount_cents: number;
  paid_on: string;
  reference: string;
  journal_id: string;
  reversed_on: string | null;
  reversal_kind: string | null;
  match_id: string | null;
  line_id: string | null;
  exchange_rate_micros: number | null;
  aud_amount_cents: number | null;
  aud_settled_cents: number | null;
}

function reversalOf(kind: string | null): 'dishonoured' | 'unmatched' | null {
  return kind === 'dishonoured' || kind === 'unmatched' ? kind : null;
}

/**
 * books.invoice: one invoice as books.invoices lists it, with every payment received against it.
 * A payment matched from a bank line shows the match that recorded it (the match's journal is the
 * payment's), so a caller holding either id finds the other; books.invoicePaymentDishonour takes
 * both. Only matches to the invoice itself are joined: a match to a journal (a payment recorded
 * directly, reconciled later) names that journal, not a payment of its own.
 */
export async function readInvoice(p: OneParams, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  const row = await ctx.db.reader.get<InvoiceRow>(`SELECT ${INVOICE_COLUMNS} FROM invoices WHERE org_id = ? AND id = ?`, [orgId, p.id]);
  if (!row) throw new DomainError('NOT_FOUND', `invoice ${p.id} not found`, { field: 'id' });
  const [lines, outstanding, audOutstanding, payments, files] = await Promise.all([
    loadSaleLines(ctx.db.reader, orgId, [row.id]),
    outstandingOf(ctx.db.reader, orgId, row),
    audOutstandingOf(ctx.db.reader, orgId, row),
    ctx.db.reader.all<PaymentRow>(
      `SELECT p.id, p.amount_cents, p.paid_on, p.reference, p.journal_id, p.reversed_on, p.reversal_kind, m.id AS match_id, m.line_id,
              p.exchange_rate_micros, p.aud_amount_cents, p.aud_settled_cents
         FROM invoice_payments p
         LEFT JOIN bank_feed_matches m ON m.org_id = p.org_id AND m.journal_id = p.journal_id AND m.target_kind = 'invoice' AND m.target_id = p.invoice_id
        WHERE p.org_id = ? AND p.invoice_id = ?
        ORDER BY p.paid_on, p.created_at, p.id`,
      [orgId, row.id],
    ),
    filesOf(ctx.db.reader, orgId, 'invoice', [row.id]),
  ]);
  return {
    ...withFiles(toInvoice(row, lines.get(row.id) ?? [], outstanding, audOutstanding), files.get(row.id)),
    payments: payments.map((x) => ({
      paymentId: x.id,
      date: x.paid_on,
      amountCents: Number(x.amount_cents),
      reference: x.reference,
      matchId: x.match_id,
      lineId: x.line_id,
      journalId: x.journal_id,
      reversed: reversalOf(x.reversal_kind),
      reversedOn: x.reversed_on,
      // A foreign invoice's payment: amountCents is in its currency; its rate and AUD figures.
      ...(x.exchange_rate_micros !== null
        ? {
            exchangeRate: currencies.rateString(Number(x.exchange_rate_micros)),
            audAmountCents: Number(x.aud_amount_cents),
            audSettledCents: Number(x.aud_settled_cents),
          }
        : {}),
    })),
  };
}
