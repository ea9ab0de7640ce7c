import { DEFAULT_DATABASE_URL } from './storage/open.js';
import type { SqliteSynchronous } from './storage/sqlite.js';

export const DEFAULT_PAYMENTS_OUTBOX_DIR = './data/payments';
export const DEFAULT_LODGEMENT_OUTBOX_DIR = './data/lodgements';

/** Operator configuration from the environment (D10, README "Configuration"). */
export interface Config {
  readonly databaseUrl: string;
  readonly port: number;
  readonly host: string;
  readonly ratePerSecond: number;
  readonly rateBurst: number;
  readonly redisUrl: string | null;
  readonly sqliteSynchronous: SqliteSynchronous;
  readonly logLevel: string;
  /** FD_BENCH_BARE_ROUTE=1 serves the benchmark baseline route (never in production). */
  readonly benchRoute: boolean;
  /** Email: SMTP_URL sends through SMTP; otherwise .eml files in EMAIL_OUTBOX_DIR. */
  readonly smtpUrl: string | null;
  readonly emailOutboxDir: string;
  readonly emailFrom: string;
  /** Payment runs' ABA files (`<runId>.aba`) are written here after commit. */
  readonly paymentsOutboxDir: string;
  /** Lodgement documents (`<id>.json`: BAS, later STP pay events) are written here after commit (D11). */
  readonly lodgementOutboxDir: string;
  /** COOKIE_SECURE=1 marks the console's session cookie Secure (set it when served over HTTPS). */
  readonly cookieSecure: boolean;
  /** The server's clock (ISO instants); tests fix it. Unset: the system clock (clock.ts). */
  readonly now?: () => string;
  /** Budget of POST /api/v1/org/pair per client address; unset: PAIR_ROUTE_RATE (tests widen it). */
  readonly pairRate?: { readonly perSecond: number; readonly burst: number };
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw new Error(`${name} must be an integer of at least ${min}, got "${raw}"`);
  }
  return Number(raw);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const sync = (env.SQLITE_SYNCHRONOUS ?? 'FULL').toUpperCase();
  if (sync !== 'FULL' && sync !== 'NORMAL') throw new Error('SQLITE_SYNCHRONOUS must be FULL or NORMAL');
  return {
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    port: positiveInt(env, 'PORT', 8080, 0),
    host: env.HOST || '127.0.0.1',
    ratePerSecond: positiveInt(env, 'RATE_LIMIT_PER_SECOND', 50),
    rateBurst: positiveInt(env, 'RATE_LIMIT_BURST', 100),
    redisUrl: env.REDIS_URL || null,
    sqliteSynchronous: sync,
    logLevel: env.LOG_LEVEL || 'info',
    benchRoute: env.FD_BENCH_BARE_ROUTE === '1',
    smtpUrl: env.SMTP_URL || null,
    emailOutboxDir: env.EMAIL_OUTBOX_DIR || './data/outbox',
    emailFrom: env.EMAIL_FROM || 'Finance Desk <accounts@finance-desk.invalid>',
    paymentsOutboxDir: env.PAYMENTS_OUTBOX_DIR || DEFAULT_PAYMENTS_OUTBOX_DIR,
    lodgementOutboxDir: env.LODGEMENT_OUTBOX_DIR || DEFAULT_LODGEMENT_OUTBOX_DIR,
    cookieSecure: env.COOKIE_SECURE === '1',
  };
}
