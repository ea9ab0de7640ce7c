import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { UserRole } from '@finance-desk/protocol';
import type { Database, Queryable } from '../storage/types.js';

/**
 * Console sessions. The browser holds a random 32-byte token in an httpOnly cookie;
 * the database holds only its SHA-256, so a leaked database row cannot be replayed as a cookie.
 * The CSRF synchronizer token lives on the same row: one per session, never in a cookie.
 */
export const SESSION_COOKIE = 'fd_session';
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface HumanSession {
  readonly tokenHash: string;
  readonly orgId: string;
  readonly orgSlug: string;
  readonly orgName: string;
  readonly userId: string;
  readonly email: string;
  readonly role: UserRole;
  readonly csrf: string;
  readonly expiresAt: string;
}

interface SessionRow {
  id_hash: string;
  org_id: string;
  slug: string;
  name: string;
  user_id: string;
  email: string;
  role: UserRole;
  csrf: string;
  expires_at: string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Start a session; expired rows are swept here because logins are rare and cheap to piggyback. */
export async function createSession(db: Database, orgId: string, userId: string): Promise<{ token: string; expiresAt: string }> {
  const token = randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString();
  await db.write(async (tx) => {
    await tx.run('DELETE FROM sessions WHERE expires_at < ?', [now.toISOString()]);
    await tx.run(
      `INSERT INTO sessions (id_hash, org_id, user_id, csrf, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      [sha256(token), orgId, userId, csrf, now.toISOString(), expiresAt],
    );
  });
  return { token, expiresAt };
}

/** The live session for a cookie token; the role is read fresh, so a change applies at once. */
export async function sessionOf(q: Queryable, token: string | null): Promise<HumanSession | null> {
  if (token === null || !TOKEN.test(token)) return null;
  const row = await q.get<SessionRow>(
    `SELECT s.id_hash, s.org_id, o.slug, o.name, s.user_id, u.email, u.role, s.csrf, s.expires_at
     FROM sessions s
     JOIN users u ON u.id = s.user_id AND u.org_id = s.org_id
     JOIN organisations o ON o.id = s.org_id
     WHERE s.id_hash = ? AND s.expires_at > ?`,
    [sha256(token), new Date().toISOString()],
  );
  if (!row) return null;
  return {
    tokenHash: row.id_hash,
    orgId: row.org_id,
    orgSlug: row.slug,
    orgName: row.name,
    userId: row.user_id,
    email: row.email,
    role: row.role,
    csrf: row.csrf,
    expiresAt: row.expires_at,
  };
}

export async function deleteSession(db: Database, token: string | null): Promise<void> {
  if (token === null || !TOKEN.test(token)) return;
  await db.write(async (tx) => {
    await tx.run('DELETE FROM sessions WHERE id_hash = ?', [sha256(token)]);
  });
}

/**
 * Synchronizer-token check in constant time. Both sides are hashed first so that the comparison
 * always has equal lengths and leaks nothing about the token's length either.
 */
export function csrfMatches(session: HumanSession, presented: string | null | undefined): boolean {
  if (typeof presented !== 'string' || presented === '') return false;
  const a = createHash('sha256').update(session.csrf, 'utf8').digest();
  const b = createHash('sha256').update(presented, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The session token from a Cookie header, or null. */
export function tokenFromCookies(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * Set-Cookie value. Path=/console keeps the cookie away from the agent API; SameSite=Strict
 * keeps it off cross-site requests; HttpOnly keeps it from scripts.
 */
export function sessionCookie(token: string, secure: boolean, maxAgeSeconds: number): string {
  const parts = [`${SESSION_COOKIE}=${token}`, 'Path=/console', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', secure, 0);
}
