import type { Migration } from '../../storage/migration-types.js';

/**
 * People, migration 20: employees (onboarding state, pay basis, tax declaration,
 * super fund, contract), leave requests, and the leave accrual ledger that pay runs write.
 *
 * The TFN sits in its own column, in the clear: a payroll system must report it to the ATO with
 * every Single Touch Payroll pay event, so it cannot be hashed, and an application-level cipher
 * would keep its key beside the data. It is never returned in full, logged or written to an event
 * (docs/decisions.md "People"). No index or constraint mentions it, so no database error message
 * can echo it.
 */
export const migration: Migration = {
  id: 20,
  name: 'people: employees, leave requests, leave accrual ledger',
  statements: [
    `CREATE TABLE employees (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      status TEXT NOT NULL,
      next_step TEXT,
      name TEXT NOT NULL,
      email TEXT NOT NULL,
      start_date TEXT NOT NULL,
      employment_basis TEXT NOT NULL,
      pay_frequency TEXT NOT NULL,
      annual_salary_cents BIGINT,
      hourly_rate_cents BIGINT,
      hours_per_week BIGINT NOT NULL,
      bank_bsb TEXT,
      bank_account_number TEXT,
      bank_account_name TEXT,
      tfn TEXT,
      residency TEXT,
      claims_tax_free_threshold BIGINT,
      tax_declared_on TEXT,
      super_fund_name TEXT,
      super_fund_abn TEXT,
      super_member_number TEXT,
      title TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    // Pay runs pick the active employees on one pay frequency.
    `CREATE INDEX employees_status_frequency ON employees (org_id, status, pay_frequency)`,
    `CREATE TABLE leave_requests (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      employee_id TEXT NOT NULL,
      leave_type TEXT NOT NULL,
      start_date TEXT NOT NULL,
      end_date TEXT NOT NULL,
      hours BIGINT NOT NULL,
      status TEXT NOT NULL,
      warning TEXT,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      pay_run_id TEXT,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE INDEX leave_requests_employee ON leave_requests (org_id, employee_id, status)`,
    // Signed milli-hours: + accrual with each pay, − leave taken (paid) in a pay, ± adjustment.
    // ordinary_milli_hours is the ordinary time an accrual was earned on, so that the next
    // accrual continues the cumulative entitlement exactly (payroll/leave-accrual.ts).
    `CREATE TABLE leave_ledger (
      org_id TEXT NOT NULL,
      employee_id TEXT NOT NULL,
      leave_type TEXT NOT NULL,
      entry_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      milli_hours BIGINT NOT NULL,
      ordinary_milli_hours BIGINT NOT NULL,
      on_date TEXT NOT NULL,
      source_kind TEXT NOT NULL,
      source_id TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (org_id, employee_id, leave_type, entry_id)
    )`,
  ],
};
