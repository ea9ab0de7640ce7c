import { ACTION_CLASSES } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPolicy } from '../src/governance/policy-admin.js';
import { addUser } from '../src/human/users.js';
import { issueOrgKey, revokeOrgKey } from '../src/org/orgs.js';
import { revokeAgent } from '../src/org/pairing.js';
import { engines, startTestServer, type TestServer } from './harness.js';

/** GET hierarchy: who may decide what, before an agent asks for approval. */
describe.each(engines)('GET hierarchy (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('lists people with their decision rights, agents with the tiers of their active keys, every action class', async () => {
    const o = await t.org();
    const approver = await addUser(t.db, { orgId: o.orgId, email: 'approver@example.com', role: 'approver' });
    const keeper = await addUser(t.db, { orgId: o.orgId, email: 'keeper@example.com', role: 'bookkeeper' });
    await setPolicy(t.db, {
      orgId: o.orgId,
      user: { id: o.owner.userId, role: 'owner' },
      patch: {
        materialityFloorCents: 250_000,
        decisionRights: { 'books.payroll_sign': ['role:approver'], 'books.tax_sign_lodge': [] },
      },
    });
    const bot = await issueOrgKey(t.db, o.slug, 'agent', 'ops-bot');
    const botReader = await issueOrgKey(t.db, o.slug, 'reader', 'ops-bot');
    const watcher = await issueOrgKey(t.db, o.slug, 'observer', 'watcher');
    await revokeOrgKey(t.db, o.slug, watcher.keyId);
    await revokeOrgKey(t.db, o.slug, o.keyIds.observer);
    const gone = await issueOrgKey(t.db, o.slug, 'agent', 'gone-bot');
    await revokeAgent(t.db, { orgId: o.orgId, agentId: gone.agentId!, actor: '' });

    const r = await t.get(o.keys.reader, 'hierarchy');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const all = ACTION_CLASSES.filter((c) => c !== 'books.tax_sign_lodge');
    expect(r.body.people).toEqual([
      { userId: o.owner.userId, email: o.owner.email, role: 'owner', decisionRights: all.filter((c) => c !== 'books.payroll_sign') },
      { userId: approver.userId, email: 'approver@example.com', role: 'approver', decisionRights: ['books.payroll_sign'] },
      { userId: keeper.userId, email: 'keeper@example.com', role: 'bookkeeper', decisionRights: [] },
    ]);
    expect(r.body.agents).toEqual([
      {
        agentId: bot.agentId,
        name: 'ops-bot',
        status: 'active',
        tiers: ['reader', 'agent'],
        scopes: ['board.write', 'books.read', 'books.write', 'org.read'],
        activeKeys: 2,
      },
      { agentId: watcher.agentId, name: 'watcher', status: 'active', tiers: [], scopes: [], activeKeys: 0 },
      // A revoked agent (migration 26): listed, its keys revoked with it.
      { agentId: gone.agentId, name: 'gone-bot', status: 'revoked', tiers: [], scopes: [], activeKeys: 0 },
    ]);
    expect(botReader.agentId).toBe(bot.agentId);
    // The organisation's own three keys: the observer one revoked.
    expect(r.body.unpairedKeys).toEqual({ observer: 0, reader: 1, agent: 1 });
    expect(r.body.floors).toEqual({ billApprovalFloorCents: 500_000, materialityFloorCents: 250_000, approvalExpiryMs: 86_400_000 });
    expect(r.body.decisionRights.map((d: any) => d.actionClass)).toEqual([...ACTION_CLASSES]);
    const byClass = Object.fromEntries(r.body.decisionRights.map((d: any) => [d.actionClass, d]));
    expect(byClass['books.payroll_sign']).toEqual({
      actionClass: 'books.payroll_sign',
      method: 'books.payrollSign',
      humanNeeded: 'always: signing a drafted pay run',
      declared: true,
      grants: ['role:approver'],
      holders: [{ userId: approver.userId, email: 'approver@example.com' }],
    });
    expect(byClass['books.tax_sign_lodge']).toMatchObject({ method: 'books.taxSignLodge', declared: false, grants: [], holders: [] });
    expect(byClass['books.bill_approve']).toMatchObject({
      method: 'books.billApprove',
      declared: true,
      holders: [{ userId: o.owner.userId }],
    });
    expect(byClass['books.bill_approve'].humanNeeded).toContain('ABOVE_FLOOR (total above $5,000.00)');
    expect(byClass['books.match_hold_resolve'].humanNeeded).toContain('materiality floor ($2,500.00)');
    expect(r.body.truncated).toBe(false);
    const text = JSON.stringify(r.body);
    for (const key of [o.keys.agent, bot.key, botReader.key]) expect(text).not.toContain(key.slice(31));
    expect(text).not.toMatch(/scrypt|password/);
  });

  it('an organisation without decision rights: every class undeclared, nobody holds any', async () => {
    const bare = await t.org(undefined, { decisionRights: false });
    const r = await t.get(bare.keys.observer, 'hierarchy');
    expect(r.status).toBe(200);
    expect(r.body.people).toEqual([{ userId: bare.owner.userId, email: bare.owner.email, role: 'owner', decisionRights: [] }]);
    expect(r.body.decisionRights).toHaveLength(ACTION_CLASSES.length);
    for (const d of r.body.decisionRights) expect(d).toMatchObject({ declared: false, grants: [], holders: [] });
    // What the class table says is what the signature law does: the act is refused, not held.
    const cap = await t.post(bare.keys.agent, 'books.billCapture', {
      payeeName: 'New Co',
      description: 'x',
      totalCents: 1_000,
      dueDays: 5,
    });
    const approve = await t.post(bare.keys.agent, 'books.billApprove', { id: cap.body.result.id });
    expect(approve.status).toBe(423);
  });

  it("shows only the caller's organisation and takes no query parameters", async () => {
    const a = await t.org();
    const b = await t.org();
    const r = await t.get(a.keys.observer, 'hierarchy');
    expect(r.body.orgId).toBe(a.orgId);
    expect(JSON.stringify(r.body)).not.toContain(b.owner.userId);
    const bad = await t.get(a.keys.observer, 'hierarchy?limit=5');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    expect(bad.body.error.message).toContain('limit');
    expect((await t.get(null, 'hierarchy')).status).toBe(401);
  });
});
