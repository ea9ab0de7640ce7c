import { z } from 'zod';
import { isoDate, method } from './index-fields.js';
import type { MethodSpec } from './types.js';

/**
 * Other currencies (an extension beyond the core contract): the owner keeps a table of exchange
 * rates (AUD per one unit of a currency, by date; no network source), and invoices and bills may
 * be in a currency other than AUD. The ledger stays in AUD: a foreign document posts its AUD value
 * at its rate, and a payment at another rate realises the difference on 4400 Foreign exchange
 * gains and losses. Worked example: docs/examples/currencies.md.
 */

/** The books' own currency: every journal is in it. */
export const HOME_CURRENCY = 'AUD';
/** Rows one books.exchangeRateSet takes at most (a year of daily rates). */
export const EXCHANGE_RATES_SET_MAX = 366;
/** Rows one books.exchangeRates answers at most. */
export const EXCHANGE_RATES_READ_MAX = 366;
/** A rate from the table is used for a document dated at most this many days after it. */
export const EXCHANGE_RATE_AGE_DAYS_MAX = 7;
/** Rates are kept as integers of millionths: "0.912345" is 912345. */
export const RATE_SCALE = 1_000_000;

/** A decimal rate string: up to 6 whole digits and up to 6 decimal places, more than zero. */
export const RATE_PATTERN = /^(0|[1-9]\d{0,5})(\.\d{1,6})?$/;

/** The rate string as an integer of millionths (exact: no floating point), or null when malformed or zero. */
export function rateMicros(rate: string): number | null {
  if (!RATE_PATTERN.test(rate)) return null;
  const [whole = '0', frac = ''] = rate.split('.');
  const micros = Number(whole) * RATE_SCALE + Number(frac.padEnd(6, '0'));
  return micros > 0 ? micros : null;
}

/** Millionths as the rate string the API answers: always 6 decimal places ("0.910000"). */
export function rateString(micros: number): string {
  return `${Math.floor(micros / RATE_SCALE)}.${String(micros % RATE_SCALE).padStart(6, '0')}`;
}

/** An ISO 4217 currency code: three capital letters. */
export const currencyCode = () => z.string().regex(/^[A-Z]{3}$/, { error: 'must be an ISO 4217 currency code of 3 capital letters' });

/** A currency other than AUD (the rates table holds only those). */
export const foreignCurrency = () =>
  currencyCode().refine((c) => c !== HOME_CURRENCY, { error: 'must be a currency other than AUD (the books are kept in AUD)' });

/** AUD per one unit of the currency, as a decimal string with up to 6 decimal places. */
export const exchangeRate = () =>
  z.string().refine((r) => rateMicros(r) !== null, {
    error: 'must be AUD per one unit as a decimal string greater than 0 with at most 6 decimal places, e.g. "0.912345"',
  });

const rateRow = z.strictObject({
  currency: foreignCurrency().describe('ISO 4217, not AUD'),
  date: isoDate().describe('Day the rate is for'),
  rate: exchangeRate().describe('AUD per 1 unit, e.g. "0.912345"'),
});

const rateOut = z.object({ currency: z.string(), date: z.string(), rate: z.string() });

export const exchangeRateSet = method({
  name: 'books.exchangeRateSet',
  scope: 'books.write',
  kind: 'write',
  summary: `Set exchange rates the owner maintains (extension beyond the core contract; no network source): rates (1–${EXCHANGE_RATES_SET_MAX}) of currency (ISO 4217, three capital letters, not AUD), date and rate (AUD per one unit of the currency, a decimal string with at most 6 decimal places, e.g. "0.912345"; stored exactly in millionths). Each row replaces the rate of that currency on that date; the same rates again are a no-op. A currency and date named twice is BAD_REQUEST naming rates[i].date. A foreign invoice or bill without an exchangeRate takes the latest rate of its currency on or before its date, at most ${EXCHANGE_RATE_AGE_DAYS_MAX} days old.`,
  brief: `Set exchange rates (AUD per 1 unit, decimal string, by currency and date; up to ${EXCHANGE_RATES_SET_MAX}); the same again: no-op.`,
  params: z.strictObject({
    rates: z
      .array(rateRow)
      .min(1, { error: 'must have at least 1 rate' })
      .max(EXCHANGE_RATES_SET_MAX, { error: `must have at most ${EXCHANGE_RATES_SET_MAX} rates` })
      .superRefine((rows, ctx) => {
        const first = new Map<string, number>();
        rows.forEach((r, i) => {
          const key = `${r.currency} ${r.date}`;
          const seen = first.get(key);
          if (seen === undefined) first.set(key, i);
          else ctx.addIssue({ code: 'custom', path: [i, 'date'], message: `names ${r.currency} on ${r.date} again (rates[${seen}])` });
        });
      })
      .describe(`1-${EXCHANGE_RATES_SET_MAX}`),
  }),
  result: z.object({
    /** Each rate as it now stands, in the order given. */
    rates: z.array(rateOut.extend({ changed: z.boolean() })),
    /** This call's event; null on a no-op. */
    ledgerId: z.string().nullable(),
    noop: z.boolean().optional(),
  }),
});

export const exchangeRates = method({
  name: 'books.exchangeRates',
  scope: 'books.read',
  kind: 'read',
  summary: `The exchange rates table (books.exchangeRateSet; extension), by currency then date, newest first: optionally one currency, and from/to (inclusive dates). At most limit rows (1–${EXCHANGE_RATES_READ_MAX}, default ${EXCHANGE_RATES_READ_MAX}); truncated is true when more matched.`,
  brief: 'Exchange rates set by the owner (AUD per 1 unit), by currency and date range.',
  params: z.strictObject({
    currency: foreignCurrency().optional().describe('ISO 4217; default all'),
    from: isoDate().optional().describe('On or after'),
    to: isoDate().optional().describe('On or before'),
    limit: z
      .number()
      .int({ error: 'must be an integer' })
      .min(1, { error: 'must be at least 1' })
      .max(EXCHANGE_RATES_READ_MAX, { error: `must be at most ${EXCHANGE_RATES_READ_MAX}` })
      .optional()
      .describe(`1-${EXCHANGE_RATES_READ_MAX}`),
  }),
  result: z.object({
    rates: z.array(rateOut.extend({ ledgerId: z.string() })),
    truncated: z.boolean(),
  }),
});

/** Open foreign documents one books.currencyRevalue takes at most. */
export const REVALUE_DOCUMENTS_MAX = 500;

export const currencyRevalue = method({
  name: 'books.currencyRevalue',
  scope: 'books.write',
  kind: 'write',
  summary: `Revalue what is open in other currencies at a date (extension beyond the core contract; usually a month's or a year's end): for each sent or part_paid foreign invoice and approved foreign bill dated on or before date (at most ${REVALUE_DOCUMENTS_MAX}), what is outstanding in its currency on that date (payments dated on or before it) at the books.exchangeRates rate on or before date (at most 7 days old, else BAD_REQUEST naming date) against the AUD it carries (its posting and payments, revaluations left out). One journal dated date moves each difference between 1100 or 2000 (by document) and 4400 Foreign exchange gains and losses, and a second dated the next day reverses it (unrealised: the payment realises the difference). Not in the future, not on or before the lock date. A date already revalued is a no-op answering that revaluation; nothing to move posts nothing (noop, no event).`,
  brief: 'Revalue open foreign invoices and bills at a date (table rate) to 4400, reversed the next day; one event.',
  params: z.strictObject({ date: isoDate().describe('Revaluation date') }),
  result: z.object({
    date: z.string(),
    reversalDate: z.string(),
    /** Each open foreign document: its outstanding in its currency, the rate, the AUD carried and revalued, and the difference (positive raises the AUD carried). */
    documents: z.array(
      z.object({
        kind: z.enum(['invoice', 'bill']),
        id: z.string(),
        currency: z.string(),
        outstandingCents: z.number().int(),
        exchangeRate: z.string(),
        audCarriedCents: z.number().int(),
        audRevaluedCents: z.number().int(),
        audDifferenceCents: z.number().int(),
      }),
    ),
    /** The net posted to 4400: positive a gain. */
    audGainCents: z.number().int(),
    journalId: z.string().nullable(),
    reversalJournalId: z.string().nullable(),
    ledgerId: z.string().nullable(),
    noop: z.boolean().optional(),
  }),
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const currenciesMethods = [exchangeRateSet, exchangeRates, currencyRevalue] as const satisfies readonly MethodSpec[];
