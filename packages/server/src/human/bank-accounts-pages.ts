import { BANK_ACCOUNT_KINDS, bankAccounts as spec } from '@finance-desk/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  createBankAccount,
  listBankAccounts,
  parseBankAccountCreate,
  parseBankAccountUpdate,
  updateBankAccount,
  type BankAccount,
} from '../domain/banking/accounts.js';
import { DomainError } from '../errors.js';
import { formatCents } from '../money.js';
import { requireOwner } from './console-api.js';
import { jsonOf, requireCsrf, requireSession, sendJson, seeOther, type ConsoleOptions } from './console-http.js';
import { formPost, render, signedIn } from './console-pages.js';
import { html, type Html } from './html.js';
import { csrfToken, type HumanSession } from './sessions.js';

/**
 * The console's Bank accounts page: every signed-in person sees the accounts
 * with their ledger balances and unreconciled lines; an owner adds a bank, credit-card or loan
 * account with a form (CSRF like every console form) or POST /console/api/bank-accounts
 * (x-csrf-token). Each account added is one event with the owner's user id as actor (the person who acted).
 * An owner also sets a bank account's direct-entry details (what a bank file paid from it
 * carries) when adding it or later on its own page (/console/bank-accounts/<id>, or POST
 * /console/api/bank-accounts/<id>: null clears a field), one event per change. 1000 gets a record
 * by adding a bank account with chart code 1000.
 */
const KIND_LABELS: Readonly<Record<string, string>> = { bank: 'Bank account', credit_card: 'Credit card', loan: 'Loan' };

const DE_FIELDS = spec.DIRECT_ENTRY_FIELDS;
type FormField = 'kind' | 'name' | 'bsb' | 'accountNumber' | 'accountCode' | (typeof DE_FIELDS)[number];
type FormValues = Readonly<Record<FormField, string>>;

const DE_LABELS: Readonly<Record<(typeof DE_FIELDS)[number], string>> = {
  bankCode: 'Bank code (APCA, 3 capitals, e.g. WBC)',
  apcaUserId: 'Direct Entry user id (6 digits)',
  userName: 'Direct Entry user name (as the bank knows you, up to 26)',
  remitterName: 'Remitter name payees see (up to 16)',
  accountTitle: 'Account title for a self-balancing record (optional, up to 32)',
};
const DE_MAX: Readonly<Record<(typeof DE_FIELDS)[number], number>> = {
  bankCode: 3,
  apcaUserId: 6,
  userName: 26,
  remitterName: 16,
  accountTitle: 32,
};

function directEntryInputs(v: Readonly<Record<(typeof DE_FIELDS)[number], string>>): Html[] {
  return DE_FIELDS.map(
    (f) => html`<label for="${f}">${DE_LABELS[f]}</label>
<input id="${f}" name="${f}" maxlength="${DE_MAX[f]}" value="${v[f]}">`,
  );
}

function directEntryText(a: BankAccount): string {
  if (a.directEntry) return `${a.directEntry.bankCode} user ${a.directEntry.apcaUserId} ${a.directEntry.userName}`;
  if (a.bankCode || a.apcaUserId || a.userName || a.remitterName) return 'incomplete';
  return '—';
}

interface PageState {
  readonly session: HumanSession;
  readonly accounts: readonly BankAccount[];
  readonly error: string | null;
  readonly notice: string | null;
  readonly values: FormValues;
}

const EMPTY: FormValues = {
  kind: 'bank',
  name: '',
  bsb: '',
  accountNumber: '',
  accountCode: '',
  bankCode: '',
  apcaUserId: '',
  userName: '',
  remitterName: '',
  accountTitle: '',
};

function accountRow(a: BankAccount, owner: boolean): Html {
  const details = a.bsb && a.accountNumber ? `${a.bsb} ${a.accountNumber}` : '—';
  const name = owner && a.id ? html`<a href="/console/bank-accounts/${a.id}">${a.name}</a>` : html`${a.name}`;
  return html`<tr><td>${name}${a.isDefault ? html` <span class="badge">default</span>` : null}</td>
<td>${KIND_LABELS[a.kind] ?? a.kind}</td><td><code>${a.accountCode}</code></td><td>${details}</td><td>${directEntryText(a)}</td>
<td class="num">${formatCents(a.ledgerBalanceCents)}</td><td class="num">${a.unreconciledLines} (${formatCents(a.unreconciledCents)})</td></tr>`;
}

function options(current: string): Html[] {
  return BANK_ACCOUNT_KINDS.map((k) =>
    k === current
      ? html`<option value="${k}" selected>${KIND_LABELS[k] ?? k}</option>`
      : html`<option value="${k}">${KIND_LABELS[k] ?? k}</option>`,
  );
}

function addForm(s: PageState): Html {
  const v = s.values;
  const r = spec.BANK_ACCOUNT_RANGES;
  return html`<h2>Add an account</h2>
<form method="post" action="/console/bank-accounts" class="stack narrow">
<input type="hidden" name="_csrf" value="${csrfToken(s.session)}">
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
credit card ${r.credit_card.from}–${r.credit_card.to}, loan ${r.loan.from}–${r.loan.to}. Code 1000 gives the default bank account a record.</p>
<h3>Direct entry (bank accounts, optional)</h3>
<p class="hint">What a bank file paid from this account carries; agents pay runs from it by its id once these, the BSB and the number are set.</p>
${directEntryInputs(v)}
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
<th scope="col">Direct entry</th><th scope="col">Ledger balance</th><th scope="col">Unreconciled lines</th></tr></thead>
<tbody>${s.accounts.map((a) => accountRow(a, s.session.role === 'owner'))}</tbody></table>
${s.session.role === 'owner' ? addForm(s) : html`<p class="hint">Only an owner can add accounts.</p>`}`;
}

/** The form speaks text: empty optional fields are left out, so the schema names only what is wrong. */
function inputFromForm(form: URLSearchParams): Record<string, unknown> {
  const get = (k: string) => (form.get(k) ?? '').trim();
  const out: Record<string, unknown> = { kind: get('kind'), name: get('name') };
  for (const k of ['bsb', 'accountNumber', 'accountCode', ...DE_FIELDS] as const) if (get(k) !== '') out[k] = get(k);
  return out;
}

function valuesOf(form: URLSearchParams): FormValues {
  const get = (k: string) => (form.get(k) ?? '').slice(0, 100);
  return {
    kind: get('kind'),
    name: get('name'),
    bsb: get('bsb'),
    accountNumber: get('accountNumber'),
    accountCode: get('accountCode'),
    bankCode: get('bankCode'),
    apcaUserId: get('apcaUserId'),
    userName: get('userName'),
    remitterName: get('remitterName'),
    accountTitle: get('accountTitle'),
  };
}

type EditField = 'bsb' | 'accountNumber' | (typeof DE_FIELDS)[number];
const EDIT_FIELDS: readonly EditField[] = ['bsb', 'accountNumber', ...DE_FIELDS];

/** The edit form holds every field: an emptied one is cleared (null), so the form is the record. */
function patchFromForm(form: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of EDIT_FIELDS) {
    const v = (form.get(k) ?? '').trim();
    out[k] = v === '' ? null : v;
  }
  return out;
}

function editBody(s: HumanSession, a: BankAccount, values: Readonly<Record<EditField, string>>, error: string | null): Html {
  const alert = error ? html`<p role="alert" class="notice error">${error}</p>` : null;
  const de = a.kind === 'bank' ? directEntryInputs(values) : [];
  return html`<h1>${a.name} <code>${a.accountCode}</code></h1>
${alert}
<p class="hint">${KIND_LABELS[a.kind] ?? a.kind}. ${a.directEntry ? 'Can fund bank files (payment runs and pay runs by its id).' : 'Cannot fund a bank file yet: a bank account needs its BSB, number, bank code, user id, user name and remitter name.'}
Changing these after a run is held voids that run's approval; a drafted pay run must be drafted again.</p>
<form method="post" action="/console/bank-accounts/${a.id ?? ''}" class="stack narrow">
<input type="hidden" name="_csrf" value="${csrfToken(s)}">
<label for="bsb">BSB (NNN-NNN)</label>
<input id="bsb" name="bsb" inputmode="numeric" maxlength="7" value="${values.bsb}">
<label for="accountNumber">Account number (up to 9 digits)</label>
<input id="accountNumber" name="accountNumber" inputmode="numeric" maxlength="9" value="${values.accountNumber}">
${de}
<button type="submit">Save</button>
</form>
<p><a href="/console/bank-accounts">Back to bank accounts</a></p>`;
}

function editValues(a: BankAccount): Readonly<Record<EditField, string>> {
  return {
    bsb: a.bsb ?? '',
    accountNumber: a.accountNumber ?? '',
    bankCode: a.bankCode ?? '',
    apcaUserId: a.apcaUserId ?? '',
    userName: a.userName ?? '',
    remitterName: a.remitterName ?? '',
    accountTitle: a.accountTitle ?? '',
  };
}

async function recordOf(o: ConsoleOptions, orgId: string, id: string): Promise<BankAccount> {
  const a = (await listBankAccounts(o.db.reader, orgId)).find((x) => x.id === id);
  if (!a) throw new DomainError('NOT_FOUND', `bank account ${id} not found`);
  return a;
}

async function show(o: ConsoleOptions, reply: FastifyReply, s: HumanSession, status: number, extra: Partial<PageState> = {}) {
  const state: PageState = {
    session: s,
    accounts: await listBankAccounts(o.db.reader, s.orgId),
    error: null,
    notice: null,
    values: EMPTY,
    ...extra,
  };
  return render(o, reply, s, { status, title: 'Bank accounts', body: body(state), current: 'bank' });
}

export function registerBankAccountsConsole(app: FastifyInstance, o: ConsoleOptions): void {
  app.get(
    '/console/bank-accounts',
    signedIn(o, async (req, reply, s) => {
      const added = (req.query as { added?: unknown } | undefined)?.added;
      const updated = (req.query as { updated?: unknown } | undefined)?.updated;
      const notice =
        typeof added === 'string' && /^\d{3,6}$/.test(added)
          ? `Account ${added} added and recorded in the ledger.`
          : typeof updated === 'string' && /^\d{3,6}$/.test(updated)
            ? `Account ${updated} changed and recorded in the ledger.`
            : null;
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
  app.get(
    '/console/bank-accounts/:id',
    signedIn(o, async (req, reply, s) => {
      requireOwner(s);
      const a = await recordOf(o, s.orgId, (req.params as { id: string }).id);
      return render(o, reply, s, { status: 200, title: a.name, body: editBody(s, a, editValues(a), null), current: 'bank' });
    }),
  );
  app.post(
    '/console/bank-accounts/:id',
    formPost(o, async (req, reply, s, form) => {
      requireOwner(s);
      const a = await recordOf(o, s.orgId, (req.params as { id: string }).id);
      try {
        const patch = parseBankAccountUpdate(patchFromForm(form));
        const done = await updateBankAccount(o.db, { orgId: s.orgId, actor: s.userId, id: a.id ?? '', patch });
        return seeOther(reply, `/console/bank-accounts?updated=${done.account.accountCode}`);
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'BAD_REQUEST') throw error;
        const values = Object.fromEntries(EDIT_FIELDS.map((k) => [k, (form.get(k) ?? '').slice(0, 100)])) as Record<EditField, string>;
        return render(o, reply, s, { status: 400, title: a.name, body: editBody(s, a, values, error.message), current: 'bank' });
      }
    }),
  );
  app.post('/console/api/bank-accounts/:id', async (req, reply) => {
    const s = await requireSession(o.db, req);
    const header = req.headers['x-csrf-token'];
    requireCsrf(s, typeof header === 'string' ? header : null);
    requireOwner(s);
    const patch = parseBankAccountUpdate(jsonOf(req));
    const done = await updateBankAccount(o.db, { orgId: s.orgId, actor: s.userId, id: (req.params as { id: string }).id, patch });
    return sendJson(reply, 200, { ok: true, result: done });
  });
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
