import { invariant } from '../../errors.js';
import type { Migration } from '../../storage/migration-types.js';
import type { Queryable, SqlValue, Tx, Writer } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';

/**
 * The statement of cash flows' movements per day and line (cash-flow.ts), kept with the journals
 * like the account totals per day (gl/day-totals.ts), so the report sums days × lines of its
 * period instead of classifying every cash journal of it.
 *
 * Every journal is classified by one SQL text (classifySql) over its lines: the batch's journals
 * before COMMIT, from their lines as parameters (postJournal hands them over); an organisation's
 * stored lines to rebuild it; every organisation's by migration 63. One text, so kept rows and a
 * rebuild cannot disagree on a rule, and the same accounts table decides both.
 *
 * What can change after posting: which accounts are cash, by an asset account's reconcilable flag
 * (accountUpdate then rebuilds the organisation's rows before the batch commits: a rare edit
 * paying one pass over the lines so every report stays a sum of kept rows). Nothing else the
 * classification reads does: journals, lines and dates are fixed; roles (system_key) are set with
 * the chart; an account's type cannot change once it has postings; a bank account record only
 * adopts 1000 (cash already) or comes with a new account.
 */
export type CashFlowSection = 'operating' | 'investing' | 'financing';

interface LineDef {
  readonly key: string;
  readonly section: CashFlowSection;
  readonly label: string;
  /** Chart roles (accounts.system_key) whose lines are this line's. */
  readonly roles: readonly string[];
}

/** In statement order. */
export const CASH_FLOW_LINES: readonly LineDef[] = [
  { key: 'customers', section: 'operating', label: 'Receipts from customers', roles: ['receivables', 'sales'] },
  {
    key: 'suppliers',
    section: 'operating',
    label: 'Payments to suppliers',
    roles: ['payables', 'claims_payable', 'cost_of_sales', 'general_expenses', 'bank_fees', 'bad_debts'],
  },
  {
    key: 'employees',
    section: 'operating',
    label: 'Payments to employees (net wages)',
    roles: ['wages_payable', 'wages', 'leave_expense', 'leave_provision'],
  },
  { key: 'super', section: 'operating', label: 'Superannuation paid', roles: ['super_payable', 'super_expense'] },
  {
    key: 'ato',
    section: 'operating',
    label: 'Paid to (refunded by) the ATO: GST and PAYG withholding',
    roles: ['ato_clearing', 'payg_withholding'],
  },
  { key: 'interest', section: 'operating', label: 'Interest received', roles: ['interest_income'] },
  // An exchange difference realised on a foreign payment is part of that cash; it is shown here, not split
  // back between customers and suppliers.
  { key: 'other_operating', section: 'operating', label: 'Other operating receipts', roles: ['other_income', 'fx_gain_loss'] },
  {
    key: 'plant_and_equipment',
    section: 'investing',
    label: 'Plant and equipment bought and sold',
    roles: ['fixed_assets', 'accumulated_depreciation', 'depreciation', 'asset_disposal_gain', 'asset_disposal_loss'],
  },
  { key: 'other_assets', section: 'investing', label: 'Other assets bought and sold', roles: [] },
  { key: 'owner', section: 'financing', label: "Owner's capital and drawings", roles: ['equity', 'retained_earnings'] },
  { key: 'borrowings', section: 'financing', label: 'Loans and other liabilities', roles: [] },
];

/** Roles that are cash (1000 Business bank account, 1300 Bank clearing). */
export const CASH_ROLES: readonly string[] = ['bank', 'clearing'];
/** Roles folded into the journal's other lines (GST paid, GST collected). */
export const GST_ROLES: readonly string[] = ['gst_paid', 'gst_collected'];
const GST = 'gst';
const CASH = 'cash';
const ALONE = 'ato';
export const OPENING_BALANCES_SOURCE = 'opening_balances';

/** The lines' keys and roles are written into SQL as literals: plain identifiers only. */
const sqlWord = (s: string): string => {
  invariant(/^[a-z_]+$/.test(s), `cash flow SQL word ${s} is an identifier`);
  return `'${s}'`;
};

export const IS_CASH = `a.type = 'asset' AND (a.system_key IN (${CASH_ROLES.map(sqlWord).join(', ')}) OR b.kind = 'bank' OR a.reconcilable = 1)`;

/**
 * The line of a non-cash account: by role; else a credit card record is how suppliers are paid;
 * else by type: revenue from customers, expenses to suppliers, other assets investing, other
 * liabilities (loans and what the owner added) and equity financing.
 */
const LINE_OF_ACCOUNT = `CASE
    WHEN a.system_key IN (${GST_ROLES.map(sqlWord).join(', ')}) THEN ${sqlWord(GST)}
    ${CASH_FLOW_LINES.filter((l) => l.roles.length > 0)
      .map((l) => `WHEN a.system_key IN (${l.roles.map(sqlWord).join(', ')}) THEN ${sqlWord(l.key)}`)
      .join('\n    ')}
    WHEN b.kind = 'card' THEN ${sqlWord('suppliers')}
    WHEN a.type = 'revenue' THEN ${sqlWord('customers')}
    WHEN a.type = 'expense' THEN ${sqlWord('suppliers')}
    WHEN a.type = 'asset' THEN ${sqlWord('other_assets')}
    WHEN a.type = 'liability' THEN ${sqlWord('borrowings')}
    ELSE ${sqlWord('owner')}
  END`;

/**
 * The cash of the journals' lines `source` gives (org_id, journal_id, date, source_kind,
 * account_code, debit_cents, credit_cents), per organisation, date and line of the statement.
 * Cash is the lines on cash accounts (debit − credit); the journal's other
 * lines are summed per line of the statement as cash (credit − debit), GST folded into the others.
 * A journal whose cash nets to nothing (a transfer between cash accounts) is no flow; the
 * conversion journal (books.openingBalances) is carried in, not a flow.
 *
 * The cash goes to the lines moving the same way as the cash (money in: the credits; money out:
 * the debits): to that line when there is one; pro rata by their amounts when there are several,
 * in exact cents by the largest remainder (ties: the earlier line); to the line moving most when
 * none moves the same way (the earliest of equals); to the ATO when GST is all there is (GST
 * settled straight with the ATO). Lines moving the other way in the same journal are accruals
 * inside it (a pay run paid from the bank credits PAYG and super payable), not cash.
 *
 * The one-line cases are the pro rata with one weight; "moving most" is the pro rata with weight
 * 1 on that line. Products cash × amount are NUMERIC so that PostgreSQL does not overflow BIGINT
 * on large amounts; share = (p − p mod sum) ÷ sum is whole on both engines.
 */
function classifySql(source: string): string {
  const same = `cat NOT IN ('${CASH}', '${GST}') AND ((amt > 0 AND cash > 0) OR (amt < 0 AND cash < 0))`;
  const journal = 'PARTITION BY org_id, journal_id';
  return `WITH jl AS (
    SELECT l.org_id AS org_id, l.journal_id AS journal_id, l.date AS date,
      CASE WHEN ${IS_CASH} THEN '${CASH}' ELSE ${LINE_OF_ACCOUNT} END AS cat,
      SUM(l.credit_cents - l.debit_cents) AS amt
    FROM (${source}) l
    JOIN accounts a ON a.org_id = l.org_id AND a.code = l.account_code
    LEFT JOIN bank_accounts b ON b.org_id = l.org_id AND b.account_code = l.account_code
    WHERE l.source_kind <> '${OPENING_BALANCES_SOURCE}'
    GROUP BY l.org_id, l.journal_id, l.date, cat
  ), jw AS (
    SELECT org_id, journal_id, date, cat, amt,
      SUM(CASE WHEN cat = '${CASH}' THEN -amt ELSE 0 END) OVER (${journal}) AS cash
    FROM jl
  ), jx AS (
    SELECT org_id, journal_id, date, cat, amt, cash,
      SUM(CASE WHEN ${same} THEN 1 ELSE 0 END) OVER (${journal}) AS nsame,
      SUM(CASE WHEN cat NOT IN ('${CASH}', '${GST}') AND amt <> 0 THEN 1 ELSE 0 END) OVER (${journal}) AS nother,
      CASE WHEN ${same} THEN 1 ELSE 0 END AS issame,
      ROW_NUMBER() OVER (${journal} ORDER BY CASE WHEN cat IN ('${CASH}', '${GST}') OR amt = 0 THEN 1 ELSE 0 END,
        CASE WHEN amt < 0 THEN -amt ELSE amt END DESC, cat) AS most
    FROM jw WHERE cash <> 0
  ), jp AS (
    SELECT org_id, journal_id, date, cat, cash,
      CASE WHEN nsame > 0 THEN issame * (CASE WHEN amt < 0 THEN -amt ELSE amt END)
        WHEN most = 1 THEN 1 ELSE 0 END AS w
    FROM jx WHERE nother > 0 AND cat NOT IN ('${CASH}', '${GST}') AND amt <> 0
  ), js AS (
    SELECT org_id, journal_id, date, cat, cash, w, SUM(w) OVER (${journal}) AS sumw,
      CAST(CASE WHEN cash < 0 THEN -cash ELSE cash END AS NUMERIC) * w AS p
    FROM jp WHERE w > 0
  ), jr AS (
    SELECT org_id, journal_id, date, cat, cash, (p - p % sumw) / sumw AS share, p % sumw AS rest FROM js
  ), jq AS (
    SELECT org_id, date, cat, cash, share,
      (CASE WHEN cash < 0 THEN -cash ELSE cash END) - SUM(share) OVER (${journal}) AS leftover,
      ROW_NUMBER() OVER (${journal} ORDER BY rest DESC, cat) AS rk
    FROM jr
  ), flows AS (
    SELECT org_id, date, cat AS line,
      CAST((CASE WHEN cash < 0 THEN -1 ELSE 1 END) * (share + CASE WHEN rk <= leftover THEN 1 ELSE 0 END) AS BIGINT) AS amount
    FROM jq
    UNION ALL
    SELECT org_id, date, '${ALONE}' AS line, cash AS amount FROM jx WHERE cat = '${CASH}' AND nother = 0
  )`;
}

/** The stored lines of the journals `scope` selects (a condition on journals j). */
const storedLines = (scope: string) => `SELECT j.org_id AS org_id, j.id AS journal_id, j.date AS date, j.source_kind AS source_kind,
    l.account_code AS account_code, l.debit_cents AS debit_cents, l.credit_cents AS credit_cents
  FROM journals j JOIN journal_lines l ON l.org_id = j.org_id AND l.journal_id = j.id
  WHERE ${scope}`;

/**
 * Lines given as parameters, seven a line, in storedLines' columns: a batch's journals before
 * COMMIT. Reading no table the batch's write-out writes, the statement joins that write-out on
 * PostgreSQL (one combined statement, storage/postgres.ts) instead of a round trip after it.
 */
const givenLines = (n: number) => `SELECT column1 AS org_id, column2 AS journal_id, column3 AS date, column4 AS source_kind,
    column5 AS account_code, CAST(column6 AS BIGINT) AS debit_cents, CAST(column7 AS BIGINT) AS credit_cents
  FROM (VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}) v`;

/** Insert the flows of the lines `source` gives, adding to rows already kept (WHERE 1 = 1: SQLite's upsert after a SELECT). */
function addSql(source: string): string {
  return `INSERT INTO cash_flow_day_totals (org_id, date, line, amount_cents)
  ${classifySql(source)}
  SELECT org_id, date, line, SUM(amount) FROM flows WHERE 1 = 1 GROUP BY org_id, date, line
  ON CONFLICT (org_id, date, line) DO UPDATE SET amount_cents = cash_flow_day_totals.amount_cents + excluded.amount_cents`;
}

/** An organisation's rows from its lines; after DELETE_ORG_SQL. Parameters: org. */
export const REBUILD_ORG_SQL = addSql(storedLines('j.org_id = ?'));
export const DELETE_ORG_SQL = 'DELETE FROM cash_flow_day_totals WHERE org_id = ?';

export const migration: Migration = {
  id: 63,
  name: 'reports: cash flow per day and line',
  statements: [
    `CREATE TABLE cash_flow_day_totals (
      org_id TEXT NOT NULL,
      date TEXT NOT NULL,
      line TEXT NOT NULL,
      amount_cents BIGINT NOT NULL,
      PRIMARY KEY (org_id, date, line)
    )`,
    // A period's sums from the index alone.
    'CREATE INDEX cash_flow_day_totals_sums ON cash_flow_day_totals (org_id, date, line, amount_cents)',
    // Organisations already on the books: their rows from the lines, as the report read them.
    addSql(storedLines('1 = 1')),
  ],
};

/** A posted journal's lines, as givenLines takes them. */
export interface PostedLines {
  readonly id: string;
  readonly date: string;
  readonly sourceKind: string;
  readonly lines: readonly { readonly accountCode: string; readonly debitCents: number; readonly creditCents: number }[];
}

interface Pending {
  readonly journals: Map<string, PostedLines>;
  rebuild: boolean;
}

/** Lines per statement when a batch's journals are added (seven parameters each). */
const LINES_PER_STATEMENT = 1_000;

const memoKey = (orgId: string) => `cash-flow-days:${orgId}`;

/**
 * The batch's share for an organisation, written out by an early before-COMMIT hook: ahead of the
 * events and the head, so that on PostgreSQL its one statement joins the batch's combined
 * write-out (it reads only accounts, not the lines queued beside it). Not a statement per
 * journal: each would name the table the one before it wrote and cut the write-out into a
 * statement per journal.
 */
function pending(tx: Tx, orgId: string): Pending {
  const key = memoKey(orgId);
  const known = tx.batch.memo.get(key) as Pending | undefined;
  if (known) return known;
  const p: Pending = { journals: new Map(), rebuild: false };
  tx.batch.memo.set(key, p);
  // Early: the rows join the batch's combined write-out, ahead of the head's update (sent alone).
  tx.batch.beforeCommit((q) => writeKeptCashFlow(tx, q, orgId), { early: true });
  return p;
}

/** Queue the batch's cash flow rows for an organisation, once (the share leaves the memo). */
async function writeKeptCashFlow(tx: Tx, q: Writer, orgId: string): Promise<void> {
  const key = memoKey(orgId);
  const p = tx.batch.memo.get(key) as Pending | undefined;
  if (p === undefined) return;
  tx.batch.memo.delete(key);
  // The rebuild reads every journal's stored lines, this batch's too.
  if (p.rebuild) {
    await rebuildCashFlowDays(q, orgId);
    return;
  }
  let part: SqlValue[] = [];
  const send = async () => {
    if (part.length > 0) await q.later(addSql(givenLines(part.length / 7)), part);
    part = [];
  };
  for (const j of p.journals.values()) {
    // A journal's lines stay in one statement: it is classified as a whole.
    if (part.length / 7 + j.lines.length > LINES_PER_STATEMENT) await send();
    for (const l of j.lines) part.push(orgId, j.id, j.date, j.sourceKind, l.accountCode, l.debitCents, l.creditCents);
  }
  await send();
}

/**
 * A posted journal's flows are added before the batch commits (postJournal, with its lines); if
 * the unit fails, its journal is taken out again with its rows.
 */
export function addJournalCashFlow(uow: Pick<Uow, 'tx' | 'orgId' | 'onUndo'>, journal: PostedLines): void {
  const journals = pending(uow.tx, uow.orgId).journals;
  journals.set(journal.id, journal);
  uow.onUndo(() => journals.delete(journal.id));
}

/**
 * What is cash may have changed for journals already posted (an account's reconcilable flag): the
 * organisation's rows are rebuilt from the stored lines before the batch commits, after
 * everything else it wrote.
 */
export function rebuildCashFlowBeforeCommit(tx: Tx, orgId: string): void {
  pending(tx, orgId).rebuild = true;
}

/** Recompute one organisation's rows (account edits that change what is cash; the benchmark's seeding; tests). */
export async function rebuildCashFlowDays(q: Queryable, orgId: string): Promise<void> {
  await q.run(DELETE_ORG_SQL, [orgId]);
  await q.run(REBUILD_ORG_SQL, [orgId]);
}

export interface CashFlowDay {
  date: string;
  line: string;
  amount: number;
}

const rowsOf = (rows: { date: string; line: string; amount: unknown }[]): CashFlowDay[] =>
  rows.map((r) => ({ date: r.date, line: r.line, amount: Number(r.amount) })).filter((r) => r.amount !== 0);

/** The rows as the lines give them now (zero sums left out), for comparison with the kept rows (tests). */
export async function cashFlowDaysFromLines(q: Queryable, orgId: string): Promise<CashFlowDay[]> {
  return rowsOf(
    await q.all(
      `${classifySql(storedLines('j.org_id = ?'))}
      SELECT date, line, SUM(amount) AS amount FROM flows GROUP BY date, line ORDER BY date, line`,
      [orgId],
    ),
  );
}

/** The kept rows, in the same shape and order as cashFlowDaysFromLines. */
export async function keptCashFlowDays(q: Queryable, orgId: string): Promise<CashFlowDay[]> {
  return rowsOf(
    await q.all(`SELECT date, line, amount_cents AS amount FROM cash_flow_day_totals WHERE org_id = ? ORDER BY date, line`, [orgId]),
  );
}
