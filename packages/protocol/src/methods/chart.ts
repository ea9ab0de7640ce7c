import { z } from 'zod';
import { TAX_CODE_NAMES, type TaxCode } from '../tax.js';
import { ACCOUNT_TYPES } from './books-reads.js';
import { budgetSet } from './budgets.js';
import { method, text } from './index-fields.js';
import { trackingSet } from './tracking.js';
import type { MethodSpec } from './types.js';

/**
 * The organisation's own chart of accounts (an extension beyond the core contract): accounts an
 * owner or agent adds beside the chart every organisation starts with, renamed and archived.
 * System accounts (those the product posts to by role, and bank account records) cannot be
 * created over, retyped or archived. books.accounts lists every account, archived ones flagged.
 */

/** A chart account's code here: four digits (the starting chart's own shape). */
const chartCode = () => z.string().regex(/^\d{4}$/, { error: 'must be an account code of 4 digits' });
const accountType = () => z.enum(ACCOUNT_TYPES, { error: `must be one of ${ACCOUNT_TYPES.join(', ')}` });
const taxCode = () => z.enum(TAX_CODE_NAMES as [TaxCode, ...TaxCode[]], { error: `must be one of ${TAX_CODE_NAMES.join(', ')}` });

export const chartAccount = z.object({
  code: z.string(),
  name: z.string(),
  type: z.enum(ACCOUNT_TYPES),
  /** The account's default tax code (bank line coding uses it when none is given), or null. */
  taxCode: z.string().nullable(),
  reconcilable: z.boolean(),
  /** The product posts to it by role (or it is a bank account record): it cannot be retyped or archived. */
  system: z.boolean(),
  archived: z.boolean(),
  /** The event that created or last changed the account (null for the starting chart's accounts, never changed). */
  ledgerId: z.string().nullable(),
  noop: z.boolean().optional(),
});

export const accountCreate = method({
  name: 'books.accountCreate',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Add an account to the organisation's chart (extension beyond the core contract): code (4 digits, unique in the organisation), name, type (asset, liability, equity, revenue, expense: it decides where the reports place the account), taxCode (its default tax code, used when a bank line is coded to it without one), reconcilable (default false). A code the chart has already is CONFLICT naming the account (a system account's code: CONFLICT naming it as a system account); the same code with the same name, type, taxCode and reconcilable again is a no-op answering the account.",
  brief: 'Add an account (4-digit code, name, type, default taxCode) to the chart; a used code: CONFLICT.',
  params: z.strictObject({
    code: chartCode().describe('4 digits'),
    name: text().describe('Account name'),
    type: accountType().describe('Account type'),
    taxCode: taxCode().optional().describe('Default tax code'),
    reconcilable: z.boolean().optional().describe('Default false'),
  }),
  result: chartAccount,
});

export const accountUpdate = method({
  name: 'books.accountUpdate',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Change an account of the chart (extension beyond the core contract): name, type, taxCode (null clears), reconcilable. The type cannot change once the account has postings, nor on a system account (CONFLICT naming it); system accounts may be renamed (journals keep the code, reports show the new name). An archived account is CONFLICT. Nothing that differs is a no-op.',
  brief: "Rename an account or change its default taxCode; a system account's or a posted account's type: CONFLICT.",
  params: z
    .strictObject({
      code: chartCode().describe('Account code'),
      name: text().optional().describe('New name'),
      type: accountType().optional().describe('Only before postings'),
      taxCode: taxCode().nullable().optional().describe('New; null clears'),
      reconcilable: z.boolean().optional().describe('New'),
    })
    .refine((p) => p.name !== undefined || p.type !== undefined || p.taxCode !== undefined || p.reconcilable !== undefined, {
      error: 'give at least one of name, type, taxCode, reconcilable',
      path: ['code'],
    }),
  result: chartAccount,
});

export const accountArchive = method({
  name: 'books.accountArchive',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Archive an account of the chart (extension beyond the core contract): it must have a zero balance over every journal and no open document (draft or unpaid invoice, bill or expense claim) coded to it; else CONFLICT saying why. A system account is CONFLICT naming it as a system account. An archived account stays in books.accounts (archived true) and the reports, and refuses new postings naming it (BAD_REQUEST on the line). Archiving it again is a no-op.',
  brief: 'Archive an account with a zero balance and no open documents; system accounts: CONFLICT.',
  params: z.strictObject({ code: chartCode().describe('Account code') }),
  result: chartAccount,
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const chartMethods = [accountCreate, accountUpdate, accountArchive, budgetSet, trackingSet] as const satisfies readonly MethodSpec[];

/** Budgets by account and month (budgets.ts) and tracking categories (tracking.ts), declared beside the chart. */
export { budgetSet, trackingSet };
