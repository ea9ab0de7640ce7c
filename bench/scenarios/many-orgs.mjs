// Many organisations on one PostgreSQL database: BENCH_MANY_ORGS organisations of
// BENCH_MANY_ORGS_EVENTS events and BENCH_MANY_ORGS_LARGE of BENCH_MANY_ORGS_LARGE_EVENTS, seeded
// in bulk (bench/many-orgs.mjs); then BENCH_PG_PROCESSES servers on it: their start-up time, their
// memory as writes reach more and more organisations, their pool, and invoiceDraft spread over
// BENCH_MANY_ORGS_ACTIVE organisations against 8 in the same run.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { seedManyOrgs, verifyAll } from '../many-orgs.mjs';
import { TARGETS, cannon, connectionGroups, newTally, only200, summarise, timedPhase } from '../harness/load.mjs';
import { cpu, failedChecks, int, log, ms, notRunReason, pct, table } from '../harness/report.mjs';
import {
  CLI,
  SERVE_NODE_FLAGS,
  freePort,
  pendingCleanup,
  prepareStorage,
  rssOf,
  runCli,
  serverEnv,
  sleep,
  startServer,
  verifyOrg,
} from '../harness/server.mjs';
import { ROOT } from '../harness/settings.mjs';

export const name = 'many-orgs';

/** Its BENCH_SCENARIOS name. */
export const ID = 'many-orgs';

/** The organisations of the small-count phase: the figure the many-organisation one is compared with. */
const FEW = 8;
/** The goal: invoiceDraft over many organisations within this share of the few-organisation figure. */
const THROUGHPUT_GOAL = 0.8;

const scenarioOf = (settings) => ({
  id: ID,
  label: `PostgreSQL, ${settings.pgProcesses} server processes, ${int(settings.manyOrgs.orgs + settings.manyOrgs.largeOrgs)} organisations`,
  engine: 'postgres',
});

const mib = (b) => (b === null || b === undefined ? '—' : `${(b / 2 ** 20).toFixed(1)} MiB`);

/** The gauges this scenario reads from a server's /metrics. */
async function metricsOf(server) {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.metricsToken}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const num = (re) => {
    const m = re.exec(text);
    return m ? Number(m[1]) : null;
  };
  return {
    heapUsed: num(/^fd_nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)/m),
    poolTotal: num(/^fd_db_pool_connections\{state="total"\} (\d+)/m),
    poolIdle: num(/^fd_db_pool_connections\{state="idle"\} (\d+)/m),
    poolWaiting: num(/^fd_db_pool_connections\{state="waiting"\} (\d+)/m),
    principals: num(/^fd_cache_entries\{cache="principals"\} (\d+)/m),
    buckets: num(/^fd_cache_entries\{cache="rate_limit_buckets"\} (\d+)/m),
  };
}

/**
 * The servers run as `npm start` runs them, plus a preload that makes SIGUSR2 a full garbage
 * collection (harness/gc-on-signal.cjs): the heap read after one is what the process retains.
 */
const SERVE_ARGV = [
  ...SERVE_NODE_FLAGS,
  '--expose-gc',
  '--require',
  fileURLToPath(new URL('../harness/gc-on-signal.cjs', import.meta.url)),
  CLI,
  'serve',
];

/** Every server's RSS, V8 heap in use (after a full collection) and cache entries. */
async function memoryOf(servers) {
  for (const s of servers) process.kill(s.pid, 'SIGUSR2');
  await sleep(1000);
  const per = [];
  for (const s of servers) per.push({ rss: rssOf(s.pid), ...(await metricsOf(s)) });
  const max = (k) => (per.some((p) => p[k] === null) ? null : Math.max(...per.map((p) => p[k])));
  return { rss: max('rss'), heapUsed: max('heapUsed'), principals: max('principals'), buckets: max('buckets') };
}

/** Sample the pools of every server every `everyMs` while `run` runs: connections in use and waiting. */
async function withPoolSamples(servers, everyMs, run) {
  const samples = [];
  let stop = false;
  const sampler = (async () => {
    while (!stop) {
      const got = await Promise.all(servers.map((s) => metricsOf(s).catch(() => null)));
      for (const m of got) if (m && m.poolTotal !== null) samples.push({ inUse: m.poolTotal - m.poolIdle, waiting: m.poolWaiting });
      await sleep(everyMs);
    }
  })();
  try {
    return { out: await run(), samples };
  } finally {
    stop = true;
    await sampler;
  }
}

function poolSummary(samples) {
  if (samples.length === 0) return { meanInUse: null, maxInUse: null, meanWaiting: null, maxWaiting: null };
  const mean = (k) => samples.reduce((a, s) => a + s[k], 0) / samples.length;
  return {
    meanInUse: mean('inUse'),
    maxInUse: Math.max(...samples.map((s) => s.inUse)),
    meanWaiting: mean('waiting'),
    maxWaiting: Math.max(...samples.map((s) => s.waiting)),
  };
}

/**
 * invoiceDraft over `orgs`, cycling: each request takes the next organisation of the list (one
 * counter shared by every connection of every process), with that organisation's agent key. One
 * autocannon instance per process (connectionGroups), for `seconds`, or for `amount` requests in all.
 */
async function cycling({ servers, groups, orgs, seconds, amount, latencies, pipelining, counter }) {
  const write = TARGETS.find((t) => t.id === 'write');
  const codes = {};
  const counts = { '2xx': 0, non2xx: 0, errors: 0, timeouts: 0 };
  const onResponse = (status, msTaken) => {
    codes[status] = (codes[status] ?? 0) + 1;
    if (latencies) latencies.push(msTaken);
  };
  let slack = 0;
  await Promise.all(
    groups.map(async (g) => {
      const base = { 'content-type': 'application/json' };
      const opts = {
        url: `${servers[g.proc].url}${write.path}`,
        connections: g.connections,
        pipelining,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            path: write.path,
            body: write.body,
            setupRequest: (req) => {
              const o = orgs[counter.next++ % orgs.length];
              return { ...req, headers: { ...base, authorization: `Bearer ${o.agent}` } };
            },
          },
        ],
        ...(amount ? { amount: Math.ceil(amount / groups.length) } : { duration: seconds }),
      };
      const r = await cannon(opts, onResponse);
      for (const k of Object.keys(counts)) counts[k] += r[k] ?? 0;
      // A request in flight when autocannon stops may commit uncounted: one per connection.
      slack += g.connections * pipelining;
    }),
  );
  return { counts, codes, slack };
}

/** Start one server and time it from spawn to its first /healthz 200. */
async function timedStart(env, port, metricsToken) {
  const started = performance.now();
  const server = await startServer({ ...env, METRICS_TOKEN: metricsToken }, port, SERVE_ARGV);
  pendingCleanup.add(server.stop);
  return { server: { ...server, metricsToken }, seconds: (performance.now() - started) / 1000 };
}

async function runManyOrgs(settings) {
  const scenario = scenarioOf(settings);
  const sizes = settings.manyOrgs;
  const processes = settings.pgProcesses;
  const storage = await prepareStorage({ engine: 'postgres' }, settings);
  const dropStorage = () => storage.cleanup();
  pendingCleanup.add(dropStorage);
  const servers = [];
  const metricsToken = randomBytes(24).toString('hex');
  const caches = { PRINCIPAL_CACHE_MAX: String(sizes.cacheMax), RATE_LIMIT_BUCKETS_MAX: String(sizes.cacheMax) };
  const stopAll = async () => {
    const exits = [];
    for (const s of servers) {
      exits.push(await s.stop());
      pendingCleanup.delete(s.stop);
    }
    servers.length = 0;
    return exits;
  };
  try {
    // Start-up on the migrated, empty database first: the baseline of the start-up time.
    const env = { ...serverEnv(storage, 0), ...caches };
    await runCli(['org', 'create', '--name', 'Bench empty', '--slug', 'empty', '--json'], env);
    const emptyPort = await freePort();
    const empty = await timedStart({ ...env, PORT: String(emptyPort) }, emptyPort, metricsToken);
    await empty.server.stop();
    pendingCleanup.delete(empty.server.stop);
    const emptyStart = empty.seconds;

    const total = sizes.orgs + sizes.largeOrgs;
    log(
      `${scenario.label}: seeding ${int(sizes.orgs)} × ${int(sizes.events)} and ${int(sizes.largeOrgs)} × ${int(sizes.largeEvents)} events`,
    );
    const seeded = await seedManyOrgs(ROOT, storage.databaseUrl, { ...sizes, log });
    log(`${scenario.label}: seeded ${int(total)} organisations, ${int(seeded.totalEvents)} events in ${seeded.seconds.toFixed(1)} s`);
    const small = seeded.orgs.slice(0, sizes.orgs);
    const few = small.slice(0, FEW);
    const active = small.slice(0, Math.min(sizes.active, small.length));
    // The operator's own check on a small and a large organisation before the servers start.
    const cliVerdicts = [];
    for (const o of [seeded.orgs[0], seeded.orgs.at(-1)]) cliVerdicts.push({ slug: o.slug, verdict: await verifyOrg(env, o.slug) });

    log(`${scenario.label}: starting ${processes} servers, one at a time`);
    const startSeconds = [];
    for (let i = 0; i < processes; i += 1) {
      const port = await freePort();
      const s = await timedStart({ ...env, PORT: String(port) }, port, metricsToken);
      servers.push(s.server);
      startSeconds.push(s.seconds);
    }
    const memory = { idle: await memoryOf(servers) };

    const groups = connectionGroups(processes, 1, settings.connections);
    const counter = { next: 0 };
    const tallies = { few: newTally(), active: newTally() };
    const pools = { few: [], active: [] };
    const acked = { count: 0, slack: 0 };
    const phase = (key, orgs, seconds, measured) =>
      withPoolSamples(servers, 250, () =>
        timedPhase(servers, tallies[key], measured, async (latencies) => {
          const out = await cycling({ servers, groups, orgs, seconds, latencies, pipelining: settings.pipelining, counter });
          acked.count += out.counts['2xx'];
          acked.slack += out.slack;
          return out;
        }),
      ).then(({ samples }) => {
        if (measured) pools[key].push(...samples);
      });
    // Alternating slices (8, many, many, 8), so that background load on the machine hits both
    // alike; each count's warm-up just before its first slice, so that the memory read after the
    // first slice of 8 is that of writes to 8 organisations only.
    const slice = settings.seconds / 2;
    const warm = async (key, orgs) => {
      if (settings.warmupSeconds === 0) return;
      log(`${scenario.label}: warm-up, ${settings.warmupSeconds} s over ${orgs.length} organisations`);
      await phase(key, orgs, settings.warmupSeconds, false);
    };
    log(
      `${scenario.label}: invoiceDraft over ${few.length} and over ${active.length} organisations, ${settings.seconds} s each, in slices`,
    );
    await warm('few', few);
    await phase('few', few, slice, true);
    memory.few = await memoryOf(servers);
    await warm('active', active);
    await phase('active', active, slice, true);
    await phase('active', active, slice, true);
    memory.active = await memoryOf(servers);
    await phase('few', few, slice, true);

    // Every organisation written at least once: the counter walks the whole list.
    log(`${scenario.label}: one invoiceDraft for each of the ${int(total)} organisations`);
    const everyTally = newTally();
    const everyCounter = { next: 0 };
    await timedPhase(servers, everyTally, true, async (latencies) => {
      const out = await cycling({
        servers,
        groups,
        orgs: seeded.orgs,
        amount: seeded.orgs.length,
        latencies,
        pipelining: settings.pipelining,
        counter: everyCounter,
      });
      acked.count += out.counts['2xx'];
      acked.slack += out.slack;
      return out;
    });
    const touchedAll = everyCounter.next >= seeded.orgs.length;
    memory.all = await memoryOf(servers);

    const serverTail = servers.map((s, i) => `--- server ${i + 1}:\n${s.output()}`).join('\n');
    const exits = await stopAll();
    log(`${scenario.label}: verifying ${int(total)} chains`);
    const verifyStarted = performance.now();
    const verdicts = await verifyAll(ROOT, storage.databaseUrl, seeded.orgs);
    const verifySeconds = (performance.now() - verifyStarted) / 1000;
    const rows = verdicts.reduce((a, v) => a + (v.ok ? v.rows : 0), 0);
    const appended = rows - seeded.totalEvents + 1; // the `empty` organisation's one event is not in the list
    const results = { few: summarise(tallies.few), active: summarise(tallies.active), every: summarise(everyTally) };
    const checks = {
      all200: Object.values(results).every(only200),
      chainsOk: verdicts.every((v) => v.ok) && cliVerdicts.every((c) => c.verdict.ok === true),
      chainsCoverWrites: appended >= acked.count && appended - acked.count <= acked.slack,
      touchedAll,
      cleanExit: exits.every((e) => e.code === 0 || e.signal === 'SIGTERM'),
    };
    return {
      scenario,
      sizes,
      processes,
      connections: settings.connections,
      seeded: { seconds: seeded.seconds, events: seeded.totalEvents, orgs: total },
      start: { empty: emptyStart, seeded: startSeconds },
      memory,
      results,
      pools: { few: poolSummary(pools.few), active: poolSummary(pools.active) },
      few: few.length,
      active: active.length,
      verify: { seconds: verifySeconds, rows },
      acked,
      appended,
      checks,
      serverTail,
    };
  } finally {
    await stopAll().catch(() => undefined);
    await storage.cleanup();
    pendingCleanup.delete(dropStorage);
  }
}

/** Runs when selected (BENCH_SCENARIOS, and a PostgreSQL URL is needed). */
export async function run(settings) {
  const m = await runManyOrgs(settings);
  log(
    `${m.scenario.label}: ${m.few} orgs ${int(m.results.few.reqPerSec)}/s, ${m.active} orgs ${int(m.results.active.reqPerSec)}/s ` +
      `(${pct(m.results.active.reqPerSec / m.results.few.reqPerSec)}); heap ${mib(m.memory.active.heapUsed)} → ${mib(m.memory.all.heapUsed)} ` +
      `after all ${int(m.seeded.orgs)}; ${checkText(m)}`,
  );
  return m;
}

// ---------------------------------------------------------------------------------------------
// Report

function checkText(m) {
  const failed = failedChecks(m.checks);
  return failed.length === 0
    ? 'Checks: every response a 200 (warm-ups included), every organisation written, every chain verified and together holding each acknowledged write.'
    : `Checks: **FAILED: ${failed.join(', ')}**`;
}

const meanOf = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;

function throughputTable(m) {
  const row = (label, orgs, r, pool) => [
    label,
    int(orgs),
    `**${int(r.reqPerSec)}**`,
    ms(r.p50),
    ms(r.p99),
    `${int(r.non2xx + r.warm.non2xx)} / ${int(r.errors + r.warm.errors)}`,
    cpu(r.serverCpu),
    r.cpuMicrosPerReq === null ? '—' : r.cpuMicrosPerReq.toFixed(1),
    r.unitsPerCommit === null ? '—' : r.unitsPerCommit.toFixed(2),
    pool ? `${pool.meanInUse.toFixed(1)} (max ${pool.maxInUse})` : '—',
    pool ? `${pool.meanWaiting.toFixed(1)} (max ${pool.maxWaiting})` : '—',
  ];
  return table(
    [
      'Phase',
      'organisations',
      '2xx/s',
      'p50 ms',
      'p99 ms',
      'non-2xx / errors',
      'server CPU (all processes)',
      'server CPU µs/req',
      'writes per commit',
      'pool connections in use, per process: mean (max)',
      'waiting for a connection: mean (max)',
    ],
    [
      row(
        `books.invoiceDraft cycling over ${m.few} organisations`,
        m.few,
        m.results.few,
        m.pools.few.meanInUse === null ? null : m.pools.few,
      ),
      row(
        `books.invoiceDraft cycling over ${int(m.active)} organisations`,
        m.active,
        m.results.active,
        m.pools.active.meanInUse === null ? null : m.pools.active,
      ),
      row(`one books.invoiceDraft for each of the ${int(m.seeded.orgs)} organisations`, m.seeded.orgs, m.results.every, null),
    ],
  );
}

function memoryTable(m) {
  const row = (label, x) => [
    label,
    mib(x.rss),
    mib(x.heapUsed),
    x.principals === null ? '—' : int(x.principals),
    x.buckets === null ? '—' : int(x.buckets),
  ];
  return table(
    ['Server processes, after', 'RSS (largest)', 'V8 heap in use (largest)', 'remembered keys', 'rate-limit buckets'],
    [
      row('start-up, before any request', m.memory.idle),
      row(`writes to ${m.few} organisations`, m.memory.few),
      row(`writes to ${int(m.active)} organisations`, m.memory.active),
      row(`writes to all ${int(m.seeded.orgs)} organisations`, m.memory.all),
    ],
  );
}

function startTable(m) {
  return table(
    ['Measure', 'Value'],
    [
      [
        'seeded',
        `${int(m.sizes.orgs)} × ${int(m.sizes.events)} and ${int(m.sizes.largeOrgs)} × ${int(m.sizes.largeEvents)} events (${int(m.seeded.events)} in all) in ${m.seeded.seconds.toFixed(1)} s`,
      ],
      ['server start-up (spawn to /healthz 200), empty database', `${m.start.empty.toFixed(2)} s`],
      [
        `server start-up, ${int(m.seeded.orgs)} organisations, each of ${m.processes} processes`,
        `${m.start.seeded.map((s) => s.toFixed(2)).join(' / ')} s (mean ${meanOf(m.start.seeded).toFixed(2)} s, ${(meanOf(m.start.seeded) / m.start.empty).toFixed(2)} × empty)`,
      ],
      [
        'every chain verified afterwards (in-process `verifyStoredChain`)',
        `${int(m.verify.rows)} events in ${m.verify.seconds.toFixed(1)} s`,
      ],
    ],
  );
}

/** Its bullet of the document's Method section. */
export function method(_outcome, { settings: s }) {
  const z = s.manyOrgs;
  return `- **Many organisations on one PostgreSQL database** (\`${ID}\`): one fresh database seeded with
  ${int(z.orgs)} organisations of ${int(z.events)} events and ${int(z.largeOrgs)} of ${int(z.largeEvents)} (\`BENCH_MANY_ORGS\`,
  \`BENCH_MANY_ORGS_EVENTS\`, \`BENCH_MANY_ORGS_LARGE\`, \`BENCH_MANY_ORGS_LARGE_EVENTS\`) by \`bench/many-orgs.mjs\`: the first
  organisation with \`createOrg\` (what \`finance-desk org create\` runs), the others with the same writers
  (\`seedChart\`, \`issueKey\`, \`chainEvent\`, the same INSERTs) batched into multi-row statements, sharing one
  owner password hash (scrypt per owner made \`createOrg\` cost 60 ms an organisation); each chain is its
  \`org.created\` event then invoice-draft events, and every table's rows for a bulk organisation must match
  \`createOrg\`'s. First one server starts on the database migrated but empty (the start-up baseline);
  then ${s.pgProcesses} \`serve\` processes start one at a time on the seeded one, each timed from spawn to its first
  \`/healthz\` 200 (polled every 100 ms), with \`PRINCIPAL_CACHE_MAX\` = \`RATE_LIMIT_BUCKETS_MAX\` =
  ${int(z.cacheMax)} (\`BENCH_MANY_ORGS_CACHE_MAX\`), below the organisation count so that the caps are reached.
  invoiceDraft then runs over ${FEW} organisations and over ${int(z.active)} (\`BENCH_MANY_ORGS_ACTIVE\`) in alternating
  slices of ${s.seconds / 2} s (${s.seconds} s each, after ${s.warmupSeconds} s warm-ups): ${s.connections} connections spread over the
  processes, each request taking the next organisation of the list with its own agent key; then
  one request for each organisation. Memory is read from every process after each step, 1 s after a
  full garbage collection (the servers preload \`bench/harness/gc-on-signal.cjs\` with \`--expose-gc\`:
  SIGUSR2 collects), so the heap is what the process retains: \`VmRSS\`, and
  \`fd_nodejs_heap_size_used_bytes\` and \`fd_cache_entries\` from \`/metrics\`; the table shows the
  largest process; the pools' \`fd_db_pool_connections\` are sampled every 250 ms during the
  slices. Afterwards every chain is verified with \`verifyStoredChain\` (what \`finance-desk verify\` runs),
  a small and a large one also with the CLI, and together they must hold each acknowledged write.`;
}

/** Its section of the document. */
export function render(m, { settings }) {
  if (!m) return `## Many organisations on one PostgreSQL database\n\n_${notRunReason(scenarioOf(settings), settings)}._`;
  return `## Many organisations on one PostgreSQL database

${startTable(m)}

${throughputTable(m)}

invoiceDraft over ${int(m.active)} organisations ÷ over ${m.few}: **${pct(m.results.active.reqPerSec / m.results.few.reqPerSec)}**. ${checkText(m)}

${memoryTable(m)}`;
}

export function tables(m) {
  return m ? [startTable(m), throughputTable(m), memoryTable(m)] : [];
}

/**
 * Its lines of the Goals section. Memory is bounded by configuration when no cache holds more
 * than its cap and the heap after writes to every organisation is within 10 % + 16 MiB of the heap
 * after the active ones (the allowance is for the heap's own settling, as in events paging).
 */
export function goals(m, { settings }) {
  if (!m) return [`Many organisations: not measured in this run (${ID})`];
  const cap = m.sizes.cacheMax;
  const within = (x) => x.principals !== null && x.principals <= cap && (x.buckets === null || x.buckets <= cap);
  const heapFlat = m.memory.all.heapUsed <= m.memory.active.heapUsed * 1.1 + 16 * 2 ** 20;
  const bounded = within(m.memory.all) && within(m.memory.active) && heapFlat;
  const ratio = m.results.active.reqPerSec / m.results.few.reqPerSec;
  return [
    `Many organisations, memory bounded by configuration — **${bounded ? 'met' : 'not met'}** (caches at most ${int(cap)} entries: ${int(m.memory.all.principals ?? 0)} keys, ${int(m.memory.all.buckets ?? 0)} buckets after all ${int(m.seeded.orgs)} organisations; V8 heap ${mib(m.memory.active.heapUsed)} after ${int(m.active)} organisations, ${mib(m.memory.all.heapUsed)} after all; RSS ${mib(m.memory.active.rss)} → ${mib(m.memory.all.rss)})`,
    `Many organisations, invoiceDraft over ${int(m.active)} organisations within 20 % of ${m.few} — **${ratio >= THROUGHPUT_GOAL ? 'met' : 'not met'}** (${int(m.results.active.reqPerSec)} against ${int(m.results.few.reqPerSec)} writes/s, ${pct(ratio)}, ${settings.pgProcesses} processes)`,
  ];
}

/** Its bullet of "How to read this". */
export function notes() {
  return `- **Many organisations**: the ${FEW}-organisation row is the baseline of the same run and processes; the
  many-organisation row differs only in how many organisations the same requests are spread over. Fewer
  writes share a commit there (each organisation's batch is its own transaction and its own pool
  connection), so the pool columns show whether the processes wait for connections. Memory that
  stays put from the active organisations to all of them, with the caches at their caps, is memory
  bounded by configuration rather than by the number of organisations.`;
}

/** What to log when a check failed. */
export function failures(m) {
  if (!m || failedChecks(m.checks).length === 0) return [];
  return [
    `${m.scenario.label} failed checks: ${JSON.stringify(m.checks)} (acknowledged ${m.acked.count}, appended ${m.appended}, slack ${m.acked.slack})`,
    ...Object.entries(m.results).map(
      ([phase, r]) => `${phase} status codes: ${JSON.stringify(r.statusCodes)} warm-up ${JSON.stringify(r.warm.statusCodes)}`,
    ),
    `servers' output tails:\n${m.serverTail}`,
  ];
}
