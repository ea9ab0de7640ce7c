import { ChainVerifier, type ChainVerdict } from '@finance-desk/protocol';
import type { Database, Queryable } from '../storage/types.js';
import { headOf, storedRowsAfter } from './read.js';

const PAGE_ROWS = 1000;

export interface ChainPoint {
  readonly seq: number;
  readonly rowHash: string;
}

const GENESIS: ChainPoint = { seq: 0, rowHash: '' };

/** A verdict with the stored head it was checked against, read in the same snapshot. */
export interface ChainCheck {
  readonly verdict: ChainVerdict;
  readonly head: ChainPoint;
  /** The seq after which rows were checked (0: the whole chain). */
  readonly from: number;
}

function isDatabase(source: Database | Queryable): source is Database {
  return typeof (source as Partial<Database>).read === 'function';
}

/**
 * Walk the stored rows after `from` page by page with the protocol's verifier over the exact
 * stored payload bytes, and check that the chain ends at the stored head.
 * Call it inside one snapshot (`Database.read`): pages and head read in separate statements
 * would otherwise see different instants, and a write landing between them looks like a break.
 */
async function walk(q: Queryable, orgId: string, from: ChainPoint): Promise<ChainCheck> {
  const verifier = new ChainVerifier(from);
  const head = (await headOf(q, orgId)) ?? GENESIS;
  let cursor = from.seq;
  for (;;) {
    const page = await storedRowsAfter(q, orgId, cursor, PAGE_ROWS);
    for (const stored of page) {
      if (!verifier.pushStored(stored)) return { verdict: verifier.verdict(), head, from: from.seq };
    }
    if (page.length < PAGE_ROWS) break;
    cursor = Number(page[page.length - 1]?.seq);
  }
  const verdict = verifier.verdict();
  if (verdict.ok && (head.seq !== verdict.head.seq || head.rowHash !== verdict.head.rowHash)) {
    const broken: ChainVerdict = {
      ok: false,
      rows: verdict.rows,
      seq: head.seq,
      reason: 'prev_hash',
      expected: head.rowHash,
      actual: verdict.head.rowHash,
    };
    return { verdict: broken, head, from: from.seq };
  }
  return { verdict, head, from: from.seq };
}

/**
 * Recompute an organisation's whole chain from storage. Given the `Database`, it reads in one
 * snapshot; given a bare `Queryable`, the caller owns consistency (tests that
 * verify after all writes have settled).
 */
export async function verifyStoredChain(source: Database | Queryable, orgId: string): Promise<ChainVerdict> {
  const check = isDatabase(source) ? await source.read((q) => walk(q, orgId, GENESIS)) : await walk(source, orgId, GENESIS);
  return check.verdict;
}

/**
 * Where to resume: the stored verified head, if its row is still there with the same row_hash.
 * The walk then starts one row earlier (from the anchor's prev_hash), so the anchor row itself is
 * re-hashed too; an anchor that no longer matches means a full walk (docs/decisions.md).
 */
async function resumePoint(q: Queryable, orgId: string): Promise<{ point: ChainPoint; storedSeq: number }> {
  const none = { point: GENESIS, storedSeq: 0 };
  const stored = await q.get<{ seq: number; row_hash: string }>('SELECT seq, row_hash FROM chain_verified WHERE org_id = ?', [orgId]);
  if (!stored) return none;
  const anchor = await q.get<{ prev_hash: string; row_hash: string }>(
    'SELECT prev_hash, row_hash FROM events WHERE org_id = ? AND seq = ?',
    [orgId, Number(stored.seq)],
  );
  if (!anchor || anchor.row_hash !== stored.row_hash) return none;
  return { point: { seq: Number(stored.seq) - 1, rowHash: anchor.prev_hash }, storedSeq: Number(stored.seq) };
}

/**
 * The console's check: verify only the rows after the last verified head, in one
 * snapshot, then store the new head. Rows before the stored head are not re-read here; the full
 * `finance-desk verify` is what catches tampering with them.
 */
export async function verifyIncrementally(db: Database, orgId: string): Promise<ChainCheck> {
  const { check, storedSeq } = await db.read(async (q) => {
    const resume = await resumePoint(q, orgId);
    return { check: await walk(q, orgId, resume.point), storedSeq: resume.storedSeq };
  });
  if (check.verdict.ok && check.verdict.head.seq > storedSeq) {
    const { seq, rowHash } = check.verdict.head;
    // A cache of work done, not a business write: no ledger event. Only ever moves forward.
    await db.write((tx) =>
      tx.run(
        `INSERT INTO chain_verified (org_id, seq, row_hash, verified_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (org_id) DO UPDATE SET seq = excluded.seq, row_hash = excluded.row_hash,
           verified_at = excluded.verified_at
         WHERE chain_verified.seq < excluded.seq`,
        [orgId, seq, rowHash, new Date().toISOString()],
      ),
    );
  }
  return check;
}
