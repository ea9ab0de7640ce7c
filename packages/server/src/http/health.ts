import type { Database } from '../storage/types.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * Liveness and readiness (docs/operations.md, "Health, readiness, logs, metrics and shutdown").
 * - `/healthz`: the process runs and its event loop answers. Nothing is asked of anything else, so
 *   an orchestrator never restarts a healthy process because its database blinked.
 * - `/readyz`: this process can serve: the database answers a query, every migration this build
 *   knows (the list the database was opened with, `Database.migrations`) is applied (a process
 *   started against a database an older build migrated is not ready), and, when REDIS_URL is
 *   configured, Redis answers PING. Each check is bounded by READY_CHECK_TIMEOUT_MS, so a hung
 *   dependency makes /readyz say 503, never hang.
 * Neither route needs a credential or reveals a URL, host or secret: only check names and states.
 */
export const READY_CHECK_TIMEOUT_MS = 2_000;

export interface Check {
  readonly ok: boolean;
  readonly ms: number;
  readonly detail?: string;
}

export interface Readiness {
  readonly ok: boolean;
  readonly checks: Readonly<Record<string, Check>>;
}

async function timed(run: () => Promise<string | undefined>): Promise<Check> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const detail = await Promise.race([
      run(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${READY_CHECK_TIMEOUT_MS} ms`)), READY_CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, ms: Math.round(performance.now() - started), ...(detail ? { detail } : {}) };
  } catch (error) {
    // The error's class of failure only: driver messages can carry host names.
    const code = (error as { code?: string }).code;
    const text =
      error instanceof Error && /^(no answer in|Redis connection|\d+ migration)/.test(error.message) ? error.message : 'unreachable';
    return { ok: false, ms: Math.round(performance.now() - started), detail: code ? `${text} (${code})` : text };
  } finally {
    clearTimeout(timer);
  }
}

export async function readiness(db: Database, limiter: RateLimiter): Promise<Readiness> {
  const [database, schema, redis] = await Promise.all([
    timed(async () => {
      await db.reader.get('SELECT 1 AS one');
      return db.caps.engine;
    }),
    timed(async () => {
      const applied = new Set((await db.reader.all<{ id: number | string }>('SELECT id FROM schema_migrations')).map((r) => Number(r.id)));
      const pending = db.migrations.filter((m) => !applied.has(m.id)).length;
      if (pending > 0) throw new Error(`${pending} migration(s) not applied`);
      return `${db.migrations.length} applied`;
    }),
    limiter.ping ? timed(async () => (await limiter.ping?.(), undefined)) : null,
  ]);
  const checks: Record<string, Check> = { database, migrations: schema };
  if (redis) checks.redis = redis;
  return { ok: Object.values(checks).every((c) => c.ok), checks };
}
