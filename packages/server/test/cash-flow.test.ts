import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBankAccount, parseBankAccountCreate } from '../src/domain/banking/accounts.js';
import { CHART } from '../src/domain/gl/chart.js';
import { CASH_FLOW_LINES, CASH_ROLES, GST_ROLES } from '../src/domain/reports/cash-flow.js';
import { allocateJournal, shareProRata } from './cash-flow-reference.js';
import { cashFlowDaysFromLines, migration as cashFlowMigration, keptCashFlowDays } from '../src/domain/reports/cash-flow-days.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { agentCalls, engines, refusal, startTestServer, type TestServer } from './harness.js';
import { postEntry, purchaseLines, report, saleLines } from './reports-helpers.js';

/**
 * The statement of cash flows (books.reports type cash_flow), direct method, through HTTP on both
 * engines, over a financial year built by hand. Cash is 1000, the savings account record 1010 and
 * 1300 Bank clearing (a transfer in transit). All figures in cents.
 *
 * Conversion (books.openingBalances, 30 June 2025): 1000 Dr 2 000 000, 1010 Dr 500 000, an invoice
 * owed 110 000 (1100), a bill owed 55 000 (2000), 3000 Cr 2 555 000 (2 610 000 each side).
 * Opening cash on 1 July 2025 = 2 000 000 + 500 000 = 2 500 000.
 *
 * The year (cash accounts' side; classification):
 *   2025-07-15 invoice paid: Dr 1000 110 000 / Cr 1100                       customers   +110 000
 *   2025-07-20 bill paid: Dr 2000 / Cr 1000 55 000                             suppliers    −55 000
 *   2025-08-01 owner's capital: Dr 1000 1 000 000 / Cr 3000                   owner     +1 000 000
 *   2025-08-20 cash sale 220 000 incl. GST 20 000 (4000 200 000, 2100 20 000)  customers   +220 000
 *   2025-09-05 asset bought 330 000 incl. GST 30 000 (1500 300 000, 1200)      plant      −330 000
 *   2025-09-14 pay run paid from 1000: Dr 6100 300 000, Dr 6200 34 500, Cr 2200 50 000, Cr 2300 34 500,
 *              Cr 1000 250 000 (net). Only 6100 moves the way the cash does:   employees  −250 000
 *   2025-10-21 BAS settled (no cash): Dr 2100 20 000, Dr 2200 50 000, Cr 1200 30 000, Cr 2150 40 000
 *   2025-10-28 BAS paid: Dr 2150 / Cr 1000 40 000                              ato         −40 000
 *   2025-10-28 super paid: Dr 2300 / Cr 1000 34 500                            super       −34 500
 *   2025-11-03 transfer out: Dr 1300 / Cr 1000 500 000; 11-04 in: Dr 1010 / Cr 1300: cash to cash, no flow
 *   2026-02-01 director's loan: Dr 1000 1 500 000 / Cr 2800 (a liability of the owner's own)  borrowings +1 500 000
 *   2026-02-10 laptop and software, one payment: Dr 6600 45 455, Dr 1500 181 818, Dr 1200 22 727,
 *              Cr 1000 250 000. Pro rata by 45 455 : 181 818 (of 227 273): 250 000 × 45 455 / 227 273
 *              = 50 000.44, 250 000 × 181 818 / 227 273 = 199 999.56; rounded down 50 000 + 199 999,
 *              the cent left to the larger remainder (.56):                    suppliers −50 000, plant −200 000
 *   2026-03-31 interest on savings: Dr 1010 1 234 / Cr 4100                    interest     +1 234
 *   2026-04-28 GST refund settled alone: Dr 1000 22 727 / Cr 1200              ato         +22 727
 *   2026-05-01 loan repaid: Dr 2800 / Cr 1000 250 000                          borrowings −250 000
 *   2026-06-30 transfer out: Dr 1300 / Cr 1010 100 000 (in on 2026-07-01: Dr 1000 / Cr 1300)
 *
 * Operating: 330 000 − 105 000 − 250 000 − 34 500 − 17 273 + 1 234 = −75 539
 * Investing: −530 000. Financing: 1 000 000 + 1 250 000 = 2 250 000.
 * Net change: −75 539 − 530 000 + 2 250 000 = 1 644 461; closing 2 500 000 + 1 644 461 = 4 144 461.
 * By account on 30 June 2026: 1000 3 143 227, 1010 901 234, 1300 100 000 (in transit): 4 144 461.
 */
const FY = { type: 'cash_flow', from: '2025-07-01', to: '2026-06-30' };

describe('cash flow allocation', () => {
  it('shares pro rata in exact cents, the cents left over to the largest remainders', () => {
    expect(shareProRata(-250_000, [45_455, 181_818])).toEqual([-50_000, -200_000]);
    expect(shareProRata(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(shareProRata(0, [5, 7])).toEqual([0, 0]);
    const big = shareProRata(9_000_000_000_001, [3_000_000_000_000, 7_000_000_000_000]);
    expect(big.reduce((s, c) => s + c, 0)).toBe(9_000_000_000_001);
  });

  it('gives a journal’s cash to the lines moving its way; none: to the line moving most', () => {
    // Receipt net of a fee: in 950, customers +1 000 (same way), suppliers −50 (an accrual inside it).
    expect(
      allocateJournal(950, [
        { cat: 'customers', amt: 1_000 },
        { cat: 'suppliers', amt: -50 },
      ]),
    ).toEqual(new Map([['customers', 950]]));
    expect(
      allocateJournal(100, [
        { cat: 'suppliers', amt: -50 },
        { cat: 'owner', amt: -20 },
      ]),
    ).toEqual(new Map([['suppliers', 100]]));
  });

  it('places every role of the starting chart: cash, GST, or a line of the statement', () => {
    const placed = new Set([...CASH_ROLES, ...GST_ROLES, ...CASH_FLOW_LINES.flatMap((l) => l.roles)]);
    for (const a of CHART) if (a.key !== null) expect(placed.has(a.key), `${a.code} ${a.key}`).toBe(true);
  });
});

describe.each(engines)('statement of cash flows (%s)', (engine) => {
  let t: TestServer;
  let books: CreatedOrg;
  const { ok, post } = agentCalls(() => t);

  beforeAll(async () => {
    t = await startTestServer(engine);
    books = await t.org('Harbour Joinery');
    await createBankAccount(t.db, {
      orgId: books.orgId,
      actor: '',
      input: parseBankAccountCreate({ kind: 'bank', name: 'Savings', accountCode: '1010' }),
    });
    await ok(books, 'books.accountCreate', { code: '2800', name: 'Loan from director', type: 'liability' });
    await ok(books, 'books.openingBalances', {
      conversionDate: '2025-06-30',
      accounts: [
        { accountCode: '1000', debitCents: 2_000_000 },
        { accountCode: '1010', debitCents: 500_000 },
        { accountCode: '3000', creditCents: 2_555_000 },
      ],
      invoices: [
        {
          number: 'OLD-1',
          issueDate: '2025-06-10',
          dueDate: '2025-07-10',
          payeeName: 'Harbour Events',
          description: 'Fit-out',
          totalCents: 110_000,
          gstCents: 10_000,
          outstandingCents: 110_000,
        },
      ],
      bills: [
        {
          payeeName: 'Coastal Timber',
          reference: 'CT-1',
          issueDate: '2025-06-15',
          dueDate: '2025-07-15',
          description: 'Timber',
          totalCents: 55_000,
          gstCents: 5_000,
          outstandingCents: 55_000,
        },
      ],
    });
    const entry = (date: string, memo: string, lines: Parameters<typeof postEntry>[4]) => postEntry(t, books, date, memo, lines);
    const pair = (debit: string, credit: string, cents: number) => [
      { account: debit, debitCents: cents },
      { account: credit, creditCents: cents },
    ];
    await entry('2025-07-15', 'Invoice OLD-1 paid', pair('1000', '1100', 110_000));
    await entry('2025-07-20', 'Bill CT-1 paid', pair('2000', '1000', 55_000));
    await entry('2025-08-01', "Owner's capital", pair('1000', '3000', 1_000_000));
    await entry('2025-08-20', 'Cash sale', saleLines(220_000, 20_000, 'GST'));
    await entry('2025-09-05', 'Saw bench', purchaseLines(330_000, 30_000, 'GST_ON_CAPITAL', '1500'));
    await entry('2025-09-14', 'Pay run, paid from the bank', [
      { account: '6100', debitCents: 300_000 },
      { account: '6200', debitCents: 34_500 },
      { account: '2200', creditCents: 50_000 },
      { account: '2300', creditCents: 34_500 },
      { account: '1000', creditCents: 250_000 },
    ]);
    await entry('2025-10-21', 'BAS July–September settled', [
      { account: '2100', debitCents: 20_000 },
      { account: '2200', debitCents: 50_000 },
      { account: '1200', creditCents: 30_000 },
      { account: '2150', creditCents: 40_000 },
    ]);
    await entry('2025-10-28', 'BAS paid to the ATO', pair('2150', '1000', 40_000));
    await entry('2025-10-28', 'Super paid', pair('2300', '1000', 34_500));
    await entry('2025-11-03', 'Transfer to savings (out)', pair('1300', '1000', 500_000));
    await entry('2025-11-04', 'Transfer to savings (in)', pair('1010', '1300', 500_000));
    await entry('2026-02-01', "Director's loan", pair('1000', '2800', 1_500_000));
    await entry('2026-02-10', 'Laptop and software', [
      { account: '6600', debitCents: 45_455 },
      { account: '1500', debitCents: 181_818 },
      { account: '1200', debitCents: 22_727 },
      { account: '1000', creditCents: 250_000 },
    ]);
    await entry('2026-03-31', 'Interest, savings', pair('1010', '4100', 1_234));
    await entry('2026-04-28', 'GST refund', pair('1000', '1200', 22_727));
    await entry('2026-05-01', 'Loan repaid', pair('2800', '1000', 250_000));
    await entry('2026-06-30', 'Transfer to operating (out)', pair('1300', '1010', 100_000));
    await entry('2026-07-01', 'Transfer to operating (in)', pair('1000', '1300', 100_000));
  });
  afterAll(async () => t.close());

  it('the year: operating, investing and financing lines, reconciled to the balance sheet', async () => {
    const r = await report(t, books, FY);
    expect(r).toEqual({
      type: 'cash_flow',
      from: '2025-07-01',
      to: '2026-06-30',
      cashAccounts: [
        { code: '1000', name: 'Business bank account', openingCents: 2_000_000, closingCents: 3_143_227 },
        { code: '1010', name: 'Savings', openingCents: 500_000, closingCents: 901_234 },
        { code: '1300', name: 'Bank clearing (unreconciled)', openingCents: 0, closingCents: 100_000 },
      ],
      operating: {
        lines: [
          { line: 'customers', label: 'Receipts from customers', amountCents: 330_000 },
          { line: 'suppliers', label: 'Payments to suppliers', amountCents: -105_000 },
          { line: 'employees', label: 'Payments to employees (net wages)', amountCents: -250_000 },
          { line: 'super', label: 'Superannuation paid', amountCents: -34_500 },
          { line: 'ato', label: 'Paid to (refunded by) the ATO: GST and PAYG withholding', amountCents: -17_273 },
          { line: 'interest', label: 'Interest received', amountCents: 1_234 },
        ],
        totalCents: -75_539,
      },
      investing: {
        lines: [{ line: 'plant_and_equipment', label: 'Plant and equipment bought and sold', amountCents: -530_000 }],
        totalCents: -530_000,
      },
      financing: {
        lines: [
          { line: 'owner', label: "Owner's capital and drawings", amountCents: 1_000_000 },
          { line: 'borrowings', label: 'Loans and other liabilities', amountCents: 1_250_000 },
        ],
        totalCents: 2_250_000,
      },
      netChangeCents: 1_644_461,
      openingCashCents: 2_500_000,
      carriedInCents: 0,
      closingCashCents: 4_144_461,
      reconciles: true,
    });

    // The balance sheet as at 30 June 2026 shows the same cash on the same accounts.
    const sheet = await report(t, books, { type: 'balance_sheet', asOf: '2026-06-30' });
    const cash = sheet.assets.accounts.filter((l: { code: string }) => ['1000', '1010', '1300'].includes(l.code));
    expect(cash.map((l: { code: string; amountCents: number }) => [l.code, l.amountCents])).toEqual([
      ['1000', 3_143_227],
      ['1010', 901_234],
      ['1300', 100_000],
    ]);
    expect(cash.reduce((s: number, l: { amountCents: number }) => s + l.amountCents, 0)).toBe(r.closingCashCents);
  });

  it('a journal split over several counter accounts is shared between their lines', async () => {
    // February 2026: the laptop journal pays a supplier and buys plant in one cash movement.
    const paged = await report(t, books, { type: 'cash_flow', from: '2026-02-01', to: '2026-02-28' });
    expect([paged.operating.lines, paged.investing.lines, paged.financing.lines]).toEqual([
      [{ line: 'suppliers', label: 'Payments to suppliers', amountCents: -50_000 }],
      [{ line: 'plant_and_equipment', label: 'Plant and equipment bought and sold', amountCents: -200_000 }],
      [{ line: 'borrowings', label: 'Loans and other liabilities', amountCents: 1_500_000 }],
    ]);
  });

  it('a period holding the conversion: its cash is carried in, not a flow', async () => {
    // Nothing before 1 June 2025; the conversion journal (30 June) brings 2 500 000.
    const r = await report(t, books, { type: 'cash_flow', from: '2025-06-01', to: '2025-06-30' });
    expect(r).toMatchObject({
      operating: { lines: [], totalCents: 0 },
      investing: { lines: [], totalCents: 0 },
      financing: { lines: [], totalCents: 0 },
      netChangeCents: 0,
      openingCashCents: 0,
      carriedInCents: 2_500_000,
      closingCashCents: 2_500_000,
      reconciles: true,
    });
  });

  it('a transfer arriving from clearing moves cash between accounts, not in or out', async () => {
    // July 2026: 1300 → 1000 100 000. Opening and closing 4 144 461; 1000 3 143 227 → 3 243 227.
    const r = await report(t, books, { type: 'cash_flow', from: '2026-07-01', to: '2026-07-31' });
    expect(r).toMatchObject({ netChangeCents: 0, openingCashCents: 4_144_461, closingCashCents: 4_144_461, reconciles: true });
    expect(r.cashAccounts).toEqual([
      { code: '1000', name: 'Business bank account', openingCents: 3_143_227, closingCents: 3_243_227 },
      { code: '1010', name: 'Savings', openingCents: 901_234, closingCents: 901_234 },
      { code: '1300', name: 'Bank clearing (unreconciled)', openingCents: 100_000, closingCents: 0 },
    ]);
  });

  it('a quarter: figures of that quarter only', async () => {
    // July–September 2025: +110 000 + 220 000 customers, −55 000 suppliers, −250 000 employees,
    // −330 000 plant, +1 000 000 owner: net 695 000; closing 3 195 000 (1000 2 695 000, 1010 500 000).
    const r = await report(t, books, { type: 'cash_flow', from: '2025-07-01', to: '2025-09-30' });
    expect(r.operating.totalCents).toBe(25_000);
    expect(r.investing.totalCents).toBe(-330_000);
    expect(r.financing.totalCents).toBe(1_000_000);
    expect(r).toMatchObject({ netChangeCents: 695_000, openingCashCents: 2_500_000, closingCashCents: 3_195_000, reconciles: true });
  });

  it('kept per day and line as a rebuild from the lines gives them; an upgraded database reads the same', async () => {
    const kept = await keptCashFlowDays(t.db.reader, books.orgId);
    expect(kept).toEqual(await cashFlowDaysFromLines(t.db.reader, books.orgId));
    // The laptop journal, split pro rata to the cent, is kept as its two lines.
    expect(kept.filter((r) => r.date === '2026-02-10')).toEqual([
      { date: '2026-02-10', line: 'plant_and_equipment', amount: -200_000 },
      { date: '2026-02-10', line: 'suppliers', amount: -50_000 },
    ]);
    // As migration 63 finds an organisation posted before it: no rows, then its backfill.
    const year = await report(t, books, FY);
    await t.db.write(async (tx) => {
      await tx.run('DELETE FROM cash_flow_day_totals WHERE org_id = ?', [books.orgId]);
      await tx.run(cashFlowMigration.statements.at(-1) as string);
    });
    expect(await keptCashFlowDays(t.db.reader, books.orgId)).toEqual(kept);
    expect(await report(t, books, FY)).toEqual(year);
  });

  it('an account becoming cash (reconcilable) re-reads the journals already posted; reversals are kept too', async () => {
    await ok(books, 'books.accountCreate', { code: '1600', name: 'Term deposit', type: 'asset' });
    const { journalId: deposit } = await ok(books, 'books.journalPost', {
      date: '2026-03-02',
      memo: 'Term deposit placed',
      lines: [
        { accountCode: '1600', debitCents: 300_000 },
        { accountCode: '1000', creditCents: 300_000 },
      ],
    });
    const q1 = { type: 'cash_flow', from: '2026-01-01', to: '2026-03-31' };
    const before = await report(t, books, q1);
    expect(before.investing.lines).toEqual([
      { line: 'plant_and_equipment', label: 'Plant and equipment bought and sold', amountCents: -200_000 },
      { line: 'other_assets', label: 'Other assets bought and sold', amountCents: -300_000 },
    ]);
    // A term deposit held as cash: placing it moves cash between cash accounts, no flow.
    await ok(books, 'books.accountUpdate', { code: '1600', reconcilable: true });
    const asCash = await report(t, books, q1);
    expect(asCash.investing.lines).toEqual([
      { line: 'plant_and_equipment', label: 'Plant and equipment bought and sold', amountCents: -200_000 },
    ]);
    expect(asCash.cashAccounts.map((a: { code: string }) => a.code)).toEqual(['1000', '1010', '1300', '1600']);
    expect(asCash.reconciles).toBe(true);
    expect(await keptCashFlowDays(t.db.reader, books.orgId)).toEqual(await cashFlowDaysFromLines(t.db.reader, books.orgId));
    await ok(books, 'books.accountUpdate', { code: '1600', reconcilable: false });
    expect(await report(t, books, q1)).toEqual(before);
    // Reversed on the same day: the day's kept sum for the line returns to nothing.
    await ok(books, 'books.journalReverse', { journalId: deposit, reason: 'Posted in error', date: '2026-03-02' });
    expect((await report(t, books, q1)).investing.lines).toEqual([
      { line: 'plant_and_equipment', label: 'Plant and equipment bought and sold', amountCents: -200_000 },
    ]);
    expect(await keptCashFlowDays(t.db.reader, books.orgId)).toEqual(await cashFlowDaysFromLines(t.db.reader, books.orgId));
  });

  it.each([
    [{ type: 'cash_flow', to: '2026-06-30' }, 'from: is required for cash_flow'],
    [{ type: 'cash_flow', from: '2025-07-01' }, 'to: is required for cash_flow'],
    [{ type: 'cash_flow', from: '2026-07-01', to: '2026-06-30' }, 'to: must be on or after from (2026-07-01)'],
    [{ ...FY, asOf: '2026-06-30' }, 'asOf: is not used by cash_flow, which covers a period (give from and to)'],
    [{ ...FY, from: '2025-02-30' }, 'from: must be a real calendar date'],
  ])('bad input %j is BAD_REQUEST naming the field', async (params, message) => {
    const r = await post(books, 'books.reports', params);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body).toEqual(refusal('BAD_REQUEST', message));
  });
});
