import { z } from 'zod';
import { limits } from '../limits.js';
import { ACTION_CLASS, HELD_REASONS } from '../signature.js';
import { cents, days, email, holdFrame, id, isoDate, method, multilineText, reason, text, withProof } from './index-fields.js';
import { abaText, accountCode, bankAccountNumber, bsb, lodgementReference, purchaseTaxCode } from './aba-fields.js';
import { invoiceLine, invoiceLineInput, invoiceLinesMax, saleTaxCode } from './sale-fields.js';
import { assetInput } from './assets.js';
import { lineTracking, lineTrackingOut } from './tracking.js';
import { attachmentsField, attachmentsParam } from './attachments.js';
import { currencyCode, exchangeRate } from './currencies.js';

/** Invoice states (docs/examples/receivables.md): draft → sent → part_paid → paid; → credited; → void. */
export const invoiceStatus = z.enum(['draft', 'sent', 'part_paid', 'paid', 'credited', 'void', 'written_off']);

/**
 * A document's own reference (the customer's order number, a job number), one line; the
 * invoice number is separate (`number`, from the organisation's sequence or given).
 */
export const documentReference = () => text(limits.nameCharsMax);

/** An invoice number a business keeps itself: one line, at most 40 characters. */
export const invoiceNumber = () => text(40);

/** The date a document was issued (default today; not in the future nor in a locked period). */
export const issueDate = () => isoDate();

/**
 * A document in a currency other than AUD (books.exchangeRateSet): its amounts (totalCents,
 * gstCents, lines, outstandingCents) are in that currency; these fields give the rate and the AUD
 * figures the ledger holds. All absent on an AUD document.
 */
export const foreignFields = {
  /** ISO 4217 code of the document's currency; absent means AUD. */
  currency: z.string().optional(),
  /** AUD per one unit of the currency, as posted ("0.910000"). */
  exchangeRate: z.string().optional(),
  /** totalCents in AUD at exchangeRate (half up): what the issue posting carries. */
  audTotalCents: z.number().int().optional(),
  /** gstCents in AUD at exchangeRate (half up), as the BAS reports it. */
  audGstCents: z.number().int().optional(),
  /** The AUD still carried on the control account for it (the ledger's balance by document). */
  audOutstandingCents: z.number().int().optional(),
};

export const invoice = z.object({
  id: z.string(),
  /** The human number (INV-0001), from the organisation's sequence or given; unique per organisation. */
  number: z.string(),
  /** The business's own reference for the invoice, if any. */
  reference: z.string().nullable(),
  status: invoiceStatus,
  payeeName: z.string(),
  /** The customer's contact: found or created by payeeName, or given. */
  contactId: z.string(),
  description: z.string(),
  totalCents: z.number().int(),
  /** GST inside totalCents: 1/11 of the GST-coded lines' sum, once per invoice, half up. */
  gstCents: z.number().int(),
  lines: z.array(invoiceLine),
  dueDays: z.number().int(),
  createdAt: z.string(),
  issuedOn: z.string().nullable(),
  dueOn: z.string().nullable(),
  payeeEmail: z.string().nullable(),
  chaseStep: z.number().int(),
  /** The issue posting (Dr 1100 / Cr revenue / Cr 2100), made when sent. */
  journalId: z.string().nullable(),
  /** The event that moved the invoice into its current status. */
  ledgerId: z.string(),
  /** What the customer still owes, from the ledger (0 for a draft or void invoice). */
  outstandingCents: z.number().int(),
  ...foreignFields,
  /** Files kept with it (attachments.ts), oldest first; absent when none. */
  attachments: attachmentsField(),
  /** The quote whose acceptance drafted it (books.quoteDecide); absent otherwise. */
  quoteId: z.string().optional(),
  noop: z.boolean().optional(),
});

/**
 * The original contract makes payeeName required; contacts let a contactId stand in for it (or
 * both be given), so a call written to the original contract is still valid and means what it meant.
 */
function requirePayee(p: unknown, ctx: z.RefinementCtx) {
  // Runs even when other fields are missing (`when` below), so the validation error lists payeeName too.
  if (typeof p !== 'object' || p === null) return;
  const given = p as { payeeName?: unknown; contactId?: unknown };
  if (given.payeeName === undefined && given.contactId === undefined) {
    ctx.addIssue({ code: 'custom', path: ['payeeName'], message: 'is required (or give contactId)' });
  }
}

/** requirePayee as a check that runs whatever else failed (quotes.ts names its customer the same way). */
export const payeeCheck = [requirePayee, { when: () => true }] as const;

/** An exchangeRate means nothing on an AUD document: refused rather than ignored. */
export function fxCheck(p: { readonly currency?: string | undefined; readonly exchangeRate?: string | undefined }, ctx: z.RefinementCtx) {
  if (p.exchangeRate !== undefined && (p.currency ?? 'AUD') === 'AUD') {
    ctx.addIssue({ code: 'custom', path: ['exchangeRate'], message: 'is only for a currency other than AUD (give currency)' });
  }
}

export const invoiceDraft = method({
  name: 'books.invoiceDraft',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    "Draft a customer invoice (amounts GST-inclusive). The customer is payeeName, contactId, or both: a payeeName alone finds the organisation's contact of that normalised name (case, accents and spacing folded) or creates it, in the same act (the event names contactId, and contactCreated when new); a contactId alone writes the contact's name; both must name the same contact (else BAD_REQUEST naming payeeName). One line (totalCents, taxCode default GST, account 4000) or lines (1–100 of description, amountCents, taxCode, accountCode: a revenue account, default 4000); with lines totalCents must equal their sum and taxCode is the default for lines without one. A line with assetId (no accountCode) sells that active fixed asset: accountCode 4300, disposed of when sent. gstCents is 1/11 of the GST lines, once, half up. Nothing is posted until it is sent. number is the organisation's next (its prefix and sequence, INV-0001, set by the owner in the profile) unless number is given (unique in the organisation, else CONFLICT naming number); reference is the business's own reference; issueDate (default: the day it is sent) dates the invoice: not in the future nor on or before the lock date, and when given the invoice is issued, posted and due (issueDate + dueDays) as of that date when it is sent. Extension: currency (ISO 4217, default AUD) makes the amounts that currency's; exchangeRate (AUD per one unit, a decimal string of at most 6 places) is fixed now: given, or the books.exchangeRates rate on or before issueDate (else today), at most 7 days old (else BAD_REQUEST naming exchangeRate); sending posts the AUD figures (total and GST each converted half up, the lines' net shares of the rest by largest remainder). attachments (1–10 files as books.attachmentAdd takes them) are kept with it, their SHA-256, name, type and size in its event. Extension: a line may carry tracking {category: option} (books.trackingSet), stored on its posted journal line.",
  extendedParams: ['issueDate', 'number', 'reference', 'attachments', 'currency', 'exchangeRate'],
  brief: 'Draft a customer invoice (one line or many). Posts nothing until books.invoiceSend.',
  params: z
    .strictObject({
      payeeName: text().optional().describe('Name; its contact is found or created'),
      contactId: id().optional().describe('Customer contact id'),
      description: multilineText(limits.textCharsMax).describe('What it is for'),
      totalCents: cents().describe('GST-incl.; sum of lines'),
      dueDays: days().describe('Days from issue to due date'),
      payeeEmail: email().optional().describe('Where books_invoiceSend emails it'),
      taxCode: saleTaxCode().optional().describe('Default GST'),
      lines: z
        .array(invoiceLineInput)
        .min(1, { error: 'must have at least 1 line' })
        .max(invoiceLinesMax)
        .optional()
        .describe('1-100; or totalCents'),
      issueDate: issueDate().optional().describe('Default: day sent'),
      number: invoiceNumber().optional().describe('Default: next'),
      reference: documentReference().optional().describe("The business's own reference"),
      attachments: attachmentsParam(),
      currency: currencyCode().optional().describe('ISO 4217; default AUD'),
      exchangeRate: exchangeRate().optional().describe('AUD per 1 unit; default table'),
    })
    .superRefine(...payeeCheck)
    .superRefine(fxCheck)
    .superRefine((p, ctx) => {
      if (p.lines === undefined) return;
      const sum = p.lines.reduce((acc, l) => acc + l.amountCents, 0);
      if (p.totalCents !== sum) {
        ctx.addIssue({ code: 'custom', path: ['totalCents'], message: `must equal the sum of lines (${sum})` });
      }
    }),
  result: invoice,
});

export const invoiceSend = method({
  name: 'books.invoiceSend',
  reachesOut: true,
  scope: 'books.write',
  kind: 'write',
  summary:
    "Issue a drafted invoice, dated today (or the issueDate it was drafted with) and due dueDays later: posts Dr 1100 Accounts receivable (total) / Cr each line's revenue account (net of its GST share, tagged with tax code, GST-inclusive base and GST) / Cr 2100 GST collected, and emails it to payeeEmail when set (after commit). A line with assetId instead disposes of the asset on the issue date as books.assetDispose does, its amount on 1100 (tagged) as the proceeds. Sending a sent invoice again is a no-op.",
  brief: 'Issue a draft: posts Dr 1100 / Cr revenue + 2100, dated issueDate or today; emails payeeEmail.',
  params: z.strictObject({ id: id().describe('Draft invoice id') }),
  result: invoice,
});

export const invoiceChaseStep = method({
  name: 'books.invoiceChaseStep',
  reachesOut: true,
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.invoiceChaseStep,
  summary:
    "Chase a sent invoice that is not fully paid (status sent or part_paid), for what is still outstanding. Step 1 (first reminder) runs at once, but not before the due date (the organisation's today) unless `early: true` (otherwise BAD_REQUEST naming `early`, with the due date); step 2 and above are dunning escalation, a signature act. Steps go in order; repeating the last step done is a no-op. The reminder email carries the invoice PDF.",
  brief: 'Email a reminder with the invoice PDF. Steps in order from 1: step 1 from the due date (or early); step 2+ escalates.',
  params: withProof({
    id: id().describe('Invoice id'),
    step: z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .min(1, { error: 'must be an integer of at least 1' })
      .max(10, { error: 'must be an integer of at most 10' })
      .describe('Next step, 1-10'),
    /** Extension: send the first reminder before the invoice falls due. */
    early: z.boolean({ error: 'must be true or false' }).optional().describe('Step 1 before due'),
  }),
  extendedParams: ['early'],
  result: z.union([z.object({ id: z.string(), step: z.number().int(), ledgerId: z.string(), noop: z.boolean().optional() }), holdFrame]),
});

export const billStatus = z.enum(['captured', 'held', 'on_hold', 'approved', 'returned', 'paid']);

const billLine = z.object({
  description: z.string(),
  amountCents: z.number().int(),
  taxCode: z.string(),
  accountCode: z.string(),
  gstCents: z.number().int(),
  /** The line's tracking options by category (books.trackingSet), when it has any. */
  tracking: lineTrackingOut.optional(),
});

export const bill = z.object({
  id: z.string(),
  status: billStatus,
  payeeName: z.string(),
  /** The supplier's contact: found or created by payeeName, or given. */
  contactId: z.string(),
  description: z.string(),
  totalCents: z.number().int(),
  /** GST inside totalCents (1/11 of the taxable lines, once per bill, half up). */
  gstCents: z.number().int(),
  lines: z.array(billLine),
  dueDays: z.number().int(),
  /** The bill's date (issueDate, default the day captured); its posting is dated it. Null only for bills captured before bills carried a date. */
  issuedOn: z.string().nullable(),
  dueOn: z.string(),
  /** The business's own reference for the bill, if any. */
  reference: z.string().nullable(),
  heldReason: z.enum(HELD_REASONS).nullable(),
  note: z.string().nullable(),
  runId: z.string().nullable(),
  payeeBsb: z.string().nullable(),
  payeeAccountNumber: z.string().nullable(),
  payeeAccountName: z.string().nullable(),
  payeeReference: z.string().nullable(),
  /** The accrual posting made on approval (Dr expense/asset + GST paid / Cr 2000). */
  journalId: z.string().nullable(),
  ledgerId: z.string(),
  /** Reads only: what is still to pay (see books.bills); in the bill's currency. */
  outstandingCents: z.number().int().optional(),
  ...foreignFields,
  /** Files kept with it (attachments.ts), oldest first; absent when none. */
  attachments: attachmentsField(),
  noop: z.boolean().optional(),
});

const billLineInput = z.strictObject({
  description: multilineText(limits.nameCharsMax).describe('Line text'),
  amountCents: cents().describe('GST-inclusive'),
  taxCode: purchaseTaxCode().optional().describe('Default: taxCode'),
  accountCode: accountCode().optional().describe('Default 6000 (capital 1500)'),
  /** A line coded to 1500 registers a fixed asset when the bill is approved (assets.ts); pending without this. */
  asset: assetInput.optional().describe('1500 line; else pending'),
  tracking: lineTracking().optional(),
});

const BANK_FIELDS = ['payeeBsb', 'payeeAccountNumber', 'payeeAccountName'] as const;

export const billCapture = method({
  name: 'books.billCapture',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    "Capture a supplier bill (amounts GST-inclusive). The supplier is payeeName, contactId, or both, as in invoiceDraft (the contact keeps the bank details of its most recently approved bill, the bill-approval rule still compares them per payee name). Give totalCents (one line, taxCode default GST_ON_EXPENSES, account 6000) or lines (1–100; totalCents, if given, must equal their sum); GST_ON_CAPITAL lines default to account 1500; a line on 1500 registers a fixed asset, cost its GST-exclusive amount, when the bill is approved: with asset {name, effectiveLifeYears 1–50, method prime_cost | diminishing_value} an active one, without it a pending one (not depreciated until books.assetRegister gives those details). Payee bank details (payeeBsb, payeeAccountNumber, payeeAccountName, all three together) let billScheduleRun pay it; payeeReference is what the payee sees on their statement. The bill-approval rule holds it for a human when its payee bank details (BSB or account number) differ from those last approved for that payee (BANK_DETAILS_CHANGED, whatever the amount; the payee is its name in any case or spacing), above the approval floor (ABOVE_FLOOR) or from a payee with no approved bill before (NEW_PAYEE), in that order. Nothing is posted until it is approved. Extensions: issueDate (default today; not in the future nor on or before the lock date) is the bill's date: it falls due dueDays after it and its approval posts dated it; reference is the business's own reference for it; attachments (1–10 files as books.attachmentAdd takes them, e.g. the supplier's PDF) are kept with it, their SHA-256, name, type and size in its event. Extension: a line may carry tracking {category: option} (books.trackingSet), stored on its posted journal line. Extension: currency (ISO 4217, default AUD) and exchangeRate as books.invoiceDraft takes them, the rate on or before issueDate; approval posts the AUD figures (Cr 2000 the AUD total, Dr 1200 the AUD GST, each line its share of the rest), and the approval rule compares the AUD total with the floor. A foreign bill is paid with books.billRecordPayment, not by a payment run; a line on 1500 is refused (assets are registered from AUD bills).",
  extendedParams: ['issueDate', 'reference', 'attachments', 'currency', 'exchangeRate'],
  brief:
    'Record a supplier bill (posts at books.billApprove); held for a human if the payee is new, bank details changed or above the approval floor.',
  params: z
    .strictObject({
      payeeName: text().optional().describe('Name; its contact is found or created'),
      contactId: id().optional().describe('Supplier contact id'),
      description: multilineText(limits.textCharsMax).describe('What it is for'),
      totalCents: cents().optional().describe('GST-incl.; or lines'),
      dueDays: days().describe('Days from issue to due date'),
      taxCode: purchaseTaxCode().optional().describe('Default GST_ON_EXPENSES'),
      lines: z.array(billLineInput).min(1, { error: 'must have at least 1 line' }).max(100).optional().describe('1-100; or totalCents'),
      payeeBsb: bsb().optional().describe('NNN-NNN; all 3 or none'),
      payeeAccountNumber: bankAccountNumber().optional().describe('1-9 digits'),
      payeeAccountName: abaText(32).optional().describe('Max 32 chars'),
      payeeReference: lodgementReference().optional().describe('Payee sees; max 18'),
      issueDate: issueDate().optional().describe('Default today'),
      reference: documentReference().optional().describe("The business's own reference"),
      attachments: attachmentsParam(),
      currency: currencyCode().optional().describe('ISO 4217; default AUD'),
      exchangeRate: exchangeRate().optional().describe('AUD per 1 unit; default table'),
    })
    .superRefine(...payeeCheck)
    .superRefine(fxCheck)
    .superRefine((p, ctx) => {
      if (p.lines === undefined) {
        if (p.totalCents === undefined) ctx.addIssue({ code: 'custom', path: ['totalCents'], message: 'is required (or give lines)' });
      } else {
        const sum = p.lines.reduce((acc, l) => acc + l.amountCents, 0);
        if (sum > limits.centsMax)
          ctx.addIssue({ code: 'custom', path: ['lines'], message: `must sum to at most ${limits.centsMax} cents` });
        if (p.totalCents !== undefined && p.totalCents !== sum) {
          ctx.addIssue({ code: 'custom', path: ['totalCents'], message: `must equal the sum of lines (${sum})` });
        }
      }
      const given = BANK_FIELDS.filter((f) => p[f] !== undefined);
      if (given.length > 0) {
        for (const f of BANK_FIELDS) {
          if (p[f] === undefined) ctx.addIssue({ code: 'custom', path: [f], message: `is required with ${given.join(', ')}` });
        }
      }
    }),
  result: bill,
});

export const billApprove = method({
  name: 'books.billApprove',
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.billApprove,
  summary:
    'Approve a bill for payment. A bill the bill-approval rule held (a new payee, changed bank details, or above the approval floor) needs a human proof (approvalId or signatureToken for books.bill_approve); without one the answer is GOVERNANCE_NOT_READY.',
  brief:
    'Approve a bill (or release a hold): posts Dr expense + 1200 / Cr 2000. A bill held for a human is refused with error.approval: file it, retry with the proof.',
  params: withProof({ id: id().describe('Bill id') }),
  result: bill,
});

export const billHold = method({
  name: 'books.billHold',
  scope: 'books.write',
  kind: 'write',
  summary: 'Put a bill on hold (e.g. disputed) so that it is not paid; billApprove releases it.',
  brief: 'Put a bill on hold so no payment run pays it; books.billApprove releases it.',
  params: z.strictObject({ id: id().describe('Bill id'), reason: reason().describe('Why held') }),
  result: bill,
});

export const billReturn = method({
  name: 'books.billReturn',
  scope: 'books.write',
  kind: 'write',
  summary: 'Return a bill to the supplier (wrong, duplicate, not ours). Final: it will never be paid.',
  brief: 'Return a bill to the supplier (wrong, duplicate). Final: never paid.',
  params: z.strictObject({ id: id().describe('Bill id'), reason: reason().describe('Why returned') }),
  result: bill,
});

export const booksMethods = [invoiceDraft, invoiceSend, invoiceChaseStep, billCapture, billApprove, billHold, billReturn] as const;
