import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 57: quotes (books.quoteDraft). A quote keeps its lines as they were resolved (JSON:
 * description, amount, tax code, account, GST share, tracking by name): it posts nothing, is
 * never edited, and its lines become an invoice's through books.invoiceDraft's own function when
 * accepted, so they need no table of their own. Numbers are unique per organisation. An invoice
 * drafted by accepting a quote names it (`quote_id`).
 */
export const migration: Migration = {
  id: 57,
  name: 'quotes',
  statements: [
    `CREATE TABLE quotes (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      number TEXT NOT NULL,
      reference TEXT,
      terms TEXT,
      status TEXT NOT NULL,
      payee_name TEXT NOT NULL,
      contact_id TEXT NOT NULL,
      description TEXT NOT NULL,
      payee_email TEXT,
      quote_date TEXT NOT NULL,
      expiry_date TEXT NOT NULL,
      due_days BIGINT NOT NULL,
      total_cents BIGINT NOT NULL,
      gst_cents BIGINT NOT NULL,
      lines TEXT NOT NULL,
      created_at TEXT NOT NULL,
      sent_on TEXT,
      decided_on TEXT,
      invoice_id TEXT,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE UNIQUE INDEX quotes_number ON quotes (org_id, number)',
    'CREATE INDEX quotes_contact ON quotes (org_id, contact_id, id)',
    'ALTER TABLE invoices ADD COLUMN quote_id TEXT',
  ],
};
