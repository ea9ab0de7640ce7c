import { limits, type payables } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { owedOnDocuments } from '../gl/post.js';
import { checkCursor, containsPattern } from '../paging.js';
import { loadBillLines } from './bill-lines.js';
import { BILL_COLUMNS, OPEN, payeeKey, toBill, type BillRow } from './bills.js';
import { PAYABLES_ACCOUNT } from './ledger-api.js';

/**
 * books.bills: bills oldest first (ids are time-ordered), filtered, paged by id. outstandingCents
 * is what is still to pay: the ledger's balance once the bill is posted (approval), the total
 * while it awaits approval, and 0 once returned.
 */
type Params = z.infer<typeof payables.bills.params>;


export async function listBills(p: Params, ctx: ReadContext) {
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
  filter("payee_key LIKE ? ESCAPE '!'", p.payeeName === undefined ? undefined : containsPattern(payeeKey(p.payeeName)));
  filter('due_on < ?', p.dueBefore);
  await checkCursor(ctx.db.reader, orgId, 'bills', 'bill', p.cursor);
  filter('id > ?', p.cursor);
  const rows = await ctx.db.reader.all<BillRow>(
    `SELECT ${BILL_COLUMNS} FROM bills WHERE ${where.join(' AND ')} ORDER BY id LIMIT ${limit + 1}`,
    args,
  );
  const page = rows.slice(0, limit);
  const ids = page.map((r) => r.id);
  const [lines, owed] = await Promise.all([
    loadBillLines(ctx.db.reader, orgId, ids),
    owedOnDocuments(ctx.db.reader, orgId, PAYABLES_ACCOUNT, 'credit', ids),
  ]);
  const bills = page.map((r) => {
    const unposted = OPEN.includes(r.status) ? Number(r.total_cents) : 0;
    const outstanding = r.journal_id !== null ? (owed.get(r.id) ?? 0) : unposted;
    return { ...toBill(r, lines.get(r.id) ?? []), outstandingCents: outstanding };
  });
  return { bills, nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}
