import { verifyChain, type EventRow } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';

describe.each(engines)('ledger reads and the chain (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    for (let i = 0; i < 12; i += 1) {
      await t.post(org.keys.agent, 'board.createTask', { title: `task ${i}` });
    }
  });
  afterAll(async () => t.close());

  async function all(key: string): Promise<EventRow[]> {
    const out: EventRow[] = [];
    let cursor = 0;
    for (;;) {
      const r = await t.get(key, `events?cursor=${cursor}&limit=5`);
      expect(r.status).toBe(200);
      out.push(...r.body.events);
      if (r.body.events.length === 0) return out;
      cursor = r.body.nextCursor;
    }
  }

  it('pages forward by cursor, gapless from seq 1, and the chain verifies', async () => {
    const rows = await all(org.keys.observer);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(rows[0]?.prev_hash).toBe('');
    expect(rows[0]?.kind).toBe('org.created');
    const verdict = verifyChain(rows);
    expect(verdict.ok).toBe(true);
    const snap = await t.get(org.keys.observer, 'snapshot');
    expect(snap.body).toEqual({ orgId: org.orgId, head: verdict.ok ? verdict.head : null });
  });

  it('rows carry exactly the wire fields of a ledger row', async () => {
    const r = await t.get(org.keys.observer, 'events?limit=2&cursor=1');
    expect(Object.keys(r.body).sort()).toEqual(['events', 'nextCursor']);
    const row = r.body.events[0];
    expect(Object.keys(row).sort()).toEqual(
      ['actor', 'at', 'entity_id', 'family', 'kind', 'payload', 'prev_hash', 'row_hash', 'seq'].sort(),
    );
    expect(row).toMatchObject({ seq: 2, family: 'board', kind: 'item.created', actor: org.keyIds.agent });
    expect(row.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.body.nextCursor).toBe(3);
  });

  it('nextCursor is the given cursor when no rows follow', async () => {
    const r = await t.get(org.keys.observer, 'events?cursor=999');
    expect(r.body).toEqual({ events: [], nextCursor: 999 });
  });

  it('limit defaults to 100 and accepts 500', async () => {
    expect((await t.get(org.keys.observer, 'events')).body.events).toHaveLength(13);
    expect((await t.get(org.keys.observer, 'events?limit=500')).status).toBe(200);
  });

  it.each(['limit=501', 'limit=0', 'limit=-1', 'limit=1.5', 'limit=abc', 'cursor=-1', 'cursor=x', 'foo=1', 'limit=1&limit=2'])(
    'events?%s is BAD_REQUEST naming the field',
    async (query) => {
      const r = await t.get(org.keys.observer, `events?${query}`);
      expect(r.status).toBe(400);
      expect(r.body.ok).toBe(false);
      expect(r.body.error.code).toBe('BAD_REQUEST');
      const field = query.split('=')[0] ?? '';
      expect(r.body.error.message).toContain(`${field}:`);
    },
  );

  it('an empty ledger snapshot is seq 0 with an empty hash', async () => {
    // A fresh organisation's first event is org.created, so build the empty case from storage.
    const { headOf } = await import('../src/ledger/read.js');
    expect(await headOf(t.db.reader, 'org_none')).toBeNull();
  });

  it('a failed write appends no event; a successful one exactly one', async () => {
    const before = (await t.get(org.keys.observer, 'snapshot')).body.head.seq;
    await t.post(org.keys.agent, 'board.claim', { id: 'task_absent' });
    await t.post(org.keys.agent, 'board.createTask', { title: '' });
    expect((await t.get(org.keys.observer, 'snapshot')).body.head.seq).toBe(before);
    await t.post(org.keys.agent, 'board.createTask', { title: 'one more' });
    expect((await t.get(org.keys.observer, 'snapshot')).body.head.seq).toBe(before + 1);
  });

  it('tampering with a stored payload is caught with seq and reason', async () => {
    const other = await t.org();
    await t.post(other.keys.agent, 'books.invoiceDraft', {
      payeeName: 'T',
      description: 'd',
      totalCents: 100,
      dueDays: 1,
    });
    // The stored payload as hashed (it names the contact too), to put back afterwards.
    const stored = (await t.db.reader.get<{ payload: string }>('SELECT payload FROM events WHERE org_id = ? AND seq = 2', [other.orgId]))
      ?.payload;
    expect(stored).toContain('"totalCents":100');
    await t.db.write(async (tx) => {
      await tx.run(`UPDATE events SET payload = ? WHERE org_id = ? AND seq = 2`, [
        String(stored).replace('"totalCents":100', '"totalCents":1'),
        other.orgId,
      ]);
    });
    const rows = (await t.get(other.keys.observer, 'events')).body.events as EventRow[];
    expect(verifyChain(rows)).toMatchObject({ ok: false, seq: 2, reason: 'row_hash' });
    // Put it back so that the after-file verification stays meaningful for the rest.
    await t.db.write(async (tx) => {
      await tx.run(`UPDATE events SET payload = ? WHERE org_id = ? AND seq = 2`, [String(stored), other.orgId]);
    });
    const again = (await t.get(other.keys.observer, 'events')).body.events as EventRow[];
    expect(verifyChain(again).ok).toBe(true);
  });

  it('another organisation sees none of these events', async () => {
    const other = await t.org();
    const r = await t.get(other.keys.observer, 'events');
    expect(r.body.events.map((e: EventRow) => e.entity_id)).toEqual([other.orgId]);
  });
});
