import { z } from 'zod';
import { email, id, method, text } from './index-fields.js';
import { abn } from './people-fields.js';
import type { MethodSpec } from './types.js';

/**
 * Contacts (an extension beyond the core contract): customers and suppliers as records.
 * invoiceDraft and billCapture find or create them by name (one per normalised name: case,
 * accents and spacing do not make a new contact) or take a contactId; these two methods set what
 * documents cannot: email and ABN, and the name's spelling. Bank details come only from approved
 * bills (the bill-approval rule and the signature law govern them), so no contact method sets them.
 */

export const contactKind = z.enum(['customer', 'supplier']);

/**
 * A contact as every answer shows it. The account number is masked to its last 3 digits: the
 * full number is on the bills (books.read) that the approver and the payment run use.
 */
export const contact = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  abn: z.string().nullable(),
  isCustomer: z.boolean(),
  isSupplier: z.boolean(),
  /** From the contact's most recently approved bill with bank details; null before one. */
  bank: z.object({ bsb: z.string(), accountNumberMasked: z.string(), accountName: z.string().nullable() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The event that created or last changed the contact. */
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const contactCreate = method({
  name: 'books.contactCreate',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Create a customer or supplier before its first document (extension beyond the core contract). One contact per normalised name (case, accents and spacing folded): a name whose contact exists already, with nothing given that differs, is a no-op answering that contact; an email or ABN that differs, or a contact not yet of this kind, is CONFLICT naming the contact (use books.contactUpdate, or name it on a document). abn is checked (11 digits, ABN check digits; spaces between groups allowed and removed). Bank details are never set here: they come from approved bills.',
  brief: 'Create a contact; an existing name with other email or ABN: CONFLICT (books.contactUpdate).',
  params: z.strictObject({
    name: text().describe('Contact name'),
    kind: contactKind.describe('Contact kind'),
    email: email().optional().describe('For documents'),
    abn: abn().optional().describe('11 digits'),
  }),
  result: contact,
});

export const contactUpdate = method({
  name: 'books.contactUpdate',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Change a contact's name (spelling), email or ABN (extension beyond the core contract); null clears email or abn. A new name must not normalise to another contact's (CONFLICT naming it); documents keep the payee name they were written with. abn is checked as in contactCreate. Nothing that differs from the record is a no-op. Bank details cannot be changed here: they come only from approved bills, which the bill-approval rule's BANK_DETAILS_CHANGED hold and the signature law govern.",
  brief: "Correct a contact's name, email or ABN; a name in use: CONFLICT. Bank details come only from bills.",
  params: z
    .strictObject({
      id: id().describe('Contact id'),
      name: text().optional().describe('New name'),
      email: email().nullable().optional().describe('New; null clears'),
      abn: abn().nullable().optional().describe('New; null clears'),
    })
    .refine((p) => p.name !== undefined || p.email !== undefined || p.abn !== undefined, {
      error: 'give at least one of name, email, abn',
      path: ['id'],
    }),
  result: contact,
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const contactsMethods = [contactCreate, contactUpdate] as const satisfies readonly MethodSpec[];
