import { currencies, type TaxCode } from '@finance-desk/protocol';
import { shareByLargestRemainder } from '../receivables/invoice-lines.js';
import { DomainError } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { trackingFields, type PostingLine } from '../gl/post.js';
import { checkAudBound, isForeign, resolveRate, toAud } from './rates.js';

/**
 * Figures of a document in another currency (invoices and bills alike): the ledger holds AUD, the
 * total and the GST each converted once at the document's rate (half up), and the lines' net
 * amounts shares of what is left by largest remainder, so a journal balances to the cent.
 */

/** What a foreign row carries beside an AUD one (NULL on AUD rows). */
export interface ForeignColumns {
  readonly currency: string | null;
  readonly exchange_rate_micros: number | null;
  readonly aud_total_cents: number | null;
  readonly aud_gst_cents: number | null;
}

/** The AUD total and GST of a document in another currency at `rateMicros`. */
export function audFigures(totalCents: number, gstCents: number, rateMicros: number) {
  return { audTotalCents: toAud(totalCents, rateMicros), audGstCents: toAud(gstCents, rateMicros) };
}

/**
 * Each line's AUD GST and net: GST shares of the AUD GST in proportion to the lines' own GST,
 * net shares of (AUD total − AUD GST) in proportion to the lines' net, each by largest remainder
 * so both sum exactly.
 */
export function audLines(lines: readonly { amountCents: number; gstCents: number }[], audTotalCents: number, audGstCents: number) {
  const gst = lines.some((l) => l.gstCents > 0)
    ? shareByLargestRemainder(
        audGstCents,
        lines.map((l) => l.gstCents),
      )
    : lines.map(() => 0);
  const nets = lines.map((l) => l.amountCents - l.gstCents);
  const net = nets.some((n) => n > 0) ? shareByLargestRemainder(audTotalCents - audGstCents, nets) : lines.map(() => 0);
  return lines.map((_, i) => ({ gstCents: gst[i] ?? 0, netCents: net[i] ?? 0 }));
}

/** A document line as the AUD posting needs it (sale and purchase lines alike). */
export interface TaggedLine {
  readonly accountCode: string;
  readonly taxCode: TaxCode;
  readonly description: string;
  readonly amountCents: number;
  readonly gstCents: number;
  readonly trackingIds?: Parameters<typeof trackingFields>[0];
}

/**
 * The lines' part of a foreign document's AUD posting: each line's account with its share of the
 * AUD net (audLines), tagged with the AUD base and GST the BAS reads (`sign` -1 reverses the tags),
 * on the side `side` gives a line (a sale's lines are credits, a purchase's debits).
 */
export function audTaggedLines(
  lines: readonly TaggedLine[],
  audTotalCents: number,
  audGstCents: number,
  sign: 1 | -1,
  side: (cents: number) => { debitCents: number } | { creditCents: number },
): PostingLine[] {
  const shares = audLines(lines, audTotalCents, audGstCents);
  return lines.map((l, i) => {
    const s = shares[i] ?? { gstCents: 0, netCents: 0 };
    return {
      account: l.accountCode,
      ...side(s.netCents),
      taxCode: l.taxCode,
      taxBaseCents: sign * (s.netCents + s.gstCents),
      gstCents: sign * s.gstCents,
      description: l.description,
      ...trackingFields(l.trackingIds),
    };
  });
}

/** A document's read fields for its currency: none on an AUD one; audOutstandingCents when given. */
export function foreignView(row: ForeignColumns, audOutstandingCents?: number) {
  if (!isForeign(row.currency) || row.exchange_rate_micros === null) return {};
  return {
    currency: row.currency,
    exchangeRate: currencies.rateString(Number(row.exchange_rate_micros)),
    audTotalCents: Number(row.aud_total_cents),
    audGstCents: Number(row.aud_gst_cents),
    ...(audOutstandingCents !== undefined ? { audOutstandingCents } : {}),
  };
}

/** A foreign document's currency, rate and AUD figures as its row keeps them. */
export interface ForeignDocument {
  readonly currency: string;
  readonly micros: number;
  readonly audTotalCents: number;
  readonly audGstCents: number;
}

/**
 * A new document's currency: null for AUD; else its rate, fixed now (given, or the table's on
 * `date`), and the AUD total and GST it posts. An AUD value past the books' bound is BAD_REQUEST
 * naming totalCents.
 */
export async function foreignDocument(
  uow: Uow,
  p: { readonly currency?: string | undefined; readonly exchangeRate?: string | undefined },
  date: string,
  totalCents: number,
  gstCents: number,
): Promise<ForeignDocument | null> {
  if (!isForeign(p.currency)) return null;
  const rate = await resolveRate(uow, p.currency, date, p.exchangeRate);
  const aud = audFigures(totalCents, gstCents, rate.micros);
  checkAudBound(aud.audTotalCents, 'totalCents');
  // Nothing to post: the journal would have no lines.
  if (aud.audTotalCents === 0) {
    throw new DomainError(
      'BAD_REQUEST',
      `totalCents: ${totalCents} ${p.currency} cents is less than one AUD cent at ${currencies.rateString(rate.micros)}`,
      {
        field: 'totalCents',
      },
    );
  }
  return { currency: p.currency, micros: rate.micros, ...aud };
}

/** The row's columns of a foreign document (all NULL for AUD). */
export function foreignColumns(fx: ForeignDocument | null): ForeignColumns {
  return {
    currency: fx?.currency ?? null,
    exchange_rate_micros: fx?.micros ?? null,
    aud_total_cents: fx?.audTotalCents ?? null,
    aud_gst_cents: fx?.audGstCents ?? null,
  };
}

/** The event fields of a foreign document (none for AUD). */
export function foreignPayload(row: ForeignColumns) {
  if (!isForeign(row.currency) || row.exchange_rate_micros === null) return {};
  return {
    currency: row.currency,
    exchangeRate: currencies.rateString(Number(row.exchange_rate_micros)),
    audTotalCents: Number(row.aud_total_cents),
    audGstCents: Number(row.aud_gst_cents),
  };
}
