import type { Migration } from '../../storage/migration-types.js';

/**
 * Receivables on the general ledger: invoice lines, payments, credit notes, promises to pay and
 * statement runs. Applied after the general ledger (see schema.ts).
 *
 * Invoices drafted before this migration get one line each (their description and total, GST,
 * account 4000) and their GST (1/11 half up, in integers: (2t + 11) / 22 truncates the same way on
 * both engines for t ≥ 0), so every invoice has lines. Invoices sent before it were never posted
 * (journal_id stays NULL): they cannot take payments or credit notes, only be voided.
 */
export const migration: Migration = {
  id: 4,
  name: 'receivables: invoice lines, postings, payments, credit notes, promises, statements',
  statements: [
    `ALTER TABLE invoices ADD COLUMN gst_cents BIGINT NOT NULL DEFAULT 0`,
    // The issue posting (invoiceSend) and its reversal (invoiceVoid of a sent invoice).
    `ALTER TABLE invoices ADD COLUMN journal_id TEXT`,
    `ALTER TABLE invoices ADD COLUMN void_journal_id TEXT`,
    `ALTER TABLE invoices ADD COLUMN void_reason TEXT`,
    `CREATE INDEX invoices_status ON invoices (org_id, status, id)`,
    `CREATE INDEX invoices_payee ON invoices (org_id, payee_name, id)`,
    // gst_cents is the line's share of the document's GST (allocated at draft, see invoice-lines.ts).
    `CREATE TABLE invoice_lines (
      org_id TEXT NOT NULL,
      invoice_id TEXT NOT NULL,
      line_no BIGINT NOT NULL,
      description TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      tax_code TEXT NOT NULL,
      account_code TEXT NOT NULL,
      gst_cents BIGINT NOT NULL,
      PRIMARY KEY (org_id, invoice_id, line_no)
    )`,
    `UPDATE invoices SET gst_cents = (2 * total_cents + 11) / 22`,
    `INSERT INTO invoice_lines (org_id, invoice_id, line_no, description, amount_cents, tax_code, account_code, gst_cents)
     SELECT org_id, id, 1, description, total_cents, 'GST', '4000', gst_cents FROM invoices`,
    `CREATE TABLE invoice_payments (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      invoice_id TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      paid_on TEXT NOT NULL,
      reference TEXT NOT NULL,
      journal_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE INDEX invoice_payments_invoice ON invoice_payments (org_id, invoice_id)`,
    `CREATE TABLE invoice_credit_notes (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      invoice_id TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      gst_cents BIGINT NOT NULL,
      tax_code TEXT NOT NULL,
      account_code TEXT NOT NULL,
      reason TEXT NOT NULL,
      issued_on TEXT NOT NULL,
      journal_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE INDEX invoice_credit_notes_invoice ON invoice_credit_notes (org_id, invoice_id)`,
    `CREATE TABLE invoice_promises (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      invoice_id TEXT NOT NULL,
      promised_on TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      note TEXT,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE INDEX invoice_promises_invoice ON invoice_promises (org_id, invoice_id, created_at)`,
    `CREATE TABLE statement_runs (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      as_of TEXT NOT NULL,
      payee_name TEXT,
      customers BIGINT NOT NULL,
      emailed BIGINT NOT NULL,
      open_cents BIGINT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
  ],
};
