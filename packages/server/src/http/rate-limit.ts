import { Redis } from 'ioredis';

/**
 * Token bucket per credential (D10): `perSecond` tokens refill continuously up to `burst`; a
 * request takes one. In memory for one process, or in Redis (one atomic script, Redis's own
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

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly config: RateConfig) {}

  async take(bucket: string): Promise<RateDecision> {
    const now = performance.now();
    const state = this.buckets.get(bucket) ?? { tokens: this.config.burst, at: now };
    state.tokens = Math.min(this.config.burst, state.tokens + ((now - state.at) / 1000) * this.config.perSecond);
    state.at = now;
    const allowed = state.tokens >= 1;
    if (allowed) state.tokens -= 1;
    this.buckets.set(bucket, state);
    if (this.buckets.size > 100_000) this.evictFull(now);
    return decide(this.config, allowed, state.tokens);
  }

  /** Forget buckets that have refilled completely: they hold no information. */
  private evictFull(now: number): void {
    for (const [key, s] of this.buckets) {
      if (s.tokens + ((now - s.at) / 1000) * this.config.perSecond >= this.config.burst) this.buckets.delete(key);
    }
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

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  constructor(
    url: string,
    private readonly config: RateConfig,
    private readonly prefix = 'fd:rl:',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.defineCommand('fdTakeToken', { numberOfKeys: 1, lua: SCRIPT });
  }

  async take(bucket: string): Promise<RateDecision> {
    const run = (this.redis as unknown as {
      fdTakeToken(key: string, rate: number, burst: number): Promise<[number, string]>;
    }).fdTakeToken.bind(this.redis);
    const [allowed, tokens] = await run(this.prefix + bucket, this.config.perSecond, this.config.burst);
    return decide(this.config, allowed === 1, Number(tokens));
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
