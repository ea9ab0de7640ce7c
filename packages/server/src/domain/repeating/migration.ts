import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 54: repeating invoices and bills (books.repeatingSet). A schedule keeps its template
 * (the create method's params as canonical JSON), its definition, status, how many documents it
 * made (`runs`, the index of its next due date) and the last failure. `repeating_runs` holds one
 * row per schedule and due date: its primary key is what makes two sweeps running at once unable
 * to make two documents for one date. Invoices and bills a schedule made carry its id.
 */
export const migration: Migration = {
  id: 54,
  name: 'repeating invoices and bills',
  statements: [
    `CREATE TABLE repeating_schedules (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      kind TEXT NOT NULL,
      action TEXT NOT NULL,
      template TEXT NOT NULL,
      frequency TEXT NOT NULL,
      day_of_month BIGINT,
      start_on TEXT NOT NULL,
      end_on TEXT,
      run_count BIGINT,
      status TEXT NOT NULL,
      next_on TEXT,
      runs BIGINT NOT NULL,
      last_due_on TEXT,
      last_document_id TEXT,
      last_error TEXT,
      last_error_on TEXT,
      last_error_at TEXT,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE INDEX repeating_schedules_due ON repeating_schedules (status, next_on)',
    `CREATE TABLE repeating_runs (
      org_id TEXT NOT NULL,
      schedule_id TEXT NOT NULL,
      due_on TEXT NOT NULL,
      document_id TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, schedule_id, due_on)
    )`,
    'ALTER TABLE invoices ADD COLUMN repeating_id TEXT',
    'ALTER TABLE bills ADD COLUMN repeating_id TEXT',
  ],
};
