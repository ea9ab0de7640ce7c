import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 32: opening balances and corrections. Nothing is deleted: a match
 * undone by books.lineUnmatch stays, marked reversed (with the journal that reversed it); a
 * dishonoured or unmatched invoice payment stays, marked reversed; a reversed manual journal names
 * its reversal (journals.reversed_by). A returned supplier payment is a row of its own, keyed by
 * the bill and the payment (run or match) it undoes, so the same return again is a no-op.
 * opening_balances holds an organisation's one conversion and the hash of its params.
 */
export const migration: Migration = {
  id: 32,
  name: 'opening balances and corrections: reversed matches, payments and journals',
  statements: [
    'ALTER TABLE bank_feed_matches ADD COLUMN reversed_at TEXT',
    'ALTER TABLE bank_feed_matches ADD COLUMN reversal_journal_id TEXT',
    'ALTER TABLE bank_feed_matches ADD COLUMN reversal_ledger_id TEXT',
    'ALTER TABLE invoice_payments ADD COLUMN reversed_on TEXT',
    // 'dishonoured' (books.invoicePaymentDishonour) or 'unmatched' (books.lineUnmatch).
    'ALTER TABLE invoice_payments ADD COLUMN reversal_kind TEXT',
    'ALTER TABLE invoice_payments ADD COLUMN reversal_reason TEXT',
    'ALTER TABLE invoice_payments ADD COLUMN reversal_journal_id TEXT',
    'ALTER TABLE invoice_payments ADD COLUMN reversal_ledger_id TEXT',
    'CREATE INDEX invoice_payments_journal ON invoice_payments (org_id, journal_id)',
    'ALTER TABLE journals ADD COLUMN reversed_by TEXT',
    `CREATE TABLE bill_payment_returns (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      bill_id TEXT NOT NULL,
      payment_id TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      returned_on TEXT NOT NULL,
      reason TEXT NOT NULL,
      journal_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE UNIQUE INDEX bill_payment_returns_payment ON bill_payment_returns (org_id, bill_id, payment_id)',
    `CREATE TABLE opening_balances (
      org_id TEXT NOT NULL,
      conversion_date TEXT NOT NULL,
      params_hash TEXT NOT NULL,
      journal_id TEXT NOT NULL,
      result TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id)
    )`,
  ],
};
