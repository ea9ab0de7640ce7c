import type { Migration } from '../../storage/migration-types.js';
import { chartBackfillStatements } from '../gl/chart.js';

/**
 * Migration 55: other currencies. The owner's exchange rates table (one rate per currency and
 * date, in millionths of AUD per unit: an integer, never a float). Invoices and bills may carry a
 * currency other than AUD: NULL means AUD (every row written before), so AUD documents are stored
 * and answered exactly as before. A foreign document keeps its rate and its AUD total and GST as
 * posted; a foreign invoice's payment keeps its own rate, the AUD banked and the AUD carrying
 * value it settled (amount_cents is then in the invoice's currency). Every organisation gets 4400
 * Foreign exchange gains and losses, where realised differences go (only where the code is free).
 */
export const migration: Migration = {
  id: 55,
  name: 'currencies: exchange rates, foreign invoices and bills',
  statements: [
    `CREATE TABLE exchange_rates (
      org_id TEXT NOT NULL,
      currency TEXT NOT NULL,
      date TEXT NOT NULL,
      rate_micros BIGINT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, currency, date)
    )`,
    'ALTER TABLE invoices ADD COLUMN currency TEXT',
    'ALTER TABLE invoices ADD COLUMN exchange_rate_micros BIGINT',
    'ALTER TABLE invoices ADD COLUMN aud_total_cents BIGINT',
    'ALTER TABLE invoices ADD COLUMN aud_gst_cents BIGINT',
    'ALTER TABLE invoice_payments ADD COLUMN exchange_rate_micros BIGINT',
    'ALTER TABLE invoice_payments ADD COLUMN aud_amount_cents BIGINT',
    'ALTER TABLE invoice_payments ADD COLUMN aud_settled_cents BIGINT',
    'ALTER TABLE bills ADD COLUMN currency TEXT',
    'ALTER TABLE bills ADD COLUMN exchange_rate_micros BIGINT',
    'ALTER TABLE bills ADD COLUMN aud_total_cents BIGINT',
    'ALTER TABLE bills ADD COLUMN aud_gst_cents BIGINT',
    ...chartBackfillStatements(['4400']),
  ],
};
