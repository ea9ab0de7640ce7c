import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 47: the organisation's own chart (books.accountCreate, accountUpdate, accountArchive).
 * Each account keeps a default tax code, whether it is reconciled, when it was archived (an
 * archived account refuses new postings) and the event that created or last changed it. The
 * starting chart's accounts hold NULL, 0, NULL and NULL: nothing an act set.
 */
export const migration: Migration = {
  id: 47,
  name: 'gl: the organisation chart of accounts',
  statements: [
    'ALTER TABLE accounts ADD COLUMN tax_code TEXT',
    'ALTER TABLE accounts ADD COLUMN reconcilable BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE accounts ADD COLUMN archived_at TEXT',
    'ALTER TABLE accounts ADD COLUMN ledger_id TEXT',
  ],
};
