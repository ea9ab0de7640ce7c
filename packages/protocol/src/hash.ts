/**
 * SHA-256 from the runtime's built-in `node:crypto` (Node, Bun and Deno all provide it), so the
 * protocol package pulls in nothing from the server and clients hash byte for byte as it does.
 */
import { createHash } from 'node:crypto';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
