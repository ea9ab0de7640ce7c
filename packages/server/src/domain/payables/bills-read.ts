import type { payables } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { owedOnDocuments } from '../gl/post.js';
import { checkContactFilter, containsPattern, pageOfDocuments } from '../paging.js';
import { loadBillLines } from './bill-lines.js';
import { BILL_COLUMNS, OPEN, payeeKey, toBill, type BillRow } from './bills.js';
import { PAYABLES_ACCOUNT } from './ledger-api.js';
import { filesOf, withFiles } from '../attachments/store.js';

/**
 * books.bills: bills oldest first (ids are time-ordered), filtered, paged by id. outstandingCents
 * is what is still to pay: the ledger's balance once the bill is posted (approval), the total
 * while it awaits approval, and 0 once returned.
 */
type Params = z.infer<typeof payables.bills.params>;

export async function listBills(p: Params, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  await checkContactFilter(ctx.db.reader, orgId, p.contactId);
  const { rows: page, nextCursor } = await pageOfDocuments<BillRow>(
    ctx.db.reader,
    orgId,
    { table: 'bills', noun: 'bill', columns: BILL_COLUMNS },
    [
      ['status = ?', p.status],
      ["payee_key LIKE ? ESCAPE '!'", p.payeeName === undefined ? undefined : containsPattern(payeeKey(p.payeeName))],
      ['contact_id = ?', p.contactId],
      ['due_on < ?', p.dueBefore],
    ],
    p,
  );
  const ids = page.map((r) => r.id);
  const [lines, owed, files] = await Promise.all([
    loadBillLines(ctx.db.reader, orgId, ids),
    owedOnDocuments(ctx.db.reader, orgId, PAYABLES_ACCOUNT, 'credit', ids),
    filesOf(ctx.db.reader, orgId, 'bill', ids),
  ]);
  const bills = page.map((r) => {
    const unposted = OPEN.includes(r.status) ? Number(r.total_cents) : 0;
    const outstanding = r.journal_id !== null ? (owed.get(r.id) ?? 0) : unposted;
    return withFiles({ ...toBill(r, lines.get(r.id) ?? []), outstandingCents: outstanding }, files.get(r.id));
  });
  return { bills, nextCursor };
}
