import type { Capabilities, Queryable, SqlValue, Writer } from './types.js';

/** `?, ?, ?` for an `IN (…)` list of n values, in the portable placeholder form (storage/types.ts). */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * Values per `IN (…)` list of a read over many ids: a statement's parameters are bounded (SQLite's
 * cap is 32 766), and one list of every id a request names would be as long as the request.
 */
export const IN_LIST_MAX = 500;

/** `read` over `ids` in parts of at most `per` (IN_LIST_MAX), the rows of every part in order. */
export async function readInParts<R>(
  ids: readonly string[],
  read: (part: readonly string[]) => Promise<R[]>,
  per = IN_LIST_MAX,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < ids.length; i += per) out.push(...(await read(ids.slice(i, i + per))));
  return out;
}

/**
 * An array parameter as PostgreSQL's array literal text ({"a","b\"c"}): every element quoted and
 * escaped, so any text survives; node-postgres would do the same for a JS array, but the storage
 * seam takes only scalar values.
 */
export function pgArray(values: readonly (string | number)[]): string {
  return `{${values.map((v) => (typeof v === 'number' ? String(v) : `"${v.replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
}

function valueAt(row: readonly (string | number)[], i: number): string | number {
  const v = row[i];
  if (v === undefined) throw new Error(`insertMany: a row has ${row.length} values, not one per column`);
  return v;
}

/** A column of `insertMany`: its name and its PostgreSQL type. */
export type Column = readonly [name: string, type: 'text' | 'bigint'];

/**
 * Insert many rows in one go: on PostgreSQL one `INSERT … SELECT * FROM unnest(…)`
 * over an array per column (one round trip and one plan, however many rows); on SQLite the
 * cached single-row statement per row, in process. Returns how many rows were written.
 */
export async function insertMany(
  q: Queryable,
  caps: Capabilities,
  table: string,
  columns: readonly Column[],
  rows: readonly (readonly (string | number)[])[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const names = columns.map(([name]) => name).join(', ');
  if (caps.engine === 'postgres') {
    const { sql, params } = unnestInsert(table, columns, rows);
    return (await q.run(sql, params)).changes;
  }
  const sql = `INSERT INTO ${table} (${names}) VALUES (${placeholders(columns.length)})`;
  for (const r of rows) await q.run(sql, r);
  return rows.length;
}

/**
 * `insertMany` as a queued write (`Tx.later`): on PostgreSQL the one INSERT goes out
 * with the transaction's next statement (the batch's events and idempotency rows with its head
 * update); on SQLite the rows are written at once. A failure surfaces there.
 */
export async function queueMany(
  w: Writer,
  caps: Capabilities,
  table: string,
  columns: readonly Column[],
  rows: readonly (readonly (string | number)[])[],
): Promise<void> {
  if (rows.length === 0) return;
  if (caps.engine !== 'postgres') {
    await insertMany(w, caps, table, columns, rows);
    return;
  }
  const { sql, params } = unnestInsert(table, columns, rows);
  await w.later(sql, params);
}

/** PostgreSQL: the rows as one `INSERT … SELECT * FROM unnest(…)` over an array per column. */
function unnestInsert(table: string, columns: readonly Column[], rows: readonly (readonly (string | number)[])[]) {
  return {
    sql: `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')}) SELECT * FROM unnest(${columns.map(([, type]) => `?::${type}[]`).join(', ')})`,
    params: columns.map((_, i) => pgArray(rows.map((r) => valueAt(r, i)))),
  };
}

const CHANGES = /^\s*(?:INSERT|UPDATE|DELETE|WITH|MERGE|CREATE|DROP|ALTER|TRUNCATE|COPY|LOCK)\b/i;
const changesByText = new Map<string, boolean>();

/**
 * Does this statement change data (or take a lock a rollback must end)? Read-only SELECTs do not.
 * The SQL texts are the source's own; the cache stops growing at 4 096 all the same.
 */
export function changesData(sql: string): boolean {
  let c = changesByText.get(sql);
  if (c === undefined) {
    c = CHANGES.test(sql) || /\bpg_notify\b|\bnextval\b|\bsetval\b/i.test(sql);
    if (changesByText.size < 4096) changesByText.set(sql, c);
  }
  return c;
}

/**
 * A nearest-by-date read run for many lookups at once: per lookup, the rows of `table` whose
 * `keys` equal the lookup's and whose `day` is on or after the lookup's day (ascending) and those
 * before it (descending), each half ordered and limited by an index that leads with the constant
 * conditions and the keys and then orders by `day` and `order` — what one lookup's two
 * `ORDER BY … LIMIT` statements read, for a whole request in one statement of a fixed text.
 */
export interface NearestRead {
  readonly table: string;
  /** Conditions every row must meet, with `?` for `params.where`, before the lookup's keys. */
  readonly where: string;
  /** Columns equal to the lookup's keys, in order, with their PostgreSQL type. */
  readonly keys: readonly Column[];
  readonly day: string;
  /** The index's columns after `day`: ties on a day are cut as the index orders them. */
  readonly order: readonly string[];
  /**
   * What a row is read as: a text expression of its columns that starts with its day and a space
   * (a day has none), so the rest is whatever follows the first space.
   */
  readonly row: string;
  /** More conditions for the half on or after the lookup's day, and for the half before it (a window). */
  readonly after?: string;
  readonly before?: string;
}

/** Lookups per statement: one parameter on SQLite, an array per key on PostgreSQL; fixed, so the text is. */
export const NEAREST_LOOKUPS_MAX = 1000;

/**
 * One row per lookup, each half's rows aggregated into one JSON array of `row` texts by a
 * correlated scalar subquery: its inner ORDER BY … LIMIT is an index scan that stops at the bound,
 * run once per lookup (the lookups are a JSON array on SQLite, which has no lateral join; arrays
 * unnested on PostgreSQL). A row per lookup rather than per row read: at 100 000 documents a
 * 200-line import reads tens of thousands of rows, and a JS object per row, or a join back to
 * the table per row, cost more than the statements saved.
 */
function nearestSql(engine: Capabilities['engine'], r: NearestRead): string {
  const pg = engine === 'postgres';
  const key = pg ? (i: number) => `k.k${i}` : (i: number) => `k.value ->> ${i}`;
  const day = pg ? 'k.day' : key(r.keys.length);
  const half = (cmp: string, desc: boolean, extra: string | undefined) =>
    `(SELECT ${pg ? 'json_agg(h.r)::text' : 'json_group_array(h.r)'} FROM (SELECT ${r.row} AS r FROM ${r.table} WHERE ${r.where} AND ` +
    r.keys.map(([name], i) => `${name} = ${key(i)}`).join(' AND ') +
    ` AND ${r.day} ${cmp} ${day}${extra === undefined ? '' : ` AND ${extra}`}` +
    ` ORDER BY ${[r.day, ...r.order].map((c) => (desc ? `${c} DESC` : c)).join(', ')} LIMIT ?) h)`;
  const from = pg
    ? `unnest(${['?::int[]', ...r.keys.map(([, type]) => `?::${type}[]`), '?::text[]'].join(', ')}) AS k(${['i', ...r.keys.map((_, i) => `k${i}`), 'day'].join(', ')})`
    : 'json_each(?) k';
  return `SELECT ${pg ? 'k.i' : 'k.key'} AS i, ${half('>=', false, r.after)} AS a, ${half('<', true, r.before)} AS b FROM ${from}`;
}

const nearestTexts = new Map<NearestRead, Map<string, string>>();

/** A JSON array of texts as read (SQLite aggregates none to `[]`, PostgreSQL to null). */
function texts(v: unknown): string[] {
  return typeof v === 'string' ? (JSON.parse(v) as string[]) : [];
}

/**
 * `r` for each of `lookups` (its keys, then its day), at most `bound` rows per half: per lookup,
 * in order, the rows read as [day, the rest of `row`]. `params` are those of `where`, then of
 * `after` and of `before`. At most NEAREST_LOOKUPS_MAX lookups per statement.
 */
export async function readNearest(
  q: Queryable,
  engine: Capabilities['engine'],
  r: NearestRead,
  lookups: readonly (readonly (string | number)[])[],
  bound: number,
  params: { readonly where: readonly SqlValue[]; readonly after?: readonly SqlValue[]; readonly before?: readonly SqlValue[] },
): Promise<[day: string, rest: string][][]> {
  let byEngine = nearestTexts.get(r);
  if (!byEngine) nearestTexts.set(r, (byEngine = new Map<string, string>()));
  let sql = byEngine.get(engine);
  if (sql === undefined) byEngine.set(engine, (sql = nearestSql(engine, r)));
  const out: [string, string][][] = lookups.map(() => []);
  const halves = [...params.where, ...(params.after ?? []), bound, ...params.where, ...(params.before ?? []), bound];
  for (let from = 0; from < lookups.length; from += NEAREST_LOOKUPS_MAX) {
    const part = lookups.slice(from, from + NEAREST_LOOKUPS_MAX);
    const list =
      engine === 'postgres'
        ? [
            pgArray(part.map((_, i) => i)),
            ...r.keys.map((_, k) => pgArray(part.map((l) => at(l, k)))),
            pgArray(part.map((l) => at(l, r.keys.length))),
          ]
        : [JSON.stringify(part)];
    for (const row of await q.all<{ i: unknown; a: unknown; b: unknown }>(sql, [...halves, ...list])) {
      const found = out[from + Number(row.i)];
      if (!found) continue;
      for (const t of [...texts(row.a), ...texts(row.b)]) {
        const space = t.indexOf(' ');
        found.push([t.slice(0, space), t.slice(space + 1)]);
      }
    }
  }
  return out;
}

function at(row: readonly (string | number)[], i: number): string | number {
  const v = row[i];
  if (v === undefined) throw new Error(`readNearest: a lookup has ${row.length} values, not one per key and a day`);
  return v;
}

/**
 * A list of text values as one parameter, read as the rows `k` with column `value`: a statement
 * over any number of values keeps one text (an IN or VALUES list is a new text per length).
 */
export function textList(engine: Capabilities['engine']): string {
  return engine === 'postgres' ? 'unnest(?::text[]) AS k(value)' : 'json_each(?) k';
}

/** The parameter of `textList`. */
export function textListParam(engine: Capabilities['engine'], values: readonly string[]): string {
  return engine === 'postgres' ? pgArray(values) : JSON.stringify(values);
}
