import { invariant } from '../../errors.js';
import type { Migration } from '../../storage/migration-types.js';
import { placeholders } from '../../storage/sql.js';
import type { Queryable, Tx } from '../../storage/types.js';
import { addGstSql } from './gst-days.js';

/**
 * The statement of cash flows' movements per day and line (cash-flow.ts), kept by postJournal in
 * the journal's own queued statements like the account totals per day (gl/day-totals.ts), so the
 * report sums days × lines of its period instead of classifying every cash journal of it.
 *
 * Each journal's classification is one SQL statement, CLASSIFY_SQL, run over that journal when it
 * is posted, over an organisation to rebuild it, and over every organisation by migration 63: one
 * text, so kept rows and a rebuild cannot disagree on a rule.
 *
 * What can change after posting: which accounts are cash (an account's type or reconcilable flag,
 * a bank account record adopting an account) and an account's line by type. Journals, their lines
 * and dates never change; roles (system_key) are fixed when the chart is made. So an account edit
 * of type or reconcilable, and a bank account record put on an existing account, rebuild the
 * organisation's rows in the same unit (REBUILD_ORG_SQL): rare edits paying a full pass so every
 * report stays a sum of kept rows.
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
 * The cash of the journals `scope` selects (a condition on journals j), per organisation, date and
 * line of the statement. Cash is the lines on cash accounts (debit − credit); the journal's other
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
function classifySql(scope: string): string {
  const same = `cat NOT IN ('${CASH}', '${GST}') AND ((amt > 0 AND cash > 0) OR (amt < 0 AND cash < 0))`;
  const journal = 'PARTITION BY org_id, journal_id';
  return `WITH jl AS (
    SELECT l.org_id AS org_id, l.journal_id AS journal_id, j.date AS date,
      CASE WHEN ${IS_CASH} THEN '${CASH}' ELSE ${LINE_OF_ACCOUNT} END AS cat,
      SUM(l.credit_cents - l.debit_cents) AS amt
    FROM journals j
    JOIN journal_lines l ON l.org_id = j.org_id AND l.journal_id = j.id
    JOIN accounts a ON a.org_id = l.org_id AND a.code = l.account_code
    LEFT JOIN bank_accounts b ON b.org_id = l.org_id AND b.account_code = l.account_code
    WHERE ${scope} AND j.source_kind <> '${OPENING_BALANCES_SOURCE}'
    GROUP BY l.org_id, l.journal_id, j.date, cat
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

const COLUMNS = 'cash_flow_day_totals (org_id, date, line, amount_cents)';

/** Insert the selected journals' flows, adding to rows already kept (WHERE 1 = 1: SQLite's upsert after a SELECT). */
function addSql(scope: string): string {
  return `${classifySql(scope)}
  INSERT INTO ${COLUMNS}
  SELECT org_id, date, line, SUM(amount) FROM flows WHERE 1 = 1 GROUP BY org_id, date, line
  ON CONFLICT (org_id, date, line) DO UPDATE SET amount_cents = cash_flow_day_totals.amount_cents + excluded.amount_cents`;
}

/** Journal ids per statement when a batch's journals are added. */
const IDS_PER_STATEMENT = 500;

/** An organisation's rows from its lines; after DELETE_ORG_SQL. Parameters: org. */
export const REBUILD_ORG_SQL = addSql('j.org_id = ?');
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
    addSql('1 = 1'),
  ],
};

interface Pending {
  readonly journals: Set<string>;
  rebuild: boolean;
}

const memoKey = (orgId: string) => `cash-flow-days:${orgId}`;

/**
 * The batch's share for an organisation: its hook runs before COMMIT, after the journals it names
 * were written. It takes the share out of the memo when it runs, so a journal written later (by
 * another hook) makes a new share and a new hook; a journal of a unit rolled back is simply not
 * found. One statement per batch, not per journal: on PostgreSQL a per-journal statement reading
 * the lines just queued would cut the batch's one combined write-out into two per journal.
 */
function pending(tx: Tx, orgId: string): Pending {
  const key = memoKey(orgId);
  const known = tx.batch.memo.get(key) as Pending | undefined;
  if (known) return known;
  const p: Pending = { journals: new Set(), rebuild: false };
  tx.batch.memo.set(key, p);
  tx.batch.beforeCommit(async (q) => {
    if (tx.batch.memo.get(key) !== p) return;
    tx.batch.memo.delete(key);
    if (p.rebuild) await rebuildCashFlowDays(q, orgId);
    const ids = [...p.journals];
    for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
      const part = ids.slice(i, i + IDS_PER_STATEMENT);
      const scope = `j.org_id = ? AND j.id IN (${placeholders(part.length)})`;
      // The rebuild above read these journals already.
      if (!p.rebuild) await q.run(addSql(scope), [orgId, ...part]);
      // The GST summary's rows per day and tax code (gst-days.ts), from the same journals.
      await q.run(addGstSql(scope), [orgId, ...part]);
    }
  });
  return p;
}

/**
 * A posted journal's flows, and its GST per day and tax code, are added before the batch commits
 * (postJournal, after its lines are written).
 */
export function addJournalCashFlow(tx: Tx, orgId: string, journalId: string): void {
  pending(tx, orgId).journals.add(journalId);
}

/**
 * What is cash, or an account's line, may have changed for journals already posted (an account's
 * type or reconcilable flag; a bank account record put on an existing account): the organisation's
 * rows are rebuilt before the batch commits, after everything else it wrote.
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
      `${classifySql('j.org_id = ?')}
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
