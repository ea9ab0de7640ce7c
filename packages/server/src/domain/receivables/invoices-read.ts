import type { receivables } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { owedOnDocuments } from '../gl/post.js';
import { searchKey } from '../search-key.js';
import { checkContactFilter, containsPattern, pageOfDocuments } from '../paging.js';
import { loadSaleLines } from './invoice-lines.js';
import { INVOICE_COLUMNS, outstandingOffLedger, toInvoice, type InvoiceRow } from './invoices.js';
import { RECEIVABLES_ACCOUNT } from './ledger-api.js';

/**
 * books.invoices: invoices oldest first (ids are time-ordered), filtered, paged by id, each with
 * its lines and outstandingCents (as invoices.ts outstandingOf, for a page at once).
 */
type Params = z.infer<typeof receivables.invoices.params>;

export async function listInvoices(p: Params, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  await checkContactFilter(ctx.db.reader, orgId, p.contactId);
  const { rows: page, nextCursor } = await pageOfDocuments<InvoiceRow>(
    ctx.db.reader,
    orgId,
    { table: 'invoices', noun: 'invoice', columns: INVOICE_COLUMNS },
    [
      ['status = ?', p.status],
      // A key normalised in TypeScript, not SQL LOWER (which folds only ASCII on SQLite): issue 8 item 15.
      ["payee_search LIKE ? ESCAPE '!'", p.payeeName === undefined ? undefined : containsPattern(searchKey(p.payeeName))],
      ['contact_id = ?', p.contactId],
      ['due_on < ?', p.dueBefore],
      // Issue 12: the invoice number, exact (unique per organisation, so at most one).
      ['number = ?', p.number],
    ],
    p,
  );
  const ids = page.map((r) => r.id);
  const [lines, owed] = await Promise.all([
    loadSaleLines(ctx.db.reader, orgId, ids),
    owedOnDocuments(ctx.db.reader, orgId, RECEIVABLES_ACCOUNT, 'debit', ids),
  ]);
  const invoices = page.map((r) => toInvoice(r, lines.get(r.id) ?? [], outstandingOffLedger(r) ?? owed.get(r.id) ?? 0));
  return { invoices, nextCursor };
}
