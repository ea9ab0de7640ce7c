import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountSumSql, CURSOR_JOURNAL_SUM_SQL, pageSql } from '../src/domain/reports/account-transactions.js';
import { comparisonDate, comparisonPeriod, monthEarlier, yearEarlier } from '../src/domain/reports/compare.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import type { SqliteDatabase } from '../src/storage/sqlite.js';
import { engines, migratedSqliteForSuite, refusal, startTestServer, type TestServer } from './harness.js';
import { postEntry, purchaseLines, report, saleLines } from './reports-helpers.js';

/**
 * The general ledger of one account (account_transactions) and the comparative profit and loss
 * and balance sheet, on books small enough to check by hand. Each posting is on its own date, so
 * the order of the ledger (date, then journal id) does not depend on the random journal ids.
 *
 * Bank account 1000 in July 2026: opening 1 000 000 (capital in June); +110 000 sale (5 July);
 * −55 000 rent (6 July); +22 000 sale (20 July); +3 000 and +2 000 (two deposits on one journal,
 * 25 July): closing 1 082 000, debits 137 000, credits 55 000.
 */
const BOOKS: readonly (readonly [string, string, Parameters<typeof postEntry>[4]])[] = [
  [
    '2026-06-20',
    "Owner's capital",
    [
      { account: '1000', debitCents: 1_000_000 },
      { account: '3000', creditCents: 1_000_000 },
    ],
  ],
  ['2026-07-05', 'Cash sale, catering', saleLines(110_000, 10_000, 'GST')],
  ['2026-07-06', 'Rent, July', purchaseLines(55_000, 5_000, 'GST_ON_EXPENSES', '6500')],
  ['2026-07-20', 'Cash sale, function', saleLines(22_000, 2_000, 'GST')],
  [
    '2026-07-25',
    'Capital top-up',
    [
      { account: '1000', debitCents: 3_000, description: 'Deposit one' },
      { account: '1000', debitCents: 2_000, description: 'Deposit two' },
      { account: '3000', creditCents: 5_000 },
    ],
  ],
  ['2026-08-03', 'Cash sale, August', saleLines(33_000, 3_000, 'GST')],
  [
    '2026-08-10',
    'Bank fee',
    [
      { account: '6300', debitCents: 1_000, taxCode: 'INPUT_TAXED_EXPENSE', taxBaseCents: 1_000 },
      { account: '1000', creditCents: 1_000 },
    ],
  ],
  ['2026-08-31', 'Rent, August', purchaseLines(55_000, 5_000, 'GST_ON_EXPENSES', '6500')],
];

describe('comparison periods', () => {
  it('previous_period is as many days, just before; previous_year the same dates a year earlier', () => {
    expect(comparisonPeriod('previous_period', '2026-08-01', '2026-08-31')).toEqual({ from: '2026-07-01', to: '2026-07-31' });
    expect(comparisonPeriod('previous_period', '2026-03-01', '2026-03-31')).toEqual({ from: '2026-01-29', to: '2026-02-28' });
    expect(comparisonPeriod('previous_period', '2026-07-01', '2027-06-30')).toEqual({ from: '2025-07-01', to: '2026-06-30' });
    expect(comparisonPeriod('previous_year', '2028-02-01', '2028-02-29')).toEqual({ from: '2027-02-01', to: '2027-02-28' });
    expect(yearEarlier('2026-12-31')).toBe('2025-12-31');
  });

  it('a balance sheet compares with a month or a year earlier, a month end with a month end', () => {
    expect(monthEarlier('2026-03-31')).toBe('2026-02-28');
    expect(monthEarlier('2026-03-15')).toBe('2026-02-15');
    expect(monthEarlier('2026-04-30')).toBe('2026-03-31');
    expect(monthEarlier('2026-01-31')).toBe('2025-12-31');
    expect(monthEarlier('2028-03-29')).toBe('2028-02-29');
    expect(comparisonDate('previous_year', '2028-02-29')).toBe('2027-02-28');
  });
});

describe.each(engines)('account transactions and comparatives (%s)', (engine) => {
  let t: TestServer;
  let books: CreatedOrg;
  let other: CreatedOrg;
  let otherJournal: string;
  const journalIds = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestServer(engine);
    books = await t.org('Harbour Cafe');
    other = await t.org('Other Books');
    for (const [date, memo, lines] of BOOKS) journalIds.set(memo, await postEntry(t, books, date, memo, lines));
    otherJournal = await postEntry(t, other, '2026-07-10', 'Someone else’s sale', saleLines(99_000, 9_000, 'GST'));
  });
  afterAll(async () => t.close());

  const july = { type: 'account_transactions', accountCode: '1000', from: '2026-07-01', to: '2026-07-31' };

  describe('account_transactions', () => {
    it('the bank account in July: opening, each line with its running balance, closing', async () => {
      const r = await report(t, books, july);
      expect(r).toMatchObject({
        type: 'account_transactions',
        from: '2026-07-01',
        to: '2026-07-31',
        account: { code: '1000', name: 'Business bank account', type: 'asset' },
        openingBalanceCents: 1_000_000,
        closingBalanceCents: 1_082_000,
        totals: { debitCents: 137_000, creditCents: 55_000 },
        nextCursor: null,
      });
      const row = (memo: string, lineNo: number, debitCents: number, creditCents: number, balanceCents: number, description = memo) => ({
        journalId: journalIds.get(memo),
        lineNo,
        source: { kind: 'test', id: journalIds.get(memo) },
        memo,
        description,
        debitCents,
        creditCents,
        balanceCents,
      });
      expect(r.lines).toEqual([
        { date: '2026-07-05', ...row('Cash sale, catering', 1, 110_000, 0, 1_110_000) },
        { date: '2026-07-06', ...row('Rent, July', 3, 0, 55_000, 1_055_000) },
        { date: '2026-07-20', ...row('Cash sale, function', 1, 22_000, 0, 1_077_000) },
        { date: '2026-07-25', ...row('Capital top-up', 1, 3_000, 0, 1_080_000, 'Deposit one') },
        { date: '2026-07-25', ...row('Capital top-up', 2, 2_000, 0, 1_082_000, 'Deposit two') },
      ]);
    });

    it('paged by two: the same lines and running balances, a cursor inside a journal included', async () => {
      const whole = (await report(t, books, july)).lines;
      const seen: unknown[] = [];
      let cursor: string | null = null;
      const pageSizes: number[] = [];
      do {
        const r = await report(t, books, { ...july, limit: 2, ...(cursor ? { cursor } : {}) });
        // Opening and closing are the period's on every page.
        expect(r.openingBalanceCents).toBe(1_000_000);
        expect(r.closingBalanceCents).toBe(1_082_000);
        seen.push(...r.lines);
        pageSizes.push(r.lines.length);
        cursor = r.nextCursor;
      } while (cursor !== null);
      expect(pageSizes).toEqual([2, 2, 1]);
      expect(seen).toEqual(whole);
    });

    it('a credit-normal account runs in its own direction; an account with no lines has its balances only', async () => {
      const sales = await report(t, books, { ...july, accountCode: '4000' });
      expect(sales.openingBalanceCents).toBe(0);
      expect(sales.lines.map((l: { balanceCents: number }) => l.balanceCents)).toEqual([100_000, 120_000]);
      expect(sales.closingBalanceCents).toBe(120_000);
      const equity = await report(t, books, { ...july, accountCode: '3000', from: '2026-08-01', to: '2026-08-31' });
      expect(equity).toMatchObject({ openingBalanceCents: 1_005_000, lines: [], closingBalanceCents: 1_005_000, nextCursor: null });
    });

    it('another organisation’s postings never appear, and its journal is not a cursor here', async () => {
      const r = await report(t, books, july);
      expect(r.lines.map((l: { journalId: string }) => l.journalId)).not.toContain(otherJournal);
      const theirs = await report(t, other, july);
      expect(theirs).toMatchObject({ openingBalanceCents: 0, closingBalanceCents: 99_000 });
      expect(theirs.lines.map((l: { journalId: string }) => l.journalId)).toEqual([otherJournal]);
      const refused = await t.post(books.keys.reader, 'books.reports', { ...july, cursor: `1-${otherJournal}` });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(refusal('BAD_REQUEST', `cursor: no journal ${otherJournal} in this organisation`));
    });

    it('a cursor of another period is refused: the running balance would be wrong', async () => {
      const rent = journalIds.get('Rent, July') ?? '';
      const r = await t.post(books.keys.reader, 'books.reports', { ...july, from: '2026-08-01', to: '2026-08-31', cursor: `3-${rent}` });
      expect(r.status).toBe(400);
      expect(r.body).toEqual(refusal('BAD_REQUEST', `cursor: journal ${rent} is not in 2026-08-01..2026-08-31`));
    });
  });

  describe('comparatives', () => {
    it('profit and loss, August against July (previous_period), line by line', async () => {
      const r = await report(t, books, { type: 'profit_and_loss', from: '2026-08-01', to: '2026-08-31', compare: 'previous_period' });
      expect(r).toEqual({
        type: 'profit_and_loss',
        from: '2026-08-01',
        to: '2026-08-31',
        revenue: {
          accounts: [{ code: '4000', name: 'Sales', amountCents: 30_000, comparisonCents: 120_000, differenceCents: -90_000 }],
          totalCents: 30_000,
          comparisonTotalCents: 120_000,
          differenceCents: -90_000,
        },
        expenses: {
          accounts: [
            { code: '6300', name: 'Bank fees', amountCents: 1_000, comparisonCents: 0, differenceCents: 1_000 },
            { code: '6500', name: 'Rent', amountCents: 50_000, comparisonCents: 50_000, differenceCents: 0 },
          ],
          totalCents: 51_000,
          comparisonTotalCents: 50_000,
          differenceCents: 1_000,
        },
        netProfitCents: -21_000,
        comparison: { compare: 'previous_period', from: '2026-07-01', to: '2026-07-31', netProfitCents: 70_000, differenceCents: -91_000 },
      });
    });

    it('an account only in the comparison period shows 0 now', async () => {
      const r = await report(t, books, { type: 'profit_and_loss', from: '2026-09-01', to: '2026-09-30', compare: 'previous_period' });
      expect(r.comparison).toMatchObject({ from: '2026-08-02', to: '2026-08-31', netProfitCents: -21_000 });
      expect(r.expenses.accounts).toEqual([
        { code: '6300', name: 'Bank fees', amountCents: 0, comparisonCents: 1_000, differenceCents: -1_000 },
        { code: '6500', name: 'Rent', amountCents: 0, comparisonCents: 50_000, differenceCents: -50_000 },
      ]);
    });

    it('without compare the statements are as before (no comparison fields)', async () => {
      const r = await report(t, books, { type: 'profit_and_loss', from: '2026-08-01', to: '2026-08-31' });
      expect(r.comparison).toBeUndefined();
      expect(r.revenue).toEqual({ accounts: [{ code: '4000', name: 'Sales', amountCents: 30_000 }], totalCents: 30_000 });
    });

    it('balance sheet at 31 August against 31 July and against a year earlier', async () => {
      const r = await report(t, books, { type: 'balance_sheet', asOf: '2026-08-31', compare: 'previous_period' });
      expect(r.comparison).toEqual({ compare: 'previous_period', asOf: '2026-07-31', financialYearStart: '2026-07-01' });
      expect(r.balanced).toBe(true);
      expect(r.assets.accounts.find((a: { code: string }) => a.code === '1000')).toEqual({
        code: '1000',
        name: 'Business bank account',
        amountCents: 1_059_000,
        comparisonCents: 1_082_000,
        differenceCents: -23_000,
      });
      expect(r.equity.accounts.find((a: { code: string | null }) => a.code === null)).toEqual({
        code: null,
        name: 'Current year earnings (from 2026-07-01)',
        amountCents: 49_000,
        comparisonCents: 70_000,
        differenceCents: -21_000,
      });
      expect(r.assets.totalCents - r.assets.comparisonTotalCents).toBe(r.assets.differenceCents);
      expect(r.assets.comparisonTotalCents).toBe(r.liabilities.comparisonTotalCents + r.equity.comparisonTotalCents);

      const y = await report(t, books, { type: 'balance_sheet', asOf: '2026-08-31', compare: 'previous_year' });
      expect(y.comparison).toEqual({ compare: 'previous_year', asOf: '2025-08-31', financialYearStart: '2025-07-01' });
      expect(y.assets.comparisonTotalCents).toBe(0);
      expect(y.assets.differenceCents).toBe(y.assets.totalCents);
    });
  });

  describe('bad input names the field and changes nothing', () => {
    it.each([
      [{ type: 'account_transactions', from: '2026-07-01', to: '2026-07-31' }, 'accountCode: is required for account_transactions'],
      [{ ...july, accountCode: '9999' }, 'accountCode: account 9999 is not in the chart'],
      [{ ...july, accountCode: 'bank' }, 'accountCode: must be an account code (3 to 6 digits)'],
      [
        { type: 'account_transactions', accountCode: '1000' },
        'from: is required for account_transactions; to: is required for account_transactions',
      ],
      [{ ...july, to: '2026-06-30' }, 'to: must be on or after from (2026-07-01)'],
      [{ ...july, limit: 0 }, 'limit: must be an integer from 1 to 200'],
      [{ ...july, limit: 201 }, 'limit: must be an integer from 1 to 200'],
      [{ ...july, cursor: 'jnl_x' }, 'cursor: must be a nextCursor of account_transactions'],
      [{ ...july, cursor: '1-jnl_nosuchjournal' }, 'cursor: no journal jnl_nosuchjournal in this organisation'],
      [{ type: 'trial_balance', accountCode: '1000' }, 'accountCode: is only used by account_transactions'],
      [
        { type: 'profit_and_loss', from: '2026-07-01', to: '2026-07-31', limit: 5 },
        'limit: is only used by account_transactions, aged_receivables, aged_payables',
      ],
      [
        { type: 'gst_summary', from: '2026-07-01', to: '2026-07-31', compare: 'previous_period' },
        'compare: is only used by profit_and_loss and balance_sheet',
      ],
      [
        { type: 'profit_and_loss', from: '2026-07-01', to: '2026-07-31', compare: 'last_week' },
        'compare: must be one of previous_period, previous_year',
      ],
    ])('%j → BAD_REQUEST', async (params, message) => {
      const before = (await t.get(books.keys.observer, 'snapshot')).body.head.seq;
      const r = await t.post(books.keys.reader, 'books.reports', params);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(refusal('BAD_REQUEST', message));
      expect((await t.get(books.keys.observer, 'snapshot')).body.head.seq).toBe(before);
    });
  });
});

interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

function planOf(db: SqliteDatabase, sql: string): PlanRow[] {
  const raw = (db.reader as unknown as { raw: { prepare(s: string): { all(...p: unknown[]): PlanRow[] } } }).raw;
  return raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array((sql.match(/\?/g) ?? []).length).fill('x'));
}

/**
 * What bounds a page's cost on SQLite: the journals are walked in date order through
 * journals_date (no sort of every line of the account), each journal's lines on the account
 * looked up by journal id; the sums read journal_lines from its covering index, the journals as a
 * set built once.
 */
describe('account_transactions: SQLite plans', () => {
  const db = migratedSqliteForSuite();

  it.each([false, true])('a page (paged: %s) walks journals_date in order and looks each journal up', (paged) => {
    const plan = planOf(db(), pageSql(paged, 51));
    const details = plan.map((r) => r.detail);
    expect(details[0], JSON.stringify(details)).toMatch(/^SEARCH j USING (COVERING )?INDEX journals_date/);
    expect(details[1], JSON.stringify(details)).toMatch(
      /^SEARCH l USING INDEX journal_lines_account_journal \(org_id=\? AND account_code=\? AND journal_id=\?\)/,
    );
    expect(details.filter((d) => /^SCAN /.test(d) || /TEMP B-TREE FOR ORDER BY/.test(d))).toEqual([]);
  });

  it.each([accountSumSql('j.date < ?'), accountSumSql('j.date >= ? AND j.date <= ?'), CURSOR_JOURNAL_SUM_SQL])(
    'a sum reads the covering index: %s',
    (sql) => {
      const details = planOf(db(), sql).map((r) => r.detail);
      expect(
        details.some((d) => /journal_lines_account_journal|journal_lines_pkey|PRIMARY KEY|sqlite_autoindex/.test(d)),
        JSON.stringify(details),
      ).toBe(true);
      expect(details.filter((d) => /^SCAN /.test(d) || /CORRELATED/.test(d))).toEqual([]);
    },
  );
});
