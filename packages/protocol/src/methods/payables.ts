import { z } from 'zod';
import { ACTION_CLASS } from '../signature.js';
import { limits } from '../limits.js';
import { abaText, accountCode, bankAccountNumber, bsb, purchaseTaxCode } from './aba-fields.js';
import { bill, billStatus } from './books.js';
import { cents, holdFrame, id, isoDate, method, pageLimit, multilineText, reason, text, withProof } from './index-fields.js';
import type { MethodSpec } from './types.js';

/**
 * Payables beyond capture and approval (books.ts): the payment run, the bills read, and expense
 * claims. Bills post on approval (accrual); a payment run pays approved bills by an ABA file.
 */

/** The account the run is paid from, and the Direct Entry identity the bank knows the user by. */
export const funding = z.strictObject({
  bsb: bsb(),
  accountNumber: bankAccountNumber(),
  bankCode: z.string().regex(/^[A-Z]{3}$/, { error: 'must be the 3-letter APCA abbreviation of the bank, e.g. WBC' }),
  userName: abaText(26),
  apcaUserId: z.string().regex(/^\d{6}$/, { error: 'must be the 6-digit Direct Entry user id' }),
  remitterName: abaText(16),
  /** Title of the funding account, for the self-balancing record (default: userName). */
  accountName: abaText(32).optional(),
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
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.billScheduleRun,
  summary:
    'Pay approved bills by a Direct Entry (ABA) file: give billIds (1–200) or dueOnOrBefore (every approved bill due by then), the paymentDate (today or later) and the funding account. A signature act: always held for a human, whose summary lists every payment (never a sample) with its payee, amount and the full BSB and account number the file pays, then the total, date and funding account; payee names are quoted. With the proof it creates the run, marks the bills paid, posts Dr 2000 per bill / Cr 1000 (dated paymentDate) and writes <runId>.aba after commit. Each bill needs payee bank details. The run id derives from the bills and params, so a proof covers exactly the bills the human saw.',
  params: withProof({
    billIds: z.array(id()).min(1, { error: 'must have at least 1 bill' }).max(200).optional(),
    dueOnOrBefore: isoDate().optional(),
    paymentDate: isoDate(),
    funding,
    /** The header's description of entries (default CREDITORS). */
    entriesDescription: abaText(12).optional(),
    /** Add a code-13 debit to the funding account so the file balances (some banks require it). */
    selfBalancing: z.boolean({ error: 'must be true or false' }).optional(),
  }).superRefine((p, ctx) => {
    if ((p.billIds === undefined) === (p.dueOnOrBefore === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['billIds'], message: 'give exactly one of billIds and dueOnOrBefore' });
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
    'List bills, oldest first, with outstandingCents (what is still to pay: from the ledger once posted, the total before approval, 0 when returned). Filters: status, payeeName (case-insensitive substring), contactId (the supplier\'s contact, issue 10; another organisation\'s is NOT_FOUND), dueBefore (due strictly before that date). Page with cursor (the nextCursor of the previous page) and limit (1–200, default 50).',
  params: z.strictObject({
    status: billStatus.optional(),
    payeeName: text().optional(),
    contactId: id().optional(),
    dueBefore: isoDate().optional(),
    cursor: id().optional(),
    limit: pageLimit().optional(),
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
  /** Issue 12: the claim's date (issueDate, default the day submitted); its approval posts dated it. Null only for claims submitted before issue 12. */
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
  summary:
    'Submit a staff expense claim (amountCents GST-inclusive; taxCode default GST_ON_EXPENSES; accountCode default 6000, an expense or asset account (1500 for GST_ON_CAPITAL: approval then puts a pending fixed asset on the register, named by books.assetRegister); spentOn not in the future; receiptRef a receipt id rcpt_… from receiptsRegister or an external reference). Nothing is posted until it is approved. Extension: issueDate is the claim\'s date (default today; not in the future, not on or before the lock date, not before spentOn): its approval posts dated it.',
  extendedParams: ['issueDate'],
  params: z.strictObject({
    claimant: text(),
    description: multilineText(limits.textCharsMax),
    amountCents: cents(),
    taxCode: purchaseTaxCode().optional(),
    accountCode: accountCode().optional(),
    spentOn: isoDate(),
    receiptRef: text(100),
    issueDate: isoDate().optional(),
  }),
  result: claim,
});

export const expenseApprove = method({
  name: 'books.expenseApprove',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Approve a submitted claim: posts Dr expense (net of GST, tax-tagged) + Dr 1200 GST paid / Cr 2500 Expense claims payable; a claim on 1500 Plant and equipment becomes a pending fixed asset (books.assets; books.assetRegister). Approving an approved claim is a no-op; a rejected or paid claim is CONFLICT.',
  params: z.strictObject({ id: id() }),
  result: claim,
});

export const expenseReject = method({
  name: 'books.expenseReject',
  scope: 'books.write',
  kind: 'write',
  summary: 'Reject a submitted claim with a reason (final; nothing is posted). Rejecting a rejected claim is a no-op.',
  params: z.strictObject({ id: id(), reason: reason() }),
  result: claim,
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const payablesMethods = [billScheduleRun, bills, expenseClaim, expenseApprove, expenseReject] as const satisfies readonly MethodSpec[];
