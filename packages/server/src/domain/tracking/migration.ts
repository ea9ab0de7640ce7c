import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 52: tracking categories (books.trackingSet). At most two categories an organisation,
 * each in a slot (1 or 2) that names the line column its option ids go in: journal_lines,
 * invoice_lines and bill_lines gain tracking1 and tracking2 (an option id of the slot's category,
 * NULL for none; rows written before hold NULL, so they are unassigned). Names are unique per
 * organisation (categories) and per category (options) by their search key (case and accents
 * folded, search-key.ts). An option is never deleted, only archived: a posted line may name it.
 * `ledger_id` is the event that last changed the row: a repeat answers it.
 */
export const migration: Migration = {
  id: 52,
  name: 'gl: tracking categories and options on lines',
  statements: [
    `CREATE TABLE tracking_categories (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      slot INTEGER NOT NULL,
      name TEXT NOT NULL,
      name_key TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE UNIQUE INDEX tracking_categories_slot ON tracking_categories (org_id, slot)',
    'CREATE UNIQUE INDEX tracking_categories_name ON tracking_categories (org_id, name_key)',
    `CREATE TABLE tracking_options (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      category_id TEXT NOT NULL,
      position INTEGER NOT NULL,
      name TEXT NOT NULL,
      name_key TEXT NOT NULL,
      archived_at TEXT,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE UNIQUE INDEX tracking_options_name ON tracking_options (org_id, category_id, name_key)',
    'ALTER TABLE journal_lines ADD COLUMN tracking1 TEXT',
    'ALTER TABLE journal_lines ADD COLUMN tracking2 TEXT',
    'ALTER TABLE invoice_lines ADD COLUMN tracking1 TEXT',
    'ALTER TABLE invoice_lines ADD COLUMN tracking2 TEXT',
    'ALTER TABLE bill_lines ADD COLUMN tracking1 TEXT',
    'ALTER TABLE bill_lines ADD COLUMN tracking2 TEXT',
  ],
};
