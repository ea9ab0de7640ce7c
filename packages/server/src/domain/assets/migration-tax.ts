import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 50: assets as an accountant keeps them. Each asset has a tax treatment beside its book
 * method (default same_as_book for those registered before), kept with a captured bill line's
 * details until approval; an asset carried in by books.openingBalances keeps the date it was
 * acquired (first used, for the tax schedule) and the depreciation the old books took
 * (opening_accumulated_cents, its first 1510 amount, not a deduction of the year); an asset sold
 * by an invoice line names the invoice, and the invoice line the asset.
 */
export const migration: Migration = {
  id: 50,
  name: 'assets: tax treatment, assets carried in at conversion, assets sold by invoice',
  statements: [
    "ALTER TABLE assets ADD COLUMN tax_treatment TEXT NOT NULL DEFAULT 'same_as_book'",
    'ALTER TABLE assets ADD COLUMN acquired_on TEXT',
    'ALTER TABLE assets ADD COLUMN opening_accumulated_cents BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE assets ADD COLUMN disposal_invoice_id TEXT',
    'ALTER TABLE asset_details ADD COLUMN tax_treatment TEXT',
    'ALTER TABLE invoice_lines ADD COLUMN asset_id TEXT',
  ],
};
