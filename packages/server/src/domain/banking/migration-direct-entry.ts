import type { Migration } from '../../storage/migration-types.js';

/**
 * Direct-entry details on bank account records: what a bank (ABA) file paid from the account
 * carries — the bank's APCA code, the Direct Entry user id and name, the remitter name and the
 * self-balancing record's account title — set and changed by an owner, NULL until then. Payment
 * runs and pay runs keep the record they were paid from (fundingAccountId), NULL for inline
 * funding.
 */
export const migration: Migration = {
  id: 37,
  name: 'bank accounts: direct-entry details; the funding record of payment runs and pay runs',
  statements: [
    'ALTER TABLE bank_accounts ADD COLUMN bank_code TEXT',
    'ALTER TABLE bank_accounts ADD COLUMN apca_user_id TEXT',
    'ALTER TABLE bank_accounts ADD COLUMN user_name TEXT',
    'ALTER TABLE bank_accounts ADD COLUMN remitter_name TEXT',
    'ALTER TABLE bank_accounts ADD COLUMN account_title TEXT',
    'ALTER TABLE bank_accounts ADD COLUMN updated_at TEXT',
    'ALTER TABLE payment_runs ADD COLUMN funding_account_id TEXT',
    'ALTER TABLE pay_runs ADD COLUMN funding_account_id TEXT',
  ],
};
