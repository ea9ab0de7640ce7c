import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 33: bank, credit-card and loan accounts as records. Each owns one
 * chart account (unique per organisation); 1000 Business bank account is not stored here: every
 * organisation has it, and books.bankAccounts lists it first as the default. A transfer's two
 * lines share a transfer id (bank_feed_matches.target_kind 'transfer' names the other line).
 */
export const migration: Migration = {
  id: 33,
  name: 'bank, credit-card and loan accounts',
  statements: [
    `CREATE TABLE bank_accounts (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      kind TEXT NOT NULL,
      name TEXT NOT NULL,
      account_code TEXT NOT NULL,
      bsb TEXT,
      account_number TEXT,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE UNIQUE INDEX bank_accounts_code ON bank_accounts (org_id, account_code)',
  ],
};
