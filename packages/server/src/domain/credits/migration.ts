import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 49: contact credits. A credit is money of a contact that fits no one document (an
 * overpayment, a prepayment, a credit or adjustment note beyond what was owed); its amount lives
 * in the control account (1100 or 2000) under its own id, so what is left of it is the ledger's
 * balance under that id, never a column kept here. Each allocation or refund of a credit is a
 * row of credit_applications (the same reference or the same document again is found there).
 * A supplier's adjustment note on a bill is a row of bill_credit_notes, as invoice_credit_notes
 * are for invoices.
 */
export const migration: Migration = {
  id: 49,
  name: 'contact credits: overpayments, prepayments, notes beyond what is owed; allocations and refunds',
  statements: [
    `CREATE TABLE contact_credits (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      contact_id TEXT NOT NULL,
      side TEXT NOT NULL,
      source_kind TEXT NOT NULL,
      source_id TEXT,
      document_id TEXT,
      amount_cents BIGINT NOT NULL,
      dated TEXT NOT NULL,
      reference TEXT NOT NULL,
      account_code TEXT,
      journal_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE INDEX contact_credits_contact ON contact_credits (org_id, contact_id, side, dated)',
    'CREATE INDEX contact_credits_source ON contact_credits (org_id, source_id)',
    `CREATE TABLE credit_applications (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      credit_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      document_id TEXT,
      amount_cents BIGINT NOT NULL,
      dated TEXT NOT NULL,
      reference TEXT NOT NULL,
      account_code TEXT,
      journal_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE INDEX credit_applications_credit ON credit_applications (org_id, credit_id)',
    'CREATE INDEX credit_applications_document ON credit_applications (org_id, document_id)',
    `CREATE TABLE bill_credit_notes (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      bill_id TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      gst_cents BIGINT NOT NULL,
      tax_code TEXT NOT NULL,
      account_code TEXT NOT NULL,
      reason TEXT NOT NULL,
      issued_on TEXT NOT NULL,
      credit_id TEXT,
      credit_cents BIGINT NOT NULL,
      journal_ids TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE INDEX bill_credit_notes_bill ON bill_credit_notes (org_id, bill_id)',
  ],
};
