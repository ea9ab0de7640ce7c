import { booksReads, validate } from '@finance-desk/protocol';
import type { FastifyInstance } from 'fastify';
import { orgToday } from '../clock.js';
import { badRequest } from '../errors.js';
import { runReport } from '../domain/reports/reports.js';
import { loadProfile } from '../org/profile.js';
import type { Database } from '../storage/types.js';
import type { ConsoleOptions } from './console-http.js';
import { render, signedIn } from './console-pages.js';
import { html, type Html } from './html.js';
import { OWNER_PAGE_ROWS, queryField, readContextOf, requireBooksViewer, yearStartOf, type Query } from './owner-data.js';
import { href, pager, tabs, trackingHint } from './owner-views.js';
import { formatCents } from '../money.js';
import type { HumanSession } from './sessions.js';

/**
 * The general ledger of one account in the owner's view of the books
 * (/console/books/ledger?accountCode=&from=&to=&cursor=): what books.reports gives for
 * account_transactions, 50 lines a page by its cursor. The reports page links each account of
 * the profit and loss and the balance sheet here for its period. The query is checked by
 * books.reports' own params schema, so a bad account, period or cursor is a 400 naming the field
 * and an account the chart does not have is refused as the API refuses it.
 */

type Ledger = Extract<Awaited<ReturnType<typeof runReport>>, { type: 'account_transactions' }>;

export async function ownerLedger(db: Database, s: HumanSession, query: Query): Promise<Ledger> {
  const [profile, today] = await Promise.all([loadProfile(db.reader, s.orgId), orgToday(db, s.orgId)]);
  const accountCode = queryField(query, 'accountCode');
  const cursor = queryField(query, 'cursor');
  const p = validate(booksReads.reports.params, {
    type: 'account_transactions',
    from: queryField(query, 'from') ?? yearStartOf(today, profile.financialYearStartMonth),
    to: queryField(query, 'to') ?? today,
    ...(accountCode === undefined ? {} : { accountCode }),
    ...(cursor === undefined ? {} : { cursor }),
    limit: OWNER_PAGE_ROWS,
  });
  if (!p.ok) throw badRequest(p.message);
  return (await runReport(p.value, readContextOf(db, s))) as Ledger;
}

const money = (cents: number): Html => html`<td class="num">${formatCents(cents)}</td>`;
/** A debit or credit column: blank when the line has none on that side. */
const side = (cents: number): Html => (cents === 0 ? html`<td class="num"></td>` : money(cents));

export function ledgerBody(l: Ledger, cursor: string | null): Html {
  const rows = l.lines.map(
    (x) => html`<tr>
  <td class="date">${x.date}</td>
  <td><code>${x.journalId}</code></td>
  <td>${x.source.kind.replace(/_/g, ' ')} <code>${x.source.id}</code></td>
  <td>${x.description || x.memo}${x.description && x.memo && x.memo !== x.description ? html` <span class="hint">(${x.memo})</span>` : null}${trackingHint(x.tracking)}</td>
  ${side(x.debitCents)}
  ${side(x.creditCents)}
  ${money(x.balanceCents)}
</tr>`,
  );
  const table = l.lines.length
    ? html`<div class="table-wrap"><table>
  <caption>Lines posted to ${l.account.code} ${l.account.name}, ${l.from} to ${l.to}, oldest first</caption>
  <thead><tr><th scope="col">Date</th><th scope="col">Journal</th><th scope="col">Source</th><th scope="col">Description (as entered)</th>
  <th scope="col" class="num">Debit</th><th scope="col" class="num">Credit</th><th scope="col" class="num">Balance</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`
    : html`<p>Nothing was posted to this account from ${l.from} to ${l.to}.</p>`;
  const keep = { accountCode: l.account.code, from: l.from, to: l.to };
  return html`<h1>General ledger: <span class="mono">${l.account.code}</span> ${l.account.name}</h1>
${tabs('reports')}
<dl class="facts card">
  <dt>Type</dt><dd>${l.account.type}</dd>
  <dt>Period</dt><dd>${l.from} to ${l.to}</dd>
  <dt>Opening balance</dt><dd id="ledger-opening">${formatCents(l.openingBalanceCents)}</dd>
  <dt>Debits in the period</dt><dd id="ledger-debits">${formatCents(l.totals.debitCents)}</dd>
  <dt>Credits in the period</dt><dd id="ledger-credits">${formatCents(l.totals.creditCents)}</dd>
  <dt>Closing balance</dt><dd id="ledger-closing">${formatCents(l.closingBalanceCents)}</dd>
</dl>
<p class="hint">Balances are in the account's normal direction (debit less credit for assets and expenses, credit less debit for the rest); the running balance is after each line.</p>
${table}
${pager('/console/books/ledger', keep, cursor, l.nextCursor)}
<p><a href="${href('/console/books/reports', { from: l.from, to: l.to })}">Back to the reports</a></p>`;
}

export function registerOwnerLedger(app: FastifyInstance, o: ConsoleOptions): void {
  app.get(
    '/console/books/ledger',
    signedIn(o, async (req, reply, s) => {
      requireBooksViewer(s);
      const q = (req.query ?? undefined) as Query;
      const l = await ownerLedger(o.db, s, q);
      const title = `General ledger ${l.account.code}`;
      return render(o, reply, s, { status: 200, title, body: ledgerBody(l, queryField(q, 'cursor') ?? null), current: 'books' });
    }),
  );
}
