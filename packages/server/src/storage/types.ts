/**
 * The storage seam. Domain code sees only `Tx` (a unit of work inside one transaction) and the
 * small `Capabilities` object; engine differences live in `sqlite.ts` and `postgres.ts`
 * (docs/architecture.md, Two engines, one codebase). SQL is written once with `?` placeholders in
 * the portable subset both engines accept.
 */
import type { MigrateOptions, Migration } from './migration-types.js';

export type SqlValue = string | number | bigint | null;
export type Row = Record<string, unknown>;

export interface Queryable {
  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /**
   * Rows as arrays of column values in the SELECT's order, without an object per row: for reads
   * that serve many rows (`GET events` pages). Optional; `all` is the fallback.
   */
  values?(sql: string, params?: readonly SqlValue[]): Promise<unknown[][]>;
  /**
   * Present on a database's shared reader only: run `fn` over one consistent read snapshot
   * (`Database.read`), so that several reads agree with each other whatever commits meanwhile.
   * A transaction has no such member: it is one view already, or holds the locks that make it one.
   */
  snapshot?<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
}

/** The shared reader of a database: `q` with `snapshot` running on `read`. */
export function sharedReader<Q extends Queryable>(q: Q, read: <T>(fn: (q: Queryable) => Promise<T>) => Promise<T>): Q {
  return Object.assign(q, { snapshot: read });
}

export interface Capabilities {
  readonly engine: 'sqlite' | 'postgres';
  /** Suffix that locks selected rows until commit (empty where writes are already serial). */
  readonly forUpdate: string;
  /** Writes from several requests may share one commit (group commit). */
  readonly groupCommit: boolean;
}

/**
 * What the units of work sharing one transaction (group commit) share besides it: a
 * memo for state the write path keeps across them (an organisation's locked head, the events and
 * idempotency rows it has not written yet) and work to do once, after the last unit and before
 * COMMIT (the set-based inserts and the one head update). A unit that fails rolls back to its
 * savepoint; whoever keeps state in the memo restores its own part (write-path.ts does). A
 * `beforeCommit` that fails fails the whole batch: nothing in it commits, no unit is answered ok.
 */
export interface BatchScope {
  readonly memo: Map<string, unknown>;
  /**
   * This attempt may not lean on answers kept optimistically (write-path `uow.optimistic`): SQLite
   * (nothing is run again), a PostgreSQL batch run again after a write was refused, a write alone.
   */
  readonly exact: boolean;
  /**
   * Run `fn` once before the batch commits, in registration order. An `early` hook runs before
   * every other: rows that must go out with the batch's combined write-out, ahead of the
   * organisation's head update.
   */
  beforeCommit(fn: (q: Writer) => Promise<void>, options?: { readonly early?: boolean }): void;
}

/** A transaction's statements and its queued writes (`Tx.later`), without the unit's scope. */
export type Writer = Queryable & Pick<Tx, 'later'>;

/** A unit of work's handle: queries plus notifications delivered only if and after it commits. */
export interface Tx extends Queryable {
  notify(channel: string, payload: string): Promise<void>;
  readonly batch: BatchScope;
  /**
   * A write whose row count nobody needs: an INSERT, UPDATE or DELETE without RETURNING. It is part of the unit of work like any other statement; the engine may send it with the
   * transaction's next statement instead of on its own round trip (PostgreSQL combines the writes
   * queued so far into one statement; SQLite runs it at once). A failure surfaces there, and
   * fails the unit (or, across units, the batch runs again unit by unit).
   */
  later(sql: string, params?: readonly SqlValue[]): Promise<void>;
}

/** A fresh scope, and how an engine runs its `beforeCommit` work (in registration order). */
export function newBatchScope(exact: boolean): BatchScope & { flush(q: Writer): Promise<void> } {
  const early: ((q: Writer) => Promise<void>)[] = [];
  const hooks: ((q: Writer) => Promise<void>)[] = [];
  return {
    memo: new Map(),
    exact,
    beforeCommit(fn, options) {
      (options?.early === true ? early : hooks).push(fn);
    },
    async flush(q) {
      // A hook may register another (a late unit's); run until none is left.
      for (;;) {
        const next = early.shift() ?? hooks.shift();
        if (next === undefined) return;
        await next(q);
      }
    },
  };
}

export interface WriteOptions {
  /**
   * Units of work with the same key may share one transaction and one commit (group commit),
   * each in its own savepoint. The write path passes the organisation id: its units serialise
   * on the organisation's ledger head anyway, so sharing a commit costs them nothing in
   * isolation and saves a commit (an fsync and round trips under the lock) per unit.
   */
  readonly batchKey?: string;
  /**
   * Run once at the start of each batch of this key, before its units are taken from the queue
   * and outside their savepoints (PostgreSQL; the SQLite writer is serial already). The write
   * path locks the organisation's head here: while it waits for another process, units that
   * arrive join the batch, and a unit that rolls back cannot release the lock.
   */
  readonly prelude?: (tx: Tx) => Promise<void>;
  /**
   * The prelude of several other keys at once, without waiting: lock those of `keys` that no other
   * transaction holds and return them (PostgreSQL). A batch that holds its own prelude then also
   * takes the queued units of those keys, so that many organisations each writing a little share
   * one commit instead of paying one each. It must never wait: the batch already holds a lock.
   */
  readonly preludeMany?: (tx: Tx, keys: readonly string[]) => Promise<ReadonlySet<string>>;
}

export interface Database {
  readonly caps: Capabilities;
  /**
   * The migrations this database is migrated with and its schema compared against, ids ascending:
   * given when it is opened (the full list is collected where the server is assembled, schema.ts).
   */
  readonly migrations: readonly Migration[];
  /** Reads outside any write transaction: they see committed data only. */
  readonly reader: Queryable;
  /**
   * Run `fn` as one unit of work. It is atomic: either everything it wrote commits or nothing
   * does. The returned promise settles only after the commit is durable.
   */
  write<T>(fn: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * Run `fn` over one consistent read snapshot: every query inside sees the database as of one
   * instant, whatever commits meanwhile (a chain read page by page then ends at its own head).
   * SQLite: a deferred transaction on a connection of its own (WAL pins the snapshot at the first
   * read); PostgreSQL: a pool client in REPEATABLE READ READ ONLY. Nothing may be written in it.
   */
  read<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Apply pending migrations (all, or through `options.throughId`), idempotently. */
  migrate(options?: MigrateOptions): Promise<void>;
  /**
   * Receive notifications sent with `tx.notify` by any process on this database, after their
   * transaction committed (PostgreSQL LISTEN/NOTIFY; in-process for SQLite). Returns unsubscribe.
   */
  listen(channel: string, handler: (payload: string) => void): Promise<() => void>;
  close(): Promise<void>;
}

/** What `Tx.later` takes: an INSERT, UPDATE or DELETE without RETURNING; its kind. */
export function checkLater(sql: string): 'INSERT' | 'UPDATE' | 'DELETE' {
  const kind = /^\s*(INSERT|UPDATE|DELETE)\b/i.exec(sql)?.[1]?.toUpperCase();
  if (kind === undefined || /\bRETURNING\b/i.test(sql)) throw new Error('later() takes an INSERT, UPDATE or DELETE without RETURNING');
  return kind as 'INSERT' | 'UPDATE' | 'DELETE';
}
