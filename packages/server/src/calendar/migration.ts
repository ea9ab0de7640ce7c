import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 28: the indexes the calendar (meetings.list) reads by date, so that
 * each source reads only the rows of its date range, in order, and stops after a page: invoices by
 * due date, promises to pay by promised date, approvals by status and expiry, pay runs by payment
 * date. Bills already have (org_id, status, due_on) and BAS returns (org_id, period_start, …).
 */
export const migration: Migration = {
  id: 28,
  name: 'calendar: date indexes for meetings.list',
  statements: [
    'CREATE INDEX invoices_due ON invoices (org_id, due_on, id)',
    'CREATE INDEX invoice_promises_due ON invoice_promises (org_id, promised_on, id)',
    'CREATE INDEX approvals_expiry ON approvals (org_id, status, expires_at)',
    'CREATE INDEX pay_runs_payment ON pay_runs (org_id, payment_date, id)',
  ],
};
