import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../src/human/users.js';
import { issueOrgKey, type CreatedOrg } from '../src/org/orgs.js';
import { createPairingCode } from '../src/org/pairing.js';
import { engines, refusal, startTestServer, type TestServer } from './harness.js';
import { consoleForm, consoleGet, consoleJson, consoleSignIn, orgEvents, type Signed } from './console-helpers.js';

/**
 * Agent pairing through HTTP: an owner creates a one-time code in the console
 * (or CLI: cli-org.test.ts); the agent exchanges it once at POST /api/v1/org/pair with no key.
 */
const REFUSED = { ok: false, error: { code: 'UNAUTHORIZED', message: 'invalid, expired or already used pairing code' } };
const STRONG = 'kettle-Moss-quiver-45';

describe.each(engines)('agent pairing (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let owner: Signed;
  let clock = '2026-11-02T00:00:00.000Z';
  const advance = (minutes: number) => {
    clock = new Date(Date.parse(clock) + minutes * 60_000).toISOString();
  };

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock, pairRate: { perSecond: 1000, burst: 1000 } });
    org = await t.org();
    owner = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
  });
  afterAll(async () => t.close());

  const create = (body: Record<string, unknown>, s: Signed = owner) => consoleJson(t, s, 'POST', '/console/api/pairing-codes', body);
  const pair = (body: unknown) => t.post(null, 'org/pair', body);
  async function code(agentName: string, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await create({ agentName, tier: 'agent', ...extra });
    expect(r.status, r.text).toBe(200);
    return r.body.result.code as string;
  }

  it('an owner creates a code; the agent exchanges it without a key for its own agent key', async () => {
    const r = await create({ agentName: 'ledger-bot', tier: 'reader', ttlMinutes: 30 });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ agentName: 'ledger-bot', tier: 'reader', expiresAt: '2026-11-02T00:30:00.000Z' });
    expect(r.body.result.code).toMatch(/^fdp_[0-9a-z]{26}_[\w-]{43}$/);
    const x = await pair({ code: r.body.result.code });
    expect(x.status).toBe(200);
    expect(x.body.result).toEqual({
      agentId: expect.stringMatching(/^agt_/),
      keyId: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^fdk_/),
      tier: 'reader',
      orgId: org.orgId,
      slug: org.slug,
    });
    const { agentId, key, keyId } = x.body.result;
    expect((await t.get(key, 'snapshot')).status).toBe(200);
    // A reader key: scope still applies.
    expect((await t.post(key, 'board.createTask', { title: 'x' })).status).toBe(403);
    const me = await t.get(key, `org/whoami?slug=${org.slug}`);
    expect(me.body).toEqual({
      kind: 'agent',
      agentId,
      name: 'ledger-bot',
      pairedAt: '2026-11-02T00:00:00.000Z',
      keyId,
      tier: 'reader',
      scopes: ['org.read', 'books.read'],
      orgId: org.orgId,
      slug: org.slug,
    });
    const events = await orgEvents(t, org.orgId);
    const created = events.find((e) => e.kind === 'org.pairing.create' && e.payload.agentName === 'ledger-bot');
    expect(created).toMatchObject({
      actor: org.owner.userId,
      payload: { tier: 'reader', chosen: false, expiresAt: '2026-11-02T00:30:00.000Z' },
    });
    const paired = events.find((e) => e.kind === 'org.agent.pair' && e.entity_id === agentId);
    expect(paired).toMatchObject({
      actor: agentId,
      payload: { agentId, name: 'ledger-bot', tier: 'reader', keyId, codeId: created?.payload.codeId },
    });
    const all = events.map((e) => e.raw).join('\n');
    expect(all).not.toContain(r.body.result.code.slice(31));
    expect(all).not.toContain(key.slice(31));
  });

  it("a paired agent's writes carry its agent id as actor, end to end", async () => {
    const x = await pair({ code: await code('writer-bot') });
    const { agentId, key } = x.body.result;
    const task = await t.post(key, 'board.createTask', { title: 'Reconcile November' });
    expect(task.status).toBe(200);
    const page = await t.get(key, 'events?cursor=0&limit=500');
    const row = page.body.events.find((e: any) => e.kind === 'item.created' && e.entity_id === task.body.result.id);
    expect(row.actor).toBe(agentId);
  });

  it('a code works once: the second exchange, a wrong secret, an unknown id and junk all get the same UNAUTHORIZED', async () => {
    const c = await code('once-bot');
    expect((await pair({ params: { code: c } })).status).toBe(200); // the wrapped form {params: …}
    const again = await pair({ code: c });
    expect(again.status).toBe(401);
    expect(again.body).toEqual(REFUSED);
    const other = await code('twice-bot');
    // One character of the secret changed (to one it is not already), so the code is refused.
    const swapped = other[32] === 'x' ? 'y' : 'x';
    expect((await pair({ code: `${other.slice(0, 32)}${swapped}${other.slice(33)}` })).body).toEqual(REFUSED);
    expect((await pair({ code: `fdp_${'0'.repeat(26)}_${'a'.repeat(43)}` })).body).toEqual(REFUSED);
    expect((await pair({ code: 'hello' })).body).toEqual(REFUSED);
    expect((await pair({ code: other })).status).toBe(200); // one wrong guess does not burn it
  });

  it('the body is strict: unknown field, missing code, non-object, bad text are BAD_REQUEST naming the field', async () => {
    expect((await pair({ code: 'x', tier: 'agent' })).body.error).toEqual(refusal('BAD_REQUEST', 'tier: unknown field').error);
    expect((await pair({})).body.error.message).toBe('code: is required');
    expect((await pair('[1]')).body.error.message).toBe('body: must be a JSON object');
    expect((await pair('{')).body.error.code).toBe('BAD_REQUEST');
    const nul = await pair({ code: 'fdp_a\u0000' });
    expect(nul.status).toBe(400);
    expect(nul.body.error.message).toMatch(/^code: /);
  });

  it('two racing exchanges of one code: exactly one wins, one agent exists', async () => {
    const c = await code('race-bot');
    const results = await Promise.all([pair({ code: c }), pair({ code: c }), pair({ code: c })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    const agents = await t.db.reader.all('SELECT id FROM agents WHERE org_id = ? AND name = ?', [org.orgId, 'race-bot']);
    expect(agents).toHaveLength(1);
    const events = await orgEvents(t, org.orgId);
    expect(events.filter((e) => e.kind === 'org.agent.pair' && e.payload.name === 'race-bot')).toHaveLength(1);
  });

  it('a code expires: one minute past its ttl it is UNAUTHORIZED (server clock moved, no sleeping)', async () => {
    const c = await code('late-bot', { ttlMinutes: 5 });
    advance(5);
    expect((await pair({ code: c })).body).toEqual(REFUSED);
    const listed = await consoleGet(t, owner, '/console/api/agents');
    expect(listed.body.codes.map((x: any) => x.agentName)).not.toContain('late-bot');
  });

  it('five wrong secrets burn a code: the right one is refused after that', async () => {
    const c = await code('burn-bot');
    const wrong = `${c.slice(0, 31)}${'Z'.repeat(43)}`;
    for (let i = 0; i < 5; i += 1) expect((await pair({ code: wrong })).status).toBe(401);
    expect((await pair({ code: c })).body).toEqual(REFUSED);
  });

  it('a weak person-chosen secret is WEAK_SECRET (401) on the JSON API; a strong one pairs', async () => {
    for (const secret of ['password12345', `${org.slug}2026!`, 'abcdefghijklmno', 'aaaaaaaaaaaaaaaa', 'qwertyuiop123456']) {
      const r = await create({ agentName: 'chosen-bot', tier: 'agent', secret });
      expect(r.status, secret).toBe(401);
      expect(r.body.error.code).toBe('WEAK_SECRET');
      expect(r.body.error.message).not.toContain(secret);
    }
    expect((await create({ agentName: 'chosen-bot', tier: 'agent', secret: 'short' })).body.error).toEqual({
      code: 'BAD_REQUEST',
      message: 'secret: must be at least 12 characters',
      field: 'secret',
    });
    const ok = await create({ agentName: 'chosen-bot', tier: 'observer', secret: STRONG });
    expect(ok.status).toBe(200);
    expect(ok.body.result.code).toBe(`fdp_${ok.body.result.codeId.slice(4)}_${STRONG}`);
    const row = await t.db.reader.get<{ secret_hash: string; chosen: number }>(
      'SELECT secret_hash, chosen FROM pairing_codes WHERE id = ?',
      [ok.body.result.codeId],
    );
    expect(row?.secret_hash).toMatch(/^scrypt\$/);
    expect(row?.secret_hash).not.toContain(STRONG);
    expect((await pair({ code: `fdp_${ok.body.result.codeId.slice(4)}_kettle-Moss-quiver-46` })).status).toBe(401);
    const x = await pair({ code: ok.body.result.code });
    expect(x.status).toBe(200);
    expect(x.body.result.tier).toBe('observer');
    const created = (await orgEvents(t, org.orgId)).find((e) => e.kind === 'org.pairing.create' && e.payload.agentName === 'chosen-bot');
    expect(created?.payload.chosen).toBe(true);
    expect(created?.raw).not.toContain(STRONG);
  });

  it('revoking an agent revokes its keys in one event; its key is UNAUTHORIZED; revoking again is a no-op', async () => {
    const x = await pair({ code: await code('gone-bot') });
    const { agentId, key, keyId } = x.body.result;
    const r = await consoleJson(t, owner, 'POST', `/console/api/agents/${agentId}/revoke`);
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ agentId, keyIds: [keyId], noop: false });
    const denied = await t.get(key, 'snapshot');
    expect(denied.status).toBe(401);
    expect(denied.body.error.code).toBe('UNAUTHORIZED');
    const events = await orgEvents(t, org.orgId);
    const revoked = events.filter((e) => e.kind === 'org.agent.revoke' && e.entity_id === agentId);
    expect(revoked).toEqual([
      expect.objectContaining({ actor: org.owner.userId, payload: { agentId, name: 'gone-bot', keyIds: [keyId], keyCount: 1 } }),
    ]);
    const again = await consoleJson(t, owner, 'POST', `/console/api/agents/${agentId}/revoke`);
    expect(again.body.result.noop).toBe(true);
    expect((await orgEvents(t, org.orgId)).length).toBe(events.length);
    const listed = await t.get(org.keys.observer, 'org/agents?status=revoked');
    expect(listed.body.agents.find((a: any) => a.agentId === agentId)).toMatchObject({
      status: 'revoked',
      revokedBy: org.owner.userId,
      keyIds: [keyId],
    });
    const keys = await t.get(org.keys.observer, `org/keys?agentId=${agentId}`);
    expect(keys.body.keys).toEqual([expect.objectContaining({ keyId, revokedAt: expect.any(String) })]);
  });

  it("a taken or revoked agent name is CONFLICT; a revoked agent's name is not revived by key issue either", async () => {
    expect((await create({ agentName: 'gone-bot', tier: 'agent' })).body.error.message).toMatch(/was revoked/);
    expect((await create({ agentName: 'writer-bot', tier: 'agent' })).body.error.message).toMatch(/already exists/);
    await code('pending-bot');
    const dup = await create({ agentName: 'pending-bot', tier: 'agent' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.message).toMatch(/still open/);
    await expect(issueOrgKey(t.db, org.slug, 'agent', 'gone-bot')).rejects.toThrow(/was revoked/);
  });

  it('open codes are capped per organisation (CONFLICT at the cap); used and expired ones do not count', async () => {
    const o = await t.org();
    for (let i = 0; i < 20; i += 1) {
      await createPairingCode(t.db, { orgId: o.orgId, actor: '', request: { agentName: `cap-${i}`, tier: 'observer', ttlMinutes: 10 } });
    }
    await expect(
      createPairingCode(t.db, { orgId: o.orgId, actor: '', request: { agentName: 'cap-20', tier: 'observer', ttlMinutes: 10 } }),
    ).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/20 open pairing codes/) });
    advance(11);
    await createPairingCode(t.db, { orgId: o.orgId, actor: '', request: { agentName: 'cap-20', tier: 'observer', ttlMinutes: 10 } });
  });

  it("another organisation's agent is NOT_FOUND to revoke, and its codes and agents are not listed", async () => {
    const other = await t.org();
    const otherOwner = await consoleSignIn(t, other.slug, other.owner.email, other.owner.password);
    const x = await pair({ code: (await create({ agentName: 'their-bot', tier: 'agent' }, otherOwner)).body.result.code });
    const r = await consoleJson(t, owner, 'POST', `/console/api/agents/${x.body.result.agentId}/revoke`);
    expect(r.status).toBe(404);
    expect((await t.get(x.body.result.key, 'snapshot')).status).toBe(200);
    const mine = await t.get(org.keys.observer, 'org/agents?limit=200');
    expect(mine.body.agents.map((a: any) => a.agentId)).not.toContain(x.body.result.agentId);
    const theirs = await consoleGet(t, otherOwner, '/console/api/agents');
    expect(theirs.body.agents.map((a: any) => a.name)).toEqual(['their-bot']);
  });

  it('only an owner creates codes or revokes; a write needs the CSRF token', async () => {
    const added = await addUser(t.db, { orgId: org.orgId, email: 'approver@pairing.example', role: 'approver' });
    const approver = await consoleSignIn(t, org.slug, added.email, added.password);
    expect((await create({ agentName: 'nope-bot', tier: 'agent' }, approver)).status).toBe(403);
    expect(
      (await consoleJson(t, owner, 'POST', '/console/api/pairing-codes', { agentName: 'nope-bot', tier: 'agent' }, 'wrong')).status,
    ).toBe(403);
    expect((await consoleJson(t, null, 'POST', '/console/api/pairing-codes', { agentName: 'nope-bot', tier: 'agent' })).status).toBe(401);
    const page = await consoleGet(t, approver, '/console/agents');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Only an owner can pair or revoke agents');
    expect(page.text).not.toContain('Create pairing code');
  });

  it('hostile bodies to org/pair never answer 5xx and never append an event', async () => {
    const head = async () => (await t.get(org.keys.observer, 'snapshot')).body.head.seq as number;
    const prefix = (await code('hostile-bot')).slice(0, 31);
    const before = await head();
    const codeText = fc.oneof(
      fc.string({ maxLength: 250 }),
      fc.string({ maxLength: 60 }).map((x) => `${prefix}${x}`),
      fc.constantFrom('fdp_', `${prefix}`, `fdp_${'z'.repeat(26)}_${'\u0000'}`, 'fdp_💸_x', '%00'),
    );
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      codeText.map((c) => JSON.stringify({ code: c })),
      codeText.map((c) => JSON.stringify({ params: { code: c } })),
      fc.string({ maxLength: 80 }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const r = await t.post(null, 'org/pair', b);
        expect(r.status, `${b.slice(0, 200)} → ${JSON.stringify(r.body).slice(0, 200)}`).toBeLessThan(500);
        expect([400, 401]).toContain(r.status);
      }),
      { numRuns: Number(process.env.FD_HOSTILE_RUNS ?? 200) },
    );
    expect(await head()).toBe(before);
  }, 120_000);

  it('the Agents page: the form shows a new code once; a weak secret re-shows the form; revoke redirects back', async () => {
    const page = await consoleGet(t, owner, '/console/agents');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Pair a new agent');
    const made = await consoleForm(t, owner, '/console/agents/pair', {
      _csrf: owner.csrf,
      agentName: 'form-bot',
      tier: 'agent',
      ttlMinutes: '15',
      secret: '',
    });
    expect(made.status).toBe(200);
    const shown = /data-code>(fdp_[^<]+)</.exec(made.text)?.[1] ?? '';
    expect(shown).toMatch(/^fdp_/);
    expect((await consoleGet(t, owner, '/console/agents')).text).not.toContain(shown);
    const weak = await consoleForm(t, owner, '/console/agents/pair', {
      _csrf: owner.csrf,
      agentName: 'weak-bot',
      tier: 'agent',
      ttlMinutes: '15',
      secret: 'password12345',
    });
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('secret: too weak');
    expect(weak.text).toContain('value="weak-bot"');
    expect(weak.text).not.toContain('password12345');
    const x = await pair({ code: shown });
    expect(x.status).toBe(200);
    const revoke = await consoleForm(t, owner, `/console/agents/${x.body.result.agentId}/revoke`, { _csrf: owner.csrf });
    expect(revoke.status).toBe(303);
    expect(revoke.headers.get('location')).toBe('/console/agents?revoked=1');
    expect((await t.get(x.body.result.key, 'snapshot')).status).toBe(401);
    const noCsrf = await consoleForm(t, owner, '/console/agents/pair', { agentName: 'csrf-bot', tier: 'agent', ttlMinutes: '15' });
    expect(noCsrf.status).toBe(403);
  });
});

describe.each(engines)('POST /api/v1/org/pair is rate-limited per client address (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('after a burst of 10 attempts the next is RATE_LIMITED with Retry-After', async () => {
    for (let i = 0; i < 10; i += 1) expect((await t.post(null, 'org/pair', { code: `guess-${i}` })).status).toBe(401);
    const r = await t.post(null, 'org/pair', { code: 'guess-10' });
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('RATE_LIMITED');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
