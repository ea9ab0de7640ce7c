// Ledger benchmarks (the verification goal in docs/benchmarks.md): the chain verifier against raw SHA-256 over the same
// bytes, and paging a large ledger over HTTP (`GET /api/v1/events`) with the server's memory
// sampled throughout. run.mjs calls these and renders the tables; the functions return plain
// figures so the document's layout stays in the renderers below.
//
// Plain ESM, loading only the compiled packages (dist), as run.mjs does.
import { createHash } from 'node:crypto';
import * as nodeCrypto from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuSecondsOf, rssOf } from './harness/server.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A string as a database driver hands it over: decoded from bytes into one flat string. Strings
 * built in JavaScript by concatenation are trees ("cons strings") that cost extra on every read
 * and on hashing; rows read from storage never are, so the benchmark's stored rows must not be.
 */
const asStored = (s) => Buffer.from(s, 'utf8').toString('utf8');

/** The event every benchmark row carries: an invoice draft, as the write path records it. */
function benchEvent(i, t0) {
  return {
    seq: i + 1,
    family: 'books',
    kind: 'books.invoice.draft',
    entity_id: `inv_${i.toString(32).padStart(26, '0')}`,
    actor: 'key_06h0aqkmedxqvzwjpppzvdnw9c',
    at: new Date(t0 + i * 7).toISOString(),
    payload: { payee: 'Bench Pty Ltd', description: 'Consulting', totalCents: 123456 + i, dueDays: 14 },
  };
}

// ---------------------------------------------------------------------------------------------
// Verifier micro-benchmark

/**
 * Build `rows` chained rows in memory and time, interleaved, best of `repeats`:
 * - the stored-row verifier (`ChainVerifier.pushStored`, what `finance-desk verify` and the
 *   console run: payload as its stored canonical text);
 * - raw SHA-256 over exactly the same hash-input bytes, precomputed: once with the one-shot
 *   `crypto.hash` the protocol's sha256Hex uses, once with `createHash().update().digest()`
 *   (the baseline an earlier "16–18 %" was measured against);
 * - `verifyChain(rows)` over object payloads (re-canonicalised per row: a client's form);
 * - the hash-input builder alone.
 */
export async function verifyBench({ protocolDist, rows: n, repeats }) {
  const P = await import(pathToFileURL(protocolDist).href);
  const t0 = Date.parse('2025-01-01T00:00:00.000Z');
  const objects = new Array(n);
  const stored = new Array(n);
  const inputs = new Array(n);
  let prev = '';
  for (let i = 0; i < n; i += 1) {
    const row = benchEvent(i, t0);
    const payloadText = P.canonicalJson(row.payload);
    // The definition of the hash input (docs/protocol.md, section 3), not the builder under test.
    const input = P.canonicalJson({ ...row, prev, payload: row.payload, seq: row.seq });
    const hash = createHash('sha256').update(input, 'utf8').digest('hex');
    objects[i] = { ...row, prev_hash: prev, row_hash: hash };
    stored[i] = {
      seq: row.seq,
      family: asStored(row.family),
      kind: asStored(row.kind),
      entity_id: asStored(row.entity_id),
      actor: asStored(row.actor),
      at: asStored(row.at),
      payload: asStored(payloadText),
      prev_hash: asStored(prev),
      row_hash: asStored(hash),
    };
    inputs[i] = asStored(input);
    prev = hash;
  }
  const inputBytes = inputs.reduce((sum, s) => sum + Buffer.byteLength(s, 'utf8'), 0);
  const oneShot = typeof nodeCrypto.hash === 'function' ? nodeCrypto.hash : null;

  const time = (fn) => {
    const start = process.hrtime.bigint();
    const value = fn();
    return { seconds: Number(process.hrtime.bigint() - start) / 1e9, value };
  };
  const measures = {
    stored: () => {
      const v = new P.ChainVerifier();
      for (let i = 0; i < n; i += 1) if (!v.pushStored(stored[i])) break;
      const verdict = v.verdict();
      if (!verdict.ok || verdict.rows !== n) throw new Error(`pushStored rejected the benchmark chain: ${JSON.stringify(verdict)}`);
    },
    objects: () => {
      const verdict = P.verifyChain(objects);
      if (!verdict.ok || verdict.rows !== n) throw new Error(`verifyChain rejected the benchmark chain: ${JSON.stringify(verdict)}`);
    },
    shaOneShot: oneShot
      ? () => {
          let sink = 0;
          for (let i = 0; i < n; i += 1) sink ^= oneShot('sha256', inputs[i], 'hex').charCodeAt(0);
          return sink;
        }
      : null,
    shaCreateHash: () => {
      let sink = 0;
      for (let i = 0; i < n; i += 1) sink ^= createHash('sha256').update(inputs[i], 'utf8').digest('hex').charCodeAt(0);
      return sink;
    },
    builder: () => {
      let sink = 0;
      for (let i = 0; i < n; i += 1) {
        const r = stored[i];
        sink += P.rowHashInputWithPayload(r.prev_hash, r, r.payload).length;
      }
      return sink;
    },
  };
  // The builder's text must be the definition's bytes, or the comparison means nothing.
  for (let i = 0; i < Math.min(n, 1000); i += 1) {
    const r = stored[i];
    if (P.rowHashInputWithPayload(r.prev_hash, r, r.payload) !== inputs[i])
      throw new Error(`hash input of row ${i + 1} differs from canonicalJson`);
  }
  const best = Object.fromEntries(Object.keys(measures).map((k) => [k, Infinity]));
  for (let rep = 0; rep < repeats; rep += 1) {
    for (const [name, fn] of Object.entries(measures)) {
      if (!fn) continue;
      best[name] = Math.min(best[name], time(fn).seconds);
    }
  }
  const perSec = (k) => (Number.isFinite(best[k]) ? n / best[k] : null);
  const rawBest = Math.min(best.shaOneShot, best.shaCreateHash);
  return {
    rows: n,
    repeats,
    meanInputBytes: inputBytes / n,
    storedPerSec: perSec('stored'),
    objectsPerSec: perSec('objects'),
    shaOneShotPerSec: perSec('shaOneShot'),
    shaCreateHashPerSec: perSec('shaCreateHash'),
    builderPerSec: perSec('builder'),
    /** The headline: stored-row verifier ÷ the fastest raw SHA-256 over the same bytes. */
    ratio: rawBest / best.stored,
    ratioCreateHash: best.shaCreateHash / best.stored,
    ratioObjects: rawBest / best.objects,
    // The name run.mjs logs; kept for its one log line.
    get verifyPerSec() {
      return this.storedPerSec;
    },
    get shaPerSec() {
      return n / rawBest;
    },
  };
}

export function verifyTable(v, { table, int, pct }) {
  const row = (label, value) => [label, value === null ? '— (not in this runtime)' : int(value)];
  return table(
    ['Measure', `rows/s (best of ${v.repeats})`],
    [
      row('stored-row verifier `ChainVerifier.pushStored` (what `finance-desk verify` runs)', v.storedPerSec),
      row('raw SHA-256, one-shot `crypto.hash` over the same precomputed hash inputs', v.shaOneShotPerSec),
      row('raw SHA-256, `createHash().update().digest()` over the same inputs', v.shaCreateHashPerSec),
      row('`verifyChain(rows)` with object payloads (re-canonicalised per row)', v.objectsPerSec),
      row('hash-input builder alone (`rowHashInputWithPayload`, no hashing)', v.builderPerSec),
      ['**stored-row verify ÷ fastest raw SHA-256**', `**${pct(v.ratio)}**`],
      ['stored-row verify ÷ raw `createHash` SHA-256', pct(v.ratioCreateHash)],
      ['`verifyChain(rows)` (objects) ÷ fastest raw SHA-256', pct(v.ratioObjects)],
    ],
  );
}

export function verifyMethod(v, { int }) {
  return `- The verifier micro-benchmark builds ${int(v.rows)} chained rows in memory (invoice-draft payloads, mean
  hash input ${Math.round(v.meanInputBytes)} bytes). The stored form holds each payload as its canonical text and every
  field as one flat string, as a database driver returns it. \`ChainVerifier.pushStored\` over them
  (the stored-bytes path of \`finance-desk verify\`: link, hash, compare, and check the payload is
  canonical JSON) is timed against raw SHA-256 of exactly the same hash-input bytes, precomputed:
  with the one-shot \`crypto.hash\` (what the protocol's \`sha256Hex\` uses where the runtime has it)
  and with \`createHash().update().digest()\`. Each measure runs interleaved with the others, best of ${v.repeats}.`;
}

// ---------------------------------------------------------------------------------------------
// Seeding a large ledger

/**
 * Append `count` events to the organisation's chain directly through the compiled server's
 * storage: multi-row INSERTs, `perTransaction` rows per transaction, each transaction moving the
 * head it started from (read under the head lock) — chained with the protocol's own builder and
 * hash, so `finance-desk verify` must pass over them. Not through HTTP: a million writes would
 * measure the write path, which the write benchmark does.
 */
export async function seedEvents(root, databaseUrl, orgId, count, { perTransaction = 50_000, chunk = 500 } = {}) {
  const { openDatabase } = await import(pathToFileURL(join(root, 'packages/server/dist/storage/open.js')).href);
  const { migrations } = await import(pathToFileURL(join(root, 'packages/server/dist/schema.js')).href);
  const P = await import(pathToFileURL(join(root, 'packages/protocol/dist/index.js')).href);
  const db = openDatabase(databaseUrl, { migrations });
  const t0 = Date.parse('2025-01-01T00:00:00.000Z');
  const started = performance.now();
  const COLS = ['org_id', 'seq', 'family', 'kind', 'entity_id', 'actor', 'at', 'payload', 'prev_hash', 'row_hash'];
  const one = `(${COLS.map(() => '?').join(', ')})`;
  try {
    await db.migrate();
    let done = 0;
    while (done < count) {
      const n = Math.min(perTransaction, count - done);
      await db.write(async (tx) => {
        const head = await tx.get(`SELECT seq, row_hash FROM org_heads WHERE org_id = ?${db.caps.forUpdate}`, [orgId]);
        let seq = Number(head?.seq ?? 0);
        let prev = head?.row_hash ?? '';
        for (let at = 0; at < n; at += chunk) {
          const params = [];
          const m = Math.min(chunk, n - at);
          for (let k = 0; k < m; k += 1) {
            const e = benchEvent(done + at + k, t0);
            seq += 1;
            const row = { ...e, seq };
            const payload = P.canonicalJson(e.payload);
            const hash = P.sha256Hex(P.rowHashInputWithPayload(prev, row, payload));
            params.push(orgId, seq, row.family, row.kind, row.entity_id, row.actor, row.at, payload, prev, hash);
            prev = hash;
          }
          await tx.run(`INSERT INTO events (${COLS.join(', ')}) VALUES ${Array.from({ length: m }, () => one).join(', ')}`, params);
        }
        if (head) await tx.run('UPDATE org_heads SET seq = ?, row_hash = ? WHERE org_id = ?', [seq, prev, orgId]);
        else await tx.run('INSERT INTO org_heads (org_id, seq, row_hash) VALUES (?, ?, ?)', [orgId, seq, prev]);
      });
      done += n;
    }
    if (db.caps.engine === 'postgres') await db.reader.run('ANALYZE events');
    const total = await db.reader.get('SELECT COUNT(*) AS n, MAX(seq) AS head FROM events WHERE org_id = ?', [orgId]);
    return { seedSeconds: (performance.now() - started) / 1000, totalEvents: Number(total.n), headSeq: Number(total.head) };
  } finally {
    await db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Paging over HTTP with the server's memory sampled

/**
 * Page the whole ledger with one client, sequentially, at `limit` rows a page, following
 * nextCursor; every page is parsed and its rows must continue the chain (seq +1, prev_hash =
 * the previous row_hash), as an auditor's client would check before verifying. The server's RSS
 * is sampled every `sampleMs` on a timer of its own.
 */
/**
 * V8's old space in use in the server, from its /metrics (prom-client's default gauges): what the
 * heap retains, apart from the young generation whose size is configured (`npm start` flags).
 */
async function oldSpaceOf(server, metricsToken) {
  if (!metricsToken) return null;
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  const text = await res.text();
  const m = /^fd_nodejs_heap_space_size_used_bytes\{space="old"\} (\d+(?:\.\d+)?)/m.exec(text);
  return res.status === 200 && m ? Number(m[1]) : null;
}

export async function pageAll(
  server,
  key,
  { limit, expected, metricsToken = null, sampleMs = 100, mark = 100_000, checkpoints = [250_000, 500_000, 750_000] },
) {
  const oldStart = await oldSpaceOf(server, metricsToken);
  let oldAtMark = null;
  const samples = [];
  const sample = () => {
    const rss = rssOf(server.pid);
    if (rss !== null) samples.push(rss);
  };
  sample();
  const rssStart = samples[0] ?? null;
  const timer = setInterval(sample, sampleMs);
  const serverCpuBefore = cpuSecondsOf(server.pid);
  const clientCpuBefore = process.cpuUsage();
  let cursor = 0;
  let rows = 0;
  let pages = 0;
  let bytes = 0;
  let prevHash = '';
  let atMark = null;
  /** RSS after each checkpoint's rows: flat means these do not climb with the rows paged. */
  const along = [];
  const started = performance.now();
  try {
    for (;;) {
      const res = await fetch(`${server.url}/api/v1/events?cursor=${cursor}&limit=${limit}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET events answered ${res.status}: ${text.slice(0, 500)}`);
      bytes += Buffer.byteLength(text, 'utf8');
      const body = JSON.parse(text);
      for (const e of body.events) {
        if (e.seq !== cursor + 1 || e.prev_hash !== prevHash)
          throw new Error(`events page after ${cursor} does not continue the chain at seq ${e.seq}`);
        cursor = e.seq;
        prevHash = e.row_hash;
      }
      if (body.nextCursor !== cursor) throw new Error(`nextCursor ${body.nextCursor} is not the last seq ${cursor}`);
      rows += body.events.length;
      pages += 1;
      if (atMark === null && rows >= mark) {
        sample();
        atMark = {
          rows,
          seconds: (performance.now() - started) / 1000,
          rss: samples.at(-1) ?? null,
          peak: samples.length ? Math.max(...samples) : null,
        };
        oldAtMark = await oldSpaceOf(server, metricsToken);
      }
      if (along.length < checkpoints.length && rows >= checkpoints[along.length]) {
        sample();
        along.push({ rows, rss: samples.at(-1) ?? null });
      }
      if (body.events.length < limit) break;
    }
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - started) / 1000;
  const serverCpuAfter = cpuSecondsOf(server.pid);
  const clientCpu = process.cpuUsage(clientCpuBefore);
  sample();
  const oldEnd = await oldSpaceOf(server, metricsToken);
  if (rows !== expected) throw new Error(`paged ${rows} events, the organisation holds ${expected}`);
  return {
    rows,
    pages,
    limit,
    seconds,
    rowsPerSec: rows / seconds,
    // CPU per row is steadier than rows/s on a shared machine: what each side spends, not waits.
    serverCpuUsPerRow: serverCpuBefore === null || serverCpuAfter === null ? null : ((serverCpuAfter - serverCpuBefore) * 1e6) / rows,
    clientCpuUsPerRow: (clientCpu.user + clientCpu.system) / rows,
    mbPerSec: bytes / 1e6 / seconds,
    bytesPerRow: bytes / rows,
    rssStart,
    rssAtMark: atMark?.rss ?? null,
    peakAtMark: atMark?.peak ?? null,
    markRows: atMark?.rows ?? null,
    rowsPerSecAtMark: atMark ? atMark.rows / atMark.seconds : null,
    rssAlong: along,
    rssPeak: samples.length ? Math.max(...samples) : null,
    rssEnd: samples.at(-1) ?? null,
    samples: samples.length,
    oldSpace: { start: oldStart, atMark: oldAtMark, end: oldEnd },
  };
}

/**
 * One engine: fresh database, `org create`, seed `events` chained events, `finance-desk verify`,
 * start `serve`, page everything at the largest page the API allows. `ctx` carries run.mjs's
 * helpers (storage, server, CLI) so both benchmarks start the server the same way.
 */
export async function pagingBench(scenario, events, ctx) {
  const { root, prepareStorage, serverEnv, freePort, startServer, runCli, pendingCleanup, log, orgSlug } = ctx;
  const P = await import(pathToFileURL(join(root, 'packages/protocol/dist/index.js')).href);
  const limit = P.limits.eventsPageRowsMax;
  const storage = await prepareStorage(scenario);
  const dropStorage = () => storage.cleanup();
  pendingCleanup.add(dropStorage);
  const metricsToken = nodeCrypto.randomBytes(24).toString('hex');
  const env = { ...serverEnv(storage, await freePort()), METRICS_TOKEN: metricsToken };
  let server = null;
  try {
    const created = JSON.parse(await runCli(['org', 'create', '--name', 'Bench', '--slug', orgSlug, '--json'], env));
    log(`events paging: ${scenario.label}, seeding ${events.toLocaleString('en-US')} events`);
    const seeded = await seedEvents(root, storage.databaseUrl, created.orgId, events);
    const verifyStarted = performance.now();
    const verdict = JSON.parse(await runCli(['verify', '--org', orgSlug, '--json'], env));
    const verifySeconds = (performance.now() - verifyStarted) / 1000;
    if (!verdict.ok || verdict.head?.seq !== seeded.headSeq)
      throw new Error(`finance-desk verify over the seeded ledger: ${JSON.stringify(verdict)}`);
    server = await startServer(env, Number(env.PORT));
    pendingCleanup.add(server.stop);
    // Warm-up: a few pages, so that the first figures are not the JIT's.
    for (let c = 0; c < 20 * limit; c += limit) {
      const res = await fetch(`${server.url}/api/v1/events?cursor=${c}&limit=${limit}`, {
        headers: { authorization: `Bearer ${created.keys.observer}` },
      });
      await res.arrayBuffer();
    }
    await sleep(200);
    const paged = await pageAll(server, created.keys.observer, { limit, expected: seeded.totalEvents, metricsToken });
    await server.stop();
    pendingCleanup.delete(server.stop);
    server = null;
    return { scenario, events, ...seeded, verifySeconds, verifyRowsPerSec: seeded.totalEvents / verifySeconds, ...paged };
  } finally {
    if (server) await server.stop();
    await storage.cleanup();
    pendingCleanup.delete(dropStorage);
  }
}

const mib = (b) => (b === null || b === undefined ? '—' : `${(b / 2 ** 20).toFixed(0)} MiB`);

export function pagingTable(results, { table, int }) {
  if (results.length === 0) return '_Not run (BENCH_EVENTS=0)._';
  return table(
    [
      'Engine',
      'events',
      'page (rows)',
      'rows/s over HTTP',
      `rows/s, first ${int(results[0].markRows ?? 100_000)}`,
      'MB/s',
      'server CPU µs/row',
      'client CPU µs/row',
      'server RSS: start',
      `after ${int(results[0].markRows ?? 100_000)} rows (peak so far)`,
      'after 250k / 500k / 750k rows',
      'peak, whole run',
      'end',
      `V8 old space in use: start / after ${int(results[0].markRows ?? 100_000)} rows / end`,
      '`verify --org` rows/s',
      'seeded in',
    ],
    results.map((r) => [
      r.scenario.label,
      int(r.rows),
      int(r.limit),
      `**${int(r.rowsPerSec)}**`,
      r.rowsPerSecAtMark === null ? '—' : int(r.rowsPerSecAtMark),
      r.mbPerSec.toFixed(1),
      r.serverCpuUsPerRow === null ? '—' : r.serverCpuUsPerRow.toFixed(2),
      r.clientCpuUsPerRow.toFixed(2),
      mib(r.rssStart),
      `${mib(r.rssAtMark)} (${mib(r.peakAtMark)})`,
      r.rssAlong.length ? r.rssAlong.map((a) => mib(a.rss)).join(' / ') : '—',
      mib(r.rssPeak),
      mib(r.rssEnd),
      [r.oldSpace.start, r.oldSpace.atMark, r.oldSpace.end].map(mib).join(' / '),
      int(r.verifyRowsPerSec),
      `${r.seedSeconds.toFixed(1)} s`,
    ]),
  );
}

export function pagingGoal(results, { int }) {
  if (results.length === 0) return '';
  return results
    .map((r) => {
      const fast = r.rowsPerSec >= 100_000;
      // Flat: the peak over the whole ledger is not above the peak after the first mark by more
      // than a small allowance for the heap settling (the events paged grew ten-fold).
      const speed = `${r.scenario.label}: ≥ 100 000 rows/s **${fast ? 'met' : 'not met'}** (${int(r.rowsPerSec)})`;
      if (r.rssPeak === null || r.peakAtMark === null)
        return `${speed}; memory flat: not measured (no /proc, or fewer than 100 000 events).`;
      const flat = r.rssPeak <= r.peakAtMark * 1.1 + 16 * 2 ** 20;
      const old =
        r.oldSpace.end === null
          ? ''
          : `; V8 old space ${mib(r.oldSpace.atMark)} after ${int(r.markRows)} rows, ${mib(r.oldSpace.end)} at the end`;
      return `${speed}; memory flat **${flat ? 'yes' : 'no'}** (RSS peak ${mib(r.rssPeak)} over ${int(r.rows)} rows against ${mib(r.peakAtMark)} after ${int(r.markRows)}; ${mib(r.rssEnd)} at the end${old}).`;
    })
    .join('\n');
}

export function pagingMethod(events) {
  return `- Events paging: an organisation is seeded with ${events.toLocaleString('en-US')} chained invoice-draft events directly
  through the compiled server's storage (multi-row INSERTs, 50 000 rows per transaction, each
  chained with the protocol's \`rowHashInputWithPayload\` and \`sha256Hex\`), and \`finance-desk verify --org\`
  must pass over them (its rows/s are shown). Then \`finance-desk serve\` starts and one client pages
  \`GET /api/v1/events\` sequentially from cursor 0 at the largest page the API allows, following
  \`nextCursor\`, parsing every page and checking that each row continues the chain (seq + 1,
  prev_hash = the previous row_hash), after 20 warm-up pages. The server's RSS (\`VmRSS\` of
  /proc/<pid>/status) is sampled every 100 ms: at the start, after the first 100 000 rows (with the
  peak so far), the peak over the whole run, and at the end. Memory is flat when the whole run's
  peak is not above the peak after 100 000 rows (10 % + 16 MiB allowed for the heap settling).
  V8's old space in use (what the heap keeps beyond the young generation; the server's \`/metrics\`,
  read at the start, after 100 000 rows and at the end) is shown beside it. The server runs with
  \`npm start\`'s flags, which fix the young generation at its size from the start
  (\`--min-semi-space-size\` = \`--max-semi-space-size\`, docs/decisions.md).`;
}
