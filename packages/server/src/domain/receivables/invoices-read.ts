import { limits, type receivables } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { owedOnDocuments } from '../gl/post.js';
import { checkCursor, containsPattern } from '../paging.js';
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
  const limit = p.limit ?? limits.pageRowsDefault;
  const where = ['org_id = ?'];
  const args: string[] = [orgId];
  const filter = (sql: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(sql);
    args.push(value);
  };
  filter('status = ?', p.status);
  filter("LOWER(payee_name) LIKE ? ESCAPE '!'", p.payeeName === undefined ? undefined : containsPattern(p.payeeName.toLowerCase()));
  filter('due_on < ?', p.dueBefore);
  await checkCursor(ctx.db.reader, orgId, 'invoices', 'invoice', p.cursor);
  filter('id > ?', p.cursor);
  const rows = await ctx.db.reader.all<InvoiceRow>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE ${where.join(' AND ')} ORDER BY id LIMIT ${limit + 1}`,
    args,
  );
  const page = rows.slice(0, limit);
  const ids = page.map((r) => r.id);
  const [lines, owed] = await Promise.all([
    loadSaleLines(ctx.db.reader, orgId, ids),
    owedOnDocuments(ctx.db.reader, orgId, RECEIVABLES_ACCOUNT, 'debit', ids),
  ]);
  const invoices = page.map((r) => toInvoice(r, lines.get(r.id) ?? [], outstandingOffLedger(r) ?? owed.get(r.id) ?? 0));
  return { invoices, nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}
