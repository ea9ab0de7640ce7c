import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf, journalLines } from './payables-helpers.js';

/**
 * Fixed assets as an accountant keeps them, through HTTP on both engines, on a clock set to
 * 10 July 2026 (Sydney): assets carried in at conversion at cost with their accumulated
 * depreciation, an asset sold by an invoice line, and the tax depreciation schedule (instant
 * asset write-off, small business pool) beside the book one. Every figure worked by hand below.
 */
describe.each(engines)('fixed assets as an accountant keeps them (%s)', (engine) => {
  let t: TestServer;
  const clock = '2026-07-10T01:00:00.000Z'; // 11:00 on 10 July 2026 in Sydney

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function ok(key: string, method: string, body: Record<string, unknown>) {
    const r = await t.post(key, method, body);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  }
  async function refused(key: string, method: string, body: Record<string, unknown>, code: string, field: string, message: RegExp) {
    const r = await t.post(key, method, body);
    expect(r.body.ok, JSON.stringify(r.body)).toBe(false);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.field ?? r.body.error.message).toContain(field);
    expect(r.body.error.message).toMatch(message);
  }
  async function eventCount(o: CreatedOrg) {
    return (await eventsOf(t, o)).length;
  }
  /** 1500 and 1510 (negative: a contra-asset) in books.accounts as at a date. */
  async function ledger(o: CreatedOrg, asOf: string) {
    const r = await ok(o.keys.reader, 'books.accounts', { asOf, type: 'asset' });
    const bal = (code: string) => (r.accounts.find((a: { code: string }) => a.code === code)?.balanceCents as number) ?? 0;
    return { cost: bal('1500'), accumulated: 0 - bal('1510') || 0, bookValue: bal('1500') + bal('1510') };
  }
  async function registerTotals(o: CreatedOrg, asOf: string) {
    const reg = await ok(o.keys.reader, 'books.assets', { asOf });
    const l = await ledger(o, asOf);
    expect(reg.totals).toEqual({ costCents: l.cost, accumulatedDepreciationCents: l.accumulated, bookValueCents: l.bookValue });
    return reg;
  }
  const schedule = (o: CreatedOrg, year: number) =>
    ok(o.keys.reader, 'books.reports', { type: 'depreciation_schedule', from: `${year}-07-01`, to: `${year + 1}-06-30` });

  describe('a conversion carries a ute in at cost with its accumulated depreciation', () => {
    let org: CreatedOrg;
    let uteId = '';
    /**
     * Balances at 30 June 2025: bank 5,000.00 Dr; the ute at cost 12,000.00 Dr (1500) with
     * 4,000.00 accumulated depreciation Cr (1510); equity 13,000.00 Cr.
     * Debits 500,000 + 1,200,000 = 1,700,000 = credits 400,000 + 1,300,000.
     */
    const ute = {
      name: 'Ute',
      acquiredDate: '2023-07-01',
      costCents: 1_200_000,
      accumulatedDepreciationCents: 400_000,
      effectiveLifeYears: 8,
      method: 'diminishing_value',
    };
    const conversion = {
      conversionDate: '2025-06-30',
      accounts: [
        { accountCode: '1000', debitCents: 500_000 },
        { accountCode: '3000', creditCents: 1_300_000 },
      ],
      assets: [ute],
    };

    beforeAll(async () => {
      org = await t.org();
    });

    it('refuses bad assets naming the field, and changes nothing', async () => {
      const before = await eventCount(org);
      await refused(
        org.keys.agent,
        'books.openingBalances',
        { ...conversion, assets: [{ ...ute, accumulatedDepreciationCents: 1_200_001 }] },
        'BAD_REQUEST',
        'assets[0].accumulatedDepreciationCents',
        /must not be more than costCents \(1200000\)/,
      );
      await refused(
        org.keys.agent,
        'books.openingBalances',
        { ...conversion, assets: [{ ...ute, acquiredDate: '2025-07-01' }] },
        'BAD_REQUEST',
        'assets[0].acquiredDate',
        /after conversionDate 2025-06-30/,
      );
      // One rule: 1500 and 1510 are never account lines; their balances are the assets'.
      await refused(
        org.keys.agent,
        'books.openingBalances',
        { ...conversion, accounts: [...conversion.accounts, { accountCode: '1510', creditCents: 1 }] },
        'BAD_REQUEST',
        'accounts[2].accountCode',
        /accumulatedDepreciationCents \(assets\)/,
      );
      // Without the ute's 1510 credit: debits 1,700,000, credits 1,300,000 + 0.
      await refused(
        org.keys.agent,
        'books.openingBalances',
        { ...conversion, assets: [{ ...ute, accumulatedDepreciationCents: 0 }] },
        'BAD_REQUEST',
        'accounts',
        /difference is 400000 cents/,
      );
      expect(await eventCount(org)).toBe(before);
    });

    it('posts 1500 at cost and 1510 at accumulated depreciation and registers the ute at $8,000', async () => {
      const r = await ok(org.keys.agent, 'books.openingBalances', conversion);
      expect(r.assetIds).toHaveLength(1);
      uteId = r.assetIds[0];
      expect(r.debitCents).toBe(1_700_000);
      const lines = await journalLines(t, org.orgId, r.journalId);
      expect(lines.filter((l) => l.account_code === '1500' || l.account_code === '1510')).toEqual([
        { account_code: '1500', debit_cents: 1_200_000, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: uteId },
        { account_code: '1510', debit_cents: 0, credit_cents: 400_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: uteId },
      ]);
      const ev = (await eventsOf(t, org)).at(-1);
      expect(ev).toMatchObject({ kind: 'books.opening_balances.record', payload: { assetIds: [uteId], debitCents: 1_700_000 } });
      const reg = await registerTotals(org, '2025-06-30');
      expect(reg.assets).toEqual([
        expect.objectContaining({
          id: uteId,
          startDate: '2025-06-30',
          acquiredDate: '2023-07-01',
          costCents: 1_200_000,
          accumulatedDepreciationCents: 400_000,
          bookValueCents: 800_000,
          status: 'active',
          taxTreatment: 'same_as_book',
          source: expect.objectContaining({ kind: 'opening_balances', journalId: r.journalId }),
        }),
      ]);
      // The same conversion again: a no-op answering the first.
      expect(await ok(org.keys.agent, 'books.openingBalances', conversion)).toEqual({ ...r, noop: true });
    });

    it('depreciation runs continue from the written-down value of $8,000', async () => {
      // Diminishing value, life 8: book value × days × 2 ÷ (365 × 8) = book value × days ÷ 1460.
      // July: 800,000 × 31 ÷ 1460 = 16,986.30 → 16,986 (from 1 July, the day after conversion).
      const july = await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2025-07-31' });
      expect(july.assets).toEqual([{ assetId: uteId, amountCents: 16_986 }]);
      // August: (800,000 − 16,986) = 783,014 × 31 ÷ 1460 = 16,625.64 → 16,626.
      const august = await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2025-08-31' });
      expect(august.assets).toEqual([{ assetId: uteId, amountCents: 16_626 }]);
      // 400,000 + 16,986 + 16,626 = 433,612; book value 1,200,000 − 433,612 = 766,388.
      const reg = await registerTotals(org, '2025-08-31');
      expect(reg.assets[0]).toMatchObject({ accumulatedDepreciationCents: 433_612, bookValueCents: 766_388 });
    });

    it('the schedule counts the carried-in depreciation as the old books, not as a year’s', async () => {
      // 2024-25, the conversion's year: carried in at 800,000 (cost less 400,000), none of the year's.
      const y2024 = await schedule(org, 2024);
      expect(y2024.assets).toEqual([
        expect.objectContaining({
          assetId: uteId,
          taxMethod: 'book',
          book: { openingCents: 0, additionsCents: 800_000, depreciationCents: 0, disposalsCents: 0, closingCents: 800_000 },
          tax: { openingCents: 0, additionsCents: 800_000, deductionCents: 0, disposalsCents: 0, closingCents: 800_000 },
        }),
      ]);
      // 2025-26: opening 800,000, July and August 16,986 + 16,626 = 33,612; closing 766,388.
      const y2025 = await schedule(org, 2025);
      expect(y2025.assets[0].book).toEqual({
        openingCents: 800_000,
        additionsCents: 0,
        depreciationCents: 33_612,
        disposalsCents: 0,
        closingCents: 766_388,
      });
      expect(y2025.totals).toEqual({ bookDepreciationCents: 33_612, taxDeductionCents: 33_612 });
    });
  });

  describe('an asset sold by an invoice line', () => {
    let org: CreatedOrg;
    let vanId = '';
    let invoiceId = '';

    beforeAll(async () => {
      org = await t.org();
      // Cost 625,000 from 1 July 2025, prime cost over 5 years: a year of 365 days is
      // 625,000 × 365 ÷ (365 × 5) = 125,000, so the run to 30 June 2026 leaves 500,000.
      const j = await ok(org.keys.agent, 'books.journalPost', {
        date: '2025-07-01',
        memo: 'Van bought by the owner',
        lines: [
          { accountCode: '1500', debitCents: 625_000, asset: { name: 'Van', effectiveLifeYears: 5, method: 'prime_cost' } },
          { accountCode: '3000', creditCents: 625_000 },
        ],
      });
      vanId = j.assetIds[0];
      const run = await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-06-30' });
      expect(run.assets).toEqual([{ assetId: vanId, amountCents: 125_000 }]);
    });

    it('a draft naming the asset gets 4300 as its account; bad lines are refused naming the field', async () => {
      const before = await eventCount(org);
      const draft = (line: Record<string, unknown>) => ({
        payeeName: 'Bay Builders',
        description: 'Sale of the van',
        totalCents: 660_000,
        dueDays: 14,
        issueDate: '2026-06-30',
        lines: [{ description: 'Van', amountCents: 660_000, ...line }],
      });
      await refused(org.keys.agent, 'books.invoiceDraft', draft({ assetId: 'ast_nothing' }), 'NOT_FOUND', 'lines[0].assetId', /not found/);
      await refused(
        org.keys.agent,
        'books.invoiceDraft',
        draft({ assetId: vanId, accountCode: '4000' }),
        'BAD_REQUEST',
        'lines[0].accountCode',
        /not given with assetId/,
      );
      expect(await eventCount(org)).toBe(before);
      const inv = await ok(org.keys.agent, 'books.invoiceDraft', draft({ assetId: vanId }));
      invoiceId = inv.id;
      expect(inv.lines).toEqual([
        { description: 'Van', amountCents: 660_000, taxCode: 'GST', accountCode: '4300', gstCents: 60_000, assetId: vanId },
      ]);
    });

    it('sending it disposes of the van on the issue date: GST $600, gain $1,000', async () => {
      // A second draft selling the same van, sent after the first: refused then.
      const second = await ok(org.keys.agent, 'books.invoiceDraft', {
        payeeName: 'Other Buyer',
        description: 'Van again',
        totalCents: 110_000,
        dueDays: 14,
        lines: [{ description: 'Van', amountCents: 110_000, assetId: vanId }],
      });
      const sent = await ok(org.keys.agent, 'books.invoiceSend', { id: invoiceId });
      expect(sent).toMatchObject({
        status: 'sent',
        issuedOn: '2026-06-30',
        totalCents: 660_000,
        gstCents: 60_000,
        outstandingCents: 660_000,
      });
      // Proceeds 660,000 incl. GST 60,000 (1/11); GST-exclusive 600,000. Depreciated to
      // 30 June already: no more (0 days). Book value 625,000 − 125,000 = 500,000; gain 100,000.
      // Dr 1100 660,000 + Dr 1510 125,000 = 785,000 = Cr 1500 625,000 + Cr 2100 60,000 + Cr 4300 100,000.
      expect(await journalLines(t, org.orgId, sent.journalId)).toEqual([
        {
          account_code: '1100',
          debit_cents: 660_000,
          credit_cents: 0,
          tax_code: 'GST',
          tax_base_cents: 660_000,
          gst_cents: 60_000,
          doc_id: invoiceId,
        },
        { account_code: '1510', debit_cents: 125_000, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: vanId },
        { account_code: '1500', debit_cents: 0, credit_cents: 625_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: vanId },
        { account_code: '2100', debit_cents: 0, credit_cents: 60_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
        { account_code: '4300', debit_cents: 0, credit_cents: 100_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
      ]);
      const ev = (await eventsOf(t, org)).at(-1);
      expect(ev).toMatchObject({ kind: 'books.invoice.send', payload: { journalId: sent.journalId, disposedAssetIds: [vanId] } });
      const reg = await registerTotals(org, '2026-06-30');
      expect(reg.assets[0]).toMatchObject({
        id: vanId,
        status: 'disposed',
        bookValueCents: 0,
        disposal: { date: '2026-06-30', proceedsCents: 660_000, gstCents: 60_000, gainCents: 100_000, lossCents: 0, invoiceId },
      });
      expect(reg.totals).toEqual({ costCents: 0, accumulatedDepreciationCents: 0, bookValueCents: 0 });
      // The BAS counts the sale: G1 660,000 and 1A 60,000.
      const bas = await ok(org.keys.reader, 'books.reports', { type: 'gst_summary', from: '2026-04-01', to: '2026-06-30' });
      expect(bas.exactCents).toMatchObject({ G1: 660_000, '1A': 60_000 });
      // Sending it again: a no-op. Sending the second draft: the van is gone, nothing changes.
      expect(await ok(org.keys.agent, 'books.invoiceSend', { id: invoiceId })).toMatchObject({ noop: true });
      const before = await eventCount(org);
      await refused(org.keys.agent, 'books.invoiceSend', { id: second.id }, 'CONFLICT', 'lines[0].assetId', /disposed of on 2026-06-30/);
      // A new draft naming the sold van is refused at once.
      await refused(
        org.keys.agent,
        'books.invoiceDraft',
        {
          payeeName: 'Third',
          description: 'Van',
          totalCents: 100,
          dueDays: 1,
          lines: [{ description: 'Van', amountCents: 100, assetId: vanId }],
        },
        'CONFLICT',
        'lines[0].assetId',
        /disposed of/,
      );
      // A void of the sale is refused: reinstating the van would undo its disposal.
      await refused(
        org.keys.agent,
        'books.invoiceVoid',
        { id: invoiceId, reason: 'Changed mind' },
        'CONFLICT',
        `sold asset ${vanId}`,
        /cannot be voided/,
      );
      expect(await eventCount(org)).toBe(before);
    });
  });

  describe('the tax schedule beside the book one', () => {
    let org: CreatedOrg;
    let excavator = '';
    let coffee = '';
    let truck = '';
    const buy = async (date: string, cents: number, asset: Record<string, unknown>) =>
      (
        await ok(org.keys.agent, 'books.journalPost', {
          date,
          memo: `${String(asset.name)} bought by the owner`,
          lines: [
            { accountCode: '1500', debitCents: cents, asset },
            { accountCode: '3000', creditCents: cents },
          ],
        })
      ).assetIds[0] as string;

    beforeAll(async () => {
      org = await t.org();
      excavator = await buy('2024-08-01', 2_500_000, {
        name: 'Excavator',
        effectiveLifeYears: 10,
        method: 'prime_cost',
        taxTreatment: 'small_business_pool',
      });
      coffee = await buy('2025-09-01', 1_500_000, {
        name: 'Coffee machine',
        effectiveLifeYears: 5,
        method: 'prime_cost',
        taxTreatment: 'instant_write_off',
      });
      // $30,000 is not below 2025-26's $20,000 threshold: pooled, as simplified depreciation requires.
      truck = await buy('2025-10-01', 3_000_000, {
        name: 'Truck',
        effectiveLifeYears: 10,
        method: 'diminishing_value',
        taxTreatment: 'instant_write_off',
      });
      // Book runs. To 30 June 2025: the excavator from 1 Aug 2024, 334 days:
      // 2,500,000 × 334 ÷ 3650 = 228,767.12 → 228,767.
      expect((await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2025-06-30' })).totalCents).toBe(228_767);
      // To 30 June 2026: excavator 365 days 250,000; coffee machine 1 Sep–30 Jun, 303 days:
      // 1,500,000 × 303 ÷ 1825 = 249,041.10 → 249,041; truck 1 Oct–30 Jun, 273 days, diminishing:
      // 3,000,000 × 273 × 2 ÷ 3650 = 448,767.12 → 448,767. Total 947,808.
      expect((await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-06-30' })).totalCents).toBe(947_808);
    });

    it('2024-25: the excavator enters the pool at 15 %', async () => {
      const r = await schedule(org, 2024);
      expect(r).toMatchObject({ incomeYear: '2024-25', thresholdCents: 2_000_000 });
      expect(r.assets).toEqual([
        expect.objectContaining({
          assetId: excavator,
          taxTreatment: 'small_business_pool',
          taxMethod: 'pool',
          book: { openingCents: 0, additionsCents: 2_500_000, depreciationCents: 228_767, disposalsCents: 0, closingCents: 2_271_233 },
          tax: null,
        }),
      ]);
      // 15 % of 2,500,000 = 375,000; closing 2,125,000 (not below 2,000,000: no write-off).
      expect(r.pool).toEqual({
        openingCents: 0,
        additionsCents: 2_500_000,
        disposalsCents: 0,
        deductionCents: 375_000,
        closingCents: 2_125_000,
        assessableCents: 0,
        lowBalanceWriteOff: false,
      });
      expect(r.totals).toEqual({ bookDepreciationCents: 228_767, taxDeductionCents: 375_000 });
    });

    it('2025-26: an instant write-off of $15,000 and a second pool addition', async () => {
      const r = await schedule(org, 2025);
      const by = (id: string) => r.assets.find((a: { assetId: string }) => a.assetId === id);
      expect(by(excavator).book).toEqual({
        openingCents: 2_271_233,
        additionsCents: 0,
        depreciationCents: 250_000,
        disposalsCents: 0,
        closingCents: 2_021_233,
      });
      // 1,500,000 is below 2,000,000: the whole cost deducted in the year first used.
      expect(by(coffee)).toMatchObject({
        taxMethod: 'instant_write_off',
        book: { additionsCents: 1_500_000, depreciationCents: 249_041, closingCents: 1_250_959 },
        tax: { openingCents: 0, additionsCents: 1_500_000, deductionCents: 1_500_000, disposalsCents: 0, closingCents: 0 },
      });
      expect(by(truck)).toMatchObject({ taxTreatment: 'instant_write_off', taxMethod: 'pool', tax: null });
      // Pool: 30 % of 2,125,000 = 637,500 plus 15 % of 3,000,000 = 450,000: 1,087,500;
      // 2,125,000 + 3,000,000 − 1,087,500 = 4,037,500.
      expect(r.pool).toMatchObject({
        openingCents: 2_125_000,
        additionsCents: 3_000_000,
        deductionCents: 1_087_500,
        closingCents: 4_037_500,
      });
      // Book 250,000 + 249,041 + 448,767 = 947,808; tax 1,500,000 + 1,087,500 = 2,587,500.
      expect(r.totals).toEqual({ bookDepreciationCents: 947_808, taxDeductionCents: 2_587_500 });
    });

    it('2026-27, a year not in the table: the $1,000 threshold, 30 % of the pool', async () => {
      const r = await schedule(org, 2026);
      expect(r.thresholdCents).toBe(100_000);
      // 30 % of 4,037,500 = 1,211,250; closing 2,826,250.
      expect(r.pool).toMatchObject({ openingCents: 4_037_500, additionsCents: 0, deductionCents: 1_211_250, closingCents: 2_826_250 });
      expect(r.assets.find((a: { assetId: string }) => a.assetId === coffee).tax).toEqual({
        openingCents: 0,
        additionsCents: 0,
        deductionCents: 0,
        disposalsCents: 0,
        closingCents: 0,
      });
    });

    it('refuses a period that is not an income year, naming the field', async () => {
      await refused(
        org.keys.reader,
        'books.reports',
        { type: 'depreciation_schedule', from: '2025-07-02', to: '2026-06-30' },
        'BAD_REQUEST',
        'from',
        /1 July/,
      );
      await refused(
        org.keys.reader,
        'books.reports',
        { type: 'depreciation_schedule', from: '2025-07-01', to: '2026-06-29' },
        'BAD_REQUEST',
        'to',
        /2026-06-30/,
      );
    });

    it("the register shows each asset's tax treatment", async () => {
      const reg = await ok(org.keys.reader, 'books.assets', { asOf: '2026-06-30' });
      expect(reg.assets.map((a: { taxTreatment: string }) => a.taxTreatment)).toEqual([
        'small_business_pool',
        'instant_write_off',
        'instant_write_off',
      ]);
    });
  });
});
