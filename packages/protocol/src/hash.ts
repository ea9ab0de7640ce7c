/**
 * SHA-256 from the runtime's built-in `node:crypto` (Node, Bun and Deno all provide it), so the
 * protocol package pulls in nothing from the server and clients hash byte for byte as it does.
 */
import * as nodeCrypto from 'node:crypto';

/**
 * The one-shot `crypto.hash` (Node ≥ 20.12) where the runtime has it: for a ledger row of a few
 * hundred bytes it is about three times faster than `createHash().update().digest()`, whose
 * per-call object is most of the cost of verifying a ledger. Both encode a string as UTF-8 (a lone
 * surrogate becomes U+FFFD in both), so the digest is the same; runtimes without it keep
 * `createHash`.
 */
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export const sha256Hex: (text: string) => string =
  typeof oneShot === 'function'
    ? (text) => oneShot('sha256', text, 'hex')
    : (text) => nodeCrypto.createHash('sha256').update(text, 'utf8').digest('hex');
