import type { Queryable } from '../storage/types.js';
import { dayTotalsFromLines, keptDayTotals } from './gl/day-totals.js';
import { documentBalanceDrift } from './gl/document-balances.js';
import { bankJournalWordsCheck } from './reconciliation/bank-journal-words.js';
import { documentWordsCheck } from './reconciliation/document-words.js';
import { cashFlowDaysFromLines, keptCashFlowDays } from './reports/cash-flow-days.js';
import { gstDaysFromLines, keptGstDays } from './reports/gst-days.js';

/**
 * The tables kept beside the ledger so that reads cost what they return, not what the books hold
 * (docs/books.md, "Kept totals"). Each is written in the transaction of the posting it follows,
 * and each can be rebuilt from the rows it is kept from; a difference is a defect, never a
 * figure to trust. The property test checks every one after every act, and
 * `finance-desk verify --kept` checks an organisation's on a live database.
 */
export interface KeptTable {
  readonly table: string;
  /** The rows that differ from a rebuild, each in words; empty when the table is right. */
  drift(q: Queryable, orgId: string): Promise<string[]>;
}

/** Rows of one side not matched by a row of the other, each list sorted (a multiset difference). */
export function listDrift(kept: readonly string[], rebuilt: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const row of rebuilt) left.set(row, (left.get(row) ?? 0) + 1);
  const out: string[] = [];
  for (const row of kept) {
    const n = left.get(row) ?? 0;
    if (n > 0) left.set(row, n - 1);
    else out.push(`kept, not in a rebuild: ${row}`);
  }
  for (const [row, n] of left) for (let i = 0; i < n; i += 1) out.push(`in a rebuild, not kept: ${row}`);
  return out;
}

const dayRow = (r: { account_code: string; date: string; dr: number; cr: number; n: number }) =>
  `${r.account_code} ${r.date} debits ${r.dr} credits ${r.cr} lines ${r.n}`;

/** A row of plain fields in words: `name value` pairs in the row's own order. */
const fieldsRow = (r: object) =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(' ');

export const KEPT_TABLES: readonly KeptTable[] = [
  {
    table: 'account_day_totals',
    drift: async (q, orgId) => listDrift((await keptDayTotals(q, orgId)).map(dayRow), (await dayTotalsFromLines(q, orgId)).map(dayRow)),
  },
  {
    table: 'cash_flow_day_totals',
    drift: async (q, orgId) =>
      listDrift((await keptCashFlowDays(q, orgId)).map(fieldsRow), (await cashFlowDaysFromLines(q, orgId)).map(fieldsRow)),
  },
  {
    table: 'gst_day_totals',
    drift: async (q, orgId) => listDrift((await keptGstDays(q, orgId)).map(fieldsRow), (await gstDaysFromLines(q, orgId)).map(fieldsRow)),
  },
  {
    table: 'document_balances',
    drift: async (q, orgId) =>
      (await documentBalanceDrift(q, orgId)).map(
        (d) => `${d.accountCode} ${d.docId}: kept ${d.stored ?? 'no row'}, the lines ${d.fromLines ?? 'no line'}`,
      ),
  },
  {
    table: 'document_words',
    drift: async (q, orgId) => {
      const { kept, expected } = await documentWordsCheck(q, orgId);
      return listDrift(kept, expected);
    },
  },
  {
    table: 'bank_journal_words',
    drift: async (q, orgId) => {
      const { kept, expected } = await bankJournalWordsCheck(q, orgId);
      return listDrift(kept, expected);
    },
  },
];

/** Every kept table's drift for the organisation, read together (pass a snapshot). */
export async function keptTablesDrift(q: Queryable, orgId: string): Promise<{ table: string; drift: string[] }[]> {
  const out: { table: string; drift: string[] }[] = [];
  for (const t of KEPT_TABLES) out.push({ table: t.table, drift: await t.drift(q, orgId) });
  return out;
}
