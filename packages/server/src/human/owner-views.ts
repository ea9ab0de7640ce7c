import { books, quotes, reconciliation, tax } from '@finance-desk/protocol';
import { formatCents, formatCentsIn } from '../money.js';
import type { ChainStatus } from './console-data.js';
import { html, raw, when, type Html } from './html.js';
import type {
  Activity,
  BankAccount,
  ChainFacts,
  OwnerBill,
  OwnerInvoice,
  ownerBank,
  ownerInvoice,
  ownerOverview,
  ownerQuotes,
  ownerReports,
} from './owner-data.js';
import { foreignOf } from './owner-data.js';
import { chartsSection } from './owner-charts-views.js';
import { budgetSection, cashFlowSection, depreciationSection } from './owner-reports-more.js';
import { activityFilterForm, activityList, searchedHint, type ActivityFilterView } from './activity-views.js';

/**
 * The owner's read-only view of the books, as bodies for `page()`. Nothing
 * here changes anything: the only forms are GET filters and the period picker. Every value goes
 * through `html` (escaped); text a caller typed is labelled as theirs.
 */

export type BooksTab = 'overview' | 'invoices' | 'bills' | 'bank' | 'reports' | 'activity';

const TABS: readonly [BooksTab, string, string][] = [
  ['overview', '/console/books', 'Overview'],
  ['invoices', '/console/books/invoices', 'Invoices'],
  ['bills', '/console/books/bills', 'Bills'],
  ['bank', '/console/books/bank', 'Bank'],
  ['reports', '/console/books/reports', 'Reports'],
  ['activity', '/console/books/activity', 'Activity'],
];

export function tabs(current: BooksTab | null): Html {
  const items = TABS.map(([key, href, label]) =>
    key === current ? html`<li><a href="${href}" aria-current="page">${label}</a></li>` : html`<li><a href="${href}">${label}</a></li>`,
  );
  return html`<nav aria-label="Books" class="subnav"><ul>${items}</ul></nav>
<p class="hint readonly">Read-only: this view shows the books as the API reports them; nothing here changes them.</p>`;
}

const money = (cents: number): Html => html`<td class="num">${formatCents(cents)}</td>`;
const docMoney = (cents: number, currency: string | null | undefined): Html => html`<td class="num">${formatCentsIn(cents, currency)}</td>`;

/** A line's tracking (books.trackingSet) beside its description: "Division: Cafe". */
export const trackingHint = (t: Readonly<Record<string, string>> | undefined): Html | null =>
  t === undefined
    ? null
    : html` <span class="hint">${Object.entries(t)
        .map(([category, option]) => `${category}: ${option}`)
        .join(', ')}</span>`;
const date = (d: string | null): string => d ?? '—';

/** A link to `path` with the given query (empty values dropped). */
export function href(path: string, query: Record<string, string | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const text = q.toString();
  return text === '' ? path : `${path}?${text}`;
}

export function pager(
  path: string,
  keep: Record<string, string | null>,
  cursor: string | null,
  next: string | null,
  param = 'cursor',
): Html {
  const first = cursor ? html`<a href="${href(path, keep)}">First page</a>` : null;
  const more = next ? html`<a href="${href(path, { ...keep, [param]: next })}" rel="next">Next page</a>` : null;
  if (!first && !more) return html``;
  return html`<p class="pager">${first}${first && more ? raw(' · ') : null}${more}</p>`;
}

function statusFilter(path: string, label: string, options: readonly string[], selected: string | null, allLabel: string): Html {
  const opts = [
    html`<option value=""${selected === null ? raw(' selected') : null}>${allLabel}</option>`,
    ...options.map((o) => html`<option value="${o}"${o === selected ? raw(' selected') : null}>${o.replace(/_/g, ' ')}</option>`),
  ];
  return html`<form method="get" action="${path}" class="filter">
  <label for="status">${label}</label>
  <select id="status" name="status">${opts}</select>
  <button type="submit" class="secondary">Show</button>
</form>`;
}

function statusBadge(status: string, overdue: boolean): Html {
  const over = overdue ? html` <span class="badge broken">overdue</span>` : null;
  return html`<span class="badge status">${status.replace(/_/g, ' ')}</span>${over}`;
}

// ---- overview ----

function chainPanel(chain: ChainStatus, facts: ChainFacts): Html {
  const badge = chain.verified
    ? html`<span class="badge ok">verified</span>`
    : html`<span class="badge broken">BROKEN at seq ${chain.brokenAt?.seq ?? '?'}</span>`;
  const checkpoint = facts.checkpoint
    ? html`seq ${facts.checkpoint.seq}, signed ${when(facts.checkpoint.createdAt)} by <code>${facts.checkpoint.keyName}</code>`
    : html`none signed yet`;
  const verified = facts.verifiedSeq === null ? html`not yet` : html`through seq ${facts.verifiedSeq}, ${when(facts.verifiedAt)}`;
  return html`<section class="card" aria-labelledby="chain-title">
  <h2 id="chain-title">Ledger chain</h2>
  <dl class="facts">
    <dt>State</dt><dd>${badge}</dd>
    <dt>Head</dt><dd>${chain.head.seq === 0 ? 'empty' : html`seq ${chain.head.seq} <code class="hash">${chain.head.rowHash}</code>`}</dd>
    <dt>Checked</dt><dd>${verified}</dd>
    <dt>Last checkpoint</dt><dd>${checkpoint}</dd>
  </dl>
  <p class="hint">Each console page checks only the events added since the last check; a full check of every event is <code>finance-desk verify</code>.</p>
</section>`;
}

function bankTable(rows: Awaited<ReturnType<typeof ownerOverview>>['bank']): Html {
  const body = rows.map(
    (r) => html`<tr>
  <th scope="row"><a href="${href('/console/books/bank', { account: r.account.code })}">${r.account.name}</a> <span class="mono">${r.account.code}</span></th>
  ${money(r.summary.ledgerBalanceCents)}
  <td class="num">${r.summary.unreconciledLines}</td>
  ${money(r.summary.unreconciledCents)}
</tr>`,
  );
  return html`<div class="table-wrap"><table>
  <caption>Bank accounts</caption>
  <thead><tr><th scope="col">Account</th><th scope="col" class="num">Ledger balance</th>
  <th scope="col" class="num">Unreconciled lines</th><th scope="col" class="num">Unreconciled sum</th></tr></thead>
  <tbody>${body}</tbody>
</table></div>`;
}

export function overviewBody(o: Awaited<ReturnType<typeof ownerOverview>>, chain: ChainStatus): Html {
  return html`<h1>The books at a glance</h1>
${tabs('overview')}
<div class="cards two">
  <section class="card" aria-labelledby="money-title">
    <h2 id="money-title">Owed, as at ${o.today}</h2>
    <dl class="facts">
      <dt>Customers owe you</dt><dd>${formatCents(o.receivableCents)}
        (<a href="/console/books/invoices">${o.overdueInvoices} overdue ${o.overdueInvoices === 1 ? 'invoice' : 'invoices'}</a>)</dd>
      <dt>You owe suppliers</dt><dd>${formatCents(o.payableCents)}
        (<a href="/console/books/bills">${o.overdueBills} overdue ${o.overdueBills === 1 ? 'bill' : 'bills'}</a>)</dd>
    </dl>
  </section>
  ${chainPanel(chain, o.chain)}
</div>
${bankTable(o.bank)}
${chartsSection(o.charts)}
<section aria-labelledby="activity-title">
  <h2 id="activity-title">Recent activity</h2>
  ${activityList(o.activity)}
  <p><a href="/console/books/activity">All activity</a></p>
</section>`;
}

// ---- activity (activity-views.ts) ----

export function activityBody(
  items: readonly Activity[],
  before: number | null,
  nextBefore: number | null,
  filter: ActivityFilterView,
  searchedFrom: number | null,
): Html {
  const filtered = filter.kind !== null || filter.who !== null;
  return html`<h1>Activity</h1>
${tabs('activity')}
<p class="hint">Newest first: every event in the ledger, in Finance Desk's words. Text an agent or a person typed is quoted and labelled as theirs.</p>
${activityFilterForm(filter)}
${filter.error ? null : activityList(items, filtered ? 'Nothing of that kind in this part of the ledger.' : 'Nothing has happened yet.')}
${searchedHint(filtered, searchedFrom, nextBefore)}
${pager('/console/books/activity', { kind: filter.kind, who: filter.who }, before === null ? null : String(before), nextBefore === null ? null : String(nextBefore), 'before')}`;
}

// ---- invoices and bills ----

function invoiceRow(i: OwnerInvoice): Html {
  return html`<tr${i.overdue ? raw(' class="overdue"') : null}>
  <th scope="row"><a href="/console/books/invoices/${encodeURIComponent(i.id)}">${i.number ?? i.id}</a></th>
  <td>${i.customer}</td>
  <td class="date">${date(i.issuedOn)}</td>
  <td class="date">${date(i.dueOn)}</td>
  ${docMoney(i.totalCents, i.currency)}
  ${docMoney(i.outstandingCents, i.currency)}
  <td>${statusBadge(i.status, i.overdue)}</td>
</tr>`;
}

export function invoicesBody(v: {
  rows: readonly OwnerInvoice[];
  nextCursor: string | null;
  status: string | null;
  cursor: string | null;
  today: string;
}): Html {
  const table = v.rows.length
    ? html`<div class="table-wrap"><table>
  <caption>Invoices, oldest first (overdue as at ${v.today})</caption>
  <thead><tr><th scope="col">Number</th><th scope="col">Customer</th><th scope="col">Issued</th><th scope="col">Due</th>
  <th scope="col" class="num">Total</th><th scope="col" class="num">Outstanding</th><th scope="col">Status</th></tr></thead>
  <tbody>${v.rows.map(invoiceRow)}</tbody>
</table></div>`
    : html`<p>No invoices${v.status ? ` with status ${v.status.replace(/_/g, ' ')}` : ''}.</p>`;
  return html`<h1>Invoices</h1>
${tabs('invoices')}
<p><a href="/console/books/quotes">Quotes</a>: offers to customers, and the invoices accepted ones became.</p>
${statusFilter('/console/books/invoices', 'Status', books.invoiceStatus.options, v.status, 'all invoices')}
${table}
${pager('/console/books/invoices', { status: v.status }, v.cursor, v.nextCursor)}`;
}

export function invoiceBody(v: Awaited<ReturnType<typeof ownerInvoice>>): Html {
  const i = { ...v.invoice, ...foreignOf(v.invoice) };
  const lines = i.lines.map(
    (l) =>
      html`<tr><td>${l.description}${trackingHint(l.tracking)}</td><td class="mono">${l.accountCode}</td><td class="mono">${l.taxCode}</td>${docMoney(l.amountCents, i.currency)}</tr>`,
  );
  // A foreign invoice's amounts are in its currency; the books carry them in AUD at its rate.
  const aud =
    i.currency !== undefined && i.audTotalCents !== undefined
      ? html`<dt>In Australian dollars</dt><dd>${formatCents(i.audTotalCents)} at ${i.exchangeRate ?? ''} per ${i.currency}${
          i.audOutstandingCents !== undefined ? `, ${formatCents(i.audOutstandingCents)} still carried` : ''
        }</dd>`
      : null;
  return html`<h1>Invoice ${v.number ?? i.id}</h1>
${tabs('invoices')}
<dl class="facts card">
  <dt>Customer</dt><dd>${i.payeeName}</dd>
  <dt>Status</dt><dd>${statusBadge(i.status, v.overdue)}</dd>
  <dt>Issued</dt><dd>${date(i.issuedOn)}</dd>
  <dt>Due</dt><dd>${date(i.dueOn)}</dd>
  <dt>Total</dt><dd>${formatCentsIn(i.totalCents, i.currency)} (GST ${formatCentsIn(i.gstCents, i.currency)})</dd>
  <dt>Outstanding</dt><dd>${formatCentsIn(i.outstandingCents, i.currency)}</dd>
  ${aud}
  <dt>Description</dt><dd>${i.description}</dd>
  <dt>Id</dt><dd><code>${i.id}</code></dd>
</dl>
<div class="table-wrap"><table>
  <caption>Lines</caption>
  <thead><tr><th scope="col">Description</th><th scope="col">Account</th><th scope="col">Tax code</th><th scope="col" class="num">Amount</th></tr></thead>
  <tbody>${lines}</tbody>
</table></div>
<section aria-labelledby="history-title">
  <h2 id="history-title">What happened to it</h2>
  ${activityList(v.history.items)}
</section>`;
}

type OwnerQuote = Awaited<ReturnType<typeof ownerQuotes>>['rows'][number];

function quoteRow(q: OwnerQuote): Html {
  const invoice = q.invoiceId ? html`<a href="/console/books/invoices/${encodeURIComponent(q.invoiceId)}">invoice</a>` : html`—`;
  const expired = q.expired ? html` <span class="badge broken">expired</span>` : null;
  return html`<tr>
  <th scope="row">${q.number}</th>
  <td>${q.payeeName}</td>
  <td class="date">${q.date}</td>
  <td class="date">${q.expiryDate}</td>
  ${money(q.totalCents)}
  <td>${statusBadge(q.status, false)}${expired}</td>
  <td>${invoice}</td>
</tr>`;
}

/** Quotes, read-only: a sibling of the invoices page (a quote posts nothing; accepted, it is an invoice). */
export function quotesBody(v: Awaited<ReturnType<typeof ownerQuotes>>): Html {
  const table = v.rows.length
    ? html`<div class="table-wrap"><table>
  <caption>Quotes, oldest first</caption>
  <thead><tr><th scope="col">Number</th><th scope="col">Customer</th><th scope="col">Date</th><th scope="col">Expires</th>
  <th scope="col" class="num">Total</th><th scope="col">Status</th><th scope="col">Invoice</th></tr></thead>
  <tbody>${v.rows.map(quoteRow)}</tbody>
</table></div>`
    : html`<p>No quotes${v.status ? ` with status ${v.status}` : ''}.</p>`;
  return html`<h1>Quotes</h1>
${tabs('invoices')}
${statusFilter('/console/books/quotes', 'Status', quotes.QUOTE_STATUSES, v.status, 'all quotes')}
${table}
${pager('/console/books/quotes', { status: v.status }, v.cursor, v.nextCursor)}`;
}

function billRow(b: OwnerBill): Html {
  return html`<tr${b.overdue ? raw(' class="overdue"') : null}>
  <th scope="row"><code>${b.id}</code></th>
  <td>${b.supplier}</td>
  <td class="date">${date(b.dueOn)}</td>
  ${docMoney(b.totalCents, b.currency)}
  ${docMoney(b.outstandingCents, b.currency)}
  <td>${statusBadge(b.status, b.overdue)}</td>
</tr>`;
}

export function billsBody(v: {
  rows: readonly OwnerBill[];
  nextCursor: string | null;
  status: string | null;
  cursor: string | null;
  today: string;
}): Html {
  const table = v.rows.length
    ? html`<div class="table-wrap"><table>
  <caption>Bills, oldest first (overdue as at ${v.today})</caption>
  <thead><tr><th scope="col">Bill</th><th scope="col">Supplier</th><th scope="col">Due</th>
  <th scope="col" class="num">Total</th><th scope="col" class="num">Outstanding</th><th scope="col">Status</th></tr></thead>
  <tbody>${v.rows.map(billRow)}</tbody>
</table></div>`
    : html`<p>No bills${v.status ? ` with status ${v.status.replace(/_/g, ' ')}` : ''}.</p>`;
  return html`<h1>Bills</h1>
${tabs('bills')}
${statusFilter('/console/books/bills', 'Status', books.billStatus.options, v.status, 'all bills')}
${table}
${pager('/console/books/bills', { status: v.status }, v.cursor, v.nextCursor)}`;
}

// ---- bank ----

function accountPicker(accounts: readonly BankAccount[], current: string, status: string): Html {
  const opts = accounts.map(
    (a) => html`<option value="${a.code}"${a.code === current ? raw(' selected') : null}>${a.code} ${a.name}</option>`,
  );
  const statuses = ['all', 'unreconciled', ...reconciliation.feedLineStatus.options].map(
    (s) => html`<option value="${s}"${s === status ? raw(' selected') : null}>${s.replace(/_/g, ' ')}</option>`,
  );
  return html`<form method="get" action="/console/books/bank" class="filter">
  <label for="account">Account</label>
  <select id="account" name="account">${opts}</select>
  <label for="status">Lines</label>
  <select id="status" name="status">${statuses}</select>
  <button type="submit" class="secondary">Show</button>
</form>`;
}

export function bankBody(v: Awaited<ReturnType<typeof ownerBank>>): Html {
  const s = v.summary;
  const rows = v.lines.map(
    (l) => html`<tr${l.status === 'unmatched' || l.status === 'held' ? raw(' class="open"') : null}>
  <td class="date">${l.date}</td>
  <td>${l.description}${l.reference ? html` <span class="mono">${l.reference}</span>` : null}</td>
  ${money(l.amountCents)}
  ${money(l.remainingCents)}
  <td><span class="badge status">${l.status.replace(/_/g, ' ')}</span></td>
</tr>`,
  );
  const table = v.lines.length
    ? html`<div class="table-wrap"><table>
  <caption>Feed lines of ${v.account.code} ${v.account.name}, oldest first</caption>
  <thead><tr><th scope="col">Date</th><th scope="col">Bank's description (as imported)</th><th scope="col" class="num">Amount</th>
  <th scope="col" class="num">Not yet matched</th><th scope="col">Status</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
    : html`<p>No feed lines to show.</p>`;
  return html`<h1>Bank: ${v.account.name}</h1>
${tabs('bank')}
${accountPicker(v.accounts, v.account.code, v.status)}
<dl class="facts card">
  <dt>Ledger balance</dt><dd>${formatCents(s.ledgerBalanceCents)}</dd>
  <dt>Unreconciled lines</dt><dd>${s.unreconciledLines}</dd>
  <dt>Unreconciled sum</dt><dd>${formatCents(s.unreconciledCents)} (money in positive, out negative)</dd>
</dl>
${table}
${pager('/console/books/bank', { account: v.account.code, status: v.status }, v.cursor, v.nextCursor)}`;
}

// ---- reports ----

export interface PeriodForm {
  readonly from: string;
  readonly to: string;
  /** The comparison chosen (books.reports' compare), '' for none. */
  readonly compare?: string;
  readonly error: string | null;
}

/** The comparison choices of the period picker: books.reports' compare kinds, and none. */
const COMPARE_CHOICES: readonly (readonly [string, string])[] = [
  ['', 'None'],
  ['previous_period', 'Previous period'],
  ['previous_year', 'Same period last year'],
];

function compareOptions(current: string): Html[] {
  return COMPARE_CHOICES.map(
    ([value, label]) => html`<option value="${value}"${value === current ? raw(' selected') : null}>${label}</option>`,
  );
}

function periodForm(f: PeriodForm): Html {
  const error = f.error ? html`<p role="alert" class="notice error" id="period-error">${f.error}</p>` : null;
  const described = f.error ? raw(' aria-describedby="period-error"') : null;
  return html`${error}<form method="get" action="/console/books/reports" class="filter"${described}>
  <label for="from">From</label>
  <input id="from" name="from" type="date" value="${f.from}" required>
  <label for="to">To</label>
  <input id="to" name="to" type="date" value="${f.to}" required>
  <label for="compare">Compare with</label>
  <select id="compare" name="compare">${compareOptions(f.compare ?? '')}</select>
  <button type="submit" class="secondary">Show</button>
</form>`;
}

/**
 * What a statement's rows need beyond their figures: whether books.reports compared them (two
 * more columns: the comparison's figure and amount − comparison) and the period each account's
 * general ledger link covers.
 */
interface StatementContext {
  readonly compared: boolean;
  readonly from: string;
  readonly to: string;
}

interface StatementLine {
  readonly code: string | null;
  readonly name: string;
  readonly amountCents: number;
  readonly comparisonCents?: number | undefined;
  readonly differenceCents?: number | undefined;
}

/** An account's general ledger detail for the period (owner-ledger.ts). */
export const ledgerHref = (code: string, from: string, to: string): string =>
  href('/console/books/ledger', { accountCode: code, from, to });

function sectionRows(
  title: string,
  s: {
    accounts: readonly StatementLine[];
    totalCents: number;
    comparisonTotalCents?: number | undefined;
    differenceCents?: number | undefined;
  },
  id: string,
  c: StatementContext,
): Html {
  const rows = s.accounts.map(
    (a) =>
      html`<tr><th scope="row">${
        a.code ? html`<span class="mono">${a.code}</span> <a href="${ledgerHref(a.code, c.from, c.to)}">${a.name}</a>` : a.name
      }</th>${money(a.amountCents)}${c.compared ? html`${money(a.comparisonCents ?? 0)}${money(a.differenceCents ?? 0)}` : null}</tr>`,
  );
  const compared = c.compared
    ? html`<td class="num" id="${id}-comparison">${formatCents(s.comparisonTotalCents ?? 0)}</td><td class="num" id="${id}-difference">${formatCents(
        s.differenceCents ?? 0,
      )}</td>`
    : null;
  return html`<tbody>
<tr class="group"><th scope="rowgroup" colspan="${c.compared ? 4 : 2}">${title}</th></tr>
${rows}
<tr class="total"><th scope="row">Total ${title.toLowerCase()}</th><td class="num" id="${id}">${formatCents(s.totalCents)}</td>${compared}</tr>
</tbody>`;
}

/** The column heads of a compared statement: this period, the comparison, the difference. */
function comparedHead(current: string, comparison: string): Html {
  return html`<thead><tr><th scope="col">Account</th><th scope="col" class="num">${current}</th>
<th scope="col" class="num">${comparison}</th><th scope="col" class="num">Difference</th></tr></thead>`;
}

/** What each BAS label is, in the ATO's words (shortened). */
const BAS_LABEL_NAMES: Readonly<Record<string, string>> = {
  G1: 'Total sales',
  G2: 'Export sales',
  G3: 'Other GST-free sales',
  G10: 'Capital purchases',
  G11: 'Non-capital purchases',
  '1A': 'GST on sales',
  '1B': 'GST on purchases',
  W1: 'Total salary, wages and other payments',
  W2: 'Amounts withheld from payments shown at W1',
};

function basTable(r: Awaited<ReturnType<typeof ownerReports>>): Html {
  const labels = tax.BAS_LABELS.map(
    (l) =>
      html`<tr><th scope="row"><span class="mono">${l}</span> ${BAS_LABEL_NAMES[l] ?? ''}</th><td class="num" data-label="${l}">$${r.bas.labels[l].toLocaleString('en-AU')}</td></tr>`,
  );
  const sum = r.bas.summary;
  const note = r.gstRegistered ? null : html`<p class="hint">The organisation is not registered for GST (see Organisation).</p>`;
  return html`<section aria-labelledby="bas-title">
<h2 id="bas-title">Business activity statement figures</h2>
<p class="hint">${r.basis === 'cash' ? 'Cash' : 'Accrual'} basis, whole dollars, ${r.period.from} to ${r.period.to}: what a BAS prepared for this period would carry.</p>
${note}
<div class="table-wrap"><table class="narrow-table">
  <caption class="sr-only">BAS labels</caption>
  <tbody>${labels}
  <tr class="total"><th scope="row">8A (owed to the ATO)</th><td class="num">$${sum['8A'].toLocaleString('en-AU')}</td></tr>
  <tr class="total"><th scope="row">8B (owed by the ATO)</th><td class="num">$${sum['8B'].toLocaleString('en-AU')}</td></tr>
  <tr class="total"><th scope="row">9 (${sum.position})</th><td class="num" id="bas-9">$${sum['9'].toLocaleString('en-AU')}</td></tr>
  </tbody>
</table></div>
</section>`;
}

/** Milli-hours as hours with up to three decimals (`16`, `5.846`, `-2.5`). */
function hours(milli: number): string {
  const abs = Math.abs(milli);
  const frac = String(abs % 1000)
    .padStart(3, '0')
    .replace(/0+$/, '');
  return `${milli < 0 ? '-' : ''}${Math.floor(abs / 1000)}${frac ? `.${frac}` : ''}`;
}

const num = (n: number | string): Html => html`<td class="num">${n}</td>`;

type PayrollFigures = Awaited<ReturnType<typeof ownerReports>>['payroll']['totals'];

/**
 * The report's earnings types beyond salary and wages and paid leave, in plain words; each a
 * column only when some employee was paid it in the period (the report leaves a type out when none was).
 */
const EARNINGS_COLUMNS: readonly (readonly [string, (f: PayrollFigures) => number | undefined])[] = [
  ['Overtime', (f) => f.earnings.overtimeCents],
  ['Bonuses and commissions', (f) => f.earnings.bonusesCommissionsCents],
  ['Allowances', (f) => f.earnings.allowancesCents],
  ['Unused leave paid on termination', (f) => f.earnings.unusedLeaveOnTerminationCents],
];
/** Gross less this less PAYG is net: shown after gross, when some was sacrificed. */
const SACRIFICE_COLUMN = ['Salary sacrificed to super', (f: PayrollFigures) => f.salarySacrificeCents] as const;

function payrollTable(r: Awaited<ReturnType<typeof ownerReports>>): Html {
  const p = r.payroll;
  const rows = [...p.employees, p.totals];
  const shown = (c: readonly [string, (f: PayrollFigures) => number | undefined]) => rows.some((f) => (c[1](f) ?? 0) !== 0);
  const earnings = EARNINGS_COLUMNS.filter(shown);
  const sacrifice = shown(SACRIFICE_COLUMN) ? [SACRIFICE_COLUMN] : [];
  const head = (cols: readonly (readonly [string, unknown])[]) => cols.map(([label]) => html`<th scope="col" class="num">${label}</th>`);
  const extra = (f: PayrollFigures, cols: readonly (readonly [string, (f: PayrollFigures) => number | undefined])[]) =>
    cols.map(([, of]) => money(of(f) ?? 0));
  const cells = (f: PayrollFigures) =>
    html`${num(f.runs)}${money(f.earnings.salaryWagesCents)}${money(f.earnings.paidLeaveCents)}${extra(f, earnings)}${money(
      f.grossCents,
    )}${extra(f, sacrifice)}${money(f.paygWithheldCents)}${money(f.superCents)}${money(f.netCents)}${num(
      hours(f.leaveTakenMilliHours.annual),
    )}${num(hours(f.leaveTakenMilliHours.personal))}`;
  const table = p.employees.length
    ? html`<div class="table-wrap"><table>
  <caption class="sr-only">Payroll activity per employee</caption>
  <thead><tr><th scope="col">Employee</th><th scope="col" class="num">Runs</th><th scope="col" class="num">Salary and wages</th>
  <th scope="col" class="num">Paid leave</th>${head(earnings)}<th scope="col" class="num">Gross</th>${head(sacrifice)}<th scope="col" class="num">PAYG withheld</th>
  <th scope="col" class="num">Super</th><th scope="col" class="num">Net</th><th scope="col" class="num">Annual leave taken (h)</th>
  <th scope="col" class="num">Personal leave taken (h)</th></tr></thead>
  <tbody>${p.employees.map((e) => html`<tr><th scope="row">${e.name}</th>${cells(e)}</tr>`)}
  <tr class="total grand"><th scope="row">Total</th>${cells(p.totals)}</tr></tbody>
</table></div>`
    : html`<p>No signed pay run was paid in this period.</p>`;
  return html`<section aria-labelledby="payroll-title">
<h2 id="payroll-title">Payroll activity, ${p.from} to ${p.to}</h2>
<p class="hint">Signed pay runs by payment date (recalled runs left out): the figures Single Touch Payroll reports for them. Runs in the total row are distinct pay runs.</p>
${table}
</section>`;
}

function leaveTable(r: Awaited<ReturnType<typeof ownerReports>>): Html {
  const l = r.leave;
  const cells = (b: { annual: { milliHours: number; valueCents: number }; personal: { milliHours: number; valueCents: number } }) =>
    html`${num(hours(b.annual.milliHours))}${money(b.annual.valueCents)}${num(hours(b.personal.milliHours))}${money(b.personal.valueCents)}`;
  const table = l.employees.length
    ? html`<div class="table-wrap"><table>
  <caption class="sr-only">Leave balances per employee</caption>
  <thead><tr><th scope="col">Employee</th><th scope="col" class="num">Annual leave (h)</th><th scope="col" class="num">Annual value</th>
  <th scope="col" class="num">Personal leave (h)</th><th scope="col" class="num">Personal value</th><th scope="col" class="num">Total value</th></tr></thead>
  <tbody>${l.employees.map((e) => html`<tr><th scope="row">${e.name}</th>${cells(e)}${money(e.valueCents)}</tr>`)}
  <tr class="total grand"><th scope="row">Total</th>${cells(l.totals)}<td class="num" id="leave-value">${formatCents(l.totals.valueCents)}</td></tr></tbody>
</table></div>`
    : html`<p>No active employees.</p>`;
  return html`<section aria-labelledby="leave-title">
<h2 id="leave-title">Leave balances as at ${l.asOf}</h2>
<p class="hint">Accrued less taken, valued at each employee's hourly rate on that date (a salary ÷ (hours a week × 52)). Annual leave loading is not included.</p>
${table}
</section>`;
}

export function reportsBody(form: PeriodForm, r: Awaited<ReturnType<typeof ownerReports>> | null): Html {
  if (!r) {
    return html`<h1>Reports</h1>
${tabs('reports')}
${periodForm(form)}`;
  }
  const pl = r.profitAndLoss;
  const bs = r.balanceSheet;
  const plc = pl.comparison;
  const bsc = bs.comparison;
  const plCtx: StatementContext = { compared: plc !== undefined, from: r.period.from, to: r.period.to };
  const bsCtx: StatementContext = { compared: bsc !== undefined, from: r.period.from, to: r.period.to };
  const netCompared = plc
    ? html`<td class="num" id="pl-net-comparison">${formatCents(plc.netProfitCents)}</td><td class="num" id="pl-net-difference">${formatCents(
        plc.differenceCents,
      )}</td>`
    : null;
  return html`<h1>Reports</h1>
${tabs('reports')}
${periodForm(form)}
<p class="hint">Each account name opens its general ledger for the period: every line posted to it with a running balance.</p>
<section aria-labelledby="pl-title">
<h2 id="pl-title">Profit and loss, ${pl.from} to ${pl.to}${plc ? html`, compared with ${plc.from} to ${plc.to}` : null}</h2>
<div class="table-wrap"><table class="narrow-table">
  <caption class="sr-only">Profit and loss</caption>
  ${plc ? comparedHead(`${pl.from} to ${pl.to}`, `${plc.from} to ${plc.to}`) : null}
  ${sectionRows('Revenue', pl.revenue, 'pl-revenue', plCtx)}
  ${sectionRows('Expenses', pl.expenses, 'pl-expenses', plCtx)}
  <tbody><tr class="total grand"><th scope="row">Net profit</th><td class="num" id="pl-net">${formatCents(pl.netProfitCents)}</td>${netCompared}</tr></tbody>
</table></div>
</section>
<section aria-labelledby="bs-title">
<h2 id="bs-title">Balance sheet as at ${bs.asOf}${bsc ? html`, compared with ${bsc.asOf}` : null}</h2>
<div class="table-wrap"><table class="narrow-table">
  <caption class="sr-only">Balance sheet</caption>
  ${bsc ? comparedHead(`As at ${bs.asOf}`, `As at ${bsc.asOf}`) : null}
  ${sectionRows('Assets', bs.assets, 'bs-assets', bsCtx)}
  ${sectionRows('Liabilities', bs.liabilities, 'bs-liabilities', bsCtx)}
  ${sectionRows('Equity', bs.equity, 'bs-equity', bsCtx)}
</table></div>
<p class="hint">Assets equal liabilities plus equity: ${bs.balanced ? 'balanced' : 'NOT balanced'}.</p>
</section>
${basTable(r)}
${payrollTable(r)}
${leaveTable(r)}
${cashFlowSection(r.cashFlow)}
${budgetSection(r.budget)}
${depreciationSection(r.depreciation)}`;
}
