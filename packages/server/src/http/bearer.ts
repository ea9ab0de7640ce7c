import { DomainError } from '../errors.js';
import { authenticate, parseKey } from '../org/credentials.js';
import type { PrincipalCache } from '../org/principal-cache.js';
import type { Principal } from '../principal.js';
import type { Database } from '../storage/types.js';

/** The API key of an `Authorization: Bearer <key>` header, or null. */
export function bearerOf(header: string | undefined): string | null {
  const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : null;
  return token ? token : null;
}

/**
 * The first check of every request, shared by the API and the MCP endpoint so both refuse alike:
 * no credential or an unknown or revoked key is UNAUTHORIZED. With `cache`, a key that
 * authenticates is remembered there and one that does not is forgotten (org/principal-cache.ts).
 */
export async function principalOf(
  db: Database,
  header: string | undefined,
  cache?: PrincipalCache,
): Promise<{ principal: Principal; token: string }> {
  const token = bearerOf(header);
  if (!token) throw new DomainError('UNAUTHORIZED', 'missing credential: send Authorization: Bearer <API key>');
  const found = await authenticate(db.reader, token);
  if (!found) {
    const parsed = parseKey(token);
    if (parsed) cache?.forget(parsed.keyId);
    throw new DomainError('UNAUTHORIZED', 'invalid or revoked API key');
  }
  cache?.remember(found);
  return { principal: found.principal, token };
}
