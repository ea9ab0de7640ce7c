// The run's settings, read once from the environment (bench/README.md lists the variables).
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: the compiled packages, the CLI and docs/ are found from it. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function envNumber(name, fallback, { min = 0, integer = false } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} of at least ${min}, got "${raw}"`);
  }
  return n;
}

export const SETTINGS = {
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
  readRepeats: envNumber('BENCH_READ_REPEATS', 20, { min: 1, integer: true }),
  importRepeats: envNumber('BENCH_IMPORT_REPEATS', 3, { min: 1, integer: true }),
  // The multi-process goals: server processes sharing one PostgreSQL database, and the organisations of
  // the many-organisation phase (the naive baseline runs the same count).
  pgProcesses: envNumber('BENCH_PG_PROCESSES', 4, { min: 1, integer: true }),
  pgOrgs: envNumber('BENCH_PG_ORGS', 8, { min: 1, integer: true }),
  // The many-orgs scenario: organisations of a few events and large ones, the organisations the
  // throughput is spread over, and the servers' per-key cache caps (below the organisation count,
  // so that the caps are reached).
  manyOrgs: {
    orgs: envNumber('BENCH_MANY_ORGS', 10_000, { min: 8, integer: true }),
    events: envNumber('BENCH_MANY_ORGS_EVENTS', 100, { min: 1, integer: true }),
    largeOrgs: envNumber('BENCH_MANY_ORGS_LARGE', 10, { min: 0, integer: true }),
    largeEvents: envNumber('BENCH_MANY_ORGS_LARGE_EVENTS', 100_000, { min: 1, integer: true }),
    active: envNumber('BENCH_MANY_ORGS_ACTIVE', 1_000, { min: 8, integer: true }),
    cacheMax: envNumber('BENCH_MANY_ORGS_CACHE_MAX', 2_000, { min: 1, integer: true }),
  },
};
