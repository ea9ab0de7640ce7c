import { addDays } from '../../clock.js';
import { limits } from '@finance-desk/protocol';
import { badRequest } from '../../errors.js';
import type { Queryable, SqlValue } from '../../storage/types.js';
import { loadChart, normalBalance, readConsistently } from './ledger-totals.js';
import type { TrackedFilter } from './statements.js';
import { trackingNamer } from '../tracking/store.js';

/**
 * The general ledger of one account over from..to: opening balance, each posted line with a
 * running balance, closing balance. Lines are in (date, journal id, line no) order and paged by
 * a keyset cursor `<lineNo>-<journalId>`, so a page never repeats or skips a line.
 *
 * Cost: a page reads its limit + 1 lines from the account's lines joined to their journals
 * (journal_lines_account_journal gives the account's lines, journals' primary key their dates),
 * plus three sums over the account's lines through the same index (opening, period, before the
 * cursor) that touch no other account. The running balance is recomputed from the ledger on
 * every page rather than carried in the cursor, so a forged cursor cannot forge a balance.
 */
export interface AccountTransactionsParams {
  readonly accountCode: string;
  readonly from: string;
  readonly to: string;
  readonly cursor?: string | undefined;
  readonly limit?: number | undefined;
}

interface LineRow {
  date: string;
  journal_id: string;
  memo: string;
  source_kind: string;
  source_id: string;
  line_no: unknown;
  description: string;
  debit_cents: unknown;
  credit_cents: unknown;
  tracking1: string | null;
  tracking2: string | null;
}

/** The keyset of one line: after (date, journal id, line no). */
const ZERO = { debitCents: 0, creditCents: 0 };

interface Position {
  readonly date: string;
  readonly journalId: string;
  readonly lineNo: number;
}

const AFTER = '(j.date > ? OR (j.date = ? AND (j.id > ? OR (j.id = ? AND l.line_no > ?))))';
const afterArgs = (at: Position): SqlValue[] => [at.date, at.date, at.journalId, at.journalId, at.lineNo];

/**
 * One page of an account's lines from..to (parameters: orgId, accountCode, from, to, then the
 * AFTER keyset when paging). Journals drive the join in date order through journals_date
 * (SQLite: CROSS JOIN keeps that order; each journal's lines on the account are then a lookup
 * in journal_lines_account_journal), so a page stops after its limit + 1 lines instead of
 * sorting every line the account ever had. `lineFilter` (a tracking filter on l) comes last, its
 * parameters after the keyset's.
 */
export function pageSql(paged: boolean, limit: number, lineFilter = ''): string {
  return `SELECT j.date, j.id AS journal_id, j.memo, j.source_kind, j.source_id, l.line_no, l.description,
      l.debit_cents, l.credit_cents, l.tracking1, l.tracking2
    FROM journals j CROSS JOIN journal_lines l
    WHERE j.org_id = ? AND l.org_id = j.org_id AND l.journal_id = j.id AND l.account_code = ?
      AND j.date >= ? AND j.date <= ?${paged ? ` AND ${AFTER}` : ''}${lineFilter}
    ORDER BY j.date, j.id, l.line_no LIMIT ${limit}`;
}

/**
 * Debits and credits of the account over the journals a condition on j picks: the journals as a
 * set the lines are probed against (ledger-totals.ts JOURNALS_IN_RANGE explains why not a join).
 * Parameters: orgId, accountCode, orgId, then the condition's.
 */
export const accountSumSql = (journals: string, lineFilter = '') => `SELECT SUM(l.debit_cents) AS dr, SUM(l.credit_cents) AS cr
  FROM journal_lines l WHERE l.org_id = ? AND l.account_code = ?
    AND l.journal_id IN (SELECT j.id FROM journals j WHERE j.org_id = ? AND ${journals})${lineFilter}`;

const cursorJournalSumSql = (lineFilter = '') => `SELECT SUM(l.debit_cents) AS dr, SUM(l.credit_cents) AS cr
  FROM journal_lines l WHERE l.org_id = ? AND l.account_code = ? AND l.journal_id = ? AND l.line_no <= ?${lineFilter}`;

/** The lines of the cursor's own journal up to its line (parameters: orgId, accountCode, journalId, lineNo). */
export const CURSOR_JOURNAL_SUM_SQL = cursorJournalSumSql();

/**
 * The account's sums over whole days from its totals per day (gl/day-totals.ts): the opening
 * balance and the period's totals without reading the lines before or in the period. Parameters:
 * orgId, accountCode, from, to.
 */
export const DAY_SUM_SQL = `SELECT SUM(t.debit_cents) AS dr, SUM(t.credit_cents) AS cr FROM account_day_totals t
  WHERE t.org_id = ? AND t.account_code = ? AND t.date >= ? AND t.date <= ?`;

async function sum(q: Queryable, sql: string, args: readonly SqlValue[]) {
  const r = await q.get<{ dr: unknown; cr: unknown }>(sql, args);
  return { debitCents: Number(r?.dr ?? 0), creditCents: Number(r?.cr ?? 0) };
}

/** Whole days of the period before the cursor's day, then its day's journals ordered before its journal. */
async function beforeOnDays(q: Queryable, orgId: string, code: string, from: string, at: Position) {
  const days = await sum(q, DAY_SUM_SQL, [orgId, code, from, addDays(at.date, -1)]);
  const sameDay = await sum(q, accountSumSql('j.date = ? AND j.id < ?'), [orgId, code, orgId, at.date, at.journalId]);
  return { debitCents: days.debitCents + sameDay.debitCents, creditCents: days.creditCents + sameDay.creditCents };
}

async function cursorPosition(q: Queryable, orgId: string, cursor: string): Promise<Position> {
  const dash = cursor.indexOf('-');
  const lineNo = Number(cursor.slice(0, dash));
  const journalId = cursor.slice(dash + 1);
  const at = await q.get<{ date: string }>('SELECT date FROM journals WHERE org_id = ? AND id = ?', [orgId, journalId]);
  if (!at) throw badRequest(`cursor: no journal ${journalId} in this organisation`);
  return { date: at.date, journalId, lineNo };
}

/**
 * With a tracking filter every figure is of the option's lines (or the unassigned ones): the
 * opening balance, the running balance, the totals and the closing balance.
 */
export async function accountTransactions(q: Queryable, orgId: string, p: AccountTransactionsParams, filter?: TrackedFilter) {
  const f = filter?.sql ?? '';
  const fa = filter?.args ?? [];
  const limit = p.limit ?? limits.pageRowsDefault;
  const chart = await loadChart(q, orgId);
  const account = chart.find((a) => a.code === p.accountCode);
  // An account that is not in the chart is a bad value, not an empty ledger.
  if (account === undefined) throw badRequest(`accountCode: account ${p.accountCode} is not in the chart`);
  const code = account.code;
  const at = p.cursor === undefined ? undefined : await cursorPosition(q, orgId, p.cursor);
  // A cursor from another period would make the running balance wrong, not merely the page.
  if (at !== undefined && (at.date < p.from || at.date > p.to)) {
    throw badRequest(`cursor: journal ${at.journalId} is not in ${p.from}..${p.to}`);
  }

  const { opening, period, before, rows } = await readConsistently(q, orgId, async (q) => {
    const inPeriod = 'j.date >= ? AND j.date <= ?';
    // Unfiltered, whole days come from the totals per day; a tracking filter needs the lines.
    const days = f === '';
    const [o, t, b, c, r] = await Promise.all([
      days
        ? sum(q, DAY_SUM_SQL, [orgId, code, '0000-01-01', addDays(p.from, -1)])
        : sum(q, accountSumSql('j.date < ?', f), [orgId, code, orgId, p.from, ...fa]),
      days
        ? sum(q, DAY_SUM_SQL, [orgId, code, p.from, p.to])
        : sum(q, accountSumSql(inPeriod, f), [orgId, code, orgId, p.from, p.to, ...fa]),
      // Before the cursor: whole journals ordered before its journal, then its own lines up to it.
      at === undefined
        ? ZERO
        : days
          ? beforeOnDays(q, orgId, code, p.from, at)
          : sum(q, accountSumSql(`${inPeriod} AND (j.date < ? OR (j.date = ? AND j.id < ?))`, f), [
              orgId,
              code,
              orgId,
              p.from,
              p.to,
              at.date,
              at.date,
              at.journalId,
              ...fa,
            ]),
      at === undefined ? ZERO : sum(q, cursorJournalSumSql(f), [orgId, code, at.journalId, at.lineNo, ...fa]),
      q.all<LineRow>(pageSql(at !== undefined, limit + 1, f), [
        orgId,
        code,
        p.from,
        p.to,
        ...(at === undefined ? [] : afterArgs(at)),
        ...fa,
      ]),
    ]);
    return {
      opening: o,
      period: t,
      before: { debitCents: b.debitCents + c.debitCents, creditCents: b.creditCents + c.creditCents },
      rows: r,
    };
  });

  const openingBalanceCents = normalBalance(account.type, opening);
  let balance = openingBalanceCents + normalBalance(account.type, before);
  const page = rows.slice(0, limit);
  const named = await trackingNamer(q, orgId, page);
  const lines = page.map((r) => {
    const debitCents = Number(r.debit_cents);
    const creditCents = Number(r.credit_cents);
    balance += normalBalance(account.type, { debitCents, creditCents });
    const tracking = named(r);
    return {
      date: r.date,
      journalId: r.journal_id,
      lineNo: Number(r.line_no),
      source: { kind: r.source_kind, id: r.source_id },
      memo: r.memo,
      description: r.description,
      debitCents,
      creditCents,
      balanceCents: balance,
      ...(tracking ? { tracking } : {}),
    };
  });
  const last = lines.at(-1);
  return {
    type: 'account_transactions' as const,
    from: p.from,
    to: p.to,
    account: { code: account.code, name: account.name, type: account.type },
    openingBalanceCents,
    lines,
    closingBalanceCents: openingBalanceCents + normalBalance(account.type, period),
    totals: period,
    nextCursor: rows.length > limit && last !== undefined ? `${last.lineNo}-${last.journalId}` : null,
    ...(filter === undefined ? {} : { tracking: filter.echo }),
  };
}
