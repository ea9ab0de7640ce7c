/**
 * The storage seam. Domain code sees only `Tx` (a unit of work inside one transaction) and the
 * small `Capabilities` object; engine differences live in `sqlite.ts` and `postgres.ts`
 * (architecture guide, property 4). SQL is written once with `?` placeholders in the portable
 * subset both engines accept.
 */
import type { MigrateOptions } from './migrations.js';

export type SqlValue = string | number | bigint | null;
export type Row = Record<string, unknown>;

export interface Queryable {
  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /**
   * Rows as arrays of column values in the SELECT's order, without an object per row: for reads
   * that serve many rows (issue 14: `GET events` pages). Optional; `all` is the fallback.
   */
  values?(sql: string, params?: readonly SqlValue[]): Promise<unknown[][]>;
}

export interface Capabilities {
  readonly engine: 'sqlite' | 'postgres';
  /** Suffix that locks selected rows until commit (empty where writes are already serial). */
  readonly forUpdate: string;
  /** Writes from several requests may share one commit (group commit). */
  readonly groupCommit: boolean;
}

/** A unit of work's handle: queries plus notifications delivered only if and after it commits. */
export interface Tx extends Queryable {
  notify(channel: string, payload: string): Promise<void>;
}

export interface WriteOptions {
  /**
   * Units of work with the same key may share one transaction and one commit (group commit),
   * each in its own savepoint. The write path passes the organisation id: its units serialise
   * on the organisation's ledger head anyway, so sharing a commit costs them nothing in
   * isolation and saves a commit (an fsync and round trips under the lock) per unit.
   */
  readonly batchKey?: string;
}

export interface Database {
  readonly caps: Capabilities;
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
