import type { Migration } from '../../storage/migration-types.js';
import { chartBackfillStatements } from '../gl/chart.js';

/**
 * Migration 48: bad debts (books.invoiceWriteOff). An invoice written off keeps the write-off's
 * date, reason, amount, GST and journal beside its row; rows written before hold NULL. Every
 * organisation has 7000 Bad debts (the chart has carried it since the ledger began; the backfill
 * only adds it where it is missing, so the posting never meets a chart without it).
 */
export const migration: Migration = {
  id: 48,
  name: 'receivables: invoices written off as bad debts',
  statements: [
    'ALTER TABLE invoices ADD COLUMN written_off_on TEXT',
    'ALTER TABLE invoices ADD COLUMN write_off_reason TEXT',
    'ALTER TABLE invoices ADD COLUMN write_off_cents BIGINT',
    'ALTER TABLE invoices ADD COLUMN write_off_gst_cents BIGINT',
    'ALTER TABLE invoices ADD COLUMN write_off_journal_id TEXT',
    ...chartBackfillStatements(['7000']),
  ],
};
