import { canonicalJson, sha256Hex, type EventKindSpec, type JsonValue, type MethodSpec } from '@finance-desk/protocol';
import type { z } from 'zod';
import { DomainError, invariant } from './errors.js';
import { appendEvent, lockHead, type Appended, type EventBody } from './ledger/append.js';
import { clockOf, DEFAULT_TIME_ZONE, localDate } from './clock.js';
import type { Capabilities, Database, Queryable, Tx } from './storage/types.js';

/**
 * The unit of work a handler receives: the transaction, and `emit` to append the call's one
 * ledger event. Handlers never open transactions (architecture guide, property 1).
 */
export interface Uow {
  readonly tx: Tx;
  readonly caps: Capabilities;
  readonly orgId: string;
  readonly actor: string;
  readonly now: string;
  /** The organisation's local date at `now` (its time zone; clock.ts): what "today" means. */
  readonly today: string;
  /**
   * The organisation's lock date (issue 12 item 2), read in the unit's transaction: nothing posts
   * on or before it (domain/gl/periods.ts); null when no owner has set one.
   */
  readonly lockDate: string | null;
  /**
   * The organisation's conversion date (issue 12 item 2, books.openingBalances), read in the unit's
   * transaction: the opening balances carry the books up to and including it, so nothing else posts
   * on or before it (domain/gl/periods.ts); null before a conversion is recorded.
   */
  readonly conversionDate: string | null;
  /**
   * Append the call's one event: its declaration (protocol `events.*`, which gives family and
   * kind) and its entity and payload, the payload typed by the declaration's schema.
   */
  emit<E extends EventKindSpec>(event: E, body: EventBody<E>): Promise<Appended>;
}

/** What a write handler returns: a result, `noop` when the row was already in its target state. */
export type WriteResult = object & { readonly noop?: boolean };

/**
 * A value as a handler may hand it over to be serialised: the declared shape, any array or
 * field of it readonly (a handler's result is only written out, never changed after).
 */
export type Frozen<T> = T extends readonly (infer U)[]
  ? readonly Frozen<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T;

/** What a read (POST or GET) of spec `S` answers: its declared result (issue 11 item 1). */
export type DeclaredResult<S extends { readonly result: z.ZodType }> = Frozen<z.input<S['result']>>;

/**
 * What a write handler of `S` returns: its declared result (issue 11 item 1), so a handler of the
 * wrong shape does not compile; `noop` (D3) may ride along whether or not the result declares it.
 */
export type ResultOf<S extends MethodSpec> = DeclaredResult<S> & WriteResult;

export interface WriteCall {
  readonly orgId: string;
  readonly actor: string;
  /** Idempotency scope (D2): the key is per (organisation, credential). */
  readonly credentialId: string;
  readonly method: string;
  readonly params: unknown;
  readonly idempotencyKey: string | null;
}

export type WriteOutcome =
  | { readonly replay: false; readonly result: WriteResult }
  | { readonly replay: true; readonly result: unknown };

interface IdemRow {
  method: string;
  request_hash: string;
  result: string;
}

/** Requests whose idempotency key is being executed in this process (D2: in flight → CONFLICT). */
const inFlight = new Set<string>();

function requestHash(method: string, params: unknown): string {
  return sha256Hex(canonicalJson({ method, params: params as JsonValue }));
}

/**
 * Run a unit of work for an organisation with exactly one ledger event (or none for a state
 * no-op). Locks the organisation's head, runs `fn`, checks the one-event invariant, and
 * everything commits together. `before` may answer early (an idempotent replay) with no event.
 */
async function unitOfWork<R extends WriteResult, E>(
  db: Database,
  orgId: string,
  actor: string,
  fn: (uow: Uow) => Promise<R>,
  before: (tx: Tx) => Promise<E | undefined>,
): Promise<{ early: E } | { result: R }> {
  return db.write(async (tx) => {
    const head = await lockHead(tx, db.caps, orgId);
    invariant(head, `organisation ${orgId} has a head row`);
    const early = await before(tx);
    if (early !== undefined) return { early };
    let emitted = 0;
    const now = clockOf(db)();
    const org = await tx.get<{ time_zone: string | null; lock_date: string | null; conversion_date: string | null }>(
      'SELECT time_zone, lock_date, conversion_date FROM organisations WHERE id = ?',
      [orgId],
    );
    const uow: Uow = {
      tx,
      caps: db.caps,
      orgId,
      actor,
      now,
      today: localDate(now, org?.time_zone ?? DEFAULT_TIME_ZONE),
      lockDate: org?.lock_date ?? null,
      conversionDate: org?.conversion_date ?? null,
      emit: async (event, body) => {
        emitted += 1;
        invariant(emitted === 1, 'a call appends exactly one event');
        return appendEvent(tx, orgId, head, actor, event, body);
      },
    };
    const result = await fn(uow);
    invariant(
      result.noop === true ? emitted === 0 : emitted === 1,
      'a side-effecting call appends exactly one event; a state no-op appends none',
    );
    return { result };
  }, { batchKey: orgId });
}

const nothingBefore = async (): Promise<undefined> => undefined;

/** A unit of work outside the method pipeline (CLI, human lane): one event, one transaction. */
export async function inUnitOfWork<R extends WriteResult>(
  db: Database,
  orgId: string,
  actor: string,
  fn: (uow: Uow) => Promise<R>,
): Promise<R> {
  const out = await unitOfWork(db, orgId, actor, fn, nothingBefore);
  if ('early' in out) throw new Error('unreachable: no early answer without a before step');
  return out.result;
}

/** A stored result for this key: undefined if none; CONFLICT if the key was used for other params. */
async function seenResult(q: Queryable, call: WriteCall, key: string, hash: string): Promise<unknown> {
  const seen = await q.get<IdemRow>(
    'SELECT method, request_hash, result FROM idempotency WHERE org_id = ? AND credential_id = ? AND idem_key = ?',
    [call.orgId, call.credentialId, key],
  );
  if (!seen) return undefined;
  if (seen.request_hash !== hash) {
    throw new DomainError('CONFLICT', `idempotency key was already used for a different request (${seen.method})`);
  }
  return JSON.parse(seen.result) as unknown;
}

/**
 * The one write path for method calls (architecture guide, property 1): idempotency check (D2),
 * the domain decision, its one event, the stored result — in one transaction.
 *
 * `prepare` (issue 10 item 5, binding.ts bindPrepared) runs first, outside the transaction and
 * without the organisation's lock; its value is passed to the handler. With a key, a stored
 * result is looked for before `prepare` (a replay costs no model call), and again under the
 * lock as always (a concurrent twin that committed first is replayed; in this process the
 * in-flight set already refuses a twin with CONFLICT).
 */
export async function runWrite(
  db: Database,
  call: WriteCall,
  handler: (uow: Uow, prepared: unknown) => Promise<WriteResult>,
  prepare?: () => Promise<unknown>,
): Promise<WriteOutcome> {
  const key = call.idempotencyKey;
  if (key === null) {
    const prepared = prepare ? await prepare() : undefined;
    return { replay: false, result: await inUnitOfWork(db, call.orgId, call.actor, (uow) => handler(uow, prepared)) };
  }
  const slot = `${call.orgId}\u0000${call.credentialId}\u0000${key}`;
  if (inFlight.has(slot)) {
    throw new DomainError('CONFLICT', 'idempotency key is in use by a request still running');
  }
  inFlight.add(slot);
  try {
    const hash = requestHash(call.method, call.params);
    let prepared: unknown;
    if (prepare) {
      const early = await seenResult(db.reader, call, key, hash);
      if (early !== undefined) return { replay: true, result: early };
      prepared = await prepare();
    }
    const outcome = await unitOfWork(
      db,
      call.orgId,
      call.actor,
      async (uow) => {
        const result = await handler(uow, prepared);
        await uow.tx.run(
          `INSERT INTO idempotency (org_id, credential_id, idem_key, method, request_hash, result, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [call.orgId, call.credentialId, key, call.method, hash, JSON.stringify(result), uow.now],
        );
        return result;
      },
      async (tx) => seenResult(tx, call, key, hash),
    );
    if ('early' in outcome) return { replay: true, result: outcome.early };
    return { replay: false, result: outcome.result };
  } finally {
    inFlight.delete(slot);
  }
}

/** Drop idempotency records past retention (D2 keeps them at least 24 h; we keep 48 h). */
export async function purgeIdempotency(db: Database, olderThanMs: number): Promise<number> {
  const cutoff = new Date(Date.now() - olderThanMs).toISOString();
  return db.write(async (tx) => (await tx.run('DELETE FROM idempotency WHERE created_at < ?', [cutoff])).changes);
}
