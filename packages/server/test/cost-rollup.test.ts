import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/clock.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { today } from './payables-helpers.js';

/**
 * GET cost.rollup: the AI gateway's audit rows summed by day, actor and
 * model, over a bounded range, paged, with totals; another organisation's calls never counted.
 */
describe.each(engines)('cost.rollup (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  let n = 0;
  /** An audit row as books.ask writes it, on a chosen day (real calls all fall on today). */
  async function auditRow(o: CreatedOrg, day: string, actor: string, model: string, input: number, output: number, cost: number) {
    n += 1;
    await t.db.write(async (tx) => {
      await tx.run(
        `INSERT INTO ai_calls (org_id, id, actor, at, day, question_hash, provider, model, input_tokens, output_tokens,
           cost_micro_usd, latency_ms, grounded, citations, error, ledger_id, seq)
         VALUES (?, ?, ?, ?, ?, ?, 'openai', ?, ?, ?, ?, 5, 1, '[]', NULL, ?, ?)`,
        [o.orgId, `ask_t${n}`, actor, `${day}T01:00:00.000Z`, day, '0'.repeat(64), model, input, output, cost, 'deadbeef', 1_000 + n],
      );
    });
  }
  const rollup = async (o: CreatedOrg, query = '') => {
    const r = await t.get(o.keys.observer, `cost.rollup${query ? `?${query}` : ''}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };

  it('sums real books.ask calls by actor and model on the organisation’s day, grounded at zero cost', async () => {
    const o = await t.org();
    for (const key of [o.keys.reader, o.keys.reader, o.keys.agent]) {
      expect((await t.post(key, 'books.ask', { question: 'who owes us?' })).status).toBe(200);
    }
    const r = await rollup(o);
    expect(r).toMatchObject({ orgId: o.orgId, from: addDays(today(), -29), to: today(), nextCursor: null });
    const rows = [...r.rows].sort((a: { actor: string }, b: { actor: string }) => a.actor.localeCompare(b.actor));
    const expected = [
      { day: today(), actor: o.keyIds.agent, model: 'rules-v1', calls: 1, inputTokens: 0, outputTokens: 0, costMicroUsd: 0 },
      { day: today(), actor: o.keyIds.reader, model: 'rules-v1', calls: 2, inputTokens: 0, outputTokens: 0, costMicroUsd: 0 },
    ].sort((a, b) => a.actor.localeCompare(b.actor));
    expect(rows).toEqual(expected);
    expect(r.totals).toEqual({ calls: 3, inputTokens: 0, outputTokens: 0, costMicroUsd: 0 });
  });

  it('groups by day, actor and model in that order; filters; totals cover the whole range; pages with a cursor', async () => {
    const o = await t.org();
    const other = await t.org();
    await auditRow(o, '2026-03-01', 'agt_a', 'gpt-x', 1_000, 200, 1_500);
    await auditRow(o, '2026-03-01', 'agt_a', 'gpt-x', 3_000, 800, 4_700);
    await auditRow(o, '2026-03-01', 'agt_a', 'gpt-y', 10, 10, 7);
    await auditRow(o, '2026-03-01', 'agt_b', 'gpt-x', 5, 5, 3);
    await auditRow(o, '2026-03-02', 'agt_a', 'gpt-x', 100, 100, 90);
    await auditRow(o, '2026-04-15', 'agt_a', 'gpt-x', 1, 1, 1); // outside the range below
    await auditRow(other, '2026-03-01', 'agt_a', 'gpt-x', 9_999, 9_999, 999_999);
    const all = await rollup(o, 'from=2026-03-01&to=2026-03-31');
    expect(all.rows).toEqual([
      { day: '2026-03-01', actor: 'agt_a', model: 'gpt-x', calls: 2, inputTokens: 4_000, outputTokens: 1_000, costMicroUsd: 6_200 },
      { day: '2026-03-01', actor: 'agt_a', model: 'gpt-y', calls: 1, inputTokens: 10, outputTokens: 10, costMicroUsd: 7 },
      { day: '2026-03-01', actor: 'agt_b', model: 'gpt-x', calls: 1, inputTokens: 5, outputTokens: 5, costMicroUsd: 3 },
      { day: '2026-03-02', actor: 'agt_a', model: 'gpt-x', calls: 1, inputTokens: 100, outputTokens: 100, costMicroUsd: 90 },
    ]);
    expect(all.totals).toEqual({ calls: 5, inputTokens: 4_115, outputTokens: 1_115, costMicroUsd: 6_300 });
    expect(all.nextCursor).toBeNull();

    const byActor = await rollup(o, 'from=2026-03-01&to=2026-03-31&actor=agt_b');
    expect(byActor.rows).toHaveLength(1);
    expect(byActor.totals).toEqual({ calls: 1, inputTokens: 5, outputTokens: 5, costMicroUsd: 3 });
    const byModel = await rollup(o, 'from=2026-03-01&to=2026-03-31&model=gpt-y');
    expect(byModel.rows.map((r: { model: string }) => r.model)).toEqual(['gpt-y']);

    const seen: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { rows: unknown[]; nextCursor: string | null; totals: unknown } = await rollup(
        o,
        `from=2026-03-01&to=2026-03-31&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.totals).toEqual(all.totals);
      seen.push(...page.rows);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(2);
    expect(seen).toEqual(all.rows);
  });

  it('validation: the range is at most 366 days, to not before from; bad cursor, limit and unknown keys are BAD_REQUEST naming them', async () => {
    const o = await t.org();
    const bad: [string, string][] = [
      ['from=2025-01-01&to=2026-01-02', 'to: at most 366 days'],
      ['from=2026-03-02&to=2026-03-01', 'to: must be on or after from (2026-03-02)'],
      ['from=2026-02-30', 'from: '],
      ['to=yesterday', 'to: '],
      ['cursor=not*a*cursor', 'cursor: '],
      ['cursor=bm90IGpzb24', 'cursor: must be the nextCursor of a previous page'],
      ['limit=0', 'limit: '],
      ['limit=201', 'limit: '],
      ['bogus=1', 'bogus: unknown field'],
    ];
    for (const [query, message] of bad) {
      const r = await t.get(o.keys.observer, `cost.rollup?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error.code).toBe('BAD_REQUEST');
      expect(r.body.error.message, query).toContain(message);
    }
    // 366 days inclusive is the limit.
    expect((await rollup(o, 'from=2025-01-01&to=2026-01-01')).rows).toEqual([]);
    // from alone: to defaults to today (or from, when from is later).
    expect(await rollup(o, 'from=2099-01-01')).toMatchObject({ from: '2099-01-01', to: '2099-01-01' });
  });

  it('every key tier may read it (org.read); a missing key is UNAUTHORIZED', async () => {
    const o = await t.org();
    for (const key of [o.keys.observer, o.keys.reader, o.keys.agent]) expect((await t.get(key, 'cost.rollup')).status).toBe(200);
    expect((await t.get(null, 'cost.rollup')).status).toBe(401);
  });
});
