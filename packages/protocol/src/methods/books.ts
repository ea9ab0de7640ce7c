import { z } from 'zod';
import { limits } from '../limits.js';
import { cents, days, id, method, text } from './index-fields.js';

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

export const booksMethods = [invoiceDraft, invoiceSend] as const;
