import type { Migration } from '../../storage/migration-types.js';
import { REBUILD_ALL_SQL } from './document-balances.js';

/**
 * Migration 60: balances per document per account (document-balances.ts), backfilled from every
 * journal line that names a document. `balance_cents` is debit minus credit, stored so that one
 * index serves both "the open documents of an account" and "those whose balance is X" (a bank
 * line's amount); partial, since most documents end at zero (paid) and no read wants those.
 * `on_day` is a match target's due date (reconciliation/document-words.ts writes it when the
 * document is posted, and migration 61 for those already posted), so that the documents owing a
 * line's amount are read nearest by due date first, a bounded few.
 */
export const migration: Migration = {
  id: 60,
  name: 'document balances',
  statements: [
    `CREATE TABLE document_balances (
      org_id TEXT NOT NULL,
      account_code TEXT NOT NULL,
      doc_id TEXT NOT NULL,
      debit_cents BIGINT NOT NULL,
      credit_cents BIGINT NOT NULL,
      balance_cents BIGINT NOT NULL,
      on_day TEXT,
      PRIMARY KEY (org_id, account_code, doc_id)
    )`,
    `CREATE INDEX document_balances_open ON document_balances (org_id, account_code, balance_cents, on_day, doc_id) WHERE balance_cents <> 0`,
    REBUILD_ALL_SQL,
  ],
};
