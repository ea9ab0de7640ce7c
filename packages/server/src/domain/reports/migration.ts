import type { Migration } from '../../storage/migrations.js';

/**
 * Read cost of the ledger reports (issue 8 item 2). Every report and books.accounts sums
 * journal_lines per account (or per document of a control account) over the journals of a date
 * range. This index holds everything those sums read, org_id first: they run from the index
 * alone, already in account order, and probe each line's journal_id against the range's journal
 * set (ledger-totals.ts JOURNALS_IN_RANGE). It starts with (org_id, account_code), so it replaces
 * journal_lines_account, which is dropped rather than kept as a second index every posting writes.
 * CREATE INDEX builds it over the existing rows on both engines: nothing to backfill.
 */
export const migration: Migration = {
  id: 11,
  name: 'reports: covering index for ledger totals',
  statements: [
    `CREATE INDEX journal_lines_totals ON journal_lines (org_id, account_code, doc_id, journal_id, debit_cents, credit_cents)`,
    `DROP INDEX journal_lines_account`,
  ],
};
