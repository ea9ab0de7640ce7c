import { ChainVerifier, type ChainVerdict } from '@finance-desk/protocol';
import type { Queryable } from '../storage/types.js';
import { eventsAfter, headOf, toEventRow } from './read.js';

const PAGE_ROWS = 1000;

/**
 * Recompute an organisation's whole chain from storage with the protocol's own verifier, page by
 * page, and check that it ends at the stored head.
 */
export async function verifyStoredChain(q: Queryable, orgId: string): Promise<ChainVerdict> {
  const verifier = new ChainVerifier();
  let cursor = 0;
  for (;;) {
    const page = await eventsAfter(q, orgId, cursor, PAGE_ROWS);
    for (const row of page) {
      if (!verifier.push(toEventRow(row))) return verifier.verdict();
    }
    if (page.length < PAGE_ROWS) break;
    cursor = Number(page[page.length - 1]?.seq);
  }
  const verdict = verifier.verdict();
  const head = await headOf(q, orgId);
  if (verdict.ok && head && (head.seq !== verdict.head.seq || head.rowHash !== verdict.head.rowHash)) {
    return {
      ok: false,
      rows: verdict.rows,
      seq: head.seq,
      reason: 'prev_hash',
      expected: head.rowHash,
      actual: verdict.head.rowHash,
    };
  }
  return verdict;
}
