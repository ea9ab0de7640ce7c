import type { Migration } from '../../storage/migration-types.js';

/**
 * Reconciliation: bank feed lines, their matches to documents, imports, and receipts. Applied
 * after the general ledger (see schema.ts). Receipts keep their bytes as base64 TEXT
 * in the database (BLOB and bytea are not portable), so both engines and every backup keep a
 * receipt with the records it supports.
 */
export const migration: Migration = {
  id: 6,
  name: 'reconciliation: bank feed lines, matches, receipts',
  statements: [
    `CREATE TABLE bank_feed_imports (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      account_code TEXT NOT NULL,
      source TEXT NOT NULL,
      received BIGINT NOT NULL,
      imported BIGINT NOT NULL,
      duplicates BIGINT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    // status: unmatched → part_matched → matched; unmatched → held (above the materiality floor)
    // → matched by matchHoldResolve; unmatched → recoded (→ recoded again). matched_cents is
    // unsigned; held_* is the proposed match waiting for a human; recode_* the current recode.
    `CREATE TABLE bank_feed_lines (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      account_code TEXT NOT NULL,
      date TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      description TEXT NOT NULL,
      reference TEXT,
      balance_cents BIGINT,
      fingerprint TEXT NOT NULL,
      import_id TEXT NOT NULL,
      status TEXT NOT NULL,
      matched_cents BIGINT NOT NULL DEFAULT 0,
      held_kind TEXT,
      held_target_id TEXT,
      held_amount_cents BIGINT,
      recode_account TEXT,
      recode_tax_code TEXT,
      recode_gst_cents BIGINT,
      recode_journal_id TEXT,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE UNIQUE INDEX bank_feed_lines_fingerprint ON bank_feed_lines (org_id, account_code, fingerprint)`,
    `CREATE INDEX bank_feed_lines_status ON bank_feed_lines (org_id, status, account_code, date, id)`,
    `CREATE INDEX bank_feed_lines_date ON bank_feed_lines (org_id, account_code, date, id)`,
    // One row per allocation of a line to a document (or to an existing bank journal).
    `CREATE TABLE bank_feed_matches (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      line_id TEXT NOT NULL,
      target_kind TEXT NOT NULL,
      target_id TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      journal_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE INDEX bank_feed_matches_line ON bank_feed_matches (org_id, line_id)`,
    `CREATE INDEX bank_feed_matches_journal ON bank_feed_matches (org_id, journal_id)`,
    `CREATE TABLE receipts (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      size_bytes BIGINT NOT NULL,
      mime_type TEXT NOT NULL,
      filename TEXT NOT NULL,
      content_base64 TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    `CREATE UNIQUE INDEX receipts_sha256 ON receipts (org_id, sha256)`,
    `CREATE TABLE receipt_links (
      org_id TEXT NOT NULL,
      receipt_id TEXT NOT NULL,
      target_kind TEXT NOT NULL,
      target_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, receipt_id, target_kind, target_id)
    )`,
    `CREATE INDEX receipt_links_target ON receipt_links (org_id, target_kind, target_id)`,
  ],
};
