import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 46: each employee's finalisation or amendment keeps what it reported of their year to
 * date in full (stp.ts ytdReportedOf, as canonical JSON: the split by earnings type, allowances by
 * STP code, salary sacrifice, unused leave on termination, the carried-in block and the
 * cessation), beside the totals it already kept. A later change in the split alone (an allowance
 * recoded, a bonus paid as overtime) then needs an amendment as a change in the totals does.
 * Rows written before hold NULL and are compared by their totals, which is all they kept.
 */
export const migration: Migration = {
  id: 46,
  name: 'payroll: stp finalisations keep the year-to-date split',
  statements: ['ALTER TABLE stp_final_payees ADD COLUMN ytd_reported TEXT'],
};
