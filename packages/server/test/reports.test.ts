import { booksReads } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/errors.js';
import { readConsistently } from '../src/domain/reports/ledger-totals.js';
import { headOf } from '../src/ledger/read.js';
import { financialYearStart } from '../src/domain/reports/statements.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import type { Queryable } from '../src/storage/types.js';
import { engines, refusal, startTestServer, type TestServer } from './harness.js';
import { approvedBill, inDays, today } from './payables-helpers.js';
import { postEntry, purchaseLines, report, saleLines } from './reports-helpers.js';

/**
 * The hand-checked books of docs/examples/reports.md (Harbour Cafe), posted out of date order on
 * purpose: the owner's capital, two cash sales, rent, a bank fee, and one sale in the previous
 * financial year.
 */
const BOOKS: readonly (readonly [string, string, Parameters<typeof postEntry>[4]])[] = [
  ['2026-08-01', 'Cash sale, catering', saleLines(55_000, 5_000, 'GST')],
  [
    '2026-07-01',
    "Owner's capital",
    [
      { account: '1000', debitCents: 1_000_000 },
      { account: '3000', creditCents: 1_000_000 },
    ],
  ],
  ['2026-06-30', 'Cash sale, June', saleLines(33_000, 3_000, 'GST')],
  ['2026-07-31', 'Rent, July', purchaseLines(220_000, 20_000, 'GST_ON_EXPENSES', '6500')],
  [
    '2026-08-15',
    'Bank fee',
    [
      { account: '6300', debitCents: 1_000, taxCode: 'INPUT_TAXED_EXPENSE', taxBaseCents: 1_000 },
      { account: '1000', creditCents: 1_000 },
    ],
  ],
  ['2026-07-10', 'Cash sale, function', saleLines(110_000, 10_000, 'GST')],
];

const TB_AUGUST = [
  { code: '1000', name: 'Business bank account', type: 'asset', debitCents: 977_000, creditCents: 0 },
  { code: '1200', name: 'GST paid (input tax credits)', type: 'asset', debitCents: 20_000, creditCents: 0 },
  { code: '2100', name: 'GST collected', type: 'liability', debitCents: 0, creditCents: 18_000 },
  { code: '3000', name: "Owner's equity", type: 'equity', debitCents: 0, creditCents: 1_000_000 },
  { code: '4000', name: 'Sales', type: 'revenue', debitCents: 0, creditCents: 180_000 },
  { code: '6300', name: 'Bank fees', type: 'expense', debitCents: 1_000, creditCents: 0 },
  { code: '6500', name: 'Rent', type: 'expense', debitCents: 200_000, creditCents: 0 },
];

describe.each(engines)('ledger reads and reports (%s)', (engine) => {
  let t: TestServer;
  let books: CreatedOrg;
  const journalIds = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestServer(engine);
    books = await t.org('Harbour Cafe');
    for (const [date, memo, lines] of BOOKS) journalIds.set(memo, await postEntry(t, books, date, memo, lines));
  });
  afterAll(async () => t.close());

  const read = (method: string, params: Record<string, unknown>, o: CreatedOrg = books) => t.post(o.keys.reader, method, params);

  describe('trial balance', () => {
    it('as at the end of August: every account with postings, debits equal credits', async () => {
      const r = await report(t, books, { type: 'trial_balance', asOf: '2026-08-31' });
      expect(r).toEqual({
        type: 'trial_balance',
        asOf: '2026-08-31',
        rows: TB_AUGUST,
        totals: { debitCents: 1_198_000, creditCents: 1_198_000 },
        balanced: true,
      });
    });

    it('as at 31 July leaves out later postings (the bank fee account has none yet)', async () => {
      const r = await report(t, books, { type: 'trial_balance', asOf: '2026-07-31' });
      expect(r.rows.map((x: { code: string }) => x.code)).toEqual(['1000', '1200', '2100', '3000', '4000', '6500']);
      expect(r.rows[0]).toMatchObject({ code: '1000', debitCents: 923_000 });
      expect(r.totals).toEqual({ debitCents: 1_143_000, creditCents: 1_143_000 });
    });

    it('defaults to today', async () => {
      const r = await report(t, books, { type: 'trial_balance' });
      expect(r.asOf).toBe(today());
      expect(r.rows).toEqual(TB_AUGUST);
    });

    it('an organisation with no postings has an empty, balanced trial balance', async () => {
      const r = await report(t, await t.org(), { type: 'trial_balance' });
      expect(r).toMatchObject({ rows: [], totals: { debitCents: 0, creditCents: 0 }, balanced: true });
    });
  });

  describe('profit and loss', () => {
    it('for July: revenue, expenses and the net (a loss is negative)', async () => {
      const r = await report(t, books, { type: 'profit_and_loss', from: '2026-07-01', to: '2026-07-31' });
      expect(r).toEqual({
        type: 'profit_and_loss',
        from: '2026-07-01',
        to: '2026-07-31',
        revenue: { accounts: [{ code: '4000', name: 'Sales', amountCents: 100_000 }], totalCents: 100_000 },
        expenses: { accounts: [{ code: '6500', name: 'Rent', amountCents: 200_000 }], totalCents: 200_000 },
        netProfitCents: -100_000,
      });
    });

    it.each([
      ['2026-07-10', '2026-07-10', 100_000, 0],
      ['2026-07-11', '2026-07-31', 0, 200_000],
      ['2026-06-30', '2026-06-30', 30_000, 0],
      ['2026-07-01', '2026-08-31', 150_000, 201_000],
      ['2026-08-02', '2026-08-15', 0, 1_000],
      ['2026-08-16', '2026-12-31', 0, 0],
    ])('from %s to %s includes both days: revenue %i, expenses %i', async (from, to, revenue, expenses) => {
      const r = await report(t, books, { type: 'profit_and_loss', from, to });
      expect([r.revenue.totalCents, r.expenses.totalCents, r.netProfitCents]).toEqual([revenue, expenses, revenue - expenses]);
    });
  });

  describe('balance sheet', () => {
    it('as at 31 August: earnings of this and earlier years sit in equity, and it balances', async () => {
      const r = await report(t, books, { type: 'balance_sheet', asOf: '2026-08-31' });
      expect(r).toEqual({
        type: 'balance_sheet',
        asOf: '2026-08-31',
        financialYearStart: '2026-07-01',
        assets: {
          accounts: [
            { code: '1000', name: 'Business bank account', amountCents: 977_000 },
            { code: '1200', name: 'GST paid (input tax credits)', amountCents: 20_000 },
          ],
          totalCents: 997_000,
        },
        liabilities: { accounts: [{ code: '2100', name: 'GST collected', amountCents: 18_000 }], totalCents: 18_000 },
        equity: {
          accounts: [
            { code: '3000', name: "Owner's equity", amountCents: 1_000_000 },
            { code: null, name: 'Earlier years’ earnings (not yet closed)', amountCents: 30_000 },
            { code: null, name: 'Current year earnings (from 2026-07-01)', amountCents: -51_000 },
          ],
          totalCents: 979_000,
        },
        currentYearEarningsCents: -51_000,
        priorYearsEarningsCents: 30_000,
        balanced: true,
      });
    });

    it('as at 30 June the June sale is the current (previous) financial year’s earnings', async () => {
      const r = await report(t, books, { type: 'balance_sheet', asOf: '2026-06-30' });
      expect(r.financialYearStart).toBe('2025-07-01');
      expect(r.assets.totalCents).toBe(33_000);
      expect(r.liabilities.totalCents).toBe(3_000);
      expect(r.equity.accounts).toEqual([{ code: null, name: 'Current year earnings (from 2025-07-01)', amountCents: 30_000 }]);
      expect(r.balanced).toBe(true);
    });

    it.each([
      ['2026-07-01', '2026-07-01'],
      ['2026-06-30', '2025-07-01'],
      ['2027-01-15', '2026-07-01'],
      ['2026-12-31', '2026-07-01'],
    ])('the financial year of %s starts %s', (date, start) => {
      expect(financialYearStart(date)).toBe(start);
    });
  });

  describe('books.accounts', () => {
    it('as at a date: debits, credits and the balance in the normal direction of every chart account', async () => {
      const r = await read('books.accounts', { asOf: '2026-07-31' });
      expect(r.status).toBe(200);
      const { asOf, accounts } = r.body.result;
      expect(asOf).toBe('2026-07-31');
      expect(accounts.length).toBeGreaterThanOrEqual(29);
      const by = Object.fromEntries(accounts.map((a: { code: string }) => [a.code, a]));
      expect(by['1000']).toEqual({
        code: '1000',
        name: 'Business bank account',
        type: 'asset',
        debitCents: 1_143_000,
        creditCents: 220_000,
        balanceCents: 923_000,
      });
      expect(by['2100']).toMatchObject({ debitCents: 0, creditCents: 13_000, balanceCents: 13_000 });
      expect(by['6500']).toMatchObject({ debitCents: 200_000, creditCents: 0, balanceCents: 200_000 });
      expect(by['6300']).toMatchObject({ debitCents: 0, creditCents: 0, balanceCents: 0 });
      expect(accounts.map((a: { code: string }) => a.code)).toEqual([...accounts.map((a: { code: string }) => a.code)].sort());
    });

    it('filters by type; asOf defaults to today', async () => {
      const r = await read('books.accounts', { type: 'revenue' });
      expect(r.body.result.asOf).toBe(today());
      expect(r.body.result.accounts.map((a: { code: string; balanceCents: number }) => [a.code, a.balanceCents])).toEqual([
        ['4000', 180_000],
        ['4100', 0],
        ['4200', 0],
        ['4300', 0], // gain on disposal of assets (migration 22)
        ['4400', 0], // foreign exchange gains and losses (migration 55)
      ]);
    });
  });

  describe('organisations are isolated in the ledger reads', () => {
    it('another organisation’s postings are in neither its accounts, its journals nor its reports', async () => {
      const other = await t.org();
      const theirs = await postEntry(t, other, '2026-07-05', 'Other organisation sale', saleLines(11_000, 1_000, 'GST'));
      const mine = (await read('books.accounts', { asOf: '2026-07-31' })).body.result.accounts;
      expect(mine.find((a: { code: string }) => a.code === '1000')).toMatchObject({
        debitCents: 1_143_000,
        creditCents: 220_000,
        balanceCents: 923_000,
      });
      const accounts = (await read('books.accounts', { asOf: '2026-07-31' }, other)).body.result.accounts;
      const nonZero = accounts.filter((a: { debitCents: number; creditCents: number }) => a.debitCents !== 0 || a.creditCents !== 0);
      expect(nonZero.map((a: { code: string; balanceCents: number }) => [a.code, a.balanceCents])).toEqual([
        ['1000', 11_000],
        ['2100', 1_000],
        ['4000', 10_000],
      ]);
      const journals = (await read('books.journals', {}, other)).body.result;
      expect(journals).toEqual({ journals: [expect.objectContaining({ id: theirs, memo: 'Other organisation sale' })], nextCursor: null });
      expect((await read('books.journals', { sourceId: theirs })).body.result.journals).toEqual([]);
      const tb = await report(t, other, { type: 'trial_balance', asOf: '2026-07-31' });
      expect(tb.totals).toEqual({ debitCents: 11_000, creditCents: 11_000 });
      expect((await report(t, books, { type: 'trial_balance', asOf: '2026-08-31' })).rows).toEqual(TB_AUGUST);
    });
  });

  describe('books.journals', () => {
    const dates = ['2026-06-30', '2026-07-01', '2026-07-10', '2026-07-31', '2026-08-01', '2026-08-15'];

    it('lists whole journals by date, each with its lines, tax tags and ledgerId', async () => {
      const r = await read('books.journals', {});
      expect(r.status).toBe(200);
      const js = r.body.result.journals;
      expect(js.map((j: { date: string }) => j.date)).toEqual(dates);
      expect(r.body.result.nextCursor).toBeNull();
      const sale = js.find((j: { memo: string }) => j.memo === 'Cash sale, function');
      expect(sale).toMatchObject({ id: journalIds.get('Cash sale, function'), date: '2026-07-10', source: { kind: 'test' } });
      expect(sale.ledgerId).toMatch(/^[0-9a-f]{8}$/);
      expect(sale.lines).toEqual([
        {
          lineNo: 1,
          accountCode: '1000',
          debitCents: 110_000,
          creditCents: 0,
          taxCode: null,
          taxBaseCents: 0,
          gstCents: 0,
          docId: null,
          description: 'Cash sale, function',
        },
        {
          lineNo: 2,
          accountCode: '4000',
          debitCents: 0,
          creditCents: 100_000,
          taxCode: 'GST',
          taxBaseCents: 110_000,
          gstCents: 10_000,
          docId: null,
          description: 'Cash sale, function',
        },
        {
          lineNo: 3,
          accountCode: '2100',
          debitCents: 0,
          creditCents: 10_000,
          taxCode: null,
          taxBaseCents: 0,
          gstCents: 0,
          docId: null,
          description: 'Cash sale, function',
        },
      ]);
    });

    it('pages with cursor and limit without repeating or skipping a journal', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await read('books.journals', { limit: 4, ...(cursor ? { cursor } : {}) });
        expect(r.status).toBe(200);
        seen.push(...r.body.result.journals.map((j: { date: string }) => j.date));
        cursor = r.body.result.nextCursor;
        pages += 1;
      } while (cursor !== null && pages < 10);
      expect(pages).toBe(2);
      expect(seen).toEqual(dates);
    });

    it('orders journals of one date by id, and the cursor splits them', async () => {
      const o = await t.org();
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push(await postEntry(t, o, '2026-09-01', `same day ${i}`, saleLines(1_100, 100, 'GST')));
      ids.push(await postEntry(t, o, '2026-08-31', 'the day before', saleLines(1_100, 100, 'GST')));
      // Ids made in one millisecond are not in creation order; within a date the order is by id.
      const sameDay = ids.slice(0, 3).sort();
      const first = await read('books.journals', { limit: 2 }, o);
      expect(first.body.result.journals.map((j: { id: string }) => j.id)).toEqual([ids[3], sameDay[0]]);
      const second = await read('books.journals', { limit: 2, cursor: first.body.result.nextCursor }, o);
      expect(second.body.result.journals.map((j: { id: string }) => j.id)).toEqual([sameDay[1], sameDay[2]]);
      expect(second.body.result.nextCursor).toBeNull();
    });

    it.each([
      [{ from: '2026-07-01', to: '2026-07-31' }, ['2026-07-01', '2026-07-10', '2026-07-31']],
      [{ from: '2026-08-01' }, ['2026-08-01', '2026-08-15']],
      [{ to: '2026-06-30' }, ['2026-06-30']],
      [{ accountCode: '6500' }, ['2026-07-31']],
      [{ accountCode: '2100', from: '2026-07-01' }, ['2026-07-10', '2026-08-01']],
      [{ accountCode: '7000' }, []],
    ])('filters %j', async (filter, expected) => {
      const r = await read('books.journals', filter);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.result.journals.map((j: { date: string }) => j.date)).toEqual(expected);
    });

    it('an account filter returns the whole journal, not only the matching line', async () => {
      const r = await read('books.journals', { accountCode: '6500' });
      expect(r.body.result.journals[0].lines.map((l: { accountCode: string }) => l.accountCode)).toEqual(['6500', '1200', '1000']);
    });

    it('filters by source id', async () => {
      const id = journalIds.get('Rent, July') as string;
      const r = await read('books.journals', { sourceId: id });
      expect(r.body.result.journals.map((j: { id: string }) => j.id)).toEqual([id]);
    });
  });

  describe('bad input names the field, and reads change nothing', () => {
    it.each([
      ['books.reports', { type: 'cash_forecast' }, `type: must be one of ${booksReads.REPORT_TYPES.join(', ')}`],
      ['books.reports', {}, 'type: is required'],
      ['books.reports', { type: 'profit_and_loss' }, 'from: is required for profit_and_loss; to: is required for profit_and_loss'],
      ['books.reports', { type: 'gst_summary', from: '2026-07-01' }, 'to: is required for gst_summary'],
      ['books.reports', { type: 'profit_and_loss', from: '2026-08-01', to: '2026-07-31' }, 'to: must be on or after from (2026-08-01)'],
      [
        'books.reports',
        { type: 'gst_summary', from: '2026-07-01', to: '2026-09-30', asOf: '2026-09-30' },
        'asOf: is not used by gst_summary, which covers a period (give from and to)',
      ],
      [
        'books.reports',
        { type: 'trial_balance', from: '2026-07-01' },
        'from: is not used by trial_balance, which is as at a date (give asOf)',
      ],
      ['books.reports', { type: 'trial_balance', asOf: '2026-02-30' }, 'asOf: must be a real calendar date'],
      // One message per field: a malformed date is not also called an unreal one.
      ['books.reports', { type: 'balance_sheet', asOf: '30/06/2026' }, 'asOf: must be a date YYYY-MM-DD'],
      // An unreal date is named once, and not compared with the other end of the period as well.
      ['books.reports', { type: 'profit_and_loss', from: '2026-13-45', to: '2026-07-31' }, 'from: must be a real calendar date'],
      ['books.journals', { from: '2026-8-1', to: '2026-07-01' }, 'from: must be a date YYYY-MM-DD'],
      // Other problems are still all listed, each with its field.
      [
        'books.reports',
        { type: 'profit_and_loss', asOf: '2026/06/30' },
        'asOf: must be a date YYYY-MM-DD; asOf: is not used by profit_and_loss, which covers a period (give from and to); from: is required for profit_and_loss; to: is required for profit_and_loss',
      ],
      ['books.reports', { type: 'aged_receivables', gstMethod: 'accounts' }, 'gstMethod: is only used by gst_summary'],
      ['books.reports', { type: 'gst_summary', from: '2026-07-01', to: '2026-09-31' }, 'to: must be a real calendar date'],
      [
        'books.reports',
        { type: 'gst_summary', from: '2026-07-01', to: '2026-09-30', gstMethod: 'cash' },
        'gstMethod: must be one of accounts, worksheet',
      ],
      ['books.reports', { type: 'trial_balance', bogus: 1 }, 'bogus: unknown field'],
      ['books.journals', { limit: 0 }, 'limit: must be an integer from 1 to 200'],
      ['books.journals', { limit: 201 }, 'limit: must be an integer from 1 to 200'],
      ['books.journals', { from: '2026-08-01', to: '2026-07-01' }, 'to: must be on or after from (2026-08-01)'],
      ['books.journals', { accountCode: 'bank' }, 'accountCode: must be an account code (3 to 6 digits)'],
      ['books.journals', { accountCode: '9999' }, 'accountCode: account 9999 is not in the chart'],
      ['books.journals', { cursor: 'jnl_nosuchjournal' }, 'cursor: no journal jnl_nosuchjournal in this organisation'],
      ['books.accounts', { type: 'cash' }, 'type: must be one of asset, liability, equity, revenue, expense'],
      ['books.accounts', { asOf: '2026-13-01' }, 'asOf: must be a real calendar date'],
    ])('%s %j → BAD_REQUEST', async (method, params, message) => {
      const before = (await t.get(books.keys.observer, 'snapshot')).body.head.seq;
      const r = await read(method, params);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(refusal('BAD_REQUEST', message));
      expect((await t.get(books.keys.observer, 'snapshot')).body.head.seq).toBe(before);
    });

    it('a successful report appends no event', async () => {
      const before = (await t.get(books.keys.observer, 'snapshot')).body.head.seq;
      for (const type of ['trial_balance', 'balance_sheet', 'aged_receivables', 'aged_payables']) await report(t, books, { type });
      await report(t, books, { type: 'gst_summary', from: '2026-07-01', to: '2026-09-30' });
      expect((await t.get(books.keys.observer, 'snapshot')).body.head.seq).toBe(before);
    });

    it('another organisation’s journal is not a cursor here', async () => {
      const other = await t.org();
      const r = await read('books.journals', { cursor: journalIds.get('Rent, July') }, other);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/^cursor: no journal /);
    });
  });

  describe('scope', () => {
    it.each(['books.accounts', 'books.journals', 'books.reports'])(
      '%s: an observer key is FORBIDDEN_SCOPE, reader and agent keys read',
      async (method) => {
        const params = method === 'books.reports' ? { type: 'trial_balance' } : {};
        const denied = await t.post(books.keys.observer, method, params);
        expect(denied.status).toBe(403);
        expect(denied.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: `missing scope books.read for ${method}` });
        expect((await t.post(books.keys.reader, method, params)).status).toBe(200);
        expect((await t.post(books.keys.agent, method, params)).status).toBe(200);
      },
    );
  });

  describe('aged receivables', () => {
    let aged: CreatedOrg;
    const ids: Record<string, string> = {};

    async function sent(payeeName: string, totalCents: number, dueDays: number) {
      const d = await t.post(aged.keys.agent, 'books.invoiceDraft', { payeeName, description: 'Catering', totalCents, dueDays });
      expect(d.status, JSON.stringify(d.body)).toBe(200);
      const s = await t.post(aged.keys.agent, 'books.invoiceSend', { id: d.body.result.id });
      expect(s.status, JSON.stringify(s.body)).toBe(200);
      return s.body.result.id as string;
    }

    beforeAll(async () => {
      aged = await t.org();
      ids.a = await sent('Harbour Cafe', 110_000, 0);
      ids.b = await sent('harbour  cafe', 55_000, 45);
      ids.c = await sent('Bay Books', 22_000, 0);
      ids.d = await sent('Dune Surf Club', 33_000, 0);
      const pay = await t.post(aged.keys.agent, 'books.invoiceRecordPayment', { id: ids.c, amountCents: 5_000 });
      expect(pay.status, JSON.stringify(pay.body)).toBe(200);
      const credit = await t.post(aged.keys.agent, 'books.invoiceCreditNote', { id: ids.a, amountCents: 22_000, reason: 'Short delivery' });
      expect(credit.status, JSON.stringify(credit.body)).toBe(200);
      const paid = await t.post(aged.keys.agent, 'books.invoiceRecordPayment', { id: ids.d, amountCents: 33_000 });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    });

    it.each([
      [0, 'current', 'currentCents'],
      [1, '1-30', 'days1to30Cents'],
      [30, '1-30', 'days1to30Cents'],
      [31, '31-60', 'days31to60Cents'],
      [60, '31-60', 'days31to60Cents'],
      [61, '61-90', 'days61to90Cents'],
      [90, '61-90', 'days61to90Cents'],
      [91, '90+', 'over90Cents'],
    ])('%i days overdue is in bucket %s', async (days, bucket, field) => {
      const r = await report(t, aged, { type: 'aged_receivables', asOf: inDays(days) });
      const cafe = r.parties.find((p: { party: string }) => p.party === 'Harbour Cafe');
      const a = cafe.items.find((i: { id: string }) => i.id === ids.a);
      expect(a).toMatchObject({ dueOn: today(), daysOverdue: days, bucket, totalCents: 110_000, outstandingCents: 88_000 });
      expect(cafe[field]).toBeGreaterThanOrEqual(88_000);
      expect(r.totals[field]).toBe(days === 0 ? 88_000 + 55_000 + 17_000 : 88_000 + 17_000);
      expect(r.controlAccount).toEqual({ code: '1100', name: 'Accounts receivable', balanceCents: 160_000 });
      expect(r.totals.totalCents).toBe(160_000);
    });

    it('groups one party across spellings; a paid invoice is not listed; partly paid shows what is left', async () => {
      const r = await report(t, aged, { type: 'aged_receivables', asOf: inDays(31) });
      expect(r.parties.map((p: { party: string }) => p.party)).toEqual(['Bay Books', 'Harbour Cafe']);
      const [bay, cafe] = r.parties;
      expect(bay).toMatchObject({ currentCents: 0, days31to60Cents: 17_000, totalCents: 17_000 });
      expect(bay.items).toEqual([
        {
          id: ids.c,
          reference: ids.c,
          issuedOn: today(),
          dueOn: today(),
          daysOverdue: 31,
          bucket: '31-60',
          totalCents: 22_000,
          outstandingCents: 17_000,
        },
      ]);
      expect(cafe).toMatchObject({ currentCents: 55_000, days31to60Cents: 88_000, totalCents: 143_000 });
      expect(cafe.items.map((i: { id: string; daysOverdue: number }) => [i.id, i.daysOverdue])).toEqual([
        [ids.a, 31],
        [ids.b, -14],
      ]);
      expect(r.totals).toEqual({
        currentCents: 55_000,
        days1to30Cents: 0,
        days31to60Cents: 105_000,
        days61to90Cents: 0,
        over90Cents: 0,
        totalCents: 160_000,
      });
    });

    it('as at yesterday nothing had been issued', async () => {
      const r = await report(t, aged, { type: 'aged_receivables', asOf: inDays(-1) });
      expect(r.parties).toEqual([]);
      expect(r.controlAccount.balanceCents).toBe(0);
      expect(r.totals.totalCents).toBe(0);
    });

    it('as at an earlier date: an invoice paid since is listed as owed then, one part paid since with what was owed then', async () => {
      const o = await t.org();
      const draft = async (payeeName: string) => {
        const d = await t.post(o.keys.agent, 'books.invoiceDraft', {
          payeeName,
          description: 'Catering',
          totalCents: 40_000,
          dueDays: 0,
          issueDate: inDays(-10),
        });
        expect(d.status, JSON.stringify(d.body)).toBe(200);
        expect((await t.post(o.keys.agent, 'books.invoiceSend', { id: d.body.result.id })).status).toBe(200);
        return d.body.result.id as string;
      };
      const settled = await draft('Paid Later Pty');
      const part = await draft('Part Later Pty');
      for (const [id, amountCents] of [
        [settled, 40_000],
        [part, 15_000],
      ] as const) {
        const pay = await t.post(o.keys.agent, 'books.invoiceRecordPayment', { id, amountCents, date: inDays(-2) });
        expect(pay.status, JSON.stringify(pay.body)).toBe(200);
      }
      const then = await report(t, o, { type: 'aged_receivables', asOf: inDays(-5) });
      const owed = then.parties.flatMap((p: { items: { id: string; outstandingCents: number }[] }) =>
        p.items.map((i) => [i.id, i.outstandingCents]),
      );
      expect(owed.sort()).toEqual(
        [
          [part, 40_000],
          [settled, 40_000],
        ].sort(),
      );
      expect(then.totals.days1to30Cents).toBe(80_000);
      const now = await report(t, o, { type: 'aged_receivables' });
      expect(now.parties.map((p: { party: string }) => p.party)).toEqual(['Part Later Pty']);
      expect(now.totals.totalCents).toBe(25_000);
    });

    it('a posting to the control account that belongs to no invoice is a broken invariant: INTERNAL', async () => {
      const o = await t.org();
      await postEntry(t, o, '2026-07-01', 'Stray receivable', [
        { account: '1100', debitCents: 1_000 },
        { account: '4200', creditCents: 1_000 },
      ]);
      const r = await t.post(o.keys.reader, 'books.reports', { type: 'aged_receivables' });
      expect(r.status).toBe(500);
      expect(r.body.error.code).toBe('INTERNAL');
      expect(r.body.error.message).not.toContain('1100');
      expect((await t.post(o.keys.reader, 'books.reports', { type: 'trial_balance' })).status).toBe(200);
    });
  });

  describe('aged payables', () => {
    let payer: CreatedOrg;
    let billA: string;
    let billB: string;

    beforeAll(async () => {
      payer = await t.org();
      billA = (await approvedBill(t, payer, { payeeName: 'Paper Co', description: 'Till rolls', totalCents: 12_650, dueDays: 0 })).id;
      billB = (await approvedBill(t, payer, { payeeName: 'Paper Co', description: 'Napkins', totalCents: 5_500, dueDays: 30 })).id;
    });

    it.each([
      [0, 'current', 'current'],
      [30, '1-30', 'current'],
      [31, '31-60', '1-30'],
      [61, '61-90', '31-60'],
      [91, '90+', '61-90'],
    ])('as at day %i the first bill is %s and the second %s; totals equal 2000 Accounts payable', async (days, a, b) => {
      const r = await report(t, payer, { type: 'aged_payables', asOf: inDays(days) });
      expect(r.parties).toHaveLength(1);
      const items = r.parties[0].items.map((i: { id: string; bucket: string; outstandingCents: number }) => [
        i.id,
        i.bucket,
        i.outstandingCents,
      ]);
      expect(items).toEqual([
        [billA, a, 12_650],
        [billB, b, 5_500],
      ]);
      expect(r.controlAccount).toEqual({ code: '2000', name: 'Accounts payable', balanceCents: 18_150 });
      expect(r.totals.totalCents).toBe(18_150);
    });
  });

  it('several reads on the shared reader see one snapshot while postings commit between them: no retry, no CONFLICT', async () => {
    const o = await t.org();
    await postEntry(t, o, '2026-08-01', 'Opening sale', saleLines(11_000, 1_000, 'GST'));
    let runs = 0;
    const seen = await readConsistently(t.db.reader, o.orgId, async (q) => {
      runs += 1;
      const first = (await headOf(q, o.orgId))?.seq;
      const sales = async () => (await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM journals WHERE org_id = ?', [o.orgId]))?.n;
      const before = Number(await sales());
      // Two postings commit while the report is between its reads.
      await postEntry(t, o, '2026-08-02', 'Later sale', saleLines(22_000, 2_000, 'GST'));
      await postEntry(t, o, '2026-08-03', 'Later sale', saleLines(33_000, 3_000, 'GST'));
      return { first, last: (await headOf(q, o.orgId))?.seq, before, after: Number(await sales()) };
    });
    expect(runs).toBe(1);
    expect(seen.last).toBe(seen.first);
    expect(seen.after).toBe(seen.before);
    // Outside the snapshot both postings are there.
    expect((await headOf(t.db.reader, o.orgId))?.seq).toBe(Number(seen.first) + 2);
  });

  describe('GST summary from real invoices, credit notes and bills', () => {
    it('a credit note in the period nets against the sale; a bill adds to G11 and 1B', async () => {
      const o = await t.org();
      const d = await t.post(o.keys.agent, 'books.invoiceDraft', {
        payeeName: 'Seaside Events',
        description: 'Wedding',
        totalCents: 143_000,
        dueDays: 14,
        lines: [
          { description: 'Catering', amountCents: 110_000 },
          { description: 'Fruit boxes', amountCents: 33_000, taxCode: 'GST_FREE' },
        ],
      });
      expect((await t.post(o.keys.agent, 'books.invoiceSend', { id: d.body.result.id })).status).toBe(200);
      const cn = await t.post(o.keys.agent, 'books.invoiceCreditNote', {
        id: d.body.result.id,
        amountCents: 22_000,
        reason: '8 guests cancelled',
        taxCode: 'GST',
      });
      expect(cn.status, JSON.stringify(cn.body)).toBe(200);
      await approvedBill(t, o, { payeeName: 'Paper Co', description: 'Till rolls', totalCents: 12_650 });
      const r = await report(t, o, { type: 'gst_summary', from: today(), to: today() });
      expect(r.exactCents).toMatchObject({ G1: 121_000, G3: 33_000, G11: 12_650, '1A': 8_000, '1B': 1_150 });
      expect(r.front).toEqual({ G1: 1_210, G2: 0, G3: 330, G10: 0, G11: 126, '1A': 80, '1B': 11, W1: 0, W2: 0 });
      expect(r.summary).toEqual({ '4': 0, '8A': 80, '8B': 11, '9': 69, position: 'payable', netGst: 69, net: 69 });
    });

    it('the accounts method and the worksheet can differ by rounding; gstMethod chooses', async () => {
      const o = await t.org();
      await postEntry(t, o, '2026-07-15', 'Coffee $10.99', saleLines(1_099, 100, 'GST'));
      const accounts = await report(t, o, { type: 'gst_summary', from: '2026-07-01', to: '2026-09-30' });
      const sheet = await report(t, o, { type: 'gst_summary', from: '2026-07-01', to: '2026-09-30', gstMethod: 'worksheet' });
      expect(accounts.front['1A']).toBe(1); // 100 cents of GST recorded
      expect(sheet.front['1A']).toBe(0); // G1 $10 → G9 = ⌊10 ÷ 11⌋ = 0
      expect(sheet.worksheetCents.G9).toBe(100);
    });

    it('a refund-only period is a refund: the reduction is a decreasing adjustment (G18, 1B), nothing is dropped', async () => {
      const o = await t.org();
      await postEntry(t, o, '2026-08-01', 'Refund', [
        { account: '4000', debitCents: 10_000, taxCode: 'GST', taxBaseCents: -11_000, gstCents: -1_000 },
        { account: '2100', debitCents: 1_000 },
        { account: '1000', creditCents: 11_000 },
      ]);
      for (const gstMethod of ['accounts', 'worksheet']) {
        const r = await report(t, o, { type: 'gst_summary', from: '2026-07-01', to: '2026-09-30', gstMethod });
        expect(r.exactCents).toMatchObject({ G1: 0, G7: 0, G18: 11_000, '1A': 0, '1B': 1_000 });
        expect(r.front).toMatchObject({ G1: 0, '1A': 0, '1B': 10 });
        expect(r.worksheet).toMatchObject({ G1: 0, G9: 0, G18: 110, G19: 110, G20: 10 });
        expect(r.summary).toEqual({ '4': 0, '8A': 0, '8B': 10, '9': 10, position: 'refundable', netGst: -10, net: -10 });
      }
    });
  });
});

describe('readConsistently', () => {
  /** A reader whose organisation head moves `moves` times, once per read of it. */
  function reader(moves: number): Queryable & { reads: number } {
    let seq = 10;
    const q = {
      reads: 0,
      get<T>() {
        q.reads += 1;
        const value = { seq, row_hash: 'x' } as T;
        if (moves > 0) {
          seq += 1;
          moves -= 1;
        }
        return Promise.resolve(value);
      },
      all<T>() {
        return Promise.resolve([] as T[]);
      },
      run() {
        return Promise.resolve({ changes: 0 });
      },
    };
    return q;
  }

  it('returns the first result read while the head stood still', async () => {
    let runs = 0;
    const q = reader(2);
    await expect(readConsistently(q, 'org', () => Promise.resolve((runs += 1)))).resolves.toBe(2);
    expect(runs).toBe(2);
  });

  it('gives up with CONFLICT when every attempt saw a commit', async () => {
    const q = reader(100);
    const err = await readConsistently(q, 'org', () => Promise.resolve(1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'CONFLICT' });
  });
});
