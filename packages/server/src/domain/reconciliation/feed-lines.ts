import type { reconciliation } from '@finance-desk/protocol';
import type { z } from 'zod';
import { notFound } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { placeholders } from '../../storage/sql.js';

/**
 * A bank feed line as stored and as answered. States (docs/examples/reconciliation.md):
 * unmatched → part_matched → matched (matchAccept, one allocation per document);
 * unmatched → held (matchAccept above the materiality floor) → matched (matchHoldResolve with a
 * human's proof); unmatched → recoded (lineRecode) → recoded again.
 */
export type FeedLineStatus = z.infer<typeof reconciliation.feedLineStatus>;
export type TargetKind = z.infer<typeof reconciliation.matchTargetKind>;
/** What an allocation names: a match target, a transfer's other line, or a split's account. */
export type AllocationKind = z.infer<typeof reconciliation.allocationKind>;
export type FeedLine = z.infer<typeof reconciliation.feedLine>;

export interface LineRow {
  id: string;
  account_code: string;
  date: string;
  amount_cents: number;
  description: string;
  reference: string | null;
  balance_cents: number | null;
  import_id: string;
  status: FeedLineStatus;
  matched_cents: number;
  held_kind: TargetKind | null;
  held_target_id: string | null;
  held_amount_cents: number | null;
  recode_account: string | null;
  recode_tax_code: string | null;
  recode_gst_cents: number | null;
  recode_journal_id: string | null;
  ledger_id: string;
}

export const LINE_COLUMNS =
  'id, account_code, date, amount_cents, description, reference, balance_cents, import_id, status, matched_cents, ' +
  'held_kind, held_target_id, held_amount_cents, recode_account, recode_tax_code, recode_gst_cents, recode_journal_id, ledger_id';

export interface MatchRow {
  id: string;
  line_id: string;
  target_kind: AllocationKind;
  target_id: string;
  amount_cents: number;
  journal_id: string;
  ledger_id: string;
}

export type Match = FeedLine['matches'][number];

export function toMatch(m: MatchRow): Match {
  return {
    id: m.id,
    kind: m.target_kind,
    targetId: m.target_id,
    amountCents: Number(m.amount_cents),
    journalId: m.journal_id,
    ledgerId: m.ledger_id,
  };
}

/** The unsigned amount of the line not yet applied to a document. */
export const remainingOf = (r: LineRow) => Math.abs(Number(r.amount_cents)) - Number(r.matched_cents);

export function toLine(r: LineRow, matches: readonly MatchRow[]): FeedLine {
  return {
    id: r.id,
    accountCode: r.account_code,
    date: r.date,
    amountCents: Number(r.amount_cents),
    description: r.description,
    reference: r.reference,
    balanceCents: r.balance_cents === null ? null : Number(r.balance_cents),
    status: r.status,
    matchedCents: Number(r.matched_cents),
    remainingCents: r.status === 'recoded' ? 0 : remainingOf(r),
    matches: matches.map(toMatch),
    held:
      r.status === 'held' && r.held_kind !== null && r.held_target_id !== null
        ? {
            kind: r.held_kind,
            targetId: r.held_target_id,
            amountCents: Number(r.held_amount_cents ?? 0),
          }
        : null,
    recode:
      r.status === 'recoded' && r.recode_account !== null && r.recode_journal_id !== null
        ? {
            accountCode: r.recode_account,
            taxCode: r.recode_tax_code ?? 'BAS_EXCLUDED',
            gstCents: Number(r.recode_gst_cents ?? 0),
            journalId: r.recode_journal_id,
          }
        : null,
    importId: r.import_id,
    ledgerId: r.ledger_id,
  };
}

/** The line to act on, locked until commit; NOT_FOUND when it is not this organisation's. */
export async function lockLine(uow: Uow, lineId: string): Promise<LineRow> {
  const row = await uow.tx.get<LineRow>(`SELECT ${LINE_COLUMNS} FROM bank_feed_lines WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    lineId,
  ]);
  if (!row) throw notFound('bank line', lineId);
  return row;
}

export async function matchesOf(q: Queryable, orgId: string, lineIds: readonly string[]): Promise<Map<string, MatchRow[]>> {
  const out = new Map<string, MatchRow[]>();
  if (lineIds.length === 0) return out;
  const rows = await q.all<MatchRow>(
    `SELECT id, line_id, target_kind, target_id, amount_cents, journal_id, ledger_id FROM bank_feed_matches
     WHERE org_id = ? AND line_id IN (${placeholders(lineIds.length)}) AND reversed_at IS NULL ORDER BY created_at, id`,
    [orgId, ...lineIds],
  );
  for (const r of rows) out.set(r.line_id, [...(out.get(r.line_id) ?? []), r]);
  return out;
}

/** Re-read a line after a change, as the answer shows it. */
export async function lineNow(q: Queryable, orgId: string, lineId: string): Promise<FeedLine> {
  const row = await q.get<LineRow>(`SELECT ${LINE_COLUMNS} FROM bank_feed_lines WHERE org_id = ? AND id = ?`, [orgId, lineId]);
  if (!row) throw notFound('bank line', lineId);
  return toLine(row, (await matchesOf(q, orgId, [lineId])).get(lineId) ?? []);
}
