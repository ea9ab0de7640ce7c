import type { payables } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { owedOnDocuments } from '../gl/post.js';
import { checkContactFilter, containsPattern, pageOfDocuments } from '../paging.js';
import { loadBillLines } from './bill-lines.js';
import { BILL_COLUMNS, OPEN, payeeKey, toBill, type BillRow } from './bills.js';
import { PAYABLES_ACCOUNT } from './ledger-api.js';
import { foreignBillPaid } from './foreign.js';
import { isForeign } from '../currencies/rates.js';
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
  const foreign = page.filter((r) => isForeign(r.currency)).map((r) => r.id);
  const [lines, owed, paid, files] = await Promise.all([
    loadBillLines(ctx.db.reader, orgId, ids),
    owedOnDocuments(ctx.db.reader, orgId, PAYABLES_ACCOUNT, 'credit', ids),
    foreignBillPaid(ctx.db.reader, orgId, foreign),
    filesOf(ctx.db.reader, orgId, 'bill', ids),
  ]);
  const bills = page.map((r) => {
    const unposted = OPEN.includes(r.status) ? Number(r.total_cents) : 0;
    const aud = owed.get(r.id) ?? 0;
    // A foreign bill owes its total less its payments, in its currency; the ledger carries AUD.
    const posted = isForeign(r.currency) ? (r.status === 'returned' ? 0 : Number(r.total_cents) - (paid.get(r.id) ?? 0)) : aud;
    const outstanding = r.journal_id !== null ? posted : unposted;
    const audOutstanding = r.journal_id !== null ? aud : OPEN.includes(r.status) ? Number(r.aud_total_cents ?? 0) : 0;
    return withFiles({ ...toBill(r, lines.get(r.id) ?? [], audOutstanding), outstandingCents: outstanding }, files.get(r.id));
  });
  return { bills, nextCursor };
}
