/**
 * Property test of tracking, through HTTP on both engines: random invoices, approved bills and
 * manual journals whose lines carry a Division option, a Region option, both or neither. After
 * the acts, for the period's profit and loss and the trial balance as at its end:
 *
 * - every account's amount, the section totals and the net profit summed over the options of
 *   one category and its unassigned lines equal the unfiltered report's, for each category;
 * - the same summed over every pair of the two categories' choices (3 × 3 filters of both);
 * - the unfiltered revenue is the model's: each invoice's total less its GST (1/11 of its GST
 *   lines' total, half up, once per document), and the expenses the bills' net and the journals'
 *   debits likewise;
 * - the unfiltered trial balance balances.
 *
 * Runs: FD_PROPERTY_RUNS (default 6 per engine here), up to 10 acts each. A failure prints the
 * fast-check seed and the shrunk sequence; replay with FD_PROPERTY_SEED.
 */
import fc from 'fast-check';
import { gstOfInclusive } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill } from './payables-helpers.js';

const RUNS = Number(process.env.FD_PROPERTY_RUNS ?? 6);
const SEED = process.env.FD_PROPERTY_SEED ? Number(process.env.FD_PROPERTY_SEED) : undefined;
const PERIOD = { from: '2026-10-01', to: '2026-10-31' };

const DIVISION = ['Cafe', 'Catering'] as const;
const REGION = ['North', 'South'] as const;
type Tag = { Division?: string; Region?: string };

const tag = fc
  .record({
    Division: fc.option(fc.constantFrom(...DIVISION), { nil: undefined }),
    Region: fc.option(fc.constantFrom(...REGION), { nil: undefined }),
  })
  .map((t) => {
    const out: Tag = {};
    if (t.Division !== undefined) out.Division = t.Division;
    if (t.Region !== undefined) out.Region = t.Region;
    return out;
  });
const line = fc.record({ amountCents: fc.integer({ min: 1, max: 500_000 }), gst: fc.boolean(), tracking: tag });
const day = fc.integer({ min: 1, max: 31 }).map((d) => `2026-10-${String(d).padStart(2, '0')}`);

const act = fc.oneof(
  fc.record({ kind: fc.constant('invoice' as const), date: day, lines: fc.array(line, { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('bill' as const), date: day, lines: fc.array(line, { minLength: 1, maxLength: 3 }) }),
  fc.record({
    kind: fc.constant('journal' as const),
    date: day,
    lines: fc.array(
      fc.record({ account: fc.constantFrom('6500', '6600', '4200'), amountCents: fc.integer({ min: 1, max: 300_000 }), tracking: tag }),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  }),
);
type Act = typeof act extends fc.Arbitrary<infer A> ? A : never;

/** A document's GST: 1/11 of its GST lines' total, half up, once per document (not per line). */
const documentGst = (lines: readonly { amountCents: number; gst: boolean }[]) =>
  gstOfInclusive(lines.reduce((n, l) => n + (l.gst ? l.amountCents : 0), 0));

const withTracking = (t: Tag) => (Object.keys(t).length > 0 ? { tracking: t } : {});

interface Section {
  accounts: { code: string; amountCents: number }[];
  totalCents: number;
}
interface ProfitAndLoss {
  revenue: Section;
  expenses: Section;
  netProfitCents: number;
}
interface TrialBalance {
  rows: { code: string; debitCents: number; creditCents: number }[];
  totals: { debitCents: number; creditCents: number };
  balanced: boolean;
}

/** Account code → amount, for a report's section (absent accounts are 0). */
const byCode = (s: Section) => new Map(s.accounts.map((a) => [a.code, a.amountCents]));

describe.each(engines)('tracking totals equal the untracked totals (%s, property)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());
  const { ok } = agentCalls(() => t);

  async function play(o: CreatedOrg, acts: readonly Act[]) {
    await ok(o, 'books.trackingSet', { category: 'Division', options: DIVISION.map((name) => ({ name })) });
    await ok(o, 'books.trackingSet', { category: 'Region', options: REGION.map((name) => ({ name })) });
    let revenue = 0;
    let expenses = 0;
    for (const [i, a] of acts.entries()) {
      if (a.kind === 'invoice') {
        const lines = a.lines.map((l) => ({
          description: `Sale ${i}`,
          amountCents: l.amountCents,
          taxCode: l.gst ? 'GST' : 'GST_FREE',
          ...withTracking(l.tracking),
        }));
        const total = a.lines.reduce((n, l) => n + l.amountCents, 0);
        const draft = await ok(o, 'books.invoiceDraft', {
          payeeName: `Customer ${i % 3}`,
          description: 'Sales',
          totalCents: total,
          dueDays: 7,
          issueDate: a.date,
          lines,
        });
        await ok(o, 'books.invoiceSend', { id: draft.id });
        revenue += total - documentGst(a.lines);
      } else if (a.kind === 'bill') {
        const lines = a.lines.map((l) => ({
          description: `Purchase ${i}`,
          amountCents: l.amountCents,
          taxCode: l.gst ? 'GST_ON_EXPENSES' : 'GST_FREE_EXPENSES',
          ...withTracking(l.tracking),
        }));
        const total = a.lines.reduce((n, l) => n + l.amountCents, 0);
        await approvedBill(t, o, { payeeName: `Supplier ${i % 3}`, description: 'Purchases', totalCents: total, issueDate: a.date, lines });
        expenses += total - documentGst(a.lines);
      } else {
        // Debits to expense accounts (a credit to 4200 Other income is a negative line here: its
        // amount is credited), balanced by the bank, which carries no option.
        const lines: Record<string, unknown>[] = a.lines.map((l) =>
          l.account === '4200'
            ? { accountCode: l.account, creditCents: l.amountCents, ...withTracking(l.tracking) }
            : { accountCode: l.account, debitCents: l.amountCents, ...withTracking(l.tracking) },
        );
        const net = a.lines.reduce((n, l) => n + (l.account === '4200' ? -l.amountCents : l.amountCents), 0);
        if (net !== 0) lines.push(net > 0 ? { accountCode: '1000', creditCents: net } : { accountCode: '1000', debitCents: -net });
        await ok(o, 'books.journalPost', { date: a.date, memo: `Journal ${i}`, lines });
        for (const l of a.lines) {
          if (l.account === '4200') revenue += l.amountCents;
          else expenses += l.amountCents;
        }
      }
    }
    return { revenue, expenses };
  }

  const pnl = (o: CreatedOrg, tracking?: Record<string, string | null>) =>
    ok(o, 'books.reports', { type: 'profit_and_loss', ...PERIOD, ...(tracking ? { tracking } : {}) }) as Promise<ProfitAndLoss>;
  const tb = (o: CreatedOrg, tracking?: Record<string, string | null>) =>
    ok(o, 'books.reports', { type: 'trial_balance', asOf: PERIOD.to, ...(tracking ? { tracking } : {}) }) as Promise<TrialBalance>;

  /** Each filter's P&L and trial balance summed per account; the sums must be the whole's. */
  async function expectPartsSumToWhole(o: CreatedOrg, filters: Record<string, string | null>[], label: string) {
    const whole = await pnl(o);
    const wholeTb = await tb(o);
    const sums = { revenue: new Map<string, number>(), expenses: new Map<string, number>(), net: 0, tb: new Map<string, number>() };
    const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
    for (const f of filters) {
      const part = await pnl(o, f);
      for (const a of part.revenue.accounts) add(sums.revenue, a.code, a.amountCents);
      for (const a of part.expenses.accounts) add(sums.expenses, a.code, a.amountCents);
      sums.net += part.netProfitCents;
      for (const a of (await tb(o, f)).rows) add(sums.tb, a.code, a.debitCents - a.creditCents);
    }
    const nonZero = (m: Map<string, number>) => new Map([...m].filter(([, v]) => v !== 0));
    expect(nonZero(sums.revenue), `${label}: revenue`).toEqual(nonZero(byCode(whole.revenue)));
    expect(nonZero(sums.expenses), `${label}: expenses`).toEqual(nonZero(byCode(whole.expenses)));
    expect(sums.net, `${label}: net profit`).toBe(whole.netProfitCents);
    const wholeTbByCode = new Map(wholeTb.rows.map((a) => [a.code, a.debitCents - a.creditCents]));
    expect(nonZero(sums.tb), `${label}: trial balance`).toEqual(nonZero(wholeTbByCode));
  }

  it('sums over each category, and over both, equal the whole; the whole is the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(act, { minLength: 1, maxLength: 10 }), async (acts) => {
        const o = await t.org();
        const model = await play(o, acts);
        const whole = await pnl(o);
        expect(whole.revenue.totalCents).toBe(model.revenue);
        expect(whole.expenses.totalCents).toBe(model.expenses);
        expect((await tb(o)).balanced).toBe(true);
        const division = [...DIVISION, null].map((v) => ({ Division: v }));
        const region = [...REGION, null].map((v) => ({ Region: v }));
        await expectPartsSumToWhole(o, division, 'Division');
        await expectPartsSumToWhole(o, region, 'Region');
        await expectPartsSumToWhole(
          o,
          division.flatMap((d) => region.map((r) => ({ ...d, ...r }))),
          'Division × Region',
        );
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  }, 120_000);
});
