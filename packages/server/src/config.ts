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
  /** The AI gateway behind books.ask (issue 10 item 5; adapters/ai-gateway.ts). Unset: the built-in grounded answerer. */
  readonly ai?: AiConfig;
  /** The server's clock (ISO instants); tests fix it. Unset: the system clock (clock.ts). */
  readonly now?: () => string;
  /** Budget of POST /api/v1/org/pair per client address; unset: PAIR_ROUTE_RATE (tests widen it). */
  readonly pairRate?: { readonly perSecond: number; readonly burst: number };
}

/**
 * AI gateway configuration (README "Asking the books"): AI_PROVIDER grounded (default: no network,
 * no model) or openai (an OpenAI-compatible chat-completions endpoint at AI_BASE_URL, model
 * AI_MODEL, key AI_API_KEY, never logged nor put in an event). Prices are integers: micro-dollars
 * per million tokens, input and output. AI_TIMEOUT_MS bounds each model request.
 */
export interface AiConfig {
  readonly provider: 'grounded' | 'openai';
  readonly baseUrl: string | null;
  readonly model: string | null;
  readonly apiKey: string | null;
  readonly priceInputMicroUsdPerMTok: number;
  readonly priceOutputMicroUsdPerMTok: number;
  readonly timeoutMs: number;
}

export const DEFAULT_AI_CONFIG: AiConfig = {
  provider: 'grounded',
  baseUrl: null,
  model: null,
  apiKey: null,
  priceInputMicroUsdPerMTok: 0,
  priceOutputMicroUsdPerMTok: 0,
  timeoutMs: 30_000,
};

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw new Error(`${name} must be an integer of at least ${min}, got "${raw}"`);
  }
  return Number(raw);
}

export function loadAiConfig(env: NodeJS.ProcessEnv = process.env): AiConfig {
  const provider = env.AI_PROVIDER || 'grounded';
  if (provider !== 'grounded' && provider !== 'openai') {
    throw new Error(`AI_PROVIDER must be grounded or openai, got "${provider.slice(0, 40)}"`);
  }
  const base = {
    ...DEFAULT_AI_CONFIG,
    provider,
    priceInputMicroUsdPerMTok: positiveInt(env, 'AI_PRICE_INPUT_MICRO_USD_PER_MTOK', 0, 0),
    priceOutputMicroUsdPerMTok: positiveInt(env, 'AI_PRICE_OUTPUT_MICRO_USD_PER_MTOK', 0, 0),
    timeoutMs: positiveInt(env, 'AI_TIMEOUT_MS', DEFAULT_AI_CONFIG.timeoutMs, 1),
  } as const;
  if (provider === 'grounded') return base;
  for (const name of ['AI_BASE_URL', 'AI_MODEL', 'AI_API_KEY'] as const) {
    if (!env[name]) throw new Error(`${name} is required when AI_PROVIDER=openai`);
  }
  const url = env.AI_BASE_URL as string;
  if (!/^https?:\/\//.test(url)) throw new Error('AI_BASE_URL must be an http(s) URL');
  return { ...base, baseUrl: url, model: env.AI_MODEL as string, apiKey: env.AI_API_KEY as string };
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
    ai: loadAiConfig(env),
  };
}
