import { addDays } from '../../clock.js';
import { invariant } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import type { AccountType } from '../gl/chart.js';
import {
  accountTotals,
  assertKnownAccounts,
  loadChart,
  normalBalance,
  readConsistently,
  type AccountTotal,
  type ChartAccount,
  type LineFilter,
} from './ledger-totals.js';

/**
 * A tracking filter (tracking/store.ts): the lines of one option (or of none) only, and what it
 * was, echoed in the report. Filtered, a report is the sum of those lines: a trial balance or
 * balance sheet of them need not balance (the other side of an invoice's revenue is its
 * receivable, which carries no option), so the balance checks are for the whole ledger only.
 */
export interface TrackedFilter extends LineFilter {
  readonly echo: Readonly<Record<string, string | null>>;
}

const echoOf = (filter: TrackedFilter | undefined) => (filter === undefined ? {} : { tracking: filter.echo });

/**
 * The financial statements, straight from the ledger: trial balance, profit and loss, balance
 * sheet. There is no year-end close in the ledger, so the balance sheet shows earnings not yet
 * closed inside equity (current year and earlier years), which is what makes it balance.
 */
export interface Line {
  readonly code: string | null;
  readonly name: string;
  readonly amountCents: number;
  /** With compare (compare.ts): the comparison period's figure and amount − comparison. */
  readonly comparisonCents?: number;
  readonly differenceCents?: number;
}

export interface Section {
  readonly accounts: Line[];
  readonly totalCents: number;
  readonly comparisonTotalCents?: number;
  readonly differenceCents?: number;
}

/** Accounts of the given types that have postings in `totals`, with their normal balances. */
function section(chart: readonly ChartAccount[], totals: ReadonlyMap<string, AccountTotal>, type: AccountType): Section {
  const accounts: Line[] = [];
  for (const a of chart) {
    const t = totals.get(a.code);
    if (a.type !== type || t === undefined) continue;
    accounts.push({ code: a.code, name: a.name, amountCents: normalBalance(a.type, t) });
  }
  return { accounts, totalCents: accounts.reduce((s, l) => s + l.amountCents, 0) };
}

/** Revenue − expenses over `totals` (a profit is positive). */
function earnings(chart: readonly ChartAccount[], totals: ReadonlyMap<string, AccountTotal>): number {
  return section(chart, totals, 'revenue').totalCents - section(chart, totals, 'expense').totalCents;
}

export async function trialBalance(q: Queryable, orgId: string, asOf: string, filter?: TrackedFilter) {
  const [chart, totals] = await Promise.all([loadChart(q, orgId), accountTotals(q, orgId, { to: asOf }, filter)]);
  assertKnownAccounts(chart, totals);
  const rows = chart.flatMap((a) => {
    const t = totals.get(a.code);
    if (t === undefined) return [];
    const net = t.debitCents - t.creditCents;
    return [{ code: a.code, name: a.name, type: a.type, debitCents: Math.max(net, 0), creditCents: Math.max(-net, 0) }];
  });
  const debitCents = rows.reduce((s, r) => s + r.debitCents, 0);
  const creditCents = rows.reduce((s, r) => s + r.creditCents, 0);
  // Every journal balances (post.ts), so the ledger does; anything else is a broken invariant.
  if (filter === undefined) invariant(debitCents === creditCents, `trial balance as at ${asOf} balances (${debitCents} ≠ ${creditCents})`);
  return {
    type: 'trial_balance' as const,
    asOf,
    rows,
    totals: { debitCents, creditCents },
    balanced: debitCents === creditCents,
    ...echoOf(filter),
  };
}

export async function profitAndLoss(q: Queryable, orgId: string, from: string, to: string, filter?: TrackedFilter) {
  const [chart, totals] = await Promise.all([loadChart(q, orgId), accountTotals(q, orgId, { from, to }, filter)]);
  return profitAndLossOf(chart, totals, from, to, filter);
}

/**
 * The profit and loss of from..to from that period's account totals: for a reader that has the
 * totals already (the console's overview reads each month's once for its cash and its profit).
 */
export function profitAndLossOf(
  chart: readonly ChartAccount[],
  totals: ReadonlyMap<string, AccountTotal>,
  from: string,
  to: string,
  filter?: TrackedFilter,
) {
  assertKnownAccounts(chart, totals);
  const revenue = section(chart, totals, 'revenue');
  const expenses = section(chart, totals, 'expense');
  return {
    type: 'profit_and_loss' as const,
    from,
    to,
    revenue,
    expenses,
    netProfitCents: revenue.totalCents - expenses.totalCents,
    ...echoOf(filter),
  };
}

/** 1 July on or before `date`: the start of the Australian financial year it falls in. */
export function financialYearStart(date: string): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  return `${String(month >= 7 ? year : year - 1).padStart(4, '0')}-07-01`;
}

export async function balanceSheet(q: Queryable, orgId: string, asOf: string, filter?: TrackedFilter) {
  const fyStart = financialYearStart(asOf);
  const { chart, toDate, beforeYear } = await readConsistently(q, orgId, async (q) => {
    const [c, t, b] = await Promise.all([
      loadChart(q, orgId),
      accountTotals(q, orgId, { to: asOf }, filter),
      accountTotals(q, orgId, { to: addDays(fyStart, -1) }, filter),
    ]);
    return { chart: c, toDate: t, beforeYear: b };
  });
  assertKnownAccounts(chart, toDate);
  const assets = section(chart, toDate, 'asset');
  const liabilities = section(chart, toDate, 'liability');
  const equityAccounts = section(chart, toDate, 'equity');
  const priorYears = earnings(chart, beforeYear);
  const currentYear = earnings(chart, toDate) - priorYears;
  const unclosed: Line[] = [
    ...(priorYears === 0 ? [] : [{ code: null, name: 'Earlier years’ earnings (not yet closed)', amountCents: priorYears }]),
    { code: null, name: `Current year earnings (from ${fyStart})`, amountCents: currentYear },
  ];
  const equity: Section = {
    accounts: [...equityAccounts.accounts, ...unclosed],
    totalCents: equityAccounts.totalCents + priorYears + currentYear,
  };
  const balanced = assets.totalCents === liabilities.totalCents + equity.totalCents;
  if (filter === undefined) invariant(balanced, `balance sheet as at ${asOf} balances`);
  return {
    type: 'balance_sheet' as const,
    asOf,
    financialYearStart: fyStart,
    assets,
    liabilities,
    equity,
    currentYearEarningsCents: currentYear,
    priorYearsEarningsCents: priorYears,
    balanced,
    ...echoOf(filter),
  };
}
