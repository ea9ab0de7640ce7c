import type { Migration } from '../../storage/migration-types.js';

/**
 * Super payments (books.superPay), migration 41. A payment pays the super guarantee of signed pay
 * runs in full, from one bank account record, on one date; `super_payment_runs` names the runs it
 * settled, one row per run with what it paid of it (the run's credit to 2300: super guarantee and
 * any salary sacrificed to super), keyed by the run: a run is paid by at most one super payment, and the
 * obligations read (books.taxObligations) takes exactly these runs out of the oldest-first
 * settlement of other payments to 2300. `funds` keeps each fund's amount and contribution file as
 * the act wrote them (JSON), so a repeat answers the payment without recomputing it. `through` is
 * the date a payment by date was asked for (null for a list of runs): the same through again,
 * when nothing more is owed through it, answers this payment. No TFN anywhere.
 */
export const migration: Migration = {
  id: 41,
  name: 'payroll: super payments',
  statements: [
    `CREATE TABLE super_payments (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      payment_date TEXT NOT NULL,
      funding_account_id TEXT NOT NULL,
      account_code TEXT NOT NULL,
      through TEXT,
      total_cents BIGINT NOT NULL,
      funds TEXT NOT NULL,
      journal_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE TABLE super_payment_runs (
      org_id TEXT NOT NULL,
      pay_run_id TEXT NOT NULL,
      super_payment_id TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      PRIMARY KEY (org_id, pay_run_id)
    )`,
    // A payment's runs, for its answer and its repeat.
    'CREATE INDEX super_payment_runs_payment ON super_payment_runs (org_id, super_payment_id)',
  ],
};
