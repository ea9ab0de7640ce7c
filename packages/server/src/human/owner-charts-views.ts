import { formatCents } from '../money.js';
import { centsCell, columnChart, legend, lineChart, noFigures, type Category } from './charts.js';
import { html, type Html } from './html.js';
import type { ChartMonth, DueWeek, OverviewCharts } from './owner-charts.js';

/**
 * The overview's four pictures (owner-charts.ts reads their figures): cash per bank account at
 * each month's end, income and expenses by month with net profit, what is owed by age, and what
 * falls due in the next 30 days. Each is a card: a heading, the SVG (charts.ts), its legend, and
 * the same figures in a table under "Figures" (a disclosure: secondary to the eye, one keypress
 * for a screen reader, whose reading of the picture is its title and description).
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const monthName = (yyyyMm: string): string => MONTHS[Number(yyyyMm.slice(5, 7)) - 1] ?? yyyyMm;
const shortMonth = (yyyyMm: string): string => monthName(yyyyMm).slice(0, 3);
/** "20 Oct" of YYYY-MM-DD. */
const dayMonth = (date: string): string => `${Number(date.slice(8, 10))} ${shortMonth(date.slice(0, 7))}`;

/** "October 2026", or "October 2026 (to the 20th)" for the month to date. */
function monthInFull(m: ChartMonth): string {
  const name = `${monthName(m.month)} ${m.month.slice(0, 4)}`;
  return m.partial ? `${name} (to ${dayMonth(m.to)})` : name;
}

function monthCategories(months: readonly ChartMonth[]): Category[] {
  return months.map((m, i) => ({
    label: shortMonth(m.month),
    // The year under the first month and under each January.
    sub: i === 0 || m.month.endsWith('-01') ? m.month.slice(0, 4) : null,
    full: monthInFull(m),
  }));
}

const span = (months: readonly ChartMonth[]): string => {
  const first = months[0];
  const last = months.at(-1);
  return first && last ? `${monthInFull(first)} to ${monthInFull(last)}` : '';
};

function card(id: string, heading: string, hint: string, picture: Html, key: Html | null, table: Html): Html {
  return html`<section class="card chart" id="${id}" aria-labelledby="${id}-h">
  <h3 id="${id}-h">${heading}</h3>
  <p class="hint">${hint}</p>
  ${picture}
  ${key}
  <details class="figures"><summary>Figures</summary>${table}</details>
</section>`;
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

function cashCard(c: OverviewCharts): Html {
  const { accounts, notDrawn } = c.cash;
  const more =
    notDrawn > 0
      ? ` ${notDrawn} more bank ${notDrawn === 1 ? 'account is' : 'accounts are'} not drawn; every balance is in the bank table.`
      : '';
  const hint = `The ledger balance at each month's end (this month: today).${more}`;
  if (accounts.length === 0) return card('chart-cash', 'Cash at month end', hint, noFigures('No bank accounts yet.'), null, html``);
  const desc = `Ledger balance of each bank account at the end of each month, ${span(c.months)}: ${accounts
    .map((a) => `${a.name} from ${formatCents(a.balances[0] ?? 0)} to ${formatCents(a.balances.at(-1) ?? 0)}`)
    .join('; ')}.`;
  const picture = lineChart(
    { id: 'chart-cash-svg', title: 'Cash at month end, per bank account', desc },
    monthCategories(c.months),
    accounts.map((a) => ({ name: a.name, values: a.balances })),
  );
  const rows = c.months.map(
    (m, i) =>
      html`<tr><th scope="row" data-month="${m.month}">${monthInFull(m)}</th>${accounts.map((a) => centsCell(a.balances[i] ?? 0))}</tr>`,
  );
  const table = html`<div class="table-wrap"><table class="compact" id="chart-cash-table">
  <caption class="sr-only">Cash at month end, per bank account</caption>
  <thead><tr><th scope="col">Month end</th>${accounts.map((a) => html`<th scope="col" class="num" data-code="${a.code}">${a.name}</th>`)}</tr></thead>
  <tbody>${rows}</tbody>
</table></div>`;
  return card('chart-cash', 'Cash at month end', hint, picture, legend(accounts.map((a) => ({ name: a.name, kind: 'line' }))), table);
}

function profitCard(c: OverviewCharts): Html {
  const income = c.profit.map((p) => p.incomeCents);
  const expenses = c.profit.map((p) => p.expensesCents);
  const profit = c.profit.map((p) => p.profitCents);
  const desc = `Income and expenses of each month from the profit and loss, ${span(c.months)}, with net profit as a line. Over the ${
    c.months.length
  } months: income ${formatCents(sum(income))}, expenses ${formatCents(sum(expenses))}, net profit ${formatCents(sum(profit))}.`;
  const picture = columnChart(
    { id: 'chart-profit-svg', title: 'Income, expenses and net profit by month', desc },
    monthCategories(c.months),
    [
      { name: 'Income', values: income },
      { name: 'Expenses', values: expenses },
    ],
    { name: 'Net profit', values: profit },
  );
  const rows = c.months.map(
    (m, i) =>
      html`<tr><th scope="row" data-month="${m.month}">${monthInFull(m)}</th>${centsCell(income[i] ?? 0)}${centsCell(expenses[i] ?? 0)}${centsCell(
        profit[i] ?? 0,
      )}</tr>`,
  );
  const table = html`<div class="table-wrap"><table class="compact" id="chart-profit-table">
  <caption class="sr-only">Income, expenses and net profit by month</caption>
  <thead><tr><th scope="col">Month</th><th scope="col" class="num">Income</th><th scope="col" class="num">Expenses</th><th scope="col" class="num">Net profit</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`;
  const key = legend([
    { name: 'Income', kind: 'bar' },
    { name: 'Expenses', kind: 'bar' },
    { name: 'Net profit', kind: 'profit' },
  ]);
  return card(
    'chart-profit',
    'Income and expenses by month',
    'From the profit and loss of each month (this month: to today).',
    picture,
    key,
    table,
  );
}

/** The aged reports' buckets, in their order, with the field of their totals. */
const BUCKETS = [
  ['current', 'Not yet due', 'Current', 'currentCents'],
  ['1-30', '1–30 days overdue', '1–30', 'days1to30Cents'],
  ['31-60', '31–60 days overdue', '31–60', 'days31to60Cents'],
  ['61-90', '61–90 days overdue', '61–90', 'days61to90Cents'],
  ['90+', 'More than 90 days overdue', '90+', 'over90Cents'],
] as const;

function agedCard(c: OverviewCharts): Html {
  const r = c.aged.receivables;
  const p = c.aged.payables;
  const owed = BUCKETS.map(([, , , field]) => r[field]);
  const owing = BUCKETS.map(([, , , field]) => p[field]);
  const desc = `Customers owe ${formatCents(r.totalCents)}, of which ${formatCents(r.totalCents - r.currentCents)} is overdue; you owe suppliers ${formatCents(
    p.totalCents,
  )}, of which ${formatCents(p.totalCents - p.currentCents)} is overdue, as at ${c.today}.`;
  const picture = columnChart(
    { id: 'chart-aged-svg', title: 'Owed by age: receivables and payables', desc },
    BUCKETS.map(([, full, label]) => ({ label, sub: null, full })),
    [
      { name: 'Customers owe you', values: owed },
      { name: 'You owe suppliers', values: owing },
    ],
  );
  const rows = BUCKETS.map(
    ([bucket, full], i) =>
      html`<tr><th scope="row" data-bucket="${bucket}">${full}</th>${centsCell(owed[i] ?? 0)}${centsCell(owing[i] ?? 0)}</tr>`,
  );
  const table = html`<div class="table-wrap"><table class="compact" id="chart-aged-table">
  <caption class="sr-only">Receivables and payables by age</caption>
  <thead><tr><th scope="col">Age</th><th scope="col" class="num">Customers owe you</th><th scope="col" class="num">You owe suppliers</th></tr></thead>
  <tbody>${rows}<tr class="total"><th scope="row" data-bucket="total">Total</th>${centsCell(r.totalCents)}${centsCell(p.totalCents)}</tr></tbody>
</table></div>`;
  const key = legend([
    { name: 'Customers owe you', kind: 'bar' },
    { name: 'You owe suppliers', kind: 'bar' },
  ]);
  return card(
    'chart-aged',
    'Owed, by age',
    `From the aged receivables and payables as at ${c.today}; a credit not yet used counts against its bucket.`,
    picture,
    key,
    table,
  );
}

const weekInFull = (w: DueWeek): string => (w.from === w.to ? dayMonth(w.from) : `${dayMonth(w.from)} to ${dayMonth(w.to)}`);
const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

function dueCard(c: OverviewCharts): Html {
  const weeks = c.due;
  const collect = weeks.map((w) => w.invoicesCents);
  const pay = weeks.map((w) => w.billsCents);
  const desc = `Invoices to collect and bills to pay that fall due in each week of the next 30 days from ${c.today}: ${formatCents(
    sum(collect),
  )} to collect and ${formatCents(sum(pay))} to pay in all.`;
  const picture = columnChart(
    { id: 'chart-due-svg', title: 'Due in the next 30 days, by week', desc },
    weeks.map((w) => ({ label: dayMonth(w.from), sub: w.from === w.to ? null : `to ${dayMonth(w.to)}`, full: weekInFull(w) })),
    [
      { name: 'Invoices to collect', values: collect },
      { name: 'Bills to pay', values: pay },
    ],
  );
  const rows = weeks.map(
    (w) =>
      html`<tr><th scope="row" data-from="${w.from}" data-to="${w.to}">${weekInFull(w)}</th>${centsCell(w.invoicesCents)}<td class="num">${count(
        w.invoices,
        'invoice',
        'invoices',
      )}</td>${centsCell(w.billsCents)}<td class="num">${count(w.bills, 'bill', 'bills')}</td></tr>`,
  );
  const table = html`<div class="table-wrap"><table class="compact" id="chart-due-table">
  <caption class="sr-only">Due in the next 30 days, by week</caption>
  <thead><tr><th scope="col">Due</th><th scope="col" class="num">To collect</th><th scope="col" class="num">Invoices</th>
  <th scope="col" class="num">To pay</th><th scope="col" class="num">Bills</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`;
  const key = legend([
    { name: 'Invoices to collect', kind: 'bar' },
    { name: 'Bills to pay', kind: 'bar' },
  ]);
  return card(
    'chart-due',
    'Due in the next 30 days',
    'What is still outstanding on invoices and bills, by the week they fall due (overdue ones are in the ages above).',
    picture,
    key,
    table,
  );
}

/** The four pictures, two side by side where the screen is wide enough. */
export function chartsSection(c: OverviewCharts): Html {
  return html`<section aria-labelledby="pictures-title" class="pictures">
  <h2 id="pictures-title">The last twelve months and the next thirty days</h2>
  <div class="cards two">
    ${cashCard(c)}
    ${profitCard(c)}
    ${agedCard(c)}
    ${dueCard(c)}
  </div>
</section>`;
}
