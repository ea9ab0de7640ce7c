// Single-process write throughput: one `serve` process per storage engine, the bare route against
// invoiceDraft (the goals' ratio) and billCapture, in alternating slices; SQLite FULL also at half
// load, paced. Afterwards `finance-desk verify` must find every acknowledged write in the chain.
import os from 'node:os';
import {
  BILL_BODY,
  BODY,
  HALF_LOAD,
  TARGETS,
  connectionGroups,
  newLedger,
  newTally,
  only200,
  pacedGroups,
  requestOptions,
  slice,
  summarise,
  timedPhase,
} from '../harness/load.mjs';
import { cpu, failedChecks, int, log, ms, notRunReason, pct, table } from '../harness/report.mjs';
import {
  HIGH_RATE,
  ORG_SLUG,
  SERVE_NODE_FLAGS,
  freePort,
  pendingCleanup,
  prepareStorage,
  runCli,
  serverEnv,
  startServer,
  verifyOrg,
} from '../harness/server.mjs';

export const name = 'single-process';

/** Fixed list so that the generated document keeps the same rows from run to run; the ids are BENCH_SCENARIOS names. */
export const ENGINES = [
  // halfLoad: after the maximum, invoiceDraft again at half of it, paced (the half-load latency goal).
  { id: 'sqlite-full', label: 'SQLite, synchronous=FULL', engine: 'sqlite', synchronous: 'FULL', halfLoad: true },
  { id: 'sqlite-normal', label: 'SQLite, synchronous=NORMAL', engine: 'sqlite', synchronous: 'NORMAL' },
  { id: 'postgres', label: 'PostgreSQL', engine: 'postgres' },
];

/**
 * Warm the routes up, then alternate them in short slices (bare, write, bill, bill, write, bare, …) so that
 * a change in the machine's background load during the run weighs on both sides of the ratio.
 */
async function measureRoutes(server, agentKey, label, settings) {
  const tallies = new Map(TARGETS.map((t) => [t.id, newTally()]));
  const opts = new Map(TARGETS.map((t) => [t.id, requestOptions(server, t, agentKey, settings)]));
  if (settings.warmupSeconds > 0) {
    log(`${label}: warm-up, ${settings.warmupSeconds} s per route`);
    for (const t of TARGETS) await slice(server, opts.get(t.id), tallies.get(t.id), settings.warmupSeconds, false);
  }
  const sliceSeconds = settings.seconds / settings.rounds;
  log(`${label}: measuring, ${settings.seconds} s per route in ${settings.rounds} alternating slice(s)`);
  for (let round = 0; round < settings.rounds; round += 1) {
    const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse();
    for (const t of order) await slice(server, opts.get(t.id), tallies.get(t.id), sliceSeconds, true);
  }
  return Object.fromEntries([...tallies].map(([id, t]) => [id, summarise(t)]));
}

/** One engine: fresh database, `org create`, `serve`, the routes (and the half load), `verify`. */
async function runEngine(scenario, settings) {
  const storage = await prepareStorage(scenario, settings);
  const dropStorage = () => storage.cleanup();
  pendingCleanup.add(dropStorage);
  const port = await freePort();
  const env = serverEnv(storage, port);
  let server = null;
  try {
    const created = JSON.parse(await runCli(['org', 'create', '--name', 'Bench', '--slug', ORG_SLUG, '--json'], env));
    const before = JSON.parse(await runCli(['verify', '--org', ORG_SLUG, '--json'], env));
    server = await startServer(env, port);
    const stopServer = server.stop;
    pendingCleanup.add(stopServer);
    const results = await measureRoutes(server, created.keys.agent, scenario.label, settings);
    let halfAcked = 0;
    if (scenario.halfLoad) {
      // The half-load goal: p99 at half the maximum just measured, paced (see pacedGroups). The bare
      // route first at the same pace: the latency floor of HTTP and the load generator on this
      // machine, so that a p99 above the goal can be told from a busy machine.
      const rate = Math.max(1, Math.round(HALF_LOAD * results.write.reqPerSec));
      const ledger = newLedger([ORG_SLUG]);
      const pace = async (target) => {
        log(
          `${scenario.label}: ${target.label} at half load, ${int(rate)} req/s paced over ${settings.connections} connections, ${settings.seconds} s`,
        );
        const tally = newTally();
        const paced = await timedPhase([server], tally, true, (latencies) =>
          pacedGroups({
            servers: [server],
            orgs: [{ slug: ORG_SLUG, agent: created.keys.agent }],
            groups: connectionGroups(1, 1, settings.connections),
            target,
            rate,
            seconds: settings.seconds,
            latencies,
            ledger,
          }),
        );
        return { ...summarise(tally), offered: paced.offered, maxLagMs: paced.maxLagMs };
      };
      results.halfBare = await pace(TARGETS.find((t) => t.id === 'bare'));
      results.half = await pace(TARGETS.find((t) => t.id === 'write'));
      halfAcked = ledger.get(ORG_SLUG).acked;
    }
    const exit = await server.stop();
    pendingCleanup.delete(stopServer);
    const serverTail = server.output();
    server = null;
    const verdict = await verifyOrg(env, ORG_SLUG);
    const w = results.write;
    const b = results.bill;
    // Acknowledged writes (both write routes), warm-up and the half-load run (which drains, so
    // counts exactly) included.
    const written = w.ok + w.warm.ok + b.ok + b.warm.ok + halfAcked;
    const writeRoutes = 2;
    const appended = verdict.ok ? verdict.rows - before.rows : null;
    const slices = (settings.warmupSeconds > 0 ? 1 : 0) + settings.rounds;
    const checks = {
      writeAll200: only200(w),
      billAll200: only200(b),
      bareAll200: only200(results.bare),
      ...(results.half ? { halfLoadAll200: only200(results.half) && only200(results.halfBare) } : {}),
      chainOk: verdict.ok === true,
      // Every acknowledged write is in the chain. A request in flight when autocannon stops a slice
      // may commit without being counted, so the chain may hold up to one extra per connection
      // (times pipelining) per slice, never fewer.
      chainCoversWrites:
        appended !== null && appended >= written && appended - written <= writeRoutes * slices * settings.connections * settings.pipelining,
      cleanExit: exit.code === 0 || exit.signal === 'SIGTERM',
    };
    return { scenario, results, verdict, appended, written, checks, serverTail };
  } finally {
    if (server) await server.stop();
    await storage.cleanup();
    pendingCleanup.delete(dropStorage);
  }
}

/** `selection`: the ENGINES to run, in order. The outcome maps each engine's id to its figures. */
export async function run(settings, selection) {
  const outcomes = new Map();
  for (const scenario of selection) {
    const outcome = await runEngine(scenario, settings);
    outcomes.set(scenario.id, outcome);
    const { bare, write } = outcome.results;
    log(
      `${scenario.label}: bare ${int(bare.reqPerSec)} req/s, invoiceDraft ${int(write.reqPerSec)} req/s, ` +
        `ratio ${pct(write.reqPerSec / bare.reqPerSec)}; ${checkText(outcome)}`,
    );
  }
  return outcomes;
}

// ---------------------------------------------------------------------------------------------
// Report

function checkText(o) {
  const failed = failedChecks(o.checks);
  return failed.length === 0 ? 'all 200, chain ok' : `**FAILED: ${failed.join(', ')}**`;
}

function ratioTable(outcomes, settings) {
  return table(
    [
      'Scenario',
      'bare req/s',
      'invoiceDraft req/s',
      'write ÷ bare',
      'write ÷ bare by CPU cost',
      'billCapture req/s',
      'bill ÷ bare',
      'Checks',
    ],
    ENGINES.map((s) => {
      const o = outcomes.get(s.id);
      if (!o) return [s.label, '—', '—', '—', '—', '—', '—', notRunReason(s, settings)];
      const { bare, write, bill } = o.results;
      const cpuRatio = bare.cpuMicrosPerReq && write.cpuMicrosPerReq ? pct(bare.cpuMicrosPerReq / write.cpuMicrosPerReq) : '—';
      return [
        s.label,
        int(bare.reqPerSec),
        int(write.reqPerSec),
        `**${pct(write.reqPerSec / bare.reqPerSec)}**`,
        cpuRatio,
        int(bill.reqPerSec),
        pct(bill.reqPerSec / bare.reqPerSec),
        checkText(o),
      ];
    }),
  );
}

function detailTable(outcomes) {
  const rows = [];
  for (const s of ENGINES) {
    const o = outcomes.get(s.id);
    for (const t of TARGETS) {
      if (!o) {
        rows.push([s.label, t.label, '—', '—', '—', '—', '—', '—', '—']);
        continue;
      }
      const r = o.results[t.id];
      rows.push([
        s.label,
        t.label,
        int(r.reqPerSec),
        ms(r.p50),
        ms(r.p99),
        `${int(r.non2xx + r.warm.non2xx)} / ${int(r.errors + r.warm.errors)}`,
        cpu(r.serverCpu),
        r.cpuMicrosPerReq === null ? '—' : r.cpuMicrosPerReq.toFixed(1),
        cpu(r.loaderCpu),
      ]);
    }
  }
  return table(
    ['Scenario', 'Route', 'req/s (mean)', 'p50 ms', 'p99 ms', 'non-2xx / errors', 'server CPU', 'server CPU µs/req', 'load-generator CPU'],
    rows,
  );
}

function chainTable(outcomes) {
  return table(
    ['Scenario', 'writes acknowledged', 'events appended', '`verify --org`'],
    ENGINES.map((s) => {
      const o = outcomes.get(s.id);
      if (!o) return [s.label, '—', '—', '—'];
      const v = o.verdict;
      const verdict = v.ok ? `ok, head seq ${v.head.seq}` : `**broken** ${v.reason ?? v.error ?? ''} at seq ${v.seq ?? '?'}`;
      return [s.label, int(o.written), o.appended === null ? '—' : int(o.appended), verdict];
    }),
  );
}

/** The single-process scenarios run again at half load. */
function halfLoadTable(outcomes, settings) {
  const rows = ENGINES.filter((s) => s.halfLoad).map((s) => {
    const h = outcomes.get(s.id)?.results.half;
    if (!h) return [s.label, '—', '—', '—', '—', '—', '—', '—', '—', notRunReason(s, settings)];
    const { write, halfBare: b } = outcomes.get(s.id).results;
    return [
      s.label,
      `${int(h.offered)} (${pct(h.offered / write.reqPerSec)} of ${int(write.reqPerSec)})`,
      int(h.reqPerSec),
      ms(h.p50),
      `**${ms(h.p99)}**`,
      cpu(h.serverCpu),
      cpu(h.loaderCpu),
      ms(b.p50),
      ms(b.p99),
      `${ms(h.maxLagMs)} / ${ms(b.maxLagMs)}`,
    ];
  });
  return table(
    [
      'Scenario',
      'offered req/s (share of the max above)',
      'invoiceDraft 2xx/s',
      'p50 ms',
      'p99 ms',
      'server CPU',
      'load-generator CPU',
      'bare route, same pace: p50 ms',
      'p99 ms',
      'latest send, ms (invoiceDraft / bare)',
    ],
    rows,
  );
}

function goalLine(outcomes) {
  const o = outcomes.get('sqlite-full');
  if (!o) return 'Goal (invoiceDraft ≥ 50 % of bare with SQLite `synchronous=FULL`): not measured in this run.';
  const ratio = o.results.write.reqPerSec / o.results.bare.reqPerSec;
  return `Goal (invoiceDraft ≥ 50 % of bare with SQLite \`synchronous=FULL\`): **${ratio >= 0.5 ? 'met' : 'not met'}** (${pct(ratio)}).`;
}

/** Its bullets of the document's Method section. */
export function method(_outcome, { settings: s }) {
  return `- Each scenario starts the server as a child process (\`finance-desk serve\`, with the node flags \`npm start\` gives it: \`${SERVE_NODE_FLAGS.join(' ') || 'none'}\`) on a fresh database:
  a new SQLite file in the temp directory, or a new PostgreSQL database (\`CREATE DATABASE fd_bench_…\`,
  dropped afterwards). An organisation is created first with \`finance-desk org create --json\` and
  its agent key is used for the writes. Rate limits are set to ${int(Number(HIGH_RATE))}/s so they never bite;
  \`LOG_LEVEL=warn\`; \`FD_BENCH_BARE_ROUTE=1\`.
- Load comes from autocannon in the parent process: ${s.connections} connections, pipelining ${s.pipelining}.
  Each route first gets a ${s.warmupSeconds} s warm-up (counted for errors, not for speed), then ${s.seconds} s of measurement
  per route, taken in ${s.rounds} alternating slice(s) of ${+(s.seconds / s.rounds).toFixed(2)} s (bare, write, write, bare, …) so that a change
  in the machine's background load weighs on both sides of the ratio. req/s is the 2xx responses
  over the measured seconds; p50/p99 are exact percentiles of every measured response's latency.
  bare and invoiceDraft get the same JSON body (${Buffer.byteLength(BODY)} bytes); billCapture its own (${Buffer.byteLength(BILL_BODY)} bytes):
  - **bare**: \`POST /bench/bare\` parses the body and echoes it — HTTP, JSON and Fastify, with no
    authentication and no storage. The ceiling for any route on this server.
  - **invoiceDraft**: \`POST /api/v1/books.invoiceDraft\` with \`Authorization: Bearer <agent key>\` —
    authentication, validation, and one transaction that inserts the invoice and appends a
    hash-chained ledger event.
  - **billCapture**: \`POST /api/v1/books.billCapture\` with the agent key — one supplier with bank
    details that is never approved, so each bill reads the payee's approved-bank history and is
    held NEW_PAYEE; the bill, its line and the event in one transaction. Measured beside the
    goals' ratio, not part of it.
- Every response is counted: any non-2xx or socket error (warm-up included) fails the run. After
  the server stops, \`finance-desk verify --org bench\` recomputes the whole chain and must find it
  intact and holding every acknowledged write.
- Server CPU is the child's user + system time over the measured slices (100 % = one core), and
  **server CPU µs/req** that time divided by the requests answered. Time spent blocked (in fsync, or
  waiting for the next request) is not CPU time. The load generator shares the same ${os.cpus().length} cores.
- **Half load** (SQLite \`synchronous=FULL\`, and PostgreSQL below): after the maximum is measured,
  invoiceDraft runs again for ${s.seconds} s at ${pct(HALF_LOAD)} of it, paced: requests leave at evenly spaced instants over
  a keep-alive pool of up to ${s.connections} connections (node:http in the parent), and each latency runs from the
  request's scheduled instant, so time queued behind a busy server or a busy load generator counts.
  Not autocannon's \`overallRate\`: it sends each connection's per-second quota back to back at the top
  of every second, i.e. bursts at full load. The half-load run waits for every answer, and its
  acknowledged writes are counted in the chain check. The bare route runs first at the same pace:
  its latencies are the floor that HTTP, the load generator and the machine's other work set, to
  tell a slow write path from a busy machine. **latest send** is the most any request left after its
  scheduled instant (the load generator's own lag, already inside the latencies).`;
}

/** Its section of the document. */
export function render(outcome, { settings }) {
  const outcomes = outcome ?? new Map();
  return `## Write throughput against the bare route

${ratioTable(outcomes, settings)}

${goalLine(outcomes)}

### Half load

${halfLoadTable(outcomes, settings)}

### Detail

${detailTable(outcomes)}

### Chain after the run

${chainTable(outcomes)}`;
}

/** The tables printed on stdout at the end of the run. */
export function tables(outcome, { settings }) {
  const outcomes = outcome ?? new Map();
  return [ratioTable(outcomes, settings), halfLoadTable(outcomes, settings), detailTable(outcomes), chainTable(outcomes)];
}

/** Its lines of the Goals section: invoiceDraft ÷ bare and p99 at half load, SQLite FULL. */
export function goals(outcome) {
  const verdict = (ok) => `**${ok ? 'met' : 'not met'}**`;
  const notMeasured = (why) => `not measured in this run (${why})`;
  const full = outcome?.get('sqlite-full');
  const ratio = full ? full.results.write.reqPerSec / full.results.bare.reqPerSec : null;
  const lines = [];
  lines.push(
    `SQLite \`synchronous=FULL\`: invoiceDraft ≥ 50 % of bare — ` +
      (full
        ? `${verdict(ratio >= 0.5)} (${pct(ratio)}: ${int(full.results.write.reqPerSec)} of ${int(full.results.bare.reqPerSec)} req/s)`
        : notMeasured('sqlite-full')),
  );
  const half = full?.results.half;
  lines.push(
    `SQLite \`synchronous=FULL\`: p99 ≤ 10 ms at half load — ` +
      (half
        ? `${verdict(half.p99 <= 10)} (p99 ${ms(half.p99)} ms, p50 ${ms(half.p50)} ms at ${int(half.offered)} req/s offered — half the maximum measured — ${int(half.reqPerSec)}/s answered; the bare route at the same pace: p99 ${ms(full.results.halfBare.p99)} ms)`
        : notMeasured('sqlite-full')),
  );
  return lines;
}

/** Its bullets of "How to read this". */
export function notes({ settings: s }) {
  return `- **write ÷ bare** is the headline. It is the share of the server's plain HTTP+JSON capacity left
  once a request is authenticated, validated and committed with its ledger event. It cancels most
  of what the machine contributes, so it is comparable across machines where req/s are not.
- **Goal: invoiceDraft ≥ 50 % of bare with \`synchronous=FULL\`.** Group commit makes this possible:
  requests read in the same event-loop turn share one \`COMMIT\` (one fsync), each in its own
  savepoint, and none is answered before that commit. A server whose every commit fsyncs alone is
  capped by the disk's fsync rate and would sit near 20 % of bare or below.
- \`synchronous=NORMAL\` skips the fsync at commit (WAL mode: durable across a process crash, not a
  power loss). The gap between the FULL and NORMAL rows is what durability costs after group commit.
- PostgreSQL serialises an organisation's writes on a row lock of its ledger head, held until the
  commit, so one organisation's commits do not overlap: its row shows the cost of a commit that
  fsyncs alone plus the network round trips inside the lock.
- **write ÷ bare by CPU cost** is bare's CPU µs/req over invoiceDraft's: the ratio the server would
  reach if both routes were limited by its CPU alone. It is steadier than req/s on a busy machine.
  When the req/s ratio falls well below it, the write route is waiting rather than computing (on
  PostgreSQL: the head lock and the round trips). SQLite's commit, fsync included, runs on the
  event loop's thread (better-sqlite3 is synchronous): on a disk with slow fsync it shows up as
  waiting, on a fast or write-cached disk mostly as extra system CPU per request in the FULL row.
- p50/p99 are per-request latencies under ${s.connections} concurrent connections, i.e. mostly queueing; with
  a closed loop, latency ≈ connections ÷ throughput.`;
}

/** What to log when a check failed (nothing when all passed). */
export function failures(outcome) {
  const lines = [];
  for (const o of outcome?.values() ?? []) {
    if (failedChecks(o.checks).length === 0) continue;
    lines.push(`${o.scenario.label} failed checks: ${JSON.stringify(o.checks)}`);
    lines.push(`write status codes: ${JSON.stringify(o.results.write.statusCodes)}; server output tail:\n${o.serverTail}`);
  }
  return lines;
}
