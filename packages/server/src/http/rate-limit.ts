import { Redis } from 'ioredis';
import { RATE_LIMIT_BUCKETS_MAX } from '../config.js';

export { RATE_LIMIT_BUCKETS_MAX };

/**
 * Token bucket per credential (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST): `perSecond` tokens
 * refill continuously up to `burst`; a request takes one. In memory for one process, or in Redis (one atomic script, Redis's own
 * clock) so that several processes enforce one limit.
 */
export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
  /** Seconds until one token is available (for Retry-After and the message). */
  readonly retryAfterSeconds: number;
}

export interface RateLimiter {
  take(bucket: string): Promise<RateDecision>;
  close(): Promise<void>;
  /** For /readyz: does the shared store answer now? Absent for the in-process limiter (nothing to ask). */
  ping?(): Promise<void>;
}

export interface RateConfig {
  readonly perSecond: number;
  readonly burst: number;
}

function decide(config: RateConfig, allowed: boolean, tokens: number): RateDecision {
  const remaining = Math.max(0, Math.floor(tokens));
  return {
    allowed,
    limit: config.burst,
    remaining,
    resetSeconds: Math.max(0, Math.ceil((config.burst - tokens) / config.perSecond)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / config.perSecond)),
  };
}

/**
 * Buckets in this process, one per key seen (credential, or client address on the sign-in routes).
 * Bounded by configuration (RATE_LIMIT_BUCKETS_MAX), not by the number of keys: past the cap the
 * least recently used bucket is dropped. A bucket untouched for burst ÷ perSecond seconds is full
 * and dropping it loses nothing; one dropped sooner (more keys busy within a refill than the cap)
 * starts again full, so the cap should exceed the keys active at once.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly config: RateConfig,
    private readonly maxBuckets = RATE_LIMIT_BUCKETS_MAX,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  take(bucket: string): Promise<RateDecision> {
    const now = performance.now();
    const state = this.buckets.get(bucket) ?? { tokens: this.config.burst, at: now };
    state.tokens = Math.min(this.config.burst, state.tokens + ((now - state.at) / 1000) * this.config.perSecond);
    state.at = now;
    const allowed = state.tokens >= 1;
    if (allowed) state.tokens -= 1;
    // Re-inserted so that the Map's order is least recently used first.
    this.buckets.delete(bucket);
    this.buckets.set(bucket, state);
    while (this.buckets.size > this.maxBuckets) {
      const oldest = this.buckets.keys().next();
      if (oldest.done) break;
      this.buckets.delete(oldest.value);
    }
    return Promise.resolve(decide(this.config, allowed, state.tokens));
  }

  async close(): Promise<void> {}
}

const SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then tokens = burst; at = now end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

/** Startup and reconnect bounds: a dead Redis must not hold the server or a request long. */
const CONNECT_TIMEOUT_MS = 3000;
const COMMAND_TIMEOUT_MS = 500;

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/**
 * Limits shared through Redis (REDIS_URL). Redis is checked at start (`connect`): unreachable
 * there, the server refuses to start with a line naming REDIS_URL. Lost later, requests are limited per
 * process (a memory bucket, the documented single-process behaviour) with one warning, and Redis
 * is used again as soon as ioredis has reconnected: a limiter outage must never
 * turn every authenticated request into a 500.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly fallback: MemoryRateLimiter;
  private degraded = false;

  private constructor(
    private readonly url: string,
    private readonly config: RateConfig,
    private readonly warn: (message: string) => void,
    private readonly prefix: string,
  ) {
    this.fallback = new MemoryRateLimiter(config);
    this.redis = new Redis(url, {
      lazyConnect: true,
      // Commands fail at once while disconnected instead of queueing behind a reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    this.redis.defineCommand('fdTakeToken', { numberOfKeys: 1, lua: SCRIPT });
    // Connection errors are reported through `take` (once); ioredis keeps reconnecting.
    this.redis.on('error', () => undefined);
    this.redis.on('ready', () => {
      if (!this.degraded) return;
      this.degraded = false;
      this.warn(`rate limiter: Redis at REDIS_URL ${shown(this.url)} is back; limits are shared again`);
    });
  }

  /** Connect, or throw one line naming REDIS_URL. */
  static async connect(url: string, config: RateConfig, warn: (message: string) => void, prefix = 'fd:rl:'): Promise<RedisRateLimiter> {
    const limiter = new RedisRateLimiter(url, config, warn, prefix);
    try {
      await limiter.firstConnection();
      return limiter;
    } catch (error) {
      limiter.redis.disconnect();
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `REDIS_URL ${shown(url)} is unreachable (${reason.split('\n', 1)[0]}); start Redis or unset REDIS_URL for per-process limits`,
        { cause: error },
      );
    }
  }

  private firstConnection(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer in ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
      const settle = (error?: unknown) => {
        clearTimeout(timer);
        this.redis.off('error', onError);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what Redis failed with
        if (error) reject(error);
        else resolve();
      };
      const onError = (error: unknown) => settle(error);
      this.redis.once('error', onError);
      this.redis
        .connect()
        .then(() => this.redis.ping())
        .then(() => settle(), settle);
    });
  }

  async take(bucket: string): Promise<RateDecision> {
    if (this.redis.status === 'ready') {
      try {
        const run = (
          this.redis as unknown as {
            fdTakeToken(key: string, rate: number, burst: number): Promise<[number, string]>;
          }
        ).fdTakeToken.bind(this.redis);
        const [allowed, tokens] = await run(this.prefix + bucket, this.config.perSecond, this.config.burst);
        return decide(this.config, allowed === 1, Number(tokens));
      } catch (error) {
        this.degrade(error);
      }
    } else {
      this.degrade(new Error(`connection ${this.redis.status}`));
    }
    return this.fallback.take(bucket);
  }

  /** Warn once per outage, not per request. */
  private degrade(error: unknown): void {
    if (this.degraded) return;
    this.degraded = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.warn(`rate limiter: Redis at REDIS_URL ${shown(this.url)} unavailable (${reason}); limiting per process until it is back`);
  }

  async ping(): Promise<void> {
    if (this.redis.status !== 'ready') throw new Error(`Redis connection ${this.redis.status}`);
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
