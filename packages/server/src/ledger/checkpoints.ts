import { checkpointBody, openCheckpoint, signNote, signingKeyFromSeed, verifierKey } from '@finance-desk/protocol';
import type { KeyObject } from 'node:crypto';
import type { Database, Queryable } from '../storage/types.js';
import { headOf } from './read.js';
import type { ChainVerdict } from '@finance-desk/protocol';
import { verifyStoredChain } from './verify.js';

/**
 * Signed checkpoints (protocol checkpoint.ts has the formats). The server signs
 * each organisation's head with the operator's Ed25519 key every `everyEvents` events or
 * `everyMs` since the last checkpoint (a sweep off the request path), and on demand
 * (`finance-desk checkpoint`). Anyone holding one checkpoint and the verifier key can later prove
 * the chain was not rewritten: the row at the checkpoint's size must still hash to its root, and
 * the chain must verify from genesis through it to the head.
 */
export interface Signer {
  /** The key's name in notes and the prefix of every origin, e.g. `books.example.com`. */
  readonly name: string;
  readonly key: KeyObject;
  /** The C2SP verifier key auditors are given (also served in /api/v1/artifacts). */
  readonly vkey: string;
}

export function signerFrom(name: string, seedBase64: string): Signer {
  const key = signingKeyFromSeed(seedBase64);
  return { name, key, vkey: verifierKey(name, key) };
}

/** One log per organisation: its origin is the key name and the organisation id. */
export function originOf(signer: Pick<Signer, 'name'>, orgId: string): string {
  return `${signer.name}/${orgId}`;
}

export interface StoredCheckpoint {
  readonly seq: number;
  readonly rowHash: string;
  readonly note: string;
  readonly createdAt: string;
}

/** Sign the organisation's current head (unless it already has a checkpoint by this key). */
export async function checkpointNow(db: Database, signer: Signer, orgId: string, now: string): Promise<StoredCheckpoint | null> {
  const head = await headOf(db.reader, orgId);
  if (!head || Number(head.seq) === 0) return null;
  const seq = Number(head.seq);
  const existing = await db.reader.get<{ note: string; created_at: string }>(
    'SELECT note, created_at FROM checkpoints WHERE org_id = ? AND seq = ? AND key_name = ?',
    [orgId, seq, signer.name],
  );
  if (existing) return { seq, rowHash: head.rowHash, note: existing.note, createdAt: existing.created_at };
  const note = signNote(checkpointBody({ origin: originOf(signer, orgId), size: seq, rootHash: head.rowHash }), signer.name, signer.key);
  // Several processes may sign the same head at once: the first row stays (they are equivalent).
  await db.write((tx) =>
    tx.run(
      `INSERT INTO checkpoints (org_id, seq, row_hash, key_name, note, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (org_id, seq, key_name) DO NOTHING`,
      [orgId, seq, head.rowHash, signer.name, note, now],
    ),
  );
  return { seq, rowHash: head.rowHash, note, createdAt: now };
}

export interface CheckpointPolicy {
  readonly everyEvents: number;
  readonly everyMs: number;
}

/** Organisations at most this many per sweep, so one sweep's work is bounded. */
const SWEEP_ORGS_MAX = 500;

/**
 * Sign every head that is due: `everyEvents` events past its last checkpoint, or any new event and
 * `everyMs` since its last checkpoint. Returns how many were signed.
 */
export async function checkpointSweep(db: Database, signer: Signer, policy: CheckpointPolicy, now: string): Promise<number> {
  const since = new Date(Date.parse(now) - policy.everyMs).toISOString();
  const due = await db.reader.all<{ org_id: string }>(
    `SELECT h.org_id FROM org_heads h
       LEFT JOIN (SELECT org_id, MAX(seq) AS seq, MAX(created_at) AS created_at FROM checkpoints WHERE key_name = ? GROUP BY org_id) c
         ON c.org_id = h.org_id
      WHERE h.seq > 0 AND (c.seq IS NULL OR h.seq - c.seq >= ? OR (h.seq > c.seq AND c.created_at <= ?))
      ORDER BY h.org_id LIMIT ${SWEEP_ORGS_MAX}`,
    [signer.name, policy.everyEvents, since],
  );
  let signed = 0;
  for (const { org_id } of due) if (await checkpointNow(db, signer, org_id, now)) signed += 1;
  return signed;
}

export async function listCheckpoints(q: Queryable, orgId: string, afterSeq: number, limit: number): Promise<StoredCheckpoint[]> {
  const rows = await q.all<{ seq: number; row_hash: string; note: string; created_at: string }>(
    'SELECT seq, row_hash, note, created_at FROM checkpoints WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    [orgId, afterSeq, limit],
  );
  return rows.map((r) => ({ seq: Number(r.seq), rowHash: r.row_hash, note: r.note, createdAt: r.created_at }));
}

export type CheckpointVerdict =
  | { readonly ok: true; readonly checkpointSeq: number; readonly head: { seq: number; rowHash: string }; readonly rows: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Does the stored chain extend this checkpoint? The note must be signed by `vkey`, name this
 * organisation's log, and the row at its size must hash to its root; and the whole chain must
 * verify (so the rows before it are the ones it committed to, and the rows after it follow on).
 */
export async function verifyExtends(
  db: Database,
  orgId: string,
  note: string,
  vkey: string,
  signerName: string,
): Promise<CheckpointVerdict> {
  const opened = openCheckpoint(note, vkey);
  if (!opened.ok) return { ok: false, reason: `checkpoint: ${opened.reason}` };
  const c = opened.checkpoint;
  if (c.origin !== originOf({ name: signerName }, orgId)) {
    return {
      ok: false,
      reason: `checkpoint: its origin ${c.origin} is not this organisation's log (${originOf({ name: signerName }, orgId)})`,
    };
  }
  const verdict: ChainVerdict = await verifyStoredChain(db, orgId);
  if (!verdict.ok) return { ok: false, reason: `chain broken at seq ${verdict.seq}: ${verdict.reason}` };
  if (verdict.head.seq < c.size) {
    return { ok: false, reason: `the chain ends at seq ${verdict.head.seq}, before the checkpoint's ${c.size}: rows were removed` };
  }
  const row = await db.reader.get<{ row_hash: string }>('SELECT row_hash FROM events WHERE org_id = ? AND seq = ?', [orgId, c.size]);
  if (row?.row_hash !== c.rootHash) {
    return { ok: false, reason: `the row at seq ${c.size} no longer hashes to the checkpoint's root: history was rewritten` };
  }
  return { ok: true, checkpointSeq: c.size, head: verdict.head, rows: verdict.rows };
}
