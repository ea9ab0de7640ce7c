import { journalLinesSha256, type JournalLineForm, type TaxCode } from '@finance-desk/protocol';
import { invariant } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Queryable, SqlValue } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { CHART } from './chart.js';
import { addJournalCashFlow } from '../reports/cash-flow-days.js';
import { ADD_GST_DAY_SQL, gstDayRows } from '../reports/gst-days.js';
import { ADD_DAY_TOTAL_SQL } from './day-totals.js';
import { placeholders, readInParts } from '../../storage/sql.js';
import { checkPostable } from './periods.js';
import { addMovements, movementsOf } from './document-balances.js';
import { indexBankJournal } from '../reconciliation/bank-journal-words.js';

/**
 * Posting to the general ledger. Every act that moves money calls `postJournal` inside its unit
 * of work, before its event: the event binds the journal's lines (its payload's `journals`, a
 * digest of the lines: protocol bindings.ts), and the journal, written once the event is chained,
 * records the event's ledgerId. Debits equal credits or the whole transaction fails: an
 * unbalanced posting is a broken invariant, surfaced as a logged INTERNAL, never silently fixed.
 */
export interface PostingLine {
  /** An account code (`6000`) or a chart role (`{ key: 'receivables' }`). */
  readonly account: string | { readonly key: string };
  readonly debitCents?: number;
  readonly creditCents?: number;
  readonly taxCode?: TaxCode | null;
  /** GST-inclusive amount of the supply this line carries (BAS G-labels), signed. */
  readonly taxBaseCents?: number;
  readonly gstCents?: number;
  readonly description?: string;
  /**
   * The document a control-account line belongs to (invoice, bill or claim id). Receivables,
   * payables and claims balances per document — and so aged reports as at any date — are sums
   * of their control account's lines grouped by doc_id.
   */
  readonly docId?: string | null;
  /** Tracking option ids (books.trackingSet) of category slots 1 and 2: reports filter by them. */
  readonly tracking1?: string | null;
  readonly tracking2?: string | null;
}

/** A line's tracking option ids by slot, as lines carry them from input to posting. */
export interface LineTracking {
  readonly tracking1?: string | null;
  readonly tracking2?: string | null;
}

/** The tracking a line carries, as fields to spread onto a posting line (nothing when none). */
export function trackingFields(t: LineTracking | undefined): LineTracking {
  if (t === undefined) return {};
  return {
    ...(t.tracking1 != null ? { tracking1: t.tracking1 } : {}),
    ...(t.tracking2 != null ? { tracking2: t.tracking2 } : {}),
  };
}

export interface JournalInput {
  readonly id?: string;
  readonly date: string;
  readonly memo: string;
  readonly source: { readonly kind: string; readonly id: string };
  readonly lines: readonly PostingLine[];
  /** The param that set `date`, named if it falls in a locked period (default `date`). */
  readonly dateField?: string;
}

const BY_KEY = new Map(CHART.filter((a) => a.key).map((a) => [a.key, a.code]));

export function accountOf(account: PostingLine['account']): string {
  if (typeof account === 'string') return account;
  const code = BY_KEY.get(account.key);
  invariant(code, `chart has an account for role ${account.key}`);
  return code;
}

/** Reserve a journal id before the event, so the event payload can name it. */
export function newJournalId(): string {
  return newId('jnl');
}

export function isBalanced(lines: readonly PostingLine[]): boolean {
  let dr = 0;
  let cr = 0;
  for (const l of lines) {
    dr += l.debitCents ?? 0;
    cr += l.creditCents ?? 0;
  }
  return dr === cr && dr > 0;
}

/** A posted journal: its id, total debits and its lines as stored (what its binding's digest covers). */
export interface PostedJournal {
  readonly id: string;
  readonly totalCents: number;
  readonly lines: readonly JournalLineForm[];
}

/**
 * Post a journal with the unit's event, which must not have been emitted yet: the lines are
 * checked and bound into the event now (Uow.bindJournal), and written when the event is chained,
 * with its ledgerId. The digest is one canonical JSON and one SHA-256 over the rows about to be
 * written, no statement.
 */
export function postJournal(uow: Uow, input: JournalInput): Promise<PostedJournal> {
  const id = input.id ?? newJournalId();
  const lines = input.lines.filter((l) => (l.debitCents ?? 0) !== 0 || (l.creditCents ?? 0) !== 0);
  let total = 0;
  for (const l of lines) {
    const dr = l.debitCents ?? 0;
    const cr = l.creditCents ?? 0;
    invariant(Number.isSafeInteger(dr) && Number.isSafeInteger(cr), 'amounts are safe integers');
    invariant(dr >= 0 && cr >= 0 && (dr === 0) !== (cr === 0), 'a line is a debit or a credit, positive');
    total += dr;
  }
  invariant(isBalanced(lines), `journal ${id} balances (debits equal credits)`);
  // The backstop of the lock date (periods.ts): entry points check their own dates first.
  checkPostable(uow, input.date, input.dateField ?? 'date');
  // The rows as stored, in line order: what the binding's digest covers.
  const rows: JournalLineForm[] = lines.map((l) => ({
    accountCode: accountOf(l.account),
    debitCents: l.debitCents ?? 0,
    creditCents: l.creditCents ?? 0,
    taxCode: l.taxCode ?? null,
    taxBaseCents: l.taxBaseCents ?? 0,
    gstCents: l.gstCents ?? 0,
    docId: l.docId ?? null,
    description: l.description ?? input.memo,
    // Only when set: a line without tracking is the same row, and hashes the same, as before.
    ...trackingFields(l),
  }));
  uow.bindJournal({ id, date: input.date, linesSha256: journalLinesSha256(rows) }, async (ledgerId) => {
    // Queued (Tx.later): on PostgreSQL the journal and its lines leave with the unit's
    // next statement or the batch's write-out (lines of one journal as one multi-row INSERT), not on
    // a round trip each under the organisation's lock; a later read of them sends them first.
    await uow.tx.later(
      `INSERT INTO journals (org_id, id, date, memo, source_kind, source_id, ledger_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [uow.orgId, id, input.date, input.memo, input.source.kind, input.source.id, ledgerId, uow.now],
    );
    let lineNo = 0;
    for (const r of rows) {
      lineNo += 1;
      await uow.tx.later(
        `INSERT INTO journal_lines (org_id, journal_id, line_no, account_code, debit_cents, credit_cents,
           tax_code, tax_base_cents, gst_cents, description, doc_id, tracking1, tracking2)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          uow.orgId,
          id,
          lineNo,
          r.accountCode,
          r.debitCents,
          r.creditCents,
          r.taxCode,
          r.taxBaseCents,
          r.gstCents,
          r.description,
          r.docId,
          r.tracking1 ?? null,
          r.tracking2 ?? null,
        ],
      );
    }
    // The day's totals per account (day-totals.ts), in the same unit as the lines they sum.
    const perAccount = new Map<string, { dr: number; cr: number; n: number }>();
    for (const r of rows) {
      const t = perAccount.get(r.accountCode) ?? { dr: 0, cr: 0, n: 0 };
      perAccount.set(r.accountCode, { dr: t.dr + r.debitCents, cr: t.cr + r.creditCents, n: t.n + 1 });
    }
    for (const [code, t] of perAccount) {
      await uow.tx.later(ADD_DAY_TOTAL_SQL, [uow.orgId, code, input.date, t.dr, t.cr, t.n]);
    }
    // What each document now owes, with its lines (document-balances.ts).
    await addMovements(uow.tx, uow.orgId, movementsOf(rows));
    // Its cash per line of the statement of cash flows, with the batch's other journals before
    // COMMIT (reports/cash-flow-days.ts).
    addJournalCashFlow(uow, { id, date: input.date, sourceKind: input.source.kind, lines: rows });
    // And its tagged lines' GST per day and tax code (reports/gst-days.ts).
    for (const g of gstDayRows(input.source, rows)) {
      await uow.tx.later(ADD_GST_DAY_SQL, [uow.orgId, input.date, g.taxCode, g.reduces, g.base, g.gst, g.lines]);
    }
    // What of it bank lines can be matched to (reconciliation/bank-journal-words.ts).
    await indexBankJournal(uow.tx, uow.orgId, { id, date: input.date, memo: input.memo }, rows);
  });
  return Promise.resolve({ id, totalCents: total, lines: rows });
}

/**
 * One account's sums to a date from its totals per day (day-totals.ts): a range of the primary
 * key, as many rows as the account has days with postings. Parameters: orgId, account code, asOf.
 */
export const ACCOUNT_BALANCE_SQL = `SELECT SUM(t.debit_cents) AS dr, SUM(t.credit_cents) AS cr FROM account_day_totals t
  WHERE t.org_id = ? AND t.account_code = ? AND t.date <= ?`;

/**
 * The open documents of an account now (debit-positive balance, non-zero), from
 * document_balances through its partial index. Parameters: orgId, account code.
 */
export const OPEN_DOCUMENTS_SQL = `SELECT doc_id, balance_cents FROM document_balances
  WHERE org_id = ? AND account_code = ? AND balance_cents <> 0`;

/**
 * The account's lines dated after a date, with their documents: the journals after the date (a
 * range of journals_date, none for today) as a list, each journal's lines looked up on the
 * primary key (org_id, journal_id, line_no). Both `line_no > 0` (always true) and the account
 * compared as an expression are there for SQLite's planner: otherwise it walked every line of the
 * account in journal_lines_account_doc (covering, so preferred) and probed each against the list,
 * the cost of all lines again. Not grouped (GROUP BY doc_id favours that walk too): the caller
 * sums. Parameters: orgId, orgId, date, account code.
 */
export const DOCUMENT_MOVES_AFTER_SQL = `SELECT l.doc_id AS doc_id, l.debit_cents AS dr, l.credit_cents AS cr
  FROM journal_lines l
  WHERE l.org_id = ? AND l.journal_id IN (SELECT j.id FROM journals j WHERE j.org_id = ? AND j.date > ?)
    AND l.line_no > 0 AND l.account_code || '' = ?`;

/** Balance of one account (debit-positive) over all journals dated on or before `asOf`. */
export async function accountBalanceCents(q: Queryable, orgId: string, code: string, asOf = '9999-12-31'): Promise<number> {
  const row = await q.get<{ dr: number | null; cr: number | null }>(ACCOUNT_BALANCE_SQL, [orgId, code, asOf]);
  return Number(row?.dr ?? 0) - Number(row?.cr ?? 0);
}

export async function accountExists(q: Queryable, orgId: string, code: string): Promise<boolean> {
  return (await q.get('SELECT code FROM accounts WHERE org_id = ? AND code = ?', [orgId, code])) !== undefined;
}

/**
 * Check each line's account in line order with `check` (which throws for a bad one, naming line
 * i), once per code: a code that passed passes again, so many lines on one account cost one query.
 */
export async function checkEachAccountOnce(
  lines: readonly { readonly accountCode: string }[],
  check: (code: string, i: number) => Promise<void>,
): Promise<void> {
  const passed = new Set<string>();
  for (const [i, l] of lines.entries()) {
    if (passed.has(l.accountCode)) continue;
    await check(l.accountCode, i);
    passed.add(l.accountCode);
  }
}

/**
 * What is owed on each of `docIds` on a control account, over every posting to date: positive on
 * `side` (debit for what is owed to us, e.g. 1100; credit for what we owe, e.g. 2000). A document
 * with no lines on the account is absent.
 */
export async function owedOnDocuments(
  q: Queryable,
  orgId: string,
  accountCode: string,
  side: 'debit' | 'credit',
  docIds: readonly string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const rows = await readInParts(docIds, (part) =>
    q.all<{ doc_id: string; balance_cents: number }>(
      `SELECT doc_id, balance_cents FROM document_balances
       WHERE org_id = ? AND account_code = ? AND doc_id IN (${placeholders(part.length)})`,
      [orgId, accountCode, ...part],
    ),
  );
  for (const r of rows) {
    const balance = Number(r.balance_cents);
    out.set(r.doc_id, side === 'debit' ? balance : -balance);
  }
  return out;
}

/**
 * Balance per document of a control account as at a date (debit-positive), non-zero only: the
 * open documents now (document_balances) less what lines dated after `asOf` moved. A document
 * at zero now that was open at `asOf` (paid since) has no open row, so its balance then is just
 * the negative of those later lines. The cost follows the open documents and the later lines,
 * not every line the account ever had.
 */
export async function documentBalances(
  q: Queryable,
  orgId: string,
  accountCode: string,
  asOf: string,
): Promise<ReadonlyMap<string, number>> {
  const out = new Map<string, number>();
  for (const r of await q.all<{ doc_id: string; balance_cents: number }>(OPEN_DOCUMENTS_SQL, [orgId, accountCode])) {
    out.set(r.doc_id, Number(r.balance_cents));
  }
  const later = await q.all<{ doc_id: string | null; dr: number; cr: number }>(DOCUMENT_MOVES_AFTER_SQL, [orgId, orgId, asOf, accountCode]);
  for (const r of later) {
    if (r.doc_id === null) continue;
    const balance = (out.get(r.doc_id) ?? 0) - (Number(r.dr) - Number(r.cr));
    if (balance === 0) out.delete(r.doc_id);
    else out.set(r.doc_id, balance);
  }
  return out;
}

/**
 * A kind of document owed on a control account, for openDocumentRowsAsOf: its table as `d` in
 * `from` (with any joins), the `columns` to read (one of them `d.id AS id`), and a `where` over
 * them with its `params`.
 */
export interface DocumentTable {
  readonly from: string;
  readonly columns: string;
  readonly where: string;
  readonly params: readonly SqlValue[];
  /** Over the open balance rows as `b`, to narrow the rows read before any is joined (credits: no party key). */
  readonly balances?: string;
}

/**
 * The documents of one kind open on a control account as at `asOf`, each row with its balance
 * then (debit-positive), unordered: those open now in one statement (the open balances joined to
 * their documents, balances first), less what lines dated after `asOf` moved; and, only when such
 * lines named documents closed since, those documents' rows. The cost follows the open
 * documents and the later lines, in one round trip when nothing is dated after `asOf`.
 */
export async function openDocumentRowsAsOf<T extends { id: string }>(
  q: Queryable,
  orgId: string,
  accountCode: string,
  asOf: string,
  doc: DocumentTable,
): Promise<{ row: T; balance: number }[]> {
  const [now, laterLines] = await Promise.all([
    q.all<T & { fd_balance: number | string }>(
      `SELECT b.balance_cents AS fd_balance, ${doc.columns} FROM document_balances b CROSS JOIN ${doc.from}
       WHERE b.org_id = ? AND b.account_code = ? AND b.balance_cents <> 0 ${doc.balances ? `AND ${doc.balances}` : ''}
         AND d.org_id = b.org_id AND d.id = b.doc_id AND ${doc.where}`,
      [orgId, accountCode, ...doc.params],
    ),
    q.all<{ doc_id: string | null; dr: number; cr: number }>(DOCUMENT_MOVES_AFTER_SQL, [orgId, orgId, asOf, accountCode]),
  ]);
  const later = new Map<string, number>();
  for (const r of laterLines) if (r.doc_id !== null) later.set(r.doc_id, (later.get(r.doc_id) ?? 0) + Number(r.dr) - Number(r.cr));
  const out: { row: T; balance: number }[] = [];
  for (const row of now) {
    const balance = Number(row.fd_balance) - (later.get(row.id) ?? 0);
    later.delete(row.id);
    if (balance !== 0) out.push({ row, balance });
  }
  // Settled since asOf: no open row now, so the later lines alone say what was owed then.
  const closed = [...later].filter(([, moved]) => moved !== 0);
  if (closed.length > 0) {
    const rows = await readInParts(
      closed.map(([id]) => id),
      (part) =>
        q.all<T>(`SELECT ${doc.columns} FROM ${doc.from} WHERE d.org_id = ? AND ${doc.where} AND d.id IN (${placeholders(part.length)})`, [
          orgId,
          ...doc.params,
          ...part,
        ]),
    );
    for (const row of rows) out.push({ row, balance: -(later.get(row.id) ?? 0) });
  }
  return out;
}

/**
 * Rows of the documents `ids` (those documentBalances found open), in chunks of a bounded IN
 * list: `sql(list)` puts `list` (`?, ?, …`) after `IN`, `params` precede the ids. Reading only
 * the open documents, not every posted one, keeps an open-items read proportional to what it
 * returns. Unordered: callers sort.
 */
export async function rowsOfDocuments<T>(
  q: Queryable,
  sql: (list: string) => string,
  params: readonly (string | number)[],
  ids: Iterable<string>,
): Promise<T[]> {
  return readInParts([...ids], (part) => q.all<T>(sql(placeholders(part.length)), [...params, ...part]));
}

/** Order of open items: oldest first by `a`, then id (what ORDER BY due_on, id gave). */
export const byThenId =
  <T extends { id: string }>(key: (r: T) => string) =>
  (a: T, b: T): number =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
