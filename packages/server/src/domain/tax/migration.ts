import type { Migration } from '../../storage/migration-types.js';
import { chartBackfillStatements } from '../gl/chart.js';

/**
 * Tax, migration 21: one row per BAS. The labels and figures are stored as
 * prepared (JSON text: whole-dollar labels, exact cents, summary) because that is what the human
 * signs and what is lodged; taxReturn recomputes them. 2150 ATO integrated client account joins
 * the chart of organisations created before it (new ones get it from seedChart).
 */
export const migration: Migration = {
  id: 21,
  name: 'tax: BAS returns and the ATO integrated client account',
  statements: [
    `CREATE TABLE bas_returns (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      period_start TEXT NOT NULL,
      period_end TEXT NOT NULL,
      basis TEXT NOT NULL,
      status TEXT NOT NULL,
      figures TEXT NOT NULL,
      note TEXT,
      journal_id TEXT,
      outbox_id TEXT,
      receipt_file TEXT,
      receipt_sha256 TEXT,
      lodged_at TEXT,
      prepared_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE INDEX bas_returns_period ON bas_returns (org_id, period_start, period_end)',
    ...chartBackfillStatements(['2150']),
  ],
};
