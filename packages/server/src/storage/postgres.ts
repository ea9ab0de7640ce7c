import pg from 'pg';
import type { MigrateOptions, Migration } from './migration-types.js';
import { inIdOrder, seedStatements } from './migrations.js';
import { applyPgMigrations, EMPTY_SCHEMA_SQL, pgReference, pgSchemaProblems } from './postgres-schema.js';
import { SchemaRefused } from './schema-check.js';
import { changesData } from './sql.js';
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
  type WriteOptions,
  sharedReader,
} from './types.js';

// int8 (BIGINT) and numeric counts arrive as strings; every BIGINT here is a safe integer
// (cents, seq, days), and anything else is a broken invariant, not something to round.
pg.types.setTypeParser(20, (text: string) => {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`int8 value ${text} is not a safe integer`);
  return n;
});

const placeholderCache = new Map<string, string>();
/**
 * Keyed by SQL text, which is the source's own (IN lists vary with their callers' caps), never by
 * organisation; the cap is a backstop so that memory cannot grow with the data all the same.
 */
const PLACEHOLDER_CACHE_MAX = 4096;

/** `?` placeholders (the portable form) to PostgreSQL's `$n`. SQL here never quotes a `?`. */
function toPg(sql: string): string {
  let out = placeholderCache.get(sql);
  if (out === undefined) {
    let n = 0;
    out = sql.replace(/\?/g, () => `$${++n}`);
    if (placeholderCache.size < PLACEHOLDER_CACHE_MAX) placeholderCache.set(sql, out);
  }
  return out;
}

/**
 * A parameter that may be written into the text as a literal: a short string of letters, digits
 * and `_ . : -` (the ids the server makes), never a quote or a backslash, so it cannot end the
 * literal. Only strings: an untyped literal takes its type from the context as a parameter does.
 */
const SAFE_LITERAL = /^[A-Za-z0-9_.:-]{0,64}$/;
/** A statement with more parameters is sent as a prepared one, after a BEGIN of its own. */
const INLINED_PARAMS_MAX = 8;

/** The statement's `$n` parameters written in as literals; null if one is not SAFE_LITERAL (then it is sent prepared). */
function inlined(text: string, params: readonly SqlValue[]): string | null {
  if (params.length > INLINED_PARAMS_MAX || !params.every((p) => typeof p === 'string' && SAFE_LITERAL.test(p))) return null;
  return text.replace(/\$(\d+)/g, (_, n: string) => `'${String(params[Number(n) - 1])}'`);
}

/** Names of prepared statements by SQL text; bounded, past the bound statements go unnamed. */
const statementNames = new Map<string, string>();
const STATEMENT_NAMES_MAX = 4096;

/**
 * The query as node-postgres takes it: a parameterised statement gets a name, so each connection
 * parses and plans it once and then only binds and executes it (parse and plan were a
 * large part of PostgreSQL's CPU per write). The SQL here is written once in the source, so the
 * texts are few; dynamic ones (IN lists of varying length) are bounded by their callers' caps,
 * and the map by STATEMENT_NAMES_MAX all the same.
 */
function statement(sql: string, params: readonly SqlValue[]): pg.QueryConfig {
  const text = toPg(sql);
  if (params.length === 0) return { text };
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < STATEMENT_NAMES_MAX) {
    name = `fd${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name === undefined ? { text, values: params as unknown[] } : { name, text, values: params as unknown[] };
}

/**
 * A write queued by `Tx.later`. Queued writes go out combined: one statement of
 * data-modifying CTEs (`WITH w1 AS (…), w2 AS (…) <last>`), where plain single-row INSERTs of
 * the same text become one multi-row INSERT. In such a statement every part sees the snapshot
 * from before it, none sees another's rows, so a write joins a group only if its text names no
 * table an earlier write of the group wrote (it would read or change rows it cannot see), with
 * one exception: plain INSERT … VALUES into a table only such INSERTs wrote (they read nothing).
 * Foreign keys are checked at the end of the statement, so a parent and its children may share
 * one. Bounded: at most GROUP_PARAMS_MAX parameters (PostgreSQL's cap is 65 535) and
 * GROUP_PARTS_MAX parts per statement.
 */
interface Queued {
  readonly sql: string;
  readonly params: readonly SqlValue[];
  /** The table it writes. */
  readonly table: string;
  /** A plain `INSERT INTO t (…) VALUES (?, …)`: its text up to VALUES and its row; else null. */
  readonly plain: { readonly head: string; readonly row: string } | null;
  /** An additive upsert (ADDITIVE_UPSERT): how its rows merge; else null. */
  readonly additive: Additive | null;
}

/**
 * `INSERT INTO t (…) VALUES (?, …) ON CONFLICT (keys) DO UPDATE SET c = t.c + excluded.c, …` with
 * every column not in the key added: running totals kept beside the rows they sum (an account's
 * totals per day). Queued ones of the same text in a group become one multi-row upsert, rows of
 * the same key added together first (one statement may not change a row twice), so totals cost
 * one part per write-out however many journals a batch posts.
 */
interface Additive {
  readonly head: string;
  readonly row: string;
  readonly tail: string;
  /** Parameter positions of the conflict key, and of the columns added. */
  readonly keys: readonly number[];
  readonly sums: readonly number[];
}

const ADDITIVE_UPSERT =
  /^\s*(INSERT\s+INTO\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)\s*VALUES)\s*(\((?:\s*\?\s*,)*\s*\?\s*\))\s*(ON\s+CONFLICT\s*\(([^()]*)\)\s*DO\s+UPDATE\s+SET\s+([\s\S]*?))\s*$/i;
const additiveCache = new Map<string, Additive | null>();

function additiveOf(sql: string): Additive | null {
  const cached = additiveCache.get(sql);
  if (cached !== undefined || additiveCache.has(sql)) return cached ?? null;
  let found: Additive | null = null;
  const m = ADDITIVE_UPSERT.exec(sql);
  if (m) {
    const [, head, table, colList, row, tail, keyList, sets] = m as unknown as string[];
    const cols = (colList as string).split(',').map((c) => c.trim().toLowerCase());
    const keys = (keyList as string).split(',').map((c) => c.trim().toLowerCase());
    const assigned = (sets as string).split(',').map((a) => a.replace(/\s+/g, ' ').trim().toLowerCase());
    const sumCols = cols.filter((c) => !keys.includes(c));
    const t = (table as string).toLowerCase();
    const additive =
      keys.every((k) => cols.includes(k)) &&
      assigned.length === sumCols.length &&
      sumCols.every((c, i) => assigned[i] === `${c} = ${t}.${c} + excluded.${c}`);
    if (additive) {
      found = {
        head: head as string,
        row: row as string,
        tail: tail as string,
        keys: keys.map((k) => cols.indexOf(k)),
        sums: sumCols.map((c) => cols.indexOf(c)),
      };
    }
  }
  // Bounded like the other caches of statement texts.
  if (additiveCache.size < 4_096) additiveCache.set(sql, found);
  return found;
}

/** A part of a combined statement. */
interface Part {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

const GROUP_PARAMS_MAX = 30_000;
const GROUP_PARTS_MAX = 64;
const TARGET = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([A-Za-z_][A-Za-z0-9_]*)/i;
const PLAIN_INSERT = /^(\s*INSERT\s+INTO\s+[A-Za-z_][A-Za-z0-9_]*\s*\([^()]*\)\s*VALUES)\s*(\((?:\s*\?\s*,)*\s*\?\s*\))\s*$/i;
const namePatterns = new Map<string, RegExp>();

function names(sql: string, table: string): boolean {
  let re = namePatterns.get(table);
  if (re === undefined) {
    re = new RegExp(`\\b${table}\\b`, 'i');
    namePatterns.set(table, re);
  }
  return re.test(sql);
}

function queuedOf(sql: string, params: readonly SqlValue[], kind: 'INSERT' | 'UPDATE' | 'DELETE'): Queued {
  const table = TARGET.exec(sql)?.[1]?.toLowerCase();
  if (table === undefined) throw new Error('later() takes a write to a named table');
  const m = kind === 'INSERT' ? PLAIN_INSERT.exec(sql) : null;
  const plain = m?.[1] && m[2] ? { head: m[1], row: m[2] } : null;
  return { sql, params, table, plain, additive: kind === 'INSERT' && plain === null ? additiveOf(sql) : null };
}

/** What a group holds so far: its parts (plain INSERTs of one text are one), parameters, tables written. */
class Group {
  readonly writes: Queued[] = [];
  private readonly texts = new Set<string>();
  private parts = 0;
  private params = 0;
  /** Table → whether only plain INSERTs wrote it in this group. */
  private readonly written = new Map<string, boolean>();
  /** Table → the one additive upsert text that wrote it in this group (and nothing else did). */
  private readonly added = new Map<string, string>();

  /**
   * May `sql` (with `params`) join the group, as a queued write or its closing statement? Only
   * if it names no table the group wrote, except a plain INSERT into a table only plain INSERTs
   * wrote, or an additive upsert of the same text as the only other writes of its table; and
   * within the bounds.
   */
  admits(sql: string, params: number, plain: boolean, table: string | null, additive = false): boolean {
    const newPart = !((plain || additive) && this.texts.has(sql));
    if ((newPart && this.parts >= GROUP_PARTS_MAX) || this.params + params > GROUP_PARAMS_MAX) return false;
    for (const [t, onlyPlain] of this.written) {
      if (!names(sql, t)) continue;
      if (plain && t === table && onlyPlain) continue;
      if (additive && t === table && this.added.get(t) === sql) continue;
      return false;
    }
    return true;
  }

  add(w: Queued): void {
    const mergeable = w.plain !== null || w.additive !== null;
    if (!(mergeable && this.texts.has(w.sql))) this.parts += 1;
    if (mergeable) this.texts.add(w.sql);
    this.params += w.params.length;
    this.written.set(w.table, (this.written.get(w.table) ?? true) && w.plain !== null);
    if (w.additive) this.added.set(w.table, w.sql);
    this.writes.push(w);
  }
}

/** The queue cut into groups, each sent as one statement, in order. */
function groupQueued(queue: readonly Queued[]): Group[] {
  if (queue.length === 0) return [];
  const groups: Group[] = [];
  let group = new Group();
  for (const w of queue) {
    if (group.writes.length > 0 && !group.admits(w.sql, w.params.length, w.plain !== null, w.table, w.additive !== null)) {
      groups.push(group);
      group = new Group();
    }
    group.add(w);
  }
  if (group.writes.length > 0) groups.push(group);
  return groups;
}

/** May this statement close the group (one statement with it)? Only a plain read or write that sees none of its rows. */
function closes(group: Group, sql: string, params: readonly SqlValue[]): boolean {
  return /^\s*(?:SELECT|INSERT|UPDATE|DELETE)\b/i.test(sql) && group.admits(sql, params.length, false, null);
}

/**
 * Is a combined statement named (parsed and planned once per connection)? The first
 * COMBINATIONS_NAMED_MAX texts are: a batch's write-out has a few shapes (a batch of one draft is
 * always the same text, and measured, planning it on every batch cost more than the round trips
 * it saved), while multi-row texts vary with the rows; past the bound they go unnamed, so a
 * connection's prepared plans stay bounded.
 */
const COMBINATIONS_NAMED_MAX = 256;
const combinationsNamed = new Set<string>();

function nameCombination(sql: string): boolean {
  if (combinationsNamed.has(sql)) return true;
  if (combinationsNamed.size >= COMBINATIONS_NAMED_MAX) return false;
  combinationsNamed.add(sql);
  return true;
}

/** Plain INSERTs of one text in a group become one multi-row INSERT (in the first one's place). */
function mergeRows(group: readonly Queued[]): Part[] {
  const out: Part[] = [];
  const byText = new Map<string, { index: number; head: string; row: string; rows: (readonly SqlValue[])[] }>();
  for (const w of group) {
    const seen = w.plain ? byText.get(w.sql) : undefined;
    if (seen) {
      seen.rows.push(w.params);
      continue;
    }
    if (w.plain) byText.set(w.sql, { index: out.length, ...w.plain, rows: [w.params] });
    out.push(w);
  }
  for (const { index, head, row, rows } of byText.values()) {
    if (rows.length > 1) out[index] = { sql: `${head} ${rows.map(() => row).join(', ')}`, params: rows.flat() };
  }
  return mergeAdditive(out, group);
}

/** Additive upserts of one text in a group become one, rows of one key added together (in the first one's place). */
function mergeAdditive(parts: Part[], group: readonly Queued[]): Part[] {
  const byText = new Map<string, { index: number; a: Additive; rows: Map<string, SqlValue[]> }>();
  const out: Part[] = [];
  const additive = new Map(group.filter((w) => w.additive).map((w) => [w.sql, w.additive as Additive]));
  for (const p of parts) {
    const a = additive.get(p.sql);
    if (!a) {
      out.push(p);
      continue;
    }
    let seen = byText.get(p.sql);
    if (!seen) {
      seen = { index: out.length, a, rows: new Map() };
      byText.set(p.sql, seen);
      out.push(p);
    }
    const key = JSON.stringify(a.keys.map((i) => p.params[i]));
    const row = seen.rows.get(key);
    if (!row) {
      seen.rows.set(key, [...p.params]);
      continue;
    }
    for (const i of a.sums) {
      const sum = Number(row[i]) + Number(p.params[i]);
      if (!Number.isSafeInteger(sum)) throw new Error('a sum of queued additive upserts passes the safe integer range');
      row[i] = sum;
    }
  }
  for (const { index, a, rows } of byText.values()) {
    const list = [...rows.values()];
    out[index] = { sql: `${a.head} ${list.map(() => a.row).join(', ')} ${a.tail}`, params: list.flat() };
  }
  return out;
}

/** The answer of a simple query's last statement (node-postgres answers several with a list). */
function lastResult(res: pg.QueryResult | pg.QueryResult[]): pg.QueryResult {
  const last = Array.isArray(res) ? res.at(-1) : res;
  if (last === undefined) throw new Error('unreachable: a simple query of two statements answered nothing');
  return last;
}

class PgQueryable implements Tx {
  constructor(
    private readonly client: pg.Pool | pg.PoolClient,
    private readonly channelPrefix: string,
    private readonly scope: BatchScope | null = null,
  ) {}

  /** Since the last reset: a statement that changes data was sent / a statement failed. */
  changed = false;
  failed = false;

  /** Writes queued by `later`, sent before or with the next statement (drain). */
  private queued: Queued[] = [];

  /**
   * A BEGIN not sent yet: it goes in one round trip with the transaction's first
   * statement when that statement's parameters can be written in as literals (the batch's head
   * lock, by organisation id), else on its own just before it.
   */
  private pendingBegin: string | null = null;

  deferBegin(begin: string): void {
    this.pendingBegin = begin;
  }

  /** The last statement sent on a checked-out client (settled either way). */
  private tail: Promise<unknown> = Promise.resolve();

  /**
   * One statement. On a checked-out client (a transaction or a snapshot, where reads may be issued
   * together with Promise.all) each waits for the one before, in the order they were issued: the
   * order the client would have queued them in, without relying on that queueing (deprecated in pg).
   * The pool runs each on a client of its own.
   */
  private query(config: string | pg.QueryConfig | pg.QueryArrayConfig, values?: unknown[]): Promise<pg.QueryResult> {
    const client = this.client;
    if (client instanceof pg.Pool) return client.query(config, values);
    const sent = this.tail.then(() => client.query(config, values));
    this.tail = sent.catch(() => undefined);
    return sent;
  }

  /** Send a deferred BEGIN on its own, if it is still waiting (before SAVEPOINT, NOTIFY, COMMIT). */
  async begun(): Promise<void> {
    const begin = this.pendingBegin;
    if (begin === null) return;
    this.pendingBegin = null;
    await this.query(begin);
  }

  private async send(sql: string, params: readonly SqlValue[], rowMode?: 'array'): Promise<pg.QueryResult> {
    if (!this.changed && changesData(sql)) this.changed = true;
    const groups = groupQueued(this.queued);
    this.queued = [];
    const last = groups.pop();
    for (const group of groups) await this.sendGroup(group, null);
    // The statement closes the last group of queued writes when it may see none of them (one
    // round trip instead of two); otherwise they go out first.
    if (last && closes(last, sql, params)) return this.sendGroup(last, { sql, params }, rowMode);
    if (last) await this.sendGroup(last, null);
    return this.sendNow(sql, params, rowMode);
  }

  private async sendNow(sql: string, params: readonly SqlValue[], rowMode?: 'array', named = true): Promise<pg.QueryResult> {
    try {
      const begin = this.pendingBegin;
      const text = begin === null || rowMode ? null : inlined(toPg(sql), params);
      if (text !== null) {
        this.pendingBegin = null;
        // Two statements in one simple query: PostgreSQL runs them in order, answers each.
        return lastResult(await this.query(`${begin}; ${text}`));
      }
      await this.begun();
      const config = named ? statement(sql, params) : { text: toPg(sql), values: params as unknown[] };
      return await this.query(rowMode ? { ...config, rowMode } : config);
    } catch (error) {
      this.failed = true;
      throw error;
    }
  }

  /** A group of queued writes as one statement, closed by `closing` when there is one. */
  private sendGroup(group: Group, closing: Part | null, rowMode?: 'array'): Promise<pg.QueryResult> {
    const parts = mergeRows(group.writes);
    if (closing) parts.push(closing);
    const last = parts.pop();
    if (last === undefined) throw new Error('unreachable: an empty group of queued writes');
    if (parts.length === 0) return this.sendNow(last.sql, last.params, rowMode, nameCombination(last.sql));
    const sql = `WITH ${parts.map((w, i) => `w${i + 1} AS (${w.sql})`).join(', ')} ${last.sql}`;
    return this.sendNow(sql, [...parts.flatMap((w) => w.params), ...last.params], rowMode, nameCombination(sql));
  }

  later(sql: string, params: readonly SqlValue[] = []): Promise<void> {
    const kind = checkLater(sql);
    this.changed = true;
    this.queued.push(queuedOf(sql, params, kind));
    return Promise.resolve();
  }

  /** Send every queued write (a unit's end with savepoints, the batch's end). */
  async drain(): Promise<void> {
    const groups = groupQueued(this.queued);
    this.queued = [];
    for (const group of groups) await this.sendGroup(group, null);
  }

  /** Forget the queued writes of a unit that failed (its savepoint is rolled back). */
  discard(): void {
    this.queued = [];
  }

  get batch(): BatchScope {
    if (!this.scope) throw new Error('no batch scope outside a write transaction');
    return this.scope;
  }

  async all<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    const res = await this.send(sql, params);
    return res.rows as T[];
  }

  async values(sql: string, params: readonly SqlValue[] = []): Promise<unknown[][]> {
    const res = await this.send(sql, params, 'array');
    return res.rows as unknown[][];
  }

  async get<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    const rows = await this.all<T>(sql, params);
    return rows[0];
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    const res = await this.send(sql, params);
    return { changes: res.rowCount ?? 0 };
  }

  /** NOTIFY is transactional in PostgreSQL: listeners hear it only after COMMIT. */
  async notify(channel: string, payload: string): Promise<void> {
    await this.drain();
    await this.begun();
    this.changed = true;
    await this.query('SELECT pg_notify($1, $2)', [this.channelPrefix + channel, payload]);
  }
}

export interface PostgresOptions {
  readonly url: string;
  /** Every migration, ids ascending (Database.migrations). */
  readonly migrations: readonly Migration[];
  /** Schema to use (tests give each file its own); it is created when missing. */
  readonly schema?: string;
  readonly poolSize?: number;
  /**
   * A connection's cached plans are dropped (DISCARD PLANS) this long after it opened, then
   * after twice as long each time, up to `replanMaxMs` (defaults REPLAN_FIRST_MS, REPLAN_MAX_MS).
   */
  readonly replanFirstMs?: number;
  readonly replanMaxMs?: number;
  /** The clock of that schedule (tests); Date.now by default. */
  readonly now?: () => number;
}

const MIGRATION_LOCK = 7_250_001;

/**
 * Plans go stale as tables grow. A named statement (statement() above) is
 * planned for each connection, and from its sixth run on PostgreSQL may keep one generic plan for
 * the connection's life, chosen with the table sizes of that moment; only ANALYZE or DDL replaces
 * it. A connection opened on a young database keeps plans for empty tables: measured, the invoice
 * number window (a range of the (org_id, number) index) ran as a scan of every invoice of the
 * organisation through another index, filtered, 10 000 rows and more per batch of drafts, under
 * the organisation's lock, until autovacuum's ANALYZE came round. So each connection drops its
 * cached plans a second after it opened, then 2, 4, … seconds later, and every minute from then
 * on: a plan is never much older than the sizes it was chosen for while a table is young and
 * growing fast, and re-planning costs a few custom plans per statement per minute.
 */
const REPLAN_FIRST_MS = 1_000;
const REPLAN_MAX_MS = 60_000;
/** Upper bound on units of work sharing one transaction. */
const BATCH_JOBS_MAX = 256;
/** Upper bound on other keys a batch tries to take units of (one statement locks them all). */
const JOIN_KEYS_MAX = 64;

/**
 * A checked-out client with an 'error' listener for as long as it is out. pg emits 'error' on a
 * client whose connection is lost (pg_terminate_backend, a database restart); the pool listens
 * only while a client is idle, so without this an unhandled 'error' event kills the process.
 * The query in flight rejects on its own (the request answers INTERNAL; retrying is safe, as
 * nothing committed); `lost` tells `release` to destroy the client instead of pooling it.
 */
interface Checkout {
  readonly client: pg.PoolClient;
  lost: boolean;
  release(): void;
}

/**
 * COMMIT, and make sure it committed: in a transaction a statement error has aborted, PostgreSQL
 * answers COMMIT with ROLLBACK and no error. Nothing may be acknowledged then.
 */
async function commit(client: pg.PoolClient): Promise<void> {
  const res = await client.query('COMMIT');
  if (res.command !== 'COMMIT') throw new Error(`the transaction did not commit (${res.command})`);
}

async function checkout(pool: pg.Pool): Promise<Checkout> {
  const client = await pool.connect();
  const out: Checkout = {
    client,
    lost: false,
    release() {
      client.removeListener('error', onError);
      // A late error after release must not crash either; the pool's idle listener covers a
      // pooled client, and a destroyed one gets this no-op.
      if (out.lost) client.on('error', () => undefined);
      client.release(out.lost);
    },
  };
  const onError = () => {
    out.lost = true;
  };
  client.on('error', onError);
  return out;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface BatchAttempt {
  readonly outcomes: readonly Outcome[];
  readonly broken: { error: unknown } | null;
}

interface Job {
  readonly fn: (tx: Tx) => Promise<unknown>;
  readonly prelude: ((tx: Tx) => Promise<void>) | undefined;
  readonly preludeMany: WriteOptions['preludeMany'];
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * PostgreSQL engine over a pool. Appends are serialised per organisation by a row lock on its
 * head (see ledger/append.ts), so many processes can share one database and the chain stays
 * gapless and unforked. Group commit per organisation (docs/decisions.md): units of work with
 * the same `batchKey` that arrive while one of theirs is running wait for it and then share one
 * transaction, each in its own SAVEPOINT; one COMMIT makes them durable together and only then
 * is any of them answered. A unit that fails rolls back to its savepoint alone.
 */
export class PostgresDatabase implements Database {
  readonly caps: Capabilities = { engine: 'postgres', forUpdate: ' FOR UPDATE', groupCommit: true };
  readonly migrations: readonly Migration[];
  readonly reader: Queryable;
  readonly pool: pg.Pool;
  private readonly schema: string | undefined;
  private readonly url: string;
  private listener: pg.Client | null = null;
  private listenerReady: Promise<pg.Client> | null = null;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  /** Units of work waiting per batch key, and the keys whose batches are running. */
  private readonly queues = new Map<string, Job[]>();
  private readonly flushing = new Set<string>();
  /**
   * Keys whose batch holds a connection: it has sent, or is about to send, its prelude. Another
   * batch would only find their locks taken; it joins the keys still waiting for a connection.
   */
  private readonly connected = new Set<string>();
  /** Told the units of each batch that committed (metrics: fd_group_commit_units). */
  private commitObserver: ((units: number) => void) | null = null;

  constructor(options: PostgresOptions) {
    // Refused before a connection is made: the engine applies the list in its order.
    this.migrations = inIdOrder(options.migrations);
    this.schema = options.schema;
    this.url = options.url;
    if (options.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema)) {
      throw new Error(`invalid schema name ${options.schema}`);
    }
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // An idle client's connection error must not crash the process; the pool drops it.
    this.pool.on('error', () => undefined);
    // Every client the pool opens keeps a listener for life. pg emits 'error' on a client whose
    // connection is lost, and some paths leave a client briefly with none (pool.query listens
    // with `once`, so a second error after the first is unhandled): an EventEmitter with no
    // 'error' listener throws, which kills the process (seen under
    // pg_terminate_backend). Queries in flight still reject and answer INTERNAL.
    this.pool.on('connect', (client) => {
      client.on('error', () => undefined);
    });
    // Cached plans dropped on a schedule (REPLAN_FIRST_MS): when a client is handed out and its
    // time has come, DISCARD PLANS goes first in its queue — before a checkout's BEGIN, outside any
    // transaction — so every path (checkouts and the pooled reader's queries) is covered.
    const first = options.replanFirstMs ?? REPLAN_FIRST_MS;
    const most = options.replanMaxMs ?? REPLAN_MAX_MS;
    const replan = new WeakMap<pg.PoolClient, { at: number; every: number }>();
    const clock = options.now ?? Date.now;
    this.pool.on('acquire', (client) => {
      const now = clock();
      const due = replan.get(client);
      if (!due) {
        replan.set(client, { at: now + first, every: first });
        return;
      }
      if (now < due.at) return;
      due.every = Math.min(due.every * 2, most);
      due.at = now + due.every;
      // A failure here is the connection's: the query queued behind it fails and is answered.
      client.query('DISCARD PLANS').catch(() => undefined);
    });
    this.reader = sharedReader(new PgQueryable(this.pool, `${options.schema ?? 'public'}.`), (fn) => this.read(fn));
  }

  write<T>(fn: (tx: Tx) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    const key = options.batchKey;
    if (key === undefined) return this.writeAlone(fn);
    return new Promise<T>((resolve, reject) => {
      const queue = this.queues.get(key) ?? [];
      queue.push({ fn, prelude: options.prelude, preludeMany: options.preludeMany, resolve: resolve as (value: unknown) => void, reject });
      this.queues.set(key, queue);
      if (this.flushing.has(key)) return;
      this.flushing.add(key);
      // The first unit goes at once; those that arrive while it runs form the next batch.
      void this.flush(key);
    });
  }

  observeCommits(fn: (units: number) => void): void {
    this.commitObserver = fn;
  }

  private async flush(key: string): Promise<void> {
    try {
      for (;;) {
        const queue = this.queues.get(key);
        if (!queue || queue.length === 0) {
          this.queues.delete(key);
          return;
        }
        await this.runBatch(key, queue);
      }
    } finally {
      this.flushing.delete(key);
    }
  }

  /**
   * A batch first runs without savepoints (a savepoint is a round trip per unit, under
   * the organisation's lock). A unit that fails before it changed anything (no INSERT, UPDATE,
   * DELETE or notify was sent, and no statement failed) has nothing to undo, so the others go on.
   * One that fails after a change, or a statement error (it aborts the transaction), rolls the
   * whole attempt back, and the batch runs again with a savepoint per unit: each unit is then
   * undone alone, as before. Handlers act only through the transaction, so running one again
   * after a rollback is running it for the first time.
   */
  private async runBatch(key: string, queue: Job[]): Promise<void> {
    const prelude = queue[0]?.prelude;
    // With a prelude (the organisation's head lock) the batch is taken from the queue only once
    // the prelude holds: units that arrive while it waits for another process join this batch.
    // A batch of one runs without savepoints either way (attemptBatch).
    let batch: Job[] | null = prelude ? null : queue.splice(0, BATCH_JOBS_MAX);
    const take = (): Job[] => (batch ??= queue.splice(0, BATCH_JOBS_MAX));
    // Units of other keys this batch took (their preludes held by preludeMany), run after its own.
    let joined: { key: string; jobs: Job[] }[] = [];
    const join = async (tx: Tx, again: boolean): Promise<Job[]> => {
      const lock = queue[0]?.preludeMany ?? batch?.[0]?.preludeMany;
      if (lock === undefined) return [];
      joined = again ? await this.relock(tx, lock, joined) : await this.joinOthers(tx, key, lock, BATCH_JOBS_MAX - take().length);
      return joined.flatMap((j) => j.jobs);
    };
    // Another batch may have taken this key's units while this one waited for a connection.
    const idle = () => batch === null && queue.length === 0;
    const fast = await this.attemptBatch(key, take, prelude, false, join, idle);
    const done = fast === 'again' ? await this.attemptBatch(key, take, prelude, true, join, idle) : fast;
    if (done === 'again') throw new Error('unreachable: a batch with savepoints is not run again');
    const { outcomes, broken } = done;
    // An idle attempt took nothing: units that came meanwhile are the next batch's.
    const ran = [...(batch ?? []), ...joined.flatMap((j) => j.jobs)];
    if (!broken && ran.length > 0) this.commitObserver?.(ran.length);
    ran.forEach((job, i) => {
      const outcome = outcomes[i];
      if (outcome && !outcome.ok) job.reject(outcome.error);
      else if (broken) job.reject(broken.error);
      else if (outcome) job.resolve(outcome.value);
      else job.reject(new Error('unit of work was not run'));
    });
  }

  /**
   * Take the queued units of other keys whose preludes `lock` can hold at once, at most `room`
   * units: keys no other transaction holds (SKIP LOCKED). A key's own batch that is waiting for a
   * connection or its lock then finds those units gone, and runs the ones that came later.
   */
  private async joinOthers(
    tx: Tx,
    key: string,
    lock: NonNullable<WriteOptions['preludeMany']>,
    room: number,
  ): Promise<{ key: string; jobs: Job[] }[]> {
    // Only while batches wait for a connection: otherwise each has one, holds or is taking its
    // own lock, and a statement trying theirs would find them all taken.
    if (this.pool.waitingCount === 0) return [];
    const candidates: string[] = [];
    for (const [other, jobs] of this.queues) {
      if (candidates.length >= Math.min(room, JOIN_KEYS_MAX)) break;
      if (other !== key && jobs.length > 0 && !this.connected.has(other) && jobs[0]?.preludeMany !== undefined) candidates.push(other);
    }
    if (candidates.length === 0) return [];
    const held = await lock(tx, candidates);
    const joined: { key: string; jobs: Job[] }[] = [];
    for (const other of candidates) {
      const jobs = this.queues.get(other);
      if (!held.has(other) || !jobs || room <= 0) continue;
      const taken = jobs.splice(0, room);
      room -= taken.length;
      if (jobs.length === 0 && !this.flushing.has(other)) this.queues.delete(other);
      if (taken.length > 0) joined.push({ key: other, jobs: taken });
    }
    return joined;
  }

  /**
   * A batch run again (its first attempt rolled back, and with it the other keys' locks): lock
   * them again without waiting. The units of a key now held elsewhere go back to the front of its
   * queue, ahead of any that came later, and its own batch runs them.
   */
  private async relock(
    tx: Tx,
    lock: NonNullable<WriteOptions['preludeMany']>,
    joined: readonly { key: string; jobs: Job[] }[],
  ): Promise<{ key: string; jobs: Job[] }[]> {
    if (joined.length === 0) return [];
    const held = await lock(
      tx,
      joined.map((j) => j.key),
    );
    const kept: { key: string; jobs: Job[] }[] = [];
    for (const j of joined) {
      if (held.has(j.key)) {
        kept.push(j);
        continue;
      }
      // In place: a batch of that key waiting for a connection holds this very queue.
      const queue = this.queues.get(j.key);
      if (queue) queue.unshift(...j.jobs);
      else this.queues.set(j.key, [...j.jobs]);
      if (!this.flushing.has(j.key)) {
        this.flushing.add(j.key);
        void this.flush(j.key);
      }
    }
    return kept;
  }

  private async attemptBatch(
    key: string,
    take: () => readonly Job[],
    prelude: ((tx: Tx) => Promise<void>) | undefined,
    savepoints: boolean,
    join: (tx: Tx, again: boolean) => Promise<Job[]>,
    idle: () => boolean,
  ): Promise<BatchAttempt | 'again'> {
    const outcomes: Outcome[] = [];
    let broken: { error: unknown } | null = null;
    let held: Checkout | null = null;
    try {
      held = await checkout(this.pool);
      // Nothing sent yet (BEGIN goes with the first statement): nothing to roll back.
      if (idle()) return { outcomes: [], broken: null };
      this.connected.add(key);
      const client = held.client;
      // The first attempt may lean on kept answers; one run again may not (uow.optimistic).
      const scope = newBatchScope(savepoints);
      const tx = new PgQueryable(client, `${this.schema ?? 'public'}.`, scope);
      tx.deferBegin('BEGIN');
      // Outside every unit's savepoint: a lock it takes is not lost when a unit rolls back.
      if (prelude) await prelude(tx);
      // Other keys' units come after this key's own; on a run again, the same ones it can lock again.
      const batch = [...take(), ...(prelude ? await join(tx, savepoints) : [])];
      // One unit needs no savepoint: if it fails, the transaction is rolled back with it.
      const single = batch.length === 1;
      const withSavepoints = savepoints && !single;
      if (withSavepoints) {
        await tx.begun();
        await client.query('SAVEPOINT unit');
      }
      for (const [i, job] of batch.entries()) {
        let outcome: Outcome;
        tx.changed = false;
        tx.failed = false;
        try {
          const value = await job.fn(tx);
          // With savepoints a unit's queued writes go out inside its own savepoint.
          if (withSavepoints) await tx.drain();
          outcome = { ok: true, value };
        } catch (error) {
          if (withSavepoints) tx.discard();
          outcome = { ok: false, error };
        }
        if (!withSavepoints) {
          // A statement error aborts the whole transaction, even one the handler caught.
          if (tx.failed || (!outcome.ok && tx.changed)) {
            await client.query('ROLLBACK');
            // A first attempt runs again, exact (a batch of one too: it may have leant on kept answers).
            if (!savepoints) return 'again';
            return {
              outcomes: [outcome.ok ? { ok: false, error: new Error('a statement failed in a unit of work that returned') } : outcome],
              broken: null,
            };
          }
          outcomes.push(outcome);
          continue;
        }
        outcomes.push(outcome);
        const last = i === batch.length - 1;
        // A failed unit is undone alone; if even that fails the connection is gone, and the batch.
        // The last unit's savepoint, when it succeeded, is released by COMMIT itself.
        if (outcome.ok && last) continue;
        const undo = outcome.ok ? 'RELEASE SAVEPOINT unit' : 'ROLLBACK TO SAVEPOINT unit; RELEASE SAVEPOINT unit';
        await client.query(last ? undo : `${undo}; SAVEPOINT unit`);
      }
      // The units' queued writes and the batch's set-based ones (events, idempotency rows, the
      // head): as few statements as the queue allows (one, for a batch of drafts), then COMMIT.
      try {
        await scope.flush(tx);
        await tx.drain();
      } catch (error) {
        // With savepoints the batch breaks. Without, if a write is refused it is not known whose
        // it was: run again (or, run again already, it was the one unit's).
        if (withSavepoints) throw error;
        await client.query('ROLLBACK');
        if (!savepoints) return 'again';
        return { outcomes: [{ ok: false, error }], broken: null };
      }
      await tx.begun();
      await commit(client);
    } catch (error) {
      broken = { error };
      if (held && !held.lost) await held.client.query('ROLLBACK').catch(() => undefined);
    } finally {
      this.connected.delete(key);
      // A client whose transaction broke may be unusable: the pool replaces it.
      if (held) {
        held.lost ||= broken !== null;
        held.release();
      }
    }
    // A prelude that failed took no batch yet: the queue's first units fail with it.
    take();
    return { outcomes, broken };
  }

  private writeAlone<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN', fn);
  }

  /** One REPEATABLE READ READ ONLY transaction: every statement sees the same snapshot. */
  read<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn);
  }

  /** `fn` in one transaction on a checked-out client; a lost connection is never reused. */
  private async transaction<T>(begin: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
    const held = await checkout(this.pool);
    const client = held.client;
    try {
      const scope = newBatchScope(true);
      const tx = new PgQueryable(client, `${this.schema ?? 'public'}.`, scope);
      // Sent with the first statement (a snapshot read: BEGIN …; SELECT in one round trip).
      tx.deferBegin(begin);
      const value = await fn(tx);
      await scope.flush(tx);
      await tx.drain();
      await tx.begun();
      await commit(client);
      return value;
    } catch (error) {
      if (!held.lost) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      held.release();
    }
  }

  async migrate(options: MigrateOptions = {}): Promise<void> {
    const through = options.throughId ?? Number.MAX_SAFE_INTEGER;
    const migrations = this.migrations;
    const complete = migrations.every((m) => m.id <= through);
    const check = options.checkSchema === true && complete;
    // The schema check's reference is built on a connection of its own (postgres-schema.ts); it
    // starts now, while this start may wait for the lock, when the schema already has tables.
    let reference: ReturnType<typeof pgReference> | null = null;
    if (
      check &&
      (await this.pool.query<{ found: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS found")).rows[0]?.found
    ) {
      reference = pgReference(this.url, migrations);
      reference.catch(() => undefined);
    }
    const held = await checkout(this.pool);
    const client = held.client;
    try {
      // Several processes may start at once: one migrates, the others wait and find it done.
      // The lock comes first: even CREATE SCHEMA IF NOT EXISTS races on the catalog.
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      if (this.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await client.query('BEGIN');
      // Under the lock, so no other start is midway: an empty schema is one this start creates.
      const found = check ? (await client.query<{ empty: boolean; schema: string | null }>(EMPTY_SCHEMA_SQL)).rows[0] : undefined;
      const existing = found !== undefined && !found.empty;
      await applyPgMigrations(client, migrations, (id) => id <= through);
      for (const seed of seedStatements()) await client.query(toPg(seed.sql), [...seed.params]);
      // The fully migrated schema, compared in the migration's transaction and under the lock:
      // a refusal rolls everything this start did back.
      if (existing) {
        const problems = await pgSchemaProblems(client, migrations, await (reference ?? pgReference(this.url, migrations)));
        if (problems.length > 0) throw new SchemaRefused(problems, `PostgreSQL schema ${found?.schema ?? this.schema ?? 'public'}`);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      if (!held.lost) await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      held.release();
    }
  }

  /** Channel names are namespaced per schema so that test schemas on one server stay apart. */
  private channelName(channel: string): string {
    return `${this.schema ?? 'public'}.${channel}`;
  }

  private async connectListener(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (msg) => {
      const local = msg.channel.slice((this.schema ?? 'public').length + 1);
      for (const h of this.handlers.get(local) ?? []) h(msg.payload ?? '');
    });
    client.on('error', () => {
      // Reconnect and re-LISTEN; waiters also re-check on their own timer.
      this.listener = null;
      this.listenerReady = null;
      if (!this.closed && this.handlers.size > 0) {
        setTimeout(() => void this.ensureListener().catch(() => undefined), 1000).unref();
      }
    });
    await client.connect();
    for (const channel of this.handlers.keys()) {
      await client.query(`LISTEN "${this.channelName(channel)}"`);
    }
    this.listener = client;
    return client;
  }

  private ensureListener(): Promise<pg.Client> {
    if (!this.listenerReady) this.listenerReady = this.connectListener();
    return this.listenerReady;
  }

  async listen(channel: string, handler: (payload: string) => void): Promise<() => void> {
    if (!/^[a-z_.]{1,40}$/.test(channel)) throw new Error(`invalid channel ${channel}`);
    const fresh = !this.handlers.has(channel);
    const set = this.handlers.get(channel) ?? new Set();
    set.add(handler);
    this.handlers.set(channel, set);
    const hadListener = this.listenerReady !== null;
    const client = await this.ensureListener();
    if (fresh && hadListener) await client.query(`LISTEN "${this.channelName(channel)}"`);
    return () => {
      set.delete(handler);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.listener) await this.listener.end().catch(() => undefined);
    await this.pool.end();
  }
}
