import type { Migration } from '../../storage/migration-types.js';
import { chartBackfillStatements } from './chart.js';

/**
 * The general ledger (3): accounts, journals and their lines, and the chart every organisation
 * starts with. The statements keep the text, indentation included, that installations ran when
 * the list lived in storage, so SQLite's stored definitions read the same for old files and new.
 */
export const migration: Migration = {
  id: 3,
  name: 'general ledger',
  statements: [
    `CREATE TABLE accounts (
        org_id TEXT NOT NULL,
        code TEXT NOT NULL,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        system_key TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (org_id, code)
      )`,
    `CREATE TABLE journals (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        date TEXT NOT NULL,
        memo TEXT NOT NULL,
        source_kind TEXT NOT NULL,
        source_id TEXT NOT NULL,
        ledger_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
    `CREATE INDEX journals_date ON journals (org_id, date, id)`,
    `CREATE INDEX journals_source ON journals (org_id, source_id)`,
    // One row per posting. tax_base_cents / gst_cents tag the line that carries a supply
    // (GST-inclusive amount and its GST) for the BAS; other lines carry zero.
    `CREATE TABLE journal_lines (
        org_id TEXT NOT NULL,
        journal_id TEXT NOT NULL,
        line_no BIGINT NOT NULL,
        account_code TEXT NOT NULL,
        debit_cents BIGINT NOT NULL,
        credit_cents BIGINT NOT NULL,
        tax_code TEXT,
        tax_base_cents BIGINT NOT NULL,
        gst_cents BIGINT NOT NULL,
        description TEXT NOT NULL,
        doc_id TEXT,
        PRIMARY KEY (org_id, journal_id, line_no)
      )`,
    `CREATE INDEX journal_lines_account ON journal_lines (org_id, account_code)`,
    `CREATE INDEX journal_lines_doc ON journal_lines (org_id, doc_id)`,
    ...chartBackfillStatements(),
  ],
};
