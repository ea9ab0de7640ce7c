import type { Migration } from '../../storage/migration-types.js';

/**
 * Dated changes to employees, migration 40 (books.employeeUpdate, employee-terms.ts): one row per
 * change, effective from a date, with the terms it sets as JSON; the employees row holds the terms
 * with every change applied. The first change of an employee also writes a `start` row (seq 1):
 * the terms onboarding set, so the terms in force on any date can be rebuilt from these rows.
 *
 * The TFN is never in `fields`: a row that sets the tax declaration keeps it in its own `tfn`
 * column, in the clear for the same reason as employees.tfn (Single Touch Payroll reports it),
 * with no index or constraint naming it.
 */
export const migration: Migration = {
  id: 40,
  name: 'people: dated employee changes',
  statements: [
    `CREATE TABLE employee_changes (
      org_id TEXT NOT NULL,
      employee_id TEXT NOT NULL,
      seq BIGINT NOT NULL,
      kind TEXT NOT NULL,
      effective_from TEXT NOT NULL,
      fields TEXT NOT NULL,
      tfn TEXT,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, employee_id, seq)
    )`,
  ],
};
