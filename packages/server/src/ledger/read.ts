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

/** A stored row as wire JSON text, its payload spliced in by `wirePayload`. */
export function eventJson(e: StoredEvent): string {
  return (
    `{"seq":${Number(e.seq)},"family":${JSON.stringify(e.family)},"kind":${JSON.stringify(e.kind)},` +
    `"entity_id":${JSON.stringify(e.entity_id)},"actor":${JSON.stringify(e.actor)},` +
    `"at":${JSON.stringify(e.at)},"payload":${wirePayload(e.payload)},` +
    `"prev_hash":${JSON.stringify(e.prev_hash)},"row_hash":${JSON.stringify(e.row_hash)}}`
  );
}

export async function headOf(q: Queryable, orgId: string) {
  const row = await q.get<{ seq: number; row_hash: string }>(
    'SELECT seq, row_hash FROM org_heads WHERE org_id = ?',
    [orgId],
  );
  return row ? { seq: Number(row.seq), rowHash: row.row_hash } : null;
}
