import type { Migration } from '../../storage/migration-types.js';
import { chartBackfillStatements } from '../gl/chart.js';

/**
 * Migration 42: the leave provision and converting payroll mid-year.
 *
 * Every organisation, and every new one (chart.ts), gets 2350 Provision for annual leave and
 * 6150 Annual leave expense, the accounts books.leaveProvision posts to.
 *
 * payroll_opening holds, per employee, what books.openingBalances carried in from the old
 * software as at the conversion date: the year-to-date figures of the financial year holding it
 * (label `2025-26`), which STP adds to the runs signed here (stp.ts ytdOf), and the leave
 * balances in milli-hours, which the leave ledger also holds as `opening` entries (so every
 * balance read starts from them); the old software's STP ids, when given, go with the figures.
 */
export const migration: Migration = {
  id: 42,
  name: 'payroll: leave provision accounts, year-to-date and leave carried in',
  statements: [
    ...chartBackfillStatements(['2350', '6150']),
    `CREATE TABLE payroll_opening (
      org_id TEXT NOT NULL,
      employee_id TEXT NOT NULL,
      conversion_date TEXT NOT NULL,
      financial_year TEXT NOT NULL,
      gross_cents BIGINT NOT NULL,
      paid_leave_cents BIGINT NOT NULL,
      payg_cents BIGINT NOT NULL,
      super_cents BIGINT NOT NULL,
      annual_milli_hours BIGINT NOT NULL,
      personal_milli_hours BIGINT NOT NULL,
      previous_bms_id TEXT,
      previous_payroll_id TEXT,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, employee_id)
    )`,
  ],
};
