import { BAS_FREQUENCIES, TIERS, pairingLimits, tax } from '@finance-desk/protocol';
import type { OpenCode } from '../org/pairing.js';
import type { OrgProfile } from '../org/profile.js';
import { formatAbn } from '../org/profile.js';
import { fromNow, html, raw, when, type Html } from './html.js';
import { csrfToken, type HumanSession } from './sessions.js';

/** The console's Organisation and Agents pages, as bodies for `page()`. */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The form's values as typed (strings), so a refused form shows what the person wrote. */
export type ProfileForm = Readonly<
  Record<
    | 'name'
    | 'legalName'
    | 'abn'
    | 'gstRegistered'
    | 'gstBasis'
    | 'basFrequency'
    | 'financialYearStartMonth'
    | 'invoicePrefix'
    | 'invoiceNextNumber'
    | 'lockDate'
    | 'paymentAccountName'
    | 'paymentBsb'
    | 'paymentAccountNumber',
    string
  >
>;

export function profileFormValues(p: OrgProfile): ProfileForm {
  return {
    name: p.name,
    legalName: p.legalName ?? '',
    abn: p.abn ? formatAbn(p.abn) : '',
    gstRegistered: p.gstRegistered ? 'yes' : 'no',
    gstBasis: p.gstBasis,
    basFrequency: p.basFrequency,
    financialYearStartMonth: String(p.financialYearStartMonth),
    invoicePrefix: p.invoicePrefix,
    invoiceNextNumber: String(p.invoiceNextNumber),
    lockDate: p.lockDate ?? '',
    paymentAccountName: p.paymentAccountName ?? '',
    paymentBsb: p.paymentBsb ?? '',
    paymentAccountNumber: p.paymentAccountNumber ?? '',
  };
}

export interface ProfilePageState {
  readonly profile: OrgProfile;
  readonly session: HumanSession;
  readonly values: ProfileForm;
  /** Per-field messages of a refused form, keyed by field name. */
  readonly errors: Readonly<Record<string, string>>;
  readonly saved: boolean;
}

function fieldError(id: string, errors: Readonly<Record<string, string>>): Html | null {
  const e = errors[id];
  return e ? html`<p class="notice error" id="${id}-error">${e}</p>` : null;
}

function described(id: string, errors: Readonly<Record<string, string>>): Html | null {
  return errors[id] ? raw(` aria-invalid="true" aria-describedby="${id}-error"`) : null;
}

function options(values: readonly string[], current: string, label: (v: string) => string = (v) => v): Html[] {
  return values.map((v) =>
    v === current ? html`<option value="${v}" selected>${label(v)}</option>` : html`<option value="${v}">${label(v)}</option>`,
  );
}

function profileReadOnly(p: OrgProfile): Html {
  return html`<p class="hint">Only an owner can change the profile.</p>
<dl class="facts">
  <dt>Name</dt><dd>${p.name}</dd>
  <dt>Legal name</dt><dd>${p.legalName ?? '—'}</dd>
  <dt>ABN</dt><dd>${p.abn ? formatAbn(p.abn) : 'not set'}</dd>
  <dt>Registered for GST</dt><dd>${p.gstRegistered ? 'yes' : 'no'}</dd>
  <dt>GST basis</dt><dd>${p.gstBasis}</dd>
  <dt>BAS frequency</dt><dd>${p.basFrequency}</dd>
  <dt>Financial year starts</dt><dd>${MONTHS[p.financialYearStartMonth - 1] ?? ''}</dd>
  <dt>Time zone</dt><dd>${p.timeZone}</dd>
  <dt>Next invoice number</dt><dd>${p.invoicePrefix}${String(p.invoiceNextNumber).padStart(4, '0')}</dd>
  <dt>Lock date</dt><dd>${p.lockDate ? `books locked up to and including ${p.lockDate}` : 'not locked'}</dd>
  <dt>Invoices ask for payment to</dt><dd>${
    p.paymentBsb && p.paymentAccountNumber
      ? `${p.paymentAccountName ? `${p.paymentAccountName}, ` : ''}BSB ${p.paymentBsb}, account ${p.paymentAccountNumber}`
      : 'not set'
  }</dd>
</dl>`;
}

function profileForm(s: ProfilePageState): Html {
  const v = s.values;
  const e = s.errors;
  return html`<form method="post" action="/console/org" class="stack" novalidate>
<input type="hidden" name="_csrf" value="${csrfToken(s.session)}">
<label for="name">Trading name</label>
<input id="name" name="name" required maxlength="200" value="${v.name}"${described('name', e)}>
${fieldError('name', e)}
<label for="legalName">Legal name (optional)</label>
<input id="legalName" name="legalName" maxlength="200" value="${v.legalName}"${described('legalName', e)}>
${fieldError('legalName', e)}
<label for="abn">ABN (optional; 11 digits)</label>
<input id="abn" name="abn" inputmode="numeric" maxlength="14" value="${v.abn}"${described('abn', e)}>
<p class="hint">Printed on tax invoices and sent with the BAS and STP pay events.</p>
${fieldError('abn', e)}
<label for="gstRegistered">Registered for GST</label>
<select id="gstRegistered" name="gstRegistered"${described('gstRegistered', e)}>${options(['yes', 'no'], v.gstRegistered)}</select>
${fieldError('gstRegistered', e)}
<label for="gstBasis">GST basis (the BAS default)</label>
<select id="gstBasis" name="gstBasis"${described('gstBasis', e)}>${options(tax.BAS_BASES, v.gstBasis)}</select>
${fieldError('gstBasis', e)}
<label for="basFrequency">BAS frequency</label>
<select id="basFrequency" name="basFrequency"${described('basFrequency', e)}>${options(BAS_FREQUENCIES, v.basFrequency)}</select>
${fieldError('basFrequency', e)}
<label for="financialYearStartMonth">Financial year starts in</label>
<select id="financialYearStartMonth" name="financialYearStartMonth"${described('financialYearStartMonth', e)}>
${options(
  MONTHS.map((_m, i) => String(i + 1)),
  v.financialYearStartMonth,
  (m) => MONTHS[Number(m) - 1] ?? m,
)}</select>
${fieldError('financialYearStartMonth', e)}
<label for="invoicePrefix">Invoice number prefix (may be empty)</label>
<input id="invoicePrefix" name="invoicePrefix" maxlength="12" value="${v.invoicePrefix}"${described('invoicePrefix', e)}>
${fieldError('invoicePrefix', e)}
<label for="invoiceNextNumber">Next invoice number</label>
<input id="invoiceNextNumber" name="invoiceNextNumber" inputmode="numeric" maxlength="8" value="${v.invoiceNextNumber}"${described('invoiceNextNumber', e)}>
<p class="hint">The next invoice is the prefix and this number, at least four digits (INV-0001). It must be above every number already used.</p>
${fieldError('invoiceNextNumber', e)}
<label for="lockDate">Lock date (optional; YYYY-MM-DD)</label>
<input id="lockDate" name="lockDate" placeholder="YYYY-MM-DD" maxlength="10" value="${v.lockDate}"${described('lockDate', e)}>
<p class="hint">Nothing can be posted on or before this date (a filed BAS, a closed year). Leave empty to unlock.</p>
${fieldError('lockDate', e)}
<fieldset>
<legend>How customers pay (printed on invoices)</legend>
<p class="hint">Optional. BSB and account number go together; the invoice number is the payment reference.</p>
<label for="paymentAccountName">Account name</label>
<input id="paymentAccountName" name="paymentAccountName" maxlength="32" value="${v.paymentAccountName}"${described('paymentAccountName', e)}>
${fieldError('paymentAccountName', e)}
<label for="paymentBsb">BSB (NNN-NNN)</label>
<input id="paymentBsb" name="paymentBsb" inputmode="numeric" maxlength="7" value="${v.paymentBsb}"${described('paymentBsb', e)}>
${fieldError('paymentBsb', e)}
<label for="paymentAccountNumber">Account number</label>
<input id="paymentAccountNumber" name="paymentAccountNumber" inputmode="numeric" maxlength="9" value="${v.paymentAccountNumber}"${described('paymentAccountNumber', e)}>
${fieldError('paymentAccountNumber', e)}
</fieldset>
<button type="submit">Save profile</button>
</form>`;
}

export function profileBody(s: ProfilePageState): Html {
  const count = Object.keys(s.errors).length;
  const error = count ? html`<p role="alert" class="notice error">The profile was not saved: ${count} field(s) to fix.</p>` : null;
  const saved = s.saved ? html`<p role="status" class="notice">Profile saved and recorded in the ledger.</p>` : null;
  return html`<h1>Organisation profile</h1>
${error}${saved}
${s.session.role === 'owner' ? profileForm(s) : profileReadOnly(s.profile)}`;
}

export interface AgentRow {
  readonly agentId: string;
  readonly name: string;
  readonly tier: string | null;
  readonly status: string;
  readonly pairedAt: string | null;
  readonly revokedAt: string | null;
  readonly keyCount: number;
}

export interface AgentsPageState {
  readonly session: HumanSession;
  readonly agents: readonly AgentRow[];
  readonly codes: readonly OpenCode[];
  /** The code just created, shown once. */
  readonly created: { readonly code: string; readonly agentName: string; readonly expiresAt: string } | null;
  readonly error: string | null;
  readonly notice: string | null;
  readonly values: Readonly<Record<'agentName' | 'tier' | 'ttlMinutes', string>>;
}

function agentRow(a: AgentRow, s: AgentsPageState): Html {
  const revoke =
    s.session.role === 'owner' && a.status === 'active'
      ? html`<form method="post" action="/console/agents/${encodeURIComponent(a.agentId)}/revoke">
<input type="hidden" name="_csrf" value="${csrfToken(s.session)}">
<button type="submit" class="deny">Revoke</button></form>`
      : null;
  return html`<tr><td>${a.name}<br><code>${a.agentId}</code></td><td>${a.tier ?? 'per key'}</td>
<td><span class="badge ${a.status === 'active' ? 'approved' : 'denied'}">${a.status}</span></td>
<td>${when(a.pairedAt)}</td><td>${when(a.revokedAt)}</td><td>${a.keyCount}</td><td>${revoke}</td></tr>`;
}

function codeRow(c: OpenCode): Html {
  return html`<tr><td><code>${c.codeId}</code></td><td>${c.agentName}</td><td>${c.tier}</td>
<td>${when(c.expiresAt)} (${fromNow(c.expiresAt)})</td><td>${c.chosen ? 'chosen by a person' : 'generated'}</td></tr>`;
}

function createForm(s: AgentsPageState): Html {
  const v = s.values;
  return html`<h2>Pair a new agent</h2>
<form method="post" action="/console/agents/pair" class="stack narrow">
<input type="hidden" name="_csrf" value="${csrfToken(s.session)}">
<label for="agentName">Agent name</label>
<input id="agentName" name="agentName" required maxlength="64" value="${v.agentName}">
<label for="tier">Tier</label>
<select id="tier" name="tier">${options(TIERS, v.tier)}</select>
<p class="hint">observer reads the ledger; reader also reads the books; agent also writes (never signs).</p>
<label for="secret">Secret (optional)</label>
<input id="secret" name="secret" type="password" autocomplete="off" maxlength="${pairingLimits.chosenSecretCharsMax}"
  aria-describedby="secret-hint">
<p class="hint" id="secret-hint">Leave empty for a generated code (recommended). A secret you choose must be at least
${pairingLimits.chosenSecretCharsMin} characters and hard to guess; a weak one is refused.</p>
<label for="ttlMinutes">Expires after (minutes)</label>
<input id="ttlMinutes" name="ttlMinutes" type="number" min="1" max="${pairingLimits.ttlMinutesMax}" required value="${v.ttlMinutes}">
<button type="submit">Create pairing code</button>
</form>`;
}

export function agentsBody(s: AgentsPageState): Html {
  const error = s.error ? html`<p role="alert" class="notice error">${s.error}</p>` : null;
  const notice = s.notice ? html`<p role="status" class="notice">${s.notice}</p>` : null;
  const created = s.created
    ? html`<section class="card" aria-labelledby="code-title"><h2 id="code-title">Pairing code for ${s.created.agentName}</h2>
<p>Give this code to the agent now: it is shown once, works once, and expires ${when(s.created.expiresAt)}.
The agent sends it to <code>POST /api/v1/org/pair</code> as <code>{"code": "…"}</code>.</p>
<p><code class="hash" data-code>${s.created.code}</code></p></section>`
    : null;
  const agents = s.agents.length
    ? html`<table><thead><tr><th scope="col">Agent</th><th scope="col">Tier</th><th scope="col">Status</th>
<th scope="col">Paired</th><th scope="col">Revoked</th><th scope="col">Keys</th><td></td></tr></thead>
<tbody>${s.agents.map((a) => agentRow(a, s))}</tbody></table>`
    : html`<p>No agents yet.</p>`;
  const codes = s.codes.length
    ? html`<table><thead><tr><th scope="col">Code</th><th scope="col">Agent</th><th scope="col">Tier</th>
<th scope="col">Expires</th><th scope="col">Secret</th></tr></thead><tbody>${s.codes.map(codeRow)}</tbody></table>`
    : html`<p>No open pairing codes.</p>`;
  return html`<h1>Agents</h1>
${error}${notice}${created}
<h2>Agents of this organisation</h2>
${agents}
<h2>Open pairing codes</h2>
${codes}
${s.session.role === 'owner' ? createForm(s) : html`<p class="hint">Only an owner can pair or revoke agents.</p>`}`;
}
