import { orgPair, validate } from '@finance-desk/protocol';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../errors.js';
import { clientKey } from '../human/login.js';
import { exchangePairingCode } from '../org/pairing.js';
import type { Database } from '../storage/types.js';
import { MemoryRateLimiter, type RateConfig } from './rate-limit.js';

/**
 * `POST /api/v1/org/pair`: the one API route without a key, so it has its own pipeline in the
 * spirit of the order of checks — rate limit per client address (there is no credential to count
 * against) → body (wrapped or bare, strict) → exchange. The default budget, a burst of 10 and
 * one more every 6 seconds, is far above what pairing needs and far below brute force; each code
 * also burns after 5 wrong secrets (pairing.ts), whatever the addresses. In memory per process,
 * as the sign-in route's budget is (console-pages.ts): it bounds cost; the burn bounds guessing.
 */
export const PAIR_ROUTE_RATE: RateConfig = { perSecond: 1 / 6, burst: 10 };

export function registerPairRoute(
  app: FastifyInstance,
  o: { db: Database; rate?: RateConfig | undefined; paramsOf: (body: unknown) => unknown },
): void {
  const limiter = new MemoryRateLimiter(o.rate ?? PAIR_ROUTE_RATE);
  app.post(`/api/v1/${orgPair.name}`, async (req, reply) => {
    const rate = await limiter.take(clientKey(req.ip));
    reply.header('RateLimit-Limit', rate.limit);
    reply.header('RateLimit-Remaining', rate.remaining);
    reply.header('RateLimit-Reset', rate.resetSeconds);
    if (!rate.allowed) {
      reply.header('Retry-After', rate.retryAfterSeconds);
      throw new DomainError('RATE_LIMITED', `too many pairing attempts from this address; retry in ${rate.retryAfterSeconds} seconds`);
    }
    const parsed = validate(orgPair.params, o.paramsOf(req.body));
    if (!parsed.ok) throw new DomainError('BAD_REQUEST', parsed.message);
    const { code } = parsed.value as { code: string };
    const result = await exchangePairingCode(o.db, code);
    return reply
      .code(200)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ ok: true, result }));
  });
}
