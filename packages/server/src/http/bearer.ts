import { DomainError } from '../errors.js';
import { authenticate } from '../org/credentials.js';
import type { Principal } from '../principal.js';
import type { Database } from '../storage/types.js';

/** The API key of an `Authorization: Bearer <key>` header, or null. */
export function bearerOf(header: string | undefined): string | null {
  const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : null;
  return token ? token : null;
}

/**
 * D1's first check, shared by the API and the MCP endpoint so both refuse alike: no credential or
 * an unknown or revoked key is UNAUTHORIZED.
 */
export async function principalOf(db: Database, header: string | undefined): Promise<{ principal: Principal; token: string }> {
  const token = bearerOf(header);
  if (!token) throw new DomainError('UNAUTHORIZED', 'missing credential: send Authorization: Bearer <API key>');
  const principal = await authenticate(db.reader, token);
  if (!principal) throw new DomainError('UNAUTHORIZED', 'invalid or revoked API key');
  return { principal, token };
}
