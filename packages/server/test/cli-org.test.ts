import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangePairingCode } from '../src/org/pairing.js';
import { openDatabase } from '../src/storage/open.js';
import { migrations } from '../src/schema.js';
import { engines, freshDatabaseUrl, runCliInProcess } from './harness.js';

/** The CLI's organisation commands: org profile, agent pair, agent revoke. */

describe.each(engines)('CLI org profile and agents (%s)', (engine) => {
  let url: string;
  let drop: () => Promise<void>;
  let slug: string;
  let orgId: string;

  const cli = (...args: string[]) => runCliInProcess(url, ...args);

  async function withDb<T>(fn: (db: ReturnType<typeof openDatabase>) => Promise<T>): Promise<T> {
    const db = openDatabase(url, { migrations, sqliteSynchronous: 'NORMAL' });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  beforeAll(async () => {
    ({ url, drop } = await freshDatabaseUrl(engine));
    const created = JSON.parse((await cli('org', 'create', '--name', 'Kettle Joinery', '--json')).out);
    slug = created.slug;
    orgId = created.orgId;
  });
  afterAll(async () => drop());

  it('org profile shows the profile, sets fields as one event (actor "") and refuses bad flags with a one-line reason', async () => {
    const shown = await cli('org', 'profile', '--org', slug, '--json');
    expect(shown.code, shown.err).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ orgId, abn: null, gstBasis: 'accrual', financialYearStartMonth: 7 });
    const set = await cli(
      'org',
      'profile',
      '--org',
      slug,
      '--abn',
      '51 824 753 556',
      '--gst-basis',
      'cash',
      '--gst-registered',
      'yes',
      '--fy-start-month',
      '7',
      '--json',
    );
    expect(set.code, set.err).toBe(0);
    expect(JSON.parse(set.out)).toMatchObject({ abn: '51824753556', gstBasis: 'cash', gstRegistered: true });
    const bad = await cli('org', 'profile', '--org', slug, '--abn', '51824753557', '--fy-start-month', '13', '--json');
    expect(bad.code).toBe(2);
    expect(bad.err.trim()).toBe(
      'finance-desk: abn: must pass the ABN check digits; financialYearStartMonth: must be a month number from 1 to 12',
    );
    expect((await cli('org', 'profile', '--org', 'nobody', '--json')).err.trim()).toBe('finance-desk: organisation nobody not found');
    const cleared = await cli('org', 'profile', '--org', slug, '--abn', 'none', '--json');
    expect(JSON.parse(cleared.out).abn).toBeNull();
    // Invoice numbering and the lock date (not in the future; "none" unlocks).
    const locked = await cli(
      'org',
      'profile',
      '--org',
      slug,
      '--lock-date',
      '2026-01-31',
      '--invoice-prefix',
      'Q-',
      '--invoice-next-number',
      '7',
      '--json',
    );
    expect(locked.code, locked.err).toBe(0);
    expect(JSON.parse(locked.out)).toMatchObject({ lockDate: '2026-01-31', invoicePrefix: 'Q-', invoiceNextNumber: 7 });
    const future = await cli('org', 'profile', '--org', slug, '--lock-date', '2999-01-01', '--json');
    expect(future.code).not.toBe(0);
    expect(future.err).toContain('lockDate must not be in the future');
    const unlocked = await cli('org', 'profile', '--org', slug, '--lock-date', 'none', '--json');
    expect(JSON.parse(unlocked.out).lockDate).toBeNull();
    const events = await withDb((db) =>
      db.reader.all<{ actor: string; payload: string }>(
        "SELECT actor, payload FROM events WHERE org_id = ? AND kind = 'org.profile.update' ORDER BY seq",
        [orgId],
      ),
    );
    expect(events.map((e) => [e.actor, JSON.parse(e.payload).fields])).toEqual([
      ['', ['abn', 'gstBasis']],
      ['', ['abn']],
      ['', ['invoicePrefix', 'invoiceNextNumber', 'lockDate']],
      ['', ['lockDate']],
    ]);
  }, 120_000); // nine CLI processes: slow on a loaded machine

  it('org profile sets the payment account invoices print; BSB and number go together; "none" clears', async () => {
    const half = await cli('org', 'profile', '--org', slug, '--payment-bsb', '062-000', '--json');
    expect(half.code).not.toBe(0);
    expect(half.err.trim()).toBe('finance-desk: paymentAccountNumber: is needed with paymentBsb (customers pay into both)');
    const bad = await cli('org', 'profile', '--org', slug, '--payment-bsb', '062000', '--payment-account-number', '12a', '--json');
    expect(bad.code).toBe(2);
    expect(bad.err.trim()).toBe('finance-desk: paymentBsb: must be a BSB of the form NNN-NNN; paymentAccountNumber: must be 1 to 9 digits');
    const set = await cli(
      'org',
      'profile',
      '--org',
      slug,
      '--payment-account-name',
      'Kettle Joinery',
      '--payment-bsb',
      '062-000',
      '--payment-account-number',
      '12345678',
      '--json',
    );
    expect(set.code, set.err).toBe(0);
    expect(JSON.parse(set.out)).toMatchObject({
      paymentAccountName: 'Kettle Joinery',
      paymentBsb: '062-000',
      paymentAccountNumber: '12345678',
    });
    const cleared = await cli('org', 'profile', '--org', slug, '--payment-bsb', 'none', '--payment-account-number', 'none', '--json');
    expect(cleared.code, cleared.err).toBe(0);
    expect(JSON.parse(cleared.out)).toMatchObject({ paymentAccountName: 'Kettle Joinery', paymentBsb: null, paymentAccountNumber: null });
  });

  it('agent pair prints the code once; the code pairs; agent revoke revokes the agent and its key', async () => {
    const r = await cli('agent', 'pair', '--org', slug, '--name', 'cli-bot', '--tier', 'reader', '--ttl-minutes', '10', '--json');
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out);
    expect(Object.keys(out).sort()).toEqual(['agentName', 'code', 'codeId', 'expiresAt', 'tier']);
    expect(out).toMatchObject({ agentName: 'cli-bot', tier: 'reader', code: expect.stringMatching(/^fdp_/) });
    const paired = await withDb((db) => exchangePairingCode(db, out.code));
    expect(paired).toMatchObject({ tier: 'reader', orgId, slug });
    const revoked = await cli('agent', 'revoke', '--org', slug, '--agent', paired.agentId, '--json');
    expect(revoked.code, revoked.err).toBe(0);
    expect(JSON.parse(revoked.out)).toMatchObject({ agentId: paired.agentId, name: 'cli-bot', keyIds: [paired.keyId], already: false });
    expect(JSON.parse((await cli('agent', 'revoke', '--org', slug, '--agent', paired.agentId, '--json')).out).already).toBe(true);
    const key = await withDb((db) =>
      db.reader.get<{ revoked_at: string | null }>('SELECT revoked_at FROM credentials WHERE id = ?', [paired.keyId]),
    );
    expect(key?.revoked_at).not.toBeNull();
    const events = await withDb((db) =>
      db.reader.all<{ kind: string; actor: string; payload: string }>(
        "SELECT kind, actor, payload FROM events WHERE org_id = ? AND kind LIKE 'org.%' ORDER BY seq",
        [orgId],
      ),
    );
    expect(events.filter((e) => e.kind !== 'org.profile.update' && e.kind !== 'org.created').map((e) => [e.kind, e.actor])).toEqual([
      ['org.pairing.create', ''],
      ['org.agent.pair', paired.agentId],
      ['org.agent.revoke', ''],
    ]);
    expect(events.map((e) => e.payload).join('')).not.toContain(out.code.slice(31));
    expect((await cli('agent', 'revoke', '--org', slug, '--agent', 'agt_nosuch')).err.trim()).toBe(
      'finance-desk: agent agt_nosuch not found',
    );
  });

  it('agent pair refuses a weak secret (WEAK_SECRET), a bad tier, a bad ttl, with exit 2 and nothing created', async () => {
    const weak = await cli(
      'agent',
      'pair',
      '--org',
      slug,
      '--name',
      'weak-bot',
      '--tier',
      'agent',
      '--secret',
      'kettlejoinery1234',
      '--json',
    );
    expect(weak.code).toBe(2);
    expect(weak.err).toMatch(/^finance-desk: WEAK_SECRET: secret: too weak \(contains the organisation's or the agent's name/);
    expect(weak.err).not.toContain('kettlejoinery1234');
    const tier = await cli('agent', 'pair', '--org', slug, '--name', 'x-bot', '--tier', 'admin', '--ttl-minutes', 'soon');
    expect(tier.code).toBe(2);
    expect(tier.err.trim()).toBe(
      'finance-desk: tier: must be one of observer, reader, agent; ttlMinutes: must be an integer from 1 to 10080',
    );
    const chosen = await cli(
      'agent',
      'pair',
      '--org',
      slug,
      '--name',
      'chosen-bot',
      '--tier',
      'agent',
      '--secret',
      'quiver-Moss-kettle-45',
      '--json',
    );
    expect(chosen.code, chosen.err).toBe(0);
    expect(JSON.parse(chosen.out).code).toMatch(/_quiver-Moss-kettle-45$/);
    const codes = await withDb((db) =>
      db.reader.all<{ agent_name: string }>('SELECT agent_name FROM pairing_codes WHERE org_id = ? ORDER BY created_at', [orgId]),
    );
    expect(codes.map((c) => c.agent_name)).toEqual(['cli-bot', 'chosen-bot']);
  });
});
