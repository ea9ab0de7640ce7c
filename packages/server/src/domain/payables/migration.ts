import type { Migration } from '../../storage/migration-types.js';

/**
 * Payables (bill lines, payee bank details, accrual postings, payment runs) and expense claims.
 * Applied after the general ledger (see schema.ts). Bills captured before this
 * migration get one line each (their description and total, GST on expenses, account 6000), so
 * that every bill has lines; they were never posted (journal_id stays NULL).
 */
export const migration: Migration = {
  id: 5,
  name: 'payables: bill lines, accrual postings, payment runs; expense claims',
  statements: [
    `ALTER TABLE bills ADD COLUMN gst_cents BIGINT NOT NULL DEFAULT 0`,
    `ALTER TABLE bills ADD COLUMN payee_bsb TEXT`,
    `ALTER TABLE bills ADD COLUMN payee_account_number TEXT`,
    `ALTER TABLE bills ADD COLUMN payee_account_name TEXT`,
    `ALTER TABLE bills ADD COLUMN payee_reference TEXT`,
    // The accrual posting made on approval, and its reversal when an approved bill is returned.
    `ALTER TABLE bills ADD COLUMN journal_id TEXT`,
    `ALTER TABLE bills ADD COLUMN reversal_journal_id TEXT`,
    `ALTER TABLE bills ADD COLUMN paid_at TEXT`,
    `CREATE INDEX bills_status_due ON bills (org_id, status, due_on)`,
    `CREATE TABLE bill_lines (
      org_id TEXT NOT NULL,
      bill_id TEXT NOT NULL,
      line_no BIGINT NOT NULL,
      description TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      tax_code TEXT NOT NULL,
      account_code TEXT NOT NULL,
      PRIMARY KEY (org_id, bill_id, line_no)
    )`,
    `INSERT INTO bill_lines (org_id, bill_id, line_no, description, amount_cents, tax_code, account_code)
     SELECT org_id, id, 1, description, total_cents, 'GST_ON_EXPENSES', '6000' FROM bills`,
    // A payment run (billScheduleRun). params_hash finds the run a replayed call made (a no-op).
    `CREATE TABLE payment_runs (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      params_hash TEXT NOT NULL,
      status TEXT NOT NULL,
      payment_date TEXT NOT NULL,
      bank_code TEXT NOT NULL,
      funding_bsb TEXT NOT NULL,
      funding_account_number TEXT NOT NULL,
      user_name TEXT NOT NULL,
      apca_user_id TEXT NOT NULL,
      remitter_name TEXT NOT NULL,
      bill_ids TEXT NOT NULL,
      payments TEXT NOT NULL,
      bill_count BIGINT NOT NULL,
      total_cents BIGINT NOT NULL,
      journal_id TEXT NOT NULL,
      file_name TEXT NOT NULL,
      outbox_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE INDEX payment_runs_params ON payment_runs (org_id, params_hash, created_at)`,
    `CREATE TABLE expense_claims (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      status TEXT NOT NULL,
      claimant TEXT NOT NULL,
      description TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      gst_cents BIGINT NOT NULL,
      tax_code TEXT NOT NULL,
      account_code TEXT NOT NULL,
      spent_on TEXT NOT NULL,
      receipt_ref TEXT NOT NULL,
      note TEXT,
      journal_id TEXT,
      created_at TEXT NOT NULL,
      approved_at TEXT,
      paid_at TEXT,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE INDEX expense_claims_status ON expense_claims (org_id, status, created_at)`,
  ],
};
