import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, eventsOf, journalLines } from './payables-helpers.js';
import { freshKey } from './signature-helpers.js';

/**
 * Pending fixed assets through HTTP on both engines, on a clock the test moves forward: a
 * supplier's invoice for a machine is captured with a GST_ON_CAPITAL line and no asset details
 * (the worked refund quarter's CNC router, $27,500 on 10 February 2026). It is accepted; its
 * approval puts a pending asset on the register (on 1500 at cost, $25,000), the BAS counts it at
 * G10, depreciation runs skip it and say so; books.assetRegister gives its name, life and method,
 * and the next run depreciates it from the bill's date.
 *
 * The catch-up: 10 February – 30 April 2026 is 19 + 31 + 30 = 80 days; prime cost over 10 years:
 * 2,500,000 × 80 ÷ 3650 = 54,794.52 → 54,795.
 */
const router = { name: 'CNC router', effectiveLifeYears: 10, method: 'prime_cost' };

describe.each(engines)('pending fixed assets (%s)', (engine) => {
  let t: TestServer;
  let clock = '2026-04-10T01:00:00.000Z'; // 11:00 on 10 April 2026 in Sydney
  let org: CreatedOrg;
  let other: CreatedOrg;
  let billId = '';
  let assetId = '';

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
  /** A refusal appends no event. */
  async function refused(key: string, method: string, body: Record<string, unknown>, code: string, message: RegExp) {
    const before = (await eventsOf(t, org)).length;
    const r = await t.post(key, method, body);
    expect(r.body.ok, JSON.stringify(r.body)).toBe(false);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.message).toMatch(message);
    expect((await eventsOf(t, org)).length).toBe(before);
  }
  async function registerMatchesLedger(o: CreatedOrg, asOf: string) {
    const reg = await ok(o.keys.reader, 'books.assets', { asOf });
    const r = await ok(o.keys.reader, 'books.accounts', { asOf, type: 'asset' });
    const bal = (code: string) => r.accounts.find((a: { code: string }) => a.code === code).balanceCents as number;
    expect(reg.totals).toEqual({
      costCents: bal('1500'),
      accumulatedDepreciationCents: 0 - bal('1510') || 0,
      bookValueCents: bal('1500') + bal('1510'),
    });
    return reg;
  }

  it('a bill with a GST_ON_CAPITAL line and no asset details is accepted; its approval puts a pending asset on the register', async () => {
    const bill = await approvedBill(t, org, {
      payeeName: 'Harbour Machinery',
      description: 'CNC router',
      issueDate: '2026-02-10',
      lines: [{ description: 'CNC router', amountCents: 2_750_000, taxCode: 'GST_ON_CAPITAL' }],
    });
    billId = bill.id;
    expect(await journalLines(t, org.orgId, bill.journalId)).toContainEqual(
      expect.objectContaining({
        account_code: '1500',
        debit_cents: 2_500_000,
        tax_code: 'GST_ON_CAPITAL',
        tax_base_cents: 2_750_000,
        gst_cents: 250_000,
      }),
    );
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev.kind).toBe('books.bill.approve');
    expect(ev.payload.assetIds).toHaveLength(1);
    assetId = ev.payload.assetIds[0];
    const reg = await registerMatchesLedger(org, '2026-04-10');
    expect(reg.assets).toEqual([
      {
        id: assetId,
        name: 'CNC router',
        method: null,
        effectiveLifeYears: null,
        startDate: '2026-02-10',
        costCents: 2_500_000,
        accumulatedDepreciationCents: 0,
        bookValueCents: 2_500_000,
        status: 'pending',
        taxTreatment: 'same_as_book',
        acquiredDate: '2026-02-10',
        source: { kind: 'bill', id: bill.id, lineNo: 1, journalId: bill.journalId },
        disposal: null,
        ledgerId: expect.any(String),
      },
    ]);
    expect(reg.totals).toEqual({ costCents: 2_500_000, accumulatedDepreciationCents: 0, bookValueCents: 2_500_000 });
    expect(reg.pending).toEqual({ count: 1, costCents: 2_500_000 });
    expect((await ok(org.keys.reader, 'books.assets', { status: 'pending' })).assets.map((a: { id: string }) => a.id)).toEqual([assetId]);
    expect((await ok(org.keys.reader, 'books.assets', { status: 'active' })).assets).toEqual([]);
    expect((await ok(org.keys.reader, 'books.assets', { asOf: '2026-02-09' })).pending).toEqual({ count: 0, costCents: 0 });
  });

  it('the BAS counts the capital purchase at G10 from the line', async () => {
    const bas = await ok(org.keys.agent, 'books.taxPrepare', { periodStart: '2026-01-01', periodEnd: '2026-03-31' });
    expect(bas.labels).toMatchObject({ G10: 27_500, '1B': 2_500 });
  });

  it('depreciation runs skip a pending asset and count it, one event each; a rerun answers the same count', async () => {
    for (const periodEnd of ['2026-02-28', '2026-03-31']) {
      const before = (await eventsOf(t, org)).length;
      const run = await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd });
      expect(run).toMatchObject({ periodEnd, assets: [], totalCents: 0, pendingSkipped: 1, journalId: null });
      const evs = await eventsOf(t, org);
      expect(evs.length).toBe(before + 1);
      expect(evs.at(-1)).toMatchObject({ kind: 'books.asset.depreciate', payload: { periodEnd, pendingSkipped: 1 } });
    }
    // A run before the asset's start date has nothing pending to skip.
    const o = await t.org();
    expect(await ok(o.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-01-31' })).toMatchObject({ pendingSkipped: 0 });
    expect(await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-03-31' })).toMatchObject({
      pendingSkipped: 1,
      noop: true,
    });
    expect((await ok(org.keys.reader, 'books.assets', {})).assets[0]).toMatchObject({ status: 'pending', accumulatedDepreciationCents: 0 });
  });

  it('a pending asset cannot be disposed of until it is registered', async () => {
    await refused(
      org.keys.agent,
      'books.assetDispose',
      { id: assetId, date: '2026-04-10', proceedsCents: 0 },
      'CONFLICT',
      /pending: register it with books\.assetRegister/,
    );
  });

  it('bad input names the field and changes nothing; scope and tenancy', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...router }, /^id: /],
      [{ id: assetId, ...router, effectiveLifeYears: 0 }, /^effectiveLifeYears: must be an integer from 1 to 50/],
      [{ id: assetId, ...router, effectiveLifeYears: 2.5 }, /^effectiveLifeYears: must be an integer number of years/],
      [{ id: assetId, ...router, method: 'straight_line' }, /^method: must be one of prime_cost, diminishing_value/],
      [{ id: assetId, ...router, name: '' }, /^name: must not be empty/],
      [{ id: assetId, name: 'CNC router', method: 'prime_cost' }, /^effectiveLifeYears: /],
      [{ id: assetId, ...router, colour: 'red' }, /colour/],
    ];
    for (const [body, message] of cases) await refused(org.keys.agent, 'books.assetRegister', body, 'BAD_REQUEST', message);
    await refused(org.keys.agent, 'books.assetRegister', { id: 'ast_nope', ...router }, 'NOT_FOUND', /asset ast_nope not found/);
    await refused(
      other.keys.agent,
      'books.assetRegister',
      { id: assetId, ...router },
      'NOT_FOUND',
      new RegExp(`asset ${assetId} not found`),
    );
    const reader = await t.post(org.keys.reader, 'books.assetRegister', { id: assetId, ...router });
    expect(reader.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope books.write for books.assetRegister' });
    expect((await ok(org.keys.reader, 'books.assets', {})).assets[0]).toMatchObject({ id: assetId, status: 'pending' });
  });

  it('registering gives it name, life and method, active from the bill date, in one event; again is CONFLICT; by key it replays', async () => {
    const before = (await eventsOf(t, org)).length;
    const key = { 'x-idempotency-key': freshKey() };
    const body = { id: assetId, ...router, name: 'CNC router (Harbour H-200)' };
    const r = await ok(org.keys.agent, 'books.assetRegister', body, key);
    expect(r).toMatchObject({
      id: assetId,
      name: 'CNC router (Harbour H-200)',
      method: 'prime_cost',
      effectiveLifeYears: 10,
      startDate: '2026-02-10',
      costCents: 2_500_000,
      accumulatedDepreciationCents: 0,
      bookValueCents: 2_500_000,
      status: 'active',
      source: { kind: 'bill', id: billId, lineNo: 1 },
      disposal: null,
    });
    const evs = await eventsOf(t, org);
    expect(evs.length).toBe(before + 1);
    expect(evs.at(-1)).toMatchObject({
      kind: 'books.asset.register',
      entity_id: assetId,
      payload: {
        assetId,
        name: 'CNC router (Harbour H-200)',
        effectiveLifeYears: 10,
        method: 'prime_cost',
        startDate: '2026-02-10',
        costCents: 2_500_000,
      },
    });
    expect(r.ledgerId).toBe(evs.at(-1).row_hash.slice(0, 8));
    const replay = await t.post(org.keys.agent, 'books.assetRegister', body, key);
    expect(replay.body).toEqual({ ok: true, code: 'IDEMPOTENT_REPLAY', result: r });
    await refused(org.keys.agent, 'books.assetRegister', { id: assetId, ...router }, 'CONFLICT', /already registered \(active\)/);
    const reg = await registerMatchesLedger(org, '2026-04-10');
    expect(reg.pending).toEqual({ count: 0, costCents: 0 });
    expect(reg.assets[0]).toMatchObject({ status: 'active', method: 'prime_cost', effectiveLifeYears: 10 });
  });

  it('the next run depreciates it from the bill date', async () => {
    clock = '2026-05-05T01:00:00.000Z';
    const run = await ok(org.keys.agent, 'books.assetDepreciationRun', { periodEnd: '2026-04-30' });
    expect(run).toMatchObject({ assets: [{ assetId, amountCents: 54_795 }], totalCents: 54_795, pendingSkipped: 0 });
    expect(await journalLines(t, org.orgId, run.journalId)).toEqual([
      expect.objectContaining({ account_code: '6400', debit_cents: 54_795, doc_id: assetId }),
      expect.objectContaining({ account_code: '1510', credit_cents: 54_795, doc_id: assetId }),
    ]);
    const reg = await registerMatchesLedger(org, '2026-04-30');
    expect(reg.assets[0]).toMatchObject({ accumulatedDepreciationCents: 54_795, bookValueCents: 2_500_000 - 54_795 });
  });

  it('a returned bill takes its pending asset off the register with the reversal', async () => {
    const bill = await approvedBill(t, org, {
      payeeName: 'Harbour Machinery',
      description: 'Drill press',
      totalCents: 330_000,
      taxCode: 'GST_ON_CAPITAL',
    });
    const drill = (await eventsOf(t, org)).at(-1).payload.assetIds[0];
    expect((await ok(org.keys.reader, 'books.assets', { status: 'pending' })).assets).toEqual([
      expect.objectContaining({ id: drill, name: 'Drill press', costCents: 300_000, startDate: '2026-05-05' }),
    ]);
    await ok(org.keys.agent, 'books.billReturn', { id: bill.id, reason: 'Wrong model' });
    expect((await eventsOf(t, org)).at(-1).payload.returnedAssetIds).toEqual([drill]);
    const reg = await registerMatchesLedger(org, '2026-05-05');
    expect(reg.assets.map((a: { id: string }) => a.id)).not.toContain(drill);
    expect(reg.pending).toEqual({ count: 0, costCents: 0 });
    await refused(org.keys.agent, 'books.assetRegister', { id: drill, ...router }, 'NOT_FOUND', /not found/);
  });

  it('an expense claim coded to 1500 puts a pending asset on the register when approved', async () => {
    const c = await ok(org.keys.agent, 'books.expenseClaim', {
      claimant: 'Sam',
      description: 'Cordless drill',
      amountCents: 55_000,
      spentOn: '2026-05-01',
      receiptRef: 'R-77',
      taxCode: 'GST_ON_CAPITAL',
    });
    expect(c).toMatchObject({ accountCode: '1500', gstCents: 5_000 });
    const approved = await ok(org.keys.agent, 'books.expenseApprove', { id: c.id });
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev).toMatchObject({
      kind: 'books.expense.approve',
      payload: { journalId: approved.journalId, assetIds: [expect.stringMatching(/^ast_/)] },
    });
    const [claimAsset] = ev.payload.assetIds;
    const reg = await registerMatchesLedger(org, '2026-05-05');
    expect(reg.assets.find((a: { id: string }) => a.id === claimAsset)).toMatchObject({
      status: 'pending',
      name: 'Cordless drill',
      costCents: 50_000,
      startDate: '2026-05-05',
      source: { kind: 'expense_claim', id: c.id, lineNo: 1, journalId: approved.journalId },
    });
    expect(reg.pending).toEqual({ count: 1, costCents: 50_000 });
    const r = await ok(org.keys.agent, 'books.assetRegister', {
      id: claimAsset,
      name: 'Cordless drill',
      effectiveLifeYears: 5,
      method: 'diminishing_value',
    });
    expect(r).toMatchObject({ status: 'active', source: { kind: 'expense_claim' } });
    await registerMatchesLedger(org, '2026-05-05');
  });
});
