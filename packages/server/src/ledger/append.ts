import {
  canonicalJson,
  ledgerId,
  rowHashInputWithPayload,
  sha256Hex,
  type EventKindSpec,
  type EventPayloadOf,
  type JsonValue,
} from '@finance-desk/protocol';
import { invariant } from '../errors.js';
import type { Capabilities, Tx } from '../storage/types.js';

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

/**
 * Lock the organisation's head for this transaction and read it. In PostgreSQL the row lock
 * serialises every write of one organisation across all server processes; in SQLite the single
 * writer already does. Either way the next seq is head + 1 and can never fork.
 */
export async function lockHead(tx: Tx, caps: Capabilities, orgId: string): Promise<Head | null> {
  const row = await tx.get<{ seq: number; row_hash: string }>(
    `SELECT seq, row_hash FROM org_heads WHERE org_id = ?${caps.forUpdate}`,
    [orgId],
  );
  return row ? { seq: Number(row.seq), rowHash: row.row_hash } : null;
}

/** Append one event after `head`, advancing `head` in place. Same transaction as the change. */
export async function appendEvent<E extends EventKindSpec>(
  tx: Tx,
  orgId: string,
  head: Head,
  actor: string,
  event: E,
  body: EventBody<E>,
): Promise<Appended> {
  const seq = head.seq + 1;
  invariant(Number.isSafeInteger(seq), 'seq is a safe integer');
  const at = new Date().toISOString();
  // Stored as built, never parsed through the schema here (the harness checks every test's events).
  const payloadText = canonicalJson(body.payload as JsonValue);
  const row = { seq, family: event.family, kind: event.kind, entity_id: body.entityId, actor, at };
  // The payload is serialised once: the stored text is the hashed text (D9).
  const hash = sha256Hex(rowHashInputWithPayload(head.rowHash, row, payloadText));
  await tx.run(
    `INSERT INTO events (org_id, seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [orgId, seq, row.family, row.kind, row.entity_id, actor, at, payloadText, head.rowHash, hash],
  );
  const moved = await tx.run('UPDATE org_heads SET seq = ?, row_hash = ? WHERE org_id = ? AND seq = ?', [
    seq,
    hash,
    orgId,
    head.seq,
  ]);
  invariant(moved.changes === 1, 'the head moved only from the seq this transaction read');
  head.seq = seq;
  head.rowHash = hash;
  return { seq, rowHash: hash, ledgerId: ledgerId(hash), at };
}
