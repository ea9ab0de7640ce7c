import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 51: budgets (books.budgetSet). One row per account and calendar month (YYYY-MM) with a
 * budget other than zero, so a financial year is whichever twelve months the profile's start month
 * makes it, and a month is never budgeted twice. `ledger_id` and `seq` are the event that set the
 * row: a repeat of the same figures answers the latest of them. Indexed by month for the
 * budget_vs_actual report's period.
 */
export const migration: Migration = {
  id: 51,
  name: 'reports: budgets by account and month',
  statements: [
    `CREATE TABLE budget_months (
      org_id TEXT NOT NULL,
      account_code TEXT NOT NULL,
      month TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      ledger_id TEXT NOT NULL,
      seq BIGINT NOT NULL,
      PRIMARY KEY (org_id, account_code, month)
    )`,
    'CREATE INDEX budget_months_month ON budget_months (org_id, month)',
  ],
};
