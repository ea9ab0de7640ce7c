import type { Migration } from '../../storage/migration-types.js';

/**
 * Read cost of the ledger reads. The reports, books.accounts and the bank feed
 * sum journal_lines per account, or per document of a control account, over the journals of a
 * date range, probing each line's journal_id against the range's journal set
 * (ledger-totals.ts JOURNALS_IN_RANGE). Two indexes, org_id first, hold everything those sums read,
 * so they run from an index alone:
 * - journal_lines_account_journal (org_id, account_code, journal_id, amounts): totals per account
 *   in account order, one account's balance, and "this journal's lines on that account" lookups
 *   (bank journals, books.journals by account) by equality on all three keys;
 * - journal_lines_account_doc (org_id, account_code, doc_id, journal_id, amounts): balances per
 *   document of a control account, already in document order, and what is owed on given documents.
 * One index with doc_id third served the sums but left the planner scanning a whole account per
 * journal where a query names account and journal (the bank journals behind suggestions): each
 * shape gets the index whose equality prefix it has. journal_lines_account (org_id, account_code) is
 * a prefix of both and is dropped rather than written by every posting for nothing.
 * CREATE INDEX builds them over the existing rows on both engines: nothing to backfill.
 */
export const migration: Migration = {
  id: 11,
  name: 'reports: covering indexes for ledger totals',
  statements: [
    `CREATE INDEX journal_lines_account_journal ON journal_lines (org_id, account_code, journal_id, debit_cents, credit_cents)`,
    `CREATE INDEX journal_lines_account_doc ON journal_lines (org_id, account_code, doc_id, journal_id, debit_cents, credit_cents)`,
    `DROP INDEX journal_lines_account`,
  ],
};
