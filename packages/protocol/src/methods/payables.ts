import { z } from 'zod';
import { ACTION_CLASS } from '../signature.js';
import { limits } from '../limits.js';
import { abaText, accountCode, bankAccountNumber, bsb, purchaseTaxCode } from './aba-fields.js';
import { bill, billStatus } from './books.js';
import { cents, holdFrame, id, isoDate, method, pageLimit, multilineText, reason, text, withProof } from './index-fields.js';
import type { MethodSpec } from './types.js';
import { exchangeRate } from './currencies.js';

/**
 * Payables beyond capture and approval (books.ts): the payment run, the bills read, and expense
 * claims. Bills post on approval (accrual); a payment run pays approved bills by an ABA file.
 */

/** The account the run is paid from, and the Direct Entry identity the bank knows the user by. */
export const funding = z.strictObject({
  bsb: bsb().describe('NNN-NNN'),
  accountNumber: bankAccountNumber().describe('1-9 digits'),
  bankCode: z
    .string()
    .regex(/^[A-Z]{3}$/, { error: 'must be the 3-letter APCA abbreviation of the bank, e.g. WBC' })
    .describe('APCA code, e.g. WBC'),
  userName: abaText(26).describe('Direct Entry user name, max 26'),
  apcaUserId: z
    .string()
    .regex(/^\d{6}$/, { error: 'must be the 6-digit Direct Entry user id' })
    .describe('Direct Entry user id, 6 digits'),
  remitterName: abaText(16).describe('Payees see; max 16'),
  /** Title of the funding account, for the self-balancing record (default: userName). */
  accountName: abaText(32).optional().describe('Default userName'),
});

const runResult = z.object({
  runId: z.string(),
  status: z.literal('executed'),
  paymentDate: z.string(),
  billIds: z.array(z.string()),
  payments: z.array(z.object({ billId: z.string(), payee: z.string(), amountCents: z.number().int() })),
  billCount: z.number().int(),
  totalCents: z.number().int(),
  journalId: z.string(),
  fileName: z.string(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const billScheduleRun = method({
  name: 'books.billScheduleRun',
  reachesOut: true,
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.billScheduleRun,
  extendedParams: ['fundingAccountId'],
  summary:
    "Pay approved bills by a Direct Entry (ABA) file: give billIds (1–200) or dueOnOrBefore (every approved bill due by then), the paymentDate (today or later) and the funding account: exactly one of fundingAccountId (a bank account record whose direct-entry details are complete: books.bankAccounts directEntry) or inline funding. A signature act: always held for a human, whose summary lists every payment (never a sample) with its payee, amount and the full BSB and account number the file pays, then the total, date and every funding field the file carries (BSB, account number, account title, bank code, APCA user id, user name, remitter name, self-balancing yes/no); payee names are quoted. With the proof it creates the run, marks the bills paid, posts Dr 2000 per bill / Cr the chart account of the funding account (1000 with inline funding; dated paymentDate) and writes <runId>.aba after commit. With fundingAccountId the record's details are bound into the run id, so changing them after the hold voids the approval. Each bill needs payee bank details. The run id derives from the bills and params, so a proof covers exactly the bills the human saw.",
  brief:
    'Pay approved bills (with payee bank details) by an ABA file; the human sees every payment. Then posts Dr 2000 / Cr the funding account and writes the file.',
  params: withProof({
    billIds: z.array(id()).min(1, { error: 'must have at least 1 bill' }).max(200).optional().describe('Or dueOnOrBefore'),
    dueOnOrBefore: isoDate().optional().describe('All due by then'),
    paymentDate: isoDate().describe('Today or later'),
    funding: funding.optional().describe('Or fundingAccountId'),
    fundingAccountId: id().describe('Bank account id; or funding').optional(),
    /** The header's description of entries (default CREDITORS). */
    entriesDescription: abaText(12).optional().describe('Max 12; default CREDITORS'),
    /** Add a code-13 debit to the funding account so the file balances (some banks require it). */
    selfBalancing: z.boolean({ error: 'must be true or false' }).optional().describe('Some banks need it'),
  }).superRefine((p, ctx) => {
    if ((p.billIds === undefined) === (p.dueOnOrBefore === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['billIds'], message: 'give exactly one of billIds and dueOnOrBefore' });
    }
    if ((p.funding === undefined) === (p.fundingAccountId === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['fundingAccountId'], message: 'give exactly one of fundingAccountId and funding' });
    }
    if (p.billIds !== undefined && new Set(p.billIds).size !== p.billIds.length) {
      ctx.addIssue({ code: 'custom', path: ['billIds'], message: 'must not name a bill twice' });
    }
  }),
  result: z.union([runResult, holdFrame]),
});

export const bills = method({
  name: 'books.bills',
  scope: 'books.read',
  kind: 'read',
  summary:
    "List bills, oldest first, with outstandingCents (what is still to pay: from the ledger once posted, the total before approval, 0 when returned). Filters: status, payeeName (case-insensitive substring), contactId (the supplier's contact; another organisation's is NOT_FOUND), dueBefore (due strictly before that date). Page with cursor (the nextCursor of the previous page) and limit (1–200, default 50).",
  brief: 'Supplier bills, oldest first, with outstandingCents.',
  params: z.strictObject({
    status: billStatus.optional().describe('Status'),
    payeeName: text().optional().describe('Name contains'),
    contactId: id().optional().describe('Supplier contact id'),
    dueBefore: isoDate().optional().describe('Due before'),
    cursor: id().optional().describe('nextCursor'),
    limit: pageLimit().optional().describe('1-200 (50)'),
  }),
  result: z.object({ bills: z.array(bill), nextCursor: z.string().nullable() }),
});

export const claimStatus = z.enum(['submitted', 'approved', 'rejected', 'paid']);

const claim = z.object({
  id: z.string(),
  status: claimStatus,
  claimant: z.string(),
  description: z.string(),
  amountCents: z.number().int(),
  gstCents: z.number().int(),
  taxCode: z.string(),
  accountCode: z.string(),
  spentOn: z.string(),
  /** The claim's date (issueDate, default the day submitted); its approval posts dated it. Null only for claims submitted before claims carried a date. */
  issuedOn: z.string().nullable(),
  receiptRef: z.string(),
  note: z.string().nullable(),
  journalId: z.string().nullable(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const expenseClaim = method({
  name: 'books.expenseClaim',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    "Submit a staff expense claim (amountCents GST-inclusive; taxCode default GST_ON_EXPENSES; accountCode default 6000, an expense or asset account (1500 for GST_ON_CAPITAL: approval then puts a pending fixed asset on the register, named by books.assetRegister); spentOn not in the future; receiptRef a receipt id rcpt_… from receiptsRegister or an external reference). Nothing is posted until it is approved. Extension: issueDate is the claim's date (default today; not in the future, not on or before the lock date, not before spentOn): its approval posts dated it.",
  extendedParams: ['issueDate'],
  brief: 'Submit a staff expense claim; posts nothing until books.expenseApprove. Store the receipt first: books.receiptsRegister.',
  params: z.strictObject({
    claimant: text().describe('Who paid'),
    description: multilineText(limits.textCharsMax).describe('What and why'),
    amountCents: cents().describe('GST-inclusive'),
    taxCode: purchaseTaxCode().optional().describe('Default GST_ON_EXPENSES'),
    accountCode: accountCode().optional().describe('Default 6000 (capital 1500)'),
    spentOn: isoDate().describe('Not future'),
    receiptRef: text(100).describe('Receipt id or outside ref'),
    issueDate: isoDate().optional().describe('Default today'),
  }),
  result: claim,
});

export const expenseApprove = method({
  name: 'books.expenseApprove',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Approve a submitted claim: posts Dr expense (net of GST, tax-tagged) + Dr 1200 GST paid / Cr 2500 Expense claims payable; a claim on 1500 Plant and equipment becomes a pending fixed asset (books.assets; books.assetRegister). Approving an approved claim is a no-op; a rejected or paid claim is CONFLICT.',
  brief: 'Approve a claim: posts Dr expense + 1200 / Cr 2500, owed until matched. A 1500 claim adds a pending asset.',
  params: z.strictObject({ id: id().describe('Claim id') }),
  result: claim,
});

export const expenseReject = method({
  name: 'books.expenseReject',
  scope: 'books.write',
  kind: 'write',
  summary: 'Reject a submitted claim with a reason (final; nothing is posted). Rejecting a rejected claim is a no-op.',
  brief: 'Reject an expense claim. Final; posts nothing.',
  params: z.strictObject({ id: id().describe('Claim id'), reason: reason().describe('Why rejected') }),
  result: claim,
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const billRecordPayment = method({
  name: 'books.billRecordPayment',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    "Record a payment of an approved bill in a currency other than AUD (extension beyond the core contract; an AUD bill is paid by books.billScheduleRun or a bank-line match: CONFLICT). amountCents is in the bill's currency, at most what is outstanding in it; exchangeRate (AUD per one unit) defaults to the books.exchangeRates rate on or before date (default today; not before the bill's date nor in the future), at most 7 days old, else BAD_REQUEST naming exchangeRate. Posts Dr 2000 the AUD carried for the part settled (all that is left when it settles the bill, else the part at the rate of the bill) / Cr bank (accountCode, default 1000) the AUD paid (half up) / the difference to 4400 Foreign exchange gains and losses. The bill becomes paid when nothing is left. The same non-empty reference again on the same bill with the same amount and date is a no-op; with another amount or date it is CONFLICT.",
  brief: 'Record paying a foreign-currency bill (amount in its currency, rate default from the table); AUD bills: payment runs.',
  params: z.strictObject({
    id: id().describe('Bill id'),
    amountCents: cents().describe("In the bill's currency"),
    date: isoDate().optional().describe('Default today'),
    exchangeRate: exchangeRate().optional().describe('AUD per 1 unit; default table'),
    accountCode: accountCode().optional().describe('Bank paid from; default 1000'),
    reference: text().optional().describe('Reference'),
  }),
  result: z.object({
    id: z.string(),
    paymentId: z.string(),
    amountCents: z.number().int(),
    date: z.string(),
    reference: z.string(),
    status: billStatus,
    /** Still owed, in the bill's currency. */
    outstandingCents: z.number().int(),
    currency: z.string(),
    exchangeRate: z.string(),
    /** The AUD paid from the bank, the AUD carrying value it settled on 2000, and the difference realised on 4400 (positive a gain). */
    audAmountCents: z.number().int(),
    audSettledCents: z.number().int(),
    audGainCents: z.number().int(),
    journalId: z.string(),
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});

export const payablesMethods = [
  billScheduleRun,
  bills,
  expenseClaim,
  expenseApprove,
  expenseReject,
  billRecordPayment,
] as const satisfies readonly MethodSpec[];
