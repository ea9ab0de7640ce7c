import { addDays } from '../../clock.js';
import { invariant } from '../../errors.js';
import { placeholders } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';
import { accountTotals, readConsistently } from './ledger-totals.js';
import { balanceSheet } from './statements.js';

/**
 * The statement of cash flows by the direct method (docs/decisions.md "The statement of cash
 * flows"). Cash is the bank accounts: 1000, bank account records of kind bank, asset accounts
 * marked reconcilable, and 1300 Bank clearing, where a transfer between two of them waits between
 * its two sides. Every journal's lines on those accounts are its cash movement, classified by the
 * journal's other lines (its counter accounts), so a transfer between cash accounts has none and is
 * not a flow. Counter accounts are put in a line by their role in the chart, else by their type.
 *
 * GST (1200, 2100) is not a line of its own: it goes with the supply it was paid or collected on,
 * the journal's other counter accounts; alone (GST settled straight with the ATO) it is tax paid to
 * or refunded by the ATO. The cash of a journal goes to the counter lines moving the same way as
 * the cash (money in: the credits; money out: the debits), pro rata by their amounts when there are
 * several, in exact cents by the largest remainder; lines moving the other way in the same journal
 * are accruals inside it (a pay run paid from the bank credits PAYG and super payable), not cash.
 *
 * Bounded: SQL sums every journal per counter line, and sums the journals whose cash goes wholly to
 * one line (nearly all of them) per line; only journals split between lines come back, a page at a
 * time, and are allocated here.
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
const OPENING_BALANCES_SOURCE = 'opening_balances';

/** The lines' keys and roles are written into SQL as literals: plain identifiers only. */
const sqlWord = (s: string): string => {
  invariant(/^[a-z_]+$/.test(s), `cash flow SQL word ${s} is an identifier`);
  return `'${s}'`;
};

const IS_CASH = `a.type = 'asset' AND (a.system_key IN (${CASH_ROLES.map(sqlWord).join(', ')}) OR b.kind = 'bank' OR a.reconcilable = 1)`;

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
 * jl: each journal dated in the period (the conversion journal aside) with a line on a cash
 * account — found from the cash accounts' lines, so journals that move no cash (an invoice, a
 * bill, a pay run's accruals), most of the books, are never read — its lines summed per line of
 * the statement as cash (credit − debit), its cash lines as 'cash'. jw: with the journal's net cash
 * (debit − credit of its cash lines). jx: the journals that moved cash, with how many of their lines
 * move the same way as the cash (and which, when one) and how many move at all besides GST.
 * Window functions, not joins between these sets: a planner estimating them at one row each
 * would nest loops over them. Parameters: orgId × 4, from, to.
 */
function journalsSql(): string {
  const same = `cat NOT IN ('${CASH}', '${GST}') AND ((amt > 0 AND cash > 0) OR (amt < 0 AND cash < 0))`;
  return `WITH jl AS (
    SELECT l.journal_id, CASE WHEN ${IS_CASH} THEN '${CASH}' ELSE ${LINE_OF_ACCOUNT} END AS cat,
      SUM(l.credit_cents - l.debit_cents) AS amt
    FROM journal_lines l
    JOIN accounts a ON a.org_id = l.org_id AND a.code = l.account_code
    LEFT JOIN bank_accounts b ON b.org_id = l.org_id AND b.account_code = l.account_code
    WHERE l.org_id = ?
      AND l.journal_id IN (SELECT c.journal_id FROM journal_lines c
        WHERE c.org_id = ? AND c.account_code IN (SELECT a.code FROM accounts a
          LEFT JOIN bank_accounts b ON b.org_id = a.org_id AND b.account_code = a.code WHERE a.org_id = ? AND ${IS_CASH})
        AND c.journal_id IN (SELECT j.id FROM journals j WHERE j.org_id = ? AND j.date >= ? AND j.date <= ? AND j.source_kind <> '${OPENING_BALANCES_SOURCE}'))
    GROUP BY l.journal_id, cat
  ), jw AS (
    SELECT journal_id, cat, amt, SUM(CASE WHEN cat = '${CASH}' THEN -amt ELSE 0 END) OVER (PARTITION BY journal_id) AS cash FROM jl
  ), jx AS (
    SELECT journal_id, cat, amt, cash,
      SUM(CASE WHEN ${same} THEN 1 ELSE 0 END) OVER (PARTITION BY journal_id) AS nsame,
      MAX(CASE WHEN ${same} THEN cat END) OVER (PARTITION BY journal_id) AS samecat,
      SUM(CASE WHEN cat NOT IN ('${CASH}', '${GST}') AND amt <> 0 THEN 1 ELSE 0 END) OVER (PARTITION BY journal_id) AS nother
    FROM jw WHERE cash <> 0
  )`;
}

/**
 * A page of the journals split between lines: their moving non-GST lines, in journal then line
 * order after (journal, line). The first page also carries, with a null journal_id, the journals
 * whose cash goes wholly to one line (or, GST alone, to the ATO) summed per line (cat, amt), so
 * the common case costs one statement. Parameters: as journalsSql, then journal, journal, line,
 * limit.
 */
function pageSql(first: boolean): string {
  const split = `SELECT journal_id, cat, amt, cash FROM jx
    WHERE nsame <> 1 AND nother > 0 AND cat NOT IN ('${CASH}', '${GST}') AND amt <> 0
      AND (journal_id > ? OR (journal_id = ? AND cat > ?))
    ORDER BY journal_id, cat
    LIMIT ?`;
  if (!first) return `${journalsSql()}\n  ${split}`;
  return `${journalsSql()}
  SELECT u.journal_id, u.cat, u.amt, u.cash FROM (
    SELECT NULL AS journal_id, x.line AS cat, SUM(x.cash) AS amt, NULL AS cash FROM (
      SELECT CASE WHEN nsame = 1 THEN samecat ELSE '${ALONE}' END AS line, cash
      FROM jx WHERE cat = '${CASH}' AND (nsame = 1 OR nother = 0)
    ) x GROUP BY x.line
    UNION ALL
    SELECT s.journal_id, s.cat, s.amt, s.cash FROM (${split}) s
  ) u ORDER BY u.journal_id, u.cat`;
}

/** Rows of split journals read at a time. */
export const SPLIT_PAGE = 500;

function cents(value: unknown): number {
  const n = Number(value ?? 0);
  invariant(Number.isSafeInteger(n), 'cash flow sums are safe integers');
  return n;
}

/**
 * `total` shared over `weights` (positive) pro rata, in whole cents that add up to `total`
 * exactly: each share rounded down, then the cents left over one each to the largest remainders
 * (ties: the earlier share). BigInt, since total × weight can pass 2^53.
 */
export function shareProRata(total: number, weights: readonly number[]): number[] {
  invariant(weights.length > 0 && weights.every((w) => Number.isSafeInteger(w) && w > 0), 'pro rata weights are positive cents');
  const sum = weights.reduce((s, w) => s + BigInt(w), 0n);
  const magnitude = BigInt(Math.abs(total));
  const parts = weights.map((w, i) => ({ i, share: (magnitude * BigInt(w)) / sum, rest: (magnitude * BigInt(w)) % sum }));
  let left = magnitude - parts.reduce((s, p) => s + p.share, 0n);
  for (const p of [...parts].sort((x, y) => (x.rest === y.rest ? x.i - y.i : x.rest > y.rest ? -1 : 1))) {
    if (left === 0n) break;
    p.share += 1n;
    left -= 1n;
  }
  const sign = total < 0 ? -1 : 1;
  return parts.map((p) => sign * Number(p.share));
}

/**
 * One split journal's cash over its lines: the lines moving the same way as the cash, pro rata;
 * when none does, all of it to the line moving most (the earliest of equals).
 */
export function allocateJournal(cash: number, lines: readonly { cat: string; amt: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  const same = lines.filter((l) => (l.amt > 0 && cash > 0) || (l.amt < 0 && cash < 0));
  if (same.length > 0) {
    const shares = shareProRata(
      cash,
      same.map((l) => Math.abs(l.amt)),
    );
    same.forEach((l, i) => out.set(l.cat, (out.get(l.cat) ?? 0) + (shares[i] ?? 0)));
    return out;
  }
  const most = lines.reduce<{ cat: string; amt: number } | null>((m, l) => (m === null || Math.abs(l.amt) > Math.abs(m.amt) ? l : m), null);
  invariant(most !== null, 'a split journal has a line besides its cash');
  out.set(most.cat, cash);
  return out;
}

interface CashAccount {
  code: string;
  name: string;
}

async function cashAccounts(q: Queryable, orgId: string): Promise<CashAccount[]> {
  return q.all<CashAccount>(
    `SELECT a.code, a.name FROM accounts a LEFT JOIN bank_accounts b ON b.org_id = a.org_id AND b.account_code = a.code
     WHERE a.org_id = ? AND ${IS_CASH} ORDER BY a.code`,
    [orgId],
  );
}

/** Cash per line of the statement over from..to (the conversion journal aside). */
async function flowsByLine(
  q: Queryable,
  orgId: string,
  period: { readonly from: string; readonly to: string; readonly page: number },
): Promise<Map<string, number>> {
  const { from, to, page } = period;
  const params = [orgId, orgId, orgId, orgId, from, to];
  const byLine = new Map<string, number>();
  const add = (line: string, c: number) => byLine.set(line, (byLine.get(line) ?? 0) + c);
  // Journals split between lines come a page at a time; a journal may run over a page's end, so
  // its lines are gathered until the next journal starts.
  let after = { journal: '', cat: '' };
  let journal: string | null = null;
  let journalCash = 0;
  let lines: { cat: string; amt: number }[] = [];
  const allocate = () => {
    if (journal !== null) for (const [line, c] of allocateJournal(journalCash, lines)) add(line, c);
  };
  for (let first = true; ; first = false) {
    const rows = await q.all<{ journal_id: string | null; cat: string; amt: unknown; cash: unknown }>(pageSql(first), [
      ...params,
      after.journal,
      after.journal,
      after.cat,
      page,
    ]);
    const split: { journal_id: string; cat: string; amt: unknown; cash: unknown }[] = [];
    for (const r of rows) {
      if (r.journal_id === null) add(r.cat, cents(r.amt));
      else split.push({ ...r, journal_id: r.journal_id });
    }
    for (const r of split) {
      if (r.journal_id !== journal) {
        allocate();
        journal = r.journal_id;
        journalCash = cents(r.cash);
        lines = [];
      }
      lines.push({ cat: r.cat, amt: cents(r.amt) });
    }
    const last = split.at(-1);
    if (split.length < page || last === undefined) break;
    after = { journal: last.journal_id, cat: last.cat };
  }
  allocate();
  return byLine;
}

/** Cash the conversion journal (books.openingBalances) brought in when it is dated in from..to. */
async function carriedIn(q: Queryable, orgId: string, codes: readonly string[], from: string, to: string): Promise<number> {
  const row = await q.get<{ cents: unknown }>(
    `SELECT SUM(l.debit_cents - l.credit_cents) AS cents FROM journal_lines l
     WHERE l.org_id = ? AND l.account_code IN (${placeholders(codes.length)})
       AND l.journal_id IN (SELECT j.id FROM journals j
         WHERE j.org_id = ? AND j.date >= ? AND j.date <= ? AND j.source_kind = '${OPENING_BALANCES_SOURCE}')`,
    [orgId, ...codes, orgId, from, to],
  );
  return cents(row?.cents);
}

/** books.reports cash_flow; `page` (rows of split journals a query reads) is for tests. */
export async function cashFlow(q: Queryable, orgId: string, from: string, to: string, page = SPLIT_PAGE) {
  const { accounts, flows, broughtIn, before, sheet } = await readConsistently(q, orgId, async (q) => {
    const accounts = await cashAccounts(q, orgId);
    invariant(accounts.length > 0, 'the chart has a bank account (1000)');
    const codes = accounts.map((a) => a.code);
    const [flows, broughtIn, before, sheet] = await Promise.all([
      flowsByLine(q, orgId, { from, to, page }),
      carriedIn(q, orgId, codes, from, to),
      accountTotals(q, orgId, { to: addDays(from, -1) }),
      balanceSheet(q, orgId, to),
    ]);
    return { accounts, flows, broughtIn, before, sheet };
  });
  // Closing cash is the balance sheet's own lines for these accounts (assets, debit-normal).
  const closingOf = new Map(sheet.assets.accounts.map((l) => [l.code, l.amountCents]));
  const rows = accounts.map((a) => {
    const t = before.get(a.code);
    return {
      code: a.code,
      name: a.name,
      openingCents: t === undefined ? 0 : t.debitCents - t.creditCents,
      closingCents: closingOf.get(a.code) ?? 0,
    };
  });
  const known = new Set(CASH_FLOW_LINES.map((l) => l.key));
  for (const line of flows.keys()) invariant(known.has(line), `cash flow line ${line} is a line of the statement`);
  const section = (s: CashFlowSection) => {
    const lines = CASH_FLOW_LINES.filter((l) => l.section === s && (flows.get(l.key) ?? 0) !== 0).map((l) => ({
      line: l.key,
      label: l.label,
      amountCents: flows.get(l.key) ?? 0,
    }));
    return { lines, totalCents: lines.reduce((sum, l) => sum + l.amountCents, 0) };
  };
  const operating = section('operating');
  const investing = section('investing');
  const financing = section('financing');
  const netChangeCents = operating.totalCents + investing.totalCents + financing.totalCents;
  const openingCashCents = rows.reduce((s, r) => s + r.openingCents, 0);
  const closingCashCents = rows.reduce((s, r) => s + r.closingCents, 0);
  return {
    type: 'cash_flow' as const,
    from,
    to,
    cashAccounts: rows,
    operating,
    investing,
    financing,
    netChangeCents,
    openingCashCents,
    carriedInCents: broughtIn,
    closingCashCents,
    reconciles: openingCashCents + netChangeCents + broughtIn === closingCashCents,
  };
}
