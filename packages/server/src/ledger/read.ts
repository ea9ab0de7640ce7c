import { isCanonicalJsonText, type StoredEventRow } from '@finance-desk/protocol';
import type { Queryable } from '../storage/types.js';

export interface StoredEvent {
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

export async function eventsAfter(q: Queryable, orgId: string, cursor: number, limit: number): Promise<StoredEvent[]> {
  return q.all<StoredEvent>(`SELECT ${COLUMNS} FROM events WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?`, [orgId, cursor, limit]);
}

/**
 * Rows after `cursor` as the verifier takes them (seq a number), one object per row: from column
 * arrays where the engine offers them, instead of the driver's object plus a copy.
 */
export async function storedRowsAfter(q: Queryable, orgId: string, cursor: number, limit: number): Promise<StoredEventRow[]> {
  if (!q.values) return (await eventsAfter(q, orgId, cursor, limit)).map((row) => ({ ...row, seq: Number(row.seq) }));
  const raw = await q.values(`SELECT ${COLUMNS} FROM events WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?`, [orgId, cursor, limit]);
  return raw.map((r) => ({
    seq: Number(r[0]),
    family: r[1] as string,
    kind: r[2] as string,
    entity_id: r[3] as string,
    actor: r[4] as string,
    at: r[5] as string,
    payload: r[6] as string,
    prev_hash: r[7] as string,
    row_hash: r[8] as string,
  }));
}

export async function eventsOfEntity(q: Queryable, orgId: string, entityId: string) {
  return q.all<StoredEvent>(`SELECT ${COLUMNS} FROM events WHERE org_id = ? AND entity_id = ? ORDER BY seq`, [orgId, entityId]);
}

/**
 * The payload as it goes on the wire: the exact stored text when it is the canonical JSON the
 * server wrote (always, unless storage was altered), so a client recomputes the same bytes.
 * Anything else (re-encoded, or not JSON at all) is served as a JSON string of the stored text:
 * the body stays JSON, and any verifier then finds the row_hash break at that seq.
 */
function wirePayload(stored: string): string {
  return isCanonicalJsonText(stored) ? stored : JSON.stringify(stored);
}

/**
 * A code unit JSON.stringify would escape (`"`, `\\`, controls) or a surrogate (escaped when
 * lone). A string with none is its own JSON body between quotes.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NEEDS_STRINGIFY = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * JSON.stringify of a string, exactly, with the common case (ids, kinds, timestamps, hex hashes)
 * written directly: profiling measured the seven JSON.stringify calls per row as most of
 * the cost of serving `events` pages.
 */
function jsonString(value: string): string {
  return NEEDS_STRINGIFY.test(value) ? JSON.stringify(value) : '"' + value + '"';
}

/** A stored row's wire JSON from its columns (in COLUMNS' order), the payload spliced in by `wirePayload`. */
function rowJson(
  seq: unknown,
  family: string,
  kind: string,
  entityId: string,
  actor: string,
  at: string,
  payload: string,
  prevHash: string,
  rowHash: string,
): string {
  return (
    '{"seq":' +
    String(Number(seq)) +
    ',"family":' +
    jsonString(family) +
    ',"kind":' +
    jsonString(kind) +
    ',"entity_id":' +
    jsonString(entityId) +
    ',"actor":' +
    jsonString(actor) +
    ',"at":' +
    jsonString(at) +
    ',"payload":' +
    wirePayload(payload) +
    ',"prev_hash":' +
    jsonString(prevHash) +
    ',"row_hash":' +
    jsonString(rowHash) +
    '}'
  );
}

/** A stored row as wire JSON text, its payload spliced in by `wirePayload`. */
export function eventJson(e: StoredEvent): string {
  return rowJson(e.seq, e.family, e.kind, e.entity_id, e.actor, e.at, e.payload, e.prev_hash, e.row_hash);
}

/**
 * One `GET events` page: each row's wire JSON and the last seq (null when empty). Read as column
 * arrays where the engine offers it — an object per row was a third of a page's cost — over the
 * same keyset query on the (org_id, seq) primary key as eventsAfter.
 */
export async function eventsPageJson(
  q: Queryable,
  orgId: string,
  cursor: number,
  limit: number,
): Promise<{ rows: string[]; lastSeq: number | null }> {
  if (!q.values) {
    const stored = await eventsAfter(q, orgId, cursor, limit);
    const last = stored[stored.length - 1];
    return { rows: stored.map(eventJson), lastSeq: last ? Number(last.seq) : null };
  }
  const raw = await q.values(`SELECT ${COLUMNS} FROM events WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?`, [orgId, cursor, limit]);
  const rows = new Array<string>(raw.length);
  for (let i = 0; i < raw.length; i += 1) {
    const r = raw[i] as [number, string, string, string, string, string, string, string, string];
    rows[i] = rowJson(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]);
  }
  const last = raw[raw.length - 1];
  return { rows, lastSeq: last ? Number(last[0]) : null };
}

export async function headOf(q: Queryable, orgId: string) {
  const row = await q.get<{ seq: number; row_hash: string }>('SELECT seq, row_hash FROM org_heads WHERE org_id = ?', [orgId]);
  return row ? { seq: Number(row.seq), rowHash: row.row_hash } : null;
}
