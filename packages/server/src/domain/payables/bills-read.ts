import { limits, type payables, type TaxCode } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { allocateGst, type PurchaseLine } from './bill-lines.js';
import { BILL_COLUMNS, payeeKey, toBill, type BillRow } from './bills.js';
import { PAYABLES_ACCOUNT } from './ledger-api.js';
import { owedOnDocuments } from './settle.js';

/**
 * books.bills: bills oldest first (ids are time-ordered), filtered, paged by id. outstandingCents
 * is what is still to pay: the ledger's balance once the bill is posted (approval), the total
 * while it awaits approval, and 0 once returned.
 */
type Params = z.infer<typeof payables.bills.params>;

const NOT_YET_POSTED = new Set(['captured', 'held', 'on_hold']);

/** LIKE pattern for a substring of the payee key, with LIKE's wildcards escaped by `!`. */
function containsPattern(name: string): string {
  return `%${payeeKey(name).replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

async function linesOf(ctx: ReadContext, orgId: string, ids: readonly string[]): Promise<Map<string, PurchaseLine[]>> {
  const out = new Map<string, PurchaseLine[]>();
  if (ids.length === 0) return out;
  type LineRow = { bill_id: string; description: string; amount_cents: number; tax_code: TaxCode; account_code: string };
  const rows = await ctx.db.reader.all<LineRow>(
    `SELECT bill_id, description, amount_cents, tax_code, account_code FROM bill_lines
     WHERE org_id = ? AND bill_id IN (${ids.map(() => '?').join(', ')}) ORDER BY bill_id, line_no`,
    [orgId, ...ids],
  );
  const base = new Map<string, { description: string; amountCents: number; taxCode: TaxCode; accountCode: string }[]>();
  for (const r of rows) {
    const list = base.get(r.bill_id) ?? [];
    list.push({ description: r.description, amountCents: Number(r.amount_cents), taxCode: r.tax_code, accountCode: r.account_code });
    base.set(r.bill_id, list);
  }
  for (const [id, list] of base) {
    const gst = allocateGst(list);
    out.set(id, list.map((l, i) => ({ ...l, gstCents: gst[i] ?? 0 })));
  }
  return out;
}

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
  filter("payee_key LIKE ? ESCAPE '!'", p.payeeName === undefined ? undefined : containsPattern(p.payeeName));
  filter('due_on < ?', p.dueBefore);
  filter('id > ?', p.cursor);
  const rows = await ctx.db.reader.all<BillRow>(
    `SELECT ${BILL_COLUMNS} FROM bills WHERE ${where.join(' AND ')} ORDER BY id LIMIT ${limit + 1}`,
    args,
  );
  const page = rows.slice(0, limit);
  const ids = page.map((r) => r.id);
  const [lines, owed] = await Promise.all([
    linesOf(ctx, orgId, ids),
    owedOnDocuments(ctx.db.reader, orgId, PAYABLES_ACCOUNT, ids),
  ]);
  const bills = page.map((r) => {
    const unposted = NOT_YET_POSTED.has(r.status) ? Number(r.total_cents) : 0;
    const outstanding = r.journal_id !== null ? (owed.get(r.id) ?? 0) : unposted;
    return { ...toBill(r, lines.get(r.id) ?? []), outstandingCents: outstanding };
  });
  return { bills, nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}
