import type { FastifyInstance } from 'fastify';
import { mailerFor, type Mailer } from './adapters/email.js';
import { OutboxDispatcher } from './adapters/outbox.js';
import { FilePaymentSink, type PaymentSink } from './adapters/payments.js';
import { confirmStpLodged } from './domain/payroll/stp.js';
import { FileLodgementSink, Lodgements, type LodgementSink } from './adapters/lodgement.js';
import { confirmBasLodged } from './domain/tax/lodged.js';
import { clockOf, setClock } from './clock.js';
import { checkpointSweep, signerFrom } from './ledger/checkpoints.js';
import { setCheckpointVerifier } from './artifacts.js';
import {
  DEFAULT_AI_CONFIG,
  DEFAULT_LODGEMENT_OUTBOX_DIR,
  DEFAULT_PAYMENTS_OUTBOX_DIR,
  DEFAULT_DIGEST_SWEEP_MS,
  DEFAULT_REPEATING_SWEEP_MS,
  type Config,
} from './config.js';
import { buildApp } from './http/app.js';
import { MemoryRateLimiter, RATE_LIMIT_BUCKETS_MAX, RedisRateLimiter, type RateLimiter } from './http/rate-limit.js';
import { migrations } from './schema.js';
import { openMigrated } from './storage/open.js';
import type { Database } from './storage/types.js';
import { purgeIdempotency } from './write-path.js';
import { runRepeating } from './domain/repeating/sweep.js';
import { runDigests } from './human/digest-sweep.js';
import { AiGateway, setAiGateway } from './adapters/ai-gateway.js';
import { readTools } from './adapters/ai-tools.js';
import { methodRegistry } from './registry.js';
import { setPublicUrl } from './governance/approval-mail.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly db: Database;
  readonly outbox: OutboxDispatcher;
  readonly url: string;
  close(): Promise<void>;
}

const PURGE_EVERY_MS = 60 * 60 * 1000;
/** How long shutdown waits for in-flight requests before cutting their connections. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** How often the checkpoint sweep looks for heads that are due (at most; CHECKPOINT_EVERY_MS if shorter). */
const CHECKPOINT_SWEEP_MS = 15_000;
const IDEMPOTENCY_KEEP_MS = 48 * 60 * 60 * 1000;

/** The limiter for `config`; with REDIS_URL set, Redis must answer now or this throws. */
export async function rateLimiterFor(
  config: Pick<Config, 'redisUrl' | 'ratePerSecond' | 'rateBurst' | 'rateLimitBucketsMax'>,
  warn: (message: string) => void,
): Promise<RateLimiter> {
  const rate = { perSecond: config.ratePerSecond, burst: config.rateBurst };
  return config.redisUrl
    ? RedisRateLimiter.connect(config.redisUrl, rate, warn)
    : new MemoryRateLimiter(rate, config.rateLimitBucketsMax ?? RATE_LIMIT_BUCKETS_MAX);
}

/** `serve`: migrate, then listen. Also used by tests and benchmarks with their own database. */
export async function startServer(
  config: Config,
  options: {
    db?: Database;
    /** false: no log; a stream: the log's lines go there (at LOG_LEVEL) instead of stdout. */
    logger?: boolean | { stream: { write(line: string): void } };
    mailer?: Mailer;
    payments?: PaymentSink;
    lodgement?: LodgementSink;
  } = {},
): Promise<RunningServer> {
  // Until the app's logger exists, limiter warnings go to stderr; then through the logger.
  let warn = (message: string): void => void process.stderr.write(`${message}\n`);
  // Redis first: a misconfigured REDIS_URL fails the start before the database is touched.
  const rateLimiter = await rateLimiterFor(config, (message) => warn(message));
  // The schema is compared with what the migrations create before anything is served: a
  // database changed outside them (an added trigger, view, index) is refused (schema-check.ts).
  const db = await (
    options.db
      ? options.db.migrate({ checkSchema: true }).then(() => options.db as Database)
      : openMigrated(config.databaseUrl, {
          migrations,
          sqliteSynchronous: config.sqliteSynchronous,
          poolSize: config.databasePoolSize,
          checkSchema: true,
        })
  ).catch(async (error: unknown) => {
    await rateLimiter.close();
    throw error;
  });
  if (config.now) setClock(db, config.now);
  // Approval emails link to the console at this address.
  setPublicUrl(config.publicUrl ?? null);
  // books.ask's gateway: the configured provider, its tools the books reads.
  setAiGateway(db, new AiGateway(config.ai ?? DEFAULT_AI_CONFIG, readTools(methodRegistry.values())));
  const app = buildApp({
    db,
    rateLimiter,
    logger:
      options.logger === false
        ? false
        : typeof options.logger === 'object'
          ? { level: config.logLevel, stream: options.logger.stream }
          : { level: config.logLevel },
    benchRoute: config.benchRoute,
    cookieSecure: config.cookieSecure,
    pairRate: config.pairRate,
    metricsToken: config.metricsToken ?? null,
    publicUrl: config.publicUrl ?? null,
    oauth: config.oauth,
    principalCacheMax: config.principalCacheMax,
  });
  warn = (message) => app.log.warn(message);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const purge = setInterval(() => {
    purgeIdempotency(db, IDEMPOTENCY_KEEP_MS).catch((err: unknown) => app.log.error({ err }, 'idempotency purge failed'));
  }, PURGE_EVERY_MS);
  purge.unref();
  // Signed checkpoints: a sweep off the request path signs every head that is due.
  const signer = config.checkpoint ? signerFrom(config.checkpoint.keyName, config.checkpoint.seed) : null;
  if (signer) setCheckpointVerifier(db, { keyName: signer.name, verifierKey: signer.vkey });
  let checkpointTimer: NodeJS.Timeout | null = null;
  if (signer && config.checkpoint) {
    const policy = { everyEvents: config.checkpoint.everyEvents, everyMs: config.checkpoint.everyMs };
    let sweeping = false;
    const sweep = () => {
      if (sweeping) return;
      sweeping = true;
      checkpointSweep(db, signer, policy, clockOf(db)())
        .catch((err: unknown) => app.log.error({ err }, 'checkpoint sweep failed'))
        .finally(() => (sweeping = false));
    };
    checkpointTimer = setInterval(sweep, Math.min(policy.everyMs, CHECKPOINT_SWEEP_MS));
    checkpointTimer.unref();
  }
  // Repeating invoices and bills: a sweep off the request path makes what is due (domain/repeating).
  const repeatingMs = config.repeatingSweepMs ?? DEFAULT_REPEATING_SWEEP_MS;
  let repeatingTimer: NodeJS.Timeout | null = null;
  if (repeatingMs > 0) {
    let running = false;
    const sweepRepeating = () => {
      if (running) return;
      running = true;
      runRepeating(db, { log: (err: unknown) => app.log.error({ err }, 'repeating run failed') })
        .catch((err: unknown) => app.log.error({ err }, 'repeating sweep failed'))
        .finally(() => (running = false));
    };
    repeatingTimer = setInterval(sweepRepeating, repeatingMs);
    repeatingTimer.unref();
  }
  // The weekly digest: a sweep off the request path queues each organisation's email once a week.
  const digestMs = config.digestSweepMs ?? DEFAULT_DIGEST_SWEEP_MS;
  let digestTimer: NodeJS.Timeout | null = null;
  if (digestMs > 0) {
    let running = false;
    const sweepDigests = () => {
      if (running) return;
      running = true;
      runDigests(db, { log: (err: unknown) => app.log.error({ err }, 'weekly digest failed') })
        .catch((err: unknown) => app.log.error({ err }, 'weekly digest sweep failed'))
        .finally(() => (running = false));
    };
    digestTimer = setInterval(sweepDigests, digestMs);
    digestTimer.unref();
  }
  const mailer = options.mailer ?? mailerFor(config);
  // A config object built by hand (scripts) may predate PAYMENTS_OUTBOX_DIR; fall back to the default.
  const payments = options.payments ?? new FilePaymentSink(config.paymentsOutboxDir || DEFAULT_PAYMENTS_OUTBOX_DIR);
  const lodgementSink = options.lodgement ?? new FileLodgementSink(config.lodgementOutboxDir || DEFAULT_LODGEMENT_OUTBOX_DIR);
  const outbox = new OutboxDispatcher(
    db,
    mailer,
    config.emailFrom,
    (err) => app.log.error({ err }, 'outbox delivery failed'),
    payments,
    new Lodgements(db, lodgementSink, { bas: confirmBasLodged, stp_pay_event: confirmStpLodged }),
  );
  await outbox.start();
  return {
    app,
    db,
    outbox,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    async close() {
      clearInterval(purge);
      if (checkpointTimer) clearInterval(checkpointTimer);
      if (repeatingTimer) clearInterval(repeatingTimer);
      if (digestTimer) clearInterval(digestTimer);
      // In-flight requests finish (and so their commits); past the grace period the remaining
      // connections (a long-polling approval.wait, a stalled client) are cut so shutdown is bounded.
      const force = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      force.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
      await outbox.stop();
      await mailer.close();
      await rateLimiter.close();
      if (!options.db) await db.close();
    },
  };
}
