import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { outboxCounts } from '../adapters/outbox.js';
import type { Database } from '../storage/types.js';

/**
 * Prometheus metrics, one registry per app (tests run many apps in a process).
 * Label values are bounded: a route label is a declared method or read name, a fixed route of the
 * app, or `unmatched`; a status is an HTTP status; an outcome is one of a fixed set. Nothing a
 * client sends becomes a label value except through those closed sets.
 *
 * Scraping needs `Authorization: Bearer <METRICS_TOKEN>`; without METRICS_TOKEN configured the route
 * does not exist (404), so an operator never exposes metrics by accident.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly requests: Counter<'route' | 'status'>;
  readonly duration: Histogram<'route'>;
  readonly inFlight: Gauge<'route'>;
  /** POST method calls by outcome: ok, replay (idempotent), hold (a signature act held), or the error code. */
  readonly writes: Counter<'method' | 'outcome'>;
  readonly rateLimited: Counter;
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A cache whose entry count /metrics reports (fd_cache_entries). */
export interface SizedCache {
  readonly size: number;
}

export function createMetrics(db: Database, caches: Readonly<Record<string, SizedCache>> = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'fd_' });
  const requests = new Counter({
    name: 'fd_http_requests_total',
    help: 'HTTP requests answered, by route and status.',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'fd_http_request_duration_seconds',
    help: 'Time from the request arriving to its answer being sent, by route.',
    labelNames: ['route'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'fd_http_requests_in_flight',
    help: 'Requests being served now, by route (approval.wait counts the long-polling approval waiters).',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const writes = new Counter({
    name: 'fd_writes_total',
    help: 'POST method calls by method and outcome: ok, replay, hold, or the error code.',
    labelNames: ['method', 'outcome'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'fd_rate_limited_total',
    help: 'Requests refused with RATE_LIMITED.',
    registers: [registry],
  });
  new Gauge({
    name: 'fd_outbox_backlog',
    help: 'Outbox rows of every organisation: queued (still to deliver) and undeliverable (given up on; `finance-desk outbox retry`).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const backlog = await outboxCounts(db.reader, null);
      this.set({ state: 'queued' }, backlog.queued);
      this.set({ state: 'undeliverable' }, backlog.undeliverable);
    },
  });
  // Group commit (storage/sqlite.ts: the one writer; storage/postgres.ts: per organisation): how
  // many units of work share each commit.
  const grouped = db as { observeCommits?: (fn: (units: number) => void) => void };
  if (grouped.observeCommits) {
    const batches = new Histogram({
      name: 'fd_group_commit_units',
      help: 'Units of work (writes) per group commit (SQLite: all organisations; PostgreSQL: one organisation per commit).',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
      registers: [registry],
    });
    grouped.observeCommits((units) => batches.observe(units));
  }
  const pool = (db as { pool?: { totalCount: number; idleCount: number; waitingCount: number } }).pool;
  if (pool) {
    new Gauge({
      name: 'fd_db_pool_connections',
      help: 'PostgreSQL pool: total, idle, and requests waiting for a connection.',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }
  // What a process keeps per API key, so that an operator sees it stay at its configured cap
  // (PRINCIPAL_CACHE_MAX, RATE_LIMIT_BUCKETS_MAX) however many organisations write.
  if (Object.keys(caches).length > 0) {
    new Gauge({
      name: 'fd_cache_entries',
      help: 'Entries of the per-key caches: principals (remembered API keys) and rate_limit_buckets (the in-process limiter).',
      labelNames: ['cache'] as const,
      registers: [registry],
      collect() {
        for (const [name, cache] of Object.entries(caches)) this.set({ cache: name }, cache.size);
      },
    });
  }
  return { registry, requests, duration, inFlight, writes, rateLimited };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * Per-request bookkeeping and the /metrics route. `routeOf` names a request by a bounded label.
 */
export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  token: string | null,
  routeOf: (req: FastifyRequest) => string,
  deny: (reply: FastifyReply, status: number, code: 'UNAUTHORIZED' | 'NOT_FOUND', message: string) => FastifyReply,
): void {
  const m = metrics;
  const started = new WeakMap<FastifyRequest, { at: bigint; route: string }>();
  app.addHook('onRequest', (req) => {
    started.set(req, { at: process.hrtime.bigint(), route: '' });
    return Promise.resolve();
  });
  app.addHook('preHandler', async (req, reply) => {
    const s = started.get(req);
    if (!s) return;
    const route = routeOf(req);
    s.route = route;
    m.inFlight.inc({ route });
    // 'close' comes when the answer is sent and also when the caller hangs up first (onResponse
    // does not run then), so an abandoned long-poll is no longer counted as a waiter.
    reply.raw.once('close', () => m.inFlight.dec({ route }));
  });
  app.addHook('onResponse', async (req, reply) => {
    const s = started.get(req);
    if (!s) return;
    const route = s.route || routeOf(req);
    m.requests.inc({ route, status: String(reply.statusCode) });
    m.duration.observe({ route }, Number(process.hrtime.bigint() - s.at) / 1e9);
  });
  const expected = token ? sha256(token) : null;
  app.get('/metrics', async (req, reply) => {
    if (!expected) return deny(reply, 404, 'NOT_FOUND', 'no route GET /metrics: set METRICS_TOKEN to serve metrics');
    const header = req.headers.authorization;
    const given = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
    // Compare digests: constant time, whatever the lengths.
    if (!timingSafeEqual(sha256(given), expected))
      return deny(reply, 401, 'UNAUTHORIZED', 'metrics: send Authorization: Bearer <METRICS_TOKEN>');
    const text = await metrics.registry.metrics();
    return reply.code(200).type(metrics.registry.contentType).send(text);
  });
}
