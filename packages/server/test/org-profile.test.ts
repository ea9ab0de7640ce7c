import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPolicy } from '../src/governance/policy-admin.js';
import { addUser } from '../src/human/users.js';
import { issueOrgKey, revokeOrgKey, type CreatedOrg } from '../src/org/orgs.js';
import { setProfile } from '../src/org/profile.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { consoleForm, consoleGet, consoleJson, consoleSignIn, orgEvents, type Signed } from './console-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

/**
 * The organisation profile and the /api/v1/org/* reads, through HTTP on both
 * engines: defaults, an owner's edits in the console (form and JSON) as one event each, per-field
 * form messages, the bounded member/agent/key reads with no secrets, and the places the profile
 * is used (invoice email, BAS lodgement document, taxPrepare's default basis; STP in stp.test.ts).
 */
const ABN = '51824753556';

describe.each(engines)('organisation profile and org/* reads (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let owner: Signed;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-org-lodge-'));
    t = await startTestServer(engine, { lodgementOutboxDir: dir });
    org = await t.org('Harbour Cafe');
    owner = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
  });
  afterAll(async () => t.close());

  it('GET org/profile: the defaults are what the code assumed before (GST registered, accrual, quarterly, FY from July)', async () => {
    const r = await t.get(org.keys.observer, 'org/profile');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      orgId: org.orgId,
      slug: org.slug,
      name: 'Harbour Cafe',
      legalName: null,
      abn: null,
      gstRegistered: true,
      gstBasis: 'accrual',
      basFrequency: 'quarterly',
      financialYearStartMonth: 7,
      timeZone: 'Australia/Sydney',
      invoicePrefix: 'INV-',
      invoiceNextNumber: 1,
      lockDate: null,
      // No payment account until an owner sets one.
      paymentAccountName: null,
      paymentBsb: null,
      paymentAccountNumber: null,
    });
  });

  it('an owner sets the profile on the JSON API: one org.profile.update event with the changed fields; the same again is a no-op', async () => {
    const o = await t.org('Kettle Joinery');
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const r = await consoleJson(t, s, 'PUT', '/console/api/org/profile', {
      abn: '51 824 753 556',
      legalName: 'Kettle Joinery Pty Ltd',
      basFrequency: 'monthly',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.result).toMatchObject({
      abn: ABN,
      legalName: 'Kettle Joinery Pty Ltd',
      basFrequency: 'monthly',
      gstBasis: 'accrual',
      noop: false,
    });
    const events = (await orgEvents(t, o.orgId)).filter((e) => e.kind === 'org.profile.update');
    expect(events).toEqual([
      expect.objectContaining({
        actor: o.owner.userId,
        entity_id: o.orgId,
        payload: {
          fields: ['legalName', 'abn', 'basFrequency'],
          before: { abn: null, legalName: null, basFrequency: 'quarterly' },
          after: { abn: ABN, legalName: 'Kettle Joinery Pty Ltd', basFrequency: 'monthly' },
        },
      }),
    ]);
    const again = await consoleJson(t, s, 'PUT', '/console/api/org/profile', { abn: ABN, basFrequency: 'monthly' });
    expect(again.body.result).toMatchObject({ noop: true, ledgerId: null });
    expect((await orgEvents(t, o.orgId)).filter((e) => e.kind === 'org.profile.update')).toHaveLength(1);
    expect((await t.get(o.keys.reader, 'org/profile')).body).toMatchObject({ abn: ABN, basFrequency: 'monthly' });
    const bad = await consoleJson(t, s, 'PUT', '/console/api/org/profile', { abn: '51824753557', gstBasis: 'weekly', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe(
      'abn: must pass the ABN check digits; gstBasis: must be one of accrual, cash; colour: unknown field',
    );
  });

  it('the Organisation form: per-field messages for bad input and nothing saved; a good form saves and redirects', async () => {
    const page = await consoleGet(t, owner, '/console/org');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Save profile');
    const base = {
      _csrf: owner.csrf,
      name: 'Harbour Cafe',
      legalName: '',
      gstRegistered: 'yes',
      gstBasis: 'accrual',
      basFrequency: 'quarterly',
      financialYearStartMonth: '7',
    };
    const bad = await consoleForm(t, owner, '/console/org', {
      ...base,
      abn: '12 345 678 901',
      financialYearStartMonth: '13',
      gstBasis: 'x',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('3 field(s) to fix');
    expect(bad.text).toMatch(/id="abn-error">must pass the ABN check digits</);
    expect(bad.text).toMatch(/id="financialYearStartMonth-error">must be a month number from 1 to 12</);
    expect(bad.text).toMatch(/id="gstBasis-error">must be one of accrual, cash</);
    expect(bad.text).toContain('value="12 345 678 901"'); // what was typed is shown back
    expect((await t.get(org.keys.observer, 'org/profile')).body.abn).toBeNull();
    const good = await consoleForm(t, owner, '/console/org', { ...base, abn: '51 824 753 556', gstBasis: 'cash' });
    expect(good.status).toBe(303);
    expect(good.headers.get('location')).toBe('/console/org?saved=1');
    expect((await t.get(org.keys.observer, 'org/profile')).body).toMatchObject({ abn: ABN, gstBasis: 'cash', legalName: null });
    const last = (await orgEvents(t, org.orgId)).filter((e) => e.kind === 'org.profile.update').at(-1);
    expect(last).toMatchObject({ actor: org.owner.userId, payload: { fields: ['abn', 'gstBasis'] } });
    expect((await consoleGet(t, owner, '/console/org?saved=1')).text).toContain('51 824 753 556');
    // Clearing the ABN with an empty field.
    expect((await consoleForm(t, owner, '/console/org', { ...base, abn: '', gstBasis: 'cash' })).status).toBe(303);
    expect((await t.get(org.keys.observer, 'org/profile')).body.abn).toBeNull();
    expect((await consoleForm(t, owner, '/console/org', { ...base, abn: ABN, gstBasis: 'accrual' })).status).toBe(303);
  });

  it('only an owner changes the profile; the CSRF token is required', async () => {
    const added = await addUser(t.db, { orgId: org.orgId, email: 'approver@profile.example', role: 'approver' });
    const approver = await consoleSignIn(t, org.slug, added.email, added.password);
    expect((await consoleJson(t, approver, 'PUT', '/console/api/org/profile', { gstBasis: 'cash' })).status).toBe(403);
    expect((await consoleForm(t, approver, '/console/org', { _csrf: approver.csrf, name: 'X' })).status).toBe(403);
    expect((await consoleJson(t, owner, 'PUT', '/console/api/org/profile', { gstBasis: 'cash' }, 'wrong')).status).toBe(403);
    const page = await consoleGet(t, approver, '/console/org');
    expect(page.text).toContain('Only an owner can change the profile');
    expect((await t.get(org.keys.observer, 'org/profile')).body.gstBasis).toBe('accrual');
  });

  it('org/members: people with their decision rights, by id or role; never password hashes; paged', async () => {
    const o = await t.org();
    const a = await addUser(t.db, { orgId: o.orgId, email: 'a@members.example', role: 'approver' });
    await addUser(t.db, { orgId: o.orgId, email: 'b@members.example', role: 'bookkeeper' });
    await setPolicy(t.db, {
      orgId: o.orgId,
      user: { id: o.owner.userId, role: 'owner' },
      patch: { decisionRights: { 'books.bill_approve': ['role:approver'], 'books.payroll_sign': [] } },
    });
    const r = await t.get(o.keys.observer, 'org/members');
    expect(r.status).toBe(200);
    expect(r.body.members.map((m: any) => m.email)).toEqual([o.owner.email, 'a@members.example', 'b@members.example']);
    expect(r.body.members[1]).toEqual({
      userId: a.userId,
      email: 'a@members.example',
      role: 'approver',
      createdAt: expect.any(String),
      decisionRights: ['books.bill_approve'],
    });
    expect(r.body.members[0].decisionRights).not.toContain('books.payroll_sign');
    expect(r.body.members[0].decisionRights).toContain('books.tax_sign_lodge');
    expect(r.body.members[2].decisionRights).toEqual([]);
    expect(JSON.stringify(r.body)).not.toMatch(/scrypt|password/);
    const p1 = await t.get(o.keys.observer, 'org/members?limit=2');
    expect(p1.body.members).toHaveLength(2);
    const p2 = await t.get(o.keys.observer, `org/members?limit=2&cursor=${p1.body.nextCursor}`);
    expect(p2.body).toMatchObject({ members: [expect.objectContaining({ email: 'b@members.example' })], nextCursor: null });
    expect((await t.get(o.keys.observer, 'org/members?limit=201')).body.error.message).toBe('limit: must be an integer from 1 to 200');
  });

  it('org/keys: ids and tiers, never secrets or hashes; filters and paging; org/agents lists agents named by key issue', async () => {
    const o = await t.org();
    const bot = await issueOrgKey(t.db, o.slug, 'reader', 'named-bot');
    await revokeOrgKey(t.db, o.slug, o.keyIds.observer);
    const all = await t.get(o.keys.reader, 'org/keys');
    // Id order (ids are time-ordered; keys made in one millisecond are in random order).
    const sorted = [o.keyIds.observer, o.keyIds.reader, o.keyIds.agent, bot.keyId].sort();
    expect(all.body.keys.map((k: any) => k.keyId)).toEqual(sorted);
    expect(all.body.keys.find((k: any) => k.keyId === bot.keyId)).toEqual({
      keyId: bot.keyId,
      tier: 'reader',
      agentId: bot.agentId,
      createdAt: expect.any(String),
      revokedAt: null,
    });
    const text = JSON.stringify(all.body);
    for (const key of [o.keys.agent, bot.key]) expect(text).not.toContain(key.slice(31));
    const hashes = await t.db.reader.all<{ secret_hash: string }>('SELECT secret_hash FROM credentials WHERE org_id = ?', [o.orgId]);
    for (const h of hashes) expect(text).not.toContain(h.secret_hash);
    expect((await t.get(o.keys.reader, 'org/keys?status=revoked')).body.keys.map((k: any) => k.keyId)).toEqual([o.keyIds.observer]);
    expect((await t.get(o.keys.reader, `org/keys?agentId=${bot.agentId}`)).body.keys).toHaveLength(1);
    const p1 = await t.get(o.keys.reader, 'org/keys?limit=3');
    expect(p1.body.nextCursor).toBe(sorted[2]);
    expect((await t.get(o.keys.reader, `org/keys?cursor=${p1.body.nextCursor}`)).body).toMatchObject({
      keys: [{ keyId: sorted[3] }],
      nextCursor: null,
    });
    const agents = await t.get(o.keys.reader, 'org/agents');
    expect(agents.body).toEqual({
      orgId: o.orgId,
      agents: [
        {
          agentId: bot.agentId,
          name: 'named-bot',
          tier: null,
          status: 'active',
          createdAt: expect.any(String),
          pairedAt: null,
          revokedAt: null,
          revokedBy: null,
          keyIds: [bot.keyId],
          keyCount: 1,
        },
      ],
      nextCursor: null,
    });
    expect((await t.get(o.keys.reader, 'org/agents?status=revoked')).body.agents).toEqual([]);
  });

  it('cross-organisation: each org/* read shows only the caller’s organisation', async () => {
    const other = await t.org('Other Co');
    await issueOrgKey(t.db, other.slug, 'agent', 'other-bot');
    for (const name of ['org/profile', 'org/members', 'org/agents', 'org/keys']) {
      const r = await t.get(org.keys.observer, name);
      expect(r.status).toBe(200);
      const text = JSON.stringify(r.body);
      expect(text, name).not.toContain(other.orgId);
      expect(text, name).not.toContain(other.owner.userId);
      expect(text, name).not.toContain(other.keyIds.agent);
      expect(text, name).not.toContain('other-bot');
    }
    expect((await t.get(org.keys.observer, `org/keys?cursor=${other.keyIds.agent}&agentId=x`)).body.keys).toEqual([]);
  });

  it('the tax invoice email names the supplier and its ABN from the profile', async () => {
    const o = await t.org('Harbour Cafe');
    await setProfile(t.db, { orgId: o.orgId, actor: '', patch: { abn: ABN, legalName: 'Harbour Hospitality Pty Ltd' } });
    const draft = await t.post(o.keys.agent, 'books.invoiceDraft', {
      payeeName: 'Bob',
      payeeEmail: 'bob@example.com',
      description: 'Catering',
      totalCents: 110_000,
      dueDays: 14,
    });
    expect((await t.post(o.keys.agent, 'books.invoiceSend', { id: draft.body.result.id })).status).toBe(200);
    const row = await t.db.reader.get<{ body: string }>("SELECT body FROM outbox WHERE org_id = ? AND channel = 'email'", [o.orgId]);
    const text = JSON.parse(row?.body ?? '{}').text as string;
    expect(text).toContain('Tax invoice');
    expect(text).toContain('Harbour Hospitality Pty Ltd trading as Harbour Cafe\nABN 51 824 753 556');
  });

  it("taxPrepare without a basis takes the profile's GST basis; the BAS lodgement document names the entity and its ABN", async () => {
    const o = await t.org('Basis Bakery');
    const Q = { periodStart: '2026-07-01', periodEnd: '2026-09-30' };
    await setProfile(t.db, { orgId: o.orgId, actor: '', patch: { gstBasis: 'cash', abn: ABN } });
    const bas = await t.post(o.keys.agent, 'books.taxPrepare', Q);
    expect(bas.status, JSON.stringify(bas.body)).toBe(200);
    expect(bas.body.result.basis).toBe('cash');
    const explicit = await t.org();
    expect((await t.post(explicit.keys.agent, 'books.taxPrepare', Q)).body.result.basis).toBe('accrual');
    const { approvalId } = await heldAndRequested(t, o, 'books.taxSignLodge', { id: bas.body.result.id });
    await decide(t, o, approvalId, true);
    const signed = await t.post(
      o.keys.agent,
      'books.taxSignLodge',
      { id: bas.body.result.id, approvalId },
      { 'x-idempotency-key': freshKey() },
    );
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    let doc: any = null;
    for (let i = 0; i < 100 && !doc; i += 1) {
      await t.server.outbox.kick();
      try {
        doc = JSON.parse(readFileSync(join(dir, `${bas.body.result.id}.json`), 'utf8'));
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    expect(doc.bas.entity).toEqual({ name: 'Basis Bakery', legalName: null, abn: ABN });
    expect(doc.bas.basis).toBe('cash');
  });
});
