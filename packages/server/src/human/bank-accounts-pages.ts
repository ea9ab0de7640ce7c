import { BANK_ACCOUNT_KINDS, bankAccounts as spec } from '@finance-desk/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { createBankAccount, listBankAccounts, parseBankAccountCreate, type BankAccount } from '../domain/banking/accounts.js';
import { DomainError } from '../errors.js';
import { formatCents } from '../money.js';
import { requireOwner } from './console-api.js';
import { jsonOf, requireCsrf, requireSession, sendJson, seeOther, type ConsoleOptions } from './console-http.js';
import { formPost, render, signedIn } from './console-pages.js';
import { html, type Html } from './html.js';
import type { HumanSession } from './sessions.js';

/**
 * The console's Bank accounts page (issue 12 item 3): every signed-in person sees the accounts
 * with their ledger balances and unreconciled lines; an owner adds a bank, credit-card or loan
 * account with a form (CSRF like every console form) or POST /console/api/bank-accounts
 * (x-csrf-token). Each account added is one event with the owner's user id as actor (D4).
 */
const KIND_LABELS: Readonly<Record<string, string>> = { bank: 'Bank account', credit_card: 'Credit card', loan: 'Loan' };

type FormValues = Readonly<Record<'kind' | 'name' | 'bsb' | 'accountNumber' | 'accountCode', string>>;

interface PageState {
  readonly session: HumanSession;
  readonly accounts: readonly BankAccount[];
  readonly error: string | null;
  readonly notice: string | null;
  readonly values: FormValues;
}

const EMPTY: FormValues = { kind: 'bank', name: '', bsb: '', accountNumber: '', accountCode: '' };

function accountRow(a: BankAccount): Html {
  const details = a.bsb && a.accountNumber ? `${a.bsb} ${a.accountNumber}` : '—';
  return html`<tr><td>${a.name}${a.isDefault ? html` <span class="badge">default</span>` : null}</td>
<td>${KIND_LABELS[a.kind] ?? a.kind}</td><td><code>${a.accountCode}</code></td><td>${details}</td>
<td class="num">${formatCents(a.ledgerBalanceCents)}</td><td class="num">${a.unreconciledLines} (${formatCents(a.unreconciledCents)})</td></tr>`;
}

function options(current: string): Html[] {
  return BANK_ACCOUNT_KINDS.map((k) =>
    k === current ? html`<option value="${k}" selected>${KIND_LABELS[k] ?? k}</option>` : html`<option value="${k}">${KIND_LABELS[k] ?? k}</option>`,
  );
}

function addForm(s: PageState): Html {
  const v = s.values;
  const r = spec.BANK_ACCOUNT_RANGES;
  return html`<h2>Add an account</h2>
<form method="post" action="/console/bank-accounts" class="stack narrow">
<input type="hidden" name="_csrf" value="${s.session.csrf}">
<label for="kind">Kind</label>
<select id="kind" name="kind">${options(v.kind)}</select>
<label for="name">Name</label>
<input id="name" name="name" required maxlength="${spec.bankAccountLimits.nameCharsMax}" value="${v.name}">
<label for="bsb">BSB (optional, NNN-NNN)</label>
<input id="bsb" name="bsb" inputmode="numeric" maxlength="7" value="${v.bsb}">
<label for="accountNumber">Account number (optional, up to 9 digits)</label>
<input id="accountNumber" name="accountNumber" inputmode="numeric" maxlength="9" value="${v.accountNumber}">
<label for="accountCode">Chart account code (optional)</label>
<input id="accountCode" name="accountCode" inputmode="numeric" maxlength="4" value="${v.accountCode}" aria-describedby="accountCode-hint">
<p class="hint" id="accountCode-hint">Left empty, the next free code is used: bank ${r.bank.from}–${r.bank.to},
credit card ${r.credit_card.from}–${r.credit_card.to}, loan ${r.loan.from}–${r.loan.to}.</p>
<button type="submit">Add account</button>
</form>`;
}

function body(s: PageState): Html {
  const error = s.error ? html`<p role="alert" class="notice error">${s.error}</p>` : null;
  const notice = s.notice ? html`<p role="status" class="notice">${s.notice}</p>` : null;
  return html`<h1>Bank accounts</h1>
${error}${notice}
<p class="hint">Balances are the ledger's (what is reconciled); a card or a loan shows what is owed as a negative balance.
Agents feed statement lines into any of these accounts by its code.</p>
<table><thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Code</th><th scope="col">BSB and number</th>
<th scope="col">Ledger balance</th><th scope="col">Unreconciled lines</th></tr></thead>
<tbody>${s.accounts.map(accountRow)}</tbody></table>
${s.session.role === 'owner' ? addForm(s) : html`<p class="hint">Only an owner can add accounts.</p>`}`;
}

/** The form speaks text: empty optional fields are left out, so the schema names only what is wrong. */
function inputFromForm(form: URLSearchParams): Record<string, unknown> {
  const get = (k: string) => (form.get(k) ?? '').trim();
  const out: Record<string, unknown> = { kind: get('kind'), name: get('name') };
  for (const k of ['bsb', 'accountNumber', 'accountCode'] as const) if (get(k) !== '') out[k] = get(k);
  return out;
}

function valuesOf(form: URLSearchParams): FormValues {
  const get = (k: string) => (form.get(k) ?? '').slice(0, 100);
  return { kind: get('kind'), name: get('name'), bsb: get('bsb'), accountNumber: get('accountNumber'), accountCode: get('accountCode') };
}

async function show(o: ConsoleOptions, reply: FastifyReply, s: HumanSession, status: number, extra: Partial<PageState> = {}) {
  const state: PageState = { session: s, accounts: await listBankAccounts(o.db.reader, s.orgId), error: null, notice: null, values: EMPTY, ...extra };
  return render(o, reply, s, { status, title: 'Bank accounts', body: body(state), current: 'bank' });
}

export function registerBankAccountsConsole(app: FastifyInstance, o: ConsoleOptions): void {
  app.get(
    '/console/bank-accounts',
    signedIn(o, async (req, reply, s) => {
      const added = (req.query as { added?: unknown } | undefined)?.added;
      const notice = typeof added === 'string' && /^\d{3,6}$/.test(added) ? `Account ${added} added and recorded in the ledger.` : null;
      return show(o, reply, s, 200, { notice });
    }),
  );
  app.post(
    '/console/bank-accounts',
    formPost(o, async (_req, reply, s, form) => {
      requireOwner(s);
      try {
        const input = parseBankAccountCreate(inputFromForm(form));
        const created = await createBankAccount(o.db, { orgId: s.orgId, actor: s.userId, input });
        return seeOther(reply, `/console/bank-accounts?added=${created.account.accountCode}`);
      } catch (error) {
        if (!(error instanceof DomainError) || !['BAD_REQUEST', 'CONFLICT'].includes(error.code)) throw error;
        return show(o, reply, s, error.code === 'CONFLICT' ? 409 : 400, { error: error.message, values: valuesOf(form) });
      }
    }),
  );
  app.get('/console/api/bank-accounts', async (req, reply) => {
    const s = await requireSession(o.db, req);
    return sendJson(reply, 200, { accounts: await listBankAccounts(o.db.reader, s.orgId) });
  });
  app.post('/console/api/bank-accounts', async (req, reply) => {
    const s = await requireSession(o.db, req);
    const header = req.headers['x-csrf-token'];
    requireCsrf(s, typeof header === 'string' ? header : null);
    requireOwner(s);
    const created = await createBankAccount(o.db, { orgId: s.orgId, actor: s.userId, input: parseBankAccountCreate(jsonOf(req)) });
    return sendJson(reply, 200, { ok: true, result: created });
  });
}
