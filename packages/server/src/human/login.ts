import { createHash, randomBytes } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { DomainError } from '../errors.js';
import type { Capabilities, Database, Queryable, Tx } from '../storage/types.js';
import { hashPassword, verifyPassword } from '../org/passwords.js';
import { createSession } from './sessions.js';
import { userByEmail } from './users.js';
import { placeholders } from '../storage/sql.js';

/**
 * Sign-in with throttling. Failures are counted in three
 * buckets, each with its own ceiling per fifteen-minute window; reaching a ceiling locks that
 * bucket for fifteen minutes:
 * - the (client IP, account) pair, 5: a guesser locks out only themselves, never the owner
 *   signing in from somewhere else;
 * - the client IP across all accounts, 20: one address cannot spray many accounts;
 * - the account across all addresses, 200: far above what a person mistypes, so only an
 *   attacker holding dozens of addresses can lock the owner out; it stays because without it
 *   guesses at one account grow without bound with the number of addresses, and a person may
 *   choose a 12-character password (`user add --password`). Locking the account for everyone
 *   is the lesser harm than unbounded guessing; at 200 per 15 minutes the guessing rate is
 *   under 20 000 a day whatever the attacker holds.
 * Unknown organisation, unknown user and wrong password all get the same message and the same
 * scrypt cost, so a response reveals nothing about which it was. An attempt refused because a
 * bucket is locked writes nothing and costs no scrypt. The table is bounded: rows past their
 * window and lock are swept on every counted attempt, and at LOGIN_ROWS_MAX rows the least
 * informative rows are evicted first (see makeRoom).
 */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOGIN_LOCK_MS = 15 * 60 * 1000;
export const LOGIN_FAILED_MESSAGE = 'sign-in failed: check the organisation, email and password';

export interface LoginLimits {
  /** Failures per window for one (IP, account) pair. */
  readonly pairMax: number;
  /** Failures per window from one IP across every account. */
  readonly ipMax: number;
  /** Failures per window at one account from every IP. */
  readonly accountMax: number;
  /** Hard cap on rows in login_attempts. */
  readonly rowsMax: number;
}

export const LOGIN_LIMITS: LoginLimits = { pairMax: 5, ipMax: 20, accountMax: 200, rowsMax: 10_000 };

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

/** RATE_LIMITED while a bucket is locked; the console turns `retryAfterSeconds` into Retry-After. */
export class SignInLocked extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('RATE_LIMITED', `too many failed sign-ins; try again in ${Math.max(1, Math.ceil(retryAfterSeconds / 60))} minutes`);
  }
}

let dummyHash: Promise<string> | null = null;

/** A real scrypt hash of a random password, made once, so unknown users cost what known ones do. */
function dummy(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummyHash;
}

/** Expand an IPv6 address to its eight hextets; null if it is not one. */
function hextets(ip: string): string[] | null {
  if (!isIPv6(ip)) return null;
  const [head = '', tail] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...fill, ...right].map((h) => h.toLowerCase().replace(/^0+(?=.)/, ''));
}

/**
 * The client as throttling sees it. IPv4 (also IPv4-mapped IPv6) is one address; IPv6 is its
 * /64, because one subscriber is routinely given a whole /64 and could otherwise rotate
 * addresses for free.
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (isIPv4(ip)) return ip;
  const h = hextets(ip);
  return h ? `${h.slice(0, 4).join(':')}::/64` : ip.slice(0, 64);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

interface Bucket {
  readonly id: string;
  readonly max: number;
}

function bucketsOf(input: LoginInput, limits: LoginLimits): readonly Bucket[] {
  const account = `${input.slug.trim().toLowerCase()}\n${input.email.trim().toLowerCase()}`;
  const client = clientKey(input.ip);
  // Account-bearing buckets are hashed: they hold what a stranger typed, not worth keeping.
  return [
    { id: `pair:${sha256(`${client}\n${account}`)}`, max: limits.pairMax },
    { id: `ip:${client}`, max: limits.ipMax },
    { id: `acct:${sha256(account)}`, max: limits.accountMax },
  ];
}

interface BucketRow {
  bucket: string;
  failures: number;
  window_start: string;
  locked_until: string | null;
}

interface Clock {
  readonly at: string;
  /** Windows that started before this are over. */
  readonly stale: string;
  readonly lockUntil: string;
}

function clockAt(now: Date): Clock {
  return {
    at: now.toISOString(),
    stale: new Date(now.getTime() - LOGIN_WINDOW_MS).toISOString(),
    lockUntil: new Date(now.getTime() + LOGIN_LOCK_MS).toISOString(),
  };
}

/**
 * Every write to login_attempts holds this lock on PostgreSQL, so they run one at a time, as on
 * SQLite (one writer). Row locks could not do it: an attempt locks its rows as it finds them
 * and counts the ones that did not exist yet, while the sweep and the row cap delete anyone's
 * rows, so two attempts sharing an address or an account took the same rows in different
 * orders and one died of a deadlock (40P01, answered 500). An attempt's transaction is a few
 * short statements and costs no scrypt, so one at a time is far above the rate sign-ins can
 * come at. Distinct from the migration lock (storage/postgres.ts, 7 250 001).
 */
const LOGIN_ATTEMPTS_LOCK = 7_250_002;

async function oneWriter(tx: Tx, caps: Capabilities): Promise<void> {
  if (caps.engine === 'postgres') await tx.get('SELECT pg_advisory_xact_lock(?) AS locked', [LOGIN_ATTEMPTS_LOCK]);
}

async function readBuckets(tx: Tx, buckets: readonly Bucket[]) {
  const rows = await tx.all<BucketRow>(
    `SELECT bucket, failures, window_start, locked_until FROM login_attempts
     WHERE bucket IN (${placeholders(buckets.length)})`,
    buckets.map((b) => b.id),
  );
  return new Map(rows.map((r) => [r.bucket, r]));
}

/** The lock starts a fresh window, so after it lapses the bucket has its full allowance again. */
async function lock(tx: Tx, bucket: string, c: Clock): Promise<void> {
  await tx.run('UPDATE login_attempts SET locked_until = ?, failures = 0, window_start = ? WHERE bucket = ?', [c.lockUntil, c.at, bucket]);
}

/**
 * Decide whether this attempt may go on to the password check, and count it if so, in one
 * write transaction that is the table's only writer while it runs (oneWriter), so parallel
 * guesses are counted before any password is checked and each reads the counts exactly. A
 * bucket already locked refuses with no write at all; a bucket whose window is full is locked
 * now (its existing row only) and refuses. Returns the latest lock end, or null when counted.
 */
async function reserveAttempt(db: Database, buckets: readonly Bucket[], c: Clock, limits: LoginLimits): Promise<string | null> {
  return db.write(async (tx) => {
    await oneWriter(tx, db.caps);
    const rows = await readBuckets(tx, buckets);
    let locked: string | null = null;
    for (const r of rows.values()) {
      if (r.locked_until !== null && r.locked_until > c.at && (locked === null || r.locked_until > locked)) {
        locked = r.locked_until;
      }
    }
    if (locked !== null) return locked;
    for (const b of buckets) {
      const r = rows.get(b.id);
      if (r && r.window_start >= c.stale && Number(r.failures) >= b.max) {
        await lock(tx, b.id, c);
        locked = c.lockUntil;
      }
    }
    if (locked !== null) return locked;
    await sweep(tx, c);
    // A bucket whose row was just swept is new again.
    const fresh = buckets.filter((b) => (rows.get(b.id)?.window_start ?? '') < c.stale).length;
    if (fresh > 0) await makeRoom(tx, c, limits.rowsMax - fresh);
    for (const b of buckets) await count(tx, b.id, c);
    return null;
  });
}

async function count(tx: Tx, bucket: string, c: Clock): Promise<void> {
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
    [bucket, c.at, c.at, c.stale, c.at, c.stale, c.at],
  );
}

/**
 * Rows whose window is over hold nothing: a lock starts a window and lasts no longer than one
 * (LOGIN_LOCK_MS <= LOGIN_WINDOW_MS), so a stale window is also a lapsed lock. Indexed on
 * window_start (migration 13), so the sweep costs what it deletes.
 */
async function sweep(tx: Tx, c: Clock): Promise<void> {
  await tx.run('DELETE FROM login_attempts WHERE window_start < ?', [c.stale]);
}

/**
 * Hard cap: keep at most `keep` rows before this attempt adds its new ones. Evict rows that are
 * not locked first, oldest window first (they hold fewest recent failures, and losing one
 * gives that client back at most one window's allowance), then locks nearest to lapsing. Locks
 * go last because they are the rows doing the protecting. Reaching the cap needs thousands of
 * distinct clients within one window, since each client is itself capped.
 */
async function makeRoom(tx: Tx, c: Clock, keep: number): Promise<void> {
  const row = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM login_attempts');
  const excess = Number(row?.n ?? 0) - Math.max(0, keep);
  if (excess <= 0) return;
  await tx.run(
    `DELETE FROM login_attempts WHERE bucket IN (
       SELECT bucket FROM login_attempts
       ORDER BY CASE WHEN locked_until > ? THEN 1 ELSE 0 END, COALESCE(locked_until, window_start), bucket
       LIMIT ?)`,
    [c.at, excess],
  );
}

/**
 * The attempt succeeded: the pair's count is cleared; the IP's and the account's are only given
 * back this one attempt, so that one good account cannot reset guessing at others from the same
 * address, nor a good sign-in from one address reset guessing from others.
 */
async function recordSuccess(db: Database, buckets: readonly Bucket[]): Promise<void> {
  const [pair, ...shared] = buckets;
  await db.write(async (tx) => {
    await oneWriter(tx, db.caps);
    if (pair) await tx.run('DELETE FROM login_attempts WHERE bucket = ?', [pair.id]);
    for (const b of shared) {
      await tx.run('UPDATE login_attempts SET failures = failures - 1 WHERE bucket = ? AND failures > 0', [b.id]);
    }
  });
}

async function findUser(q: Queryable, slug: string, email: string) {
  const org = await q.get<{ id: string }>('SELECT id FROM organisations WHERE slug = ?', [slug.trim().toLowerCase()]);
  return org ? userByEmail(q, org.id, email) : undefined;
}

/**
 * Check the credentials and start a session. Refusals: SignInLocked (RATE_LIMITED, 429) while a
 * bucket is locked, else UNAUTHORIZED (401) with one generic message. `limits` is for tests.
 */
export async function signIn(db: Database, input: LoginInput, limits: LoginLimits = LOGIN_LIMITS): Promise<LoginOk> {
  const now = new Date();
  const c = clockAt(now);
  const buckets = bucketsOf(input, limits);
  const until = await reserveAttempt(db, buckets, c, limits);
  if (until !== null) throw new SignInLocked(Math.ceil((Date.parse(until) - now.getTime()) / 1000));
  const wellFormed =
    input.slug.length <= SLUG_CHARS_MAX && input.email.length <= EMAIL_CHARS_MAX && input.password.length <= PASSWORD_CHARS_MAX;
  const user = wellFormed ? await findUser(db.reader, input.slug, input.email) : undefined;
  const password = wellFormed ? input.password : '';
  const ok = await verifyPassword(password, user?.password_hash ?? (await dummy()));
  if (!ok || !user) throw new DomainError('UNAUTHORIZED', LOGIN_FAILED_MESSAGE);
  await recordSuccess(db, buckets);
  return createSession(db, user.org_id, user.id);
}
