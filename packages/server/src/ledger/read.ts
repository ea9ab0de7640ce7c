import type { EventRow } from '@finance-desk/protocol';
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
 * A stored row as wire JSON text. The payload is spliced in as the exact stored text that was
 * hashed (D9), never re-serialised, so a client recomputes the same bytes.
 */
export function eventJson(e: StoredEvent): string {
  return (
    `{"seq":${Number(e.seq)},"family":${JSON.stringify(e.family)},"kind":${JSON.stringify(e.kind)},` +
    `"entity_id":${JSON.stringify(e.entity_id)},"actor":${JSON.stringify(e.actor)},` +
    `"at":${JSON.stringify(e.at)},"payload":${e.payload},` +
    `"prev_hash":${JSON.stringify(e.prev_hash)},"row_hash":${JSON.stringify(e.row_hash)}}`
  );
}

export function toEventRow(e: StoredEvent): EventRow {
  return {
    seq: Number(e.seq),
    family: e.family,
    kind: e.kind,
    entity_id: e.entity_id,
    actor: e.actor,
    at: e.at,
    payload: JSON.parse(e.payload) as EventRow['payload'],
    prev_hash: e.prev_hash,
    row_hash: e.row_hash,
  };
}

export async function headOf(q: Queryable, orgId: string) {
  const row = await q.get<{ seq: number; row_hash: string }>(
    'SELECT seq, row_hash FROM org_heads WHERE org_id = ?',
    [orgId],
  );
  return row ? { seq: Number(row.seq), rowHash: row.row_hash } : null;
}
