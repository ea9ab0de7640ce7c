import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { largeSlug, seedManyOrgs, smallSlug, verifyAll, type SeededOrg } from '../../../bench/many-orgs.mjs';
import { startServer, type RunningServer } from '../src/server.js';
import { testConfig } from './harness.js';

/**
 * The many-orgs benchmark seeds its organisations in bulk (bench/many-orgs.mjs): its figures only
 * mean something if those are real organisations — chains that verify, keys that write — so the
 * seeder runs here at a tiny size on a scratch PostgreSQL database.
 */
const pgUrl = process.env.TEST_DATABASE_URL;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe.skipIf(!pgUrl)('bench: the many-orgs seeder', () => {
  const name = `fd_many_${randomBytes(5).toString('hex')}`;
  let url = '';
  let seeded: { orgs: SeededOrg[]; totalEvents: number };
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    const u = new URL(pgUrl!);
    u.pathname = `/${name}`;
    url = u.toString();
    // Large chains longer than one insert chunk (5 000), and more small organisations than one transaction.
    seeded = await seedManyOrgs(ROOT, url, { orgs: 7, events: 5, largeOrgs: 2, largeEvents: 5_200, orgsPerTransaction: 3 });
  }, 120_000);
  afterAll(async () => {
    if (url) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });

  it('seeds every organisation with a chain that verifies, of the length asked for', async () => {
    expect(seeded.orgs.map((o) => o.slug)).toEqual([...[0, 1, 2, 3, 4, 5, 6].map(smallSlug), largeSlug(0), largeSlug(1)]);
    expect(seeded.totalEvents).toBe(7 * 5 + 2 * 5_200);
    const verdicts = await verifyAll(ROOT, url, seeded.orgs);
    expect(verdicts.map((v) => (v.ok ? v.rows : v))).toEqual([5, 5, 5, 5, 5, 5, 5, 5_200, 5_200]);
  });

  it('a changed event breaks its chain, and only its own', async () => {
    const victim = seeded.orgs[3]!;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`UPDATE events SET payload = replace(payload, 'Consulting', 'Consultancy') WHERE org_id = $1 AND seq = 3`, [
        victim.orgId,
      ]);
      const verdicts = await verifyAll(ROOT, url, seeded.orgs);
      expect(verdicts.map((v) => v.ok)).toEqual([true, true, true, false, true, true, true, true, true]);
      expect(verdicts[3]).toMatchObject({ ok: false, seq: 3 });
      await c.query(`UPDATE events SET payload = replace(payload, 'Consultancy', 'Consulting') WHERE org_id = $1 AND seq = 3`, [
        victim.orgId,
      ]);
    } finally {
      await c.end();
    }
    expect((await verifyAll(ROOT, url, [victim]))[0]?.ok).toBe(true);
  });

  it("a bulk organisation's agent key writes through the server, and its chain still verifies", async () => {
    let server: RunningServer | null = null;
    try {
      server = await startServer(testConfig({ databaseUrl: url }), { logger: false });
      for (const org of [seeded.orgs[2]!, seeded.orgs[8]!]) {
        const res = await fetch(`${server.url}/api/v1/books.invoiceDraft`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${org.agent}` },
          body: JSON.stringify({ params: { payeeName: 'Many Pty Ltd', description: 'Consulting', totalCents: 11_000, dueDays: 14 } }),
        });
        expect(res.status).toBe(200);
      }
    } finally {
      await server?.close();
    }
    const verdicts = await verifyAll(ROOT, url, [seeded.orgs[2]!, seeded.orgs[8]!]);
    expect(verdicts.map((v) => (v.ok ? v.rows : v))).toEqual([6, 5_201]);
  });
});
