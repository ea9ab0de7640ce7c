import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { runWrite } from '../src/write-path.js';
import { engines, startTestServer, type TestServer } from './harness.js';

const draft = { payeeName: 'Idem Pty Ltd', description: 'Once only', totalCents: 5_000, dueDays: 7 };

describe.each(engines)('idempotency keys, D2 (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let n = 0;
  const key = () => `key-${engine}-${(n += 1)}`;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const seq = async () => (await t.get(org.keys.observer, 'snapshot')).body.head.seq as number;

  it('the same key, method and params replays the first result and appends nothing', async () => {
    const k = key();
    const first = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    expect(first.status).toBe(200);
    const after = await seq();
    const again = await t.post(org.keys.agent, 'books.invoiceDraft', { params: draft }, { 'x-idempotency-key': k });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ok: true, code: 'IDEMPOTENT_REPLAY', result: first.body.result });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await seq()).toBe(after);
  });

  it('the same key with other params is CONFLICT and executes nothing', async () => {
    const k = key();
    await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    const before = await seq();
    const r = await t.post(org.keys.agent, 'books.invoiceDraft', { ...draft, totalCents: 5_001 }, { 'x-idempotency-key': k });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('CONFLICT');
    expect(r.body.error.message).toMatch(/different request/);
    expect(await seq()).toBe(before);
  });

  it('the same key on another method is CONFLICT', async () => {
    const k = key();
    await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    const r = await t.post(org.keys.agent, 'board.createTask', { title: 'x' }, { 'x-idempotency-key': k });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/books\.invoiceDraft/);
  });

  it('keys are scoped per credential: another key of the org executes afresh', async () => {
    const other = await t.org();
    const k = key();
    const a = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    const b = await t.post(other.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    expect(b.body.code).toBeUndefined();
    expect(b.body.result.id).not.toBe(a.body.result.id);
  });

  it('errors are not cached: the key may be used again after a 4xx', async () => {
    const k = key();
    const bad = await t.post(org.keys.agent, 'books.invoiceSend', { id: 'inv_missing' }, { 'x-idempotency-key': k });
    expect(bad.status).toBe(404);
    const good = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    expect(good.status).toBe(200);
    expect(good.body.code).toBeUndefined();
  });

  it('a malformed key is BAD_REQUEST', async () => {
    const r = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': 'x'.repeat(256) });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^x-idempotency-key:/);
  });

  it('many concurrent calls with one key execute exactly once', async () => {
    const k = key();
    const before = await seq();
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k })),
    );
    const executed = replies.filter((r) => r.status === 200 && r.body.code === undefined);
    const replayed = replies.filter((r) => r.body.code === 'IDEMPOTENT_REPLAY');
    const inFlight = replies.filter((r) => r.status === 409);
    expect(executed).toHaveLength(1);
    expect(replayed.length + inFlight.length).toBe(19);
    for (const r of replayed) expect(r.body.result).toEqual(executed[0]?.body.result);
    expect(await seq()).toBe(before + 1);
  });

  it('a key whose first call is still running is CONFLICT', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const call = {
      orgId: org.orgId,
      actor: 'test',
      credentialId: org.keyIds.agent,
      method: 'board.createTask',
      params: { title: 'slow' },
      idempotencyKey: key(),
    };
    const slow = runWrite(t.db, call, async (uow) => {
      await gate;
      const e = await uow.emit({ family: 'board', kind: 'item.created', entityId: 'task_slow', payload: null });
      return { ledgerId: e.ledgerId };
    });
    await new Promise((r) => setTimeout(r, 20));
    await expect(runWrite(t.db, call, async () => ({}))).rejects.toMatchObject({ code: 'CONFLICT' });
    release();
    const done = await slow;
    expect(done.replay).toBe(false);
    const replay = await runWrite(t.db, call, async () => ({}));
    expect(replay).toEqual({ replay: true, result: done.result });
  });

  it.runIf(engine === 'postgres')('in flight over HTTP while the org is locked elsewhere → CONFLICT', async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    const schema = (await t.db.reader.get<{ s: string }>('SELECT current_schema() AS s'))?.s;
    await client.query(`SET search_path = ${schema}`);
    await client.query('BEGIN');
    await client.query('SELECT seq FROM org_heads WHERE org_id = $1 FOR UPDATE', [org.orgId]);
    const k = key();
    const first = t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    await new Promise((r) => setTimeout(r, 100));
    const second = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    expect(second.status).toBe(409);
    expect(second.body.error.message).toMatch(/still running/);
    await client.query('COMMIT');
    await client.end();
    expect((await first).status).toBe(200);
  });
});
