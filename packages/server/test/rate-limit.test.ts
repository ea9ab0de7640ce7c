import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { startServer, type RunningServer } from '../src/server.js';
import { engines, startTestServer, testConfig, type TestServer } from './harness.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.warn('[finance-desk tests] shared (Redis) rate-limit suite SKIPPED: TEST_REDIS_URL is not set.');

describe.each(engines)('rate limiting per credential (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine, { ratePerSecond: 1, rateBurst: 3 });
    org = await t.org();
  });
  afterAll(async () => t.close());

  it('spends the burst, then RATE_LIMITED with Retry-After and a retry-in hint', async () => {
    const seen: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const r = await t.get(org.keys.observer, 'snapshot');
      seen.push(r.status);
      expect(r.headers.get('ratelimit-limit')).toBe('3');
      expect(r.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    expect(seen).toEqual([200, 200, 200]);
    const limited = await t.post(org.keys.observer, 'malformed', 'not json');
    expect(limited.status).toBe(429); // the rate limit is checked before the method name
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(limited.body.error.message).toMatch(/retry in \d+ seconds/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('limits are per credential: another key of the same org is unaffected', async () => {
    const r = await t.get(org.keys.reader, 'snapshot');
    expect(r.status).toBe(200);
  });

  it('a bad credential is refused before the limiter (401, not 429)', async () => {
    const r = await t.get('fdk_bad', 'snapshot');
    expect(r.status).toBe(401);
  });
});

describe.skipIf(!redisUrl)('rate limit shared through Redis by several processes', () => {
  let t: TestServer;
  let second: RunningServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    const shared = { ratePerSecond: 1, rateBurst: 4, redisUrl: redisUrl ?? null };
    t = await startTestServer('sqlite', shared);
    second = await startServer(testConfig(shared), { db: t.db, logger: false });
    org = await t.org();
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  it('two servers enforce one budget for one key', async () => {
    const auth = { authorization: `Bearer ${org.keys.observer}` };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const base = i % 2 === 0 ? t.url : second.url;
      statuses.push((await fetch(`${base}/api/v1/snapshot`, { headers: auth })).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.slice(4)).toEqual([429, 429]);
  });
});
