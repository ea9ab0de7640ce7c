import type { Migration } from '../../storage/migration-types.js';

/**
 * Pay items and decimal hours, migration 43.
 *
 * Hours become exact to the hundredth (a 7.6-hour day): the whole-hour columns of leave requests
 * and pay run lines are renamed to say their new unit, milli-hours (the unit the leave ledger
 * already keeps), and scaled by 1000. Renaming rather than reusing the names means a reader that
 * still expects whole hours fails loudly instead of reading a thousand times too much.
 *
 * `pay_run_items` keeps each earnings line a draft priced (overtime and penalty with their hours
 * and multiplier in thousandths, allowances with their STP code, bonus, back pay, salary
 * sacrifice), so the run, its reads, the payroll report and STP show exactly what was signed.
 * Each line also keeps its salary sacrifice (paid to super, not to the employee) and its ordinary
 * time earnings (the super guarantee base, which the maximum contribution base sums); a run keeps
 * its sacrifice total for its journal. Lines drafted before have neither: sacrifice 0 and OTE =
 * gross, which is what they were.
 */
export const migration: Migration = {
  id: 43,
  name: 'payroll: pay items and decimal hours',
  statements: [
    'ALTER TABLE leave_requests RENAME COLUMN hours TO milli_hours',
    'UPDATE leave_requests SET milli_hours = milli_hours * 1000',
    'ALTER TABLE pay_run_lines RENAME COLUMN hours TO milli_hours',
    'ALTER TABLE pay_run_lines RENAME COLUMN leave_hours TO leave_milli_hours',
    'UPDATE pay_run_lines SET milli_hours = milli_hours * 1000, leave_milli_hours = leave_milli_hours * 1000',
    'ALTER TABLE pay_run_lines ADD COLUMN salary_sacrifice_cents BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE pay_run_lines ADD COLUMN ote_cents BIGINT NOT NULL DEFAULT 0',
    'UPDATE pay_run_lines SET ote_cents = gross_cents',
    'ALTER TABLE pay_runs ADD COLUMN salary_sacrifice_cents BIGINT NOT NULL DEFAULT 0',
    `CREATE TABLE pay_run_items (
      org_id TEXT NOT NULL,
      pay_run_id TEXT NOT NULL,
      employee_id TEXT NOT NULL,
      item_no BIGINT NOT NULL,
      item_type TEXT NOT NULL,
      category TEXT,
      milli_hours BIGINT,
      multiplier_milli BIGINT,
      amount_cents BIGINT NOT NULL,
      PRIMARY KEY (org_id, pay_run_id, employee_id, item_no)
    )`,
  ],
};
