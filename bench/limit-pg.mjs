// The least a durable chained write can cost in this stack on PostgreSQL: bench/limit.mjs's twin,
// the same routes, body, checks and chain, batched the way the service batches on PostgreSQL
// (storage/postgres.ts): writes of one organisation queue; the first goes at once, those that
// arrive while its batch runs form the next batch, taken once the batch holds the organisation's
// lock. Per batch, on one pooled connection, three round trips:
//   1. `BEGIN; SELECT seq, row_hash FROM head WHERE org = '…' FOR UPDATE` — one simple query, the
//      head row locked (every process's writes of the organisation serialise on it) and read;
//   2. the rows chained in code (SHA-256 over the previous hash and the row as sorted-keys JSON),
//      then ONE prepared statement: the domain rows and the events as set-based INSERTs (unnest over
//      an array per column) in data-modifying CTEs, closed by the head's UPDATE from the seq read;
//   3. COMMIT (checked: an aborted transaction answers ROLLBACK) — and only then is each write
//      answered with its seq.
// The service adds to this its handler's reads and the idempotency rows; the shape is the same.
//
// Nothing here shares code with the server. Imported by the bench-limit test (start/stop/checkChain);
// run as a script it is the child process the limit scenario drives (LIMIT_PG_URL, PORT).
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chainProblems, closeServer, eventBody, listen, routes, send } from './limit.mjs';

// pg as the server package resolves it (one of its dependencies), without loading the server.
const pg = createRequire(fileURLToPath(new URL('../packages/server/package.json', import.meta.url)))('pg');

/** The one organisation the limit writes for: its head row is the lock every batch takes. */
export const ORG = 'limit';

export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS head (org TEXT PRIMARY KEY, seq BIGINT NOT NULL, row_hash TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS doc (id TEXT PRIMARY KEY, org TEXT NOT NULL, payee TEXT NOT NULL, total_cents BIGINT NOT NULL);
  CREATE TABLE IF NOT EXISTS event (org TEXT NOT NULL, seq BIGINT NOT NULL, prev_hash TEXT NOT NULL, row_hash TEXT NOT NULL,
    body TEXT NOT NULL, PRIMARY KEY (org, seq));
  INSERT INTO head (org, seq, row_hash) VALUES ('${ORG}', 0, '') ON CONFLICT (org) DO NOTHING;
`;

/** At most this many writes share a batch (the service's bound is 256 units). */
const BATCH_MAX = 256;

const sha256 = (s) => createHash('sha256').update(s, 'utf8').digest('hex');

const LOCK_HEAD = `BEGIN; SELECT seq, row_hash FROM head WHERE org = '${ORG}' FOR UPDATE`;

/**
 * The batch's writes in one statement: domain rows and events set-based, then the head moved from
 * the seq the batch locked (0 rows changed would mean a fork: refused). Named, so each connection
 * parses and plans it once, whatever the batch's size.
 */
const WRITE_BATCH = {
  name: 'limit_write_batch',
  text: `WITH d AS (INSERT INTO doc (id, org, payee, total_cents) SELECT id, $1, payee, total FROM unnest($2::text[], $3::text[], $4::bigint[]) AS u(id, payee, total)),
    e AS (INSERT INTO event (org, seq, prev_hash, row_hash, body) SELECT $1, * FROM unnest($5::bigint[], $6::text[], $7::text[], $8::text[]))
    UPDATE head SET seq = $9, row_hash = $10 WHERE org = $1 AND seq = $11`,
};

// Domain-row ids made in code, as the service makes its ids: unique across processes (a random
// process tag) without a round trip for a sequence.
const processTag = randomBytes(6).toString('hex');
let idCounter = 0;
const newDocId = () => `doc_${processTag}_${(idCounter += 1)}`;

/** A pg.Pool on `url`, on `schema` when given (the tests' own schemas). */
function poolOf(url, schema) {
  const pool = new pg.Pool({ connectionString: url, max: 4, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  pool.on('error', () => undefined);
  return pool;
}

/** BIGINT columns come back as strings from pg; every one here is a seq or cents. */
const num = (v) => Number(v);

/**
 * Start the PostgreSQL limit server on `url` (and `schema`, created if missing, with the tables if
 * new) and `port` (0: any free one). Resolves with { url, port, acknowledged(), commits(), stop() }.
 */
export async function start({ url: databaseUrl, schema, port = 0, host = '127.0.0.1' }) {
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  if (schema) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).finally(() => c.end());
  }
  const pool = poolOf(databaseUrl, schema);
  await pool.query(SCHEMA);
  let queue = [];
  let running = false;
  let acknowledged = 0;
  let commits = 0;
  let idle = Promise.resolve();

  /** One batch: lock and read the head, take the queue, chain, write, commit; the batch's outcome. */
  async function writeBatch() {
    const client = await pool.connect();
    let batch = [];
    let broken = false;
    try {
      const [, locked] = await client.query(LOCK_HEAD);
      const row = locked.rows[0];
      // Taken once the lock holds: writes that arrived while it waited join this batch.
      batch = queue.splice(0, BATCH_MAX);
      let seq = num(row.seq);
      let hash = row.row_hash;
      const from = seq;
      const cols = { ids: [], payees: [], totals: [], seqs: [], prevs: [], hashes: [], bodies: [] };
      for (const w of batch) {
        const id = newDocId();
        seq += 1;
        const body = eventBody(seq, id, w.payee, w.totalCents);
        const rowHash = sha256(hash + body);
        cols.ids.push(id);
        cols.payees.push(w.payee);
        cols.totals.push(w.totalCents);
        cols.seqs.push(seq);
        cols.prevs.push(hash);
        cols.hashes.push(rowHash);
        cols.bodies.push(body);
        hash = rowHash;
      }
      const moved = await client.query({
        ...WRITE_BATCH,
        values: [ORG, cols.ids, cols.payees, cols.totals, cols.seqs, cols.prevs, cols.hashes, cols.bodies, seq, hash, from],
      });
      if (moved.rowCount !== 1) throw new Error(`the head moved from seq ${from} under this batch's lock`);
      const done = await client.query('COMMIT');
      if (done.command !== 'COMMIT') throw new Error(`the transaction did not commit (${done.command})`);
      return { batch, seqs: cols.seqs };
    } catch (error) {
      broken = true;
      await client.query('ROLLBACK').catch(() => undefined);
      return { batch: batch.length > 0 ? batch : queue.splice(0, BATCH_MAX), error };
    } finally {
      // A connection whose transaction broke may be unusable: the pool replaces it.
      client.release(broken);
    }
  }

  /** Batches back to back while writes are queued: at most one in flight (one organisation). */
  async function drain() {
    running = true;
    try {
      while (queue.length > 0) {
        const out = await writeBatch();
        if (out.error) {
          // Rolled back: nothing of the batch is stored, so none of it is acknowledged.
          for (const w of out.batch) send(w.res, 500, { error: `write failed: ${out.error.message}` });
          continue;
        }
        acknowledged += out.batch.length;
        commits += 1;
        out.batch.forEach((w, i) => send(w.res, 200, { seq: out.seqs[i] }));
      }
    } finally {
      running = false;
    }
  }

  const server = http.createServer(
    routes((w) => {
      queue.push(w);
      if (!running) idle = drain();
    }),
  );
  const bound = await listen(server, port, host);
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    acknowledged: () => acknowledged,
    /** Batches committed: writes ÷ commits is how many writes shared each hold of the head lock. */
    commits: () => commits,
    async stop() {
      // Stop listening once every request is answered (the batches run on their own), then close the pool.
      await closeServer(server);
      await idle;
      await pool.end();
    },
  };
}

/**
 * The chain as stored, read through `client` (a connected pg client whose search_path finds the
 * tables; the test tampers inside a transaction it rolls back): seq 1..n without a gap, each
 * prev_hash the row before's row_hash, each row_hash the SHA-256 of prev_hash + the stored body,
 * each body the canonical JSON of its domain row, one domain row per event, the head at the last
 * event, and at least `acknowledged` events but at most `slack` more. Returns the problems.
 */
export async function checkChain(client, acknowledged, slack = 0) {
  const problems = [];
  const docs = new Map((await client.query('SELECT id, payee, total_cents FROM doc WHERE org = $1', [ORG])).rows.map((d) => [d.id, d]));
  const events = (await client.query('SELECT seq, prev_hash, row_hash, body FROM event WHERE org = $1 ORDER BY seq', [ORG])).rows;
  problems.push(...chainProblems(events, docs));
  const head = (await client.query('SELECT seq, row_hash FROM head WHERE org = $1', [ORG])).rows[0];
  const last = events.at(-1);
  if (!head || num(head.seq) !== (last ? num(last.seq) : 0) || head.row_hash !== (last ? last.row_hash : ''))
    problems.push(`the head (seq ${head ? head.seq : 'missing'}) is not at the last event (seq ${last ? last.seq : 0})`);
  if (docs.size !== events.length) problems.push(`${docs.size} domain rows for ${events.length} events`);
  if (events.length < acknowledged) problems.push(`${events.length} events for ${acknowledged} acknowledged writes`);
  else if (events.length - acknowledged > slack)
    problems.push(
      `${events.length} events: ${events.length - acknowledged} more than the ${acknowledged} acknowledged (at most ${slack} in flight)`,
    );
  return problems;
}

/** checkChain on `url` with a connection of its own. */
export async function checkChainAt(url, acknowledged, slack = 0) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await checkChain(client, acknowledged, slack);
  } finally {
    await client.end();
  }
}

// Run as a script: the child process of the limit scenario.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const url = process.env.LIMIT_PG_URL;
  if (!url) throw new Error('LIMIT_PG_URL: the PostgreSQL database to write to');
  const srv = await start({ url, port: Number(process.env.PORT ?? 0) });
  process.stdout.write(`limit server (PostgreSQL) listening on ${srv.url}\n`);
  process.once('SIGTERM', () => {
    srv.stop().then(() => process.exit(0));
  });
}
