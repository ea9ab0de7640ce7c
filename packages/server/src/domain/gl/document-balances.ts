import type { Queryable, Writer } from '../../storage/types.js';

/**
 * Balances per document per account (`document_balances`), kept by postJournal as it writes the
 * lines: what is owed on an invoice, bill, claim or credit is one row, not a GROUP BY over every
 * line of its control account. Journals and their lines are only ever inserted (a reversal is a
 * new journal), so adding each journal's lines to the rows is exact; rebuildDocumentBalances
 * computes the rows afresh from the lines (the migration, seeding that writes lines directly, and
 * the check that the two agree). A document that had lines keeps its row at zero, as the lines
 * would still group it: "absent" means never posted to, in both.
 */

/** The rows' columns from journal lines, grouped; `WHERE` is appended by the callers. */
const FROM_LINES = `SELECT org_id, account_code, doc_id, SUM(debit_cents), SUM(credit_cents), SUM(debit_cents) - SUM(credit_cents)
  FROM journal_lines WHERE doc_id IS NOT NULL`;

const INSERT_HEAD = 'INSERT INTO document_balances (org_id, account_code, doc_id, debit_cents, credit_cents, balance_cents)';

/** Every organisation's rows from the lines (the migration's backfill, on an empty table). */
export const REBUILD_ALL_SQL = `${INSERT_HEAD}
  ${FROM_LINES} GROUP BY org_id, account_code, doc_id`;

/**
 * Replace one organisation's rows with those computed from its journal lines. Their `on_day`
 * (a match target's due date) and `party_key` (the aged reports') are not the lines' to give:
 * reconciliation/document-words.ts rebuildDocumentWords sets them again.
 */
export async function rebuildDocumentBalances(q: Queryable, orgId: string): Promise<void> {
  await q.run('DELETE FROM document_balances WHERE org_id = ?', [orgId]);
  await q.run(`${INSERT_HEAD} ${FROM_LINES} AND org_id = ? GROUP BY org_id, account_code, doc_id`, [orgId]);
}

/** One document's movement in a journal: the sums of its lines on one account. */
export interface DocumentMovement {
  readonly accountCode: string;
  readonly docId: string;
  readonly debitCents: number;
  readonly creditCents: number;
}

/** The movements of a journal's lines, one per account and document (lines without a document add none). */
export function movementsOf(
  lines: readonly { accountCode: string; docId: string | null; debitCents: number; creditCents: number }[],
): DocumentMovement[] {
  const by = new Map<string, { accountCode: string; docId: string; debitCents: number; creditCents: number }>();
  for (const l of lines) {
    if (l.docId === null) continue;
    const key = `${l.accountCode}\u0000${l.docId}`;
    const m = by.get(key);
    if (m) {
      m.debitCents += l.debitCents;
      m.creditCents += l.creditCents;
    } else by.set(key, { accountCode: l.accountCode, docId: l.docId, debitCents: l.debitCents, creditCents: l.creditCents });
  }
  return [...by.values()];
}

/**
 * Whether a document is open, from its row here (`CASE … END`, 1 or 0 on both engines).
 * Parameters: org, account, document.
 */
export const IS_OPEN = `CASE WHEN EXISTS (SELECT 1 FROM document_balances b
    WHERE b.org_id = ? AND b.account_code = ? AND b.doc_id = ? AND b.balance_cents <> 0) THEN 1 ELSE 0 END`;

/**
 * The control accounts of the documents bank lines are matched to (receivables, payables, expense
 * claims): a movement on one may open or close its document in reconciliation/document-words.ts,
 * whose lookup index holds open documents only. Another account's movement cannot.
 */
const MATCHED_ACCOUNTS = new Set(['1100', '2000', '2500']);

/** Set a document's words open or not from its balance. Parameters: org, account, document, twice. */
const SET_OPEN_SQL = `UPDATE document_words SET is_open = ${IS_OPEN}
  WHERE org_id = ? AND account_code = ? AND doc_id = ?`;

/**
 * Add a journal's movements to the rows, queued with its lines. One upsert per account and
 * document (summed first): on PostgreSQL one INSERT … ON CONFLICT may not touch a row twice.
 */
export async function addMovements(w: Pick<Writer, 'later'>, orgId: string, movements: readonly DocumentMovement[]): Promise<void> {
  for (const m of movements) {
    await w.later(
      `${INSERT_HEAD} VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (org_id, account_code, doc_id) DO UPDATE SET
         debit_cents = document_balances.debit_cents + excluded.debit_cents,
         credit_cents = document_balances.credit_cents + excluded.credit_cents,
         balance_cents = document_balances.balance_cents + excluded.balance_cents`,
      [orgId, m.accountCode, m.docId, m.debitCents, m.creditCents, m.debitCents - m.creditCents],
    );
    if (MATCHED_ACCOUNTS.has(m.accountCode)) await w.later(SET_OPEN_SQL, [orgId, m.accountCode, m.docId, orgId, m.accountCode, m.docId]);
  }
}

/**
 * Rows that differ from a rebuild of the organisation's lines (empty when the table is right):
 * each as account, document, stored balance and the lines' balance (null where one side has no row).
 */
export async function documentBalanceDrift(
  q: Queryable,
  orgId: string,
): Promise<{ accountCode: string; docId: string; stored: number | null; fromLines: number | null }[]> {
  const stored = await q.all<{ account_code: string; doc_id: string; debit_cents: number; credit_cents: number; balance_cents: number }>(
    'SELECT account_code, doc_id, debit_cents, credit_cents, balance_cents FROM document_balances WHERE org_id = ?',
    [orgId],
  );
  const lines = await q.all<{ account_code: string; doc_id: string; dr: number; cr: number }>(
    `SELECT account_code, doc_id, SUM(debit_cents) AS dr, SUM(credit_cents) AS cr FROM journal_lines
     WHERE org_id = ? AND doc_id IS NOT NULL GROUP BY account_code, doc_id`,
    [orgId],
  );
  const key = (a: string, d: string) => `${a}\u0000${d}`;
  const want = new Map(lines.map((l) => [key(l.account_code, l.doc_id), { dr: Number(l.dr), cr: Number(l.cr) }]));
  const out: { accountCode: string; docId: string; stored: number | null; fromLines: number | null }[] = [];
  for (const s of stored) {
    const k = key(s.account_code, s.doc_id);
    const w = want.get(k);
    want.delete(k);
    const dr = Number(s.debit_cents);
    const cr = Number(s.credit_cents);
    // A row that only carries a document's due date (on_day) for a document no line has named
    // yet (nothing to post: a zero total) is not a balance the lines disagree with.
    if (!w && dr === 0 && cr === 0 && Number(s.balance_cents) === 0) continue;
    if (!w || w.dr !== dr || w.cr !== cr || Number(s.balance_cents) !== dr - cr) {
      out.push({ accountCode: s.account_code, docId: s.doc_id, stored: Number(s.balance_cents), fromLines: w ? w.dr - w.cr : null });
    }
  }
  for (const [k, w] of want) {
    const [accountCode = '', docId = ''] = k.split('\u0000');
    out.push({ accountCode, docId, stored: null, fromLines: w.dr - w.cr });
  }
  return out;
}
