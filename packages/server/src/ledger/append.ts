import {
  canonicalJson,
  ledgerId,
  rowHashInputWithPayload,
  sha256Hex,
  type EventKindSpec,
  type EventPayloadOf,
} from '@finance-desk/protocol';
import { invariant } from '../errors.js';
import { insertMany, queueMany, type Column } from '../storage/sql.js';
import type { Capabilities, Queryable, Tx, Writer } from '../storage/types.js';

export interface Head {
  seq: number;
  rowHash: string;
}

/**
 * What an emit site gives besides the event's declaration (protocol events.ts): the entity and
 * the payload, typed by the declaration's schema. Family and kind come from the declaration.
 */
export interface EventBody<E extends EventKindSpec = EventKindSpec> {
  readonly entityId: string;
  readonly payload: EventPayloadOf<E>;
}

export interface Appended {
  readonly seq: number;
  readonly rowHash: string;
  readonly ledgerId: string;
  readonly at: string;
}

/** An event chained in code onto a head, not yet written (it is written set-based, per batch). */
export interface ChainedEvent {
  readonly seq: number;
  readonly family: string;
  readonly kind: string;
  readonly entityId: string;
  readonly actor: string;
  readonly at: string;
  readonly payload: string;
  readonly prevHash: string;
  readonly rowHash: string;
}

/**
 * Chain one event onto `head` in code, advancing `head` in place. The payload is serialised once:
 * the stored text is the hashed text. Nothing is written: see insertEvents.
 */
export function chainEvent<E extends EventKindSpec>(head: Head, actor: string, event: E, body: EventBody<E>): ChainedEvent {
  const seq = head.seq + 1;
  invariant(Number.isSafeInteger(seq), 'seq is a safe integer');
  const at = new Date().toISOString();
  // Stored as built, never parsed through the schema here (the harness checks every test's events).
  const payload = canonicalJson(body.payload);
  const row = { seq, family: event.family, kind: event.kind, entity_id: body.entityId, actor, at };
  const rowHash = sha256Hex(rowHashInputWithPayload(head.rowHash, row, payload));
  const chained: ChainedEvent = {
    seq,
    family: event.family,
    kind: event.kind,
    entityId: body.entityId,
    actor,
    at,
    payload,
    prevHash: head.rowHash,
    rowHash,
  };
  head.seq = seq;
  head.rowHash = rowHash;
  return chained;
}

export function appendedOf(e: ChainedEvent): Appended {
  return { seq: e.seq, rowHash: e.rowHash, ledgerId: ledgerId(e.rowHash), at: e.at };
}

/**
 * Write chained events of one organisation set-based (insertMany: on PostgreSQL one statement
 * however many rows). The primary key (org_id, seq) refuses any seq written twice.
 */
export async function insertEvents(tx: Queryable, caps: Capabilities, orgId: string, rows: readonly ChainedEvent[]): Promise<void> {
  const written = await insertMany(tx, caps, 'events', EVENT_COLUMNS, rows.map(eventValues(orgId)));
  invariant(written === rows.length, 'every chained event was written');
}

/** `insertEvents` as a queued write of the transaction (Tx.later: the batch's write-out). */
export async function queueEvents(w: Writer, caps: Capabilities, orgId: string, rows: readonly ChainedEvent[]): Promise<void> {
  await queueMany(w, caps, 'events', EVENT_COLUMNS, rows.map(eventValues(orgId)));
}

const eventValues = (orgId: string) => (r: ChainedEvent) => [
  orgId,
  r.seq,
  r.family,
  r.kind,
  r.entityId,
  r.actor,
  r.at,
  r.payload,
  r.prevHash,
  r.rowHash,
];

const EVENT_COLUMNS: readonly Column[] = [
  ['org_id', 'text'],
  ['seq', 'bigint'],
  ['family', 'text'],
  ['kind', 'text'],
  ['entity_id', 'text'],
  ['actor', 'text'],
  ['at', 'text'],
  ['payload', 'text'],
  ['prev_hash', 'text'],
  ['row_hash', 'text'],
];

/**
 * Move the stored head from `from` to `to`; the row must still be at `from` (this transaction
 * locked it), else the chain would fork.
 */
export async function moveHead(tx: Queryable, orgId: string, from: Head, to: Head): Promise<void> {
  const moved = await tx.run('UPDATE org_heads SET seq = ?, row_hash = ? WHERE org_id = ? AND seq = ?', [
    to.seq,
    to.rowHash,
    orgId,
    from.seq,
  ]);
  invariant(moved.changes === 1, 'the head moved only from the seq this transaction read');
}

/** Append one event after `head` at once (org creation), advancing `head` in place. */
export async function appendEvent<E extends EventKindSpec>(
  tx: Tx,
  caps: Capabilities,
  orgId: string,
  head: Head,
  actor: string,
  event: E,
  body: EventBody<E>,
): Promise<Appended> {
  const from = { ...head };
  const chained = chainEvent(head, actor, event, body);
  await insertEvents(tx, caps, orgId, [chained]);
  await moveHead(tx, orgId, from, head);
  return appendedOf(chained);
}
