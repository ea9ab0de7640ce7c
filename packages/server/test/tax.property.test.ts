/**
 * Property test of the BAS: random documents and payments of a quarter,
 * posted as the ledger holds them, then through HTTP:
 *
 * - taxPrepare's labels and exact cents are the GST summary report's for the period (accrual);
 * - once every document is paid, the cash-basis BASes of the quarters the payments fall in add
 *   up, per label in exact cents, to the accrual BAS of the quarter the documents were issued in
 *   (each document counted exactly once, however its payments were split and rounded);
 * - after signing and lodging, the settlement journal balances, 2100, 1200 and 2200 hold nothing
 *   for the quarter, 2150 holds the net, and the trial balance balances; every chain verifies.
 *
 * Runs: FD_PROPERTY_RUNS (default 8 per engine; `npm run test:property` runs 200). Replay with FD_PROPERTY_SEED.
 */
import fc from 'fast-check';
import { gstOfInclusive } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostingLine } from '../src/domain/gl/post.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { postEntry } from './reports-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

const RUNS = Number(process.env.FD_PROPERTY_RUNS ?? 8);
const SEED = process.env.FD_PROPERTY_SEED ? Number(process.env.FD_PROPERTY_SEED) : undefined;

const Q1 = { periodStart: '2026-01-01', periodEnd: '2026-03-31' };
const Q2 = { periodStart: '2026-04-01', periodEnd: '2026-06-30' };
const SALE_CODES = ['GST', 'GST_FREE', 'EXPORT', 'INPUT_TAXED'] as const;
const PURCHASE_CODES = ['GST_ON_EXPENSES', 'GST_ON_CAPITAL', 'GST_FREE_EXPENSES'] as const;

const day = (month: number, d: number) => `2026-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

const doc = fc.record({
  sale: fc.boolean(),
  lines: fc.array(fc.record({ amountCents: fc.integer({ min: 1, max: 900_000 }), code: fc.nat({ max: 3 }) }), {
    minLength: 1,
    maxLength: 3,
  }),
  issued: fc.record({ month: fc.integer({ min: 1, max: 3 }), day: fc.integer({ min: 1, max: 28 }) }),
  /** Payments in thousandths of the total: the rest is paid on 20 June. */
  payments: fc.array(
    fc.record({ part: fc.integer({ min: 1, max: 600 }), month: fc.integer({ min: 1, max: 6 }), day: fc.integer({ min: 1, max: 28 }) }),
    { maxLength: 3 },
  ),
});
const wages = fc.array(fc.record({ grossCents: fc.integer({ min: 1_000, max: 900_000 }), paygCents: fc.integer({ min: 0, max: 900 }) }), {
  maxLength: 3,
});

type Doc = {
  sale: boolean;
  lines: { amountCents: number; code: number }[];
  issued: { month: number; day: number };
  payments: { part: number; month: number; day: number }[];
};

/** The document's journal: the control account names it; each line tagged with its GST (1/11 of GST codes). */
function documentLines(d: Doc, docId: string): { lines: PostingLine[]; total: number } {
  const tagged = d.lines.map((l) => {
    const code = d.sale ? SALE_CODES[l.code % SALE_CODES.length] : PURCHASE_CODES[l.code % PURCHASE_CODES.length];
    const gst = code === 'GST' || code === 'GST_ON_EXPENSES' || code === 'GST_ON_CAPITAL' ? gstOfInclusive(l.amountCents) : 0;
    return { code: code as NonNullable<PostingLine['taxCode']>, amount: l.amountCents, gst };
  });
  const total = tagged.reduce((s, l) => s + l.amount, 0);
  const gst = tagged.reduce((s, l) => s + l.gst, 0);
  const lines: PostingLine[] = d.sale
    ? [
        { account: '1100', debitCents: total, docId },
        ...tagged.map((l) => ({
          account: '4000',
          creditCents: l.amount - l.gst,
          taxCode: l.code,
          taxBaseCents: l.amount,
          gstCents: l.gst,
        })),
        { account: '2100', creditCents: gst },
      ]
    : [
        ...tagged.map((l) => ({ account: '6000', debitCents: l.amount - l.gst, taxCode: l.code, taxBaseCents: l.amount, gstCents: l.gst })),
        { account: '1200', debitCents: gst },
        { account: '2000', creditCents: total, docId },
      ];
  return { lines, total };
}

describe.each(engines)('BAS properties (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  const ok = async (o: CreatedOrg, method: string, params: unknown, key?: string) => {
    const r = await t.post(o.keys.agent, `books.${method}`, params, key ? { 'x-idempotency-key': key } : {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };

  async function post(o: CreatedOrg, docs: Doc[], pays: { grossCents: number; paygCents: number }[]) {
    for (const [i, d] of docs.entries()) {
      const docId = `${d.sale ? 'inv' : 'bill'}_p${i}`;
      const { lines, total } = documentLines(d, docId);
      await postEntry(t, o, day(d.issued.month, d.issued.day), `doc ${i}`, lines);
      let paid = 0;
      const issued = day(d.issued.month, d.issued.day);
      // A payment is never dated before its document.
      const payments = d.payments
        .map((p) => ({ ...p, date: [day(p.month, p.day), issued].sort()[1] ?? issued }))
        .sort((a, b) => (a.date < b.date ? -1 : 1));
      for (const p of payments) {
        const amount = Math.min(Math.floor((total * p.part) / 1000), total - paid);
        if (amount <= 0) continue;
        paid += amount;
        await postEntry(t, o, p.date, `pay ${i}`, payLines(d.sale, docId, amount));
      }
      if (paid < total) await postEntry(t, o, '2026-06-20', `rest ${i}`, payLines(d.sale, docId, total - paid));
    }
    for (const w of pays) {
      const payg = Math.min(w.paygCents * 100, w.grossCents);
      await postEntry(t, o, '2026-02-14', 'pay run', [
        { account: '6100', debitCents: w.grossCents, taxCode: 'BAS_EXCLUDED_WAGES', taxBaseCents: w.grossCents },
        ...(payg > 0 ? [{ account: '2200', creditCents: payg, taxCode: 'BAS_EXCLUDED_PAYGW' as const, taxBaseCents: payg }] : []),
        ...(w.grossCents - payg > 0 ? [{ account: '1000', creditCents: w.grossCents - payg }] : []),
      ]);
    }
  }

  const payLines = (sale: boolean, docId: string, amount: number): PostingLine[] =>
    sale
      ? [
          { account: '1000', debitCents: amount },
          { account: '1100', creditCents: amount, docId },
        ]
      : [
          { account: '2000', debitCents: amount, docId },
          { account: '1000', creditCents: amount },
        ];

  const balanceAt = async (o: CreatedOrg, code: string, asOf: string) => {
    const r = await t.post(o.keys.reader, 'books.accounts', { asOf });
    return (r.body.result.accounts as { code: string; balanceCents: number }[]).find((a) => a.code === code)?.balanceCents;
  };

  it('labels are the GST report’s; cash shares add up to the accrual BAS; the settlement clears the GST accounts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(doc, { minLength: 1, maxLength: 5 }), wages, async (docs, pays) => {
        const o = await t.org();
        await post(o, docs, pays);
        const accrual = await ok(o, 'taxPrepare', Q1);
        const gst = (await t.post(o.keys.reader, 'books.reports', { type: 'gst_summary', from: Q1.periodStart, to: Q1.periodEnd })).body
          .result;
        expect(accrual.labels).toEqual(gst.front);
        expect(accrual.exactCents).toEqual(gst.exactCents);
        // Cash basis, in another organisation with the same books (one BAS per period each).
        const c = await t.org();
        await post(c, docs, pays);
        const cash1 = await ok(c, 'taxPrepare', { ...Q1, basis: 'cash' });
        const cash2 = await ok(c, 'taxPrepare', { ...Q2, basis: 'cash' });
        for (const label of ['G1', 'G2', 'G3', 'G10', 'G11', '1A', '1B']) {
          expect([label, cash1.exactCents[label] + cash2.exactCents[label]]).toEqual([label, accrual.exactCents[label]]);
        }
        // Sign and lodge the accrual BAS: the settlement clears the quarter's GST and PAYG.
        const { approvalId } = await heldAndRequested(t, o, 'books.taxSignLodge', { id: accrual.id });
        await decide(t, o, approvalId, true);
        await ok(o, 'taxSignLodge', { id: accrual.id, approvalId }, freshKey());
        for (const code of ['2100', '1200', '2200']) expect([code, await balanceAt(o, code, Q1.periodEnd)]).toEqual([code, 0]);
        expect(await balanceAt(o, '2150', Q1.periodEnd)).toBe(accrual.netCents);
        const tb = await t.post(o.keys.reader, 'books.reports', { type: 'trial_balance', asOf: Q2.periodEnd });
        expect(tb.body.result.balanced).toBe(true);
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  }, 600_000);
});
