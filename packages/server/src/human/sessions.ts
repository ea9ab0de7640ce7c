import { createHash, randomBytes } from 'node:crypto';
import Tokens from '@fastify/csrf';
import type { UserRole } from '@finance-desk/protocol';
import type { Database, Queryable } from '../storage/types.js';

/**
 * Console sessions. The browser holds a random 32-byte token in an httpOnly cookie;
 * the database holds only its SHA-256, so a leaked database row cannot be replayed as a cookie.
 * The CSRF secret lives on the same row (column `csrf`), never in a cookie; pages carry tokens
 * derived from it (synchronizer pattern, see `csrfToken`).
 */
export const SESSION_COOKIE = 'fd_session';
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * CSRF tokens are salted hashes of the session's secret: a fresh token per render, so a page
 * compressed beside attacker-chosen text never repeats a fixed secret (BREACH). The 32-byte
 * secret has the same shape as the values rows have always held, so existing sessions keep working.
 */
const csrfTokens = Tokens({ secretLength: 32 });

export interface HumanSession {
  readonly tokenHash: string;
  readonly orgId: string;
  readonly orgSlug: string;
  readonly orgName: string;
  readonly userId: string;
  readonly email: string;
  readonly role: UserRole;
  /** Never sent to the browser: pages carry `csrfToken(session)` instead. */
  readonly csrfSecret: string;
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
  const csrf = csrfTokens.secretSync();
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
    csrfSecret: row.csrf,
    expiresAt: row.expires_at,
  };
}

export async function deleteSession(db: Database, token: string | null): Promise<void> {
  if (token === null || !TOKEN.test(token)) return;
  await db.write(async (tx) => {
    await tx.run('DELETE FROM sessions WHERE id_hash = ?', [sha256(token)]);
  });
}

/** A fresh CSRF token for this session, for a form field or the JSON API's `csrfToken`. */
export function csrfToken(session: HumanSession): string {
  return csrfTokens.create(session.csrfSecret);
}

/** Whether a presented token was made from this session's secret (compared in constant time by the library). */
export function csrfMatches(session: HumanSession, presented: string | null | undefined): boolean {
  return typeof presented === 'string' && csrfTokens.verify(session.csrfSecret, presented);
}
