import type { Migration } from '../../storage/migration-types.js';
import { financialYear, financialYearLabel } from './stp-year.js';

/**
 * STP finalisation and amendment, migration 39. A year's finalisation is a submission like a pay
 * event (same outbox, same confirmation, same receipt) but about no pay run, so `pay_run_id`
 * becomes nullable. SQLite cannot drop a NOT NULL, so the table is rebuilt (new table, rows
 * copied, old dropped, new renamed: plain SQL both engines run); its primary key is named so the
 * rebuilt table's constraint reads the same on PostgreSQL as any other's. Each row now carries
 * its financial year (`2025-26`, backfilled from the run's payment date) and how many employees
 * it reports, so books.stpSubmissions filters and counts without reading documents.
 *
 * `stp_final_payees` keeps, per finalisation or amendment, each employee's YTD figures as
 * reported: re-finalising with the same figures is a no-op, and a run signed or recalled later
 * shows as an amendment needed. No TFN in either table.
 */
export const migration: Migration = {
  id: 39,
  name: 'payroll: stp finalisation and amendment',
  statements: [
    `CREATE TABLE stp_submissions_next (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      pay_run_id TEXT,
      financial_year TEXT NOT NULL,
      employee_count BIGINT NOT NULL,
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
      CONSTRAINT stp_submissions_key PRIMARY KEY (org_id, id)
    )`,
    // The year is filled in by the backfill below (computed in TypeScript, the same function the
    // server uses); the count is the run's lines, every one of which the pay event reported.
    `INSERT INTO stp_submissions_next (org_id, id, pay_run_id, financial_year, employee_count, kind, status, reason, outbox_id,
       receipt_file, receipt_sha256, created_at, lodged_at, ledger_id, lodged_ledger_id)
     SELECT s.org_id, s.id, s.pay_run_id, '',
       (SELECT COUNT(*) FROM pay_run_lines l WHERE l.org_id = s.org_id AND l.pay_run_id = s.pay_run_id),
       s.kind, s.status, s.reason, s.outbox_id, s.receipt_file, s.receipt_sha256, s.created_at, s.lodged_at, s.ledger_id,
       s.lodged_ledger_id
     FROM stp_submissions s`,
    'DROP TABLE stp_submissions',
    'ALTER TABLE stp_submissions_next RENAME TO stp_submissions',
    'CREATE INDEX stp_submissions_run ON stp_submissions (org_id, pay_run_id)',
    'CREATE INDEX stp_submissions_year ON stp_submissions (org_id, financial_year)',
    `CREATE TABLE stp_final_payees (
      org_id TEXT NOT NULL,
      submission_id TEXT NOT NULL,
      employee_id TEXT NOT NULL,
      financial_year TEXT NOT NULL,
      gross_cents BIGINT NOT NULL,
      leave_cents BIGINT NOT NULL,
      payg_cents BIGINT NOT NULL,
      super_cents BIGINT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (org_id, submission_id, employee_id)
    )`,
    // Each employee's finalisations of a year, newest last: the no-op check and amendmentNeeded.
    'CREATE INDEX stp_final_payees_employee ON stp_final_payees (org_id, employee_id, financial_year)',
  ],
  backfill: {
    select: `SELECT s.org_id, s.id, r.payment_date FROM stp_submissions s
             JOIN pay_runs r ON r.org_id = s.org_id AND r.id = s.pay_run_id WHERE s.financial_year = ''`,
    update: 'UPDATE stp_submissions SET financial_year = ? WHERE org_id = ? AND id = ?',
    params: (row) => [financialYearLabel(financialYear(String(row.payment_date))), String(row.org_id), String(row.id)],
  },
};
