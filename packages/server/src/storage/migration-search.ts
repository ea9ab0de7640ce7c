import { searchKey } from '../domain/search-key.js';
import type { Migration } from './migration-types.js';

/**
 * Migration 12: a stored search key for the case-insensitive payee filter of
 * books.invoices, written with each row (invoices.ts) and compared with LIKE against the
 * normalised query. The key is computed in TypeScript (search-key.ts), so existing rows are
 * filled by the migration's backfill step, run once by both engines in the migration's
 * transaction (storage/migration-types.ts, Backfill).
 *
 * books.bills needs no column: its filter already compares payee_key, a key computed in
 * TypeScript when the bill is written (payables/bills.ts), so it folds `CAFÉ` on both engines.
 */
export const migration: Migration = {
  id: 12,
  name: 'search keys for case-insensitive filters',
  statements: [`ALTER TABLE invoices ADD COLUMN payee_search TEXT NOT NULL DEFAULT ''`],
  backfill: {
    select: 'SELECT org_id, id, payee_name FROM invoices',
    update: 'UPDATE invoices SET payee_search = ? WHERE org_id = ? AND id = ?',
    params: (row) => [searchKey(String(row.payee_name)), String(row.org_id), String(row.id)],
  },
};
