// The per-stage budget of one write on SQLite FULL, by profiling: the service (`serve`) and the
// limit server (bench/limit.mjs), each a child process with the start script's node flags plus
// `--cpu-prof`, driven with the single-process scenario's autocannon settings. Each route gets a
// warm-up, then one measured window; the window's samples are attributed to stages
// (bench/profile.mjs) and divided by the writes answered in it. Afterwards the service's chain must
// verify and the limit's check pass, as in the throughput scenarios.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BILL_BODY, BODY, newTally, only200, requestOptions, slice, summarise } from '../harness/load.mjs';
import { int, log, notRunReason, table } from '../harness/report.mjs';
import {
  ORG_SLUG,
  SERVE_NODE_FLAGS,
  SQLITE,
  freePort,
  pendingCleanup,
  prepareStorage,
  runCli,
  serverEnv,
  startServer,
  verifyOrg,
} from '../harness/server.mjs';
import { ROOT } from '../harness/settings.mjs';
import { checkChain } from '../limit.mjs';
import { IDLE, STAGES, attribute, perWrite } from '../profile.mjs';
import { LIMIT_BODY } from './limit.mjs';

export const name = 'profile';

/** Its BENCH_SCENARIOS name. */
export const ID = 'profile';

/** V8's sampling interval, µs: fine enough for a stage of a few µs per write over a few seconds. */
const INTERVAL_MICROS = 250;

/** The columns: the service's routes (one with a fresh idempotency key per request), then the limit's write. */
const COLUMNS = [
  { id: 'draft', label: 'invoiceDraft', server: 'service', path: '/api/v1/books.invoiceDraft', auth: true, body: BODY },
  {
    id: 'draftKeyed',
    label: 'invoiceDraft + idempotency key',
    server: 'service',
    path: '/api/v1/books.invoiceDraft',
    auth: true,
    body: BODY,
    keyed: true,
  },
  { id: 'bill', label: 'billCapture', server: 'service', path: '/api/v1/books.billCapture', auth: true, body: BILL_BODY },
  { id: 'limit', label: 'limit write', server: 'limit', path: '/write', auth: false, body: LIMIT_BODY },
];

const SCENARIO = { id: ID, label: 'Per-stage budget, SQLite FULL', engine: 'sqlite' };

const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

/** autocannon's options for a column: with `keyed`, each request carries an idempotency key of its own. */
function optionsOf(server, column, agentKey, settings) {
  const opts = requestOptions(server, column, agentKey, settings);
  if (!column.keyed) return opts;
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  return {
    ...opts,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-idempotency-key': `${prefix}-${(n += 1)}` } }) }],
  };
}

/** Warm-up, then one measured window per column on `server`; the windows (µs, monotonic) and tallies. */
async function drive(server, columns, agentKey, settings, label) {
  const out = new Map();
  const opts = new Map(columns.map((c) => [c.id, optionsOf(server, c, agentKey, settings)]));
  const tallies = new Map(columns.map((c) => [c.id, newTally()]));
  if (settings.warmupSeconds > 0) {
    log(`${label}: warm-up, ${settings.warmupSeconds} s per route`);
    for (const c of columns) await slice(server, opts.get(c.id), tallies.get(c.id), settings.warmupSeconds, false);
  }
  log(`${label}: profiling, ${settings.seconds} s per route`);
  for (const c of columns) {
    const from = nowMicros();
    await slice(server, opts.get(c.id), tallies.get(c.id), settings.seconds, true);
    out.set(c.id, { from, to: nowMicros() });
  }
  return { windows: out, results: new Map([...tallies].map(([id, t]) => [id, summarise(t)])) };
}

/** The one profile a process wrote into `dir` on exit. */
function profileIn(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`expected one CPU profile in ${dir}, found ${files.length}`);
  return JSON.parse(readFileSync(join(dir, files[0]), 'utf8'));
}

const profileFlags = (dir) => ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${INTERVAL_MICROS}`];

/** Each column's budget from its window of `profile`; `writes`: the 2xx answered in the window. */
function budgets(profile, columns, driven) {
  return columns.map((c) => {
    const window = driven.windows.get(c.id);
    const r = driven.results.get(c.id);
    const a = attribute(profile, window);
    return [c.id, { ...perWrite(a, r.ok), samples: a.samples, unmatched: a.unmatched, reqPerSec: r.reqPerSec, result: r }];
  });
}

async function profileService(settings, dir) {
  const columns = COLUMNS.filter((c) => c.server === 'service');
  const storage = await prepareStorage(SQLITE, settings);
  const dropStorage = () => storage.cleanup();
  pendingCleanup.add(dropStorage);
  const port = await freePort();
  const env = serverEnv(storage, port);
  let server = null;
  try {
    const created = JSON.parse(await runCli(['org', 'create', '--name', 'Bench', '--slug', ORG_SLUG, '--json'], env));
    const profDir = join(dir, 'service');
    server = await startServer(env, port, [
      ...SERVE_NODE_FLAGS,
      ...profileFlags(profDir),
      join(ROOT, 'packages/server/bin/finance-desk.js'),
      'serve',
    ]);
    const stopServer = server.stop;
    pendingCleanup.add(stopServer);
    const driven = await drive(server, columns, created.keys.agent, settings, `${SCENARIO.label}: service`);
    const exit = await server.stop();
    pendingCleanup.delete(stopServer);
    server = null;
    const verdict = await verifyOrg(env, ORG_SLUG);
    const checks = {
      serviceAll200: columns.every((c) => only200(driven.results.get(c.id))),
      serviceChainOk: verdict.ok === true,
      serviceCleanExit: exit.code === 0 || exit.signal === 'SIGTERM',
    };
    return { budgets: budgets(profileIn(profDir), columns, driven), checks };
  } finally {
    if (server) await server.stop();
    await storage.cleanup();
    pendingCleanup.delete(dropStorage);
  }
}

async function profileLimit(settings, dir) {
  const columns = COLUMNS.filter((c) => c.server === 'limit');
  const file = join(dir, 'limit.db');
  let server = null;
  try {
    const port = await freePort();
    const profDir = join(dir, 'limit');
    server = await startServer({ ...process.env, LIMIT_DB: file, PORT: String(port) }, port, [
      ...SERVE_NODE_FLAGS,
      ...profileFlags(profDir),
      join(ROOT, 'bench/limit.mjs'),
    ]);
    const stopServer = server.stop;
    pendingCleanup.add(stopServer);
    const driven = await drive(server, columns, null, settings, `${SCENARIO.label}: limit server`);
    const exit = await server.stop();
    pendingCleanup.delete(stopServer);
    server = null;
    const r = driven.results.get('limit');
    const slices = (settings.warmupSeconds > 0 ? 1 : 0) + 1;
    const problems = checkChain(file, r.ok + r.warm.ok, slices * settings.connections * settings.pipelining);
    const checks = {
      limitAll200: only200(r),
      limitChainOk: problems.length === 0,
      limitCleanExit: exit.code === 0 || exit.signal === 'SIGTERM',
    };
    return { budgets: budgets(profileIn(profDir), columns, driven), checks, problems };
  } finally {
    if (server) await server.stop();
  }
}

export async function run(settings) {
  const dir = mkdtempSync(join(settings.tmpRoot, 'fd-bench-profile-'));
  const removeDir = async () => rmSync(dir, { recursive: true, force: true });
  pendingCleanup.add(removeDir);
  try {
    const service = await profileService(settings, dir);
    const limit = await profileLimit(settings, dir);
    const outcome = {
      budgets: new Map([...service.budgets, ...limit.budgets]),
      checks: { ...service.checks, ...limit.checks },
      problems: limit.problems,
    };
    const b = outcome.budgets;
    log(
      `${SCENARIO.label}: busy µs per write — ${COLUMNS.map((c) => `${c.label} ${b.get(c.id).busy.toFixed(1)}`).join(', ')}` +
        (limit.problems.length === 0 ? '' : `; limit chain FAILED: ${limit.problems.join('; ')}`),
    );
    return outcome;
  } finally {
    await removeDir();
    pendingCleanup.delete(removeDir);
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const us = (n) => (n === null || n === undefined ? '—' : n.toFixed(1));

/** The stage table: µs per write per stage, each column's total, idle and wall time, writes/s under the profiler. */
function budgetTable(o, settings) {
  if (!o) return `_${notRunReason(SCENARIO, settings)}._`;
  const b = (id) => o.budgets.get(id);
  const header = ['Stage', ...COLUMNS.map((c) => `${c.label} µs`), 'invoiceDraft − limit µs'];
  const rows = STAGES.map((s) => [
    s.label,
    ...COLUMNS.map((c) => us(b(c.id).stages[s.id])),
    us(b('draft').stages[s.id] - b('limit').stages[s.id]),
  ]);
  rows.push([
    '**Busy (the stages above)**',
    ...COLUMNS.map((c) => `**${us(b(c.id).busy)}**`),
    `**${us(b('draft').busy - b('limit').busy)}**`,
  ]);
  rows.push(['Idle (event loop waiting)', ...COLUMNS.map((c) => us(b(c.id).stages[IDLE])), '']);
  rows.push(['Wall time per write (busy + idle)', ...COLUMNS.map((c) => us(b(c.id).wall)), '']);
  rows.push(['writes/s under the profiler', ...COLUMNS.map((c) => int(b(c.id).reqPerSec)), '']);
  rows.push(['samples in the window', ...COLUMNS.map((c) => int(b(c.id).samples)), '']);
  return table(header, rows);
}

function whyTable() {
  return table(
    ['Stage', 'What it holds, and why it costs what it does'],
    STAGES.map((s) => [s.label, s.why]),
  );
}

function checkText(o) {
  const failed = Object.entries(o.checks)
    .filter(([, ok]) => !ok)
    .map(([k]) => k);
  return failed.length === 0 ? 'all 200; the service chain verifies and the limit chain checks' : `**FAILED: ${failed.join(', ')}**`;
}

/** Its bullet of the document's Method section. */
export function method(_outcome, { settings: s }) {
  return `- **Per-stage budget** (\`${ID}\`, SQLite \`synchronous=FULL\`): the service (\`serve\`, a fresh database and
  organisation) and then the limit server (\`bench/limit.mjs\`), each a child process with the start
  script's node flags plus \`--cpu-prof --cpu-prof-interval=${INTERVAL_MICROS}\`, driven by autocannon as above
  (${s.connections} connections). Routes: invoiceDraft, invoiceDraft with a fresh \`x-idempotency-key\` per request,
  billCapture (the bodies above), and the limit's write. Each gets a ${s.warmupSeconds} s warm-up, then one
  ${s.seconds} s window timed on the monotonic clock the profile's timestamps use. The window's samples are
  attributed to stages by \`bench/profile.mjs\`: each sample's stack is walked from its innermost frame
  outwards and the first frame a rule names (by compiled file and function) gives its stage, so
  work done by a library or a builtin (SHA-256, JSON.stringify, node:events) counts for the stage
  that called it. A sample weighs the time since the one before (a thread blocked in fsync is
  sampled when the call returns). The stage's µs over the window, divided by the writes answered
  in it, is its µs per write. The rules and each stage's meaning are in \`bench/profile.mjs\`.`;
}

/** Its section. */
export function render(outcome, { settings }) {
  return `### Where a write's time goes (SQLite FULL, by profiling)

${budgetTable(outcome, settings)}

${outcome ? `Checks: ${checkText(outcome)}.` : ''}

The main thread's time per write, by stage, under the profiler (which slows every stage a little:
compare the stages with each other and with the limit's, not with the throughput tables). On a
busy machine a descheduled process's gap lands on whatever ran next, so a stage may carry a
little of others' time; the totals are exact. Why each stage costs what it does:

${whyTable()}`;
}

/** Its bullet of "How to read this". */
export function notes() {
  return `- **Per-stage budget**: µs of the server's main thread per write, by stage, from a CPU profile. Busy
  is the sum of the stages; idle is the event loop waiting (on SQLite, for the next requests to
  arrive). **invoiceDraft − limit** is what the service adds over the least a chained write costs,
  stage by stage: where the share the service keeps (÷ limit) is lost.`;
}

/** The tables printed on stdout at the end of the run (none when it did not run). */
export function tables(outcome, { settings }) {
  return outcome ? [budgetTable(outcome, settings)] : [];
}

/** What to log when a check failed (nothing when all passed). */
export function failures(outcome) {
  if (!outcome || Object.values(outcome.checks).every(Boolean)) return [];
  return [`${SCENARIO.label} failed checks: ${JSON.stringify(outcome.checks)} ${outcome.problems.join('; ')}`];
}
