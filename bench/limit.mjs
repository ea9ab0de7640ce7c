// The least a durable chained write can cost in this stack: the ceiling the service's SQLite write
// path is compared with, run in the same `npm run bench`. A node:http server (no framework) takes
// `POST /write` with { payee, totalCents }, parses and checks it, and queues it; once per event-loop
// turn (setImmediate) ONE better-sqlite3 transaction (WAL, synchronous=FULL) inserts every queued
// request's domain row and its SHA-256-chained event, commits — one fsync for the whole batch — and
// only then answers each request with its seq. `POST /bare` parses and echoes, for reference.
//
// Nothing here shares code with the server: the baseline must not move when the write path does.
// Imported by the bench-limit test (start/stop/checkChain); run as a script it is the child
// process the limit scenario drives (LIMIT_DB, PORT; GET /healthz answers once it listens).
import { createHash } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// better-sqlite3 as the server package resolves it (one of its dependencies), without loading the server.
const Database = createRequire(fileURLToPath(new URL('../packages/server/package.json', import.meta.url)))('better-sqlite3');

export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS doc (id INTEGER PRIMARY KEY, payee TEXT NOT NULL, total_cents INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS event (seq INTEGER PRIMARY KEY, prev_hash TEXT NOT NULL, row_hash TEXT NOT NULL, body TEXT NOT NULL);
`;

/** Bodies larger than this are refused (413): a bounded read, as any route must have. */
const MAX_BODY_BYTES = 4096;

const sha256 = (s) => createHash('sha256').update(s, 'utf8').digest('hex');

/** JSON with every object's keys sorted: the bytes an event's hash covers do not depend on insertion order. */
export function canonical(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
    .join(',')}}`;
}

/** The event's body: the domain row it records, as canonical JSON (stored as is, rehashed by the check). */
export const eventBody = (seq, docId, payee, totalCents) => canonical({ docId, payee, seq, totalCents });

/** The minimal checks: a clear 400 naming the field, nothing written. */
export function validate(input) {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return { error: 'body must be a JSON object' };
  const { payee, totalCents } = input;
  if (typeof payee !== 'string' || payee.length === 0 || payee.length > 200)
    return { error: 'payee must be a string of 1 to 200 characters' };
  if (!Number.isSafeInteger(totalCents) || totalCents < 0) return { error: 'totalCents must be a whole number of cents, at least 0' };
  return { payee, totalCents };
}

export function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The request's body, at most MAX_BODY_BYTES; null (after a 413) when larger. */
export function readBody(req, res, done) {
  const chunks = [];
  let size = 0;
  let refused = false;
  req.on('data', (c) => {
    if (refused) return;
    size += c.length;
    if (size > MAX_BODY_BYTES) {
      refused = true;
      send(res, 413, { error: `body larger than ${MAX_BODY_BYTES} bytes` });
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (!refused) done(Buffer.concat(chunks).toString('utf8'));
  });
}

/**
 * The routes, shared by both engines' limit servers: GET /healthz; POST /bare parses and echoes;
 * POST /write parses, checks and hands `{ payee, totalCents, res }` to `enqueue`, which answers it
 * once its batch has committed.
 */
export function routes(enqueue) {
  return (req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { ok: true });
    if (req.method !== 'POST' || (req.url !== '/write' && req.url !== '/bare')) return send(res, 404, { error: 'not found' });
    readBody(req, res, (text) => {
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch {
        return send(res, 400, { error: 'body is not JSON' });
      }
      if (req.url === '/bare') return send(res, 200, parsed);
      const input = validate(parsed);
      if (input.error) return send(res, 400, { error: input.error });
      enqueue({ ...input, res });
    });
  };
}

/** `server` listening on `port` (0: any free one) at `host`; resolves with the bound port. */
export async function listen(server, port, host) {
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server.address().port;
}

/** Close `server` once its requests are answered; a keep-alive connection still open after a second is cut. */
export function closeServer(server) {
  return new Promise((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), 1000);
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Start the limit server on `file` (created with the schema if new) and `port` (0: any free one).
 * Resolves with { url, port, acknowledged(), stop() }; stop() answers what is queued, closes the
 * server and the database.
 */
export async function start({ file, port = 0, host = '127.0.0.1' }) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(SCHEMA);
  const insertDoc = db.prepare('INSERT INTO doc (payee, total_cents) VALUES (?, ?)');
  const insertEvent = db.prepare('INSERT INTO event (seq, prev_hash, row_hash, body) VALUES (?, ?, ?, ?)');
  const last = db.prepare('SELECT seq, row_hash FROM event ORDER BY seq DESC LIMIT 1').get();
  // The chain's head, held in memory: this process is the only writer, and it advances only after a commit.
  let head = { seq: last ? last.seq : 0, hash: last ? last.row_hash : '' };
  let queue = [];
  let scheduled = false;
  let acknowledged = 0;

  const writeBatch = db.transaction((batch) => {
    let { seq, hash } = head;
    const seqs = [];
    for (const w of batch) {
      const docId = Number(insertDoc.run(w.payee, w.totalCents).lastInsertRowid);
      seq += 1;
      const body = eventBody(seq, docId, w.payee, w.totalCents);
      const rowHash = sha256(hash + body);
      insertEvent.run(seq, hash, rowHash, body);
      hash = rowHash;
      seqs.push(seq);
    }
    return { seqs, head: { seq, hash } };
  });

  function flush() {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    let result;
    try {
      result = writeBatch(batch); // BEGIN … COMMIT: returns once the commit (and its fsync) is done
    } catch (error) {
      // Rolled back: nothing of the batch is stored, so none of it is acknowledged.
      for (const w of batch) send(w.res, 500, { error: `write failed: ${error.message}` });
      return;
    }
    head = result.head;
    acknowledged += batch.length;
    batch.forEach((w, i) => send(w.res, 200, { seq: result.seqs[i] }));
  }

  const server = http.createServer(
    routes((w) => {
      queue.push(w);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    }),
  );
  const bound = await listen(server, port, host);
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    acknowledged: () => acknowledged,
    async stop() {
      // Answer what is queued first; then stop listening. A keep-alive connection still open after
      // a second (a client that never hangs up) is cut, so stop() always returns.
      flush();
      await closeServer(server);
      flush(); // a request whose body was still arriving when stop() began
      db.close();
    },
  };
}

/**
 * The events in seq order against their domain rows (`docs` by id): seq 1..n without a gap, each
 * prev_hash the row before's row_hash, each row_hash the SHA-256 of prev_hash + the stored body,
 * each body the canonical JSON of its domain row. The first problem found, or none. Both limit
 * servers' chain checks (SQLite here, PostgreSQL in limit-pg.mjs) read their rows through it.
 */
export function chainProblems(events, docs) {
  let prev = '';
  let n = 0;
  for (const r of events) {
    n += 1;
    const seq = Number(r.seq);
    if (seq !== n) return [`seq ${seq} where ${n} was due (gap)`];
    if (r.prev_hash !== prev || r.row_hash !== sha256(prev + r.body)) return [`hash chain broken at seq ${seq}`];
    let body;
    try {
      body = JSON.parse(r.body);
    } catch {
      body = null;
    }
    const doc = body && docs.get(body.docId);
    if (!doc || r.body !== eventBody(seq, doc.id, doc.payee, Number(doc.total_cents)))
      return [`seq ${seq}: event does not match its domain row`];
    prev = r.row_hash;
  }
  return [];
}

/**
 * The chain in `file`: seq 1..n without a gap, each prev_hash the row before's row_hash, each
 * row_hash the SHA-256 of prev_hash + the stored body, each body the canonical JSON of its domain
 * row, one domain row per event, and at least `acknowledged` events but at most `slack` more
 * (requests in flight when a load run stopped commit without being counted). Returns the problems.
 */
export function checkChain(file, acknowledged, slack = 0) {
  const db = new Database(file, { readonly: true });
  const problems = [];
  try {
    const docs = new Map(
      db
        .prepare('SELECT id, payee, total_cents FROM doc')
        .all()
        .map((d) => [d.id, d]),
    );
    problems.push(...chainProblems(db.prepare('SELECT seq, prev_hash, row_hash, body FROM event ORDER BY seq').iterate(), docs));
    const events = db.prepare('SELECT count(*) AS n FROM event').get().n;
    if (docs.size !== events) problems.push(`${docs.size} domain rows for ${events} events`);
    if (events < acknowledged) problems.push(`${events} events for ${acknowledged} acknowledged writes`);
    else if (events - acknowledged > slack)
      problems.push(`${events} events: ${events - acknowledged} more than the ${acknowledged} acknowledged (at most ${slack} in flight)`);
    return problems;
  } finally {
    db.close();
  }
}

// Run as a script: the child process of the limit scenario.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.env.LIMIT_DB;
  if (!file) throw new Error('LIMIT_DB: the SQLite file to write to');
  const srv = await start({ file, port: Number(process.env.PORT ?? 0) });
  process.stdout.write(`limit server listening on ${srv.url}\n`);
  process.once('SIGTERM', () => {
    srv.stop().then(() => process.exit(0));
  });
}
