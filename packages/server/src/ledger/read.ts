import { isCanonicalJsonText } from '@finance-desk/protocol';
import type { Queryable } from '../storage/types.js';

interface StoredEvent {
  seq: number;
  family: string;
  kind: string;
  entity_id: string;
  actor: string;
  at: string;
  payload: string;
  prev_hash: string;
  row_hash: string;
}

const COLUMNS = 'seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash';

export async function eventsAfter(
  q: Queryable,
  orgId: string,
  cursor: number,
  limit: number,
): Promise<StoredEvent[]> {
  return q.all<StoredEvent>(
    `SELECT ${COLUMNS} FROM events WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    [orgId, cursor, limit],
  );
}

export async function eventsOfEntity(q: Queryable, orgId: string, entityId: string) {
  return q.all<StoredEvent>(
    `SELECT ${COLUMNS} FROM events WHERE org_id = ? AND entity_id = ? ORDER BY seq`,
    [orgId, entityId],
  );
}

/**
 * The payload as it goes on the wire: the exact stored text when it is the canonical JSON the
 * server wrote (always, unless storage was altered), so a client recomputes the same bytes (D9).
 * Anything else (re-encoded, or not JSON at all) is served as a JSON string of the stored text:
 * the body stays JSON, and any verifier then finds the row_hash break at that seq (item 6).
 */
function wirePayload(stored: string): string {
  return isCanonicalJsonText(stored) ? stored : JSON.stringify(stored);
}

/**
 * A code unit JSON.stringify would escape (`"`, `\\`, controls) or a surrogate (escaped when
 * lone). A string with none is its own JSON body between quotes.
 */
const NEEDS_STRINGIFY = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * JSON.stringify of a string, exactly, with the common case (ids, kinds, timestamps, hex hashes)
 * written directly: issue 14 goal 3 measured the seven JSON.stringify calls per row as most of
 * the cost of serving `events` pages.
 */
function jsonString(value: string): string {
  return NEEDS_STRINGIFY.test(value) ? JSON.stringify(value) : '"' + value + '"';
}

/** A stored row as wire JSON text, its payload spliced in by `wirePayload`. */
export function eventJson(e: StoredEvent): string {
  return (
    '{"seq":' + String(Number(e.seq)) + ',"family":' + jsonString(e.family) + ',"kind":' + jsonString(e.kind) +
    ',"entity_id":' + jsonString(e.entity_id) + ',"actor":' + jsonString(e.actor) + ',"at":' + jsonString(e.at) +
    ',"payload":' + wirePayload(e.payload) + ',"prev_hash":' + jsonString(e.prev_hash) + ',"row_hash":' + jsonString(e.row_hash) + '}'
  );
}

export async function headOf(q: Queryable, orgId: string) {
  const row = await q.get<{ seq: number; row_hash: string }>(
    'SELECT seq, row_hash FROM org_heads WHERE org_id = ?',
    [orgId],
  );
  return row ? { seq: Number(row.seq), rowHash: row.row_hash } : null;
}
