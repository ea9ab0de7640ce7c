import { z } from 'zod';
import { limits } from '../limits.js';
import { invoice, invoiceDraft, payeeCheck } from './books.js';
import { days, id, isoDate, method, multilineText, pageLimit } from './index-fields.js';
import { invoiceLine } from './sale-fields.js';
import type { MethodSpec } from './types.js';

/**
 * Quotes (an extension beyond the core contract): an offer to a customer, priced in the lines of
 * an invoice, that posts nothing. Accepted, it becomes an invoice draft through books.invoiceDraft's
 * own domain function; declined or expired, it stays as a record of the offer.
 */

/** draft → sent → accepted | declined (a draft may be decided too: the customer said yes by phone). */
export const QUOTE_STATUSES = ['draft', 'sent', 'accepted', 'declined'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
export const QUOTE_DECISIONS = ['accepted', 'declined'] as const;
/** A quote's expiry when none is given: this many days after its date. */
export const QUOTE_EXPIRY_DAYS = 30;
/** The payment terms the invoice made on acceptance carries when the quote names none. */
export const QUOTE_DUE_DAYS = 30;

// The customer, lines and tax code are books.invoiceDraft's own fields, so a quote is checked
// exactly as an invoice draft is and its lines are an invoice's when accepted.
const draftFields = invoiceDraft.params.shape;

export const quote = z.object({
  id: z.string(),
  /** The human number (QU-0001), in the organisation's own quote sequence. */
  number: z.string(),
  reference: z.string().nullable(),
  /** The terms and conditions the customer is offered, as given. */
  terms: z.string().nullable(),
  status: z.enum(QUOTE_STATUSES),
  payeeName: z.string(),
  contactId: z.string(),
  description: z.string(),
  payeeEmail: z.string().nullable(),
  /** The quote's date. */
  date: z.string(),
  /** The last day it may be accepted. */
  expiryDate: z.string(),
  /** Not decided and past its expiry date (the organisation's today): it can no longer be accepted. */
  expired: z.boolean(),
  /** Days from issue to due date of the invoice made when accepted. */
  dueDays: z.number().int(),
  totalCents: z.number().int(),
  /** GST inside totalCents, as the invoice would carry it (1/11 of the GST lines, once, half up). */
  gstCents: z.number().int(),
  lines: z.array(invoiceLine),
  createdAt: z.string(),
  /** The date it was first sent (books.quoteSend), or null. */
  sentOn: z.string().nullable(),
  /** The date of the decision (books.quoteDecide), or null while undecided. */
  decidedOn: z.string().nullable(),
  /** The invoice drafted when it was accepted, or null. */
  invoiceId: z.string().nullable(),
  /** The event that moved it into its current status. */
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const quoteDraft = method({
  name: 'books.quoteDraft',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    "Draft a quote for a customer (extension beyond the core contract); posts nothing. The customer (payeeName, contactId or both) and lines (1-100, GST-inclusive, with taxCode as the default tax code) are checked exactly as books.invoiceDraft checks them, and GST is worked out the same way. date defaults to today; expiryDate (on or after date) defaults to 30 days after date; dueDays (default 30) is the payment terms of the invoice drafted when it is accepted; description defaults to the first line's. Numbered QU-0001 on in the organisation's own sequence. reference and terms (the conditions offered) are kept and shown to the customer.",
  brief: 'Draft a quote for a customer in invoice lines; books.quoteSend emails it, books.quoteDecide accepts it into an invoice.',
  params: z
    .strictObject({
      payeeName: draftFields.payeeName,
      contactId: draftFields.contactId,
      description: multilineText(limits.textCharsMax).optional().describe('Default: first line'),
      lines: draftFields.lines.unwrap().describe('1-100'),
      taxCode: draftFields.taxCode,
      payeeEmail: draftFields.payeeEmail.describe('Where books_quoteSend emails it'),
      date: isoDate().optional().describe('Default today'),
      expiryDate: isoDate().optional().describe('Default date + 30'),
      dueDays: days().optional().describe("Invoice's due days (30)"),
      reference: draftFields.reference,
      terms: multilineText(limits.textCharsMax).optional().describe('Conditions offered'),
    })
    .superRefine(...payeeCheck)
    .superRefine((p, ctx) => {
      if (p.date !== undefined && p.expiryDate !== undefined && p.expiryDate < p.date) {
        ctx.addIssue({ code: 'custom', path: ['expiryDate'], message: `must not be before date ${p.date}` });
      }
    }),
  result: quote,
});

export const quoteSend = method({
  name: 'books.quoteSend',
  reachesOut: true,
  scope: 'books.write',
  kind: 'write',
  summary:
    'Send a draft quote (extension): it becomes sent, dated today, and is emailed with its PDF to payeeEmail, else to its contact’s email, when either is known (after commit). An expired quote is CONFLICT naming expiryDate; an accepted or declined one is CONFLICT. Sending a sent quote again is a no-op.',
  brief: 'Email a draft quote with its PDF to the customer; sent.',
  params: z.strictObject({ id: id().describe('Quote id') }),
  result: quote,
});

export const quoteDecide = method({
  name: 'books.quoteDecide',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Record the customer's decision on a draft or sent quote (extension), dated date (default today; not in the future nor before the quote's date). accepted drafts an invoice through books.invoiceDraft's own domain function, in the same act and event (books.invoice.draft naming quoteId): the quote's customer, description, lines, reference and payeeEmail, dueDays from the quote, the next invoice number; the answer carries it as invoice. Accepting after the expiry date is CONFLICT naming date. declined just records it. The same decision again is a no-op; the other decision on a decided quote is CONFLICT.",
  brief: 'Accept a quote (drafts its invoice, same lines) or decline it.',
  params: z.strictObject({
    id: id().describe('Quote id'),
    decision: z.enum(QUOTE_DECISIONS, { error: 'must be one of accepted, declined' }).describe('accepted | declined'),
    date: isoDate().optional().describe('Default today'),
  }),
  result: quote.extend({ invoice: invoice.optional() }),
});

export const quotes = method({
  name: 'books.quotes',
  scope: 'books.read',
  kind: 'read',
  summary:
    "List quotes (extension), oldest first, with lines and expired. Filters: status, contactId (another organisation's contact is NOT_FOUND). Page with cursor (the nextCursor of the previous page) and limit (1-200, default 50).",
  brief: 'Quotes, oldest first, with lines, status and expired.',
  params: z.strictObject({
    status: z.enum(QUOTE_STATUSES).optional().describe('Status'),
    contactId: id().optional().describe('Customer contact id'),
    cursor: id().optional().describe('nextCursor'),
    limit: pageLimit().optional().describe('1-200 (50)'),
  }),
  result: z.object({ quotes: z.array(quote), nextCursor: z.string().nullable() }),
});

export const quoteRead = method({
  name: 'books.quote',
  scope: 'books.read',
  kind: 'read',
  summary: "One quote by id (extension), as books.quotes lists it. Another organisation's quote is NOT_FOUND.",
  brief: 'One quote with its lines and the invoice it became.',
  params: z.strictObject({ id: id().describe('Quote id') }),
  result: quote,
});

/** Declarations of this area (see index.ts). */
export const quotesMethods = [quoteDraft, quoteSend, quoteDecide, quotes, quoteRead] as const satisfies readonly MethodSpec[];
