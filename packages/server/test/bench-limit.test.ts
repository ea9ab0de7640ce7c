import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkChain as checkChainPg, start as startPg } from '../../../bench/limit-pg.mjs';
import { canonical, checkChain, start } from '../../../bench/limit.mjs';

/**
 * `npm run bench` compares the service's SQLite write path with the least a durable chained write
 * can cost (bench/limit.mjs): one transaction per event-loop turn for every queued request. Its
 * req/s only mean something if every acknowledged write is really in a sound chain, so the check
 * must pass on what the server wrote and catch a tampered row, a gap and a fork.
 */
const WRITES = 300;

describe('bench: the write path limit server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fd-limit-'));
  const file = join(dir, 'limit.db');
  const seqs: number[] = [];
  const statuses: number[] = [];

  beforeAll(async () => {
    const server = await start({ file });
    try {
      const answers = await Promise.all(
        Array.from({ length: WRITES }, (_, i) =>
          fetch(`${server.url}/write`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ payee: `Payee ${i % 7}`, totalCents: 100_000 + i }),
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as { seq: number } })),
        ),
      );
      for (const a of answers) {
        statuses.push(a.status);
        seqs.push(a.body.seq);
      }
      // Refused input names its field and writes nothing (the chain check below counts exactly WRITES).
      const bad = await fetch(`${server.url}/write`, { method: 'POST', body: JSON.stringify({ payee: 'X', totalCents: 1.5 }) });
      expect([bad.status, await bad.json()]).toEqual([400, { error: 'totalCents must be a whole number of cents, at least 0' }]);
      const bare = await fetch(`${server.url}/bare`, { method: 'POST', body: '{"b":1,"a":2}' });
      expect(await bare.json()).toEqual({ b: 1, a: 2 });
      expect(server.acknowledged()).toBe(WRITES);
    } finally {
      await server.stop();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The check's findings on a copy of the database with `tamper` applied. */
  function findings(name: string, tamper: (db: Database.Database) => void, acknowledged = WRITES, slack = 0): string[] {
    const copy = join(dir, `${name}.db`);
    copyFileSync(file, copy);
    const db = new Database(copy);
    try {
      tamper(db);
    } finally {
      db.close();
    }
    return checkChain(copy, acknowledged, slack);
  }

  it('answers every concurrent write 200 with its own seq, 1 to the number written', () => {
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: WRITES }, (_, i) => i + 1));
  });

  it('passes the chain as written, holding exactly the acknowledged writes', () => {
    expect(checkChain(file, WRITES)).toEqual([]);
    // In flight when a load run stops: up to `slack` more events than acknowledged are allowed, not more.
    expect(checkChain(file, WRITES - 2, 2)).toEqual([]);
    expect(checkChain(file, WRITES - 3, 2)).toContain(`${WRITES} events: 3 more than the ${WRITES - 3} acknowledged (at most 2 in flight)`);
    expect(checkChain(file, WRITES + 1)).toContain(`${WRITES} events for ${WRITES + 1} acknowledged writes`);
  });

  it('names a tampered event and a tampered domain row', () => {
    expect(findings('body', (db) => db.exec(`UPDATE event SET body = replace(body, '"payee"', '"payer"') WHERE seq = 2`))).toContain(
      'hash chain broken at seq 2',
    );
    // docs are inserted in seq order, so doc 3 is the one event 3 records.
    expect(findings('doc', (db) => db.exec('UPDATE doc SET total_cents = total_cents + 1 WHERE id = 3'))).toContain(
      'seq 3: event does not match its domain row',
    );
  });

  it('names a gap', () => {
    expect(findings('gap', (db) => db.exec('DELETE FROM event WHERE seq = 3'))).toContain('seq 4 where 3 was due (gap)');
  });

  it('names a fork: an event chained, consistently hashed, to another predecessor', () => {
    const other = 'f'.repeat(64);
    expect(
      findings('fork', (db) => {
        const row = db.prepare('SELECT body FROM event WHERE seq = 4').get() as { body: string };
        const hash = createHash('sha256')
          .update(other + row.body, 'utf8')
          .digest('hex');
        db.prepare('UPDATE event SET prev_hash = ?, row_hash = ? WHERE seq = 4').run(other, hash);
      }),
    ).toContain('hash chain broken at seq 4');
  });

  it('hashes canonical JSON: keys sorted at every depth', () => {
    expect(canonical({ b: 1, a: { d: [2, { z: 1, y: 'x' }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":"x","z":1}]},"b":1}');
  });
});

/**
 * The PostgreSQL twin (bench/limit-pg.mjs), compared with the service's PostgreSQL write path: the
 * same guarantees — concurrent writes batched under the head's row lock, each answered after
 * COMMIT with its own seq, and a check that catches a tampered row, a gap, a fork and a head left
 * behind. Tampering happens in a transaction rolled back after each check.
 */
const pgUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!pgUrl)('bench: the write path limit server on PostgreSQL', () => {
  const schema = `limit_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: pgUrl });
  const seqs: number[] = [];
  const statuses: number[] = [];
  let commits = 0;

  beforeAll(async () => {
    const server = await startPg({ url: pgUrl!, schema });
    try {
      const answers = await Promise.all(
        Array.from({ length: WRITES }, (_, i) =>
          fetch(`${server.url}/write`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ payee: `Payee ${i % 7}`, totalCents: 100_000 + i }),
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as { seq: number } })),
        ),
      );
      for (const a of answers) {
        statuses.push(a.status);
        seqs.push(a.body.seq);
      }
      const bad = await fetch(`${server.url}/write`, { method: 'POST', body: JSON.stringify({ payee: '', totalCents: 1 }) });
      expect([bad.status, await bad.json()]).toEqual([400, { error: 'payee must be a string of 1 to 200 characters' }]);
      expect(server.acknowledged()).toBe(WRITES);
      commits = server.commits();
    } finally {
      await server.stop();
    }
    await client.connect();
    await client.query(`SET search_path TO ${schema}`);
  });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  /** The check's findings with `tamper` applied in a transaction that is then rolled back. */
  async function findings(tamper: string, acknowledged = WRITES): Promise<string[]> {
    await client.query('BEGIN');
    try {
      await client.query(tamper);
      return await checkChainPg(client, acknowledged);
    } finally {
      await client.query('ROLLBACK');
    }
  }

  it('answers every concurrent write 200 with its own seq, 1 to the number written, several to a batch', () => {
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: WRITES }, (_, i) => i + 1));
    // Group commit: the writes that arrive while a batch holds the lock share the next one.
    expect(commits).toBeGreaterThan(0);
    expect(commits).toBeLessThan(WRITES / 2);
  });

  it('passes the chain as written, holding exactly the acknowledged writes', async () => {
    expect(await checkChainPg(client, WRITES)).toEqual([]);
    expect(await checkChainPg(client, WRITES - 2, 2)).toEqual([]);
    expect(await checkChainPg(client, WRITES - 3, 2)).toContain(
      `${WRITES} events: 3 more than the ${WRITES - 3} acknowledged (at most 2 in flight)`,
    );
    expect(await checkChainPg(client, WRITES + 1)).toContain(`${WRITES} events for ${WRITES + 1} acknowledged writes`);
  });

  it('names a tampered event, a tampered domain row, a gap, a fork and a stale head', async () => {
    expect(await findings(`UPDATE event SET body = replace(body, '"payee"', '"payer"') WHERE seq = 2`)).toContain(
      'hash chain broken at seq 2',
    );
    expect(
      await findings(`UPDATE doc SET total_cents = total_cents + 1 WHERE id = (SELECT body::json->>'docId' FROM event WHERE seq = 3)`),
    ).toContain('seq 3: event does not match its domain row');
    expect(await findings('DELETE FROM event WHERE seq = 3')).toContain('seq 4 where 3 was due (gap)');
    const other = 'f'.repeat(64);
    expect(
      await findings(
        `UPDATE event SET prev_hash = '${other}', row_hash = encode(sha256(convert_to('${other}' || body, 'UTF8')), 'hex') WHERE seq = 4`,
      ),
    ).toContain('hash chain broken at seq 4');
    expect(await findings(`UPDATE head SET seq = seq - 1`)).toContain(
      `the head (seq ${WRITES - 1}) is not at the last event (seq ${WRITES})`,
    );
    expect(await findings(`DELETE FROM doc WHERE id = (SELECT body::json->>'docId' FROM event WHERE seq = ${WRITES})`)).toContain(
      `seq ${WRITES}: event does not match its domain row`,
    );
  });
});
