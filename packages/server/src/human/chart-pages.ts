import { TAX_CODE_NAMES, booksReads, chart, statusOf, validate } from '@finance-desk/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { accountArchive, accountCreate, accountUpdate, chartAccountOf, hasPostings, listChart } from '../domain/gl/accounts.js';
import { listAccounts } from '../domain/reports/accounts-read.js';
import { DomainError, notFound } from '../errors.js';
import { formatCents } from '../money.js';
import { inUnitOfWork, type Uow } from '../write-path.js';
import { seeOther, type ConsoleOptions } from './console-http.js';
import { formPost, render, signedIn } from './console-pages.js';
import { html, raw, type Html } from './html.js';
import { readContextOf } from './owner-data.js';
import { csrfToken, type HumanSession } from './sessions.js';

/**
 * The console's Chart of accounts page (/console/accounts): every signed-in person sees the
 * organisation's accounts by class with their default tax code, flags and balance (books.accounts'
 * figure, in the account's normal direction); an owner adds an account, opens one
 * (/console/accounts/<code>) to rename it, retype it (not a system account, not once posted),
 * change its default tax code or reconcilable flag, or archive it. Each change runs the chart
 * method's own domain function in one unit of work with the owner's user id as the actor: the
 * API's checks, one ledger event, and a repeat that changes nothing writes nothing. A refused
 * change re-shows the form with the domain's message beside the field it names.
 */

type Account = NonNullable<Awaited<ReturnType<typeof chartAccountOf>>>;
type AccountType = (typeof booksReads.ACCOUNT_TYPES)[number];

const CLASS_TITLES: Readonly<Record<AccountType, string>> = {
  asset: 'Assets',
  liability: 'Liabilities',
  equity: 'Equity',
  revenue: 'Revenue',
  expense: 'Expenses',
};

/** The form's fields, the params' names: a domain message "type: …" lands beside the type field. */
const FIELDS = ['code', 'name', 'type', 'taxCode', 'reconcilable'] as const;
type Field = (typeof FIELDS)[number];
type Values = Readonly<Record<Field, string>>;
/** Messages keyed by field; `form` for what names no field (a system account, a balance left). */
type Errors = Readonly<Partial<Record<Field | 'form' | 'archive', string>>>;

const EMPTY: Values = { code: '', name: '', type: 'expense', taxCode: '', reconcilable: '' };

export function requireChartOwner(s: HumanSession): void {
  if (s.role !== 'owner') {
    throw new DomainError('FORBIDDEN_SCOPE', `user ${s.userId} is a ${s.role}; only owners change the chart of accounts`);
  }
}

/**
 * A refusal's message split by the fields it names ("code: …; name: …"); a part naming no field
 * continues the one before it (the domain's messages carry "; " inside a sentence), or goes to
 * `fallback` when it comes first.
 */
export function errorsOf(message: string, fallback: 'form' | 'archive' = 'form'): Errors {
  const out: Partial<Record<Field | 'form' | 'archive', string>> = {};
  let last: Field | 'form' | 'archive' | null = null;
  for (const part of message.split('; ')) {
    const m = /^(\w+): (.*)$/s.exec(part);
    const field = m && (FIELDS as readonly string[]).includes(m[1] ?? '') ? (m[1] as Field) : null;
    if (field && m) {
      out[field] = out[field] ? `${out[field]}; ${m[2] ?? ''}` : (m[2] ?? '');
      last = field;
    } else {
      const key: Field | 'form' | 'archive' = last ?? fallback;
      out[key] = out[key] ? `${out[key]}; ${part}` : part;
      last = key;
    }
  }
  return out;
}

function fieldError(id: Field | 'archive', e: Errors): Html | null {
  const m = e[id];
  return m ? html`<p class="notice error" id="${id}-error">${m}</p>` : null;
}

function described(id: Field, e: Errors): Html | null {
  return e[id] ? raw(` aria-invalid="true" aria-describedby="${id}-error"`) : null;
}

function typeOptions(current: string): Html[] {
  return booksReads.ACCOUNT_TYPES.map((t) =>
    t === current ? html`<option value="${t}" selected>${t}</option>` : html`<option value="${t}">${t}</option>`,
  );
}

function taxOptions(current: string): Html[] {
  return [
    html`<option value=""${current === '' ? raw(' selected') : null}>none</option>`,
    ...TAX_CODE_NAMES.map((c) => html`<option value="${c}"${c === current ? raw(' selected') : null}>${c}</option>`),
  ];
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');
const checked = (v: string) => (v === '' ? null : raw(' checked'));

// ---- the list ----

interface ChartRow extends Account {
  readonly balanceCents: number;
}

async function chartRows(o: ConsoleOptions, s: HumanSession): Promise<ChartRow[]> {
  const [accounts, balances] = await Promise.all([listChart(o.db.reader, s.orgId), listAccounts({}, readContextOf(o.db, s))]);
  const byCode = new Map(balances.accounts.map((b) => [b.code, b.balanceCents]));
  return accounts.map((a) => ({ ...a, balanceCents: byCode.get(a.code) ?? 0 }));
}

function accountRow(a: ChartRow, owner: boolean): Html {
  const code = owner ? html`<a href="/console/accounts/${a.code}">${a.code}</a>` : html`${a.code}`;
  return html`<tr${a.archived ? raw(' class="archived"') : null}><th scope="row" class="mono">${code}</th><td>${a.name}</td>
<td>${a.type}</td><td>${a.taxCode ?? '—'}</td><td>${yesNo(a.reconcilable)}</td>
<td>${a.system ? html`<span class="badge">system</span>` : 'no'}</td>
<td>${a.archived ? html`<span class="badge status">archived</span>` : 'no'}</td>
<td class="num">${formatCents(a.balanceCents)}</td></tr>`;
}

function classTable(type: AccountType, rows: readonly ChartRow[], owner: boolean): Html {
  const mine = rows.filter((r) => r.type === type);
  return html`<section aria-labelledby="class-${type}">
<h2 id="class-${type}">${CLASS_TITLES[type]}</h2>
${
  mine.length === 0
    ? html`<p>No ${type} accounts.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Code</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Default tax code</th>
<th scope="col">Reconcilable</th><th scope="col">System</th><th scope="col">Archived</th><th scope="col" class="num">Balance</th></tr></thead>
<tbody>${mine.map((a) => accountRow(a, owner))}</tbody></table></div>`
}
</section>`;
}

function addForm(s: HumanSession, v: Values, e: Errors): Html {
  return html`<section aria-labelledby="add-title">
<h2 id="add-title">Add an account</h2>
<form method="post" action="/console/accounts" class="stack narrow" novalidate>
<input type="hidden" name="_csrf" value="${csrfToken(s)}">
<label for="code">Code (4 digits, not yet in the chart)</label>
<input id="code" name="code" inputmode="numeric" maxlength="4" required value="${v.code}"${described('code', e)}>
${fieldError('code', e)}
<label for="name">Name</label>
<input id="name" name="name" required maxlength="200" value="${v.name}"${described('name', e)}>
${fieldError('name', e)}
<label for="type">Type (where the reports place it)</label>
<select id="type" name="type"${described('type', e)}>${typeOptions(v.type)}</select>
${fieldError('type', e)}
<label for="taxCode">Default tax code (used when a bank line is coded to it without one)</label>
<select id="taxCode" name="taxCode"${described('taxCode', e)}>${taxOptions(v.taxCode)}</select>
${fieldError('taxCode', e)}
<label><input type="checkbox" name="reconcilable" value="yes"${checked(v.reconcilable)}> Reconcilable (bank feed lines can be matched to it)</label>
${fieldError('reconcilable', e)}
<button type="submit">Add account</button>
</form>
</section>`;
}

interface ListState {
  readonly session: HumanSession;
  readonly rows: readonly ChartRow[];
  readonly notice: string | null;
  readonly values: Values;
  readonly errors: Errors;
}

function listBody(st: ListState): Html {
  const owner = st.session.role === 'owner';
  const general = st.errors.form ? html`<p role="alert" class="notice error">${st.errors.form}</p>` : null;
  const fields = Object.keys(st.errors).some((k) => k !== 'form')
    ? html`<p role="alert" class="notice error">The account was not added: see the fields marked below.</p>`
    : null;
  const notice = st.notice ? html`<p role="status" class="notice">${st.notice}</p>` : null;
  return html`<h1>Chart of accounts</h1>
${general}${fields}${notice}
<p class="hint">Balances are over every journal dated up to today, in each account's normal direction (debit less credit for
assets and expenses, credit less debit for the rest). System accounts are the ones the product posts to by role, and bank
account records: they can be renamed but not retyped or archived.</p>
${booksReads.ACCOUNT_TYPES.map((t) => classTable(t, st.rows, owner))}
${owner ? addForm(st.session, st.values, st.errors) : html`<p class="hint">Only an owner can change the chart.</p>`}`;
}

// ---- one account ----

interface EditState {
  readonly session: HumanSession;
  readonly account: Account;
  readonly balanceCents: number;
  readonly posted: boolean;
  readonly values: Values;
  readonly errors: Errors;
}

function typeField(st: EditState): Html {
  const a = st.account;
  const e = st.errors;
  if (a.system || st.posted) {
    const why = a.system ? 'a system account keeps its type' : 'it has postings, so its type is fixed';
    return html`<p><strong>Type:</strong> ${a.type} <span class="hint">(${why})</span></p>${fieldError('type', e)}`;
  }
  return html`<label for="type">Type</label>
<select id="type" name="type"${described('type', e)}>${typeOptions(st.values.type)}</select>
${fieldError('type', e)}`;
}

function archiveForm(st: EditState): Html {
  const a = st.account;
  if (a.system) return html`<p class="hint">A system account cannot be archived.</p>`;
  return html`<section aria-labelledby="archive-title">
<h2 id="archive-title">Archive</h2>
<p class="hint">An archived account stays in the chart and the reports and takes no new postings. It needs a zero balance
(now ${formatCents(st.balanceCents)}) and no open invoice, bill or expense claim coded to it.</p>
${st.errors.archive ? html`<p role="alert" class="notice error" id="archive-error">${st.errors.archive}</p>` : null}
<form method="post" action="/console/accounts/${a.code}/archive" class="stack narrow">
<input type="hidden" name="_csrf" value="${csrfToken(st.session)}">
<button type="submit" class="secondary">Archive ${a.code}</button>
</form>
</section>`;
}

function editBody(st: EditState): Html {
  const a = st.account;
  const e = st.errors;
  const v = st.values;
  const general = e.form ? html`<p role="alert" class="notice error">${e.form}</p>` : null;
  const fields = FIELDS.some((f) => e[f])
    ? html`<p role="alert" class="notice error">Nothing was changed: see the fields marked below.</p>`
    : null;
  const facts = html`<dl class="facts card">
  <dt>Type</dt><dd>${a.type}</dd>
  <dt>Default tax code</dt><dd>${a.taxCode ?? '—'}</dd>
  <dt>Reconcilable</dt><dd>${yesNo(a.reconcilable)}</dd>
  <dt>System account</dt><dd>${yesNo(a.system)}</dd>
  <dt>Balance</dt><dd>${formatCents(st.balanceCents)}</dd>
  <dt>Archived</dt><dd>${yesNo(a.archived)}</dd>
</dl>`;
  const back = html`<p><a href="/console/accounts">Back to the chart of accounts</a></p>`;
  if (a.archived) {
    return html`<h1><span class="mono">${a.code}</span> ${a.name}</h1>
${facts}
<p class="hint">This account is archived: it keeps its history and cannot be changed.</p>
${back}`;
  }
  return html`<h1><span class="mono">${a.code}</span> ${a.name}</h1>
${general}${fields}
${facts}
<section aria-labelledby="change-title">
<h2 id="change-title">Change</h2>
<form method="post" action="/console/accounts/${a.code}" class="stack narrow" novalidate>
<input type="hidden" name="_csrf" value="${csrfToken(st.session)}">
<label for="name">Name</label>
<input id="name" name="name" required maxlength="200" value="${v.name}"${described('name', e)}>
${fieldError('name', e)}
${typeField(st)}
<label for="taxCode">Default tax code</label>
<select id="taxCode" name="taxCode"${described('taxCode', e)}>${taxOptions(v.taxCode)}</select>
${fieldError('taxCode', e)}
<label><input type="checkbox" name="reconcilable" value="yes"${checked(v.reconcilable)}> Reconcilable</label>
${fieldError('reconcilable', e)}
<button type="submit">Save</button>
</form>
</section>
${archiveForm(st)}
${back}`;
}

// ---- forms to params ----

/** What was typed, cut, to show back in a refused form. */
function valuesOf(form: URLSearchParams, base: Values = EMPTY): Values {
  const get = (k: Field) => (form.has(k) ? (form.get(k) ?? '').slice(0, 200) : base[k]);
  return {
    code: get('code'),
    name: get('name'),
    type: get('type'),
    taxCode: get('taxCode'),
    // An unticked box is absent from the form: unticked.
    reconcilable: form.has('reconcilable') ? 'yes' : '',
  };
}

function valuesOfAccount(a: Account): Values {
  return { code: a.code, name: a.name, type: a.type, taxCode: a.taxCode ?? '', reconcilable: a.reconcilable ? 'yes' : '' };
}

function parsed<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const out = validate(schema, input);
  if (!out.ok) throw new DomainError('BAD_REQUEST', out.message);
  return out.value;
}

/** The create params from the form: an empty tax code is none, the box ticked is reconcilable. */
function createInput(form: URLSearchParams): Record<string, unknown> {
  const text = (k: Field) => (form.get(k) ?? '').trim();
  return {
    code: text('code'),
    name: text('name'),
    type: text('type'),
    ...(text('taxCode') === '' ? {} : { taxCode: text('taxCode') }),
    reconcilable: form.has('reconcilable'),
  };
}

/** The update params: the form is the record, so an emptied tax code clears it; the type only when offered. */
function updateInput(code: string, form: URLSearchParams): Record<string, unknown> {
  const text = (k: Field) => (form.get(k) ?? '').trim();
  return {
    code,
    name: text('name'),
    ...(form.has('type') ? { type: text('type') } : {}),
    taxCode: text('taxCode') === '' ? null : text('taxCode'),
    reconcilable: form.has('reconcilable'),
  };
}

/** The account code of the path: four digits, else no such account. */
function codeOf(req: FastifyRequest): string {
  const code = (req.params as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^\d{4}$/.test(code)) throw notFound('account', String(code).slice(0, 20));
  return code;
}

/** A refusal the form shows (bad input, a rule of the chart), as opposed to one the error page shows. */
const formRefusal = (error: unknown): error is DomainError =>
  error instanceof DomainError && (error.code === 'BAD_REQUEST' || error.code === 'CONFLICT');

// ---- routes ----

const NOTICES: readonly (readonly [string, (code: string) => string])[] = [
  ['added', (c) => `Account ${c} added and recorded in the ledger.`],
  ['updated', (c) => `Account ${c} changed and recorded in the ledger.`],
  ['archived', (c) => `Account ${c} archived and recorded in the ledger.`],
  ['unchanged', (c) => `Account ${c} already read that way: nothing changed and nothing was recorded.`],
];

function noticeOf(query: unknown): string | null {
  const q = (query ?? {}) as Record<string, unknown>;
  for (const [key, text] of NOTICES) {
    const v = q[key];
    if (typeof v === 'string' && /^\d{4}$/.test(v)) return text(v);
  }
  return null;
}

async function showList(o: ConsoleOptions, reply: FastifyReply, s: HumanSession, status: number, extra: Partial<ListState> = {}) {
  const st: ListState = { session: s, rows: await chartRows(o, s), notice: null, values: EMPTY, errors: {}, ...extra };
  return render(o, reply, s, { status, title: 'Chart of accounts', body: listBody(st), current: 'chart' });
}

async function showAccount(
  o: ConsoleOptions,
  reply: FastifyReply,
  s: HumanSession,
  code: string,
  status: number,
  extra: { form?: URLSearchParams; errors?: Errors } = {},
) {
  const account = await chartAccountOf(o.db.reader, s.orgId, code);
  if (!account) throw notFound('account', code);
  const [posted, balances] = await Promise.all([hasPostings(o.db.reader, s.orgId, code), listAccounts({}, readContextOf(o.db, s))]);
  const base = valuesOfAccount(account);
  const st: EditState = {
    session: s,
    account,
    balanceCents: balances.accounts.find((b) => b.code === code)?.balanceCents ?? 0,
    posted,
    values: extra.form ? valuesOf(extra.form, base) : base,
    errors: extra.errors ?? {},
  };
  return render(o, reply, s, { status, title: `${account.code} ${account.name}`, body: editBody(st), current: 'chart' });
}

/** One chart method's domain write, as the owner: the API's unit of work, one event or a no-op. */
function asOwner<R extends { noop?: boolean }>(o: ConsoleOptions, s: HumanSession, act: (uow: Uow) => Promise<R>): Promise<R> {
  return inUnitOfWork(o.db, s.orgId, s.userId, act);
}

export function registerChartConsole(app: FastifyInstance, o: ConsoleOptions): void {
  app.get(
    '/console/accounts',
    signedIn(o, async (req, reply, s) => showList(o, reply, s, 200, { notice: noticeOf(req.query) })),
  );
  app.post(
    '/console/accounts',
    formPost(o, async (_req, reply, s, form) => {
      requireChartOwner(s);
      try {
        const p = parsed(chart.accountCreate.params, createInput(form));
        const a = await asOwner(o, s, (uow) => accountCreate(p, uow));
        return seeOther(reply, `/console/accounts?${a.noop ? 'unchanged' : 'added'}=${a.code}`);
      } catch (error) {
        if (!formRefusal(error)) throw error;
        return showList(o, reply, s, statusOf(error.code), { values: valuesOf(form), errors: errorsOf(error.message) });
      }
    }),
  );
  app.get(
    '/console/accounts/:code',
    signedIn(o, async (req, reply, s) => {
      requireChartOwner(s);
      return showAccount(o, reply, s, codeOf(req), 200);
    }),
  );
  app.post(
    '/console/accounts/:code',
    formPost(o, async (req, reply, s, form) => {
      requireChartOwner(s);
      const code = codeOf(req);
      try {
        const p = parsed(chart.accountUpdate.params, updateInput(code, form));
        const a = await asOwner(o, s, (uow) => accountUpdate(p, uow));
        return seeOther(reply, `/console/accounts?${a.noop ? 'unchanged' : 'updated'}=${a.code}`);
      } catch (error) {
        if (!formRefusal(error)) throw error;
        return showAccount(o, reply, s, code, statusOf(error.code), { form, errors: errorsOf(error.message) });
      }
    }),
  );
  app.post(
    '/console/accounts/:code/archive',
    formPost(o, async (req, reply, s) => {
      requireChartOwner(s);
      const code = codeOf(req);
      try {
        const a = await asOwner(o, s, (uow) => accountArchive(parsed(chart.accountArchive.params, { code }), uow));
        return seeOther(reply, `/console/accounts?${a.noop ? 'unchanged' : 'archived'}=${a.code}`);
      } catch (error) {
        if (!formRefusal(error)) throw error;
        return showAccount(o, reply, s, code, statusOf(error.code), { errors: { archive: error.message } });
      }
    }),
  );
}
