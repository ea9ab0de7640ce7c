import { localDate, orgTimeZone } from '../../clock.js';
import { badRequest, notFound } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { CLAIMS_ACCOUNT, PAYABLE_CLAIM_STATUSES } from '../expenses/ledger-api.js';
import { PAYABLE_BILL_STATUSES, PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { owedOnDocument } from '../payables/settle.js';
import { OPEN_STATUSES, outstandingOn, quotedOf } from '../receivables/ledger-api.js';
import type { TargetKind } from './feed-lines.js';
import { placeholders, readInParts } from '../../storage/sql.js';

/**
 * What a bank line can be matched to, as reconciliation sees it: an invoice (money in), a bill
 * or an expense claim (money out), or a bank posting already in the ledger (a journal: a payment
 * recorded directly, a payment run) that no line accounts for yet. Documents belong to their
 * areas; this reads only what matching needs and their ledger balances.
 */
export interface Target {
  readonly kind: TargetKind;
  readonly id: string;
  readonly party: string;
  readonly reference: string;
  /** Other words a line may quote for it (an invoice's number, a document's own reference). */
  readonly quoted: readonly string[];
  readonly status: string;
  /** Unsigned: what is still owed on the document, or the journal's bank amount not yet matched. */
  readonly outstandingCents: number;
  readonly issuedOn: string | null;
  /**
   * The date the document was posted (invoice issued, bill or claim approved); a bank line dated
   * before it cannot pay it. Null for a journal: a bank line may clear before or after its posting.
   */
  readonly postedOn: string | null;
  readonly dueOn: string | null;
  /** The direction of money that settles it: an invoice is paid in, a bill paid out. */
  readonly direction: 'in' | 'out';
  /** Statuses its own area lets take a payment (the apply* functions refuse the others). */
  readonly payableStatuses: readonly string[];
}

/** As receivables', payables' and expenses' ledger APIs decide; checked before a match is held. */
const PAYABLE: Readonly<Record<TargetKind, readonly string[]>> = {
  invoice: OPEN_STATUSES,
  bill: PAYABLE_BILL_STATUSES,
  claim: PAYABLE_CLAIM_STATUSES,
  journal: ['unreconciled'],
};

/** Bank postings made by recoding lines: they are reconciled by construction. */
export const RECODE_SOURCES = ['feed_recode', 'feed_recode_reversal'] as const;

async function invoiceTarget(q: Queryable, orgId: string, id: string): Promise<Target> {
  const r = await q.get<{
    status: string;
    number: string | null;
    reference: string | null;
    payee_name: string;
    issued_on: string | null;
    due_on: string | null;
    journal_id: string | null;
  }>('SELECT status, number, reference, payee_name, issued_on, due_on, journal_id FROM invoices WHERE org_id = ? AND id = ?', [orgId, id]);
  if (!r) throw notFound('invoice', id);
  const owed = r.journal_id === null ? 0 : await outstandingOn(q, orgId, id);
  return {
    kind: 'invoice',
    id,
    party: r.payee_name,
    reference: id,
    quoted: quotedOf(r.number, r.reference),
    status: r.status,
    outstandingCents: owed,
    issuedOn: r.issued_on,
    postedOn: r.journal_id === null ? null : r.issued_on,
    dueOn: r.due_on,
    direction: 'in',
    payableStatuses: PAYABLE.invoice,
  };
}

async function billTarget(q: Queryable, orgId: string, id: string): Promise<Target> {
  const r = await q.get<{
    status: string;
    payee_name: string;
    payee_reference: string | null;
    reference: string | null;
    issued_on: string | null;
    created_at: string;
    due_on: string;
    journal_id: string | null;
    posted_on: string | null;
  }>(
    `SELECT b.status AS status, b.payee_name AS payee_name, b.payee_reference AS payee_reference,
       b.reference AS reference, b.issued_on AS issued_on, b.created_at AS created_at, b.due_on AS due_on, b.journal_id AS journal_id, j.date AS posted_on
     FROM bills b LEFT JOIN journals j ON j.org_id = b.org_id AND j.id = b.journal_id
     WHERE b.org_id = ? AND b.id = ?`,
    [orgId, id],
  );
  if (!r) throw notFound('bill', id);
  const owed = r.journal_id === null ? 0 : await owedOnDocument(q, orgId, PAYABLES_ACCOUNT, id);
  return {
    kind: 'bill',
    id,
    party: r.payee_name,
    reference: r.payee_reference ?? id,
    quoted: quotedOf(r.reference),
    status: r.status,
    outstandingCents: owed,
    issuedOn: r.issued_on ?? localDate(r.created_at, await orgTimeZone(q, orgId)),
    postedOn: r.posted_on,
    dueOn: r.due_on,
    direction: 'out',
    payableStatuses: PAYABLE.bill,
  };
}

async function claimTarget(q: Queryable, orgId: string, id: string): Promise<Target> {
  const r = await q.get<{
    status: string;
    claimant: string;
    receipt_ref: string;
    spent_on: string;
    approved_at: string | null;
    journal_id: string | null;
    posted_on: string | null;
  }>(
    `SELECT c.status AS status, c.claimant AS claimant, c.receipt_ref AS receipt_ref, c.spent_on AS spent_on,
       c.approved_at AS approved_at, c.journal_id AS journal_id, j.date AS posted_on
     FROM expense_claims c LEFT JOIN journals j ON j.org_id = c.org_id AND j.id = c.journal_id
     WHERE c.org_id = ? AND c.id = ?`,
    [orgId, id],
  );
  if (!r) throw notFound('expense claim', id);
  const owed = r.journal_id === null ? 0 : await owedOnDocument(q, orgId, CLAIMS_ACCOUNT, id);
  return {
    kind: 'claim',
    id,
    party: r.claimant,
    reference: r.receipt_ref,
    quoted: [],
    status: r.status,
    outstandingCents: owed,
    issuedOn: r.spent_on,
    postedOn: r.posted_on,
    dueOn: r.approved_at === null ? null : r.posted_on,
    direction: 'out',
    payableStatuses: PAYABLE.claim,
  };
}

/** What of a journal's bank postings bank lines already account for, per journal. */
async function matchedOnJournals(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const rows = await readInParts(ids, (part) =>
    q.all<{ journal_id: string; matched: number }>(
      // ABS: a split's account part going the other way inside its line is stored negative;
      // a reversed match (lineUnmatch) no longer counts.
      `SELECT journal_id, SUM(ABS(amount_cents)) AS matched FROM bank_feed_matches
       WHERE org_id = ? AND journal_id IN (${placeholders(part.length)}) AND reversed_at IS NULL GROUP BY journal_id`,
      [orgId, ...part],
    ),
  );
  for (const r of rows) out.set(r.journal_id, Number(r.matched));
  return out;
}

interface JournalRow {
  id: string;
  date: string;
  memo: string;
  source_kind: string;
  net: number;
}

function journalTarget(r: JournalRow, matched: number): Target {
  const net = Number(r.net);
  const left = Math.abs(net) - matched;
  return {
    kind: 'journal',
    id: r.id,
    party: r.memo,
    reference: r.id,
    quoted: [],
    status: left === 0 ? 'reconciled' : 'unreconciled',
    outstandingCents: left,
    issuedOn: r.date,
    postedOn: null,
    dueOn: r.date,
    direction: net > 0 ? 'in' : 'out',
    payableStatuses: PAYABLE.journal,
  };
}

/** A journal's net on one account; migration 11's journal_lines_account_journal serves the join. */
export const JOURNAL_NET = `SELECT j.id AS id, j.date AS date, j.memo AS memo, j.source_kind AS source_kind,
  SUM(l.debit_cents) - SUM(l.credit_cents) AS net
  FROM journals j JOIN journal_lines l ON l.org_id = j.org_id AND l.journal_id = j.id
  WHERE j.org_id = ? AND l.account_code = ?`;

async function journalOnBank(q: Queryable, orgId: string, id: string, bankAccount: string): Promise<Target> {
  const exists = await q.get('SELECT id FROM journals WHERE org_id = ? AND id = ?', [orgId, id]);
  if (!exists) throw notFound('journal', id);
  const r = await q.get<JournalRow>(`${JOURNAL_NET} AND j.id = ? GROUP BY j.id, j.date, j.memo, j.source_kind`, [orgId, bankAccount, id]);
  if (!r || Number(r.net) === 0) throw badRequest(`target.id: journal ${id} posts nothing to bank account ${bankAccount}`);
  if ((RECODE_SOURCES as readonly string[]).includes(r.source_kind) && !(await recodedToHere(q, orgId, id, bankAccount))) {
    throw badRequest(`target.id: journal ${id} recodes a bank line; it is that line's own posting`);
  }
  return journalTarget(r, (await matchedOnJournals(q, orgId, [id])).get(id) ?? 0);
}

/**
 * A recode journal is a bank posting of another account when it codes a line of one bank account
 * to this one (a transfer seen on one side only); the other side's line matches
 * it. Only the line's current recode counts (a recode replaced by another is reversed).
 */
const RECODED_TO_HERE = `EXISTS (SELECT 1 FROM bank_feed_lines b WHERE b.org_id = j.org_id AND b.id = j.source_id
  AND b.account_code <> ? AND b.status = 'recoded' AND b.recode_journal_id = j.id)`;

async function recodedToHere(q: Queryable, orgId: string, id: string, bankAccount: string): Promise<boolean> {
  const row = await q.get(`SELECT j.id FROM journals j WHERE j.org_id = ? AND j.id = ? AND ${RECODED_TO_HERE}`, [orgId, id, bankAccount]);
  return row !== undefined;
}

/** The target of a match, with what it still owes; NOT_FOUND when not this organisation's. */
export async function loadTarget(q: Queryable, orgId: string, kind: TargetKind, id: string, bankAccount: string): Promise<Target> {
  if (kind === 'invoice') return invoiceTarget(q, orgId, id);
  if (kind === 'bill') return billTarget(q, orgId, id);
  if (kind === 'claim') return claimTarget(q, orgId, id);
  return journalOnBank(q, orgId, id, bankAccount);
}

/**
 * Bank postings between two dates that bank lines do not yet account for in full: payments
 * recorded directly against invoices, payment runs, manual journals. Recode journals are
 * excluded (their line is their match).
 */
export async function unreconciledJournals(q: Queryable, orgId: string, bankAccount: string, from: string, to: string): Promise<Target[]> {
  const rows = await q.all<JournalRow>(
    `${JOURNAL_NET} AND j.date >= ? AND j.date <= ? AND (j.source_kind NOT IN (?, ?) OR ${RECODED_TO_HERE})
     GROUP BY j.id, j.date, j.memo, j.source_kind ORDER BY j.date, j.id`,
    [orgId, bankAccount, from, to, ...RECODE_SOURCES, bankAccount],
  );
  const live = rows.filter((r) => Number(r.net) !== 0);
  const matched = await matchedOnJournals(
    q,
    orgId,
    live.map((r) => r.id),
  );
  return live.map((r) => journalTarget(r, matched.get(r.id) ?? 0)).filter((t) => t.outstandingCents > 0);
}

/**
 * unreconciledJournals for the journals `ids` alone (those the lookup found: bank-journal-words.ts),
 * in chunks of a bounded IN list; the same conditions, read for the candidates only.
 */
export async function unreconciledJournalsOf(
  q: Queryable,
  orgId: string,
  bankAccount: string,
  ids: readonly string[],
): Promise<Map<string, Target>> {
  const out = new Map<string, Target>();
  const rows = await readInParts(ids, (part) =>
    q.all<JournalRow>(
      `${JOURNAL_NET} AND j.id IN (${placeholders(part.length)}) AND (j.source_kind NOT IN (?, ?) OR ${RECODED_TO_HERE})
       GROUP BY j.id, j.date, j.memo, j.source_kind`,
      [orgId, bankAccount, ...part, ...RECODE_SOURCES, bankAccount],
    ),
  );
  const live = rows.filter((r) => Number(r.net) !== 0);
  const matched = await matchedOnJournals(
    q,
    orgId,
    live.map((r) => r.id),
  );
  for (const r of live) {
    const t = journalTarget(r, matched.get(r.id) ?? 0);
    if (t.outstandingCents > 0) out.set(r.id, t);
  }
  return out;
}

/**
 * The journals `open` (id to date and net on the bank account) that the kept lookup holds as not
 * matched by any line (bank-journal-words.ts state 1: what is left is the net), read by primary
 * key for what scoring shows (memo); only a recode journal is checked further, as
 * unreconciledJournals does.
 */
export async function openJournalsOf(
  q: Queryable,
  orgId: string,
  bankAccount: string,
  open: ReadonlyMap<string, { date: string; net: number }>,
): Promise<Map<string, Target>> {
  const out = new Map<string, Target>();
  const heads = new Map<string, JournalHead>();
  const unread: string[] = [];
  for (const id of open.keys()) {
    const known = journalHeads.get(`${orgId} ${id}`);
    if (known) heads.set(id, known);
    else unread.push(id);
  }
  const rows = await readInParts(unread, (part) =>
    q.all<{ id: string } & JournalHead>(
      `SELECT id, memo, source_kind FROM journals WHERE org_id = ? AND id IN (${placeholders(part.length)})`,
      [orgId, ...part],
    ),
  );
  for (const r of rows) {
    const head = { memo: r.memo, source_kind: r.source_kind };
    heads.set(r.id, head);
    if (journalHeads.size >= JOURNAL_HEADS_MAX) journalHeads.clear();
    journalHeads.set(`${orgId} ${r.id}`, head);
  }
  for (const [id, head] of heads) {
    const kept = open.get(id);
    if (!kept || kept.net === 0) continue;
    if ((RECODE_SOURCES as readonly string[]).includes(head.source_kind) && !(await recodedToHere(q, orgId, id, bankAccount))) continue;
    out.set(id, journalTarget({ id, date: kept.date, memo: head.memo, source_kind: head.source_kind, net: kept.net }, 0));
  }
  return out;
}

/** What a journal says of itself beside its lines: set when posted, never changed. */
interface JournalHead {
  readonly memo: string;
  readonly source_kind: string;
}

/**
 * Journal heads read by openJournalsOf, by organisation and id, across requests: a journal's memo
 * and source never change, and the same postings are candidates for page after page of lines.
 * Bounded: cleared when full.
 */
const journalHeads = new Map<string, JournalHead>();
const JOURNAL_HEADS_MAX = 100_000;
