#!/usr/bin/env node
// Finance Desk benchmark: HTTP write throughput against the bare-route baseline, and the
// ledger verifier against raw SHA-256. Run with `npm run bench` (builds first); see
// bench/README.md for the environment variables and how to read the figures.
//
// Plain ESM on purpose: it drives the compiled server as a child process, exactly as an operator
// runs it, and loads nothing from the server's TypeScript sources.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { parserBench, parserTable } from './parsers.mjs';
import { measureReads, READS, seed } from './read-cost.mjs';
import * as ledger from './ledger.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'packages/server/bin/finance-desk.js');
const PROTOCOL_DIST = join(ROOT, 'packages/protocol/dist/index.js');
const serverRequire = createRequire(join(ROOT, 'packages/server/package.json'));

// ---------------------------------------------------------------------------------------------
// Settings (environment)

function envNumber(name, fallback, { min = 0, integer = false } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} of at least ${min}, got "${raw}"`);
  }
  return n;
}

const SETTINGS = {
  seconds: envNumber('BENCH_SECONDS', 8, { min: 1 }),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 2, { min: 0 }),
  connections: envNumber('BENCH_CONNECTIONS', 64, { min: 1, integer: true }),
  pipelining: envNumber('BENCH_PIPELINING', 1, { min: 1, integer: true }),
  rounds: envNumber('BENCH_ROUNDS', 4, { min: 1, integer: true }),
  verifyRows: envNumber('BENCH_VERIFY_ROWS', 200_000, { min: 1, integer: true }),
  verifyRepeats: envNumber('BENCH_VERIFY_REPEATS', 3, { min: 1, integer: true }),
  events: envNumber('BENCH_EVENTS', 1_000_000, { min: 0, integer: true }),
  postgresUrl: process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || '',
  only: (process.env.BENCH_SCENARIOS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
  out: process.env.BENCH_OUT ?? join(ROOT, 'docs/benchmarks.md'),
  tmpRoot: process.env.BENCH_TMPDIR || os.tmpdir(),
  readDocuments: (process.env.BENCH_READ_DOCUMENTS ?? '10000,100000')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const n = Number(s);
      if (!Number.isInteger(n) || n < 8) throw new Error(`BENCH_READ_DOCUMENTS: "${s}" is not a whole number of at least 8`);
      return n;
    }),
  readRepeats: envNumber('BENCH_READ_REPEATS', 5, { min: 1, integer: true }),
};

const BODY = JSON.stringify({
  params: { payeeName: 'Bench Pty Ltd', description: 'Consulting', totalCents: 123456, dueDays: 14 },
});
const ORG_SLUG = 'bench';
// The configuration's ceiling (config.ts: 1 to 1 000 000): far above any rate this machine reaches.
const HIGH_RATE = '1000000';

/** Fixed list so that the generated document keeps the same rows from run to run. */
const SCENARIOS = [
  { id: 'sqlite-full', label: 'SQLite, synchronous=FULL', engine: 'sqlite', synchronous: 'FULL' },
  { id: 'sqlite-normal', label: 'SQLite, synchronous=NORMAL', engine: 'sqlite', synchronous: 'NORMAL' },
  { id: 'postgres', label: 'PostgreSQL', engine: 'postgres' },
];

const TARGETS = [
  { id: 'bare', label: 'POST /bench/bare', path: '/bench/bare', auth: false },
  { id: 'write', label: 'POST books.invoiceDraft', path: '/api/v1/books.invoiceDraft', auth: true },
];

const log = (...args) => process.stderr.write(`[bench] ${args.join(' ')}\n`);

// ---------------------------------------------------------------------------------------------
// Child processes

/** Run the CLI to completion; resolve with stdout, reject with stderr on a non-zero exit. */
function runCli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(Object.assign(new Error(`finance-desk ${args.join(' ')} exited ${code}: ${err.trim()}`), { code, out, err }));
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Start `serve` and wait for /healthz. Keeps the tail of its output for diagnostics. */
async function startServer(env, port) {
  const child = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (d) => {
    tail = (tail + d).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = null;
  const exitPromise = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited) throw new Error(`server exited before it was ready (${JSON.stringify(exited)}):\n${tail}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /healthz within 20 s:\n${tail}`);
    }
    await sleep(100);
  }
  return {
    url,
    pid: child.pid,
    output: () => tail,
    async stop() {
      if (exited) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const result = await exitPromise;
      clearTimeout(timer);
      return result;
    },
  };
}

/** CPU seconds (user + system) used so far by a process, from /proc (Linux only; else null). */
function cpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11] is utime and fields[12] stime (fields 14 and 15 of proc(5), counted from 1).
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Load

/** One autocannon run; every response's status and latency (ms, full precision) is recorded. */
function cannon(opts, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
    if (onResponse) instance.on('response', (_client, statusCode, _bytes, responseTime) => onResponse(statusCode, responseTime));
  });
}

function requestOptions(server, target, agentKey) {
  const headers = { 'content-type': 'application/json' };
  if (target.auth) headers.authorization = `Bearer ${agentKey}`;
  return {
    url: `${server.url}${target.path}`,
    method: 'POST',
    headers,
    body: BODY,
    connections: SETTINGS.connections,
    pipelining: SETTINGS.pipelining,
    timeout: 10,
  };
}

/** Running totals for one route across its warm-up and measured slices. */
function newTally() {
  return {
    seconds: 0,
    ok: 0,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: {},
    latencies: [],
    serverCpuSeconds: 0,
    loaderCpuSeconds: 0,
    cpuKnown: true,
    warm: { ok: 0, non2xx: 0, errors: 0, timeouts: 0, statusCodes: {} },
  };
}

function addCounts(into, r, codes) {
  into.ok += r['2xx'] ?? 0;
  into.non2xx += r.non2xx ?? 0;
  into.errors += r.errors ?? 0;
  into.timeouts += r.timeouts ?? 0;
  for (const [code, n] of Object.entries(codes)) into.statusCodes[code] = (into.statusCodes[code] ?? 0) + n;
}

async function slice(server, opts, tally, seconds, measured) {
  const codes = {};
  const latencies = measured ? tally.latencies : null;
  const onResponse = (status, ms) => {
    codes[status] = (codes[status] ?? 0) + 1;
    if (latencies) latencies.push(ms);
  };
  const cpuBefore = cpuSecondsOf(server.pid);
  const selfBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const r = await cannon({ ...opts, duration: seconds }, onResponse);
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = cpuSecondsOf(server.pid);
  const self = process.cpuUsage(selfBefore);
  if (!measured) {
    addCounts(tally.warm, r, codes);
    return;
  }
  addCounts(tally, r, codes);
  tally.seconds += wall;
  if (cpuBefore === null || cpuAfter === null) tally.cpuKnown = false;
  else tally.serverCpuSeconds += cpuAfter - cpuBefore;
  tally.loaderCpuSeconds += (self.user + self.system) / 1e6;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function summarise(t) {
  const sorted = Float64Array.from(t.latencies).sort();
  return {
    reqPerSec: t.ok / t.seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    ok: t.ok,
    non2xx: t.non2xx,
    errors: t.errors,
    timeouts: t.timeouts,
    statusCodes: t.statusCodes,
    warm: t.warm,
    serverCpu: t.cpuKnown ? t.serverCpuSeconds / t.seconds : null,
    // Server CPU time per acknowledged request: the cost of a request with the waiting taken out.
    cpuMicrosPerReq: t.cpuKnown && t.ok > 0 ? (t.serverCpuSeconds / t.ok) * 1e6 : null,
    loaderCpu: t.loaderCpuSeconds / t.seconds,
  };
}

/**
 * Warm both routes up, then alternate them in short slices (bare, write, write, bare, …) so that
 * a change in the machine's background load during the run weighs on both sides of the ratio.
 */
async function measureRoutes(server, agentKey, label) {
  const tallies = new Map(TARGETS.map((t) => [t.id, newTally()]));
  const opts = new Map(TARGETS.map((t) => [t.id, requestOptions(server, t, agentKey)]));
  if (SETTINGS.warmupSeconds > 0) {
    log(`${label}: warm-up, ${SETTINGS.warmupSeconds} s per route`);
    for (const t of TARGETS) await slice(server, opts.get(t.id), tallies.get(t.id), SETTINGS.warmupSeconds, false);
  }
  const sliceSeconds = SETTINGS.seconds / SETTINGS.rounds;
  log(`${label}: measuring, ${SETTINGS.seconds} s per route in ${SETTINGS.rounds} alternating slice(s)`);
  for (let round = 0; round < SETTINGS.rounds; round += 1) {
    const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse();
    for (const t of order) await slice(server, opts.get(t.id), tallies.get(t.id), sliceSeconds, true);
  }
  return Object.fromEntries([...tallies].map(([id, t]) => [id, summarise(t)]));
}

// ---------------------------------------------------------------------------------------------
// Storage per scenario

async function withPgClient(url, fn) {
  const pg = serverRequire('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function prepareStorage(scenario) {
  if (scenario.engine === 'sqlite') {
    const dir = mkdtempSync(join(SETTINGS.tmpRoot, 'fd-bench-'));
    return {
      databaseUrl: `sqlite:${join(dir, 'finance-desk.db')}`,
      env: { SQLITE_SYNCHRONOUS: scenario.synchronous },
      async cleanup() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `fd_bench_${randomBytes(6).toString('hex')}`;
  await withPgClient(SETTINGS.postgresUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(SETTINGS.postgresUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    env: {},
    async cleanup() {
      await withPgClient(SETTINGS.postgresUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** What to undo if the run is interrupted (Ctrl-C): the running server and the scratch database. */
const pendingCleanup = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    Promise.allSettled([...pendingCleanup].map((fn) => fn())).finally(() => process.exit(130));
  });
}

async function runScenario(scenario) {
  const storage = await prepareStorage(scenario);
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
    const results = await measureRoutes(server, created.keys.agent, scenario.label);
    const exit = await server.stop();
    pendingCleanup.delete(stopServer);
    const serverTail = server.output();
    server = null;
    let verdict;
    try {
      verdict = JSON.parse(await runCli(['verify', '--org', ORG_SLUG, '--json'], env));
    } catch (error) {
      verdict = error.out ? JSON.parse(error.out) : { ok: false, error: String(error.message) };
    }
    const w = results.write;
    const written = w.ok + w.warm.ok; // acknowledged writes, warm-up included
    const appended = verdict.ok ? verdict.rows - before.rows : null;
    const only200 = (r) =>
      r.non2xx + r.errors + r.warm.non2xx + r.warm.errors === 0 &&
      [...Object.keys(r.statusCodes), ...Object.keys(r.warm.statusCodes)].every((code) => code === '200');
    const slices = (SETTINGS.warmupSeconds > 0 ? 1 : 0) + SETTINGS.rounds;
    const checks = {
      writeAll200: only200(w),
      bareAll200: only200(results.bare),
      chainOk: verdict.ok === true,
      // Every acknowledged write is in the chain. A request in flight when autocannon stops a slice
      // may commit without being counted, so the chain may hold up to one extra per connection
      // (times pipelining) per slice, never fewer.
      chainCoversWrites:
        appended !== null &&
        appended >= written &&
        appended - written <= slices * SETTINGS.connections * SETTINGS.pipelining,
      cleanExit: exit.code === 0 || exit.signal === 'SIGTERM',
    };
    return { scenario, results, verdict, appended, written, checks, serverTail };
  } finally {
    if (server) await server.stop();
    await storage.cleanup();
    pendingCleanup.delete(dropStorage);
  }
}

// ---------------------------------------------------------------------------------------------
// Read cost (issue 8 item 2): reports over N seeded documents, against the bare route

function serverEnv(storage, port) {
  const env = {
    ...process.env,
    ...storage.env,
    DATABASE_URL: storage.databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_SECOND: HIGH_RATE,
    RATE_LIMIT_BURST: HIGH_RATE,
    FD_BENCH_BARE_ROUTE: '1',
    LOG_LEVEL: 'warn',
  };
  delete env.REDIS_URL; // the in-memory limiter: the benchmark measures this process alone
  return env;
}

async function runReadScenario(scenario, documents) {
  const storage = await prepareStorage(scenario);
  const dropStorage = () => storage.cleanup();
  pendingCleanup.add(dropStorage);
  const env = serverEnv(storage, await freePort());
  let server = null;
  try {
    const created = JSON.parse(await runCli(['org', 'create', '--name', 'Bench', '--slug', ORG_SLUG, '--json'], env));
    const today = new Date().toISOString().slice(0, 10);
    const seeded = await seed(ROOT, storage.databaseUrl, created.orgId, documents, today);
    server = await startServer(env, Number(env.PORT));
    pendingCleanup.add(server.stop);
    const measured = await measureReads(server, created.keys, today, SETTINGS.readRepeats);
    await server.stop();
    pendingCleanup.delete(server.stop);
    server = null;
    return { scenario, documents, ...seeded, ...measured };
  } finally {
    if (server) await server.stop();
    await storage.cleanup();
    pendingCleanup.delete(dropStorage);
  }
}

// ---------------------------------------------------------------------------------------------
// Machine

async function machineInfo(pgUsed) {
  const cpus = os.cpus();
  const Database = serverRequire('better-sqlite3');
  const mem = new Database(':memory:');
  const sqliteVersion = mem.prepare('SELECT sqlite_version() AS v').get().v;
  mem.close();
  let pgVersion = null;
  if (pgUsed) {
    pgVersion = await withPgClient(SETTINGS.postgresUrl, async (c) => (await c.query('SHOW server_version')).rows[0].server_version);
  }
  return {
    cpu: `${cpus[0]?.model?.trim() ?? 'unknown'} × ${cpus.length}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    sqlite: sqliteVersion,
    postgres: pgVersion,
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    loadBefore: load(),
  };
}

// ---------------------------------------------------------------------------------------------
// Report

const int = (n) => Math.round(n).toLocaleString('en-US');
const ms = (n) => (n === undefined || n === null ? '—' : n < 10 ? n.toFixed(2) : n.toFixed(1));
const load = () => os.loadavg().map((n) => n.toFixed(2)).join(' / ');
const pct = (n) => `${(n * 100).toFixed(1)} %`;
const cpu = (n) => (n === null || n === undefined ? '—' : `${Math.round(n * 100)} %`);

function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function ratioTable(outcomes) {
  return table(
    ['Scenario', 'bare req/s', 'invoiceDraft req/s', 'write ÷ bare', 'write ÷ bare by CPU cost', 'Checks'],
    SCENARIOS.map((s) => {
      const o = outcomes.get(s.id);
      if (!o) return [s.label, '—', '—', '—', '—', notRunReason(s)];
      const { bare, write } = o.results;
      const cpuRatio =
        bare.cpuMicrosPerReq && write.cpuMicrosPerReq ? pct(bare.cpuMicrosPerReq / write.cpuMicrosPerReq) : '—';
      return [
        s.label,
        int(bare.reqPerSec),
        int(write.reqPerSec),
        `**${pct(write.reqPerSec / bare.reqPerSec)}**`,
        cpuRatio,
        checkText(o),
      ];
    }),
  );
}

function detailTable(outcomes) {
  const rows = [];
  for (const s of SCENARIOS) {
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
    [
      'Scenario',
      'Route',
      'req/s (mean)',
      'p50 ms',
      'p99 ms',
      'non-2xx / errors',
      'server CPU',
      'server CPU µs/req',
      'load-generator CPU',
    ],
    rows,
  );
}

function chainTable(outcomes) {
  return table(
    ['Scenario', 'writes acknowledged', 'events appended', '`verify --org`'],
    SCENARIOS.map((s) => {
      const o = outcomes.get(s.id);
      if (!o) return [s.label, '—', '—', '—'];
      const v = o.verdict;
      const verdict = v.ok ? `ok, head seq ${v.head.seq}` : `**broken** ${v.reason ?? v.error ?? ''} at seq ${v.seq ?? '?'}`;
      return [s.label, int(o.written), o.appended === null ? '—' : int(o.appended), verdict];
    }),
  );
}

const verifyTable = (v) => ledger.verifyTable(v, { table, int, pct });

function goalLine(outcomes) {
  const o = outcomes.get('sqlite-full');
  if (!o) return 'Goal (invoiceDraft ≥ 50 % of bare with SQLite `synchronous=FULL`): not measured in this run.';
  const ratio = o.results.write.reqPerSec / o.results.bare.reqPerSec;
  return `Goal (invoiceDraft ≥ 50 % of bare with SQLite \`synchronous=FULL\`): **${ratio >= 0.5 ? 'met' : 'not met'}** (${pct(ratio)}).`;
}

function notRunReason(s) {
  if (SETTINGS.only.length > 0 && !SETTINGS.only.includes(s.id)) return 'not run (BENCH_SCENARIOS)';
  if (s.engine === 'postgres' && !SETTINGS.postgresUrl) return 'not run (set BENCH_DATABASE_URL)';
  return 'not run';
}

/** One table per engine: each read's median ms, ÷ the bare route, µs per journal line, per size. */
function readTables(readOutcomes) {
  if (readOutcomes.length === 0) return '_Not run (BENCH_READ_DOCUMENTS is empty)._';
  const engines = [...new Set(readOutcomes.map((o) => o.scenario.label))];
  return engines
    .map((label) => {
      const runs = readOutcomes.filter((o) => o.scenario.label === label).sort((a, b) => a.documents - b.documents);
      const first = runs[0];
      const last = runs.at(-1);
      const header = ['Read', ...runs.flatMap((r) => [`${int(r.documents)} docs: ms`, '÷ bare', 'µs / line'])];
      if (runs.length > 1) header.push(`ms ${int(last.documents)} ÷ ms ${int(first.documents)} (linear: ${+(last.journalLines / first.journalLines).toFixed(1)})`);
      const row = (name, pick) => {
        const cells = runs.flatMap((r) => {
          const v = pick(r);
          return [ms(v), `${(v / r.bareMs).toFixed(1)} ×`, ((v * 1000) / r.journalLines).toFixed(2)];
        });
        if (runs.length > 1) cells.push((pick(last) / pick(first)).toFixed(1));
        return [name, ...cells];
      };
      const rows = [
        ...READS.map((read) => row(read.label, (r) => r.reads[read.id])),
        row('books.feedLines, import of 200 lines (agent key, once)', (r) => r.importMs),
      ];
      const facts = runs
        .map(
          (r) =>
            `${int(r.documents)} documents: ${int(r.journalLines)} journal lines, seeded in ${r.seconds.toFixed(1)} s; ` +
            `bare route ${ms(r.bareMs)} ms`,
        )
        .join('; ');
      return `### ${label}\n\n${table(header, rows)}\n\n${facts}.`;
    })
    .join('\n\n');
}

function checkText(o) {
  const failed = Object.entries(o.checks)
    .filter(([, ok]) => !ok)
    .map(([name]) => name);
  return failed.length === 0 ? 'all 200, chain ok' : `**FAILED: ${failed.join(', ')}**`;
}

function renderDoc({ machine, outcomes, verify, parsers, readOutcomes, paging }) {
  const s = SETTINGS;
  return `# Benchmarks

<!-- Generated by bench/run.mjs (\`npm run bench\`); edit the script, not this file. Reruns change only the numbers. -->

Measured on one machine, in one run. Absolute numbers depend on the machine, on whatever else it
is running (see the load average) and on its disk's fsync latency; compare the **ratios**, which are
measured in the same run, on the same server process, in interleaved slices.

## Machine

${table(
  ['Item', 'Value'],
  [
    ['CPU', machine.cpu],
    ['Memory', machine.memory],
    ['OS', machine.os],
    ['Node.js', machine.node],
    ['SQLite (better-sqlite3)', machine.sqlite],
    ['PostgreSQL', machine.postgres ?? 'not used'],
    ['Date (UTC)', machine.date],
    ['Load average 1/5/15 min, at start → at end', `${machine.loadBefore} → ${machine.loadAfter}`],
  ],
)}

## Method

- Each scenario starts the server as a child process (\`finance-desk serve\`) on a fresh database:
  a new SQLite file in the temp directory, or a new PostgreSQL database (\`CREATE DATABASE fd_bench_…\`,
  dropped afterwards). An organisation is created first with \`finance-desk org create --json\` and
  its agent key is used for the writes. Rate limits are set to ${int(Number(HIGH_RATE))}/s so they never bite;
  \`LOG_LEVEL=warn\`; \`FD_BENCH_BARE_ROUTE=1\`.
- Load comes from autocannon in the parent process: ${s.connections} connections, pipelining ${s.pipelining}.
  Each route first gets a ${s.warmupSeconds} s warm-up (counted for errors, not for speed), then ${s.seconds} s of measurement
  per route, taken in ${s.rounds} alternating slice(s) of ${+(s.seconds / s.rounds).toFixed(2)} s (bare, write, write, bare, …) so that a change
  in the machine's background load weighs on both sides of the ratio. req/s is the 2xx responses
  over the measured seconds; p50/p99 are exact percentiles of every measured response's latency.
  Both routes get the same JSON body (${Buffer.byteLength(BODY)} bytes):
  - **bare**: \`POST /bench/bare\` parses the body and echoes it — HTTP, JSON and Fastify, with no
    authentication and no storage. The ceiling for any route on this server.
  - **invoiceDraft**: \`POST /api/v1/books.invoiceDraft\` with \`Authorization: Bearer <agent key>\` —
    authentication, validation, and one transaction that inserts the invoice and appends a
    hash-chained ledger event.
- Every response is counted: any non-2xx or socket error (warm-up included) fails the run. After
  the server stops, \`finance-desk verify --org bench\` recomputes the whole chain and must find it
  intact and holding every acknowledged write.
- Server CPU is the child's user + system time over the measured slices (100 % = one core), and
  **server CPU µs/req** that time divided by the requests answered. Time spent blocked (in fsync, or
  waiting for the next request) is not CPU time. The load generator shares the same ${os.cpus().length} cores.
${ledger.verifyMethod(verify, { int })}
${paging.length ? ledger.pagingMethod(s.events) : ''}

## Write throughput against the bare route

${ratioTable(outcomes)}

${goalLine(outcomes)}

### Detail

${detailTable(outcomes)}

### Chain after the run

${chainTable(outcomes)}

## Ledger verification

${verifyTable(verify)}

## Events paging over HTTP

${ledger.pagingTable(paging, { table, int })}

${ledger.pagingGoal(paging, { int })}

## Read cost: reports over many documents

An organisation is seeded with N posted documents (bench/seed-books.mjs: three in four sent
invoices, one in four approved bills, half of them paid; one transaction, in the rows the
domain's postings write), then each read is called ${s.readRepeats} times, one request at a time, with the
reader key, alternating with the bare route; the figures are medians. One request at a time on
purpose: on SQLite a read runs on the event loop (better-sqlite3 is synchronous), so its latency
is how long every other request waits. **÷ bare** is the read's latency over the bare route's;
**µs / line** is the latency per journal line in the books; the last column is the latency at
the largest size over the smallest, to compare with the growth of the journal lines (the
"linear" figure): well above it would be super-linear. The 200-line bank import (agent key)
runs once per size. PostgreSQL's statistics are refreshed (\`ANALYZE\`) after seeding, as
autovacuum would. Before issue 8's fix, SQLite took 2 s for these reports at 3 000 invoices and
8 s at 6 000 (quadratic).

${readTables(readOutcomes)}

## Bank statement parsers

${parserTable(parsers, table)}

Each format's ordinary ~1 MB statement (under the 5 000-line cap) against ~1 MB hostile bodies of
the same format, through \`parseBankFile\` in this process (bench/parsers.mjs). A parser that is
linear and stops at its cap keeps **hostile ÷ ordinary** near or below 1; before issue 8 item 3 the
OFX reader did not answer the first two OFX bodies within 30 s.

## How to read this

- **write ÷ bare** is the headline. It is the share of the server's plain HTTP+JSON capacity left
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
  a closed loop, latency ≈ connections ÷ throughput.
- **stored-row verify ÷ fastest raw SHA-256** is how close \`finance-desk verify\`'s per-row work
  (link, build the hash input, hash, compare, check the payload is canonical) runs to hashing the
  same bytes alone (issue 14 goal: ≥ 80 %).
- **Events paging**: rows/s of one sequential client over HTTP at the largest page (goal ≥ 100 000),
  and whether the server's memory stays flat while a million rows go through it.
`;
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const selected = SCENARIOS.filter((s) => {
    if (SETTINGS.only.length > 0 && !SETTINGS.only.includes(s.id)) return false;
    return s.engine !== 'postgres' || Boolean(SETTINGS.postgresUrl);
  });
  // `ledger` alone: only the verifier and events-paging sections (issue 14 goal 3).
  const ledgerOnly = SETTINGS.only.includes('ledger');
  const unknown = SETTINGS.only.filter((id) => id !== 'ledger' && !SCENARIOS.some((s) => s.id === id));
  if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS: unknown scenario ${unknown.join(', ')}`);
  if (!SETTINGS.postgresUrl) log('PostgreSQL skipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to include it');

  const machine = await machineInfo(selected.some((s) => s.engine === 'postgres'));
  const outcomes = new Map();
  for (const scenario of selected) {
    const outcome = await runScenario(scenario);
    outcomes.set(scenario.id, outcome);
    const { bare, write } = outcome.results;
    log(
      `${scenario.label}: bare ${int(bare.reqPerSec)} req/s, invoiceDraft ${int(write.reqPerSec)} req/s, ` +
        `ratio ${pct(write.reqPerSec / bare.reqPerSec)}; ${checkText(outcome)}`,
    );
  }
  const readOutcomes = [];
  const readScenarios = [
    { id: 'sqlite-full', label: 'SQLite', engine: 'sqlite', synchronous: 'FULL' },
    ...(selected.some((s) => s.engine === 'postgres') ? [{ id: 'postgres', label: 'PostgreSQL', engine: 'postgres' }] : []),
  ];
  for (const scenario of ledgerOnly ? [] : readScenarios) {
    for (const documents of SETTINGS.readDocuments) {
      log(`read cost: ${scenario.label}, seeding ${int(documents)} documents`);
      const r = await runReadScenario(scenario, documents);
      readOutcomes.push(r);
      log(
        `read cost: ${scenario.label} ${int(documents)} documents (${int(r.journalLines)} lines): bare ${ms(r.bareMs)} ms, ` +
          READS.map((read) => `${read.id} ${ms(r.reads[read.id])} ms`).join(', ') +
          `, import ${ms(r.importMs)} ms`,
      );
    }
  }
  log(`ledger verifier micro-benchmark: ${int(SETTINGS.verifyRows)} rows, best of ${SETTINGS.verifyRepeats}`);
  const verify = await ledger.verifyBench({ protocolDist: PROTOCOL_DIST, rows: SETTINGS.verifyRows, repeats: SETTINGS.verifyRepeats });
  log(`stored-row verify ${int(verify.storedPerSec)} rows/s, raw SHA-256 ${int(verify.shaPerSec)} rows/s, ratio ${pct(verify.ratio)}`);
  const paging = [];
  const pagingScenarios = [readScenarios[0], ...(SETTINGS.postgresUrl && (ledgerOnly || selected.some((s) => s.engine === 'postgres')) ? [{ id: 'postgres', label: 'PostgreSQL', engine: 'postgres' }] : [])];
  for (const scenario of SETTINGS.events > 0 ? pagingScenarios : []) {
    const ctx = { root: ROOT, prepareStorage, serverEnv, freePort, startServer, runCli, pendingCleanup, log, orgSlug: ORG_SLUG };
    paging.push(await ledger.pagingBench(scenario, SETTINGS.events, ctx));
    log(`events paging: ${ledger.pagingGoal(paging.slice(-1), { int })}`);
  }

  machine.loadAfter = load();
  const parsers = await parserBench();
  log(`bank parsers: ${parsers.rows.map((r) => `${r.format} ${r.body} ${r.ms.toFixed(1)} ms`).join('; ')}`);
  const doc = renderDoc({ machine, outcomes, verify, parsers, readOutcomes, paging });
  const failed = [...outcomes.values()].filter((o) => Object.values(o.checks).some((ok) => !ok));
  process.stdout.write(
    `\n${ratioTable(outcomes)}\n\n${detailTable(outcomes)}\n\n${chainTable(outcomes)}\n\n${verifyTable(verify)}\n\n${ledger.pagingTable(paging, { table, int })}\n\n${readTables(readOutcomes)}\n\n`,
  );
  if (failed.length > 0) {
    for (const o of failed) {
      log(`${o.scenario.label} failed checks: ${JSON.stringify(o.checks)}`);
      log(`write status codes: ${JSON.stringify(o.results.write.statusCodes)}; server output tail:\n${o.serverTail}`);
    }
    log(`not writing ${SETTINGS.out}: a check failed`);
    process.exitCode = 1;
    return;
  }
  if (SETTINGS.out === '-' || SETTINGS.out === '') {
    log('BENCH_OUT=- : document not written');
    return;
  }
  writeFileSync(SETTINGS.out, doc);
  log(`wrote ${SETTINGS.out}`);
}

main().catch((error) => {
  process.stderr.write(`[bench] ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
