import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, eventsOf, journalLines } from './payables-helpers.js';
import { freshKey } from './signature-helpers.js';

/**
 * Fixed assets through HTTP, on a clock the test moves forward (Config.now):
 * registration from a journal line and a bill line, a year of month-end runs against a schedule
 * computed by hand, disposals with a gain and a loss, and the register equal to 1500 − 1510.
 *
 * The schedule (cents; days held ÷ 365, half up per month):
 * - prime cost, cost 1,000,000, life 5: cost × days ÷ 1825 — a 31-day month 16,986 (16,986.30),
 *   30 days 16,438 (16,438.36), February 28 days 15,342 (15,342.47); the year 199,996.
 * - diminishing value, cost 500,000, life 4: book value × days × 2 ÷ 1460 — July 500,000 × 62 ÷
 *   1460 = 21,232.88 → 21,233; August 478,767 × 62 ÷ 1460 = 20,331.20 → 20,331; …; the year 199,969.
 */
const PRIME = [16986, 16986, 16438, 16986, 16438, 16986, 16986, 15342, 16986, 16438, 16986, 16438];
const DIMINISHING = [21233, 20331, 18840, 18668, 17298, 17140, 16413, 14195, 15113, 14004, 13876, 12858];
const MONTH_ENDS = [
  '2025-07-31',
  '2025-08-31',
  '2025-09-30',
  '2025-10-31',
  '2025-11-30',
  '2025-12-31',
  '2026-01-31',
  '2026-02-28',
  '2026-03-31',
  '2026-04-30',
  '2026-05-31',
  '2026-06-30',
];
const van = { name: 'Delivery van', effectiveLifeYears: 5, method: 'prime_cost' };
const lathe = { name: 'Lathe', effectiveLifeYears: 4, method: 'diminishing_value' };

describe.each(engines)('fixed assets (%s)', (engine) => {
  let t: TestServer;
  let clock = '2025-07-01T01:00:00.000Z'; // 11:00 on 1 July 2025 in Sydney
  let org: CreatedOrg;
  let other: CreatedOrg;
  let vanId = '';
  let latheId = '';
  let juneRun: Record<string, unknown> = {};

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock });
    org = await t.org();
    other = await t.org();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function ok(key: string, method: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const r = await t.post(key, method, body, headers);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  }
  async function refused(key: string, method: string, body: Record<string, unknown>, code: string, message: RegExp) {
    const r = await t.post(key, method, body);
    expect(r.body.ok, JSON.stringify(r.body)).toBe(false);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.message).toMatch(message);
  }
  /** 1500 + 1510 (a contra-asset, negative in books.accounts) as at a date: the ledger's book value. */
  async function ledgerBookValue(o: CreatedOrg, asOf: string) {
    const r = await ok(o.keys.reader, 'books.accounts', { asOf, type: 'asset' });
    const bal = (code: string) => r.accounts.find((a: { code: string }) => a.code === code).balanceCents as number;
    return { cost: bal('1500'), accumulated: 0 - bal('1510') || 0, bookValue: bal('1500') + bal('1510') };
  }
  async function registerMatchesLedger(o: CreatedOrg, asOf: string) {
    const reg = await ok(o.keys.reader, 'books.assets', { asOf });
    const ledger = await ledgerBookValue(o, asOf);
    expect(reg.totals).toEqual({
      costCents: ledger.cost,
      accumulatedDepreciationCents: ledger.accumulated,
      bookValueCents: ledger.bookValue,
    });
    return reg;
  }

  it('a journal line on 1500 with asset details registers an asset at its GST-exclusive amount, named in the event', async () => {
    const j = await ok(org.keys.agent, 'books.journalPost', {
      date: '2025-07-01',
      memo: 'Van bought by the owner',
      lines: [
        { accountCode: '1500', debitCents: 1_100_000, taxCode: 'GST_ON_CAPITAL', asset: van },
        { accountCode: '3000', creditCents: 1_100_000 },
      ],
    });
    expect(j.assetIds).toHaveLength(1);
    vanId = j.assetIds[0];
    expect(vanId).toMatch(/^ast_/);
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev).toMatchObject({ kind: 'books.journal.post', payload: { journalId: j.journalId, assetIds: [vanId] } });
    expect(await journalLines(t, org.orgId, j.journalId)).toEqual([
      {
        account_code: '1500',
        debit_cents: 1_000_000,
        credit_cents: 0,
        tax_code: 'GST_ON_CAPITAL',
        tax_base_cents: 1_100_000,
        gst_cents: 100_000,
        doc_id: null,
      },
      { account_code: '3000', debit_cents: 0, credit_cents: 1_100_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
      { account_code: '1200', debit_cents: 100_000, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
    ]);
  });

  it('a bill line on 1500 with asset details registers an asset when the bill is approved, dated the approval', async () => {
    const bill = await approvedBill(t, org, {
      payeeName: 'Machine Tools Pty Ltd',
      description: 'Lathe',
      lines: [{ description: 'Lathe', amountCents: 550_000, taxCode: 'GST_ON_CAPITAL', asset: lathe }],
    });
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev.kind).toBe('books.bill.approve');
    expect(ev.payload.assetIds).toHaveLength(1);
    latheId = ev.payload.assetIds[0];
    const reg = await ok(org.keys.reader, 'books.assets', {});
    expect(reg.assets).toEqual(
      [
        expect.objectContaining({
          id: vanId,
          name: 'Delivery van',
          method: 'prime_cost',
          effectiveLifeYears: 5,
          startDate: '2025-07-01',
          costCents: 1_000_000,
          accumulatedDepreciationCents: 0,
          bookValueCents: 1_000_000,
          status: 'active',
          disposal: null,
        }),
        expect.objectContaining({
          id: latheId,
          name: 'Lathe',
          method: 'diminishing_value',
          effectiveLifeYears: 4,
          startDate: '2025-07-01',
          costCents: 500_000,
          bookValueCents: 500_000,
          status: 'active',
          source: { kind: 'bill', id: bill.id, lineNo: 1, journalId: bill.journalId },
        }),
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    await registerMatchesLedger(org, '2025-07-01');
  });

  it('a year of month-end runs matches the hand-computed schedule, one journal each, 1510 traceable per asset', async () => {
    clock = '2026-07-20T01:00:00.000Z';
    for (const [m, periodEnd] of MONTH_ENDS.entries()) {
      const run = await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd });
      juneRun = run;
      const amount = (id: string) => run.assets.find((a: { assetId: string }) => a.assetId === id)?.amountCents;
      expect([periodEnd, amount(vanId), amount(latheId)]).toEqual([periodEnd, PRIME[m], DIMINISHING[m]]);
      expect(run.totalCents).toBe((PRIME[m] ?? 0) + (DIMINISHING[m] ?? 0));
      const lines = await journalLines(t, org.orgId, run.journalId);
      expect(lines).toHaveLength(4);
      expect(lines).toContainEqual(expect.objectContaining({ account_code: '1510', credit_cents: PRIME[m], doc_id: vanId }));
      expect(lines).toContainEqual(expect.objectContaining({ account_code: '6400', debit_cents: DIMINISHING[m], doc_id: latheId }));
    }
    const reg = await registerMatchesLedger(org, '2026-06-30');
    const byId = new Map(reg.assets.map((a: { id: string }) => [a.id, a]));
    expect(byId.get(vanId)).toMatchObject({ accumulatedDepreciationCents: 199_996, bookValueCents: 800_004 });
    expect(byId.get(latheId)).toMatchObject({ accumulatedDepreciationCents: 199_969, bookValueCents: 300_031 });
    const mid = await registerMatchesLedger(org, '2025-12-31');
    expect(mid.totals).toEqual({
      costCents: 1_500_000,
      accumulatedDepreciationCents: 100_820 + 113_510,
      bookValueCents: 1_500_000 - 214_330,
    });
  });

  it('a rerun of a periodEnd is a no-op returning the first run; by idempotency key it replays', async () => {
    const before = (await eventsOf(t, org)).length;
    const again = await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-06-30' });
    expect(again).toEqual({ ...juneRun, noop: true });
    expect((await eventsOf(t, org)).length).toBe(before);
    const key = { 'x-idempotency-key': freshKey() };
    const first = await t.post(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-06-30' }, key);
    const replay = await t.post(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-06-30' }, key);
    expect(replay.body).toEqual({ ok: true, code: 'IDEMPOTENT_REPLAY', result: first.body.result });
  });

  it('runs refuse a periodEnd that is not a month end or is in the future, and an earlier month than the last run', async () => {
    await refused(
      org.keys.agent,
      'books.assetDepreciationRun',
      { periodEnd: '2026-06-29' },
      'BAD_REQUEST',
      /^periodEnd: must be the last day of a month/,
    );
    await refused(
      org.keys.agent,
      'books.assetDepreciationRun',
      { periodEnd: '2026-07-31' },
      'BAD_REQUEST',
      /^periodEnd: 2026-07-31 is in the future/,
    );
    await refused(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-02-31' }, 'BAD_REQUEST', /^periodEnd: /);
    // A month never run that lies before the last run is CONFLICT; one already run is a no-op.
    await refused(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2025-06-30' }, 'CONFLICT', /run to 2026-06-30/);
    expect(await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-05-31' })).toMatchObject({
      noop: true,
      totalCents: 16_986 + 13_876,
    });
    await refused(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-06-30', extra: 1 }, 'BAD_REQUEST', /extra/);
  });

  it('disposal with a taxable gain: depreciation to the date, cost and accumulated depreciation out, GST on the proceeds', async () => {
    await refused(
      org.keys.agent,
      'books.assetDispose',
      { id: vanId, date: '2026-07-21', proceedsCents: 1 },
      'BAD_REQUEST',
      /^date: 2026-07-21 is in the future/,
    );
    await refused(
      org.keys.agent,
      'books.assetDispose',
      { id: vanId, date: '2025-06-30', proceedsCents: 1 },
      'BAD_REQUEST',
      /^date: 2025-06-30 is before asset/,
    );
    await refused(
      org.keys.agent,
      'books.assetDispose',
      { id: vanId, date: '2026-06-29', proceedsCents: 1 },
      'CONFLICT',
      /depreciated to 2026-06-30/,
    );
    await refused(
      org.keys.agent,
      'books.assetDispose',
      { id: vanId, date: '2026-07-15', proceedsCents: -1 },
      'BAD_REQUEST',
      /^proceedsCents: must be an integer of at least 0/,
    );
    await refused(
      org.keys.agent,
      'books.assetDispose',
      { id: vanId, date: '2026-07-15', proceedsCents: 1, taxCode: 'GST_ON_CAPITAL' },
      'BAD_REQUEST',
      /^taxCode: must be one of/,
    );
    // 15 days (1–15 July): 1,000,000 × 15 ÷ 1825 = 8,219.18 → 8,219; accumulated 199,996 + 8,219 = 208,215;
    // book value 791,785; proceeds 990,000 less GST 90,000 = 900,000; gain 108,215.
    const d = await ok(org.keys.agent, 'books.assetDispose', { id: vanId, date: '2026-07-15', proceedsCents: 990_000 });
    expect(d).toMatchObject({
      id: vanId,
      status: 'disposed',
      depreciationCents: 8_219,
      bookValueCents: 791_785,
      gstCents: 90_000,
      taxCode: 'GST',
      gainCents: 108_215,
      lossCents: 0,
    });
    expect(await journalLines(t, org.orgId, d.journalId)).toEqual([
      { account_code: '6400', debit_cents: 8_219, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: vanId },
      { account_code: '1510', debit_cents: 0, credit_cents: 8_219, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: vanId },
      { account_code: '1510', debit_cents: 208_215, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: vanId },
      { account_code: '1500', debit_cents: 0, credit_cents: 1_000_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: vanId },
      {
        account_code: '1000',
        debit_cents: 990_000,
        credit_cents: 0,
        tax_code: 'GST',
        tax_base_cents: 990_000,
        gst_cents: 90_000,
        doc_id: null,
      },
      { account_code: '2100', debit_cents: 0, credit_cents: 90_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
      { account_code: '4300', debit_cents: 0, credit_cents: 108_215, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
    ]);
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev).toMatchObject({ kind: 'books.asset.dispose', payload: { assetId: vanId, journalId: d.journalId, gainCents: 108_215 } });
    // The BAS sees the sale: G1 $9,900 and its GST in 1A.
    const gst = await ok(org.keys.reader, 'books.reports', { type: 'gst_summary', from: '2026-07-01', to: '2026-07-31' });
    expect(JSON.stringify(gst)).toContain('"G1":9900');
    // Disposing of it again is a no-op (idempotent by state) with the same result and no event.
    const before = (await eventsOf(t, org)).length;
    const again = await ok(org.keys.agent, 'books.assetDispose', { id: vanId, date: '2026-07-16', proceedsCents: 5 });
    expect(again).toEqual({ ...d, noop: true });
    expect((await eventsOf(t, org)).length).toBe(before);
  });

  it('disposal with a GST-free loss posts Dr 7100 and no GST', async () => {
    // 15 days: 300,031 × 30 ÷ 1460 = 6,165.0 → 6,165; accumulated 206,134; book value 293,866;
    // proceeds 100,000 GST-free; loss 193,866.
    const d = await ok(org.keys.agent, 'books.assetDispose', {
      id: latheId,
      date: '2026-07-15',
      proceedsCents: 100_000,
      taxCode: 'GST_FREE',
    });
    expect(d).toMatchObject({
      status: 'disposed',
      depreciationCents: 6_165,
      bookValueCents: 293_866,
      gstCents: 0,
      gainCents: 0,
      lossCents: 193_866,
    });
    expect(await journalLines(t, org.orgId, d.journalId)).toEqual([
      { account_code: '6400', debit_cents: 6_165, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: latheId },
      { account_code: '1510', debit_cents: 0, credit_cents: 6_165, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: latheId },
      { account_code: '1510', debit_cents: 206_134, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: latheId },
      { account_code: '1500', debit_cents: 0, credit_cents: 500_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: latheId },
      {
        account_code: '1000',
        debit_cents: 100_000,
        credit_cents: 0,
        tax_code: 'GST_FREE',
        tax_base_cents: 100_000,
        gst_cents: 0,
        doc_id: null,
      },
      { account_code: '7100', debit_cents: 193_866, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
    ]);
  });

  it('the register as at dates before and after the disposals equals 1500 − 1510', async () => {
    const before = await registerMatchesLedger(org, '2026-07-14');
    expect(before.assets.every((a: { status: string }) => a.status === 'active')).toBe(true);
    const after = await registerMatchesLedger(org, '2026-07-15');
    expect(after.totals).toEqual({ costCents: 0, accumulatedDepreciationCents: 0, bookValueCents: 0 });
    expect(after.assets.find((a: { id: string }) => a.id === vanId)).toMatchObject({
      status: 'disposed',
      bookValueCents: 0,
      accumulatedDepreciationCents: 208_215,
      disposal: { date: '2026-07-15', proceedsCents: 990_000, taxCode: 'GST', gstCents: 90_000, gainCents: 108_215, lossCents: 0 },
    });
    expect((await ok(org.keys.reader, 'books.assets', { asOf: '2026-07-15', status: 'active' })).assets).toEqual([]);
    await registerMatchesLedger(org, '2025-06-30');
  });

  it('scrapping for nothing posts the book value as a loss, and a later run skips a disposed asset', async () => {
    const j = await ok(org.keys.agent, 'books.journalPost', {
      date: '2026-07-01',
      memo: 'Laptop',
      lines: [
        { accountCode: '1500', debitCents: 200_000, asset: { name: 'Laptop', effectiveLifeYears: 2, method: 'prime_cost' } },
        { accountCode: '1000', creditCents: 200_000 },
      ],
    });
    const [laptop] = j.assetIds;
    // 1–10 July, 10 days: 200,000 × 10 ÷ 730 = 2,739.73 → 2,740; book value 197,260, all a loss.
    const d = await ok(org.keys.agent, 'books.assetDispose', { id: laptop, date: '2026-07-10', proceedsCents: 0 });
    expect(d).toMatchObject({ depreciationCents: 2_740, bookValueCents: 197_260, gstCents: 0, lossCents: 197_260, gainCents: 0 });
    expect((await journalLines(t, org.orgId, d.journalId)).map((l) => l.account_code)).toEqual(['6400', '1510', '1510', '1500', '7100']);
    await registerMatchesLedger(org, '2026-07-20');
  });

  it('asset details are checked and every problem named; 1500 and 1510 move only through assets', async () => {
    const capture = (lines: unknown[], extra: Record<string, unknown> = {}) =>
      t.post(org.keys.agent, 'books.billCapture', { payeeName: 'Machine Tools Pty Ltd', description: 'Kit', dueDays: 30, lines, ...extra });
    const cases: [unknown[], RegExp][] = [
      [
        [{ description: 'Drill', amountCents: 11_000, taxCode: 'GST_ON_CAPITAL', asset: { ...van, effectiveLifeYears: 0 } }],
        /lines\.0\.asset\.effectiveLifeYears|lines\[0\]\.asset\.effectiveLifeYears/,
      ],
      [
        [{ description: 'Drill', amountCents: 11_000, taxCode: 'GST_ON_CAPITAL', asset: { ...van, effectiveLifeYears: 51 } }],
        /effectiveLifeYears: must be an integer from 1 to 50/,
      ],
      [
        [{ description: 'Drill', amountCents: 11_000, taxCode: 'GST_ON_CAPITAL', asset: { ...van, method: 'straight_line' } }],
        /asset\.method: must be one of prime_cost, diminishing_value/,
      ],
      [
        [{ description: 'Drill', amountCents: 11_000, taxCode: 'GST_ON_CAPITAL', asset: { ...van, name: '' } }],
        /asset\.name: must not be empty/,
      ],
      [[{ description: 'Drill', amountCents: 11_000, taxCode: 'GST_ON_CAPITAL', asset: { ...van, colour: 'red' } }], /colour/],
      [[{ description: 'Pens', amountCents: 1_100, accountCode: '6600', asset: van }], /^lines\[0\]\.asset: only a line coded to 1500/],
    ];
    for (const [lines, message] of cases) {
      const r = await capture(lines);
      expect(r.body.error?.code, JSON.stringify(r.body)).toBe('BAD_REQUEST');
      expect(r.body.error.message).toMatch(message);
    }
    // Without asset details a bill line on 1500 is a pending asset (assets-pending.test.ts), not refused.
    const journal = (lines: unknown[]) => t.post(org.keys.agent, 'books.journalPost', { date: '2026-07-01', memo: 'x', lines });
    const j1 = await journal([
      { accountCode: '1500', debitCents: 100 },
      { accountCode: '3000', creditCents: 100 },
    ]);
    expect(j1.body.error.message).toMatch(/^lines\[0\]\.asset: is required/);
    const j2 = await journal([
      { accountCode: '3000', debitCents: 100 },
      { accountCode: '1500', creditCents: 100, asset: van },
    ]);
    expect(j2.body.error.message).toMatch(
      /^lines\[1\]\.creditCents: account 1500 Plant and equipment is credited only by books.assetDispose/,
    );
    const j3 = await journal([
      { accountCode: '6400', debitCents: 100 },
      { accountCode: '1510', creditCents: 100 },
    ]);
    expect(j3.body.error.message).toMatch(/^lines\[1\]\.accountCode: account 1510 \(Accumulated depreciation\) is a control account/);
  });

  it('a returned bill takes its undepreciated asset off the register with the reversal', async () => {
    const bill = await approvedBill(t, org, {
      payeeName: 'Machine Tools Pty Ltd',
      description: 'Saw',
      lines: [
        {
          description: 'Saw',
          amountCents: 33_000,
          taxCode: 'GST_ON_CAPITAL',
          asset: { name: 'Saw', effectiveLifeYears: 3, method: 'prime_cost' },
        },
      ],
    });
    const saw = (await eventsOf(t, org)).at(-1).payload.assetIds[0];
    expect((await ok(org.keys.reader, 'books.assets', {})).assets.map((a: { id: string }) => a.id)).toContain(saw);
    await ok(org.keys.agent, 'books.billReturn', { id: bill.id, reason: 'Wrong model' });
    expect((await eventsOf(t, org)).at(-1).payload.returnedAssetIds).toEqual([saw]);
    expect((await ok(org.keys.reader, 'books.assets', {})).assets.map((a: { id: string }) => a.id)).not.toContain(saw);
    await refused(org.keys.agent, 'books.assetDispose', { id: saw, date: '2026-07-20', proceedsCents: 0 }, 'NOT_FOUND', /asset/);
    await registerMatchesLedger(org, '2026-07-20');
  });

  it('an asset dated before the last run catches up in the next run, from its start date', async () => {
    const o = await t.org();
    await ok(o.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-05-31' });
    const j = await ok(o.keys.agent, 'books.journalPost', {
      date: '2026-05-01',
      memo: 'Forklift, entered late',
      lines: [
        { accountCode: '1500', debitCents: 3_650_000, asset: { name: 'Forklift', effectiveLifeYears: 10, method: 'prime_cost' } },
        { accountCode: '3000', creditCents: 3_650_000 },
      ],
    });
    // 1 May – 30 June, 61 days: 3,650,000 × 61 ÷ 3650 = 61,000 exactly.
    const run = await ok(o.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-06-30' });
    expect(run.assets).toEqual([{ assetId: j.assetIds[0], amountCents: 61_000 }]);
    await registerMatchesLedger(o, '2026-06-30');
    await registerMatchesLedger(o, '2026-05-31');
  });

  it('scope and tenancy: a reader cannot run or dispose, an observer cannot read, another organisation gets NOT_FOUND', async () => {
    const run = await t.post(org.keys.reader, 'books.assetDepreciationRun', { periodEnd: '2026-06-30' });
    expect(run.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope books.write for books.assetDepreciationRun' });
    const dispose = await t.post(org.keys.reader, 'books.assetDispose', { id: latheId, date: '2026-07-15', proceedsCents: 0 });
    expect(dispose.status).toBe(403);
    const read = await t.post(org.keys.observer, 'books.assets', {});
    expect(read.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope books.read for books.assets' });
    await refused(
      other.keys.agent,
      'books.assetDispose',
      { id: latheId, date: '2026-07-15', proceedsCents: 0 },
      'NOT_FOUND',
      new RegExp(`asset ${latheId} not found`),
    );
    expect((await ok(other.keys.reader, 'books.assets', {})).assets).toEqual([]);
    // Another organisation's runs are its own: nothing of ours is depreciated there.
    const theirs = await ok(other.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-06-30' });
    expect(theirs).toMatchObject({ assets: [], totalCents: 0, journalId: null });
  });
});
