// The write path's own limit on SQLite FULL: bench/limit.mjs as a child process (node:http, one
// transaction per event-loop turn chaining every queued write), its write route against its bare
// route in alternating slices with the single-process scenario's autocannon settings. The
// service's invoiceDraft and billCapture on SQLite FULL, measured in the same run by the
// single-process scenario (which `limit` pulls in), are divided by its writes/s.
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { newTally, only200, requestOptions, slice, summarise } from '../harness/load.mjs';
import { cpu, int, log, ms, notRunReason, pct, table } from '../harness/report.mjs';
import { SERVE_NODE_FLAGS, freePort, pendingCleanup, startServer } from '../harness/server.mjs';
import { ROOT } from '../harness/settings.mjs';
import { checkChain } from '../limit.mjs';

export const name = 'limit';

/** Its BENCH_SCENARIOS name. */
export const ID = 'limit';

const SCENARIO = { id: ID, label: 'Limit server, SQLite synchronous=FULL', engine: 'sqlite' };

/** The same small body on both routes: what a write needs (payee, integer cents). */
export const LIMIT_BODY = JSON.stringify({ payee: 'Bench Pty Ltd', totalCents: 123456 });

const ROUTES = [
  { id: 'bare', label: 'POST /bare', path: '/bare', auth: false, body: LIMIT_BODY },
  { id: 'write', label: 'POST /write', path: '/write', auth: false, body: LIMIT_BODY },
];

/** The service's figures it is compared with: SQLite FULL from the single-process scenario of the same run. */
const serviceOf = (outcomes) => outcomes['single-process']?.get('sqlite-full')?.results ?? null;

export async function run(settings) {
  const dir = mkdtempSync(join(settings.tmpRoot, 'fd-bench-limit-'));
  const file = join(dir, 'limit.db');
  const removeDir = async () => rmSync(dir, { recursive: true, force: true });
  pendingCleanup.add(removeDir);
  let server = null;
  try {
    const port = await freePort();
    server = await startServer({ ...process.env, LIMIT_DB: file, PORT: String(port) }, port, [
      ...SERVE_NODE_FLAGS,
      join(ROOT, 'bench/limit.mjs'),
    ]);
    const stopServer = server.stop;
    pendingCleanup.add(stopServer);
    const tallies = new Map(ROUTES.map((t) => [t.id, newTally()]));
    const opts = new Map(ROUTES.map((t) => [t.id, requestOptions(server, t, null, settings)]));
    if (settings.warmupSeconds > 0) {
      log(`${SCENARIO.label}: warm-up, ${settings.warmupSeconds} s per route`);
      for (const t of ROUTES) await slice(server, opts.get(t.id), tallies.get(t.id), settings.warmupSeconds, false);
    }
    const sliceSeconds = settings.seconds / settings.rounds;
    log(`${SCENARIO.label}: measuring, ${settings.seconds} s per route in ${settings.rounds} alternating slice(s)`);
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
    const problems = checkChain(file, acknowledged, slices * settings.connections * settings.pipelining);
    const checks = {
      writeAll200: only200(w),
      bareAll200: only200(results.bare),
      chainOk: problems.length === 0,
      cleanExit: exit.code === 0 || exit.signal === 'SIGTERM',
    };
    log(
      `${SCENARIO.label}: bare ${int(results.bare.reqPerSec)} req/s, write ${int(w.reqPerSec)} req/s; ` +
        (problems.length === 0 ? 'chain ok' : `FAILED: ${problems.join('; ')}`),
    );
    return { results, acknowledged, problems, checks, serverTail };
  } finally {
    if (server) await server.stop();
    await removeDir();
    pendingCleanup.delete(removeDir);
  }
}

function checkText(o) {
  const failed = Object.entries(o.checks)
    .filter(([, ok]) => !ok)
    .map(([k]) => k);
  return failed.length === 0
    ? `all 200; chain gapless, rehashed, ≥ ${int(o.acknowledged)} acknowledged`
    : `**FAILED: ${failed.join(', ')}**`;
}

function limitTable(o, outcomes, settings) {
  if (!o) return `_${notRunReason(SCENARIO, settings)}._`;
  const s = serviceOf(outcomes);
  const ratio = (r) => (s ? `**${pct(r.reqPerSec / o.results.write.reqPerSec)}**` : '—');
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
    [
      [
        SCENARIO.label,
        int(o.results.bare.reqPerSec),
        int(o.results.write.reqPerSec),
        pct(o.results.write.reqPerSec / o.results.bare.reqPerSec),
        s ? int(s.write.reqPerSec) : '—',
        s ? ratio(s.write) : '—',
        s ? int(s.bill.reqPerSec) : '—',
        s ? ratio(s.bill) : '—',
        checkText(o),
      ],
    ],
  );
}

function detailTable(o) {
  return table(
    ['Route', 'req/s (mean)', 'p50 ms', 'p99 ms', 'server CPU', 'server CPU µs/req', 'load-generator CPU'],
    ROUTES.map((t) => {
      if (!o) return [t.label, '—', '—', '—', '—', '—', '—'];
      const r = o.results[t.id];
      return [
        t.label,
        int(r.reqPerSec),
        ms(r.p50),
        ms(r.p99),
        cpu(r.serverCpu),
        r.cpuMicrosPerReq === null ? '—' : r.cpuMicrosPerReq.toFixed(1),
        cpu(r.loaderCpu),
      ];
    }),
  );
}

/** Its bullet of the document's Method section. */
export function method(_outcome, { settings: s }) {
  return `- **The write path's limit** (\`${ID}\`, SQLite \`synchronous=FULL\`): \`bench/limit.mjs\` as a child process with the same node
  flags, on a fresh SQLite file (WAL) — a \`node:http\` server, no framework, no auth. \`POST /write\` with
  \`${LIMIT_BODY}\` (${Buffer.byteLength(LIMIT_BODY)} bytes) is parsed, checked (payee a string,
  totalCents a whole number) and queued; once per event-loop turn one transaction inserts every queued
  request's domain row and its event (SHA-256 over the previous hash and the row as sorted-keys JSON),
  commits (one fsync), and only then answers each request with its seq. \`POST /bare\` parses the same
  body and echoes it. Same autocannon settings and alternating slices as above (${s.warmupSeconds} s warm-up, ${s.seconds} s per
  route in ${s.rounds} slice(s)). Afterwards the chain is rehashed from the stored bytes: gapless from seq 1,
  each event the canonical JSON of its domain row, holding every acknowledged write (and at most one
  more per connection per slice, in flight when a slice ended). **÷ limit** divides the service's
  SQLite FULL invoiceDraft and billCapture req/s (the single-process scenario, same run) by its writes/s.`;
}

/** Its section: a subsection of the single-process one, which it compares with. */
export function render(outcome, { settings, outcomes }) {
  return `### The write path's own limit (SQLite FULL)

${limitTable(outcome, outcomes, settings)}

${detailTable(outcome)}`;
}

/** Its bullet of "How to read this". */
export function notes() {
  return `- **÷ limit** (SQLite FULL) is the share of the least a durable chained write costs in this stack —
  HTTP, JSON, one group commit per event-loop turn, the chain's hash — that the service keeps with
  its framework, auth, validation, idempotency and domain rules. The limit's own write ÷ bare shows
  what the fsync and the chain cost on their own on this machine.`;
}

/** The tables printed on stdout at the end of the run (none when it did not run). */
export function tables(outcome, { settings, outcomes }) {
  return outcome ? [limitTable(outcome, outcomes, settings), detailTable(outcome)] : [];
}

/** What to log when a check failed (nothing when all passed). */
export function failures(outcome) {
  if (!outcome || Object.values(outcome.checks).every(Boolean)) return [];
  return [
    `${SCENARIO.label} failed checks: ${JSON.stringify(outcome.checks)} ${outcome.problems.join('; ')}`,
    `write status codes: ${JSON.stringify(outcome.results.write.statusCodes)}; server output tail:\n${outcome.serverTail}`,
  ];
}
