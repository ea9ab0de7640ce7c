/**
 * Helpers for tests that run the real CLI as separate OS processes (`serve`, `org create`,
 * `verify`) against one database: free ports, spawning, health waits, orderly shutdown.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The operator CLI, resolved relative to this file (packages/server/bin/finance-desk.js). */
export const BIN = fileURLToPath(new URL('../bin/finance-desk.js', import.meta.url));

/** A brand-new PostgreSQL database `fd_mp_<random>` next to `adminUrl`; `drop` removes it WITH (FORCE). */
export async function createScratchDatabase(adminUrl: string): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `fd_mp_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** `n` distinct free TCP ports on 127.0.0.1 (all held open at once, then released). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<import('node:net').Server>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => {
    const addr = s.address();
    if (addr === null || typeof addr === 'string') throw new Error('no port');
    return addr.port;
  });
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  return ports;
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Run one CLI command to completion (asynchronously, so running servers are not starved). */
export function runCli(env: NodeJS.ProcessEnv, args: readonly string[], timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...env }, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, out: stdout, err: stderr });
      },
    );
  });
}

export interface ServeProcess {
  readonly index: number;
  readonly port: number;
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Exit code / signal once it has exited, else null. */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | null;
}

// Children still running when this (test worker) process exits are killed, so that a test run
// that ends without its afterAll (a crash, process.exit) does not leave servers behind.
const live = new Set<ChildProcess>();
let exitHook = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
}

/** Spawn `finance-desk serve` on `port`; output is captured for diagnostics. */
export function spawnServe(index: number, port: number, env: NodeJS.ProcessEnv): ServeProcess {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let buf = '';
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const keep = (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    if (buf.length > 1_000_000) buf = buf.slice(-1_000_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code, signal) => {
    exit = { code, signal };
  });
  return {
    index,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => buf,
    exited: () => exit,
  };
}

/** Poll `GET /healthz` until it answers 200; fail early if the process exits. */
export async function waitHealthy(p: ServeProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exit = p.exited();
    if (exit) {
      throw new Error(`serve #${p.index} (port ${p.port}) exited before healthy: code ${exit.code} signal ${exit.signal}\n${p.output()}`);
    }
    try {
      const res = await fetch(`${p.url}/healthz`);
      await res.text();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`serve #${p.index} (port ${p.port}) not healthy after ${timeoutMs} ms\n${p.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopServe(p: ServeProcess, graceMs = 10_000): Promise<void> {
  if (p.exited()) return;
  const gone = new Promise<void>((resolve) => {
    p.child.once('exit', () => resolve());
    if (p.exited()) resolve();
  });
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (!p.exited()) p.child.kill('SIGKILL');
  }, graceMs);
  try {
    await gone;
  } finally {
    clearTimeout(timer);
  }
}
