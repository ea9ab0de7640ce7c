import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

function encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += CROCKFORD[(value << (5 - bits)) & 31];
  return out;
}

/**
 * Random bytes come from a pooled buffer: one `randomBytes` call per 4 KiB instead of one per id
 * (the per-call overhead dominated id generation on the write path; see docs/benchmarks.md).
 */
const POOL_BYTES = 4096;
let pool = randomBytes(POOL_BYTES);
let poolAt = 0;

function pooledRandom(n: number): Uint8Array {
  if (poolAt + n > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  const out = pool.subarray(poolAt, poolAt + n);
  poolAt += n;
  return out;
}

/**
 * Time-ordered id with a type prefix (`inv_…`, `task_…`): 48 bits of milliseconds then 80 random
 * bits, in lowercase Crockford base32 — sortable by creation time, unguessable, URL-safe.
 */
export function newId(prefix: string): string {
  const bytes = new Uint8Array(16);
  const ms = Date.now();
  for (let i = 5; i >= 0; i -= 1) bytes[5 - i] = Math.floor(ms / 2 ** (8 * i)) & 0xff;
  bytes.set(pooledRandom(10), 6);
  return `${prefix}_${encode(bytes)}`;
}

/** Random URL-safe secret of `bytes` bytes. */
export function secret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

const processTag = encode(randomBytes(5));
let requestCounter = 0;

/**
 * Request ids only need to be unique and quotable, not unguessable: a per-process random tag and
 * a counter, far cheaper than a random id on every request.
 */
export function newRequestId(): string {
  requestCounter += 1;
  return `req_${processTag}${requestCounter.toString(36)}`;
}
