/**
 * An accountant closes a year: 2025-26 for Lumen Studio Pty Ltd, a small design studio in Sydney,
 * through HTTP on both engines, every figure worked by hand below (docs/examples/year-close.md tells
 * the same story with the real requests and answers). Nothing expected here is computed by the code
 * under test: the expectations are literals. Amounts in dollars here, in cents in the code.
 *
 * The business: a company (25% base rate entity), registered for GST on the accruals basis, turnover
 * under $75,000 so it has chosen to report GST annually (one GST return a year, lodged with its income
 * tax return), financial year July–June. Today (the server's clock) is 20 July 2026.
 *
 * Its own accounts (books.accountCreate): 1400 Prepayments (asset), 2600 Accrued expenses, 2650 Income
 * tax payable (liabilities), 4010 Design fees, 4020 Workshops (revenue, default GST), 8000 Income tax
 * expense (expense); 3000 renamed Share capital (a company). Freelance illustration is 5000 Cost of
 * sales, rent 6500, insurance 6900. GST is 1/11 of a GST-inclusive amount.
 *
 * 2024-25 (the comparative year):
 *   2024-07-01 shares issued for cash: Dr 1000 / Cr 3000                              10,000
 *   2024-07-01 rent Jul–Dec 6,600 incl. GST 600: 6500 6,000, 1200 600              −6,600 cash
 *   2024-09-16 INV-0001 Harbour Bridge Tours, design 22,000 (4010 20,000, GST 2,000), paid 09-30
 *   2024-11-20 freelance illustrator 3,300 incl. GST 300: 5000 3,000, 1200 300     −3,300 cash
 *   2025-01-01 rent Jan–Jun 6,600: 6500 6,000, 1200 600                            −6,600 cash
 *   2025-03-10 INV-0002 Bright Harbour Cafe, workshop 5,500 (4020 5,000, GST 500), paid 03-24
 *   2025-04-01 insurance 1 Apr 2025 – 31 Mar 2026, 1,320 incl. GST 120: 6900 1,200  −1,320 cash
 *   2025-06-30 accrual, June illustration not yet billed: Dr 5000 / Cr 2600 1,500 (no GST: no tax
 *              invoice yet; the credit is claimed when the bill comes)
 *   2025-06-30 prepayment, 9 of 12 months unexpired: 1,200 × 9 / 12 = 900, Dr 1400 / Cr 6900
 *   2025-06-30 income tax: revenue 25,000 − expenses (5000 4,500, 6500 12,000, 6900 300) 16,800 =
 *              8,200 before tax; 25% = 2,050: Dr 8000 / Cr 2650
 *   Net profit 8,200 − 2,050 = 6,150. Cash 10,000 + 22,000 + 5,500 − 6,600 − 3,300 − 6,600 − 1,320 =
 *   19,680. GST collected 2,500, paid 600 + 300 + 600 + 120 = 1,620 (not yet returned).
 *   Balance sheet 30 June 2025: 1000 19,680, 1100 0, 1200 1,620, 1400 900 = 22,200; 2100 2,500, 2600
 *   1,500, 2650 2,050 = 6,050; 3000 10,000 + current year earnings 6,150 = 16,150; 6,050 + 16,150 = 22,200.
 *
 * 2025-26 (the year closed):
 *   2025-07-01 last year's accrual and prepayment reversed: Dr 2600 1,500 / Cr 5000 1,500, Dr 6900 900
 *              / Cr 1400 900 (so the bill and the expired cover land in this year's accounts once)
 *   2025-07-01 rent Jul–Dec 6,600: 6500 6,000, 1200 600                            −6,600 cash
 *   2025-07-18 the illustrator's June bill paid 1,650 incl. GST 150: 5000 1,500     −1,650 cash
 *   2025-08-04 INV-0003 Harbour Bridge Tours, design 16,500 (4010 15,000, GST 1,500), paid 08-25
 *   2025-09-01 more shares issued: Dr 1000 / Cr 3000 5,000
 *   2025-10-06 INV-0004 Bright Harbour Cafe, workshop 4,400 (4020 4,000, GST 400), paid 10-20
 *   2025-11-03 INV-0005 Northwind Events, workshop 3,300 (4020 3,000, GST 300): never paid
 *   2026-01-01 rent Jan–Jun 6,600: 6500 6,000, 1200 600                            −6,600 cash
 *   2026-02-27 2024-25 returns lodged: GST Dr 2100 2,500 / Cr 1200 1,620 / Cr 2150 880; income tax
 *              assessed Dr 2650 / Cr 2150 2,050 (the ATO's integrated client account); paid Dr 2150 /
 *              Cr 1000 880 + 2,050 = 2,930                                          −2,930 cash
 *   2026-03-02 INV-0006 Harbour Bridge Tours, design 27,500 (4010 25,000, GST 2,500), paid 03-30
 *   2026-03-16 freelance illustrator 4,400 incl. GST 400: 5000 4,000                −4,400 cash
 *   2026-04-01 insurance renewed 1 Apr 2026 – 31 Mar 2027, 1,584 incl. GST 144: 6900 1,440 −1,584 cash
 *   2026-06-15 INV-0007 Coastline Dental, design 8,800 (4010 8,000, GST 800) and workshop 1,100 (4020
 *              1,000, GST 100) = 9,900, GST 900 (9,900 / 11 once; 800 + 100 by line), due 07-15
 *   2026-06-24 Bright Harbour Cafe pays a refundable 2,200 booking deposit for a July workshop
 *              (books.creditPrepayment): Dr 1000 / Cr 1100 under the credit. A deposit held as
 *              security is not consideration until it is applied to the supply (GST Act s 99-5), so
 *              no GST until the workshop is invoiced. (A plain part payment would be: s 29-5
 *              attributes GST to the period any consideration is received.)
 *   Year-end adjustments, 2026-06-30, in the owner's accounts:
 *   - accrual: June illustration done, bill not yet received: Dr 5000 / Cr 2600 2,000
 *   - prepayment: 9 of 12 months of the April premium unexpired: 1,440 × 9 / 12 = 1,080, Dr 1400 / Cr 6900
 *   - bad debt: Northwind Events in liquidation, INV-0005 written off (books.invoiceWriteOff):
 *     Dr 7000 3,000, Dr 2100 300 (the GST decreasing adjustment, GST Act s 21-5), Cr 1100 3,300
 *   - income tax at 25% of net profit before tax (an estimate; no tax-effect accounting):
 *     revenue 4010 15,000 + 25,000 + 8,000 = 48,000, 4020 4,000 + 3,000 + 1,000 = 8,000: 56,000;
 *     5000 −1,500 + 1,500 + 4,000 + 2,000 = 6,000; 6500 12,000; 6900 900 + 1,440 − 1,080 = 1,260
 *     (9 months at 100 and 3 at 120); 7000 3,000: 22,260; before tax 56,000 − 22,260 = 33,740;
 *     25% = 8,435: Dr 8000 / Cr 2650. Net profit 33,740 − 8,435 = 25,305.
 *   Then the owner sets the lock date to 30 June 2026; a posting dated 30 June is refused.
 *
 * Profit and loss 2025-26 against 2024-25 (amount, comparison, difference):
 *   4010 48,000 / 20,000 / 28,000; 4020 8,000 / 5,000 / 3,000; revenue 56,000 / 25,000 / 31,000
 *   5000 6,000 / 4,500 / 1,500; 6500 12,000 / 12,000 / 0; 6900 1,260 / 300 / 960; 7000 3,000 / 0 /
 *   3,000; 8000 8,435 / 2,050 / 6,385; expenses 30,695 / 18,850 / 11,845; net 25,305 / 6,150 / 19,155.
 * Balance sheet 30 June 2026 against 30 June 2025:
 *   1000 cash 19,680 + 16,500 + 5,000 + 4,400 + 27,500 + 2,200 − 6,600 − 1,650 − 6,600 − 2,930 − 4,400
 *   − 1,584 = 51,516 / 19,680 / 31,836; 1100 9,900 − 2,200 = 7,700 (the open INV-0007 less the
 *   customer's credit, kept in the control account under its own id by the product's design; a
 *   general-purpose statement would not offset them, AASB 101.32, and would show the deposit as a
 *   liability) / 0 / 7,700; 1200 1,620 − 1,620 + 600 + 150 + 600 + 400 + 144 = 1,894 / 1,620 / 274;
 *   1400 900 − 900 + 1,080 = 1,080 / 900 / 180; assets 62,190 / 22,200 / 39,990.
 *   2100 2,500 − 2,500 + 1,500 + 400 + 300 + 2,500 + 900 − 300 = 5,300 / 2,500 / 2,800; 2150 880 +
 *   2,050 − 2,930 = 0 / 0 / 0; 2600 2,000 / 1,500 / 500; 2650 8,435 / 2,050 / 6,385; liabilities
 *   15,735 / 6,050 / 9,685.
 *   3000 15,000 / 10,000 / 5,000; earlier years' earnings 6,150 / 0 / 6,150; current year 25,305 /
 *   6,150 / 19,155; equity 46,455 / 16,150 / 30,305. 15,735 + 46,455 = 62,190.
 * Cash flow 2025-26 (direct): customers 16,500 + 4,400 + 27,500 + 2,200 = 50,600; suppliers 6,600 +
 *   1,650 + 6,600 + 4,400 + 1,584 = −20,834 (GST goes with its supply); ATO −2,930 (GST and income tax
 *   through the integrated client account); operating 26,836; owner 5,000; net 31,836; opening 19,680
 *   + 31,836 = closing 51,516, the balance sheet's 1000.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleJson, consoleSignIn } from './console-helpers.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { report } from './reports-helpers.js';

// 11:00 in Sydney on 20 July 2026: the organisation's today is 2026-07-20.
const TODAY = '2026-07-20T01:00:00.000Z';

type Line = { accountCode: string; debitCents?: number; creditCents?: number; taxCode?: string };
const dr = (accountCode: string, debitCents: number, taxCode?: string): Line => ({
  accountCode,
  debitCents,
  ...(taxCode ? { taxCode } : {}),
});
const cr = (accountCode: string, creditCents: number, taxCode?: string): Line => ({
  accountCode,
  creditCents,
  ...(taxCode ? { taxCode } : {}),
});

describe.each(engines)('an accountant closes 2025-26 (%s)', (engine) => {
  let t: TestServer;
  let o: CreatedOrg;
  const { ok, post } = agentCalls(() => t);
  const ids = { cafe: '', northwind: '', dental: '', credit: '', writeOffJournal: '' };

  const journal = (date: string, memo: string, lines: Line[]) => ok(o, 'books.journalPost', { date, memo, lines });

  /** Draft and send an invoice dated issueDate; paid in full on paidOn when given. */
  async function invoice(
    payeeName: string,
    issueDate: string,
    lines: { description: string; amountCents: number; accountCode: string }[],
    paidOn?: string,
  ) {
    const totalCents = lines.reduce((s, l) => s + l.amountCents, 0);
    const d = await ok(o, 'books.invoiceDraft', {
      payeeName,
      description: lines[0]?.description,
      totalCents,
      dueDays: 30,
      issueDate,
      lines,
    });
    const sent = await ok(o, 'books.invoiceSend', { id: d.id });
    if (paidOn)
      await ok(o, 'books.invoiceRecordPayment', { id: d.id, amountCents: totalCents, date: paidOn, reference: `EFT ${sent.number}` });
    return sent;
  }
  const design = (amountCents: number) => ({ description: 'Brand and web design', amountCents, accountCode: '4010' });
  const workshop = (amountCents: number) => ({ description: 'Design thinking workshop', amountCents, accountCode: '4020' });

  const headSeq = async () => (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => TODAY });
    o = await t.org('Lumen Studio Pty Ltd');

    // The owner's accounts.
    await ok(o, 'books.accountCreate', { code: '1400', name: 'Prepayments', type: 'asset' });
    await ok(o, 'books.accountCreate', { code: '2600', name: 'Accrued expenses', type: 'liability' });
    await ok(o, 'books.accountCreate', { code: '2650', name: 'Income tax payable', type: 'liability' });
    await ok(o, 'books.accountCreate', { code: '4010', name: 'Design fees', type: 'revenue', taxCode: 'GST' });
    await ok(o, 'books.accountCreate', { code: '4020', name: 'Workshops', type: 'revenue', taxCode: 'GST' });
    await ok(o, 'books.accountCreate', { code: '8000', name: 'Income tax expense', type: 'expense' });
    await ok(o, 'books.accountUpdate', { code: '3000', name: 'Share capital' });

    // 2024-25.
    await journal('2024-07-01', 'Shares issued for cash', [dr('1000', 1_000_000), cr('3000', 1_000_000)]);
    await journal('2024-07-01', 'Studio rent July–December', [dr('6500', 660_000, 'GST_ON_EXPENSES'), cr('1000', 660_000)]);
    await invoice('Harbour Bridge Tours', '2024-09-16', [design(2_200_000)], '2024-09-30');
    await journal('2024-11-20', 'Freelance illustration', [dr('5000', 330_000, 'GST_ON_EXPENSES'), cr('1000', 330_000)]);
    await journal('2025-01-01', 'Studio rent January–June', [dr('6500', 660_000, 'GST_ON_EXPENSES'), cr('1000', 660_000)]);
    await invoice('Bright Harbour Cafe', '2025-03-10', [workshop(550_000)], '2025-03-24');
    await journal('2025-04-01', 'Insurance 1 Apr 2025 – 31 Mar 2026', [dr('6900', 132_000, 'GST_ON_EXPENSES'), cr('1000', 132_000)]);
    await journal('2025-06-30', 'Accrual: June illustration, bill not yet received', [dr('5000', 150_000), cr('2600', 150_000)]);
    await journal('2025-06-30', 'Prepayment: insurance July 2025 – March 2026', [dr('1400', 90_000), cr('6900', 90_000)]);
    await journal('2025-06-30', 'Income tax 2024-25 at 25%', [dr('8000', 205_000), cr('2650', 205_000)]);

    // 2025-26.
    await journal('2025-07-01', 'Reversal of the 2024-25 accrual and prepayment', [
      dr('2600', 150_000),
      cr('5000', 150_000),
      dr('6900', 90_000),
      cr('1400', 90_000),
    ]);
    await journal('2025-07-01', 'Studio rent July–December', [dr('6500', 660_000, 'GST_ON_EXPENSES'), cr('1000', 660_000)]);
    await journal('2025-07-18', "Illustrator's June bill paid", [dr('5000', 165_000, 'GST_ON_EXPENSES'), cr('1000', 165_000)]);
    await invoice('Harbour Bridge Tours', '2025-08-04', [design(1_650_000)], '2025-08-25');
    await journal('2025-09-01', 'Shares issued for cash', [dr('1000', 500_000), cr('3000', 500_000)]);
    const cafe = await invoice('Bright Harbour Cafe', '2025-10-06', [workshop(440_000)], '2025-10-20');
    ids.cafe = cafe.contactId;
    const northwind = await invoice('Northwind Events', '2025-11-03', [workshop(330_000)]);
    ids.northwind = northwind.id;
    await journal('2026-01-01', 'Studio rent January–June', [dr('6500', 660_000, 'GST_ON_EXPENSES'), cr('1000', 660_000)]);
    await journal('2026-02-27', '2024-25 GST return and income tax assessment', [
      dr('2100', 250_000),
      dr('2650', 205_000),
      cr('1200', 162_000),
      cr('2150', 293_000),
    ]);
    await journal('2026-02-27', 'Paid to the ATO', [dr('2150', 293_000), cr('1000', 293_000)]);
    await invoice('Harbour Bridge Tours', '2026-03-02', [design(2_750_000)], '2026-03-30');
    await journal('2026-03-16', 'Freelance illustration', [dr('5000', 440_000, 'GST_ON_EXPENSES'), cr('1000', 440_000)]);
    await journal('2026-04-01', 'Insurance 1 Apr 2026 – 31 Mar 2027', [dr('6900', 158_400, 'GST_ON_EXPENSES'), cr('1000', 158_400)]);
    const dental = await invoice('Coastline Dental', '2026-06-15', [design(880_000), workshop(110_000)]);
    ids.dental = dental.id;
    const credit = await ok(o, 'books.creditPrepayment', {
      contactId: ids.cafe,
      side: 'customer',
      amountCents: 220_000,
      date: '2026-06-24',
      reference: 'July workshop deposit',
    });
    ids.credit = credit.id;

    // Year-end adjustments, 30 June 2026.
    await journal('2026-06-30', 'Accrual: June illustration, bill not yet received', [dr('5000', 200_000), cr('2600', 200_000)]);
    await journal('2026-06-30', 'Prepayment: insurance July 2026 – March 2027', [dr('1400', 108_000), cr('6900', 108_000)]);
    const writeOff = await ok(o, 'books.invoiceWriteOff', {
      id: ids.northwind,
      reason: 'Northwind Events in liquidation',
      date: '2026-06-30',
    });
    ids.writeOffJournal = writeOff.writeOff.journalId;
    await journal('2026-06-30', 'Income tax 2025-26 at 25%', [dr('8000', 843_500), cr('2650', 843_500)]);

    // The owner locks the year.
    const owner = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const locked = await consoleJson(t, owner, 'PUT', '/console/api/org/profile', { lockDate: '2026-06-30' });
    expect(locked.status, locked.text).toBe(200);
  });
  afterAll(async () => t?.close());

  it('the lock date holds: a posting dated 30 June is refused, naming the field, and nothing changes', async () => {
    expect((await t.get(o.keys.reader, 'org/profile')).body.lockDate).toBe('2026-06-30');
    const before = await headSeq();
    const late = await post(o, 'books.journalPost', {
      date: '2026-06-30',
      memo: 'A late accrual',
      lines: [dr('5000', 10_000), cr('2600', 10_000)],
    });
    expect(late.status, JSON.stringify(late.body)).toBe(400);
    expect(late.body.error).toEqual({
      code: 'BAD_REQUEST',
      field: 'date',
      message:
        'date is 2026-06-30, on or before the lock date 2026-06-30: the books are locked up to and including it (an owner can move the lock date)',
    });
    const pay = await post(o, 'books.invoiceRecordPayment', { id: ids.dental, amountCents: 990_000, date: '2026-06-30' });
    expect(pay.status, JSON.stringify(pay.body)).toBe(400);
    expect(pay.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'date' });
    expect(await headSeq()).toBe(before);
  });

  it('the bad debt: Dr 7000 $3,000, Dr 2100 $300 (a decreasing adjustment), Cr 1100 $3,300', async () => {
    const inv = await ok(o, 'books.invoice', { id: ids.northwind });
    expect(inv).toMatchObject({ number: 'INV-0005', status: 'written_off', outstandingCents: 0 });
    const lines = await t.db.reader.all<{ account_code: string; debit_cents: unknown; credit_cents: unknown; gst_cents: unknown }>(
      'SELECT account_code, debit_cents, credit_cents, gst_cents FROM journal_lines WHERE org_id = ? AND journal_id = ? ORDER BY line_no',
      [o.orgId, ids.writeOffJournal],
    );
    expect(lines.map((l) => [l.account_code, Number(l.debit_cents), Number(l.credit_cents), Number(l.gst_cents)])).toEqual([
      ['7000', 300_000, 0, -30_000],
      ['2100', 30_000, 0, 0],
      ['1100', 0, 330_000, 0],
    ]);
  });

  it('profit and loss 2025-26 against 2024-25: every line, its comparison and difference', async () => {
    const pl = await report(t, o, { type: 'profit_and_loss', from: '2025-07-01', to: '2026-06-30', compare: 'previous_year' });
    expect(pl).toEqual({
      type: 'profit_and_loss',
      from: '2025-07-01',
      to: '2026-06-30',
      revenue: {
        accounts: [
          { code: '4010', name: 'Design fees', amountCents: 4_800_000, comparisonCents: 2_000_000, differenceCents: 2_800_000 },
          { code: '4020', name: 'Workshops', amountCents: 800_000, comparisonCents: 500_000, differenceCents: 300_000 },
        ],
        totalCents: 5_600_000,
        comparisonTotalCents: 2_500_000,
        differenceCents: 3_100_000,
      },
      expenses: {
        accounts: [
          { code: '5000', name: 'Cost of goods sold', amountCents: 600_000, comparisonCents: 450_000, differenceCents: 150_000 },
          { code: '6500', name: 'Rent', amountCents: 1_200_000, comparisonCents: 1_200_000, differenceCents: 0 },
          { code: '6900', name: 'Insurance', amountCents: 126_000, comparisonCents: 30_000, differenceCents: 96_000 },
          { code: '7000', name: 'Bad debts', amountCents: 300_000, comparisonCents: 0, differenceCents: 300_000 },
          { code: '8000', name: 'Income tax expense', amountCents: 843_500, comparisonCents: 205_000, differenceCents: 638_500 },
        ],
        totalCents: 3_069_500,
        comparisonTotalCents: 1_885_000,
        differenceCents: 1_184_500,
      },
      netProfitCents: 2_530_500,
      comparison: { compare: 'previous_year', from: '2024-07-01', to: '2025-06-30', netProfitCents: 615_000, differenceCents: 1_915_500 },
    });
  });

  it('balance sheet as at 30 June 2026 against 30 June 2025: balanced, earnings split at 1 July', async () => {
    const bs = await report(t, o, { type: 'balance_sheet', asOf: '2026-06-30', compare: 'previous_year' });
    expect(bs).toEqual({
      type: 'balance_sheet',
      asOf: '2026-06-30',
      financialYearStart: '2025-07-01',
      assets: {
        accounts: [
          { code: '1000', name: 'Business bank account', amountCents: 5_151_600, comparisonCents: 1_968_000, differenceCents: 3_183_600 },
          { code: '1100', name: 'Accounts receivable', amountCents: 770_000, comparisonCents: 0, differenceCents: 770_000 },
          { code: '1200', name: 'GST paid (input tax credits)', amountCents: 189_400, comparisonCents: 162_000, differenceCents: 27_400 },
          { code: '1400', name: 'Prepayments', amountCents: 108_000, comparisonCents: 90_000, differenceCents: 18_000 },
        ],
        totalCents: 6_219_000,
        comparisonTotalCents: 2_220_000,
        differenceCents: 3_999_000,
      },
      liabilities: {
        accounts: [
          { code: '2100', name: 'GST collected', amountCents: 530_000, comparisonCents: 250_000, differenceCents: 280_000 },
          { code: '2150', name: 'ATO integrated client account', amountCents: 0, comparisonCents: 0, differenceCents: 0 },
          { code: '2600', name: 'Accrued expenses', amountCents: 200_000, comparisonCents: 150_000, differenceCents: 50_000 },
          { code: '2650', name: 'Income tax payable', amountCents: 843_500, comparisonCents: 205_000, differenceCents: 638_500 },
        ],
        totalCents: 1_573_500,
        comparisonTotalCents: 605_000,
        differenceCents: 968_500,
      },
      equity: {
        accounts: [
          { code: '3000', name: 'Share capital', amountCents: 1_500_000, comparisonCents: 1_000_000, differenceCents: 500_000 },
          {
            code: null,
            name: 'Earlier years’ earnings (not yet closed)',
            amountCents: 615_000,
            comparisonCents: 0,
            differenceCents: 615_000,
          },
          {
            code: null,
            name: 'Current year earnings (from 2025-07-01)',
            amountCents: 2_530_500,
            comparisonCents: 615_000,
            differenceCents: 1_915_500,
          },
        ],
        totalCents: 4_645_500,
        comparisonTotalCents: 1_615_000,
        differenceCents: 3_030_500,
      },
      currentYearEarningsCents: 2_530_500,
      priorYearsEarningsCents: 615_000,
      balanced: true,
      comparison: { compare: 'previous_year', asOf: '2025-06-30', financialYearStart: '2024-07-01' },
    });
  });

  it('trial balance as at 30 June 2026: two years of revenue and expense, nothing closed, balanced', async () => {
    // Revenue and expense accounts carry both years (no closing entries): 4010 20,000 + 48,000;
    // 4020 5,000 + 8,000; 5000 4,500 + 6,000; 6500 24,000; 6900 300 + 1,260; 7000 3,000; 8000 2,050 +
    // 8,435. Debits 51,516 + 7,700 + 1,894 + 1,080 + 10,500 + 24,000 + 1,560 + 3,000 + 10,485 =
    // 111,735; credits 5,300 + 2,000 + 8,435 + 15,000 + 68,000 + 13,000 = 111,735.
    const tb = await report(t, o, { type: 'trial_balance', asOf: '2026-06-30' });
    const row = (code: string, name: string, type: string, debitCents: number, creditCents: number) => ({
      code,
      name,
      type,
      debitCents,
      creditCents,
    });
    expect(tb).toEqual({
      type: 'trial_balance',
      asOf: '2026-06-30',
      rows: [
        row('1000', 'Business bank account', 'asset', 5_151_600, 0),
        row('1100', 'Accounts receivable', 'asset', 770_000, 0),
        row('1200', 'GST paid (input tax credits)', 'asset', 189_400, 0),
        row('1400', 'Prepayments', 'asset', 108_000, 0),
        row('2100', 'GST collected', 'liability', 0, 530_000),
        row('2150', 'ATO integrated client account', 'liability', 0, 0),
        row('2600', 'Accrued expenses', 'liability', 0, 200_000),
        row('2650', 'Income tax payable', 'liability', 0, 843_500),
        row('3000', 'Share capital', 'equity', 0, 1_500_000),
        row('4010', 'Design fees', 'revenue', 0, 6_800_000),
        row('4020', 'Workshops', 'revenue', 0, 1_300_000),
        row('5000', 'Cost of goods sold', 'expense', 1_050_000, 0),
        row('6500', 'Rent', 'expense', 2_400_000, 0),
        row('6900', 'Insurance', 'expense', 156_000, 0),
        row('7000', 'Bad debts', 'expense', 300_000, 0),
        row('8000', 'Income tax expense', 'expense', 1_048_500, 0),
      ],
      totals: { debitCents: 11_173_500, creditCents: 11_173_500 },
      balanced: true,
    });
  });

  it('cash flow 2025-26: every line by hand; it reconciles and closes at the balance sheet’s cash', async () => {
    const cf = await report(t, o, { type: 'cash_flow', from: '2025-07-01', to: '2026-06-30' });
    expect(cf).toEqual({
      type: 'cash_flow',
      from: '2025-07-01',
      to: '2026-06-30',
      // 1300 is listed though nothing passed through it: every cash account is.
      cashAccounts: [
        { code: '1000', name: 'Business bank account', openingCents: 1_968_000, closingCents: 5_151_600 },
        { code: '1300', name: 'Bank clearing (unreconciled)', openingCents: 0, closingCents: 0 },
      ],
      operating: {
        lines: [
          { line: 'customers', label: 'Receipts from customers', amountCents: 5_060_000 },
          { line: 'suppliers', label: 'Payments to suppliers', amountCents: -2_083_400 },
          { line: 'ato', label: 'Paid to (refunded by) the ATO: GST and PAYG withholding', amountCents: -293_000 },
        ],
        totalCents: 2_683_600,
      },
      investing: { lines: [], totalCents: 0 },
      financing: {
        lines: [{ line: 'owner', label: "Owner's capital and drawings", amountCents: 500_000 }],
        totalCents: 500_000,
      },
      netChangeCents: 3_183_600,
      openingCashCents: 1_968_000,
      carriedInCents: 0,
      closingCashCents: 5_151_600,
      reconciles: true,
    });
  });

  it('aged receivables at 30 June 2026: INV-0007 current, the cafe’s credit a negative item; the contact shows the credit', async () => {
    // INV-0007 is due 15 July: current. The credit is aged from the day the money came (24 June, 6
    // days): a negative item in 1-30. Together 9,900 − 2,200 = 7,700, the balance of 1100.
    const aged = await report(t, o, { type: 'aged_receivables', asOf: '2026-06-30' });
    const none = { days31to60Cents: 0, days61to90Cents: 0, over90Cents: 0 };
    expect(aged).toEqual({
      type: 'aged_receivables',
      asOf: '2026-06-30',
      nextCursor: null,
      controlAccount: { code: '1100', name: 'Accounts receivable', balanceCents: 770_000 },
      parties: [
        {
          party: 'Bright Harbour Cafe',
          currentCents: 0,
          days1to30Cents: -220_000,
          ...none,
          totalCents: -220_000,
          items: [
            {
              id: ids.credit,
              reference: 'Prepayment',
              issuedOn: '2026-06-24',
              dueOn: '2026-06-24',
              daysOverdue: 6,
              bucket: '1-30',
              totalCents: -220_000,
              outstandingCents: -220_000,
            },
          ],
        },
        {
          party: 'Coastline Dental',
          currentCents: 990_000,
          days1to30Cents: 0,
          ...none,
          totalCents: 990_000,
          items: [
            {
              id: ids.dental,
              reference: ids.dental,
              issuedOn: '2026-06-15',
              dueOn: '2026-07-15',
              daysOverdue: -15,
              bucket: 'current',
              totalCents: 990_000,
              outstandingCents: 990_000,
            },
          ],
        },
      ],
      totals: { currentCents: 990_000, days1to30Cents: -220_000, ...none, totalCents: 770_000 },
    });

    const contacts = (await t.get(o.keys.reader, 'contacts.list?limit=200')).body.contacts as any[];
    const cafe = contacts.find((c) => c.id === ids.cafe);
    expect(cafe).toMatchObject({ customerCreditCents: 220_000, supplierCreditCents: 0, receivableCents: 0 });
    expect(cafe.credits).toEqual([
      {
        id: ids.credit,
        side: 'customer',
        source: 'prepayment',
        documentId: null,
        date: '2026-06-24',
        amountCents: 220_000,
        remainingCents: 220_000,
      },
    ]);
  });

  it('the 2025-26 GST return owes the balance sheet’s GST: 2100 $5,300 − 1200 $1,894 = $3,406', async () => {
    // Sales GST 1,500 + 400 + 300 + 2,500 + 900 = 5,600 less the written-off 300; purchases 600 + 150
    // + 600 + 400 + 144 = 1,894. The 2024-25 balances were settled to 2150 in February.
    const gst = await report(t, o, { type: 'gst_summary', from: '2025-07-01', to: '2026-06-30' });
    expect(gst.summary).toMatchObject({ netGst: 3_406, net: 3_406, position: 'payable' });
  });
});
