import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 56: payments of bills in another currency (books.billRecordPayment). Bills in AUD are
 * paid by runs and bank-line matches, which the ledger alone records; a foreign bill's payment
 * keeps its amount in the bill's currency (what is outstanding in it is the total less these),
 * its rate, the AUD paid and the AUD carrying value it settled.
 */
export const migration: Migration = {
  id: 56,
  name: 'payables: payments of foreign bills',
  statements: [
    `CREATE TABLE bill_fx_payments (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      bill_id TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      paid_on TEXT NOT NULL,
      reference TEXT NOT NULL,
      exchange_rate_micros BIGINT NOT NULL,
      aud_amount_cents BIGINT NOT NULL,
      aud_settled_cents BIGINT NOT NULL,
      journal_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE INDEX bill_fx_payments_bill ON bill_fx_payments (org_id, bill_id)',
  ],
};
