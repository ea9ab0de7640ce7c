import { events } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/errors.js';
import { revokeOrgKey } from '../src/org/orgs.js';
import { PrincipalCache } from '../src/org/principal-cache.js';
import type { Database, Queryable, SqlValue } from '../src/storage/types.js';
import { inUnitOfWork, runWrite } from '../src/write-path.js';
import { engines, startTestServer, type TestServer } from './harness.js';

/**
 * The API remembers principals for writes (org/principal-cache.ts) instead of reading
 * the credential on every request, and a remembered key is checked under its organisation's head
 * lock against the credential epoch (migration 35, write-path.ts checkRemembered). A revocation
 * must still hold from the moment it commits, whichever process commits it.
 */
const DRAFT = { payeeName: 'Cache Pty Ltd', description: 'Consulting', totalCents: 11_000, dueDays: 14 };
const AUTH_READ = /FROM credentials c JOIN organisations o/;

/** Count the reads of the credential that authentication makes through `q` (the API's reader). */
function countAuthReads(q: Queryable): { readonly count: number; restore(): void } {
  const original = q.get.bind(q);
  const counter = { count: 0, restore: () => void (q.get = original) };
  q.get = (sql: string, params?: readonly SqlValue[]) => {
    if (AUTH_READ.test(sql)) counter.count += 1;
    return original(sql, params);
  };
  return counter;
}

async function epochOf(db: Database, orgId: string): Promise<number> {
  const row = await db.reader.get<{ auth_epoch: number | string }>('SELECT auth_epoch FROM org_heads WHERE org_id = ?', [orgId]);
  return Number(row?.auth_epoch);
}

async function eventCount(db: Database, orgId: string): Promise<number> {
  const row = await db.reader.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM events WHERE org_id = ?', [orgId]);
  return Number(row?.n);
}

describe.each(engines)('principals remembered for writes (%s)', (engine) => {
  let t: TestServer;
  let other: Database;
  beforeAll(async () => {
    t = await startTestServer(engine);
    // Another process on the same storage: its revocations reach this server only through the database.
    other = t.another();
  });
  afterAll(async () => {
    await other.close();
    await t.close();
  });

  it('a write with a remembered key reads no credential; a read still reads it every time', async () => {
    const org = await t.org();
    expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    const reads = countAuthReads(t.db.reader);
    try {
      for (let i = 0; i < 5; i += 1) expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
      expect(reads.count).toBe(0);
      expect((await t.get(org.keys.agent, 'snapshot')).status).toBe(200);
      expect((await t.get(org.keys.agent, 'snapshot')).status).toBe(200);
      expect(reads.count).toBe(2);
    } finally {
      reads.restore();
    }
  });

  it('a remembered key revoked by another process is refused at its next write, and nothing is written', async () => {
    const org = await t.org();
    expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    const before = await epochOf(t.db, org.orgId);
    expect(await revokeOrgKey(other, org.slug, org.keyIds.agent)).toEqual({ revoked: true });
    // The revocation moved the organisation's credential epoch with its commit.
    expect(await epochOf(t.db, org.orgId)).toBe(before + 1);
    const eventsBefore = await eventCount(t.db, org.orgId);
    const refused = await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    expect(await eventCount(t.db, org.orgId)).toBe(eventsBefore);
    const invoices = await t.db.reader.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM invoices WHERE org_id = ?', [org.orgId]);
    expect(Number(invoices?.n)).toBe(2);
    // And it stays refused (forgotten, read again, revoked).
    expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(401);
  });

  it("another key's revocation moves the epoch; a remembered key that stands still writes", async () => {
    const org = await t.org();
    expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    await revokeOrgKey(other, org.slug, org.keyIds.reader);
    expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    expect((await t.get(org.keys.reader, 'snapshot')).status).toBe(401);
  });

  it('a revoked remembered key hears UNAUTHORIZED, not the refusal a standing key would hear', async () => {
    const org = await t.org();
    // Remembered on its first write, even though the write is refused for its scope.
    expect((await t.post(org.keys.observer, 'books.invoiceDraft', DRAFT)).status).toBe(403);
    expect((await t.post(org.keys.agent, 'books.invoiceDraft', { ...DRAFT, totalCents: 'many' })).status).toBe(400);
    await revokeOrgKey(other, org.slug, org.keyIds.observer);
    await revokeOrgKey(other, org.slug, org.keyIds.agent);
    const scope = await t.post(org.keys.observer, 'books.invoiceDraft', DRAFT);
    expect([scope.status, scope.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    const params = await t.post(org.keys.agent, 'books.invoiceDraft', { ...DRAFT, totalCents: 'many' });
    expect([params.status, params.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('a revocation earlier in the same batch refuses a remembered write after it', async () => {
    const org = await t.org();
    const epoch = await epochOf(t.db, org.orgId);
    const revoke = inUnitOfWork(t.db, org.orgId, '', async (uow) => {
      await uow.tx.run('UPDATE credentials SET revoked_at = ? WHERE id = ?', [uow.now, org.keyIds.agent]);
      await uow.emit(events.keyRevoked, { entityId: org.keyIds.agent, payload: { keyId: org.keyIds.agent } });
      return {};
    });
    // Queued in the same turn, after the revocation: one batch, the revocation first.
    const write = runWrite(
      t.db,
      {
        orgId: org.orgId,
        actor: org.keyIds.agent,
        credentialId: org.keyIds.agent,
        method: 'books.invoiceDraft',
        params: DRAFT,
        idempotencyKey: null,
        remembered: { epoch, confirmed: () => undefined },
      },
      async (uow) => {
        await uow.emit(events.invoiceDraft, {
          entityId: 'inv_never',
          payload: { payee: 'x', description: 'x', totalCents: 1, dueDays: 1, contactId: 'con_x', number: 'INV-X' },
        });
        return {};
      },
    );
    await revoke;
    const refused = await write.then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('UNAUTHORIZED');
    expect(await epochOf(t.db, org.orgId)).toBe(epoch + 1);
  });
});

describe('PrincipalCache', () => {
  const found = (n: number, secretHash: Buffer = Buffer.alloc(32, n)) => ({
    principal: {
      orgId: 'org_x',
      orgSlug: 'x',
      credentialId: `key_${String(n).padStart(26, '0')}`,
      tier: 'agent' as const,
      scopes: [],
      actor: `key_${n}`,
      agent: null,
    },
    secretHash,
    epoch: 7,
  });

  it('is bounded: the oldest entry goes first', () => {
    const cache = new PrincipalCache(3, 60_000);
    for (let i = 0; i < 10; i += 1) cache.remember(found(i));
    expect(cache.size).toBe(3);
  });

  it('knows a key only with its secret, and forgets it after the TTL', async () => {
    const { hashSecret } = await import('../src/org/credentials.js');
    let now = 1_000;
    const cache = new PrincipalCache(10, 60_000, () => now);
    const secret = 'A'.repeat(43);
    const entry = found(1, hashSecret(secret));
    cache.remember(entry);
    const token = `fdk_${entry.principal.credentialId.slice(4)}_${secret}`;
    expect(cache.get(token)?.epoch).toBe(7);
    expect(cache.get(`fdk_${entry.principal.credentialId.slice(4)}_${'B'.repeat(43)}`)).toBeNull();
    cache.confirmed(entry.principal.credentialId, 9);
    expect(cache.get(token)?.epoch).toBe(9);
    now += 60_000;
    expect(cache.get(token)).toBeNull();
    expect(cache.size).toBe(0);
  });
});
