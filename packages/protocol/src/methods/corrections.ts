import { z } from 'zod';
import { abaText, accountCode, bankAccountNumber, bsb, lodgementReference } from './aba-fields.js';
import { feedLine } from './reconciliation.js';
import { cents, email, id, isoDate, isCalendarDate, method, reason, text } from './index-fields.js';
import { HELD_REASONS } from '../signature.js';
import { limits } from '../limits.js';
import type { MethodSpec } from './types.js';
import { openingAsset } from './assets.js';

/**
 * The business's conversion (opening balances) and the corrections a real business needs —
 * unmatch a bank line, a dishonoured receipt, a returned supplier payment, the reversal of a
 * manual journal. Every method here is an extension beyond the core contract (docs/methods.md marks them);
 * each posts through the general ledger and writes one event. Design: docs/decisions.md, the
 * record on opening balances and corrections.
 */

export const openingLimits = {
  accountsMax: 100,
  invoicesMax: 500,
  billsMax: 500,
  numberCharsMax: 40,
  payrollEmployeesMax: 500,
  assetsMax: 500,
  /** A leave balance carried in, in hours (a year is at most 8,784 hours). */
  leaveHoursMax: 10_000,
} as const;

/** Control accounts: their opening balance is the sum of the carried-in documents. */
export const OPENING_CONTROL_ACCOUNTS = ['1100', '2000', '2500'] as const;

const openingAccount = z
  .strictObject({
    accountCode: accountCode().describe('Account code'),
    debitCents: cents().optional().describe('Or creditCents'),
    creditCents: cents().optional().describe('Or debitCents'),
  })
  .refine((l) => (l.debitCents === undefined) !== (l.creditCents === undefined), {
    error: 'give exactly one of debitCents and creditCents',
    path: ['debitCents'],
  });

/** outstandingCents ≤ totalCents, dueDate on or after issueDate (named on the document's path). */
function documentChecks(
  d: { totalCents: number; outstandingCents: number; issueDate: string; dueDate: string; gstCents?: number | undefined },
  ctx: z.RefinementCtx,
) {
  if (Number.isSafeInteger(d.outstandingCents) && Number.isSafeInteger(d.totalCents) && d.outstandingCents > d.totalCents)
    ctx.addIssue({ code: 'custom', path: ['outstandingCents'], message: `must not be more than totalCents (${d.totalCents})` });
  if (isCalendarDate(d.issueDate) && isCalendarDate(d.dueDate) && d.dueDate < d.issueDate)
    ctx.addIssue({ code: 'custom', path: ['dueDate'], message: `must be on or after issueDate (${d.issueDate})` });
  if (d.gstCents !== undefined && Number.isSafeInteger(d.totalCents) && d.gstCents * 11 > d.totalCents + 10)
    ctx.addIssue({ code: 'custom', path: ['gstCents'], message: 'must be at most 1/11 of totalCents' });
}

const gstCents = () =>
  z
    .number({ error: 'must be an integer number of cents' })
    .int({ error: 'must be an integer number of cents' })
    .min(0, { error: 'must be at least 0' });

const openingInvoice = z
  .strictObject({
    number: text(openingLimits.numberCharsMax).describe('Old number'),
    issueDate: isoDate().describe('Date issued'),
    dueDate: isoDate().describe('On or after issueDate'),
    payeeName: text().optional().describe('Or contactId'),
    contactId: id().optional().describe('Or payeeName'),
    payeeEmail: email().optional().describe('Customer email'),
    description: text(500).describe('What it was for'),
    totalCents: cents().describe('GST-inclusive'),
    /** The GST the old system already reported on it (for later adjustment notes); default 0. */
    gstCents: gstCents().optional().describe('GST reported; default 0'),
    outstandingCents: cents().describe('Still owed'),
    reference: text(200).optional().describe('Its reference'),
  })
  .superRefine((d, ctx) => {
    if (d.payeeName === undefined && d.contactId === undefined)
      ctx.addIssue({ code: 'custom', path: ['payeeName'], message: 'is required (or give contactId)' });
    documentChecks(d, ctx);
  });

const openingBill = z
  .strictObject({
    payeeName: text().optional().describe('Or contactId'),
    contactId: id().optional().describe('Or payeeName'),
    reference: text(200).describe("Supplier's ref"),
    issueDate: isoDate().describe('Date issued'),
    dueDate: isoDate().describe('On or after issueDate'),
    description: text(500).describe('What it was for'),
    totalCents: cents().describe('GST-inclusive'),
    gstCents: gstCents().optional().describe('GST claimed; default 0'),
    outstandingCents: cents().describe('Still owed'),
    payeeBsb: bsb().optional().describe('NNN-NNN; all 3 or none'),
    payeeAccountNumber: bankAccountNumber().optional().describe('1-9 digits'),
    payeeAccountName: abaText(32).optional().describe('Max 32 chars'),
    payeeReference: lodgementReference().optional().describe('Payee sees; max 18'),
  })
  .superRefine((d, ctx) => {
    if (d.payeeName === undefined && d.contactId === undefined)
      ctx.addIssue({ code: 'custom', path: ['payeeName'], message: 'is required (or give contactId)' });
    const bank = [d.payeeBsb, d.payeeAccountNumber, d.payeeAccountName].filter((x) => x !== undefined).length;
    if (bank !== 0 && bank !== 3)
      ctx.addIssue({ code: 'custom', path: ['payeeBsb'], message: 'give payeeBsb, payeeAccountNumber and payeeAccountName together' });
    documentChecks(d, ctx);
  });

/** A year-to-date amount carried in: integer cents, 0 allowed. */
const ytdCents = () =>
  z
    .number({ error: 'must be an integer number of cents' })
    .int({ error: 'must be an integer number of cents' })
    .min(0, { error: 'must be at least 0' })
    .max(limits.centsMax, { error: `must be at most ${limits.centsMax}` });

/** Hours as the old system shows them: at least 0, at most two decimal places (kept as milli-hours). */
const leaveHours = () =>
  z
    .number({ error: 'must be a number of hours' })
    .min(0, { error: 'must be at least 0' })
    .max(openingLimits.leaveHoursMax, { error: `must be at most ${openingLimits.leaveHoursMax}` })
    .refine((h) => Math.abs(h * 100 - Math.round(h * 100)) < 1e-6, { error: 'must have at most 2 decimal places' });

/**
 * One employee's payroll as at the conversion date, from the old software: the year-to-date
 * figures of the financial year holding it (which STP reports add to this software's own) and
 * the leave balances (where the leave ledger starts).
 */
const openingEmployee = z
  .strictObject({
    employeeId: id().describe('Employee id'),
    grossCents: ytdCents().describe('YTD gross'),
    /** The part of gross paid as leave (STP paid leave); salary and wages are the rest. Default 0. */
    paidLeaveCents: ytdCents().optional().describe('Of gross; default 0'),
    paygWithheldCents: ytdCents().describe('YTD PAYG withheld'),
    superGuaranteeCents: ytdCents().describe('YTD super guarantee'),
    annualLeaveHours: leaveHours().optional().describe('Balance; 2 dp; default 0'),
    personalLeaveHours: leaveHours().optional().describe("Personal/carer's; default 0"),
    /** The old software's payroll id for the employee, reported with the carried-in figures. */
    previousPayrollId: text(40).optional().describe("Old software's id"),
  })
  .superRefine((e, ctx) => {
    if (Number.isSafeInteger(e.paidLeaveCents) && Number.isSafeInteger(e.grossCents) && (e.paidLeaveCents ?? 0) > e.grossCents)
      ctx.addIssue({ code: 'custom', path: ['paidLeaveCents'], message: `must not be more than grossCents (${e.grossCents})` });
  });

const openingPayroll = z
  .strictObject({
    /** The old software's STP business management software id, reported with the carried-in figures. */
    previousBmsId: text(200).optional().describe("Old software's STP id"),
    employees: z
      .array(openingEmployee)
      .min(1, { error: 'must have at least 1 employee' })
      .max(openingLimits.payrollEmployeesMax, { error: `must have at most ${openingLimits.payrollEmployeesMax} employees` })
      .describe('Per employee'),
  })
  .superRefine((p, ctx) => {
    const first = new Map<string, number>();
    for (const [i, e] of p.employees.entries()) {
      const prior = first.get(e.employeeId);
      if (prior !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['employees', i, 'employeeId'],
          message: `names ${e.employeeId} as employees[${prior}] does; give each employee once`,
        });
      } else first.set(e.employeeId, i);
    }
  });

export const openingBalances = method({
  name: 'books.openingBalances',
  scope: 'books.write',
  kind: 'write',
  extendedParams: ['payroll', 'assets'],
  summary:
    "Record the business's conversion from its old system (once per organisation): conversionDate (not in the future, not on or before the lock date), accounts (≤ 100 of accountCode and exactly one of debitCents or creditCents; not 1100, 2000 or 2500, not 1500/1510: those are the assets'), invoices still owed to the business (≤ 500 of number, issueDate, dueDate, payeeName and/or contactId, payeeEmail?, description, totalCents, gstCents?, outstandingCents, reference?) and bills the business still owes (≤ 500 of payeeName and/or contactId, reference, issueDate, dueDate, description, totalCents, gstCents?, outstandingCents, payee bank details?). Dates of documents are on or before conversionDate. Optional assets (≤ 500 of name, acquiredDate (on or before conversionDate), costCents (GST-exclusive), accumulatedDepreciationCents (≤ cost), effectiveLifeYears, method, taxTreatment?): each is registered active and posted Dr 1500 at cost / Cr 1510 at accumulated depreciation; depreciation runs continue from the day after conversionDate on the written-down value. Debits (accounts + invoices' outstanding + assets' cost) must equal credits (accounts + bills' outstanding + assets' accumulated depreciation), else BAD_REQUEST naming accounts. Posts ONE journal dated conversionDate: each account's balance, Dr 1100 per invoice and Cr 2000 per bill (docId, so aged reports and payments work per document); no revenue, expense or GST is posted again. The invoices are carried in as sent with their own numbers (a number in the organisation's prefix moves the sequence past it) and dates. Each bill goes through the same bill-approval check as books.billCapture (a new payee, bank details that differ from the payee's last approved, or an outstanding amount above the approval floor): a bill it would hold is carried in held with its heldReason (result bills, and books.bills), owed on 2000 but not payable by a run or a bank line until a human approves it with books.billApprove (which posts nothing again); the others as approved (payable by a payment run when they carry bank details, matchable by a bank line). A conversion is for an organisation that does not trade here yet: refused (CONFLICT) once it has any invoice, bill, expense claim, pay run, BAS, journal or bank feed line. Optional payroll (converting mid-year; an extension): employees (≤ 500, each an employee of this organisation started by conversionDate, NOT_FOUND otherwise, each once) with the year-to-date figures the old software reported to the ATO for the financial year holding conversionDate — grossCents, paidLeaveCents (part of gross), paygWithheldCents, superGuaranteeCents — and their leave balances annualLeaveHours and personalLeaveHours (at most 2 decimal places), with the old software's previousBmsId and previousPayrollId when known. They post nothing (carry 2200, 2300 and 2350 balances in accounts): STP pay events and the finalisation of that year report year to date as carried-in plus the runs signed here, each such payee with a carriedIn block naming the previous software's figures; leave balances (books.employees, leave requests, the leave_balances report, books.leaveProvision) start from the carried-in hours, dated conversionDate. The same params again is a no-op; different params after a conversion is CONFLICT.",
  brief:
    'One-time conversion: balances, open invoices and bills as at conversionDate, debits = credits. Posts one journal; bills may be held as in books.billCapture.',
  params: z.strictObject({
    conversionDate: isoDate().describe('As at; not future'),
    accounts: z
      .array(openingAccount)
      .max(openingLimits.accountsMax, { error: `must have at most ${openingLimits.accountsMax} accounts` })
      .describe('Not 1100/2000/2500/1500/1510'),
    invoices: z
      .array(openingInvoice)
      .max(openingLimits.invoicesMax, { error: `must have at most ${openingLimits.invoicesMax} invoices` })
      .optional()
      .describe('Open invoices'),
    bills: z
      .array(openingBill)
      .max(openingLimits.billsMax, { error: `must have at most ${openingLimits.billsMax} bills` })
      .optional()
      .describe('Open bills'),
    payroll: openingPayroll.optional().describe('Employees YTD, leave'),
    assets: z
      .array(openingAsset)
      .max(openingLimits.assetsMax, { error: `must have at most ${openingLimits.assetsMax} assets` })
      .optional()
      .describe('Fixed assets held'),
  }),
  result: z.object({
    conversionDate: z.string(),
    journalId: z.string(),
    debitCents: z.number().int(),
    receivablesCents: z.number().int(),
    payablesCents: z.number().int(),
    accountCount: z.number().int(),
    invoiceIds: z.array(z.string()),
    billIds: z.array(z.string()),
    /** Each bill carried in (billIds' order) as it came in: held by the bill-approval rule with its reason, or approved. */
    bills: z.array(z.object({ id: z.string(), status: z.enum(['held', 'approved']), heldReason: z.enum(HELD_REASONS).nullable() })),
    /** With payroll: the employees whose year-to-date figures and leave balances were carried in, and the financial year of those figures. */
    payroll: z.object({ employeeIds: z.array(z.string()), financialYear: z.string() }).optional(),
    /** With assets: the register's ids, in the order given. */
    assetIds: z.array(z.string()).optional(),
    ledgerId: z.string(),
    noop: z.literal(true).optional(),
  }),
});

const correctionDate = () => isoDate().optional();

export const lineUnmatch = method({
  name: 'books.lineUnmatch',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Undo a bank line's matches (all of them, or the one matchId) or its recode: posts, dated date (default today; not in the future, not before the journal it reverses, not on or before the lock date), the mirror of each match's payment journal (a match to an existing bank journal posted nothing, so nothing is reversed) or of the recode journal; the matches are kept, marked reversed; the documents reopen (status and outstanding back); the line goes back to unmatched (or part_matched while other matches stay). A held line is CONFLICT (books.matchHoldResolve decides it); a match whose payment was dishonoured or returned is CONFLICT. Nothing left to undo is a no-op.",
  brief: "Undo a bank line's matches or recode: reverses the postings, reopens the documents. A dishonoured or returned match: CONFLICT.",
  params: z.strictObject({
    lineId: id().describe('Line id'),
    matchId: id().optional().describe('One match; default all'),
    date: correctionDate().describe('Default today'),
    reason: reason().optional().describe('Why undone'),
  }),
  result: z.object({
    lineId: z.string(),
    status: z.string(),
    line: feedLine,
    reversed: z.array(
      z.object({
        matchId: z.string().nullable(),
        kind: z.string(),
        targetId: z.string(),
        amountCents: z.number().int(),
        journalId: z.string(),
        reversalJournalId: z.string().nullable(),
        documentStatus: z.string().nullable(),
      }),
    ),
    ledgerId: z.string(),
    noop: z.literal(true).optional(),
  }),
});

/**
 * The shape books.invoicePaymentDishonour and books.billPaymentReturn share: both undo one payment
 * of one document (id = the invoice or the bill) and answer with the document's new status and
 * outstanding. Declared once so the two cannot drift apart; what differs between them — which
 * document, which paymentId, which side of the bank it posts — is in each method's summary and
 * brief, so the fields' descriptions cover both.
 */
const paymentReversal = {
  params: z.strictObject({
    id: id().describe('Invoice or bill id'),
    paymentId: id().describe('Payment, run or match id'),
    date: correctionDate().describe('Default today'),
    reason: reason().describe('e.g. account closed'),
  }),
  result: z.object({
    id: z.string(),
    paymentId: z.string(),
    amountCents: z.number().int(),
    date: z.string(),
    reason: z.string(),
    status: z.string(),
    outstandingCents: z.number().int(),
    journalId: z.string(),
    ledgerId: z.string(),
    noop: z.literal(true).optional(),
  }),
};

export const invoicePaymentDishonour = method({
  name: 'books.invoicePaymentDishonour',
  scope: 'books.write',
  kind: 'write',
  summary:
    "A customer's payment bounced: paymentId is the payment's own id (pay_…, from books.invoiceRecordPayment or books.invoice's payments) or the bank-line match that recorded it (matchId mat_…, from books.matchAccept, books.matchHoldResolve or books.invoice); the result's paymentId is the payment's own. Posts Dr 1100 (docId = invoice) / Cr the bank it arrived in, dated date (default today; not in the future, not before the payment, not on or before the lock date); the payment is marked dishonoured with reason; the invoice goes back to sent (or part_paid while other payments stand) with its outstanding restored, so chasing resumes. The same payment again is a no-op; a payment undone by books.lineUnmatch is CONFLICT.",
  brief: 'Record a bounced customer payment: posts Dr 1100 / Cr bank; the invoice reopens.',
  params: paymentReversal.params,
  result: paymentReversal.result,
});

export const billPaymentReturn = method({
  name: 'books.billPaymentReturn',
  scope: 'books.write',
  kind: 'write',
  summary:
    'A payment to a supplier came back (wrong account, closed account): paymentId is the payment run (runId) or the bank-line match (matchId) that paid the bill. Posts Dr the bank it left / Cr 2000 (docId = bill), dated date (default today; not in the future, not before the payment, not on or before the lock date); the bill is approved (payable) again with that amount outstanding. The same payment again is a no-op.',
  brief: 'Record a returned supplier payment: posts Dr bank / Cr 2000; the bill is payable again.',
  params: paymentReversal.params,
  result: paymentReversal.result,
});

export const journalReverse = method({
  name: 'books.journalReverse',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Reverse a manual journal (one books.journalPost posted): posts its mirror (sides swapped, GST tags negated so the BAS nets it out) dated date (default today; not in the future, not before the journal, not on or before the lock date) and marks the journal reversed (books.journals shows reversedBy). Journals other acts posted are CONFLICT naming the method that corrects them; a journal that registered a fixed asset (1500) is CONFLICT (books.assetDispose); a journal a bank line is matched to is CONFLICT until books.lineUnmatch. Reversing it again is a no-op.',
  brief: 'Reverse a books.journalPost journal by its mirror. One with an asset or a matched bank line: CONFLICT.',
  params: z.strictObject({
    journalId: id().describe('Journal id'),
    date: correctionDate().describe('Default today'),
    reason: reason().describe('Why reversed'),
  }),
  result: z.object({
    journalId: z.string(),
    reversalJournalId: z.string(),
    date: z.string(),
    reason: z.string(),
    totalCents: z.number().int(),
    ledgerId: z.string(),
    noop: z.literal(true).optional(),
  }),
});

/** Declarations of this area (see index.ts). */
export const correctionsMethods = [
  openingBalances,
  lineUnmatch,
  invoicePaymentDishonour,
  billPaymentReturn,
  journalReverse,
] as const satisfies readonly MethodSpec[];
