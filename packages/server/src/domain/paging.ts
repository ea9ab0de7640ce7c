import { limits } from '@finance-desk/protocol';
import { badRequest, notFound } from '../errors.js';
import type { Queryable } from '../storage/types.js';

type Table = 'invoices' | 'bills' | 'quotes';

/**
 * Shared by the keyset-paged document reads (books.invoices, books.bills, books.quotes): a cursor is the id of
 * the last row of the previous page, so it must name a row of this organisation's list. Anything
 * else is BAD_REQUEST naming the cursor, as books.journals and books.feedLinesList answer.
 */
export async function checkCursor(q: Queryable, orgId: string, table: Table, noun: string, cursor: string | undefined): Promise<void> {
  if (cursor === undefined) return;
  const row = await q.get(`SELECT id FROM ${table} WHERE org_id = ? AND id = ?`, [orgId, cursor]);
  if (!row) throw badRequest(`cursor: no ${noun} ${cursor} in this organisation; pass the nextCursor of a previous page`);
}

/**
 * The contactId filter of books.invoices and books.bills names a contact of this
 * organisation; any other is NOT_FOUND (another organisation's row does not exist here).
 */
export async function checkContactFilter(q: Queryable, orgId: string, contactId: string | undefined): Promise<void> {
  if (contactId === undefined) return;
  const row = await q.get('SELECT id FROM contacts WHERE org_id = ? AND id = ?', [orgId, contactId]);
  if (!row) throw notFound('contact', contactId);
}

/** A LIKE pattern for a substring (already normalised by the caller), wildcards escaped by `!`. */
export function containsPattern(normalised: string): string {
  return `%${normalised.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * One page of a document list, oldest first (ids are time-ordered): this organisation's rows of
 * `table` that pass every filter given (`[sql, value]`; an undefined value is no filter), after
 * the cursor, at most `limit` (default 50), and the cursor of the next page or null.
 */
export async function pageOfDocuments<T extends { id: string }>(
  q: Queryable,
  orgId: string,
  list: { table: Table; noun: string; columns: string },
  filters: readonly (readonly [sql: string, value: string | undefined])[],
  page: { cursor?: string | undefined; limit?: number | undefined },
): Promise<{ rows: T[]; nextCursor: string | null }> {
  await checkCursor(q, orgId, list.table, list.noun, page.cursor);
  const limit = page.limit ?? limits.pageRowsDefault;
  const given = [...filters, ['id > ?', page.cursor] as const].filter((f): f is readonly [string, string] => f[1] !== undefined);
  const rows = await q.all<T>(
    `SELECT ${list.columns} FROM ${list.table} WHERE ${['org_id = ?', ...given.map(([sql]) => sql)].join(' AND ')}
     ORDER BY id LIMIT ${limit + 1}`,
    [orgId, ...given.map(([, value]) => value)],
  );
  const kept = rows.slice(0, limit);
  return { rows: kept, nextCursor: rows.length > limit ? (kept.at(-1)?.id ?? null) : null };
}
