import { addDays } from '../../clock.js';
import { invariant } from '../../errors.js';
import { placeholders } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';
import { CASH_FLOW_LINES, type CashFlowSection, IS_CASH, OPENING_BALANCES_SOURCE } from './cash-flow-days.js';
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
 * Bounded: each journal is classified once, when it is posted, into kept rows per day and line
 * (cash-flow-days.ts); the report sums the period's days × lines.
 */
export { CASH_FLOW_LINES, CASH_ROLES, GST_ROLES, type CashFlowSection } from './cash-flow-days.js';

/**
 * The cash per line over from..to: the kept days × lines (cash-flow-days.ts, which classifies each
 * journal), as many rows as the period has days with cash, from the index alone.
 */
async function flowsByLine(q: Queryable, orgId: string, from: string, to: string): Promise<Map<string, number>> {
  const rows = await q.all<{ line: string; amount: unknown }>(
    `SELECT line, SUM(amount_cents) AS amount FROM cash_flow_day_totals
     WHERE org_id = ? AND date >= ? AND date <= ? GROUP BY line`,
    [orgId, from, to],
  );
  return new Map(rows.map((r) => [r.line, cents(r.amount)]));
}

function cents(value: unknown): number {
  const n = Number(value ?? 0);
  invariant(Number.isSafeInteger(n), 'cash flow sums are safe integers');
  return n;
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

/**
 * Cash the conversion journal (books.openingBalances) brought in when it is dated in from..to.
 * Found by its source (the organisation's own id: journals_source), the period tested in the sum
 * rather than the WHERE so that SQLite does not walk the period's journals by date instead.
 */
async function carriedIn(q: Queryable, orgId: string, codes: readonly string[], from: string, to: string): Promise<number> {
  const row = await q.get<{ cents: unknown }>(
    `SELECT SUM(CASE WHEN j.date >= ? AND j.date <= ? THEN l.debit_cents - l.credit_cents ELSE 0 END) AS cents
     FROM journals j CROSS JOIN journal_lines l
     WHERE j.org_id = ? AND j.source_id = ? AND j.source_kind = '${OPENING_BALANCES_SOURCE}'
       AND l.org_id = j.org_id AND l.journal_id = j.id AND l.account_code IN (${placeholders(codes.length)})`,
    [from, to, orgId, orgId, ...codes],
  );
  return cents(row?.cents);
}

/** books.reports cash_flow. */
export async function cashFlow(q: Queryable, orgId: string, from: string, to: string) {
  const { accounts, flows, broughtIn, before, sheet } = await readConsistently(q, orgId, async (q) => {
    const accounts = await cashAccounts(q, orgId);
    invariant(accounts.length > 0, 'the chart has a bank account (1000)');
    const codes = accounts.map((a) => a.code);
    const [flows, broughtIn, before, sheet] = await Promise.all([
      flowsByLine(q, orgId, from, to),
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
