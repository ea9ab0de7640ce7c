import type { Capabilities, Queryable, Writer } from './types.js';

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
