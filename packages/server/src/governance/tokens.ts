import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../storage/types.js';

/**
 * signatureToken: `fdt_<claims>.<mac>`, claims base64url JSON of the approval id and its four
 * bindings (organisation, action class, subject, payload hash) plus expiry; mac an HMAC-SHA256
 * with the installation's signing key. The server checks authenticity and binding without a
 * lookup; single use still needs the approval row, which records the use.
 */
export interface TokenClaims {
  readonly a: string; // approval id
  readonly o: string; // organisation id
  readonly c: string; // action class
  readonly s: string; // subject id
  readonly h: string; // payload hash
  readonly e: string; // expires at (ISO)
}

/** The signing key lives in the database (created by migrate) so every server process shares it. */
export async function signingKey(q: Queryable): Promise<Buffer> {
  const row = await q.get<{ value: string }>("SELECT value FROM server_secrets WHERE name = 'token_signing_key'");
  if (!row) throw new Error('token signing key missing: run migrations');
  return Buffer.from(row.value, 'base64url');
}

function mac(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

export function mintToken(key: Buffer, claims: TokenClaims): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `fdt_${body}.${mac(key, body).toString('base64url')}`;
}

/** The claims of an authentic token, or null for anything forged, tampered or malformed. */
export function readToken(key: Buffer, token: string): TokenClaims | null {
  const m = /^fdt_([A-Za-z0-9_-]{10,1500})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  const [, body = '', sig = ''] = m;
  const expected = mac(key, body);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenClaims;
    const fields = [claims.a, claims.o, claims.c, claims.s, claims.h, claims.e];
    return fields.every((f) => typeof f === 'string') ? claims : null;
  } catch {
    return null;
  }
}
