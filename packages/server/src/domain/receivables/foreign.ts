import { conflict } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { isForeign } from '../currencies/rates.js';
import { audTaggedLines, type ForeignColumns } from '../currencies/convert.js';
import type { PostingLine } from '../gl/post.js';
import { placeholders } from '../../storage/sql.js';
import { salePosting, type SaleLine } from './invoice-lines.js';

/**
 * Invoices in a currency other than AUD. The document's amounts stay in its currency; the ledger
 * holds AUD: the total and the GST are each converted once at the invoice's rate (half up), and
 * the lines' net amounts are shares of what is left by largest remainder, so the issue journal
 * balances to the cent and the BAS reads the AUD tags. What is outstanding in the currency is the
 * total less its standing payments (each keeps its foreign amount); the AUD carried is the
 * ledger's balance on 1100 for the invoice, as for any invoice.
 */

/**
 * The issue posting of an invoice (salePosting's shape) in AUD: Dr 1100 the AUD total, Cr each
 * line's account its AUD net (tags: AUD base and GST), Cr 2100 the AUD GST. An AUD invoice posts
 * as before. `sign` -1 reverses it (a void).
 */
export function issuePosting(row: ForeignColumns, docId: string, lines: readonly SaleLine[], sign: 1 | -1 = 1): PostingLine[] {
  if (!isForeign(row.currency)) return salePosting(docId, lines, sign);
  const audTotal = Number(row.aud_total_cents);
  const audGst = Number(row.aud_gst_cents);
  const side = (cents: number, credit: boolean) => ((credit ? sign === 1 : sign === -1) ? { creditCents: cents } : { debitCents: cents });
  return [
    { account: { key: 'receivables' }, ...side(audTotal, false), docId, description: `Invoice ${docId} (${row.currency})` },
    ...audTaggedLines(lines, audTotal, audGst, sign, (cents) => side(cents, true)),
    { account: { key: 'gst_collected' }, ...side(audGst, true), description: `GST on ${docId}` },
  ];
}

/** Standing (not reversed) payments of each foreign invoice, in its currency. */
export async function foreignPaid(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (ids.length === 0) return out;
  const rows = await q.all<{ invoice_id: string; s: number | null }>(
    `SELECT invoice_id, SUM(amount_cents) AS s FROM invoice_payments
     WHERE org_id = ? AND invoice_id IN (${placeholders(ids.length)}) AND reversed_on IS NULL GROUP BY invoice_id`,
    [orgId, ...ids],
  );
  for (const r of rows) out.set(r.invoice_id, Number(r.s ?? 0));
  return out;
}

/**
 * CONFLICT for what this service does not do with a document in another currency (credit notes,
 * write-offs, excess credit, bank-line matches, payment runs): refused, naming the currency and
 * what to do, rather than computing AUD figures the document does not have.
 */
export function refuseForeign(
  kind: 'invoice' | 'bill',
  row: { readonly id: string; readonly currency: string | null },
  what: string,
  instead: string,
): void {
  if (!isForeign(row.currency)) return;
  throw conflict(`${kind} ${row.id} is in ${row.currency}: ${what} is for AUD ${kind}s only; ${instead}`);
}
