import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthsBetween, monthWindows, yearMonths } from '../src/domain/reports/budget-report.js';
import { exportOrganisation } from '../src/ops/export.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill } from './payables-helpers.js';

/**
 * Budgets (books.budgetSet) and the budget_vs_actual report, through HTTP on both engines. The
 * books of the main case, financial year from 1 July 2026 (the default start month), quarter
 * July to September 2026:
 *
 *   budgets   4000 Sales 1 000 000 a month; 6500 Rent 200 000 a month; 6600 Office supplies
 *             50 000 in July and September (0 in August), then 50 000 every other month.
 *   actuals   4000: invoices of 880 000 (15 Jul), 1 320 000 (10 Aug), 1 100 000 (5 Sep), GST
 *             1/11 each, so credits of 800 000, 1 200 000, 1 000 000;
 *             6500: a bill of 220 000 (1 Jul, GST 20 000, so 200 000) and a journal of 250 000
 *             (31 Aug), nothing in September; 6300 Bank fees (no budget): 1 500 (20 Sep);
 *             outside the report: capital (Dr 1000 / Cr 3000, balance sheet) and a sale on 5 Oct.
 *
 *   4000  budget 3 000 000, actual 3 000 000, variance 0 (Jul −200 000, Aug +200 000, Sep 0)
 *   6300  budget 0, actual 1 500, variance 1 500
 *   6500  budget 600 000, actual 450 000, variance −150 000 (Jul 0, Aug +50 000, Sep −200 000)
 *   6600  budget 100 000, actual 0, variance −100 000
 *   expenses budget 700 000, actual 451 500, variance −248 500
 *   net profit budget 2 300 000, actual 2 548 500, variance 248 500
 */

const FY = '2026-07-01';
const SALES = Array.from({ length: 12 }, () => 1_000_000);
const RENT = Array.from({ length: 12 }, () => 200_000);
const OFFICE = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 50_000 : 0));
const f = (budgetCents: number, actualCents: number) => ({ budgetCents, actualCents, varianceCents: actualCents - budgetCents });

describe('budget months', () => {
  it('counts months across years, twelve from a year start, and cuts whole-month periods', () => {
    expect(monthsBetween('2026-11-01', '2027-02-28')).toEqual(['2026-11', '2026-12', '2027-01', '2027-02']);
    expect(yearMonths('2026-07-01')).toEqual([
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
      '2026-11',
      '2026-12',
      '2027-01',
      '2027-02',
      '2027-03',
      '2027-04',
      '2027-05',
      '2027-06',
    ]);
    expect(monthWindows('2024-02-10', '2027-03-05', 36)).toEqual([
      { from: '2024-02-01', to: '2027-01-31' },
      { from: '2027-02-01', to: '2027-03-31' },
    ]);
    expect(monthWindows('2028-02-29', '2028-02-29', 36)).toEqual([{ from: '2028-02-01', to: '2028-02-29' }]);
  });
});

describe.each(engines)('budgets against actuals (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    t = await startTestServer(engine);
    dir = mkdtempSync(join(tmpdir(), 'fd-budgets-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const { post, ok, seq, lastEvent } = agentCalls(() => t);
  const refused = async (o: CreatedOrg, method: string, params: Record<string, unknown>, message: RegExp) => {
    const before = await seq(o);
    const r = await post(o, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.code).toBe('BAD_REQUEST');
    expect(r.body.error.message).toMatch(message);
    expect(await seq(o)).toBe(before);
  };
  const sale = async (o: CreatedOrg, issueDate: string, totalCents: number) => {
    const d = await ok(o, 'books.invoiceDraft', {
      payeeName: 'Harbour Events',
      description: 'Catering',
      totalCents,
      dueDays: 14,
      issueDate,
    });
    await ok(o, 'books.invoiceSend', { id: d.id });
  };
  const journal = (o: CreatedOrg, date: string, debit: string, credit: string, cents: number) =>
    ok(o, 'books.journalPost', {
      date,
      memo: 'Budget test',
      lines: [
        { accountCode: debit, debitCents: cents },
        { accountCode: credit, creditCents: cents },
      ],
    });
  const quarter = (o: CreatedOrg) => ok(o, 'books.reports', { type: 'budget_vs_actual', from: '2026-07-01', to: '2026-09-30' });

  it('sets a year of budgets and compares a quarter with the ledger, figures by hand', async () => {
    const o = await t.org();
    const set = await ok(o, 'books.budgetSet', {
      financialYearStart: FY,
      lines: [
        { accountCode: '4000', monthlyCents: SALES },
        { accountCode: '6500', monthlyCents: RENT },
        { accountCode: '6600', monthlyCents: OFFICE },
      ],
    });
    expect(set).toMatchObject({
      financialYearStart: '2026-07-01',
      financialYearEnd: '2027-06-30',
      lines: [
        { accountCode: '4000', name: 'Sales', type: 'revenue', monthlyCents: SALES, totalCents: 12_000_000, changed: true },
        { accountCode: '6500', name: 'Rent', type: 'expense', totalCents: 2_400_000, changed: true },
        { accountCode: '6600', name: 'Office supplies', type: 'expense', totalCents: 300_000, changed: true },
      ],
    });
    expect(set.noop).toBeUndefined();
    expect(await lastEvent(o)).toMatchObject({
      kind: 'books.budget.set',
      entity_id: 'budget-2026-07-01',
      payload: {
        financialYearStart: FY,
        lines: [
          { accountCode: '4000', monthlyCents: SALES, previousMonthlyCents: Array(12).fill(0) },
          { accountCode: '6500', monthlyCents: RENT, previousMonthlyCents: Array(12).fill(0) },
          { accountCode: '6600', monthlyCents: OFFICE, previousMonthlyCents: Array(12).fill(0) },
        ],
      },
    });

    await journal(o, '2026-06-15', '1000', '3000', 5_000_000);
    await sale(o, '2026-07-15', 880_000);
    await sale(o, '2026-08-10', 1_320_000);
    await sale(o, '2026-09-05', 1_100_000);
    await approvedBill(t, o, {
      payeeName: 'Harbour Properties',
      description: 'Rent, July',
      issueDate: '2026-07-01',
      lines: [{ description: 'Rent, July', amountCents: 220_000, taxCode: 'GST_ON_EXPENSES', accountCode: '6500' }],
    });
    await journal(o, '2026-08-31', '6500', '1000', 250_000);
    await journal(o, '2026-09-20', '6300', '1000', 1_500);
    await journal(o, '2026-10-05', '1000', '4000', 700_000);

    const r = await quarter(o);
    expect(r.type).toBe('budget_vs_actual');
    expect(r.accounts).toEqual([
      { code: '4000', name: 'Sales', type: 'revenue', ...f(3_000_000, 3_000_000) },
      { code: '6300', name: 'Bank fees', type: 'expense', ...f(0, 1_500) },
      { code: '6500', name: 'Rent', type: 'expense', ...f(600_000, 450_000) },
      { code: '6600', name: 'Office supplies', type: 'expense', ...f(100_000, 0) },
    ]);
    expect(r.lines).toEqual([
      { code: '4000', month: '2026-07', ...f(1_000_000, 800_000) },
      { code: '4000', month: '2026-08', ...f(1_000_000, 1_200_000) },
      { code: '4000', month: '2026-09', ...f(1_000_000, 1_000_000) },
      { code: '6300', month: '2026-07', ...f(0, 0) },
      { code: '6300', month: '2026-08', ...f(0, 0) },
      { code: '6300', month: '2026-09', ...f(0, 1_500) },
      { code: '6500', month: '2026-07', ...f(200_000, 200_000) },
      { code: '6500', month: '2026-08', ...f(200_000, 250_000) },
      { code: '6500', month: '2026-09', ...f(200_000, 0) },
      { code: '6600', month: '2026-07', ...f(50_000, 0) },
      { code: '6600', month: '2026-08', ...f(0, 0) },
      { code: '6600', month: '2026-09', ...f(50_000, 0) },
    ]);
    expect(r.months).toEqual([
      { month: '2026-07', revenue: f(1_000_000, 800_000), expenses: f(250_000, 200_000), netProfit: f(750_000, 600_000) },
      { month: '2026-08', revenue: f(1_000_000, 1_200_000), expenses: f(200_000, 250_000), netProfit: f(800_000, 950_000) },
      { month: '2026-09', revenue: f(1_000_000, 1_000_000), expenses: f(250_000, 1_500), netProfit: f(750_000, 998_500) },
    ]);
    expect(r.totals).toEqual({ revenue: f(3_000_000, 3_000_000), expenses: f(700_000, 451_500), netProfit: f(2_300_000, 2_548_500) });
    // The actuals are the profit and loss's.
    const pl = await ok(o, 'books.reports', { type: 'profit_and_loss', from: '2026-07-01', to: '2026-09-30' });
    expect(pl.netProfitCents).toBe(r.totals.netProfit.actualCents);

    // The same figures again: a no-op answering the event that set them.
    const before = await seq(o);
    const again = await ok(o, 'books.budgetSet', {
      financialYearStart: FY,
      lines: [
        { accountCode: '6500', monthlyCents: RENT },
        { accountCode: '4000', monthlyCents: SALES },
      ],
    });
    expect(again).toMatchObject({ noop: true, ledgerId: set.ledgerId, lines: [{ changed: false }, { changed: false }] });
    expect(await seq(o)).toBe(before);

    // Other figures for rent replace its year (one event, old and new); sales stay as they were.
    const rent = Array.from({ length: 12 }, (_, i) => (i < 2 ? 200_000 : 260_000));
    const replaced = await ok(o, 'books.budgetSet', {
      financialYearStart: FY,
      lines: [
        { accountCode: '4000', monthlyCents: SALES },
        { accountCode: '6500', monthlyCents: rent },
      ],
    });
    expect(replaced.noop).toBeUndefined();
    expect(replaced.ledgerId).not.toBe(set.ledgerId);
    expect(replaced.lines.map((l: { changed: boolean }) => l.changed)).toEqual([false, true]);
    expect(await seq(o)).toBe(before + 1);
    expect((await lastEvent(o)).payload).toEqual({
      financialYearStart: FY,
      lines: [{ accountCode: '6500', monthlyCents: rent, previousMonthlyCents: RENT }],
    });
    // Twelve zeros remove office supplies' budget: with no actuals it leaves the report.
    await ok(o, 'books.budgetSet', { financialYearStart: FY, lines: [{ accountCode: '6600', monthlyCents: Array(12).fill(0) }] });
    const after = await quarter(o);
    expect(after.accounts.map((a: { code: string }) => a.code)).toEqual(['4000', '6300', '6500']);
    // Rent 200 000 + 200 000 + 260 000; expenses 661 500 with bank fees.
    expect(after.accounts[2]).toMatchObject(f(660_000, 450_000));
    expect(after.totals.netProfit).toEqual(f(3_000_000 - 660_000, 2_548_500));

    // The export writes the report over whole months, each row with its period.
    const out = join(dir, `export-${engine}`);
    await exportOrganisation(t.db, { orgId: o.orgId, orgSlug: o.slug, from: '2026-07-10', to: '2026-09-15', dir: out });
    const [head = '', ...body] = readFileSync(join(out, 'budget_vs_actual.csv'), 'utf8').trimEnd().split('\r\n');
    const columns = head.split(',');
    const rows = body.map((r) => Object.fromEntries(r.split(',').map((v, i) => [columns[i], v])));
    expect(columns.slice(0, 3)).toEqual(['from', 'to', 'path']);
    expect(rows.find((r) => r.path === 'lines' && r.code === '4000' && r.month === '2026-08')).toMatchObject({
      from: '2026-07-01',
      to: '2026-09-30',
      budgetCents: '1000000',
      actualCents: '1200000',
      varianceCents: '200000',
    });
    // September after the replacement: revenue 1 000 000 on budget; expenses budget 260 000 (rent),
    // actual 1 500 (bank fees); net profit budget 740 000, actual 998 500, variance 258 500.
    expect(rows.find((r) => r.path === 'months' && r.month === '2026-09')).toMatchObject({ 'netProfit.varianceCents': '258500' });
  });

  it('spans two financial years, each month with its own year budget', async () => {
    const o = await t.org();
    const june = Array.from({ length: 12 }, (_, i) => 900_000 + i);
    await ok(o, 'books.budgetSet', { financialYearStart: '2025-07-01', lines: [{ accountCode: '4000', monthlyCents: june }] });
    await ok(o, 'books.budgetSet', { financialYearStart: FY, lines: [{ accountCode: '4000', monthlyCents: SALES }] });
    await journal(o, '2026-06-30', '1000', '4000', 950_000);
    const r = await ok(o, 'books.reports', { type: 'budget_vs_actual', from: '2026-06-01', to: '2026-07-31' });
    // June is the 12th month of the year from July 2025: 900 011.
    expect(r.lines).toEqual([
      { code: '4000', month: '2026-06', ...f(900_011, 950_000) },
      { code: '4000', month: '2026-07', ...f(1_000_000, 0) },
    ]);
    expect(r.totals.revenue).toEqual(f(1_900_011, 950_000));
    expect(r.totals.expenses).toEqual(f(0, 0));
    // Nothing budgeted or posted: no accounts, every month at zero.
    const empty = await ok(o, 'books.reports', { type: 'budget_vs_actual', from: '2020-01-01', to: '2020-02-29' });
    expect(empty).toMatchObject({ accounts: [], lines: [], totals: { netProfit: f(0, 0) } });
    expect(empty.months).toHaveLength(2);
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const o = await t.org();
    const line = (accountCode: string, monthlyCents: unknown = SALES) => ({ accountCode, monthlyCents });
    const budget = (...lines: unknown[]) => ({ financialYearStart: FY, lines });
    await refused(o, 'books.budgetSet', budget(line('4000', [...SALES, 1])), /lines\[0\]\.monthlyCents: must be 12 amounts in cents/);
    await refused(
      o,
      'books.budgetSet',
      budget(line('4000', [1, 2, 3, 10.5, 5, 6, 7, 8, 9, 10, 11, 12])),
      /lines\[0\]\.monthlyCents\[3\]: must be an integer number of cents/,
    );
    await refused(
      o,
      'books.budgetSet',
      budget(line('4000', [...SALES.slice(1), 20_000_000_000])),
      /lines\[0\]\.monthlyCents\[11\]: must be at most 10000000000/,
    );
    await refused(
      o,
      'books.budgetSet',
      budget(line('4000'), line('6500', RENT), line('4000')),
      /lines\[2\]\.accountCode: names account 4000 again \(lines\[0\]\)/,
    );
    await refused(
      o,
      'books.budgetSet',
      budget(line('4000'), line('6500', RENT), line('6600', RENT), line('4999', RENT), line('1000', RENT)),
      /lines\[3\]\.accountCode: account 4999 does not exist; lines\[4\]\.accountCode: account 1000 \(Business bank account\) is an asset account; budgets are for revenue and expense accounts/,
    );
    await refused(o, 'books.budgetSet', budget(), /lines: must name at least one account/);
    await refused(
      o,
      'books.budgetSet',
      { financialYearStart: FY, lines: Array.from({ length: 201 }, (_, i) => line(String(1000 + i))) },
      /lines: must name at most 200 accounts/,
    );
    await refused(
      o,
      'books.budgetSet',
      { financialYearStart: '2026-01-01', lines: [line('4000')] },
      /financialYearStart: must be the first day of a financial year; this organisation's years start on 1 July \(2026-07-01\)/,
    );
    await refused(
      o,
      'books.budgetSet',
      { financialYearStart: '2026-07-02', lines: [line('4000')] },
      /financialYearStart: must be the first day/,
    );

    // An archived account takes only twelve zeros (nothing to remove here: a no-op).
    await ok(o, 'books.accountCreate', { code: '6955', name: 'Trade shows', type: 'expense' });
    await ok(o, 'books.accountArchive', { code: '6955' });
    await refused(o, 'books.budgetSet', budget(line('6955', RENT)), /lines\[0\]\.accountCode: account 6955 \(Trade shows\) is archived/);
    const zeros = await ok(o, 'books.budgetSet', budget(line('6955', Array(12).fill(0))));
    expect(zeros).toMatchObject({ noop: true, ledgerId: null, lines: [{ accountCode: '6955', totalCents: 0, changed: false }] });

    const before = await seq(o);
    const reader = await t.post(o.keys.reader, 'books.budgetSet', budget(line('4000')));
    expect(reader.body.error.code).toBe('FORBIDDEN_SCOPE');
    expect(await seq(o)).toBe(before);

    const report = (from: string, to: string) => ({ type: 'budget_vs_actual', from, to });
    await refused(o, 'books.reports', report('2026-07-02', '2026-09-30'), /from: must be the first day of a month for budget_vs_actual/);
    await refused(o, 'books.reports', report('2026-07-01', '2026-09-29'), /to: must be the last day of a month for budget_vs_actual/);
    await refused(o, 'books.reports', report('2026-07-01', '2029-07-31'), /to: budget_vs_actual covers at most 36 months \(37 asked\)/);
    await refused(o, 'books.reports', { type: 'budget_vs_actual', asOf: '2026-07-31' }, /asOf: is not used by budget_vs_actual/);
    expect(await ok(o, 'books.reports', report('2026-07-01', '2029-06-30'))).toMatchObject({ accounts: [] });
  });
});
