import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { MemoryRateLimiter, RATE_LIMIT_BUCKETS_MAX } from '../src/http/rate-limit.js';
import { hashSecret } from '../src/org/credentials.js';
import { revokeOrgKey, type CreatedOrg } from '../src/org/orgs.js';
import { PRINCIPAL_CACHE_MAX_ENTRIES, PrincipalCache } from '../src/org/principal-cache.js';
import type { Queryable, SqlValue } from '../src/storage/types.js';
import { engines, startTestServer, type TestServer } from './harness.js';

/**
 * What a server process keeps per API key (so per organisation) is bounded by configuration, not
 * by how many organisations the database holds: the remembered principals (PRINCIPAL_CACHE_MAX) and
 * the in-process rate-limit buckets (RATE_LIMIT_BUCKETS_MAX), each least recently used out first.
 * An evicted entry must cost a read, never correctness.
 */
const DRAFT = { payeeName: 'Many Pty Ltd', description: 'Consulting', totalCents: 11_000, dueDays: 14 };
const AUTH_READ = /FROM credentials c JOIN organisations o/;
const METRICS_TOKEN = 'm'.repeat(32);

function countAuthReads(q: Queryable): { readonly count: number; restore(): void } {
  const original = q.get.bind(q);
  const counter = { count: 0, restore: () => void (q.get = original) };
  q.get = (sql: string, params?: readonly SqlValue[]) => {
    if (AUTH_READ.test(sql)) counter.count += 1;
    return original(sql, params);
  };
  return counter;
}

const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
};

describe('per-key caches: configuration', () => {
  it('defaults, and the env settings that change the caps', () => {
    const d = loadConfig({});
    expect(d.principalCacheMax).toBe(PRINCIPAL_CACHE_MAX_ENTRIES);
    expect(d.rateLimitBucketsMax).toBe(RATE_LIMIT_BUCKETS_MAX);
    const c = loadConfig({ PRINCIPAL_CACHE_MAX: '2000', RATE_LIMIT_BUCKETS_MAX: '5000' });
    expect([c.principalCacheMax, c.rateLimitBucketsMax]).toEqual([2000, 5000]);
  });

  it('a bad cap fails the start naming the setting', () => {
    expect(problemsOf({ PRINCIPAL_CACHE_MAX: '0' })).toEqual([expect.stringMatching(/^PRINCIPAL_CACHE_MAX: must be an integer from 1/)]);
    expect(problemsOf({ RATE_LIMIT_BUCKETS_MAX: 'lots' })).toEqual([expect.stringMatching(/^RATE_LIMIT_BUCKETS_MAX: must be an integer/)]);
  });
});

describe('PrincipalCache is least recently used first', () => {
  const secretOf = (n: number) => String.fromCharCode(65 + n).repeat(43);
  const found = (n: number) => ({
    principal: {
      orgId: `org_${n}`,
      orgSlug: `o${n}`,
      credentialId: `key_${String(n).padStart(26, '0')}`,
      tier: 'agent' as const,
      scopes: [],
      actor: `key_${n}`,
      agent: null,
    },
    secretHash: hashSecret(secretOf(n)),
    epoch: 1,
  });
  const tokenOf = (n: number) => `fdk_${String(n).padStart(26, '0')}_${secretOf(n)}`;

  it('a hit keeps an entry; the one used least recently is evicted', () => {
    const cache = new PrincipalCache(3, 60_000);
    for (const n of [0, 1, 2]) cache.remember(found(n));
    // 0 is used, so 1 is now the least recently used.
    expect(cache.get(tokenOf(0))).not.toBeNull();
    cache.remember(found(3));
    expect(cache.size).toBe(3);
    expect(cache.get(tokenOf(1))).toBeNull();
    for (const n of [0, 2, 3]) expect(cache.get(tokenOf(n))?.principal.orgId).toBe(`org_${n}`);
  });

  it('stays at its cap however many keys pass through', () => {
    const cache = new PrincipalCache(50, 60_000);
    for (let n = 0; n < 1000; n += 1) cache.remember(found(n % 26));
    expect(cache.size).toBeLessThanOrEqual(50);
  });
});

describe('MemoryRateLimiter is bounded', () => {
  it('never keeps more buckets than its cap; the least recently used goes first, and comes back full', async () => {
    const limiter = new MemoryRateLimiter({ perSecond: 1, burst: 2 }, 3);
    for (let i = 0; i < 100; i += 1) await limiter.take(`k${i}`);
    expect(limiter.size).toBe(3);
    // a spends its burst, then three other keys push it out: it starts again full.
    expect((await limiter.take('a')).allowed).toBe(true);
    expect((await limiter.take('a')).allowed).toBe(true);
    expect((await limiter.take('a')).allowed).toBe(false);
    // Used more recently than b, so b goes first when c and d arrive.
    await limiter.take('b');
    expect((await limiter.take('a')).allowed).toBe(false);
    await limiter.take('c');
    await limiter.take('d');
    expect((await limiter.take('a')).allowed).toBe(false);
    await limiter.take('e');
    await limiter.take('f');
    await limiter.take('g');
    expect((await limiter.take('a')).remaining).toBe(1);
  });
});

describe.each(engines)('many organisations through capped caches (%s)', (engine) => {
  let t: TestServer;
  let orgs: CreatedOrg[];
  beforeAll(async () => {
    // Two remembered keys and two buckets for five organisations: every write of the round
    // robin finds its key evicted.
    t = await startTestServer(engine, {
      principalCacheMax: 2,
      rateLimitBucketsMax: 2,
      ratePerSecond: 1,
      rateBurst: 1000,
      metricsToken: METRICS_TOKEN,
    });
    orgs = [];
    for (let i = 0; i < 5; i += 1) orgs.push(await t.org());
  });
  afterAll(async () => t.close());

  it('writes over more organisations than the cap all succeed, each key read again once evicted', async () => {
    const reads = countAuthReads(t.db.reader);
    try {
      for (let round = 0; round < 3; round += 1) {
        for (const org of orgs) expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
      }
      // Round robin over five keys with room for two: every request misses.
      expect(reads.count).toBe(15);
    } finally {
      reads.restore();
    }
    for (const org of orgs) {
      const n = await t.db.reader.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM invoices WHERE org_id = ?', [org.orgId]);
      expect(Number(n?.n)).toBe(3);
    }
    // /metrics shows both caches at their cap of two, not at the five keys that wrote.
    const metrics = await t.raw('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(String(metrics.body)).toMatch(/^fd_cache_entries\{cache="principals"\} 2$/m);
    expect(String(metrics.body)).toMatch(/^fd_cache_entries\{cache="rate_limit_buckets"\} 2$/m);
  });

  it('one key used again and again stays remembered while the others cycle', async () => {
    const [hot, a, b] = orgs as [CreatedOrg, CreatedOrg, CreatedOrg];
    expect((await t.post(hot.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    const reads = countAuthReads(t.db.reader);
    try {
      // hot, then one other key: the cap of two holds both, so hot is never evicted.
      for (const other of [a, b, a, b]) {
        expect((await t.post(hot.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
        expect((await t.post(other.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
      }
      expect(reads.count).toBe(4);
    } finally {
      reads.restore();
    }
  });

  it('a key revoked while evicted, and one revoked while remembered, are both refused', async () => {
    const [x, y] = orgs.slice(3) as [CreatedOrg, CreatedOrg];
    expect((await t.post(x.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    // Two other keys push x out.
    for (const org of orgs.slice(0, 2)) expect((await t.post(org.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    expect((await t.post(y.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(200);
    await revokeOrgKey(t.db, x.slug, x.keyIds.agent);
    await revokeOrgKey(t.db, y.slug, y.keyIds.agent);
    expect((await t.post(x.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(401);
    expect((await t.post(y.keys.agent, 'books.invoiceDraft', DRAFT)).status).toBe(401);
  });
});
