import type { ErrorCode } from '@finance-desk/protocol';

/** Backoff settings (exponential with jitter). */
export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 250, maxMs: 8_000 };
export const DEFAULT_MAX_RETRIES = 4;
/** A server asking for a longer pause than this is not waited for: the error goes to the caller. */
export const RETRY_AFTER_CEILING_MS = 60_000;

/**
 * Delay before retry number `attempt` (0 for the first retry): exponential, capped, with "equal
 * jitter" (half fixed, half random) so that many agents throttled together do not retry together.
 */
export function backoffMs(attempt: number, b: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(b.maxMs, b.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * How long RATE_LIMITED asks us to wait: the larger of the `Retry-After` header (seconds, or an
 * HTTP date) and the message's `retry in N seconds` hint (docs/protocol.md §6); undefined if neither.
 */
export function retryAfterMs(header: string | null, message: string | undefined, now = Date.now()): number | undefined {
  const candidates: number[] = [];
  if (header !== null && header.trim() !== '') {
    const h = header.trim();
    if (/^\d+$/.test(h)) candidates.push(Number(h) * 1000);
    else {
      const at = Date.parse(h);
      if (!Number.isNaN(at)) candidates.push(Math.max(0, at - now));
    }
  }
  const hint = message === undefined ? null : /retry in (\d+(?:\.\d+)?) seconds?/i.exec(message);
  if (hint?.[1] !== undefined) candidates.push(Number(hint[1]) * 1000);
  return candidates.length > 0 ? Math.max(...candidates) : undefined;
}

/**
 * Whether an answer may be retried:
 * - RATE_LIMITED and HTTP 503: the server refused before doing anything, so always;
 * - INTERNAL (and any code the client does not know): only an idempotent call — a read, or a write
 *   carrying an idempotency key, since the first try may have executed;
 * - every other code: never (retrying cannot change the answer).
 */
export function retryableAnswer(status: number, code: ErrorCode | null, idempotent: boolean): boolean {
  if (code === 'RATE_LIMITED' || status === 429 || status === 503) return true;
  if (code === 'INTERNAL' || (code === null && status >= 500)) return idempotent;
  return false;
}

/** Sleep that an abort signal cuts short (the injected sleep itself knows nothing of signals). */
export async function pause(sleep: (ms: number) => Promise<void>, ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return sleep(ms);
  signal.throwIfAborted();
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
