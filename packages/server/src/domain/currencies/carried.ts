import { placeholders } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';

/** The journals of a revaluation (revalue.ts): unrealised, and reversed the next day. */
export const REVALUE_KIND = 'currency_revalue';
export const REVALUE_REVERSAL_KIND = 'currency_revalue_reversal';

/**
 * The AUD a foreign document carries on its control account as at `asOf`, revaluations left out:
 * its posting and its payments. A payment settles against this (a revaluation is undone the next
 * day by its reversal, so settling it too would leave its reversal behind on the document), and a
 * revaluation measures against it. Positive on `side`.
 */
export async function carriedOn(
  q: Queryable,
  orgId: string,
  accountCode: string,
  side: 'debit' | 'credit',
  docIds: readonly string[],
  asOf = '9999-12-31',
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (docIds.length === 0) return out;
  const rows = await q.all<{ doc_id: string; dr: number | null; cr: number | null }>(
    `SELECT l.doc_id AS doc_id, SUM(l.debit_cents) AS dr, SUM(l.credit_cents) AS cr
     FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
     WHERE l.org_id = ? AND l.account_code = ? AND l.doc_id IN (${placeholders(docIds.length)}) AND j.date <= ?
       AND j.source_kind NOT IN (?, ?)
     GROUP BY l.doc_id`,
    [orgId, accountCode, ...docIds, asOf, REVALUE_KIND, REVALUE_REVERSAL_KIND],
  );
  for (const r of rows) {
    const dr = Number(r.dr ?? 0);
    const cr = Number(r.cr ?? 0);
    out.set(r.doc_id, side === 'debit' ? dr - cr : cr - dr);
  }
  return out;
}
