import { z } from 'zod';
import { limits } from '../limits.js';
import { billStatus, invoiceStatus, issueDate } from './books.js';
import { cents, id, isoDate, method, reason, singleLine } from './index-fields.js';
import { accountCode, purchaseTaxCode } from './aba-fields.js';
import type { MethodSpec } from './types.js';

/**
 * Contact credits (an extension beyond the core contract): money that fits no one document. A
 * customer credit is a credit balance on 1100 under the credit's own id (crd_…): an overpayment
 * (books.invoiceRecordPayment with excess 'credit'), a prepayment, or a credit note beyond what
 * was outstanding. A supplier credit is a debit balance on 2000 under its id: a prepayment, or an
 * adjustment note (books.billCreditNote) beyond what was owed. A credit is allocated to a later
 * invoice or bill of the same contact, or refunded through a bank account. What is left of a
 * credit is what the ledger holds under its id; contacts.list lists open credits per contact.
 */

export const creditSide = z.enum(['customer', 'supplier']);
export const creditSource = z.enum(['overpayment', 'prepayment', 'credit_note', 'adjustment_note']);

const reference = () => singleLine(z.string().max(limits.nameCharsMax));

/** A credit as the credit methods answer it. */
export const credit = z.object({
  id: z.string(),
  contactId: z.string(),
  side: creditSide,
  source: creditSource,
  /** The payment, credit note or adjustment note it came from (pay_…, cn_…, bcn_…); null for a prepayment. */
  sourceId: z.string().nullable(),
  /** The invoice or bill it came from; null for a prepayment. */
  documentId: z.string().nullable(),
  amountCents: z.number().int(),
  remainingCents: z.number().int(),
  date: z.string(),
  journalId: z.string(),
  ledgerId: z.string(),
});

export const billCreditNote = method({
  name: 'books.billCreditNote',
  scope: 'books.write',
  kind: 'write',
  summary:
    "A supplier's adjustment note for part of an approved or paid bill (extension beyond the core contract). amountCents is GST-inclusive, at most what is left to credit of that tax code on the bill (taxCode defaults to the bill's dominant code; fixed-asset lines on 1500 are not credited here). Posts, dated issueDate (default today; not in the future, not on or before the lock date, not before the bill's date): Dr 2000 Accounts payable / Cr the bill's expense accounts (net; tags negative) / Cr 1200 GST paid (1/11, half up). The part beyond what is owed on the bill becomes a supplier credit (creditId). A bill with nothing left owed becomes paid. A note on a bill of an earlier BAS period is an increasing adjustment (G7, 1A). The same amount, tax code and reason again on the same bill is a no-op.",
  brief: 'Supplier adjustment note on part of a bill: Dr 2000 / Cr expense, 1200; beyond what is owed, a supplier credit.',
  params: z.strictObject({
    id: id().describe('Bill id'),
    amountCents: cents().describe('GST-incl.'),
    reason: reason().describe('Why credited'),
    taxCode: purchaseTaxCode().optional().describe('Default: largest'),
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
    status: billStatus,
    outstandingCents: z.number().int(),
    /** The supplier credit made of the part beyond what was owed, or null. */
    creditId: z.string().nullable(),
    creditCents: z.number().int(),
    journalIds: z.array(z.string()),
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});

export const creditPrepayment = method({
  name: 'books.creditPrepayment',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    'Record money received from a customer (side customer: Dr bank / Cr 1100) or paid to a supplier (side supplier: Dr 2000 / Cr bank) before any invoice or bill, kept as a credit on the contact (extension beyond the core contract). accountCode: any of books.bankAccounts, default 1000; date default today, not in the future. It records money that already moved; the bank line matches its journal. No GST until it is allocated to a tax invoice or bill: right for an overpayment or a deposit held as security; for a part payment of a taxable supply, issue the invoice first and record the payment against it (GST is due when any of the price is received). The same non-empty reference again for the same contact and side with the same amount and date is a no-op; with another amount or date CONFLICT.',
  brief:
    'A deposit received from a customer or paid to a supplier before any invoice or bill: a credit on the contact, no GST until applied.',
  params: z.strictObject({
    contactId: id().describe('Contact id'),
    side: creditSide.describe('Whose'),
    amountCents: cents().describe('Amount'),
    date: isoDate().optional().describe('Default today'),
    reference: reference().optional().describe('Reference'),
    accountCode: accountCode().optional().describe('Default 1000'),
  }),
  result: credit.extend({ reference: z.string(), noop: z.boolean().optional() }),
});

export const creditAllocate = method({
  name: 'books.creditAllocate',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Apply a contact's credit (creditId, from contacts.list) to a sent or part_paid invoice (customer credit) or an approved bill (supplier credit) of the same contact (extension beyond the core contract). amountCents defaults to the lesser of what is left of the credit and what is owed; more than either is BAD_REQUEST. Posts, dated date (default today; not before the credit or the document, not in the future): Dr 1100 credit / Cr 1100 invoice, or Dr 2000 bill / Cr 2000 credit; on the cash basis it is a payment of the document that day. The document becomes part_paid or paid. The same credit and document again with the same amount (or none) is a no-op; another amount is CONFLICT.",
  brief: "Apply a contact's credit to one of its open invoices or approved bills.",
  params: z.strictObject({
    creditId: id().describe('Credit id'),
    documentId: id().describe('Invoice or bill id'),
    amountCents: cents().optional().describe('Default: all it can'),
    date: isoDate().optional().describe('Default today'),
  }),
  result: z.object({
    allocationId: z.string(),
    creditId: z.string(),
    documentId: z.string(),
    amountCents: z.number().int(),
    date: z.string(),
    creditRemainingCents: z.number().int(),
    status: z.union([invoiceStatus, billStatus]),
    outstandingCents: z.number().int(),
    journalId: z.string(),
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});

export const creditRefund = method({
  name: 'books.creditRefund',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    'Record a credit refunded (extension beyond the core contract): money already paid out to the customer (Dr 1100 credit / Cr bank) or received back from the supplier (Dr bank / Cr 2000 credit). It records money that moved; it pays nothing. amountCents defaults to what is left of the credit; more is BAD_REQUEST. accountCode: any of books.bankAccounts, default 1000; date default today, not before the credit nor in the future. The same non-empty reference on the same credit with the same amount and date is a no-op; with another, CONFLICT.',
  brief: 'Record a contact credit refunded through a bank account (money already moved).',
  params: z.strictObject({
    creditId: id().describe('Credit id'),
    amountCents: cents().optional().describe('Default: all left'),
    date: isoDate().optional().describe('Default today'),
    reference: reference().optional().describe('Reference'),
    accountCode: accountCode().optional().describe('Default 1000'),
  }),
  result: z.object({
    refundId: z.string(),
    creditId: z.string(),
    amountCents: z.number().int(),
    date: z.string(),
    reference: z.string(),
    accountCode: z.string(),
    creditRemainingCents: z.number().int(),
    journalId: z.string(),
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});

/** Declarations of credits (see index.ts); areas.ts puts billCreditNote with payables, the rest with contacts. */
export const creditsMethods = [billCreditNote, creditPrepayment, creditAllocate, creditRefund] as const satisfies readonly MethodSpec[];
