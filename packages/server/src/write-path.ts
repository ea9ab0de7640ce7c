import {
  canonicalJson,
  decimalsAsText,
  sha256Hex,
  type EventKindSpec,
  type FileBinding,
  type JournalBinding,
  type JsonValue,
  type MethodSpec,
} from '@finance-desk/protocol';
import type { z } from 'zod';
import { DomainError, invariant } from './errors.js';
import {
  appendedOf,
  chainEvent,
  moveHead,
  queueEvents,
  type Appended,
  type ChainedEvent,
  type EventBody,
  type Head,
} from './ledger/append.js';
import { clockOf, DEFAULT_TIME_ZONE, localDate } from './clock.js';
import { credentialStands } from './org/credentials.js';
import { changesData, placeholders, queueMany, type Column } from './storage/sql.js';
import type { Capabilities, Database, Queryable, Row, SqlValue, Tx, Writer } from './storage/types.js';

/**
 * The unit of work a handler receives: the transaction, and `emit` to append the call's one
 * ledger event. Handlers never open transactions (docs/architecture.md, One write path).
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
   * The organisation's lock date, read in the unit's transaction: nothing posts
   * on or before it (domain/gl/periods.ts); null when no owner has set one.
   */
  readonly lockDate: string | null;
  /**
   * The organisation's conversion date (books.openingBalances), read in the unit's
   * transaction: the opening balances carry the books up to and including it, so nothing else posts
   * on or before it (domain/gl/periods.ts); null before a conversion is recorded.
   */
  readonly conversionDate: string | null;
  /**
   * Append the call's one event: its declaration (protocol `events.*`, which gives family and
   * kind) and its entity and payload, the payload typed by the declaration's schema.
   */
  emit<E extends EventKindSpec>(event: E, body: EventBody<E>): Promise<Appended>;
  /**
   * Bind a journal the unit posts into its event (domain/gl/post.ts postJournal), before `emit`:
   * the event's payload gets `journals`, each journal's id, date and lines' digest, so the chain
   * commits to the lines and not only to an id. `write` runs when the event is chained, with its
   * ledgerId (the journal records it).
   */
  bindJournal(binding: JournalBinding, write: (ledgerId: string) => Promise<void>): void;
  /**
   * Bind a payment or lodgement file the unit queues or delivers into its event, before `emit`:
   * the payload gets `files`, each the outbox row, file name and SHA-256 of the exact bytes.
   */
  bindFile(binding: FileBinding): void;
  /**
   * The organisation's invoice sequence (prefix and next number) as this transaction
   * has it: read once per batch under the organisation's lock, so no other write of
   * the organisation can move it meanwhile.
   */
  invoiceSequence(): Promise<{ readonly prefix: string; readonly next: number }>;
  /**
   * Move the invoice sequence's next number. Kept by the batch and written once, with its other
   * held-back rows (before COMMIT, or before any statement that names organisations).
   */
  moveInvoiceSequence(next: number): Promise<void>;
  /**
   * A value kept for the batch's later units, for answers that a database constraint
   * checks again when the writes go out (the invoice number's unique index): if the kept answer
   * was stale, the write is refused and the whole batch runs again exactly, where this returns
   * null and the caller reads. `load` runs once per batch; the value is forgotten when a unit
   * fails. Null on SQLite, where a read costs no round trip.
   */
  optimistic<T>(key: string, load: () => Promise<T>): Promise<T | null>;
  /**
   * Undo, if this unit fails, what it kept in the batch outside the database (rows it queued for
   * the batch's write-out): its statements are rolled back, and `fn` takes back the rest. Run in
   * reverse order of registration.
   */
  onUndo(fn: () => void): void;
  /**
   * Several reads in one round trip (on PostgreSQL each is one under the organisation's
   * lock, and with several organisations a batch is a unit or two, so its first reads were half
   * its round trips). On PostgreSQL the reads the batch does not already keep go out as one
   * statement, each read's rows as JSON, and the answers of `batchCached` reads are kept as if
   * read one by one; on SQLite, where a read costs no round trip, they run one after another.
   * Only for reads whose columns are text, integers or booleans (JSON gives those back as the
   * driver does: test/storage.test.ts). Answers in the order asked.
   */
  readTogether(reads: readonly Read[]): Promise<Row[][]>;
}

/** A read for `Uow.readTogether`: SQL with `?` parameters, and the parameters. */
export type Read = readonly [sql: string, params: readonly SqlValue[]];

/** How many reads of one text a unit gathers: a bounded number of statement shapes. */
const READS_OF_ONE_TEXT_MAX = 4;

/**
 * `sql` (parameters: orgId, key) for the first few distinct keys, for Uow.readTogether (issue
 * 14): the reads a check is about to make, gathered; the rest are read alone when it makes them.
 */
export function readsByKey(sql: string, orgId: string, keys: Iterable<string>): Read[] {
  return [...new Set(keys)].slice(0, READS_OF_ONE_TEXT_MAX).map((key) => [sql, [orgId, key]]);
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

/** What a read (POST or GET) of spec `S` answers: its declared result. */
export type DeclaredResult<S extends { readonly result: z.ZodType }> = Frozen<z.input<S['result']>>;

/**
 * What a write handler of `S` returns: its declared result, so a handler of the wrong shape does
 * not compile; `noop` (a write that found its row already in the target state) may ride along
 * whether or not the result declares it.
 */
export type ResultOf<S extends MethodSpec> = DeclaredResult<S> & WriteResult;

export interface WriteCall {
  readonly orgId: string;
  readonly actor: string;
  /** Idempotency scope: the key is per (organisation, credential). */
  readonly credentialId: string;
  readonly method: string;
  readonly params: unknown;
  readonly idempotencyKey: string | null;
  /**
   * Set when the API took the principal from its cache (org/principal-cache.ts) instead of
   * reading the credential for this request: the unit checks it under the organisation's lock
   * before anything else (checkRemembered).
   */
  readonly remembered?: RememberedCredential | undefined;
}

/** A principal the API remembered: the credential epoch it was known valid at (migration 35). */
export interface RememberedCredential {
  readonly epoch: number;
  /** Told when the unit found the credential standing at a later epoch. */
  confirmed(epoch: number): void;
}

export type WriteOutcome = { readonly replay: false; readonly result: WriteResult } | { readonly replay: true; readonly result: unknown };

interface IdemRow {
  method: string;
  request_hash: string;
  result: string;
}

/** Requests whose idempotency key is being executed in this process (a repeat while in flight is CONFLICT). */
const inFlight = new Set<string>();

function requestHash(method: string, params: unknown): string {
  return sha256Hex(canonicalJson({ method, params: decimalsAsText(params) as JsonValue }));
}

interface IdemPending {
  readonly credentialId: string;
  readonly key: string;
  readonly method: string;
  readonly hash: string;
  readonly result: string;
  readonly at: string;
}

interface OrgSettings {
  readonly time_zone: string | null;
  readonly lock_date: string | null;
  readonly conversion_date: string | null;
  readonly invoice_prefix: string;
  readonly invoice_next: number | string;
}

const SETTINGS_COLUMNS = ['time_zone', 'lock_date', 'conversion_date', 'invoice_prefix', 'invoice_next'] as const;
const SETTINGS_SQL = `SELECT ${SETTINGS_COLUMNS.join(', ')} FROM organisations WHERE id = ?`;

async function settingsOf(tx: Tx, b: OrgBatch): Promise<OrgSettings> {
  if (b.settings === null) {
    const read = await tx.get<OrgSettings>(SETTINGS_SQL, [b.orgId]);
    invariant(read !== undefined, `organisation ${b.orgId} exists`);
    // The sequence as the batch moved it, when that is not written yet.
    b.settings = b.seqMoved === null ? read : { ...read, invoice_next: b.seqMoved };
  }
  return b.settings;
}

/**
 * One organisation's share of a batch: the units of work of one organisation that
 * commit together lock its head once, chain their events onto it in code, and write the events
 * and idempotency rows set-based with one head update just before COMMIT (storage BatchScope).
 * `stored` is the head as locked (the row the final UPDATE moves from); `head` runs ahead of it
 * by the events chained so far. `written`/`idemWritten` count rows already flushed mid-batch (a
 * unit about to read the events or idempotency tables sees every earlier unit's rows).
 */
interface OrgBatch {
  readonly orgId: string;
  readonly stored: Head;
  head: Head;
  readonly events: ChainedEvent[];
  written: number;
  readonly idem: IdemPending[];
  idemWritten: number;
  /** The organisation's settings, read once per batch; null after a unit wrote organisations. */
  settings: OrgSettings | null;
  /** The unit whose savepoint took the head lock: if it fails, the lock goes with it. */
  lockedBy: object;
  /** Answers of `batchCached` reads, by cacheKey (forgotten when their tables change). */
  readonly cache: Map<string, unknown[]>;
  /** The invoice sequence's next number as moved by the batch and not yet written; null if none. */
  seqMoved: number | null;
  /** Values of `uow.optimistic`, by key (forgotten when a unit fails). */
  readonly kept: Map<string, unknown>;
  /** The organisation's credential epoch, read with the head lock (migration 35). */
  readonly authEpoch: number;
  /** A unit of this batch changed a credential or an agent: remembered principals are read again. */
  authDirty: boolean;
}

interface Mark {
  readonly head: Head;
  readonly events: number;
  readonly written: number;
  readonly idem: number;
  readonly idemWritten: number;
  readonly seqMoved: number | null;
}

const mark = (b: OrgBatch): Mark => ({
  head: { ...b.head },
  events: b.events.length,
  written: b.written,
  idem: b.idem.length,
  idemWritten: b.idemWritten,
  seqMoved: b.seqMoved,
});

/**
 * A unit failed and rolled back to its savepoint: drop what it chained or queued, and what it
 * flushed (the savepoint undid those rows, whoever's they were). If its savepoint took the head's
 * row lock, PostgreSQL released that lock with it, so the next unit must lock again.
 */
function restore(tx: Tx, b: OrgBatch, m: Mark, unit: object): void {
  if (b.lockedBy === unit) {
    tx.batch.memo.delete(memoKey(b.orgId));
    return;
  }
  b.head = m.head;
  b.events.length = m.events;
  b.written = m.written;
  b.idem.length = m.idem;
  b.idemWritten = m.idemWritten;
  b.seqMoved = m.seqMoved;
  b.settings = null;
  b.cache.clear();
  b.kept.clear();
}

const memoKey = (orgId: string) => `org-batch:${orgId}`;

/**
 * Write what the batch has queued for the organisation and not yet written: queued writes of the
 * transaction (Tx.later), so on PostgreSQL they go out with its next statement (at the end of the
 * batch, with the head update: one round trip).
 */
async function flushRows(q: Writer, caps: Capabilities, b: OrgBatch): Promise<void> {
  if (b.written < b.events.length) {
    await queueEvents(q, caps, b.orgId, b.events.slice(b.written));
    b.written = b.events.length;
  }
  if (b.idemWritten < b.idem.length) {
    await queueIdempotency(q, caps, b.orgId, b.idem.slice(b.idemWritten));
    b.idemWritten = b.idem.length;
  }
  if (b.seqMoved !== null) {
    await q.later('UPDATE organisations SET invoice_next = ? WHERE id = ?', [b.seqMoved, b.orgId]);
    b.seqMoved = null;
  }
}

async function queueIdempotency(q: Writer, caps: Capabilities, orgId: string, rows: readonly IdemPending[]): Promise<void> {
  await queueMany(
    q,
    caps,
    'idempotency',
    IDEMPOTENCY_COLUMNS,
    rows.map((r) => [orgId, r.credentialId, r.key, r.method, r.hash, r.result, r.at]),
  );
}

export const IDEMPOTENCY_COLUMNS: readonly Column[] = [
  ['org_id', 'text'],
  ['credential_id', 'text'],
  ['idem_key', 'text'],
  ['method', 'text'],
  ['request_hash', 'text'],
  ['result', 'text'],
  ['created_at', 'text'],
];

/**
 * The organisation's share of this transaction's batch: the first unit locks the head (FOR
 * UPDATE on PostgreSQL, so every process's writes of the organisation still serialise on it)
 * and registers the batch's one write-out before COMMIT.
 */
async function orgBatch(tx: Tx, caps: Capabilities, orgId: string, unit: object): Promise<OrgBatch> {
  const known = tx.batch.memo.get(memoKey(orgId)) as OrgBatch | undefined;
  if (known) return known;
  // The head locked and read, with the settings (one round trip). On PostgreSQL the row
  // lock serialises every write of the organisation across all server processes (only the head
  // row: FOR UPDATE OF h); on SQLite the single writer already does. Either way the next seq is
  // head + 1 and can never fork.
  const row = await tx.get<HeadRow>(headSql(caps, 1, ''), [orgId]);
  invariant(row, `organisation ${orgId} has a head row`);
  return registerBatch(tx, caps, row, unit);
}

type HeadRow = OrgSettings & { org_id: string; seq: number | string; row_hash: string; auth_epoch: number | string };

/** The heads of `n` organisations with their settings, locked with `lock` added to FOR UPDATE (PostgreSQL). */
function headSql(caps: Capabilities, n: number, lock: '' | ' SKIP LOCKED'): string {
  return `SELECT h.org_id, h.seq, h.row_hash, h.auth_epoch, ${SETTINGS_COLUMNS.map((c) => `o.${c}`).join(', ')}
       FROM org_heads h JOIN organisations o ON o.id = h.org_id WHERE h.org_id ${n === 1 ? '= ?' : `IN (${placeholders(n)})`}${caps.forUpdate ? `${caps.forUpdate} OF h${lock}` : ''}`;
}

/**
 * The batch's other organisations (Database.write's preludeMany): the heads of those of `orgIds`
 * that no other transaction holds, locked without waiting (SKIP LOCKED), each registered as a
 * share of this batch as its first unit would have. A transaction that already holds one
 * organisation's head never waits for another's, so two batches can never wait on each other.
 */
async function lockMore(tx: Tx, caps: Capabilities, orgIds: readonly string[]): Promise<ReadonlySet<string>> {
  const held = new Set<string>();
  const wanted = orgIds.filter((id) => !tx.batch.memo.has(memoKey(id)));
  if (wanted.length === 0) return held;
  for (const row of await tx.all<HeadRow>(headSql(caps, wanted.length, ' SKIP LOCKED'), wanted)) {
    registerBatch(tx, caps, row, PRELUDE);
    held.add(row.org_id);
  }
  return held;
}

/**
 * The organisation's share of this transaction's batch, from its locked head row: it registers
 * the batch's one write-out for the organisation before COMMIT.
 */
function registerBatch(tx: Tx, caps: Capabilities, row: HeadRow, unit: object): OrgBatch {
  const { org_id: orgId, seq, row_hash: rowHash, auth_epoch: authEpoch, ...settings } = row;
  const key = memoKey(orgId);
  const head: Head = { seq: Number(seq), rowHash };
  const b: OrgBatch = {
    orgId,
    stored: { ...head },
    head,
    events: [],
    written: 0,
    idem: [],
    idemWritten: 0,
    settings,
    lockedBy: unit,
    cache: new Map(),
    seqMoved: null,
    kept: new Map(),
    authEpoch: Number(authEpoch),
    authDirty: false,
  };
  tx.batch.memo.set(key, b);
  tx.batch.beforeCommit(async (q) => {
    // A batch whose locking unit failed dropped this share; a later unit made its own.
    if (tx.batch.memo.get(key) !== b) return;
    await flushRows(q, caps, b);
    // Migration 35: a batch that changed a credential or an agent moves the credential epoch
    // with its commit, so every process's remembered principals of the organisation are checked
    // again (checkRemembered).
    if (b.authDirty) await q.later('UPDATE org_heads SET auth_epoch = auth_epoch + 1 WHERE org_id = ?', [orgId]);
    if (b.head.seq !== b.stored.seq) await moveHead(q, orgId, b.stored, b.head);
  });
  return b;
}

/**
 * SQL that reads or writes what the batch holds back (so earlier units' rows go out first):
 * events, idempotency rows, the invoice sequence.
 */
const HELD_BACK = /\b(?:events|idempotency|organisations)\b/i;
/**
 * SQL that may change the settings the batch keeps (so its copy is read again): any insert or
 * delete of an organisation, an update naming one of those columns. (invoiceDraft moves
 * invoice_next through uow.moveInvoiceSequence, which keeps the copy current instead.)
 */
const WRITES_ORG =
  /^\s*(?:INSERT\s+INTO\s+organisations|DELETE\s+FROM\s+organisations|UPDATE\s+organisations\b[\s\S]*\b(?:time_zone|lock_date|conversion_date|invoice_prefix|invoice_next)\b)/i;
interface CachedRead {
  /** Every table the read reads. */
  readonly tables: readonly string[];
  /** Writes (SQL texts) that cannot change its answer, whatever their parameters. */
  readonly unchangedBy: ReadonlySet<string>;
}

/**
 * Reads whose answer a batch may keep (each is a round trip under the organisation's
 * lock): SQL text → the tables it reads. A statement of the batch that changes one of those
 * tables forgets the kept answers of the reads that read it (those of other tables stay); a unit
 * that fails forgets them all. Register with `batchCached` at module load, for plain SELECTs of
 * rows that only units of work change. `unchangedBy` names writes that provably leave the read's
 * answer alone (say, an insert of rows its WHERE can never select); each needs its reason beside it.
 */
const cachedReads = new Map<string, CachedRead>();

export function batchCached(sql: string, tables: readonly string[], unchangedBy: readonly string[] = []): string {
  cachedReads.set(sql, { tables, unchangedBy: new Set(unchangedBy) });
  sqlKinds.clear();
  writtenTables.clear();
  return sql;
}

/** Per write's SQL text: the tables of kept reads it may change (named anywhere in it: over-forgetting is safe). */
const writtenTables = new Map<string, ReadonlySet<string>>();

function tablesWrittenBy(sql: string): ReadonlySet<string> {
  let t = writtenTables.get(sql);
  if (t === undefined) {
    const all = new Set([...cachedReads.values()].flatMap((r) => r.tables));
    t = new Set([...all].filter((table) => new RegExp(`\\b${table}\\b`, 'i').test(sql)));
    if (writtenTables.size < 4096) writtenTables.set(sql, t);
  }
  return t;
}

/** Forget the kept answers a write may have changed. */
function forgetChangedBy(cache: Map<string, unknown[]>, sql: string): void {
  const written = tablesWrittenBy(sql);
  for (const key of cache.keys()) {
    const read = cachedReads.get(sqlOfKey(key));
    if (!read || (read.tables.some((table) => written.has(table)) && !read.unchangedBy.has(sql))) cache.delete(key);
  }
}

const sqlKinds = new Map<string, number>();
/** Tables whose rows decide whether a credential stands (org/credentials.ts credentialStands). */
const CREDENTIAL_TABLES = /\b(?:credentials|agents)\b/i;

function kindOf(sql: string): number {
  let k = sqlKinds.get(sql);
  if (k === undefined) {
    k =
      (HELD_BACK.test(sql) ? 1 : 0) |
      (WRITES_ORG.test(sql) ? 2 : 0) |
      (changesData(sql) && tablesWrittenBy(sql).size > 0 ? 4 : 0) |
      (cachedReads.has(sql) ? 8 : 0) |
      (changesData(sql) && CREDENTIAL_TABLES.test(sql) ? 16 : 0);
    // The SQL texts are the source's own (bounded); the cap is a backstop.
    if (sqlKinds.size < 4096) sqlKinds.set(sql, k);
  }
  return k;
}

/**
 * A kept read's key: its SQL text and its parameters. Built by hand rather than with
 * JSON.stringify (several per unit, on the write path): each text parameter is prefixed by its
 * length, so no two parameter lists share a key.
 */
function cacheKey(sql: string, params: readonly SqlValue[]): string {
  let key = `${sql}\u0000`;
  for (const p of params) {
    if (typeof p === 'string') key += `s${p.length}:${p}`;
    else if (typeof p === 'number') key += `n${p};`;
    else if (p === null) key += 'z;';
    else key += `b${p};`;
  }
  return key;
}
/** The read's SQL text of a cacheKey (SQL text holds no NUL). */
const sqlOfKey = (key: string) => key.slice(0, key.indexOf('\u0000'));

/** Frozen: one kept answer serves several units, so none may change it. */
const frozen = <T>(rows: readonly T[]): T[] => Object.freeze(rows.map((r) => Object.freeze(r))) as T[];

/**
 * The handler's view of the transaction: the batch's held-back rows are in it when it looks; and
 * `together`, Uow.readTogether.
 */
function unitTx(tx: Tx, caps: Capabilities, b: OrgBatch): { tx: Tx; together: (reads: readonly Read[]) => Promise<Row[][]> } {
  const before = async (sql: string) => {
    const k = kindOf(sql);
    if (k & 1) await flushRows(tx, caps, b);
    if (k & 2) b.settings = null;
    if (k & 4) forgetChangedBy(b.cache, sql);
    if (k & 16) b.authDirty = true;
    return k;
  };
  const all = async <T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> => {
    if (!((await before(sql)) & 8)) return tx.all<T>(sql, params);
    const key = cacheKey(sql, params);
    const kept = b.cache.get(key);
    if (kept) return kept as T[];
    const rows = frozen(await tx.all<T>(sql, params));
    b.cache.set(key, rows);
    return rows;
  };
  const together = async (reads: readonly Read[]): Promise<Row[][]> => {
    const answers: (Row[] | undefined)[] = reads.map(([sql, params]) =>
      kindOf(sql) & 8 ? (b.cache.get(cacheKey(sql, params)) as Row[] | undefined) : undefined,
    );
    const asked = answers.flatMap((a, i) => (a === undefined ? [i] : []));
    if (caps.engine !== 'postgres' || asked.length < 2) {
      for (const i of asked) {
        const [sql, params] = reads[i] as Read;
        answers[i] = await all<Row>(sql, params);
      }
      return answers as Row[][];
    }
    for (const i of asked) {
      const [sql] = reads[i] as Read;
      invariant(/^\s*SELECT\b/i.test(sql) && !changesData(sql), 'readTogether takes plain SELECTs');
      await before(sql);
    }
    // Each read a subquery of its own: its rows as one JSON array, tagged with its place.
    const sql = asked
      .map((i, n) => `SELECT ${n} AS i, (SELECT COALESCE(json_agg(t), '[]'::json) FROM (${(reads[i] as Read)[0]}) t) AS r`)
      .join(' UNION ALL ');
    const rows = await tx.all<{ i: number; r: Row[] }>(
      sql,
      asked.flatMap((i) => (reads[i] as Read)[1]),
    );
    for (const { i: n, r } of rows) {
      const i = asked[n];
      invariant(i !== undefined, 'readTogether: an answer for each read');
      const [readSql, params] = reads[i] as Read;
      // As the int8 parser (storage/postgres.ts): a number JSON gives back is a safe integer, or a
      // broken invariant, never something rounded.
      for (const row of r)
        for (const v of Object.values(row))
          invariant(typeof v !== 'number' || Number.isSafeInteger(v), `readTogether: ${String(v)} is not a safe integer`);
      if (kindOf(readSql) & 8) {
        answers[i] = frozen(r);
        b.cache.set(cacheKey(readSql, params), answers[i]);
      } else answers[i] = r;
    }
    invariant(
      answers.every((a) => a !== undefined),
      'readTogether: every read answered',
    );
    return answers;
  };
  return {
    together,
    tx: {
      batch: tx.batch,
      notify: (channel, payload) => tx.notify(channel, payload),
      all,
      async get<T = Row>(sql: string, params: readonly SqlValue[] = []) {
        // Uncached, a get stays a get: it reads one row, however many the statement would yield.
        if (!(kindOf(sql) & 8)) {
          await before(sql);
          return tx.get<T>(sql, params);
        }
        return (await all<T>(sql, params))[0];
      },
      async run(sql: string, params?: readonly SqlValue[]) {
        await before(sql);
        return tx.run(sql, params);
      },
      async later(sql: string, params?: readonly SqlValue[]) {
        await before(sql);
        return tx.later(sql, params);
      },
    },
  };
}

/**
 * Run a unit of work for an organisation with exactly one ledger event (or none for a state
 * no-op). Takes the organisation's share of the batch (its head locked once per transaction),
 * runs `fn`, checks the one-event invariant; the event is chained in code and written with the
 * batch, so it commits with the change or not at all. `before` may answer early (an idempotent
 * replay) with no event.
 */
async function unitOfWork<R extends WriteResult, E>(
  db: Database,
  orgId: string,
  actor: string,
  fn: (uow: Uow, batch: OrgBatch) => Promise<R>,
  before: (tx: Tx, batch: OrgBatch) => Promise<E | undefined>,
  remembered?: { readonly credentialId: string; readonly check: RememberedCredential },
): Promise<{ early: E } | { result: R }> {
  return db.write(
    async (tx) => {
      const unit = {};
      const b = await orgBatch(tx, db.caps, orgId, unit);
      const m = mark(b);
      // What the unit binds into its event (Uow.bindJournal, bindFile): known before it is chained.
      const journals: JournalBinding[] = [];
      const undo: (() => void)[] = [];
      try {
        // First of all, before a replay or the handler can answer anything.
        if (remembered) await checkRemembered(tx, b, remembered.credentialId, remembered.check);
        const early = await before(tx, b);
        if (early !== undefined) return { early };
        let emitted = 0;
        const journalWrites: ((ledgerId: string) => Promise<void>)[] = [];
        const files: FileBinding[] = [];
        const now = clockOf(db)();
        const org = await settingsOf(tx, b);
        const view = unitTx(tx, db.caps, b);
        const uow: Uow = {
          tx: view.tx,
          caps: db.caps,
          orgId,
          actor,
          now,
          today: localDate(now, org.time_zone ?? DEFAULT_TIME_ZONE),
          lockDate: org.lock_date ?? null,
          conversionDate: org.conversion_date ?? null,
          emit: async (event, body) => {
            emitted += 1;
            invariant(emitted === 1, 'a call appends exactly one event');
            const chained = chainEvent(b.head, actor, event, boundBody(body, journals, files));
            b.events.push(chained);
            const appended = appendedOf(chained);
            for (const write of journalWrites) await write(appended.ledgerId);
            return appended;
          },
          bindJournal: (binding, write) => {
            invariant(emitted === 0, `journal ${binding.id} is posted before its event, which binds its lines`);
            journals.push(binding);
            journalWrites.push(write);
          },
          bindFile: (binding) => {
            invariant(emitted === 0, `file ${binding.fileName} is bound before its event`);
            files.push(binding);
          },
          invoiceSequence: async () => {
            const settings = await settingsOf(tx, b);
            return { prefix: settings.invoice_prefix, next: Number(settings.invoice_next) };
          },
          moveInvoiceSequence: async (next) => {
            const settings = await settingsOf(tx, b);
            // Held back with the batch's events: written once (flushRows), kept current here.
            b.seqMoved = next;
            b.settings = { ...settings, invoice_next: next };
          },
          optimistic: async <T>(key: string, load: () => Promise<T>): Promise<T | null> => {
            if (tx.batch.exact) return null;
            if (!b.kept.has(key)) b.kept.set(key, await load());
            return b.kept.get(key) as T;
          },
          readTogether: view.together,
          onUndo: (fn) => void undo.push(fn),
        };
        const result = await fn(uow, b);
        invariant(
          result.noop === true ? emitted === 0 : emitted === 1,
          'a side-effecting call appends exactly one event; a state no-op appends none',
        );
        invariant(emitted === 1 || (journals.length === 0 && files.length === 0), 'a journal or file is bound only by an event');
        return { result };
      } catch (error) {
        restore(tx, b, m, unit);
        // What the unit kept in the batch outside the database goes with its rows.
        for (const fn of undo.reverse()) fn();
        throw error;
      }
    },
    {
      batchKey: orgId,
      prelude: async (tx) => void (await orgBatch(tx, db.caps, orgId, PRELUDE)),
      preludeMany: (tx, orgIds) => lockMore(tx, db.caps, orgIds),
    },
  );
}

/**
 * The event's body with what the unit bound (journals, files) added to its payload; unchanged,
 * with no copy, when nothing was bound. The catalogue declares the two fields on the kinds that
 * carry them (protocol events.ts); an emit site never writes them itself.
 */
function boundBody<E extends EventKindSpec>(
  body: EventBody<E>,
  journals: readonly JournalBinding[],
  files: readonly FileBinding[],
): EventBody<E> {
  if (journals.length === 0 && files.length === 0) return body;
  const payload = (body.payload ?? {}) as Record<string, unknown>;
  invariant(
    typeof payload === 'object' && !('journals' in payload) && !('files' in payload),
    'an emit site does not write journals or files itself',
  );
  return {
    entityId: body.entityId,
    payload: {
      ...payload,
      ...(journals.length > 0 ? { journals } : {}),
      ...(files.length > 0 ? { files } : {}),
    } as EventBody<E>['payload'],
  };
}

/**
 * A principal the API remembered (org/principal-cache.ts), checked under the organisation's head
 * lock: if the credential epoch is the one it was known valid at, and no unit of this batch has
 * changed a credential or an agent, nothing about it has changed since — every such change moves
 * the epoch in its own transaction, and the head lock orders this write after any that
 * committed. Otherwise the credential is read again in this transaction: revoked (by any
 * process), the write is UNAUTHORIZED, as it would have been with the key read for this request.
 */
async function checkRemembered(tx: Tx, b: OrgBatch, credentialId: string, check: RememberedCredential): Promise<void> {
  if (!b.authDirty && b.authEpoch === check.epoch) return;
  if (!(await credentialStands(tx, credentialId))) throw new DomainError('UNAUTHORIZED', 'invalid or revoked API key');
  if (!b.authDirty) check.confirmed(b.authEpoch);
}

/** The prelude's stand-in for a unit: never a unit that fails, so its lock is never given back. */
const PRELUDE = {};

const nothingBefore = (): Promise<undefined> => Promise.resolve(undefined);

const rememberedOf = (call: WriteCall) => (call.remembered ? { credentialId: call.credentialId, check: call.remembered } : undefined);

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

/**
 * A stored result for this key: undefined if none; CONFLICT if the key was used for other params.
 * Within a batch, a row an earlier unit queued counts as stored.
 */
async function seenResult(q: Queryable, call: WriteCall, key: string, hash: string, batch?: OrgBatch): Promise<unknown> {
  const queued = batch?.idem.find((r) => r.credentialId === call.credentialId && r.key === key);
  const seen: IdemRow | undefined = queued
    ? { method: queued.method, request_hash: queued.hash, result: queued.result }
    : await q.get<IdemRow>('SELECT method, request_hash, result FROM idempotency WHERE org_id = ? AND credential_id = ? AND idem_key = ?', [
        call.orgId,
        call.credentialId,
        key,
      ]);
  if (!seen) return undefined;
  if (seen.request_hash !== hash) {
    throw new DomainError('CONFLICT', `idempotency key was already used for a different request (${seen.method})`);
  }
  return JSON.parse(seen.result) as unknown;
}

/**
 * The one write path for method calls (docs/architecture.md, One write path): idempotency check,
 * the domain decision, its one event, the stored result — in one transaction.
 *
 * `prepare` (binding.ts bindPrepared) runs first, outside the transaction and
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
  // A remembered principal is only ever checked inside the unit (http/app.ts never lets one reach
  // a method with a `prepare` step, which runs and may answer before it).
  invariant(!(call.remembered && prepare), 'a remembered principal does not call a method with a prepare step');
  if (key === null) {
    const prepared = prepare ? await prepare() : undefined;
    const out = await unitOfWork(db, call.orgId, call.actor, (uow) => handler(uow, prepared), nothingBefore, rememberedOf(call));
    if ('early' in out) throw new Error('unreachable: no early answer without a before step');
    return { replay: false, result: out.result };
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
      async (uow, batch) => {
        const result = await handler(uow, prepared);
        // Written with the batch's events, before COMMIT (insertIdempotency).
        batch.idem.push({
          credentialId: call.credentialId,
          key,
          method: call.method,
          hash,
          result: JSON.stringify(result),
          at: uow.now,
        });
        return result;
      },
      async (tx, batch) => seenResult(tx, call, key, hash, batch),
      rememberedOf(call),
    );
    if ('early' in outcome) return { replay: true, result: outcome.early };
    return { replay: false, result: outcome.result };
  } finally {
    inFlight.delete(slot);
  }
}

/** Drop idempotency records past retention (the contract keeps them at least 24 h; we keep 48 h). */
export async function purgeIdempotency(db: Database, olderThanMs: number): Promise<number> {
  const cutoff = new Date(Date.now() - olderThanMs).toISOString();
  return db.write(async (tx) => (await tx.run('DELETE FROM idempotency WHERE created_at < ?', [cutoff])).changes);
}
