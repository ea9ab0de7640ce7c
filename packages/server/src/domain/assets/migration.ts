import type { Migration } from '../../storage/migration-types.js';

/**
 * Fixed assets. `asset_details` holds what a captured bill's 1500 line
 * carries until the bill is approved (the bill's lines are the payables area's table); `assets` is
 * the register; `asset_runs` one row per month-end depreciation run (unique per periodEnd: a rerun
 * is a no-op); `asset_depreciation` each amount posted to 1510 for an asset, by a run or by a
 * disposal (run_id NULL), dated as its journal, so the register as at any date is a sum.
 * The two disposal accounts are added to every existing organisation's chart (new ones get them
 * from CHART); NOT EXISTS because migration 3's backfill gives an organisation created before the
 * ledger the whole of CHART, these included.
 */
const account = (code: string, name: string, type: string, key: string) =>
  `INSERT INTO accounts (org_id, code, name, type, system_key, created_at)
   SELECT o.id, '${code}', '${name}', '${type}', '${key}', o.created_at FROM organisations o
   WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.org_id = o.id AND a.code = '${code}')`;

export const migration: Migration = {
  id: 22,
  name: 'assets: fixed asset register, depreciation runs, disposal accounts',
  statements: [
    `CREATE TABLE asset_details (
      org_id TEXT NOT NULL,
      source_id TEXT NOT NULL,
      line_no BIGINT NOT NULL,
      name TEXT NOT NULL,
      method TEXT NOT NULL,
      life_years BIGINT NOT NULL,
      PRIMARY KEY (org_id, source_id, line_no)
    )`,
    `CREATE TABLE assets (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      name TEXT NOT NULL,
      method TEXT NOT NULL,
      life_years BIGINT NOT NULL,
      start_date TEXT NOT NULL,
      cost_cents BIGINT NOT NULL,
      source_kind TEXT NOT NULL,
      source_id TEXT NOT NULL,
      source_line_no BIGINT NOT NULL,
      journal_id TEXT NOT NULL,
      status TEXT NOT NULL,
      accumulated_cents BIGINT NOT NULL,
      depreciated_to TEXT,
      closed_on TEXT,
      proceeds_cents BIGINT,
      tax_code TEXT,
      gst_cents BIGINT,
      depreciation_cents BIGINT,
      gain_cents BIGINT,
      loss_cents BIGINT,
      disposal_journal_id TEXT,
      ledger_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE INDEX assets_source ON assets (org_id, source_id)`,
    `CREATE TABLE asset_runs (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      period_end TEXT NOT NULL,
      total_cents BIGINT NOT NULL,
      journal_id TEXT,
      ledger_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (org_id, id),
      UNIQUE (org_id, period_end)
    )`,
    `CREATE TABLE asset_depreciation (
      org_id TEXT NOT NULL,
      asset_id TEXT NOT NULL,
      date TEXT NOT NULL,
      run_id TEXT,
      period_from TEXT NOT NULL,
      days BIGINT NOT NULL,
      amount_cents BIGINT NOT NULL,
      journal_id TEXT NOT NULL,
      PRIMARY KEY (org_id, asset_id, date)
    )`,
    `CREATE INDEX asset_depreciation_run ON asset_depreciation (org_id, run_id)`,
    account('4300', 'Gain on disposal of assets', 'revenue', 'asset_disposal_gain'),
    account('7100', 'Loss on disposal of assets', 'expense', 'asset_disposal_loss'),
  ],
};
