import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendUnit, checkChains, naiveBench, SCHEMA } from '../../../bench/naive.mjs';

/**
 * `npm run bench` compares the PostgreSQL write path with a naive chain append
 * run in the same run (bench/naive.mjs). Its figures only mean something if its own chains are
 * right, so its check must catch a gap, a fork, a stale head, a missing domain row and a unit
 * counted but not committed — and the run must leave no scratch database behind.
 */
const pgUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!pgUrl)('bench: the naive chain append baseline', () => {
  it('appends under concurrent clients, one and several organisations, counts every committed unit, and drops its database', async () => {
    const { database, phases } = await naiveBench({
      pg,
      adminUrl: pgUrl!,
      orgCounts: [1, 3],
      clients: 6,
      seconds: 0.4,
      warmupSeconds: 0.2,
      log: () => undefined,
    });
    expect(phases.map((p) => [p.orgs, p.ok, p.problems, p.errors])).toEqual([
      [1, true, [], 0],
      [3, true, [], 0],
    ]);
    for (const p of phases) {
      expect(p.units).toBeGreaterThan(0);
      // Warm-up units are committed too: the chain holds at least the measured ones.
      expect(p.events).toBeGreaterThanOrEqual(p.units);
    }
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    try {
      const left = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      expect(left.rowCount).toBe(0);
    } finally {
      await admin.end();
    }
  });

  describe('its chain check', () => {
    const schema = `naive_${randomBytes(5).toString('hex')}`;
    const client = new pg.Client({ connectionString: pgUrl });
    const committed = new Map([['a', 5]]);

    beforeAll(async () => {
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
      await client.query(SCHEMA);
      await client.query(`INSERT INTO head (org, seq, row_hash) VALUES ('a', 0, '')`);
      for (let i = 0; i < 5; i += 1) await appendUnit(client, 'a', i);
    });
    afterAll(async () => {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    });

    /** The check's findings with `tamper` applied, rolled back afterwards. */
    async function findings(tamper: string, counted = committed): Promise<string[]> {
      await client.query('BEGIN');
      try {
        await client.query(tamper);
        return await checkChains(client, ['a'], counted);
      } finally {
        await client.query('ROLLBACK');
      }
    }

    it('passes the chain as appended', async () => {
      expect(await checkChains(client, ['a'], committed)).toEqual([]);
    });

    it('names a gap', async () => {
      expect(await findings(`DELETE FROM event WHERE seq = 3`)).toContain('a: seq 4 where 3 was due (gap)');
    });

    it('names a fork: an event whose previous hash is not the row before', async () => {
      expect(await findings(`UPDATE event SET prev_hash = repeat('0', 64) WHERE seq = 4`)).toContain('a: hash chain broken at seq 4');
    });

    it('names an event whose stored bytes no longer hash to its hash', async () => {
      expect(await findings(`UPDATE event SET body = replace(body, '"kind"', '"kinds"') WHERE seq = 2`)).toContain(
        'a: hash chain broken at seq 2',
      );
    });

    it('names a head behind the chain, a missing domain row and a unit counted but not committed', async () => {
      expect(await findings(`UPDATE head SET seq = 4 WHERE org = 'a'`)).toContain('a: head at seq 4, chain ends at 5');
      expect(await findings(`DELETE FROM doc WHERE id = (SELECT min(id) FROM doc)`)).toContain('a: 4 domain rows for 5 events');
      expect(await findings('SELECT 1', new Map([['a', 6]]))).toContain('a: 5 events for 6 committed units');
    });
  });
});
