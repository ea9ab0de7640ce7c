// The write path's own limit: bench/limit.mjs on SQLite FULL (node:http, one transaction per
// event-loop turn chaining every queued write) and, with a PostgreSQL URL, its twin
// bench/limit-pg.mjs (the service's group commit under the head's row lock), each as a child
// process, its write route against its bare route in alternating slices with the single-process
// scenario's autocannon settings. The service's invoiceDraft and billCapture on the same engine,
// measured in the same run by the single-process scenario (which `limit` pulls in), are divided by
// its writes/s.
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { newTally, only200, requestOptions, slice, summarise } from '../harness/load.mjs';
import { cpu, int, log, ms, notRunReason, pct, table } from '../harness/report.mjs';
import { POSTGRES, SERVE_NODE_FLAGS, freePort, pendingCleanup, prepareStorage, startServer } from '../harness/server.mjs';
import { ROOT } from '../harness/settings.mjs';
import { checkChainAt } from '../limit-pg.mjs';
import { checkChain } from '../limit.mjs';

export const name = 'limit';

/** Its BENCH_SCENARIOS name. */
export const ID = 'limit';

/** The engines, in the document's order; `service` is the single-process engine it is compared with. */
export const ENGINES = [
  {
    id: 'sqlite-full',
    label: 'Limit server, SQLite synchronous=FULL',
    engine: 'sqlite',
    service: 'sqlite-full',
    script: 'bench/limit.mjs',
  },
  { id: 'postgres', label: 'Limit server, PostgreSQL', engine: 'postgres', service: 'postgres', script: 'bench/limit-pg.mjs' },
];

/** The same small body on both routes: what a write needs (payee, integer cents). */
export const LIMIT_BODY = JSON.stringify({ payee: 'Bench Pty Ltd', totalCents: 123456 });

const ROUTES = [
  { id: 'bare', label: 'POST /bare', path: '/bare', auth: false, body: LIMIT_BODY },
  { id: 'write', label: 'POST /write', path: '/write', auth: false, body: LIMIT_BODY },
];

/** The service's figures it is compared with: the single-process scenario's engine of the same run. */
const serviceOf = (outcomes, engine) => outcomes['single-process']?.get(engine.service)?.results ?? null;

/**
 * The limit server's storage: a fresh SQLite file, or a scratch PostgreSQL database (dropped at
 * the end); `env` starts the child on it, `check` runs the chain check afterwards.
 */
async function limitStorage(engine, settings) {
  if (engine.engine === 'sqlite') {
    const dir = mkdtempSync(join(settings.tmpRoot, 'fd-bench-limit-'));
    const file = join(dir, 'limit.db');
    return {
      env: { LIMIT_DB: file },
      check: async (acknowledged, slack) => checkChain(file, acknowledged, slack),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const storage = await prepareStorage(POSTGRES, settings);
  return {
    env: { LIMIT_PG_URL: storage.databaseUrl },
    check: (acknowledged, slack) => checkChainAt(storage.databaseUrl, acknowledged, slack),
    cleanup: () => storage.cleanup(),
  };
}

async function runEngine(engine, settings) {
  const storage = await limitStorage(engine, settings);
  const removeStorage = () => storage.cleanup();
  pendingCleanup.add(removeStorage);
  let server = null;
  try {
    const port = await freePort();
    server = await startServer({ ...process.env, ...storage.env, PORT: String(port) }, port, [
      ...SERVE_NODE_FLAGS,
      join(ROOT, engine.script),
    ]);
    const stopServer = server.stop;
    pendingCleanup.add(stopServer);
    const tallies = new Map(ROUTES.map((t) => [t.id, newTally()]));
    const opts = new Map(ROUTES.map((t) => [t.id, requestOptions(server, t, null, settings)]));
    if (settings.warmupSeconds > 0) {
      log(`${engine.label}: warm-up, ${settings.warmupSeconds} s per route`);
      for (const t of ROUTES) await slice(server, opts.get(t.id), tallies.get(t.id), settings.warmupSeconds, false);
    }
    const sliceSeconds = settings.seconds / settings.rounds;
    log(`${engine.label}: measuring, ${settings.seconds} s per route in ${settings.rounds} alternating slice(s)`);
    for (let round = 0; round < settings.rounds; round += 1) {
      const order = round % 2 === 0 ? ROUTES : [...ROUTES].reverse();
      for (const t of order) await slice(server, opts.get(t.id), tallies.get(t.id), sliceSeconds, true);
    }
    const results = Object.fromEntries([...tallies].map(([id, t]) => [id, summarise(t)]));
    const exit = await server.stop();
    pendingCleanup.delete(stopServer);
    const serverTail = server.output();
    server = null;
    const w = results.write;
    const acknowledged = w.ok + w.warm.ok;
    // A request in flight when autocannon stops a slice may commit without being counted: at most
    // one per connection (times pipelining) per slice of the write route.
    const slices = (settings.warmupSeconds > 0 ? 1 : 0) + settings.rounds;
    const problems = await storage.check(acknowledged, slices * settings.connections * settings.pipelining);
    const checks = {
      writeAll200: only200(w),
      bareAll200: only200(results.bare),
      chainOk: problems.length === 0,
      cleanExit: exit.code === 0 || exit.signal === 'SIGTERM',
    };
    log(
      `${engine.label}: bare ${int(results.bare.reqPerSec)} req/s, write ${int(w.reqPerSec)} req/s; ` +
        (problems.length === 0 ? 'chain ok' : `FAILED: ${problems.join('; ')}`),
    );
    return { engine, results, acknowledged, problems, checks, serverTail };
  } finally {
    if (server) await server.stop();
    await removeStorage();
    pendingCleanup.delete(removeStorage);
  }
}

/** `selection`: the ENGINES to run. The outcome maps each engine's id to its figures. */
export async function run(settings, selection) {
  const outcomes = new Map();
  for (const engine of selection) outcomes.set(engine.id, await runEngine(engine, settings));
  return outcomes;
}

function checkText(o) {
  const failed = Object.entries(o.checks)
    .filter(([, ok]) => !ok)
    .map(([k]) => k);
  return failed.length === 0
    ? `all 200; chain gapless, rehashed, ≥ ${int(o.acknowledged)} acknowledged`
    : `**FAILED: ${failed.join(', ')}**`;
}

function limitTable(outcome, outcomes, settings) {
  return table(
    [
      'Scenario',
      'limit bare req/s',
      'limit write req/s',
      'limit write ÷ bare',
      'invoiceDraft req/s',
      'invoiceDraft ÷ limit',
      'billCapture req/s',
      'billCapture ÷ limit',
      'Checks',
    ],
    ENGINES.map((engine) => {
      const o = outcome?.get(engine.id);
      if (!o) return [engine.label, '—', '—', '—', '—', '—', '—', '—', notRunReason({ ...engine, id: ID }, settings)];
      const s = serviceOf(outcomes, engine);
      const ratio = (r) => (s ? `**${pct(r.reqPerSec / o.results.write.reqPerSec)}**` : '—');
      return [
        engine.label,
        int(o.results.bare.reqPerSec),
        int(o.results.write.reqPerSec),
        pct(o.results.write.reqPerSec / o.results.bare.reqPerSec),
        s ? int(s.write.reqPerSec) : '—',
        s ? ratio(s.write) : '—',
        s ? int(s.bill.reqPerSec) : '—',
        s ? ratio(s.bill) : '—',
        checkText(o),
      ];
    }),
  );
}

function detailTable(outcome) {
  return table(
    ['Engine', 'Route', 'req/s (mean)', 'p50 ms', 'p99 ms', 'server CPU', 'server CPU µs/req', 'load-generator CPU'],
    ENGINES.flatMap((engine) =>
      ROUTES.map((t) => {
        const o = outcome?.get(engine.id);
        if (!o) return [engine.label, t.label, '—', '—', '—', '—', '—', '—'];
        const r = o.results[t.id];
        return [
          engine.label,
          t.label,
          int(r.reqPerSec),
          ms(r.p50),
          ms(r.p99),
          cpu(r.serverCpu),
          r.cpuMicrosPerReq === null ? '—' : r.cpuMicrosPerReq.toFixed(1),
          cpu(r.loaderCpu),
        ];
      }),
    ),
  );
}

/** Its bullet of the document's Method section. */
export function method(_outcome, { settings: s }) {
  return `- **The write path's limit** (\`${ID}\`, SQLite \`synchronous=FULL\`, and PostgreSQL when a URL is given): \`bench/limit.mjs\` as a
  child process with the same node flags, on a fresh SQLite file (WAL) — a \`node:http\` server, no framework, no auth. \`POST /write\` with
  \`${LIMIT_BODY}\` (${Buffer.byteLength(LIMIT_BODY)} bytes) is parsed, checked (payee a string,
  totalCents a whole number) and queued; once per event-loop turn one transaction inserts every queued
  request's domain row and its event (SHA-256 over the previous hash and the row as sorted-keys JSON),
  commits (one fsync), and only then answers each request with its seq. \`POST /bare\` parses the same
  body and echoes it. Its PostgreSQL twin, \`bench/limit-pg.mjs\` on a scratch database, has the same
  routes and chain, batched as the service batches on PostgreSQL: the first write goes at once, those
  arriving meanwhile form the next batch, taken once it holds the organisation's head row lock; per
  batch one pooled connection sends \`BEGIN; SELECT … FOR UPDATE\` (one round trip), one prepared
  statement writing the domain rows and events set-based (\`unnest\`) with the head's UPDATE, and
  COMMIT. Same autocannon settings and alternating slices as above (${s.warmupSeconds} s warm-up, ${s.seconds} s per
  route in ${s.rounds} slice(s)). Afterwards the chain is rehashed from the stored bytes: gapless from seq 1,
  each event the canonical JSON of its domain row, holding every acknowledged write (and at most one
  more per connection per slice, in flight when a slice ended). **÷ limit** divides the service's
  invoiceDraft and billCapture req/s on the same engine (the single-process scenario, same run) by its writes/s.`;
}

/** Its section: a subsection of the single-process one, which it compares with. */
export function render(outcome, { settings, outcomes }) {
  return `### The write path's own limit

${limitTable(outcome, outcomes, settings)}

${detailTable(outcome)}`;
}

/** Its bullet of "How to read this". */
export function notes() {
  return `- **÷ limit** is the share of the least a durable chained write costs in this stack on that engine —
  HTTP, JSON, one group commit per batch, the chain's hash — that the service keeps with
  its framework, auth, validation, idempotency and domain rules. The limit's own write ÷ bare shows
  what the commit and the chain cost on their own on this machine (an fsync on SQLite FULL; three
  round trips per batch and PostgreSQL's commit on PostgreSQL).`;
}

/** The tables printed on stdout at the end of the run (none when it did not run). */
export function tables(outcome, { settings, outcomes }) {
  return outcome ? [limitTable(outcome, outcomes, settings), detailTable(outcome)] : [];
}

/** What to log when a check failed (nothing when all passed). */
export function failures(outcome) {
  if (!outcome) return [];
  return [...outcome.values()].flatMap((o) =>
    Object.values(o.checks).every(Boolean)
      ? []
      : [
          `${o.engine.label} failed checks: ${JSON.stringify(o.checks)} ${o.problems.join('; ')}`,
          `write status codes: ${JSON.stringify(o.results.write.statusCodes)}; server output tail:\n${o.serverTail}`,
        ],
  );
}
