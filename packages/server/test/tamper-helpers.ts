import { rowHashInputWithPayload, sha256Hex } from '@finance-desk/protocol';
import type { TestServer } from './harness.js';

/**
 * What an insider with write access to the database could do (for the checkpoint and audit-pack tests): replace
 * `from` by `to` in the payload of the row at `seq`, then re-hash that row and every row after it,
 * and the head, so that the chain on its own still verifies.
 */
export async function rewriteHistory(t: TestServer, orgId: string, seq: number, from: string, to: string): Promise<void> {
  await t.db.write(async (tx) => {
    const rows = await tx.all<{
      seq: number;
      family: string;
      kind: string;
      entity_id: string;
      actor: string;
      at: string;
      payload: string;
      prev_hash: string;
    }>('SELECT seq, family, kind, entity_id, actor, at, payload, prev_hash FROM events WHERE org_id = ? AND seq >= ? ORDER BY seq', [
      orgId,
      seq,
    ]);
    let prev = rows[0]?.prev_hash ?? '';
    for (const r of rows) {
      const payload = Number(r.seq) === seq ? r.payload.split(from).join(to) : r.payload;
      const hash = sha256Hex(
        rowHashInputWithPayload(
          prev,
          { seq: Number(r.seq), family: r.family, kind: r.kind, entity_id: r.entity_id, actor: r.actor, at: r.at },
          payload,
        ),
      );
      await tx.run('UPDATE events SET payload = ?, prev_hash = ?, row_hash = ? WHERE org_id = ? AND seq = ?', [
        payload,
        prev,
        hash,
        orgId,
        r.seq,
      ]);
      prev = hash;
    }
    await tx.run('UPDATE org_heads SET row_hash = ? WHERE org_id = ?', [prev, orgId]);
  });
}
