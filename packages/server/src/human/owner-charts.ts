import type { booksReads } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../binding.js';
import { addDays } from '../clock.js';
import { invariant } from '../errors.js';
import { accountTotals, loadChart, readConsistently } from '../domain/reports/ledger-totals.js';
import { profitAndLossOf } from '../domain/reports/statements.js';
import { agedReport } from '../domain/reports/aged.js';

/**
 * The figures behind the overview's pictures, each as an API read computes it: the bank accounts'
 * balances at each month's end (books.accounts' balance as at that day: the account totals of every
 * line to date, which account_transactions closes the month with), income, expenses and net profit
 * per month (books.reports profit_and_loss, from the same month's account totals), what is owed by
 * age (aged_receivables, aged_payables totals) and what falls due in the next 30 days (the open
 * documents of the same aged reports, by due date). Nothing here is a query of its own.
 *
 * Bounded, and not by the number of accounts: the totals before the first month (one sum over the
 * older journals) and each month's totals (a sum over that month's journals), CHART_MONTHS + 1
 * statements for every account at once, read on one state of the books; then the two aged reports.
 */

/** Months of cash and of profit shown: the current month (to today) and the eleven before it. */
export const CHART_MONTHS = 12;
/**
 * Bank accounts drawn as lines: more would not be told apart (eight colours). The card says how
 * many more there are; every account's balance is in the bank table.
 */
export const CASH_CHART_ACCOUNTS = 8;
/** The days ahead that "due soon" covers, in weeks from today (the last one shorter). */
export const DUE_DAYS = 30;
const WEEK = 7;

type Amounts = z.infer<typeof booksReads.agedReport>['totals'];

export interface ChartMonth {
  /** YYYY-MM. */
  readonly month: string;
  readonly from: string;
  /** The month's last day, or today for the current month. */
  readonly to: string;
  readonly partial: boolean;
}

export interface CashSeries {
  readonly code: string;
  readonly name: string;
  /** The ledger balance at the end of each month (as at `to`), in cents. */
  readonly balances: readonly number[];
}

export interface MonthProfit {
  readonly incomeCents: number;
  readonly expensesCents: number;
  readonly profitCents: number;
}

export interface DueWeek {
  readonly from: string;
  readonly to: string;
  readonly invoicesCents: number;
  readonly invoices: number;
  readonly billsCents: number;
  readonly bills: number;
}

export interface OverviewCharts {
  readonly today: string;
  readonly months: readonly ChartMonth[];
  readonly cash: { readonly accounts: readonly CashSeries[]; readonly notDrawn: number };
  readonly profit: readonly MonthProfit[];
  readonly aged: { readonly receivables: Amounts; readonly payables: Amounts };
  readonly due: readonly DueWeek[];
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The last day of YYYY-MM. */
export function monthEnd(month: string): string {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  // Day 0 of the next month is this month's last day.
  return `${month}-${pad(new Date(Date.UTC(y, m, 0)).getUTCDate())}`;
}

/** The CHART_MONTHS months ending with today's, oldest first; the current one ends today. */
export function chartMonths(today: string, count = CHART_MONTHS): ChartMonth[] {
  const y = Number(today.slice(0, 4));
  const m = Number(today.slice(5, 7));
  const out: ChartMonth[] = [];
  for (let back = count - 1; back >= 0; back -= 1) {
    // Months since year 0, so that stepping back across January needs no special case.
    const index = y * 12 + (m - 1) - back;
    const month = `${pad(Math.floor(index / 12), 4)}-${pad((index % 12) + 1)}`;
    const end = monthEnd(month);
    const partial = back === 0 && today < end;
    out.push({ month, from: `${month}-01`, to: partial ? today : end, partial });
  }
  return out;
}

/** Every item, not a page: the week sums need all that falls due. */
const agedOf = (ctx: ReadContext, type: 'aged_receivables' | 'aged_payables', asOf: string) =>
  agedReport(ctx.db.reader, ctx.principal.orgId, type, asOf, { limit: 'all' });

type Aged = Awaited<ReturnType<typeof agedOf>>;

/**
 * The open documents of an aged report due from today to DUE_DAYS − 1 days ahead, summed by week.
 * Credits (negative items: money owed the other way) are not something to collect or pay.
 */
function dueByWeek(today: string, receivables: Aged, payables: Aged): DueWeek[] {
  const weeks: { from: string; to: string; invoicesCents: number; invoices: number; billsCents: number; bills: number }[] = [];
  for (let start = 0; start < DUE_DAYS; start += WEEK) {
    const end = Math.min(start + WEEK, DUE_DAYS) - 1;
    weeks.push({ from: addDays(today, start), to: addDays(today, end), invoicesCents: 0, invoices: 0, billsCents: 0, bills: 0 });
  }
  const place = (report: Aged, add: (w: (typeof weeks)[number], cents: number) => void) => {
    for (const party of report.parties) {
      for (const item of party.items) {
        if (item.outstandingCents <= 0) continue;
        const week = weeks.find((w) => item.dueOn >= w.from && item.dueOn <= w.to);
        if (week) add(week, item.outstandingCents);
      }
    }
  };
  place(receivables, (w, cents) => {
    w.invoicesCents += cents;
    w.invoices += 1;
  });
  place(payables, (w, cents) => {
    w.billsCents += cents;
    w.bills += 1;
  });
  return weeks;
}

/**
 * Every chart's figures for the overview. `bank` is the overview's own list of bank accounts (the
 * register, bank kind first in its order); cards and loans are not cash and are not drawn.
 */
export async function overviewCharts(
  ctx: ReadContext,
  today: string,
  bank: readonly { readonly code: string; readonly name: string; readonly kind: string }[],
): Promise<OverviewCharts> {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const months = chartMonths(today);
  const cashAccounts = bank.filter((a) => a.kind === 'bank');
  const drawn = cashAccounts.slice(0, CASH_CHART_ACCOUNTS);
  const first = months[0];
  invariant(first !== undefined, 'a chart has months');
  // Each month's account totals serve both its profit and loss and its cash movement.
  const { chart, before, perMonth } = await readConsistently(q, orgId, async (q) => ({
    chart: await loadChart(q, orgId),
    before: await accountTotals(q, orgId, { to: addDays(first.from, -1) }),
    perMonth: await Promise.all(months.map((m) => accountTotals(q, orgId, { from: m.from, to: m.to }))),
  }));
  // A bank account is an asset: its balance is debits less credits, carried month to month.
  const net = (t: { debitCents: number; creditCents: number } | undefined) => (t ? t.debitCents - t.creditCents : 0);
  const cash: CashSeries[] = drawn.map((a) => {
    let balance = net(before.get(a.code));
    const balances: number[] = [];
    for (const totals of perMonth) {
      balance += net(totals.get(a.code));
      balances.push(balance);
    }
    return { code: a.code, name: a.name, balances };
  });
  const profit: MonthProfit[] = months.map((m, i) => {
    const pl = profitAndLossOf(chart, perMonth[i] ?? new Map(), m.from, m.to);
    return { incomeCents: pl.revenue.totalCents, expensesCents: pl.expenses.totalCents, profitCents: pl.netProfitCents };
  });
  const receivables = await agedOf(ctx, 'aged_receivables', today);
  const payables = await agedOf(ctx, 'aged_payables', today);
  return {
    today,
    months,
    cash: { accounts: cash, notDrawn: cashAccounts.length - drawn.length },
    profit,
    aged: { receivables: receivables.totals, payables: payables.totals },
    due: dueByWeek(today, receivables, payables),
  };
}
