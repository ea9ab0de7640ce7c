import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gstDaysFromLines, migration as gstMigration, keptGstDays } from '../src/domain/reports/gst-days.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { postEntry, purchaseLines, report, saleLines } from './reports-helpers.js';

/**
 * The worked quarter of fixtures/gst (docs/reference/gst-bas.md) (Harbourside Joinery, July–September 2026): every
 * transaction posted as the ledger would hold it, then the BAS read back through HTTP and
 * compared with the file's expected front, worksheet, accounts-method and exact-cents values.
 */
interface Transaction {
  id: string;
  date: string;
  taxCode: string;
  amountInclGstCents: number;
  gstCents: number;
}

const quarter = JSON.parse(readFileSync(new URL('./fixtures/gst/worked_quarter.json', import.meta.url), 'utf8')) as {
  period: { start: string; end: string };
  transactions: Transaction[];
  payroll: { paydays: string[]; grossPerPay: string; paygPerPay: number; superPerPay12pc: string };
  expected: {
    frontOfBAS: Record<string, number>;
    calculationWorksheet: Record<string, number>;
    accountsMethodCheck: { '1A_cents': number; '1B_cents': number; '1A': number; '1B': number };
    summary: Record<string, unknown>;
    exactTotalsCents: Record<string, number> & { G1: number; G11: number };
  };
};

/** "6550.00" → 655000, in integers only (no float ever touches money). */
const centsOf = (dollars: string) => {
  const m = /^(\d+)\.(\d{2})$/.exec(dollars);
  if (!m) throw new Error(`not a dollar amount: ${dollars}`);
  return Number(m[1]) * 100 + Number(m[2]);
};

/** Where each worked-quarter transaction is posted (revenue for sales, expense or asset for purchases). */
const ACCOUNT: Record<string, string> = {
  S1: '4000',
  S2: '4000',
  S3: '4000',
  S4: '4000',
  S5: '4000',
  S6: '4000',
  S7: '4200', // sale of a used business asset: other income, still a taxable sale in G1
  S8: '4100', // interest earned: input-taxed
  P1: '5000',
  P2: '6600',
  P3: '1500',
  P4: '6800',
  P5: '6900',
  P6: '6300',
  P7: '6000',
};

const { start, end } = quarter.period;

describe.each(engines)('GST summary of the worked quarter (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  async function postQuarter(o: CreatedOrg) {
    for (const tx of quarter.transactions.filter((x) => x.id in ACCOUNT)) {
      const account = ACCOUNT[tx.id] as string;
      const lines = tx.id.startsWith('S')
        ? saleLines(tx.amountInclGstCents, tx.gstCents, tx.taxCode, account)
        : purchaseLines(tx.amountInclGstCents, tx.gstCents, tx.taxCode, account);
      await postEntry(t, o, tx.date, `${tx.id} ${tx.taxCode}`, lines);
    }
    const gross = centsOf(quarter.payroll.grossPerPay);
    const withheld = quarter.payroll.paygPerPay * 100;
    const superCents = centsOf(quarter.payroll.superPerPay12pc);
    for (const payday of quarter.payroll.paydays) {
      await postEntry(t, o, payday, `Pay run ${payday}`, [
        { account: '6100', debitCents: gross, taxCode: 'BAS_EXCLUDED_WAGES', taxBaseCents: gross },
        { account: '1000', creditCents: gross - withheld },
        { account: '2200', creditCents: withheld, taxCode: 'BAS_EXCLUDED_PAYGW', taxBaseCents: withheld },
      ]);
      await postEntry(t, o, payday, `Super guarantee ${payday}`, [
        { account: '6200', debitCents: superCents, taxCode: 'BAS_EXCLUDED', taxBaseCents: superCents },
        { account: '2300', creditCents: superCents },
      ]);
    }
  }

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org('Harbourside Joinery Pty Ltd');
    await postQuarter(org);
    // Just outside the quarter on both sides: must not be counted.
    await postEntry(t, org, '2026-06-30', 'June sale', saleLines(110_000, 10_000, 'GST'));
    await postEntry(t, org, '2026-10-01', 'October timber', purchaseLines(55_000, 5_000, 'GST_ON_EXPENSES', '5000'));
  });
  afterAll(async () => t.close());

  it('the payroll postings add up to the quarter’s X1, X2 and X3', () => {
    const x = (id: string) => quarter.transactions.find((tx) => tx.id === id)?.amountInclGstCents;
    const pays = quarter.payroll.paydays.length;
    expect(pays * centsOf(quarter.payroll.grossPerPay)).toBe(x('X1'));
    expect(pays * quarter.payroll.paygPerPay * 100).toBe(x('X2'));
    expect(pays * centsOf(quarter.payroll.superPerPay12pc)).toBe(x('X3'));
  });

  it('the front of the BAS matches the worked quarter exactly', async () => {
    const r = await report(t, org, { type: 'gst_summary', from: start, to: end });
    expect(r).toMatchObject({ type: 'gst_summary', from: start, to: end, basis: 'accruals', gstMethod: 'accounts' });
    expect(r.front).toEqual(quarter.expected.frontOfBAS);
  });

  it('every calculation-worksheet label matches (G9 = G8 ÷ 11, G20 = G19 ÷ 11, whole dollars)', async () => {
    const r = await report(t, org, { type: 'gst_summary', from: start, to: end });
    const expected = Object.entries(quarter.expected.calculationWorksheet).filter(([k]) => !k.endsWith('_exact'));
    expect(expected.length).toBeGreaterThan(10);
    for (const [label, value] of expected) expect([label, r.worksheet[label]]).toEqual([label, value]);
  });

  it('exact label totals in cents match exactTotalsCents', async () => {
    const r = await report(t, org, { type: 'gst_summary', from: start, to: end });
    for (const [label, value] of Object.entries(quarter.expected.exactTotalsCents)) {
      expect([label, r.exactCents[label]]).toEqual([label, value]);
    }
  });

  it('1A and 1B by the accounts method are the GST recorded on each document', async () => {
    const r = await report(t, org, { type: 'gst_summary', from: start, to: end });
    const m = quarter.expected.accountsMethodCheck;
    expect(r.accountsMethod).toEqual({
      gstOnSalesCents: m['1A_cents'],
      gstOnPurchasesCents: m['1B_cents'],
      increasingAdjustmentsCents: 0,
      decreasingAdjustmentsCents: 0,
      '1A': m['1A'],
      '1B': m['1B'],
    });
    expect(r.exactCents['1A']).toBe(m['1A_cents']);
    expect(r.exactCents['1B']).toBe(m['1B_cents']);
  });

  it('the summary labels 4, 8A, 8B and 9: payable to the ATO', async () => {
    const r = await report(t, org, { type: 'gst_summary', from: start, to: end });
    const s = quarter.expected.summary;
    expect(r.summary).toEqual({
      '4': s['4'],
      '8A': s['8A'],
      '8B': s['8B'],
      '9': s['9'],
      position: 'payable',
      netGst: 2_690 - 3_009,
      net: s['9'],
    });
  });

  it('the worksheet method gives the same front here (the quarter’s two methods agree)', async () => {
    const r = await report(t, org, { type: 'gst_summary', from: start, to: end, gstMethod: 'worksheet' });
    expect(r.gstMethod).toBe('worksheet');
    expect(r.front).toEqual(quarter.expected.frontOfBAS);
    expect(r.worksheetCents.G9).toBe(269_005); // 2,959,050 / 11 = 269,004.5 → half up
  });

  it('totals per tax code show where each label comes from', async () => {
    const r = await report(t, org, { type: 'gst_summary', from: start, to: end });
    const byCode = Object.fromEntries(r.byTaxCode.map((c: { taxCode: string }) => [c.taxCode, c]));
    expect(byCode.GST).toEqual({
      taxCode: 'GST',
      lines: 5,
      baseCents: 2_959_050,
      gstCents: 269_005,
      adjustmentBaseCents: 0,
      adjustmentGstCents: 0,
      labels: ['G1'],
    });
    expect(byCode.BAS_EXCLUDED).toEqual({
      taxCode: 'BAS_EXCLUDED',
      lines: 7,
      baseCents: 550_200,
      gstCents: 0,
      adjustmentBaseCents: 0,
      adjustmentGstCents: 0,
      labels: [],
    });
    expect(r.byTaxCode.map((c: { taxCode: string }) => c.taxCode)).toEqual([
      'GST',
      'EXPORT',
      'GST_FREE',
      'INPUT_TAXED',
      'GST_ON_CAPITAL',
      'GST_ON_EXPENSES',
      'GST_FREE_EXPENSES',
      'INPUT_TAXED_EXPENSE',
      'BAS_EXCLUDED',
      'BAS_EXCLUDED_WAGES',
      'BAS_EXCLUDED_PAYGW',
    ]);
  });

  it('a period that takes in the day either side counts those postings too', async () => {
    const r = await report(t, org, { type: 'gst_summary', from: '2026-06-30', to: '2026-10-01' });
    expect(r.exactCents.G1).toBe(quarter.expected.exactTotalsCents.G1 + 110_000);
    expect(r.exactCents.G11).toBe(quarter.expected.exactTotalsCents.G11 + 55_000);
    expect(r.accountsMethod.gstOnSalesCents).toBe(quarter.expected.accountsMethodCheck['1A_cents'] + 10_000);
  });

  it('the same quarter in another organisation is not mixed in', async () => {
    const other = await t.org();
    const r = await report(t, other, { type: 'gst_summary', from: start, to: end });
    expect(r.front).toEqual({ G1: 0, G2: 0, G3: 0, G10: 0, G11: 0, '1A': 0, '1B': 0, W1: 0, W2: 0 });
    expect(r.summary).toEqual({ '4': 0, '8A': 0, '8B': 0, '9': 0, position: 'nil', netGst: 0, net: 0 });
    expect(r.byTaxCode).toEqual([]);
  });

  it('kept per day and tax code as a rebuild gives them; an upgraded database reads the same quarter', async () => {
    const kept = await keptGstDays(t.db.reader, org.orgId);
    expect(kept).toEqual(await gstDaysFromLines(t.db.reader, org.orgId));
    expect(kept.every((r) => r.reduces === '')).toBe(true);
    // As migration 64 finds an organisation posted before it: no rows, then its backfill.
    const before = await report(t, org, { type: 'gst_summary', from: start, to: end });
    await t.db.write(async (tx) => {
      await tx.run('DELETE FROM gst_day_totals WHERE org_id = ?', [org.orgId]);
      await tx.run(gstMigration.statements.at(-1) as string);
    });
    expect(await keptGstDays(t.db.reader, org.orgId)).toEqual(kept);
    expect(await report(t, org, { type: 'gst_summary', from: start, to: end })).toEqual(before);
  });
});
