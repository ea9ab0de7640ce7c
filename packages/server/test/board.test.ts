import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { issueOrgKey } from '../src/org/orgs.js';
import { engines, refusal, startTestServer, type TestServer } from './harness.js';

describe.each(engines)('board (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  it('createTask puts a task in ready with its event board/item.created', async () => {
    const r = await t.post(org.keys.agent, 'board.createTask', { title: 'Chase ACME' });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ title: 'Chase ACME', col: 'ready', priority: 'normal', claimedBy: null });
    expect(r.body.result.id).toMatch(/^task_/);
    const events = (await t.get(org.keys.observer, 'events')).body.events;
    const last = events.at(-1);
    expect(last).toMatchObject({ family: 'board', kind: 'item.created', entity_id: r.body.result.id });
    expect(last.row_hash.startsWith(r.body.result.ledgerId)).toBe(true);
  });

  it.each([
    [{}, 'title: is required'],
    [{ title: '' }, 'title: must not be empty'],
    [{ title: 'x', priority: 'asap' }, 'priority: must be one of low, normal, high, urgent'],
  ])('createTask %j is BAD_REQUEST', async (params, message) => {
    const r = await t.post(org.keys.agent, 'board.createTask', params);
    expect(r.body).toEqual(refusal('BAD_REQUEST', message));
  });

  it('board.ready lists unclaimed items by priority, then age', async () => {
    const o = await t.org();
    const mk = async (title: string, priority: string) =>
      (await t.post(o.keys.agent, 'board.createTask', { title, priority })).body.result.id as string;
    await mk('low one', 'low');
    const n1 = await mk('normal one', 'normal');
    await mk('urgent one', 'urgent');
    await mk('high one', 'high');
    await mk('normal two', 'normal');
    await t.post(o.keys.agent, 'board.claim', { id: n1 });
    const r = await t.get(o.keys.observer, 'board.ready');
    expect(r.body.items.map((i: { title: string }) => i.title)).toEqual(['urgent one', 'high one', 'normal two', 'low one']);
    expect((await t.get(o.keys.observer, 'board.ready?limit=2')).body.items).toHaveLength(2);
    expect((await t.get(o.keys.observer, 'board.ready?limit=201')).status).toBe(400);
  });

  it('claim moves the item to claimed by the caller; a second claim is CONFLICT, whoever asks', async () => {
    const id = (await t.post(org.keys.agent, 'board.createTask', { title: 'one owner' })).body.result.id;
    const first = await t.post(org.keys.agent, 'board.claim', { id });
    expect(first.body.result).toMatchObject({ id, col: 'claimed', claimedBy: org.keyIds.agent });
    const again = await t.post(org.keys.agent, 'board.claim', { id });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(`board item ${id} is already claimed by ${org.keyIds.agent}`);
  });

  it('of many concurrent claims exactly one wins', async () => {
    const id = (await t.post(org.keys.agent, 'board.createTask', { title: 'contested' })).body.result.id;
    const keys = await Promise.all(Array.from({ length: 4 }, (_, i) => issueOrgKey(t.db, org.slug, 'agent', `racer-${engine}-${i}`)));
    const before = (await t.get(org.keys.observer, 'snapshot')).body.head.seq;
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, i) => t.post(keys[i % keys.length]?.key ?? '', 'board.claim', { id })),
    );
    const wins = replies.filter((r) => r.status === 200);
    const losses = replies.filter((r) => r.status === 409 && r.body.error.code === 'CONFLICT');
    expect(wins).toHaveLength(1);
    expect(losses).toHaveLength(23);
    expect((await t.get(org.keys.observer, 'snapshot')).body.head.seq).toBe(before + 1);
  });

  it('a key bound to an agent claims as that agent (event actor is the agent id)', async () => {
    const bound = await issueOrgKey(t.db, org.slug, 'agent', `named-${engine}`);
    const id = (await t.post(org.keys.agent, 'board.createTask', { title: 'for the agent' })).body.result.id;
    const r = await t.post(bound.key, 'board.claim', { id });
    expect(r.body.result.claimedBy).toBe(bound.agentId);
    const ctx = await t.get(org.keys.observer, `board.context?id=${id}`);
    expect(ctx.body.item).toMatchObject({ id, col: 'claimed', claimedBy: bound.agentId });
    expect(ctx.body.history.map((e: { kind: string; actor: string }) => [e.kind, e.actor])).toEqual([
      ['item.created', org.keyIds.agent],
      ['item.claimed', bound.agentId],
    ]);
    const who = await t.get(bound.key, `org/whoami?slug=${org.slug}`);
    expect(who.body).toMatchObject({ kind: 'agent', agentId: bound.agentId, name: `named-${engine}`, tier: 'agent' });
  });

  it('claim and context of an unknown item are NOT_FOUND', async () => {
    expect((await t.post(org.keys.agent, 'board.claim', { id: 'task_nope' })).status).toBe(404);
    expect((await t.get(org.keys.observer, 'board.context?id=task_nope')).status).toBe(404);
    expect((await t.get(org.keys.observer, 'board.context')).body.error.message).toBe('id: is required');
  });
});
