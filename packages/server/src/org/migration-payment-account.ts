import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 34: the business's own bank account, printed as "how to pay" on
 * its tax invoices (adapters/invoice-pdf.ts). Optional profile fields, NULL until an owner sets
 * them; BSB and account number are set together (org/profile.ts).
 */
export const migration: Migration = {
  id: 34,
  name: 'payment account on the organisation profile',
  statements: [
    'ALTER TABLE organisations ADD COLUMN payment_account_name TEXT',
    'ALTER TABLE organisations ADD COLUMN payment_bsb TEXT',
    'ALTER TABLE organisations ADD COLUMN payment_account_number TEXT',
  ],
};
