import type { Migration } from '../../storage/migration-types.js';

/**
 * Single Touch Payroll submissions, migration 24: one row per pay event sent to
 * the ATO through the lodgement adapter — the pay event of a signed run (`pay`), the correcting
 * event of a recalled one (`correction`) and each `books.stpResubmit` (`resubmission`). `queued`
 * until the adapter confirms delivery, then `lodged` with its receipt (file name, SHA-256), as a
 * BAS is. The document itself (with the TFNs) is only in the outbox row and the 0600 file.
 */
export const migration: Migration = {
  id: 24,
  name: 'payroll: single touch payroll submissions',
  statements: [
    `CREATE TABLE stp_submissions (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      pay_run_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      status TEXT NOT NULL,
      reason TEXT,
      outbox_id TEXT NOT NULL,
      receipt_file TEXT,
      receipt_sha256 TEXT,
      created_at TEXT NOT NULL,
      lodged_at TEXT,
      ledger_id TEXT NOT NULL,
      lodged_ledger_id TEXT,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE INDEX stp_submissions_run ON stp_submissions (org_id, pay_run_id)`,
  ],
};
