import { z } from 'zod';
import { limits } from '../limits.js';
import { HELD_REASONS } from '../signature.js';
import { cents, days, email, id, method, reason, text, withProof } from './index-fields.js';

export const invoiceStatus = z.enum(['draft', 'sent', 'paid', 'void']);

const invoice = z.object({
  id: z.string(),
  status: invoiceStatus,
  payeeName: z.string(),
  description: z.string(),
  totalCents: z.number().int(),
  dueDays: z.number().int(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

const hold = z.object({
  status: z.literal('approval_required'),
  approval: z.object({
    actionClass: z.string(),
    payloadHash: z.string(),
    subject: z.object({ kind: z.literal('books.signature'), subjectId: z.string(), summary: z.string() }),
    expiresInMs: z.number().int(),
  }),
  subjectId: z.string(),
  message: z.string(),
});

export const invoiceDraft = method({
  name: 'books.invoiceDraft',
  scope: 'books.write',
  kind: 'write',
  summary: 'Draft a customer invoice. Nothing is posted until it is sent.',
  params: z.strictObject({
    payeeName: text(),
    description: text(limits.textCharsMax),
    totalCents: cents(),
    dueDays: days(),
    payeeEmail: email().optional(),
  }),
  result: invoice,
});

export const invoiceSend = method({
  name: 'books.invoiceSend',
  scope: 'books.write',
  kind: 'write',
  summary: 'Send a drafted invoice to the customer. Sending a sent invoice again is a no-op (D3).',
  params: z.strictObject({ id: id() }),
  result: invoice,
});

export const invoiceChaseStep = method({
  name: 'books.invoiceChaseStep',
  scope: 'books.write',
  kind: 'signature',
  actionClass: 'books.invoice_chase_step',
  summary:
    'Chase a sent, unpaid invoice. Step 1 (first reminder) runs at once; step 2 and above are dunning escalation, a signature act. Steps go in order; repeating the last step done is a no-op.',
  params: withProof({ id: id(), step: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }).min(1, { error: 'must be an integer of at least 1' }).max(10) }),
  result: z.union([z.object({ id: z.string(), step: z.number().int(), ledgerId: z.string(), noop: z.boolean().optional() }), hold]),
});

export const billStatus = z.enum(['captured', 'held', 'on_hold', 'approved', 'returned', 'scheduled', 'paid']);

const bill = z.object({
  id: z.string(),
  status: billStatus,
  payeeName: z.string(),
  description: z.string(),
  totalCents: z.number().int(),
  dueDays: z.number().int(),
  dueOn: z.string(),
  heldReason: z.enum(HELD_REASONS).nullable(),
  note: z.string().nullable(),
  runId: z.string().nullable(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const billCapture = method({
  name: 'books.billCapture',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Capture a supplier bill. PB-B1 (D8) holds it for a human when above the approval floor (ABOVE_FLOOR) or from a payee with no approved bill before (NEW_PAYEE).',
  params: z.strictObject({
    payeeName: text(),
    description: text(limits.textCharsMax),
    totalCents: cents(),
    dueDays: days(),
  }),
  result: bill,
});

export const billApprove = method({
  name: 'books.billApprove',
  scope: 'books.write',
  kind: 'signature',
  actionClass: 'books.bill_approve',
  summary:
    'Approve a bill for payment. A bill held under PB-B1 needs a human proof (approvalId or signatureToken for books.bill_approve); without one the answer is GOVERNANCE_NOT_READY.',
  params: withProof({ id: id() }),
  result: bill,
});

export const billHold = method({
  name: 'books.billHold',
  scope: 'books.write',
  kind: 'write',
  summary: 'Put a bill on hold (e.g. disputed) so that it is not paid; billApprove releases it.',
  params: z.strictObject({ id: id(), reason: reason() }),
  result: bill,
});

export const billReturn = method({
  name: 'books.billReturn',
  scope: 'books.write',
  kind: 'write',
  summary: 'Return a bill to the supplier (wrong, duplicate, not ours). Final: it will never be paid.',
  params: z.strictObject({ id: id(), reason: reason() }),
  result: bill,
});

export const booksMethods = [
  invoiceDraft,
  invoiceSend,
  invoiceChaseStep,
  billCapture,
  billApprove,
  billHold,
  billReturn,
] as const;
