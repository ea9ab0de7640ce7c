import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 30: what a real business needs on day one.
 * - Invoices carry a human number (`INV-0001`) from a per-organisation sequence
 *   (organisations.invoice_prefix, invoice_next), unique per organisation, and a `reference`;
 *   bills carry a `reference` (the supplier's own invoice number stays `invoice_number` where the
 *   bill has one).
 * - organisations.lock_date: nothing posts on or before it (periods.ts); set by an owner.
 * - organisations.conversion_date: the day the books were carried in (opening balances).
 * Invoices written before this migration are numbered in the order they were created, so every
 * invoice has a number and the sequence continues after the last.
 */
export const migration: Migration = {
  id: 30,
  name: 'invoice numbers and references, lock date, conversion date',
  statements: [
    'ALTER TABLE invoices ADD COLUMN number TEXT',
    'ALTER TABLE invoices ADD COLUMN reference TEXT',
    'ALTER TABLE bills ADD COLUMN reference TEXT',
    "ALTER TABLE organisations ADD COLUMN invoice_prefix TEXT NOT NULL DEFAULT 'INV-'",
    'ALTER TABLE organisations ADD COLUMN invoice_next BIGINT NOT NULL DEFAULT 1',
    'ALTER TABLE organisations ADD COLUMN lock_date TEXT',
    'ALTER TABLE organisations ADD COLUMN conversion_date TEXT',
    // NULLs are distinct in a unique index on both engines: the backfill below numbers the rows.
    'CREATE UNIQUE INDEX invoices_number ON invoices (org_id, number)',
    `UPDATE organisations SET invoice_next = 1 + (SELECT COUNT(*) FROM invoices x WHERE x.org_id = organisations.id)`,
  ],
  backfill: [
    {
      select: `SELECT i.org_id AS org_id, i.id AS id, (
          SELECT COUNT(*) FROM invoices x
          WHERE x.org_id = i.org_id AND (x.created_at < i.created_at OR (x.created_at = i.created_at AND x.id <= i.id))
        ) AS n FROM invoices i`,
      update: 'UPDATE invoices SET number = ? WHERE org_id = ? AND id = ?',
      params: (r) => [formatInvoiceNumber('INV-', Number(r.n)), String(r.org_id), String(r.id)],
    },
  ],
};

/** `INV-0001`: the prefix and the sequence number, zero-padded to at least four digits. */
export function formatInvoiceNumber(prefix: string, n: number): string {
  return `${prefix}${String(n).padStart(4, '0')}`;
}

/**
 * Migration 31: bills and expense claims carry their issue date (`issueDate`,
 * default the day captured), so their approval posts dated it. Documents written before it keep
 * NULL: they post on the day they are approved, as they always did.
 */
export const migrationIssueDates: Migration = {
  id: 31,
  name: 'bill and expense claim issue dates',
  statements: ['ALTER TABLE bills ADD COLUMN issued_on TEXT', 'ALTER TABLE expense_claims ADD COLUMN issued_on TEXT'],
};
