import { createHash, randomBytes } from 'node:crypto';
import { DomainError } from '../errors.js';
import type { Database, Queryable } from '../storage/types.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { createSession } from './sessions.js';
import { userByEmail } from './users.js';

/**
 * Sign-in with throttling (issue 3). Two buckets count failures: the account (organisation slug
 * + email, whether or not it exists) and the client IP. Five failures within fifteen minutes
 * lock a bucket for fifteen minutes. Unknown organisation, unknown user and wrong password all
 * get the same message and the same scrypt cost, so a response reveals nothing about which it was.
 */
export const LOGIN_FAILURES_MAX = 5;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOGIN_LOCK_MS = 15 * 60 * 1000;
export const LOGIN_FAILED_MESSAGE = 'sign-in failed: check the organisation, email and password';

/** Bounds keep hostile input cheap: scrypt's cost should not grow with the password's length. */
const SLUG_CHARS_MAX = 48;
const EMAIL_CHARS_MAX = 254;
const PASSWORD_CHARS_MAX = 1024;

export interface LoginInput {
  readonly slug: string;
  readonly email: string;
  readonly password: string;
  readonly ip: string;
}

export interface LoginOk {
  readonly token: string;
  readonly expiresAt: string;
}

let dummyHash: Promise<string> | null = null;

/** A real scrypt hash of a random password, made once, so unknown users cost what known ones do. */
function dummy(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummyHash;
}

function bucketsOf(input: LoginInput): readonly string[] {
  const account = `${input.slug.trim().toLowerCase()}\n${input.email.trim().toLowerCase()}`;
  // The account bucket is hashed: it holds what a stranger typed, not something worth keeping.
  return [`acct:${createHash('sha256').update(account, 'utf8').digest('hex')}`, `ip:${input.ip}`];
}

interface BucketRow {
  failures: number;
  locked_until: string | null;
}

/**
 * Count this attempt before the password is checked, so that parallel guesses cannot all slip
 * in before the first failure is recorded: the upsert takes the row lock on PostgreSQL (SQLite
 * has one writer), and the sixth attempt in a window is refused and locks the bucket. A locked
 * bucket is not counted further, so a lock never extends itself. Returns the latest lock, if any.
 */
async function reserveAttempt(
  db: Database,
  buckets: readonly string[],
  now: Date,
): Promise<string | null> {
  const at = now.toISOString();
  const windowStart = new Date(now.getTime() - LOGIN_WINDOW_MS).toISOString();
  const lockUntil = new Date(now.getTime() + LOGIN_LOCK_MS).toISOString();
  return db.write(async (tx) => {
    let locked: string | null = null;
    for (const bucket of buckets) {
      await tx.run(
        `INSERT INTO login_attempts (bucket, failures, window_start, locked_until)
         VALUES (?, 1, ?, NULL)
         ON CONFLICT (bucket) DO UPDATE SET
           failures = CASE WHEN login_attempts.locked_until > ? THEN login_attempts.failures
                           WHEN login_attempts.window_start < ? THEN 1
                           ELSE login_attempts.failures + 1 END,
           window_start = CASE WHEN login_attempts.locked_until > ? THEN login_attempts.window_start
                               WHEN login_attempts.window_start < ? THEN ?
                               ELSE login_attempts.window_start END`,
        [bucket, at, at, windowStart, at, windowStart, at],
      );
      const row = await tx.get<BucketRow>(
        'SELECT failures, locked_until FROM login_attempts WHERE bucket = ?',
        [bucket],
      );
      let until = row?.locked_until ?? null;
      if ((until === null || until <= at) && Number(row?.failures ?? 0) > LOGIN_FAILURES_MAX) {
        await lock(tx, bucket, lockUntil, at);
        until = lockUntil;
      }
      if (until !== null && until > at && (locked === null || until > locked)) locked = until;
    }
    return locked;
  });
}

/** The lock starts a fresh window, so after it lapses the bucket has five tries again. */
async function lock(tx: Queryable, bucket: string, until: string, at: string): Promise<void> {
  await tx.run(
    'UPDATE login_attempts SET locked_until = ?, failures = 0, window_start = ? WHERE bucket = ?',
    [until, at, bucket],
  );
}

/** The attempt failed: it stays counted, and the fifth failure in the window locks the bucket. */
async function recordFailure(db: Database, buckets: readonly string[], now: Date): Promise<void> {
  const at = now.toISOString();
  const lockUntil = new Date(now.getTime() + LOGIN_LOCK_MS).toISOString();
  await db.write(async (tx) => {
    for (const bucket of buckets) {
      const row = await tx.get<BucketRow>(
        'SELECT failures, locked_until FROM login_attempts WHERE bucket = ?',
        [bucket],
      );
      const locked =
        row?.locked_until !== null && row?.locked_until !== undefined && row.locked_until > at;
      if (!locked && Number(row?.failures ?? 0) >= LOGIN_FAILURES_MAX) {
        await lock(tx, bucket, lockUntil, at);
      }
    }
  });
}

/**
 * The attempt succeeded: the account's count is cleared; the IP's is only given back this one
 * attempt, so that one good account cannot reset guessing at others from the same address.
 * Stale rows are swept here because sign-ins are rare and cheap to piggyback.
 */
async function recordSuccess(db: Database, buckets: readonly string[], now: Date): Promise<void> {
  const [account = '', ip = ''] = buckets;
  const stale = new Date(now.getTime() - LOGIN_WINDOW_MS).toISOString();
  await db.write(async (tx) => {
    await tx.run('DELETE FROM login_attempts WHERE bucket = ?', [account]);
    await tx.run(
      'UPDATE login_attempts SET failures = failures - 1 WHERE bucket = ? AND failures > 0',
      [ip],
    );
    await tx.run(
      `DELETE FROM login_attempts
       WHERE window_start < ? AND (locked_until IS NULL OR locked_until < ?)`,
      [stale, now.toISOString()],
    );
  });
}

function minutesUntil(until: string, now: Date): number {
  return Math.max(1, Math.ceil((Date.parse(until) - now.getTime()) / 60_000));
}

async function findUser(q: Queryable, slug: string, email: string) {
  const org = await q.get<{ id: string }>('SELECT id FROM organisations WHERE slug = ?', [
    slug.trim().toLowerCase(),
  ]);
  return org ? userByEmail(q, org.id, email) : undefined;
}

/**
 * Check the credentials and start a session. Refusals: RATE_LIMITED (429) while a bucket is
 * locked, else UNAUTHORIZED (401) with one generic message.
 */
export async function signIn(db: Database, input: LoginInput): Promise<LoginOk> {
  const now = new Date();
  const buckets = bucketsOf(input);
  const until = await reserveAttempt(db, buckets, now);
  if (until !== null) {
    throw new DomainError(
      'RATE_LIMITED',
      `too many failed sign-ins; try again in ${minutesUntil(until, now)} minutes`,
    );
  }
  const wellFormed =
    input.slug.length <= SLUG_CHARS_MAX &&
    input.email.length <= EMAIL_CHARS_MAX &&
    input.password.length <= PASSWORD_CHARS_MAX;
  const user = wellFormed ? await findUser(db.reader, input.slug, input.email) : undefined;
  const password = wellFormed ? input.password : '';
  const ok = await verifyPassword(password, user?.password_hash ?? (await dummy()));
  if (!ok || !user) {
    await recordFailure(db, buckets, now);
    throw new DomainError('UNAUTHORIZED', LOGIN_FAILED_MESSAGE);
  }
  await recordSuccess(db, buckets, now);
  return createSession(db, user.org_id, user.id);
}
