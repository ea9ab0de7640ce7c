import { z } from 'zod';
import { limits } from '../limits.js';
import { invoice, invoiceNumber, invoiceStatus, issueDate } from './books.js';
import { cents, id, isoDate, method, pageLimit, multilineText, reason, singleLine, text } from './index-fields.js';
import { saleTaxCode } from './sale-fields.js';
import { accountCode } from './aba-fields.js';
import type { MethodSpec } from './types.js';
import { exchangeRate } from './currencies.js';

/**
 * Receivables beyond draft, send and chase (books.ts): payments, credit notes, void, promises to
 * pay, statements and the invoices read. The state machine and worked postings are in
 * docs/examples/receivables.md.
 */

const reference = () => singleLine(z.string().max(limits.nameCharsMax));

export const invoiceRecordPayment = method({
  name: 'books.invoiceRecordPayment',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    'Record money received against a sent or part_paid invoice, in full or in part: posts Dr bank (accountCode: any of books.bankAccounts, default 1000) / Cr 1100 Accounts receivable (dated date, default today; not before the issue date nor in the future). The invoice becomes part_paid, or paid when nothing is left. More than is outstanding is BAD_REQUEST naming amountCents, unless excess is credit: then the invoice is paid and the rest is kept as a customer credit (creditId; Cr 1100 under it; see books.creditAllocate). The same non-empty reference again on the same invoice with the same amount and date is a no-op; with another amount or date it is CONFLICT. Extension: on an invoice in another currency amountCents is in that currency (at most what is outstanding in it; excess is refused) and exchangeRate (AUD per one unit; default the books.exchangeRates rate on or before date, at most 7 days old) converts it: Dr bank the AUD received (half up) / Cr 1100 the AUD carried for the part settled (all that is left when it settles the invoice, else the part at the rate of the invoice) / the difference to 4400 Foreign exchange gains and losses.',
  brief: 'Record a customer payment not on a bank feed (else books.matchAccept): posts Dr bank / Cr 1100.',
  params: z.strictObject({
    id: id().describe('Invoice id'),
    amountCents: cents().describe('Max outstanding'),
    date: isoDate().optional().describe('Default today'),
    reference: reference().optional().describe('Reference'),
    /** The bank account that received it (books.bankAccounts), default 1000. */
    accountCode: accountCode().optional().describe('Default 1000'),
    /** What to do with an amount above what is outstanding: keep it as a customer credit. */
    excess: z.enum(['credit']).optional().describe('Overpayment: credit'),
    exchangeRate: exchangeRate().optional().describe('Foreign invoice: AUD per 1 unit'),
  }),
  extendedParams: ['accountCode', 'excess', 'exchangeRate'],
  result: z.object({
    id: z.string(),
    paymentId: z.string(),
    amountCents: z.number().int(),
    date: z.string(),
    reference: z.string(),
    status: invoiceStatus,
    outstandingCents: z.number().int(),
    journalId: z.string(),
    ledgerId: z.string(),
    /** The customer credit made of an overpayment (excess 'credit'), and its amount. */
    creditId: z.string().optional(),
    creditCents: z.number().int().optional(),
    /** A foreign invoice's payment: its currency, the payment's rate, the AUD banked, the AUD it settled and the difference realised on 4400 (positive a gain). */
    currency: z.string().optional(),
    exchangeRate: z.string().optional(),
    audAmountCents: z.number().int().optional(),
    audSettledCents: z.number().int().optional(),
    audGainCents: z.number().int().optional(),
    noop: z.boolean().optional(),
  }),
});

export const invoiceCreditNote = method({
  name: 'books.invoiceCreditNote',
  reachesOut: true,
  scope: 'books.write',
  kind: 'write',
  summary:
    "Credit part or all of a sent, part_paid or paid invoice (an adjustment note, dated today). amountCents is GST-inclusive and at most what is left to credit of that tax code on the invoice; the part beyond what is outstanding becomes a customer credit (creditId, its own journal; books.creditAllocate, books.creditRefund). taxCode defaults to the invoice's dominant code (largest amount). Posts Dr the revenue account (net; tags negative) / Dr 2100 GST collected / Cr 1100 Accounts receivable. When nothing is left outstanding the invoice becomes credited, or paid if a payment was received. The same amount, tax code and reason again on the same invoice is a no-op. issueDate dates the adjustment note and its posting (default today; not in the future, not on or before the lock date, not before the invoice's issue date). When the invoice has a payeeEmail, the adjustment note (a PDF: the original invoice number, amount and GST) is emailed to it.",
  extendedParams: ['issueDate'],
  brief: 'Credit a sent invoice (discount, refund, return): posts Dr revenue + 2100 / Cr 1100; emails the note.',
  params: z.strictObject({
    id: id().describe('Invoice id'),
    amountCents: cents().describe('GST-incl.'),
    reason: reason().describe('Why credited'),
    taxCode: saleTaxCode().optional().describe('Default: largest'),
    issueDate: issueDate().optional().describe('Default today'),
  }),
  result: z.object({
    id: z.string(),
    creditNoteId: z.string(),
    amountCents: z.number().int(),
    gstCents: z.number().int(),
    taxCode: z.string(),
    accountCode: z.string(),
    reason: z.string(),
    issuedOn: z.string(),
    status: invoiceStatus,
    outstandingCents: z.number().int(),
    journalId: z.string(),
    ledgerId: z.string(),
    /** The customer credit made of the part beyond what was outstanding (its journal is the note's second), and its amount. */
    creditId: z.string().nullable().optional(),
    creditCents: z.number().int().optional(),
    noop: z.boolean().optional(),
  }),
});

export const invoiceVoid = method({
  name: 'books.invoiceVoid',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Void an invoice. A draft is voided with no posting; a sent invoice with no payments or credit notes is voided with a journal dated today that reverses its issue posting (not one that sold an asset: CONFLICT). Anything else is CONFLICT naming why (credit it instead). Voiding a void invoice is a no-op.',
  brief: 'Cancel an invoice raised in error (draft, or sent without payments or credits); else books.invoiceCreditNote.',
  params: z.strictObject({ id: id().describe('Invoice id'), reason: reason().describe('Why voided') }),
  result: invoice.extend({ voidReason: z.string().nullable(), voidJournalId: z.string().nullable() }),
});

export const invoiceWriteOff = method({
  name: 'books.invoiceWriteOff',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Write off as a bad debt everything still outstanding on a sent or part_paid invoice. Posts, dated date (default today; not in the future, not on or before the lock date, not before the invoice's issue date): Dr 7000 Bad debts for the GST-exclusive part / Dr 2100 GST collected for the GST part (the outstanding amount's share of the invoice's GST, half up once; a decreasing adjustment on the BAS, as a credit note's) / Cr 1100 Accounts receivable for the outstanding amount. The invoice becomes written_off: it is no longer outstanding anywhere, and a later payment on it is CONFLICT naming the write-off. A paid, credited, void or draft invoice is CONFLICT. Writing off a written_off invoice again is a no-op. A plain write: no money leaves the business.",
  brief: 'Write off the rest of an unpaid invoice as a bad debt: Dr 7000 + 2100 GST / Cr 1100.',
  params: z.strictObject({
    id: id().describe('Invoice id'),
    reason: reason().describe('Why uncollectable'),
    date: issueDate().optional().describe('Default today'),
  }),
  result: invoice.extend({
    writeOff: z.object({
      date: z.string(),
      reason: z.string(),
      amountCents: z.number().int(),
      gstCents: z.number().int(),
      journalId: z.string(),
    }),
    noop: z.boolean().optional(),
  }),
});

export const invoicePromise = method({
  name: 'books.invoicePromise',
  scope: 'books.write',
  kind: 'new-act',
  summary:
    "Record a customer's promise to pay a sent or part_paid invoice by promisedOn (today or later); amountCents defaults to what is outstanding and may not exceed it. Each call is a new promise.",
  brief: "Record a customer's promise to pay an invoice by a date. Posts nothing.",
  params: z.strictObject({
    id: id().describe('Invoice id'),
    promisedOn: isoDate().describe('Today or later'),
    amountCents: cents().optional().describe('Default all owed'),
    note: multilineText(limits.textCharsMax).optional().describe('Who promised, and how'),
  }),
  result: z.object({
    id: z.string(),
    promiseId: z.string(),
    promisedOn: z.string(),
    amountCents: z.number().int(),
    outstandingCents: z.number().int(),
    note: z.string().nullable(),
    ledgerId: z.string(),
  }),
});

const statementInvoice = z.object({
  id: z.string(),
  issuedOn: z.string(),
  dueOn: z.string(),
  totalCents: z.number().int(),
  outstandingCents: z.number().int(),
});

export const statementRun = method({
  name: 'books.statementRun',
  reachesOut: true,
  scope: 'books.write',
  kind: 'new-act',
  summary:
    'Build a statement for each customer with invoices open as at asOf (default today; not in the future), or for one customer (payeeName, case-insensitive): open invoices with total and outstanding, and openCents. Each customer with a payeeEmail on any of their invoices is emailed the statement (after commit). Each run is a new act.',
  brief: 'Email customer statements of open invoices as at a date; each call emails again.',
  params: z.strictObject({
    asOf: isoDate().optional().describe('Default today'),
    payeeName: text().optional().describe('One customer; default all'),
  }),
  result: z.object({
    runId: z.string(),
    asOf: z.string(),
    statements: z.array(
      z.object({ payeeName: z.string(), openCents: z.number().int(), invoices: z.array(statementInvoice), emailed: z.boolean() }),
    ),
    ledgerId: z.string(),
  }),
});

export const invoices = method({
  name: 'books.invoices',
  scope: 'books.read',
  kind: 'read',
  extendedParams: ['number'],
  summary:
    "List invoices, oldest first, with lines and outstandingCents (from the ledger once sent; 0 for a draft or void invoice). Filters: status, payeeName (case-insensitive substring), contactId (the customer's contact; another organisation's is NOT_FOUND), dueBefore (due strictly before that date), number (the invoice number, exact). Page with cursor (the nextCursor of the previous page) and limit (1–200, default 50).",
  brief: 'Invoices, oldest first, with lines and outstandingCents.',
  params: z.strictObject({
    status: invoiceStatus.optional().describe('Status'),
    payeeName: text().optional().describe('Name contains'),
    contactId: id().optional().describe('Customer contact id'),
    dueBefore: isoDate().optional().describe('Due before'),
    number: invoiceNumber().optional().describe('Exact number'),
    cursor: id().optional().describe('nextCursor'),
    limit: pageLimit().optional().describe('1-200 (50)'),
  }),
  result: z.object({ invoices: z.array(invoice), nextCursor: z.string().nullable() }),
});

/** One payment received against an invoice, as books.invoice lists it. */
export const invoicePayment = z.object({
  /** The payment's own id (pay_…), as books.invoicePaymentDishonour takes it. */
  paymentId: z.string(),
  date: z.string(),
  amountCents: z.number().int(),
  reference: z.string(),
  /** The bank-line match that recorded it (mat_…, also taken by books.invoicePaymentDishonour), or null when recorded directly. */
  matchId: z.string().nullable(),
  /** The bank line of that match, or null. */
  lineId: z.string().nullable(),
  journalId: z.string(),
  /** null while the payment stands; dishonoured (books.invoicePaymentDishonour) or unmatched (books.lineUnmatch) once undone. */
  reversed: z.enum(['dishonoured', 'unmatched']).nullable(),
  reversedOn: z.string().nullable(),
  /** On a foreign invoice (amountCents in its currency): the payment's rate, the AUD banked and the AUD carrying value it settled. */
  exchangeRate: z.string().optional(),
  audAmountCents: z.number().int().optional(),
  audSettledCents: z.number().int().optional(),
});

export const invoiceRead = method({
  name: 'books.invoice',
  scope: 'books.read',
  kind: 'read',
  summary:
    "One invoice by id, as books.invoices lists it (lines, outstandingCents), with payments: every payment received against it, oldest first, each with its paymentId (pay_…), date, amountCents, reference, the bank-line match that recorded it (matchId mat_… and lineId; null when recorded by books.invoiceRecordPayment), journalId, and reversed (null, dishonoured or unmatched) with reversedOn. Either id of a payment is what books.invoicePaymentDishonour takes. Another organisation's invoice is NOT_FOUND.",
  brief: 'One invoice with lines and payments (ids for books.invoicePaymentDishonour).',
  params: z.strictObject({ id: id().describe('Invoice id') }),
  result: invoice.extend({ payments: z.array(invoicePayment) }),
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const receivablesMethods = [
  invoiceRecordPayment,
  invoiceCreditNote,
  invoiceVoid,
  invoiceWriteOff,
  invoicePromise,
  statementRun,
  invoices,
  invoiceRead,
] as const satisfies readonly MethodSpec[];
