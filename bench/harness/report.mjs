// What the run prints and writes: the progress log, number formats, markdown tables, and the
// machine the figures were measured on.
import os from 'node:os';
import { serverRequire, withPgClient } from './server.mjs';

export const log = (...args) => process.stderr.write(`[bench] ${args.join(' ')}\n`);

export const int = (n) => Math.round(n).toLocaleString('en-US');
export const ms = (n) => (n === undefined || n === null ? '—' : n < 10 ? n.toFixed(2) : n.toFixed(1));
export const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
export const pct = (n) => `${(n * 100).toFixed(1)} %`;
export const cpu = (n) => (n === null || n === undefined ? '—' : `${Math.round(n * 100)} %`);

export function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Why a scenario (`id`, `engine`) has no figures in this run. */
export function notRunReason(s, settings) {
  if (settings.only.length > 0 && !settings.only.includes(s.id)) return 'not run (BENCH_SCENARIOS)';
  if (s.engine === 'postgres' && !settings.postgresUrl) return 'not run (set BENCH_DATABASE_URL)';
  return 'not run';
}

/** The names of the checks that failed (an outcome's `checks`: name → passed). */
export const failedChecks = (checks) =>
  Object.entries(checks)
    .filter(([, ok]) => !ok)
    .map(([name]) => name);

/** The machine, the versions and the load average at the start (`loadAfter` is set by the caller at the end). */
export async function machineInfo(pgUsed, settings) {
  const cpus = os.cpus();
  const Database = serverRequire('better-sqlite3');
  const mem = new Database(':memory:');
  const sqliteVersion = mem.prepare('SELECT sqlite_version() AS v').get().v;
  mem.close();
  let pgVersion = null;
  if (pgUsed) {
    pgVersion = await withPgClient(settings.postgresUrl, async (c) => (await c.query('SHOW server_version')).rows[0].server_version);
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
