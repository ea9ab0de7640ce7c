import type { Migration } from '../../storage/migration-types.js';

/**
 * Pay runs, migration 23. A run and one line per employee, computed when drafted
 * and never recomputed: the human signs the figures and bank accounts stored here, and the lines
 * keep what Single Touch Payroll reports (gross, the paid-leave part of it, PAYG, super, tax scale,
 * employment basis), so the STP adapter can read a signed run as it was.
 * The lines also hold the employee's bank account as drafted: the ABA file pays exactly those.
 */
export const migration: Migration = {
  id: 23,
  name: 'payroll: pay runs and pay run lines',
  statements: [
    `CREATE TABLE pay_runs (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      status TEXT NOT NULL,
      period_start TEXT NOT NULL,
      period_end TEXT NOT NULL,
      payment_date TEXT NOT NULL,
      pay_frequency TEXT NOT NULL,
      run_key TEXT NOT NULL,
      params_hash TEXT NOT NULL,
      funding TEXT,
      entries_description TEXT,
      gross_cents BIGINT NOT NULL,
      payg_cents BIGINT NOT NULL,
      super_cents BIGINT NOT NULL,
      net_cents BIGINT NOT NULL,
      journal_id TEXT,
      file_name TEXT,
      outbox_id TEXT,
      reversal_journal_id TEXT,
      recall_reason TEXT,
      created_at TEXT NOT NULL,
      signed_at TEXT,
      recalled_at TEXT,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    // A repeated draft finds its open twin by the run key (period, frequency, employees).
    `CREATE INDEX pay_runs_key ON pay_runs (org_id, run_key, status)`,
    `CREATE TABLE pay_run_lines (
      org_id TEXT NOT NULL,
      pay_run_id TEXT NOT NULL,
      employee_id TEXT NOT NULL,
      line_no BIGINT NOT NULL,
      name TEXT NOT NULL,
      employment_basis TEXT NOT NULL,
      gross_cents BIGINT NOT NULL,
      payg_cents BIGINT NOT NULL,
      super_cents BIGINT NOT NULL,
      net_cents BIGINT NOT NULL,
      hours BIGINT,
      leave_hours BIGINT NOT NULL,
      leave_cents BIGINT NOT NULL,
      leave_ids TEXT NOT NULL,
      ordinary_milli_hours BIGINT NOT NULL,
      tax_scale BIGINT NOT NULL,
      confirmed BIGINT NOT NULL,
      bank_bsb TEXT,
      bank_account_number TEXT,
      bank_account_name TEXT,
      PRIMARY KEY (org_id, pay_run_id, employee_id)
    )`,
    // Overlap checks: which runs already cover an employee.
    `CREATE INDEX pay_run_lines_employee ON pay_run_lines (org_id, employee_id)`,
  ],
};
