// The compiled server as an operator runs it: the CLI as a child process, `serve` on a free port,
// a fresh database per scenario, and what to undo when the run stops early.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './settings.mjs';

/** The operator CLI (`finance-desk`), run as a node script. */
export const CLI = join(ROOT, 'packages/server/bin/finance-desk.js');

/** `require` as the server package resolves it: pg and better-sqlite3 are its dependencies. */
export const serverRequire = createRequire(join(ROOT, 'packages/server/package.json'));

/** The organisation every scenario creates first (the multi-process scenario adds `bench-1` …). */
export const ORG_SLUG = 'bench';

// The largest limit the server's config accepts (it validates at most 1 000 000), far
// above any rate reached here, so the limiter never answers 429 during a run.
export const HIGH_RATE = '1000000';

/** The storage the read-cost and events-paging scenarios run on, one per engine. */
export const SQLITE = { id: 'sqlite-full', label: 'SQLite', engine: 'sqlite', synchronous: 'FULL' };
export const POSTGRES = { id: 'postgres', label: 'PostgreSQL', engine: 'postgres' };

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Run the CLI to completion; resolve with stdout, reject with stderr on a non-zero exit. */
export function runCli(args, env) {
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

/** `finance-desk verify --org` as JSON; a broken chain (exit 1) still prints its verdict. */
export async function verifyOrg(env, slug) {
  try {
    return JSON.parse(await runCli(['verify', '--org', slug, '--json'], env));
  } catch (error) {
    return error.out ? JSON.parse(error.out) : { ok: false, error: String(error.message) };
  }
}

/** fn over items, at most `limit` at a time (CLI children: the machine has few cores). */
export async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function freePort() {
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

/**
 * The node flags `npm start` gives the server (package.json), so that the bench measures the
 * server as it is run: the default young generation proved too small for a busy server
 * (GC pauses in the half-load p99).
 */
export const SERVE_NODE_FLAGS = (() => {
  const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const m = /\bnode((?:\s+--\S+)*)\s+packages\/server\/bin\/finance-desk\.js serve\b/.exec(start);
  if (!m) throw new Error(`cannot read the server's node flags from the start script: ${start}`);
  // BENCH_EXTRA_NODE_FLAGS: added after them (a profiler, say; bench/README.md).
  return [...m[1].trim().split(/\s+/).filter(Boolean), ...(process.env.BENCH_EXTRA_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean)];
})();

/**
 * Start `serve` (or, with `argv`, another node script that answers GET /healthz: the limit server)
 * and wait for /healthz. Keeps the tail of its output for diagnostics.
 */
export async function startServer(env, port, argv = [...SERVE_NODE_FLAGS, CLI, 'serve']) {
  const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The environment of a CLI call or `serve` process on `storage`, listening on `port`. */
export function serverEnv(storage, port) {
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

/** CPU seconds (user + system) used so far by a process, from /proc (Linux only; else null). */
export function cpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11] is utime and fields[12] stime (fields 14 and 15 of proc(5), counted from 1).
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** VmRSS of a process in bytes, from /proc (Linux only; else null). */
export function rssOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export async function withPgClient(url, fn) {
  const pg = serverRequire('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database for `scenario` (`engine`, and `synchronous` for SQLite): a new SQLite file in a
 * temp directory under `settings.tmpRoot`, or `CREATE DATABASE fd_bench_<random>` on
 * `settings.postgresUrl`. `cleanup()` removes it.
 */
export async function prepareStorage(scenario, settings) {
  if (scenario.engine === 'sqlite') {
    const dir = mkdtempSync(join(settings.tmpRoot, 'fd-bench-'));
    return {
      databaseUrl: `sqlite:${join(dir, 'finance-desk.db')}`,
      env: { SQLITE_SYNCHRONOUS: scenario.synchronous },
      async cleanup() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `fd_bench_${randomBytes(6).toString('hex')}`;
  await withPgClient(settings.postgresUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(settings.postgresUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    env: {},
    async cleanup() {
      await withPgClient(settings.postgresUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * What to undo if the run is interrupted (Ctrl-C): the running servers and the scratch databases.
 * A scenario adds each stop or drop here as soon as it exists and removes it once done.
 */
export const pendingCleanup = new Set();

/** On SIGINT or SIGTERM, run what is pending, then exit 130. */
export function cleanupOnSignals(log) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      Promise.allSettled([...pendingCleanup].map((fn) => fn())).finally(() => process.exit(130));
    });
  }
}
