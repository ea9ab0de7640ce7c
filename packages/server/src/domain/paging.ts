import { badRequest } from '../errors.js';
import type { Queryable } from '../storage/types.js';

/**
 * Shared by the keyset-paged document reads (books.invoices, books.bills): a cursor is the id of
 * the last row of the previous page, so it must name a row of this organisation's list. Anything
 * else is BAD_REQUEST naming the cursor, as books.journals and books.feedLinesList answer.
 */
export async function checkCursor(
  q: Queryable,
  orgId: string,
  table: 'invoices' | 'bills',
  noun: string,
  cursor: string | undefined,
): Promise<void> {
  if (cursor === undefined) return;
  const row = await q.get(`SELECT id FROM ${table} WHERE org_id = ? AND id = ?`, [orgId, cursor]);
  if (!row) throw badRequest(`cursor: no ${noun} ${cursor} in this organisation; pass the nextCursor of a previous page`);
}

/** A LIKE pattern for a substring (already normalised by the caller), wildcards escaped by `!`. */
export function containsPattern(normalised: string): string {
  return `%${normalised.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}
