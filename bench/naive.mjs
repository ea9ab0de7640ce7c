// The naive chain append: the baseline the service's PostgreSQL write path is
// compared with, run in the same `npm run bench` on the same PostgreSQL server. Each client loops
// over one unit per transaction, one statement per round trip, holding the organisation's head
// row lock from the first statement to the commit:
//
//   BEGIN; SELECT seq, row_hash FROM head WHERE org = $1 FOR UPDATE; INSERT the domain row;
//   INSERT the chained event (SHA-256 over the previous hash and the row); UPDATE head; COMMIT
//
// This is the shape once measured at ~1 100 units/s for one organisation on this machine; a
// service write path slower than it is leaving the database idle. Nothing here shares code with the
// server: the baseline must not move when the write path does.
import { createHash, randomBytes } from 'node:crypto';

export const SCHEMA = `
  CREATE TABLE head (org text PRIMARY KEY, seq bigint NOT NULL, row_hash text NOT NULL);
  CREATE TABLE doc (id bigserial PRIMARY KEY, org text NOT NULL, payee text NOT NULL, total_cents bigint NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE event (org text NOT NULL, seq bigint NOT NULL, prev_hash text NOT NULL, row_hash text NOT NULL,
                      body text NOT NULL, PRIMARY KEY (org, seq));
`;

const sha256 = (s) => createHash('sha256').update(s, 'utf8').digest('hex');

/** The bytes an event's hash covers: its previous hash, then the row as JSON (stored as is). */
const eventBody = (org, seq, docId, totalCents) =>
  JSON.stringify({ org, seq, kind: 'doc.created', docId: String(docId), payee: 'Bench Pty Ltd', totalCents });

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

/**
 * One unit: the five statements and the commit, each its own round trip, under the head lock.
 * Integer cents; the hash input is the stored body, so the check below rehashes stored bytes.
 */
export async function appendUnit(client, org, i) {
  await client.query('BEGIN');
  try {
    const head = await client.query('SELECT seq, row_hash FROM head WHERE org = $1 FOR UPDATE', [org]);
    const prev = head.rows[0];
    const totalCents = 100_000 + (i % 900_000);
    const doc = await client.query('INSERT INTO doc (org, payee, total_cents) VALUES ($1, $2, $3) RETURNING id', [
      org,
      'Bench Pty Ltd',
      totalCents,
    ]);
    const seq = Number(prev.seq) + 1;
    const body = eventBody(org, seq, doc.rows[0].id, totalCents);
    const hash = sha256(prev.row_hash + body);
    await client.query('INSERT INTO event (org, seq, prev_hash, row_hash, body) VALUES ($1, $2, $3, $4, $5)', [
      org,
      seq,
      prev.row_hash,
      hash,
      body,
    ]);
    await client.query('UPDATE head SET seq = $2, row_hash = $3 WHERE org = $1', [org, seq, hash]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * `clients` loops, each on its own connection, for `seconds`; client i appends to org i mod
 * orgs.length. A loop starts no unit after the deadline and finishes the one it is in, so every
 * unit that committed is counted (the chain check below demands equality, not a slack).
 */
async function loadPhase(pool, orgs, clients, seconds, latencies) {
  const counts = new Map(orgs.map((o) => [o, 0]));
  let errors = 0;
  let firstError = null;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));
  const loop = async (c) => {
    const org = orgs[c % orgs.length];
    const client = await pool.connect();
    try {
      for (let i = 0; process.hrtime.bigint() < deadline; i += 1) {
        const t0 = process.hrtime.bigint();
        try {
          await appendUnit(client, org, i);
        } catch (error) {
          errors += 1;
          firstError ??= error;
          continue;
        }
        if (latencies) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        counts.set(org, counts.get(org) + 1);
      }
    } finally {
      client.release();
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => loop(c)));
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  return { counts, errors, firstError, wall };
}

/**
 * Each organisation's chain: seq 1..n without a gap, each prev_hash the row before's row_hash,
 * each row_hash the SHA-256 of prev_hash + the stored body, the head at the last row, one domain
 * row per event, and exactly the units the loops counted as committed.
 */
export async function checkChains(client, orgs, committed) {
  const problems = [];
  for (const org of orgs) {
    const { rows } = await client.query('SELECT seq, prev_hash, row_hash, body FROM event WHERE org = $1 ORDER BY seq', [org]);
    let prev = '';
    for (let i = 0; i < rows.length; i += 1) {
      const r = rows[i];
      if (Number(r.seq) !== i + 1) {
        problems.push(`${org}: seq ${r.seq} where ${i + 1} was due (gap)`);
        break;
      }
      if (r.prev_hash !== prev || r.row_hash !== sha256(prev + r.body)) {
        problems.push(`${org}: hash chain broken at seq ${r.seq}`);
        break;
      }
      prev = r.row_hash;
    }
    const head = (await client.query('SELECT seq, row_hash FROM head WHERE org = $1', [org])).rows[0];
    if (Number(head.seq) !== rows.length || head.row_hash !== prev)
      problems.push(`${org}: head at seq ${head.seq}, chain ends at ${rows.length}`);
    const docs = Number((await client.query('SELECT count(*) AS n FROM doc WHERE org = $1', [org])).rows[0].n);
    if (docs !== rows.length) problems.push(`${org}: ${docs} domain rows for ${rows.length} events`);
    if (rows.length !== committed.get(org)) problems.push(`${org}: ${rows.length} events for ${committed.get(org)} committed units`);
  }
  return problems;
}

/**
 * Run the baseline on a fresh scratch database of the server at `adminUrl`, dropped afterwards
 * (also when a phase throws); resolves with its name and one result per phase. `orgCounts` lists the phases, e.g. [1, 8] organisations; each phase
 * gets `warmupSeconds` unmeasured then `seconds` measured with `clients` connections.
 */
export async function naiveBench({ pg, adminUrl, orgCounts, clients, seconds, warmupSeconds, onCleanup, log }) {
  const name = `fd_bench_naive_${randomBytes(6).toString('hex')}`;
  const admin = async (sql) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  // Dropped in the finally below; onCleanup lets the caller drop it on Ctrl-C mid-run too.
  const drop = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  onCleanup?.add(drop);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: clients });
  pool.on('error', () => undefined); // an idle client's error surfaces on its next query instead
  try {
    const setup = await pool.connect();
    try {
      await setup.query(SCHEMA);
    } finally {
      setup.release();
    }
    const phases = [];
    for (const orgCount of orgCounts) {
      const orgs = Array.from({ length: orgCount }, (_, i) => `org${orgCount}_${i + 1}`);
      await pool.query('INSERT INTO head (org, seq, row_hash) SELECT unnest($1::text[]), 0, $2', [orgs, '']);
      const committed = new Map(orgs.map((o) => [o, 0]));
      let errors = 0;
      let firstError = null;
      const add = (r) => {
        for (const [o, n] of r.counts) committed.set(o, committed.get(o) + n);
        errors += r.errors;
        firstError ??= r.firstError;
      };
      if (warmupSeconds > 0) {
        log(`naive chain append, ${orgCount} organisation(s): warm-up ${warmupSeconds} s`);
        add(await loadPhase(pool, orgs, clients, warmupSeconds, null));
      }
      log(`naive chain append, ${orgCount} organisation(s): measuring ${seconds} s, ${clients} clients`);
      const latencies = [];
      const measured = await loadPhase(pool, orgs, clients, seconds, latencies);
      add(measured);
      const units = [...measured.counts.values()].reduce((a, b) => a + b, 0);
      const check = await pool.connect();
      let problems;
      try {
        problems = await checkChains(check, orgs, committed);
      } finally {
        check.release();
      }
      const sorted = Float64Array.from(latencies).sort();
      phases.push({
        orgs: orgCount,
        clients,
        units,
        unitsPerSec: units / measured.wall,
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        errors,
        firstError: firstError ? String(firstError.message ?? firstError) : null,
        events: [...committed.values()].reduce((a, b) => a + b, 0),
        problems,
        ok: errors === 0 && problems.length === 0,
      });
    }
    return { database: name, phases };
  } finally {
    await pool.end().catch(() => undefined);
    await drop();
    onCleanup?.delete(drop);
  }
}
