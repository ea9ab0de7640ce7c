import { limits } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueOrgKey, revokeOrgKey, type CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { heldAndRequested, sentInvoice } from './signature-helpers.js';

describe.each(engines)('organisation reads: directory, ops, the 13 base reads (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  it('directory lists people, agents and keys without secrets', async () => {
    const bot = await issueOrgKey(t.db, org.slug, 'agent', 'ops-bot');
    await revokeOrgKey(t.db, org.slug, org.keyIds.observer);
    const r = await t.get(org.keys.reader, 'directory');
    expect(r.status).toBe(200);
    expect(r.body.people).toEqual([expect.objectContaining({ userId: org.owner.userId, role: 'owner' })]);
    expect(r.body.agents).toEqual([expect.objectContaining({ agentId: bot.agentId, name: 'ops-bot' })]);
    expect(r.body.keys).toHaveLength(4);
    expect(r.body.keys.find((k: any) => k.keyId === org.keyIds.observer).revokedAt).not.toBeNull();
    const text = JSON.stringify(r.body);
    // fdk_<26-char id>_<secret>: the secret is base64url and may itself contain '_'.
    for (const key of [org.keys.agent, bot.key]) expect(text).not.toContain(key.slice(31));
    expect(text).not.toMatch(/scrypt|password/);
  });

  it('directory holds each list to its newest rows, oldest first, and says when one was cut', async () => {
    const o = await t.org();
    expect((await t.get(o.keys.reader, 'directory')).body.truncated).toBe(false);
    const max = limits.directoryRowsMax;
    // max + 1 agents, created a second apart (an agent has no secret: rows are enough here).
    await t.db.write(async (tx) => {
      for (let i = 0; i <= max; i++) {
        const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
        await tx.run('INSERT INTO agents (id, org_id, name, created_at) VALUES (?, ?, ?, ?)', [
          `agt_dir${i}_${o.orgId}`,
          o.orgId,
          `bot ${i}`,
          at,
        ]);
      }
    });
    const r = await t.get(o.keys.reader, 'directory');
    expect(r.status).toBe(200);
    expect(r.body.truncated).toBe(true);
    expect(r.body.agents).toHaveLength(max);
    // The oldest (bot 0) is the one left out; the rest are in creation order.
    expect(r.body.agents[0].name).toBe('bot 1');
    expect(r.body.agents[max - 1].name).toBe(`bot ${max}`);
    expect(r.body.people).toHaveLength(1);
  });

  it('ops shows the head, pending approvals, holds and the outbox', async () => {
    const o = await t.org();
    const id = await sentInvoice(t, o);
    await heldAndRequested(t, o, 'books.invoiceChaseStep', { id, step: 2 });
    const r = await t.get(o.keys.observer, 'ops');
    expect(r.body).toMatchObject({ orgId: o.orgId, pendingApprovals: 1, openHolds: 1 });
    expect(r.body.head.seq).toBeGreaterThan(1);
    expect(r.body.outbox.queued + r.body.outbox.undeliverable).toBeGreaterThanOrEqual(0);
  });

  it('ops counts the outbox: queued rows still to be tried, undeliverable ones given up on', async () => {
    const o = await t.org();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const now = new Date().toISOString();
    // Leased far ahead so this server's sweep leaves them alone while the read looks.
    const rows: [string, number, string | null, string | null][] = [
      ['queued', 2, null, null],
      ['spent', 8, null, 'ENOSPC: no space left on device'],
      ['refused', 1, now, '550 mailbox unavailable'],
    ];
    await t.db.write(async (tx) => {
      for (const [name, attempts, deliveredAt, lastError] of rows) {
        await tx.run(
          `INSERT INTO outbox (id, org_id, channel, body, created_at, attempts, claimed_until, delivered_at, last_error)
           VALUES (?, ?, 'payment_file', '{}', ?, ?, ?, ?, ?)`,
          [`msg_${name}_${o.orgId}`, o.orgId, now, attempts, later, deliveredAt, lastError],
        );
      }
    });
    const r = await t.get(o.keys.observer, 'ops');
    expect(r.body.outbox).toEqual({ queued: 1, undeliverable: 2 });
  });

  /** The 13 GET reads of the base protocol; the conformance surface is all of them. */
  const SEED_READS = [
    'snapshot',
    'directory',
    'events',
    'hierarchy',
    'board.ready',
    'board.context',
    'ops',
    'approval.wait',
    'cost.rollup',
    'decision.list',
    'policy',
    'contacts.list',
    'meetings.list',
  ] as const;
  it.each(SEED_READS)('base read %s answers an observer key with its bare payload', async (name) => {
    const o = await t.org();
    // The two reads about one row need its id; the row is this organisation's.
    let query = '';
    if (name === 'board.context') {
      query = `?id=${(await t.post(o.keys.agent, 'board.createTask', { title: 'conformance' })).body.result.id}`;
    }
    if (name === 'approval.wait') {
      const held = await t.post(o.keys.agent, 'books.billCapture', {
        payeeName: 'Conformance Pty Ltd',
        description: 'x',
        totalCents: 900_000,
        dueDays: 7,
      });
      const refused = await t.post(o.keys.agent, 'books.billApprove', { id: held.body.result.id });
      const filed = await t.post(o.keys.agent, 'approval.request', refused.body.error.approval);
      query = `?approvalId=${filed.body.result.approvalId}`;
    }
    const r = await t.get(o.keys.observer, `${name}${query}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).not.toHaveProperty('ok');
  });

  it('cost.rollup is deployed (see cost-rollup.test.ts); an unknown read is NOT_FOUND', async () => {
    expect((await t.get(org.keys.reader, 'cost.rollup')).status).toBe(200);
    const r = await t.get(org.keys.reader, 'cost.nosuch');
    expect(r.status).toBe(404);
    expect(r.body.error).toEqual({ code: 'NOT_FOUND', message: 'unknown read cost.nosuch' });
  });
});
