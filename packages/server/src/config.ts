import { z } from 'zod';
import { DEFAULT_DATABASE_URL } from './storage/open.js';
import type { SqliteSynchronous } from './storage/sqlite.js';

/** API keys a process remembers between requests when PRINCIPAL_CACHE_MAX is unset (org/principal-cache.ts). */
export const PRINCIPAL_CACHE_MAX_ENTRIES = 10_000;
/** Buckets a MemoryRateLimiter keeps when RATE_LIMIT_BUCKETS_MAX is unset (http/rate-limit.ts). */
export const RATE_LIMIT_BUCKETS_MAX = 100_000;

export const DEFAULT_PAYMENTS_OUTBOX_DIR = './data/payments';
/** How often the repeating sweep runs when REPEATING_SWEEP_MS is unset. */
export const DEFAULT_REPEATING_SWEEP_MS = 60_000;
/** How often the weekly digest's sweep looks for due digests when DIGEST_SWEEP_MS is unset. */
export const DEFAULT_DIGEST_SWEEP_MS = 15 * 60_000;
export const DEFAULT_LODGEMENT_OUTBOX_DIR = './data/lodgements';

/** Operator configuration from the environment (docs/configuration.md). */
export interface Config {
  readonly databaseUrl: string;
  readonly port: number;
  readonly host: string;
  readonly ratePerSecond: number;
  readonly rateBurst: number;
  readonly redisUrl: string | null;
  readonly sqliteSynchronous: SqliteSynchronous;
  /** PostgreSQL connections per process (DATABASE_POOL_SIZE). */
  readonly databasePoolSize: number;
  /**
   * PRINCIPAL_CACHE_MAX: API keys a process remembers between requests (org/principal-cache.ts),
   * least recently used out first. Unset: PRINCIPAL_CACHE_MAX_ENTRIES.
   */
  readonly principalCacheMax?: number;
  /**
   * RATE_LIMIT_BUCKETS_MAX: rate-limit buckets the in-process limiter keeps (http/rate-limit.ts),
   * least recently used out first. Unset: RATE_LIMIT_BUCKETS_MAX.
   */
  readonly rateLimitBucketsMax?: number;
  readonly logLevel: string;
  /** FD_BENCH_BARE_ROUTE=1 serves the benchmark baseline route (never in production). */
  readonly benchRoute: boolean;
  /** Email: SMTP_URL sends through SMTP; otherwise .eml files in EMAIL_OUTBOX_DIR. */
  readonly smtpUrl: string | null;
  readonly emailOutboxDir: string;
  readonly emailFrom: string;
  /** Payment runs' ABA files (`<runId>.aba`) are written here after commit. */
  readonly paymentsOutboxDir: string;
  /** Lodgement documents (`<id>.json`: BAS, later STP pay events) are written here after commit (LODGEMENT_OUTBOX_DIR). */
  readonly lodgementOutboxDir: string;
  /**
   * PUBLIC_URL: the console's public address (e.g. https://books.example.com), used in links the
   * server emails (approval emails link to the approval's card). Unset: emails say so and give the path.
   * Also the OAuth issuer and MCP resource of remote connectors (http/oauth-route.ts): served only
   * when it is an https origin (http on a loopback address) with no path.
   */
  readonly publicUrl?: string | null;
  /** COOKIE_SECURE=1 marks the console's session cookie Secure (set it when served over HTTPS). */
  readonly cookieSecure: boolean;
  /** The AI gateway behind books.ask (adapters/ai-gateway.ts). Unset: the built-in grounded answerer. */
  readonly ai?: AiConfig;
  /** The server's clock (ISO instants); tests fix it. Unset: the system clock (clock.ts). */
  readonly now?: () => string;
  /** Signed checkpoints: the key and how often; null when CHECKPOINT_SIGNING_KEY is unset. */
  readonly checkpoint?: CheckpointConfig | null;
  /** METRICS_TOKEN: the bearer token GET /metrics requires; unset, /metrics is not served. */
  readonly metricsToken?: string | null;
  /** REPEATING_SWEEP_MS: how often the repeating sweep makes due invoices and bills; 0 turns it off. Unset: 60 000. */
  readonly repeatingSweepMs?: number;
  /** DIGEST_SWEEP_MS: how often the weekly digest's sweep runs; 0 turns the digest off. Unset: 900 000. */
  readonly digestSweepMs?: number;
  /** Budget of POST /api/v1/org/pair per client address; unset: PAIR_ROUTE_RATE (tests widen it). */
  readonly pairRate?: { readonly perSecond: number; readonly burst: number };
  /** OAuth endpoints' budget per client address and the registered-client cap; unset: the defaults (tests set them). */
  readonly oauth?: { readonly rate?: { readonly perSecond: number; readonly burst: number }; readonly clientsMax?: number };
}

export interface CheckpointConfig {
  /** CHECKPOINT_KEY_NAME: the signer's name in notes and the prefix of each log's origin. */
  readonly keyName: string;
  /** CHECKPOINT_SIGNING_KEY: base64 of the 32-byte Ed25519 seed (`finance-desk checkpoint keygen`). Never logged. */
  readonly seed: string;
  readonly everyEvents: number;
  readonly everyMs: number;
}

/**
 * AI gateway configuration (docs/agents.md "Asking the books"): AI_PROVIDER grounded (default: no network,
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

/**
 * Every setting is read through one zod schema over the environment, so a bad
 * value fails the start with a message that names the setting, what it must be, and what it got
 * (at most 40 characters of it: a URL may carry a password, so URLs are never echoed).
 */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const unset = (v: unknown): boolean => v === undefined || v === '';

/** What a setting's check says of a value: the parsed value, or the problem (no `got` for secrets). */
type Checked<T> = { readonly value: T } | { readonly problem: string };

/**
 * One environment setting: unset (or empty) is `fallback`; otherwise `check` parses the text or
 * names the problem, which becomes the ConfigError's `NAME: problem`.
 */
function setting<T, F = T>(
  fallback: F,
  check: (text: string) => Checked<T>,
): z.ZodPipe<z.ZodOptional<z.ZodString>, z.ZodTransform<T | F, string | undefined>> {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T | F => {
      if (unset(raw)) return fallback;
      const checked = check(String(raw));
      if ('value' in checked) return checked.value;
      ctx.addIssue({ code: 'custom', message: checked.problem });
      return z.NEVER;
    });
}

const got = (text: string) => `got "${text.slice(0, 40)}"`;

const intSetting = (min: number, max: number, fallback: number) =>
  setting(fallback, (text) =>
    /^\d{1,16}$/.test(text) && Number(text) >= min && Number(text) <= max
      ? { value: Number(text) }
      : { problem: `must be an integer from ${min} to ${max}, ${got(text)}` },
  );

function oneOf<const T extends readonly string[]>(values: T, fallback: T[number], fold: (v: string) => string = (v) => v) {
  return setting(fallback, (text): Checked<T[number]> => {
    const v = fold(text);
    return (values as readonly string[]).includes(v) ? { value: v } : { problem: `must be one of ${values.join(', ')}, ${got(text)}` };
  });
}

/** A URL of one of `schemes`; never echoed (it may carry a password). */
const urlSetting = (schemes: readonly string[], fallback: string | null) =>
  setting(fallback, (text) => {
    let scheme: string | null = null;
    try {
      scheme = new URL(text).protocol.replace(/:$/, '');
    } catch {
      // `sqlite:relative/path` parses as a URL; a bare word does not.
    }
    return scheme !== null && schemes.includes(scheme)
      ? { value: text }
      : { problem: `must be a ${schemes.map((x) => `${x}:`).join(' or ')} URL` };
  });

/** A secret: unset is null; a bad value is refused without echoing it. */
const secretSetting = (valid: (value: string) => boolean, problem: string) =>
  setting(null, (text) => (valid(text) ? { value: text } : { problem }));

const flag = setting(false, (text) =>
  text === '0' ? { value: false } : text === '1' ? { value: true } : { problem: `must be 1 or 0, ${got(text)}` },
);

const text = (fallback: string, max = 500) =>
  setting(fallback, (value) => (value.length <= max ? { value } : { problem: `must be at most ${max} characters` }));

/** The environment's settings, each with its default (docs/configuration.md). */
const envSchema = z.object({
  DATABASE_URL: urlSetting(['sqlite', 'postgres', 'postgresql'], DEFAULT_DATABASE_URL),
  PORT: intSetting(0, 65535, 8080),
  HOST: text('127.0.0.1', 255),
  RATE_LIMIT_PER_SECOND: intSetting(1, 1_000_000, 50),
  RATE_LIMIT_BURST: intSetting(1, 1_000_000, 100),
  REDIS_URL: urlSetting(['redis', 'rediss'], null),
  SQLITE_SYNCHRONOUS: oneOf(['FULL', 'NORMAL'] as const, 'FULL', (v) => v.toUpperCase()),
  // PostgreSQL connections per process: one per organisation whose batch is running,
  // plus the reads. Bounded so that a few processes stay within the server's max_connections.
  DATABASE_POOL_SIZE: intSetting(1, 200, 10),
  // Per-key memory of a process is bounded by these, not by how many organisations and keys the
  // database holds: each is a least-recently-used cache with this cap (docs/configuration.md).
  PRINCIPAL_CACHE_MAX: intSetting(1, 10_000_000, PRINCIPAL_CACHE_MAX_ENTRIES),
  RATE_LIMIT_BUCKETS_MAX: intSetting(1, 10_000_000, RATE_LIMIT_BUCKETS_MAX),
  LOG_LEVEL: oneOf(LOG_LEVELS, 'info', (v) => v.toLowerCase()),
  FD_BENCH_BARE_ROUTE: flag,
  SMTP_URL: urlSetting(['smtp', 'smtps'], null),
  EMAIL_OUTBOX_DIR: text('./data/outbox', 4096),
  EMAIL_FROM: text('Finance Desk <accounts@finance-desk.invalid>'),
  PAYMENTS_OUTBOX_DIR: text(DEFAULT_PAYMENTS_OUTBOX_DIR, 4096),
  LODGEMENT_OUTBOX_DIR: text(DEFAULT_LODGEMENT_OUTBOX_DIR, 4096),
  COOKIE_SECURE: flag,
  PUBLIC_URL: urlSetting(['http', 'https'], null),
  METRICS_TOKEN: secretSetting(
    (token) => /^[\x21-\x7e]{24,256}$/.test(token),
    'must be 24 to 256 printable ASCII characters with no spaces (a long random token)',
  ),
  CHECKPOINT_SIGNING_KEY: secretSetting((seed) => {
    const bytes = Buffer.from(seed, 'base64');
    return bytes.length === 32 && bytes.toString('base64') === seed;
  }, 'must be the base64 of a 32-byte Ed25519 seed (finance-desk checkpoint keygen)'),
  CHECKPOINT_KEY_NAME: setting('finance-desk.invalid', (value) =>
    /^[A-Za-z0-9][A-Za-z0-9.\-_/]{0,99}$/.test(value)
      ? { value }
      : { problem: `must be 1 to 100 of letters, digits, . - _ / (e.g. books.example.com), ${got(value)}` },
  ),
  CHECKPOINT_EVERY_EVENTS: intSetting(1, 100_000_000, 1000),
  CHECKPOINT_EVERY_MS: intSetting(1000, 7 * 24 * 60 * 60 * 1000, 60 * 60 * 1000),
  REPEATING_SWEEP_MS: intSetting(0, 24 * 60 * 60 * 1000, DEFAULT_REPEATING_SWEEP_MS),
  DIGEST_SWEEP_MS: intSetting(0, 24 * 60 * 60 * 1000, DEFAULT_DIGEST_SWEEP_MS),
  AI_PROVIDER: oneOf(['grounded', 'openai'] as const, 'grounded'),
  AI_BASE_URL: urlSetting(['http', 'https'], null),
  AI_MODEL: text('', 200),
  AI_API_KEY: text('', 4096),
  AI_PRICE_INPUT_MICRO_USD_PER_MTOK: intSetting(0, Number.MAX_SAFE_INTEGER, 0),
  AI_PRICE_OUTPUT_MICRO_USD_PER_MTOK: intSetting(0, Number.MAX_SAFE_INTEGER, 0),
  AI_TIMEOUT_MS: intSetting(1, 10 * 60 * 1000, DEFAULT_AI_CONFIG.timeoutMs),
});

/** Every setting has a value after parsing (an unset one its fallback), so no key is optional. */
type Env = { readonly [K in keyof z.output<typeof envSchema>]-?: Exclude<z.output<typeof envSchema>[K], undefined> };

function parseEnv(env: NodeJS.ProcessEnv): Env {
  const parsed = envSchema.safeParse(env);
  if (parsed.success) return parsed.data as Env;
  throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
}

function aiConfigOf(e: Env): AiConfig {
  const base = {
    ...DEFAULT_AI_CONFIG,
    provider: e.AI_PROVIDER,
    priceInputMicroUsdPerMTok: e.AI_PRICE_INPUT_MICRO_USD_PER_MTOK,
    priceOutputMicroUsdPerMTok: e.AI_PRICE_OUTPUT_MICRO_USD_PER_MTOK,
    timeoutMs: e.AI_TIMEOUT_MS,
  } as const;
  if (e.AI_PROVIDER === 'grounded') return base;
  const missing = (['AI_BASE_URL', 'AI_MODEL', 'AI_API_KEY'] as const).filter((n) => !e[n]);
  if (missing.length > 0) throw new ConfigError(missing.map((n) => `${n}: is required when AI_PROVIDER=openai`));
  return { ...base, baseUrl: e.AI_BASE_URL, model: e.AI_MODEL, apiKey: e.AI_API_KEY };
}

export function loadAiConfig(env: NodeJS.ProcessEnv = process.env): AiConfig {
  return aiConfigOf(parseEnv(env));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = parseEnv(env);
  return {
    databaseUrl: e.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    port: e.PORT,
    host: e.HOST,
    ratePerSecond: e.RATE_LIMIT_PER_SECOND,
    rateBurst: e.RATE_LIMIT_BURST,
    redisUrl: e.REDIS_URL,
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    principalCacheMax: e.PRINCIPAL_CACHE_MAX,
    rateLimitBucketsMax: e.RATE_LIMIT_BUCKETS_MAX,
    logLevel: e.LOG_LEVEL,
    benchRoute: e.FD_BENCH_BARE_ROUTE,
    smtpUrl: e.SMTP_URL,
    emailOutboxDir: e.EMAIL_OUTBOX_DIR,
    emailFrom: e.EMAIL_FROM,
    paymentsOutboxDir: e.PAYMENTS_OUTBOX_DIR,
    lodgementOutboxDir: e.LODGEMENT_OUTBOX_DIR,
    cookieSecure: e.COOKIE_SECURE,
    publicUrl: e.PUBLIC_URL,
    metricsToken: e.METRICS_TOKEN,
    repeatingSweepMs: e.REPEATING_SWEEP_MS,
    digestSweepMs: e.DIGEST_SWEEP_MS,
    checkpoint: e.CHECKPOINT_SIGNING_KEY
      ? {
          keyName: e.CHECKPOINT_KEY_NAME,
          seed: e.CHECKPOINT_SIGNING_KEY,
          everyEvents: e.CHECKPOINT_EVERY_EVENTS,
          everyMs: e.CHECKPOINT_EVERY_MS,
        }
      : null,
    ai: aiConfigOf(e),
  };
}
