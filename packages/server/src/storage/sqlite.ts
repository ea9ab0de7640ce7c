import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { backfillSteps, type MigrateOptions, type Migration } from './migration-types.js';
import { inIdOrder, seedStatements } from './migrations.js';
import { SchemaRefused, schemaKey, schemaProblems, unknownMigrations, type SchemaObject } from './schema-check.js';
import {
  checkLater,
  newBatchScope,
  type BatchScope,
  type Capabilities,
  type Database,
  type Queryable,
  type Row,
  type SqlValue,
  type Tx,
  sharedReader,
} from './types.js';

export type SqliteSynchronous = 'FULL' | 'NORMAL';

export interface SqliteOptions {
  readonly path: string;
  /** Every migration, ids ascending (Database.migrations). */
  readonly migrations: readonly Migration[];
  /** FULL (default): an acknowledged write survives power loss. NORMAL: survives a crash. */
  readonly synchronous?: SqliteSynchronous;
  /** Upper bound on requests sharing one commit. */
  readonly batchJobsMax?: number;
}

/** Idle snapshot connections kept open; more are opened on demand and closed after use. */
const SNAPSHOT_POOL_MAX = 4;

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

function settled<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A better-sqlite3 connection behind the async `Queryable` face, with a statement cache. */
class SqliteConnection implements Queryable {
  private readonly cache = new Map<string, Statement>();
  /** Statements in raw mode (rows as arrays): a statement's mode is its own, so a cache apart. */
  private readonly rawCache = new Map<string, Statement>();
  constructor(readonly raw: BetterSqlite3.Database) {}

  private stmt(sql: string): Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.raw.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  allSync<T>(sql: string, params: readonly SqlValue[] = []): T[] {
    return this.stmt(sql).all(...params) as T[];
  }

  // Errors come back as rejected promises, as from any async driver, never thrown synchronously
  // (`tx.run(…).catch(…)` must catch them).
  all<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return settled(() => this.allSync<T>(sql, params));
  }

  runSync(sql: string, params: readonly SqlValue[] = []): void {
    this.stmt(sql).run(...params);
  }

  /** `Tx.later` on SQLite: in process, so at once. */
  later(sql: string, params: readonly SqlValue[] = []): Promise<void> {
    return settled(() => {
      checkLater(sql);
      this.runSync(sql, params);
    });
  }

  values(sql: string, params: readonly SqlValue[] = []): Promise<unknown[][]> {
    let s = this.rawCache.get(sql);
    if (!s) {
      s = this.raw.prepare(sql).raw(true);
      this.rawCache.set(sql, s);
    }
    const raw = s;
    return settled(() => raw.all(...params) as unknown[][]);
  }

  get<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return settled(() => this.stmt(sql).get(...params) as T | undefined);
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    return settled(() => ({ changes: this.stmt(sql).run(...params).changes }));
  }
}

/**
 * Apply the ones of `migrations` that `include` selects and `raw` has not applied yet, in order,
 * recording each in schema_migrations (the caller holds the transaction). The server's start and the
 * schema check's in-memory reference both run this, so the reference is exactly what a start creates.
 */
export function applySqliteMigrations(
  raw: BetterSqlite3.Database,
  migrations: readonly Migration[],
  include: (id: number) => boolean,
): void {
  raw.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const done = new Set((raw.prepare('SELECT id FROM schema_migrations').all() as { id: number }[]).map((r) => Number(r.id)));
  for (const m of migrations) {
    if (done.has(m.id) || !include(m.id)) continue;
    for (const sql of m.statements) raw.exec(sql);
    for (const step of backfillSteps(m)) {
      const update = raw.prepare(step.update);
      for (const row of raw.prepare(step.select).all() as Record<string, unknown>[]) {
        update.run(...step.params(row));
      }
    }
    raw.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, new Date().toISOString());
  }
}

/** Tables SQLite itself makes (ANALYZE's statistics steer plans only), not the migrations. */
const SQLITE_OWN = /^sqlite_stat\d$/;

/** A database's schema objects as sqlite_master holds them (the SQL text is the definition). */
function sqliteSchema(raw: BetterSqlite3.Database): Map<string, SchemaObject> {
  const rows = raw.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master').all() as {
    type: string;
    name: string;
    tbl_name: string;
    sql: string | null;
  }[];
  const out = new Map<string, SchemaObject>();
  for (const r of rows) {
    if (r.type === 'table' && SQLITE_OWN.test(r.name)) continue;
    const object: SchemaObject = {
      kind: r.type,
      name: r.name,
      on: r.type === 'index' || r.type === 'trigger' ? r.tbl_name : '',
      // Whitespace is layout: a migration re-indented in the source is the same definition.
      def: (r.sql ?? '').replace(/\s+/g, ' ').trim(),
    };
    out.set(schemaKey(object), object);
  }
  return out;
}

/** What the migrations of a list with these ids create, built once per list and set in an in-memory database. */
const references = new WeakMap<readonly Migration[], Map<string, Map<string, SchemaObject>>>();

function sqliteReference(migrations: readonly Migration[], ids: ReadonlySet<number>): Map<string, SchemaObject> {
  let ofList = references.get(migrations);
  if (!ofList) {
    ofList = new Map();
    references.set(migrations, ofList);
  }
  const key = [...ids].sort((a, b) => a - b).join(',');
  let reference = ofList.get(key);
  if (!reference) {
    const mem = new BetterSqlite3(':memory:');
    try {
      mem.transaction(() => applySqliteMigrations(mem, migrations, (id) => ids.has(id)))();
      reference = sqliteSchema(mem);
    } finally {
      mem.close();
    }
    ofList.set(key, reference);
  }
  return reference;
}

/** The migration ids `raw` records, split into those of `migrations` and those it does not hold. */
function appliedMigrations(raw: BetterSqlite3.Database, migrations: readonly Migration[]): { known: Set<number>; unknown: number[] } {
  const applied = (raw.prepare('SELECT id FROM schema_migrations').all() as { id: number }[]).map((r) => Number(r.id));
  const ids = new Set(migrations.map((m) => m.id));
  return { known: new Set(applied.filter((id) => ids.has(id))), unknown: applied.filter((id) => !ids.has(id)) };
}

/**
 * How the schema of `raw` differs from what the migrations it has applied (and this build
 * knows) create, one line per object; empty when it is exactly that.
 */
export function sqliteSchemaProblems(raw: BetterSqlite3.Database, migrations: readonly Migration[]): string[] {
  return schemaProblems(sqliteReference(migrations, appliedMigrations(raw, migrations).known), sqliteSchema(raw));
}

interface Job {
  readonly fn: (tx: Tx) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Notice = readonly [channel: string, payload: string];
type Outcome = { ok: true; value: unknown; notices: Notice[] } | { ok: false; error: unknown };

/**
 * SQLite engine with group commit (docs/decisions.md, "Group commit"). Every unit of work runs
 * in its own SAVEPOINT inside one `BEGIN IMMEDIATE` transaction shared by the requests that
 * arrived in the same event-loop turn; one COMMIT (one fsync) makes the whole batch durable, and
 * only then is any of them answered. A failing unit rolls back to its savepoint alone.
 */
export class SqliteDatabase implements Database {
  readonly caps: Capabilities = { engine: 'sqlite', forUpdate: '', groupCommit: true };
  readonly migrations: readonly Migration[];
  readonly reader: Queryable;
  private readonly writer: SqliteConnection;
  private readonly queue: Job[] = [];
  private scheduled = false;
  private running = false;
  private readonly batchJobsMax: number;
  private readonly notices = new EventEmitter();
  private readonly path: string;
  private closed = false;
  /** Idle connections for `read` snapshots (a snapshot must not pin the shared reader). */
  private readonly snapshotPool: SqliteConnection[] = [];

  constructor(options: SqliteOptions) {
    // Refused before a file is opened: the engine applies the list in its order.
    this.migrations = inIdOrder(options.migrations);
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    const raw = new BetterSqlite3(options.path);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    raw.pragma('busy_timeout = 5000');
    raw.pragma('foreign_keys = ON');
    // Each unit's SAVEPOINT keeps a statement journal of the pages it touches, by
    // default in a temporary file: ~26 µs of mostly kernel CPU per write, measured with perf. In
    // memory it is ~2 µs. It only serves rolling back inside the open transaction, never crash
    // recovery (that is the WAL), so durability is unchanged.
    raw.pragma('temp_store = MEMORY');
    this.writer = new SqliteConnection(raw);
    // A separate connection for reads: under WAL it sees only committed data, never a batch
    // that is still open on the writer.
    const readRaw = new BetterSqlite3(options.path);
    readRaw.pragma('busy_timeout = 5000');
    this.reader = sharedReader(new SqliteConnection(readRaw), (fn) => this.read(fn));
    this.batchJobsMax = options.batchJobsMax ?? 512;
    this.path = options.path;
  }

  /**
   * A snapshot runs on a connection of its own: holding BEGIN on the shared reader would show
   * every other request that stale snapshot (a client would not read its own committed write).
   * BEGIN is deferred, so WAL fixes the snapshot at the first SELECT and keeps it until COMMIT.
   */
  async read<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    // ':memory:' databases are per connection: there the shared reader is the only view.
    if (this.path === ':memory:') return fn(this.reader);
    const conn = this.snapshotPool.pop() ?? this.openSnapshotConnection();
    conn.raw.exec('BEGIN');
    try {
      return await fn(conn);
    } finally {
      if (conn.raw.inTransaction) conn.raw.exec('COMMIT');
      if (!this.closed && this.snapshotPool.length < SNAPSHOT_POOL_MAX) this.snapshotPool.push(conn);
      else conn.raw.close();
    }
  }

  private openSnapshotConnection(): SqliteConnection {
    const raw = new BetterSqlite3(this.path);
    raw.pragma('busy_timeout = 5000');
    return new SqliteConnection(raw);
  }

  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    // setImmediate runs after the poll phase: every request read in this turn joins the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  /** Called with the number of units in each group commit (metrics: fd_group_commit_units). */
  private commitObserver: ((units: number) => void) | null = null;

  observeCommits(fn: (units: number) => void): void {
    this.commitObserver = fn;
  }

  private async flush(): Promise<void> {
    this.running = true;
    const batch = this.queue.splice(0, this.batchJobsMax);
    this.commitObserver?.(batch.length);
    const exec = (sql: string) => this.writer.raw.exec(sql);
    let outcomes: Outcome[] = [];
    try {
      exec('BEGIN IMMEDIATE');
      const scope = newBatchScope(true);
      for (const job of batch) outcomes.push(await this.runJob(job, scope));
      // The batch's set-based writes (write-path.ts: events, idempotency rows, heads), then COMMIT.
      await scope.flush(this.writer);
      exec('COMMIT');
    } catch (error) {
      // BEGIN or COMMIT failed: nothing in the batch is durable, so every unit fails.
      if (this.writer.raw.inTransaction) exec('ROLLBACK');
      outcomes = batch.map(() => ({ ok: false, error }));
    }
    batch.forEach((job, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) {
        for (const [channel, payload] of outcome.notices) this.notices.emit(channel, payload);
        job.resolve(outcome.value);
      } else job.reject(outcome ? outcome.error : new Error('unit of work was not run'));
    });
    this.running = false;
    if (this.queue.length > 0) this.schedule();
  }

  /**
   * One unit in its savepoint. A unit whose function returned is released; if releasing (or
   * undoing a failed one) throws, that throws out of the batch, so the whole batch fails: a unit
   * whose state the write path kept in the batch's memo is never left half in, half out.
   */
  private async runJob(job: Job, batch: BatchScope): Promise<Outcome> {
    const exec = (sql: string) => this.writer.raw.exec(sql);
    exec('SAVEPOINT unit');
    const notices: Notice[] = [];
    const w = this.writer;
    const tx: Tx = {
      all: (sql, params) => w.all(sql, params),
      get: (sql, params) => w.get(sql, params),
      run: (sql, params) => w.run(sql, params),
      notify: (channel, payload) => {
        notices.push([channel, payload]);
        return Promise.resolve();
      },
      later: (sql, params) => w.later(sql, params),
      batch,
    };
    let outcome: Outcome;
    try {
      outcome = { ok: true, value: await job.fn(tx), notices };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (!outcome.ok) exec('ROLLBACK TO unit');
    exec('RELEASE unit');
    return outcome;
  }

  migrate(options: MigrateOptions = {}): Promise<void> {
    const raw = this.writer.raw;
    const through = options.throughId ?? Number.MAX_SAFE_INTEGER;
    const migrations = this.migrations;
    const check = options.checkSchema === true && migrations.every((m) => m.id <= through);
    const apply = raw.transaction(() => {
      // A file with no schema object yet is one this start creates: nothing to compare.
      const existing = check && raw.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get() !== undefined;
      applySqliteMigrations(raw, migrations, (id) => id <= through);
      for (const seed of seedStatements()) raw.prepare(seed.sql).run(...seed.params);
      // The fully migrated schema, in the migration's transaction: a refusal rolls it back, so
      // the file is left as it was.
      if (existing) {
        const problems = [...unknownMigrations(appliedMigrations(raw, migrations).unknown), ...sqliteSchemaProblems(raw, migrations)];
        if (problems.length > 0) throw new SchemaRefused(problems, `the SQLite file ${this.path}`);
      }
    });
    return settled(() => apply.immediate());
  }

  /** One SQLite file has one writer process in this design, so notices stay in-process. */
  listen(channel: string, handler: (payload: string) => void): Promise<() => void> {
    this.notices.on(channel, handler);
    return Promise.resolve(() => this.notices.off(channel, handler));
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.running || this.scheduled || this.queue.length > 0) {
      await new Promise((r) => setTimeout(r, 5));
    }
    this.writer.raw.close();
    (this.reader as SqliteConnection).raw.close();
    for (const conn of this.snapshotPool.splice(0)) conn.raw.close();
  }
}
