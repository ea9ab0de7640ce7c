import type { Migration } from '../../storage/migration-types.js';

/**
 * Terminations, migration 44 (books.employeeTerminate, payroll/termination.ts).
 *
 * One row per employee: the last day employed, the reason and its STP cessation type code, the
 * leave loading on unused annual leave in hundredths of a percent (17.5% is 1750), and the signed
 * pay run that paid the final pay (null until then; a recall of that run clears it again).
 *
 * A final pay's line keeps what it paid beyond the prorated ordinary pay, so the signer, STP and
 * the payroll report read the run as it was drafted: the termination date and cessation code, the
 * days employed of the days in the period, the unused annual leave paid out (milli-hours, the leave
 * ledger's unit) and its value, the loading, and the PAYG withheld on them. Other lines keep the
 * defaults (no termination date, zeros).
 */
export const migration: Migration = {
  id: 44,
  name: 'people: terminations and final pay',
  statements: [
    `CREATE TABLE employee_terminations (
      org_id TEXT NOT NULL,
      employee_id TEXT NOT NULL,
      termination_date TEXT NOT NULL,
      reason TEXT NOT NULL,
      cessation_code TEXT NOT NULL,
      leave_loading_hundredths BIGINT,
      final_pay_run_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, employee_id)
    )`,
    'ALTER TABLE pay_run_lines ADD COLUMN termination_date TEXT',
    'ALTER TABLE pay_run_lines ADD COLUMN cessation_code TEXT',
    'ALTER TABLE pay_run_lines ADD COLUMN days_employed BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE pay_run_lines ADD COLUMN days_in_period BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE pay_run_lines ADD COLUMN unused_leave_milli_hours BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE pay_run_lines ADD COLUMN unused_leave_cents BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE pay_run_lines ADD COLUMN leave_loading_cents BIGINT NOT NULL DEFAULT 0',
    'ALTER TABLE pay_run_lines ADD COLUMN termination_payg_cents BIGINT NOT NULL DEFAULT 0',
  ],
};
