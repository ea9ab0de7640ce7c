import { booksReads, validate, type budgets } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../binding.js';
import { runReport } from '../domain/reports/reports.js';
import { formatCents } from '../money.js';
import { html, type Html } from './html.js';

/**
 * Two more reports on the owner's reports page, each for the page's period: the statement of cash
 * flows (books.reports cash_flow) and budget against actual (budget_vs_actual). The figures are the
 * read's, shown as it returns them. A period one of them refuses that the profit and loss accepts
 * (budgets are whole months) does not refuse the page: that section says why instead.
 */

export type CashFlow = z.infer<typeof booksReads.cashFlow>;
export type BudgetVsActual = z.infer<typeof budgets.budgetVsActual>;
export type DepreciationSchedule = Extract<Awaited<ReturnType<typeof runReport>>, { type: 'depreciation_schedule' }>;

/** A report of the page, or the message of books.reports' schema refusing its period. */
export type Shown<R> = { readonly report: R; readonly refused: null } | { readonly report: null; readonly refused: string };

async function shown<R>(ctx: ReadContext, params: Record<string, unknown>): Promise<Shown<R>> {
  const p = validate(booksReads.reports.params, params);
  if (!p.ok) return { report: null, refused: p.message };
  return { report: (await runReport(p.value, ctx)) as R, refused: null };
}

/** The income year (1 July to 30 June) a date falls in: the tax depreciation schedule's period. */
export function incomeYearOf(date: string): { from: string; to: string } {
  const year = Number(date.slice(0, 4));
  const start = Number(date.slice(5, 7)) >= 7 ? year : year - 1;
  return { from: `${String(start).padStart(4, '0')}-07-01`, to: `${String(start + 1).padStart(4, '0')}-06-30` };
}

export async function moreReports(ctx: ReadContext, from: string, to: string) {
  const cashFlow = await shown<CashFlow>(ctx, { type: 'cash_flow', from, to });
  const budget = await shown<BudgetVsActual>(ctx, { type: 'budget_vs_actual', from, to });
  // The schedule is by income year, whatever the page's period: the one its end falls in.
  const depreciation = await shown<DepreciationSchedule>(ctx, { type: 'depreciation_schedule', ...incomeYearOf(to) });
  return { cashFlow, budget, depreciation };
}

const money = (cents: number, id?: string): Html =>
  id ? html`<td class="num" id="${id}">${formatCents(cents)}</td>` : html`<td class="num">${formatCents(cents)}</td>`;

const CASH_SECTIONS: readonly (readonly ['operating' | 'investing' | 'financing', string])[] = [
  ['operating', 'Operating activities'],
  ['investing', 'Investing activities'],
  ['financing', 'Financing activities'],
];

export function cashFlowSection(s: Shown<CashFlow>): Html {
  if (!s.report) {
    return html`<section aria-labelledby="cf-title"><h2 id="cf-title">Cash flow</h2><p class="hint">Not shown for this period: ${s.refused}</p></section>`;
  }
  const c = s.report;
  const groups = CASH_SECTIONS.map(
    ([key, title]) => html`<tbody>
<tr class="group"><th scope="rowgroup" colspan="2">${title}</th></tr>
${c[key].lines.map((l) => html`<tr data-line="${l.line}"><th scope="row">${l.label}</th>${money(l.amountCents)}</tr>`)}
<tr class="total"><th scope="row">Net cash from ${title.toLowerCase()}</th>${money(c[key].totalCents, `cf-${key}`)}</tr>
</tbody>`,
  );
  const carried =
    c.carriedInCents === 0
      ? null
      : html`<tr><th scope="row">Brought in by opening balances</th>${money(c.carriedInCents, 'cf-carried')}</tr>`;
  return html`<section aria-labelledby="cf-title">
<h2 id="cf-title">Cash flow, ${c.from} to ${c.to}</h2>
<p class="hint">Money received and paid through the cash accounts (${c.cashAccounts.map((a) => `${a.code} ${a.name}`).join(', ')}),
money in positive, by what each payment was for; transfers between cash accounts are not flows.</p>
<div class="table-wrap"><table class="narrow-table">
  <caption class="sr-only">Cash flow</caption>
  ${groups}
  <tbody>
  <tr class="total grand"><th scope="row">Net change in cash</th>${money(c.netChangeCents, 'cf-net')}</tr>
  <tr><th scope="row">Cash at the start</th>${money(c.openingCashCents, 'cf-opening')}</tr>
  ${carried}
  <tr class="total"><th scope="row">Cash at the end</th>${money(c.closingCashCents, 'cf-closing')}</tr>
  </tbody>
</table></div>
<p class="hint">Cash at the start plus the change equals the balance sheet's cash at the end: ${c.reconciles ? 'reconciled' : 'NOT reconciled'}.</p>
</section>`;
}

type Figures = { readonly budgetCents: number; readonly actualCents: number; readonly varianceCents: number };
const figures = (f: Figures, id?: string): Html =>
  html`${money(f.budgetCents, id ? `${id}-budget` : undefined)}${money(f.actualCents, id ? `${id}-actual` : undefined)}${money(
    f.varianceCents,
    id ? `${id}-variance` : undefined,
  )}`;

export function budgetSection(s: Shown<BudgetVsActual>): Html {
  if (!s.report) {
    return html`<section aria-labelledby="budget-title"><h2 id="budget-title">Budget against actual</h2>
<p class="hint">Budgets are monthly: choose a period of whole months (from the 1st to a month's last day) to compare. ${s.refused}</p></section>`;
  }
  const b = s.report;
  const group = (type: 'revenue' | 'expense', title: string, total: Figures, id: string) => html`<tbody>
<tr class="group"><th scope="rowgroup" colspan="4">${title}</th></tr>
${b.accounts
  .filter((a) => a.type === type)
  .map((a) => html`<tr data-account="${a.code}"><th scope="row"><span class="mono">${a.code}</span> ${a.name}</th>${figures(a)}</tr>`)}
<tr class="total"><th scope="row">Total ${title.toLowerCase()}</th>${figures(total, id)}</tr>
</tbody>`;
  return html`<section aria-labelledby="budget-title">
<h2 id="budget-title">Budget against actual, ${b.from} to ${b.to}</h2>
<p class="hint">The budgets set for each month against the profit and loss's actuals; variance is actual less budget (positive: more earned, or more spent).</p>
<div class="table-wrap"><table class="narrow-table">
  <caption class="sr-only">Budget against actual</caption>
  <thead><tr><th scope="col">Account</th><th scope="col" class="num">Budget</th><th scope="col" class="num">Actual</th><th scope="col" class="num">Variance</th></tr></thead>
  ${group('revenue', 'Revenue', b.totals.revenue, 'budget-revenue')}
  ${group('expense', 'Expenses', b.totals.expenses, 'budget-expenses')}
  <tbody><tr class="total grand"><th scope="row">Net profit</th>${figures(b.totals.netProfit, 'budget-net')}</tr></tbody>
</table></div>
</section>`;
}

const TAX_METHOD_WORDS: Readonly<Record<DepreciationSchedule['assets'][number]['taxMethod'], string>> = {
  book: 'as the books',
  instant_write_off: 'instant write-off',
  pool: 'small business pool',
};

/** Book depreciation beside the tax deduction, per fixed asset, for the income year; nothing when there are no assets. */
export function depreciationSection(s: Shown<DepreciationSchedule>): Html | null {
  if (!s.report) {
    return html`<section aria-labelledby="dep-title"><h2 id="dep-title">Depreciation</h2><p class="hint">Not shown: ${s.refused}</p></section>`;
  }
  const d = s.report;
  if (d.assets.length === 0) return null;
  const rows = d.assets.map(
    (a) =>
      html`<tr data-asset="${a.assetId}"><th scope="row">${a.name}</th>${money(a.costCents)}${money(a.book.depreciationCents)}${money(
        a.book.closingCents,
      )}<td>${TAX_METHOD_WORDS[a.taxMethod]}</td>${a.tax ? html`${money(a.tax.deductionCents)}${money(a.tax.closingCents)}` : html`<td class="num">in pool</td><td class="num">in pool</td>`}</tr>`,
  );
  const pool =
    d.pool.openingCents === 0 && d.pool.additionsCents === 0 && d.pool.closingCents === 0 && d.pool.deductionCents === 0
      ? null
      : html`<tr data-asset="pool"><th scope="row">Small business pool${d.pool.lowBalanceWriteOff ? ' (written off: below the threshold)' : ''}</th><td class="num"></td><td class="num"></td><td class="num"></td><td>pool</td>${money(
          d.pool.deductionCents,
          'dep-pool-deduction',
        )}${money(d.pool.closingCents, 'dep-pool-closing')}</tr>`;
  return html`<section aria-labelledby="dep-title">
<h2 id="dep-title">Depreciation, income year ${d.incomeYear}</h2>
<p class="hint">The books' depreciation of each fixed asset beside its tax deduction (nothing posts from the tax side). Instant asset write-off and low pool balance threshold this year: ${formatCents(d.thresholdCents)}.</p>
<div class="table-wrap"><table>
  <caption class="sr-only">Depreciation, books and tax</caption>
  <thead><tr><th scope="col">Asset</th><th scope="col" class="num">Cost</th><th scope="col" class="num">Book depreciation</th><th scope="col" class="num">Book value at year end</th><th scope="col">Tax method</th><th scope="col" class="num">Tax deduction</th><th scope="col" class="num">Tax value at year end</th></tr></thead>
  <tbody>${rows}${pool}</tbody>
  <tbody><tr class="total grand"><th scope="row">Total</th><td class="num"></td>${money(d.totals.bookDepreciationCents, 'dep-book-total')}<td class="num"></td><td></td>${money(
    d.totals.taxDeductionCents,
    'dep-tax-total',
  )}<td class="num"></td></tr></tbody>
</table></div>
</section>`;
}
