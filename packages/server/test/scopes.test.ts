import { TIER_SCOPES, missingScopeMessage, type Tier } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { revokeOrgKey } from '../src/org/orgs.js';
import { methodRegistry, readRegistry } from '../src/registry.js';
import { engines, startTestServer, type TestServer } from './harness.js';

const tiers: readonly Tier[] = ['observer', 'reader', 'agent'];

describe.each(engines)('scopes, credentials and tenancy (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  // One shared check over every declared method and read: a new method needs no test of its own.
  const postCases = [...methodRegistry.values()].flatMap((m) => tiers.map((tier) => [m.spec.name, tier, m.spec.scope] as const));
  it.each(postCases)('POST %s with a %s key: scope enforced per tier', async (name, tier, scope) => {
    const seq = async () => (await t.get(org.keys.observer, 'snapshot')).body.head.seq as number;
    const before = await seq();
    const r = await t.post(org.keys[tier], name, 'not json');
    if (TIER_SCOPES[tier].includes(scope)) {
      expect(r.status).toBe(400); // got past the scope check to the body
    } else {
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ ok: false, error: { code: 'FORBIDDEN_SCOPE', message: missingScopeMessage(scope, name) } });
      // A valid body does not get past the scope either (scope is checked before params).
      const valid = await t.post(org.keys[tier], name, { id: 'x_1', payeeName: 'A', description: 'd', totalCents: 1, dueDays: 0 });
      expect(valid.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: missingScopeMessage(scope, name) });
    }
    expect(await seq()).toBe(before); // a refusal appends nothing
  });

  it('every books write is refused to observer and reader keys; every books read to observer keys', () => {
    const books = [...methodRegistry.values()].filter((m) => m.spec.name.startsWith('books.'));
    expect(books.length).toBeGreaterThanOrEqual(28);
    for (const m of books) {
      const expected = m.spec.kind === 'read' || m.spec.name === 'books.ask' ? 'books.read' : 'books.write';
      expect(m.spec.scope, m.spec.name).toBe(expected);
    }
    expect(TIER_SCOPES.observer).not.toContain('books.read');
    expect(TIER_SCOPES.observer).not.toContain('books.write');
    expect(TIER_SCOPES.reader).not.toContain('books.write');
  });

  const readCases = [...readRegistry.values()].flatMap((r) => tiers.map((tier) => [r.spec.name, tier, r.spec.scope] as const));
  it.each(readCases)('GET %s with a %s key: scope enforced per tier', async (name, tier, scope) => {
    const r = await t.get(org.keys[tier], `${name}?bogus=1`);
    if (TIER_SCOPES[tier].includes(scope)) {
      expect(r.status).toBe(400); // got past scope to query validation
      expect(r.body.error.message).toContain('bogus: unknown field');
    } else {
      expect(r.status).toBe(403);
    }
  });

  it('every method and read refuses a missing credential with 401', async () => {
    for (const name of methodRegistry.keys()) expect((await t.post(null, name, {})).status).toBe(401);
    for (const name of readRegistry.keys()) expect((await t.get(null, name)).status).toBe(401);
  });

  it('a revoked key is UNAUTHORIZED at once; the org’s other keys still work', async () => {
    const victim = await t.org();
    expect((await t.get(victim.keys.reader, 'snapshot')).status).toBe(200);
    await revokeOrgKey(t.db, victim.slug, victim.keyIds.reader);
    const r = await t.get(victim.keys.reader, 'snapshot');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('UNAUTHORIZED');
    expect((await t.get(victim.keys.observer, 'snapshot')).status).toBe(200);
    const events = (await t.get(victim.keys.observer, 'events')).body.events;
    expect(events.at(-1)).toMatchObject({ kind: 'key.revoked', entity_id: victim.keyIds.reader, actor: '' });
    // fdk_<26-char id>_<secret>: the secret is base64url and may itself contain '_' (so not split('_')).
    expect(JSON.stringify(events)).not.toContain(victim.keys.reader.slice(31));
  });

  it('another organisation’s rows are NOT_FOUND, never FORBIDDEN or CONFLICT', async () => {
    const other = await t.org();
    const inv = await t.post(org.keys.agent, 'books.invoiceDraft', {
      payeeName: 'A',
      description: 'x',
      totalCents: 100,
      dueDays: 0,
    });
    const task = await t.post(org.keys.agent, 'board.createTask', { title: 'mine' });
    const send = await t.post(other.keys.agent, 'books.invoiceSend', { id: inv.body.result.id });
    expect(send.status).toBe(404);
    expect(send.body.error.code).toBe('NOT_FOUND');
    const claim = await t.post(other.keys.agent, 'board.claim', { id: task.body.result.id });
    expect(claim.status).toBe(404);
    const ctx = await t.get(other.keys.observer, `board.context?id=${task.body.result.id}`);
    expect(ctx.status).toBe(404);
    const ready = await t.get(other.keys.observer, 'board.ready');
    expect(ready.body.items).toEqual([]);
  });

  it('whoami returns the caller’s own record; another slug is NOT_FOUND', async () => {
    const me = await t.get(org.keys.reader, `org/whoami?slug=${org.slug}`);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      kind: 'key',
      keyId: org.keyIds.reader,
      tier: 'reader',
      scopes: ['org.read', 'books.read'],
      orgId: org.orgId,
      slug: org.slug,
    });
    const other = await t.org();
    expect((await t.get(org.keys.reader, `org/whoami?slug=${other.slug}`)).status).toBe(404);
    expect((await t.get(org.keys.reader, 'org/whoami?slug=no-such-org')).status).toBe(404);
    expect((await t.get(org.keys.reader, 'org/whoami')).body.error.message).toBe('slug: is required');
  });

  it('org/self describes the caller’s organisation', async () => {
    const r = await t.get(org.keys.observer, 'org/self');
    expect(r.body).toMatchObject({ orgId: org.orgId, slug: org.slug });
  });
});
