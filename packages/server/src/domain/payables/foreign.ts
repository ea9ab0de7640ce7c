import { placeholders } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';
import { audTaggedLines, type ForeignColumns } from '../currencies/convert.js';
import { isForeign } from '../currencies/rates.js';
import type { PostingLine } from '../gl/post.js';
import { purchasePosting, type PurchaseLine } from './bill-lines.js';

/**
 * Bills in a currency other than AUD. Approval posts the AUD figures (purchasePosting's shape):
 * each line Dr its share of (AUD total − AUD GST) by largest remainder, Dr 1200 the AUD GST,
 * Cr 2000 the AUD total. What is outstanding in the bill's currency is its total less its
 * standing payments (bill_fx_payments, fx-payment.ts); the AUD carried is the ledger's balance on
 * 2000 for the bill.
 */
export function billPosting(
  row: ForeignColumns & { readonly id: string },
  lines: readonly PurchaseLine[],
  sign: 1 | -1 = 1,
): PostingLine[] {
  if (!isForeign(row.currency)) return purchasePosting({ id: row.id, control: { key: 'payables' } }, lines, sign);
  const audTotal = Number(row.aud_total_cents);
  const audGst = Number(row.aud_gst_cents);
  const side = (cents: number, debit: boolean) => ((debit ? sign === 1 : sign === -1) ? { debitCents: cents } : { creditCents: cents });
  return [
    ...audTaggedLines(lines, audTotal, audGst, sign, (cents) => side(cents, true)),
    { account: { key: 'gst_paid' }, ...side(audGst, true), description: `GST on ${row.id}` },
    { account: { key: 'payables' }, ...side(audTotal, false), docId: row.id, description: `Bill ${row.id} (${row.currency})` },
  ];
}

/** Payments of each foreign bill, in its currency. */
export async function foreignBillPaid(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (ids.length === 0) return out;
  const rows = await q.all<{ bill_id: string; s: number | null }>(
    `SELECT bill_id, SUM(amount_cents) AS s FROM bill_fx_payments WHERE org_id = ? AND bill_id IN (${placeholders(ids.length)}) GROUP BY bill_id`,
    [orgId, ...ids],
  );
  for (const r of rows) out.set(r.bill_id, Number(r.s ?? 0));
  return out;
}
