import { ACTION_CLASSES, type ActionClass } from '@finance-desk/protocol';
import { formatCents } from '../money.js';
import type { ConsoleApproval, PolicyView } from './console-data.js';
import { ACT_TITLES, actTitle } from '../governance/act-titles.js';
import { fromNow, html, raw, when, type Html } from './html.js';
import { csrfToken, type HumanSession } from './sessions.js';

/** The console's pages, as bodies for `page()`. Forms post back with `_csrf` and get a 303. */

export interface LoginView {
  readonly slug: string;
  readonly email: string;
  readonly error: string | null;
}

export function loginBody(v: LoginView): Html {
  const error = v.error ? html`<p role="alert" class="notice error" id="login-error">${v.error}</p>` : null;
  const described = v.error ? raw(' aria-describedby="login-error"') : null;
  return html`<h1>Sign in to the approval console</h1>
${error}
<form method="post" action="/console/login" class="stack narrow"${described}>
  <label for="org">Organisation (slug)</label>
  <input id="org" name="org" autocomplete="organization" required maxlength="48" value="${v.slug}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required maxlength="254"
    value="${v.email}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required
    maxlength="1024">
  <button type="submit">Sign in</button>
</form>
<p class="hint">Agents and API keys cannot sign in here: only people decide.</p>`;
}

/** The exact payload the approval binds, one row per parameter. */
function payloadList(a: ConsoleApproval): Html {
  const params = (a.payload.params ?? {}) as Record<string, unknown>;
  const rows = Object.entries(params).map(
    ([k, v]) =>
      html`<dt>params.${k}</dt><dd><code>${typeof v === 'string' ? v : JSON.stringify(v)}</code>
</dd>`,
  );
  return html`<dl class="payload">
    <dt>method</dt><dd><code>${a.payload.method}</code></dd>
    ${rows}
    <dt>action class</dt><dd><code>${a.actionClass}</code></dd>
    <dt>subject</dt><dd><code>${a.subjectId}</code></dd>
    <dt>payload hash</dt><dd><code class="hash">${a.payloadHash}</code></dd>
  </dl>`;
}

function decideForms(a: ConsoleApproval, csrf: string): Html {
  if (!a.mayDecide) {
    return html`<p class="note">You do not hold decision rights for <code>${a.actionClass}</code>.
An owner can grant them on the <a href="/console/policy">Policy</a> page.</p>`;
  }
  const base = `/console/approvals/${encodeURIComponent(a.approvalId)}`;
  const sid = `${a.approvalId}-summary`;
  return html`<div class="actions">
  <form method="post" action="${base}/approve">
    <input type="hidden" name="_csrf" value="${csrf}">
    <button type="submit" class="approve" aria-describedby="${sid}">Approve</button>
  </form>
  <form method="post" action="${base}/deny" class="stack">
    <input type="hidden" name="_csrf" value="${csrf}">
    <label for="${a.approvalId}-reason">Reason for denying</label>
    <textarea id="${a.approvalId}-reason" name="reason" required maxlength="500"
      rows="2"></textarea>
    <button type="submit" class="deny" aria-describedby="${sid}">Deny</button>
  </form>
</div>`;
}

/** Old and new bank details side by side: what the approver must compare before money moves. */
function bankChangeTable(a: ConsoleApproval): Html | null {
  const c = a.bankChange;
  if (!c) return null;
  const was = (v: string | null | undefined) => v ?? 'none on record';
  const row = (label: string, old: string | null | undefined, now: string | null) =>
    html`<tr><th scope="row">${label}</th><td>${was(old)}</td><td>${now ?? '—'}</td></tr>`;
  return html`<table class="bank-change" id="${a.approvalId}-bank">
  <caption>Bank details changed</caption>
  <thead><tr><td></td><th scope="col">Last approved</th><th scope="col">This bill</th></tr></thead>
  <tbody>
    ${row('BSB', c.previous?.bsb, c.current.bsb)}
    ${row('Account number', c.previous?.accountNumber, c.current.accountNumber)}
    ${row('Account name', c.previous?.accountName, c.current.accountName)}
  </tbody>
</table>`;
}

/**
 * What the card leads with: who asked, how much, to whom, from which account,
 * and when; a fact this class of act does not have is left out rather than guessed.
 */
function leadFacts(a: ConsoleApproval): Html {
  const f = a.facts;
  const row = (label: string, value: Html | string | null) => (value === null ? null : html`<dt>${label}</dt><dd>${value}</dd>`);
  const due = f.due
    ? f.due.overdue
      ? html`<span class="badge overdue">${f.due.words}</span> (was due ${f.due.on})`
      : html`<span class="due">${f.due.words}</span>`
    : null;
  return html`<dl class="facts lead">
    ${row('Asked by', a.requestedByName)}
    ${row('How much', f.amount ? html`<strong>${formatCents(f.amount.cents)}</strong> (${f.amount.label})` : null)}
    ${row('To whom', f.toWhom)}
    ${row('Paid into', f.payeeAccount)}
    ${row('From account', f.fromAccount)}
    ${row('Paid on', f.paymentDate)}
    ${row('Due', due)}
    ${row('Requested', when(a.requestedAt))}
    ${row('Expires', html`${when(a.expiresAt)} (${fromNow(a.expiresAt)})`)}
  </dl>`;
}

/** The technical payload, folded away: method, params, action class, subject, payload hash. */
function technical(a: ConsoleApproval): Html {
  return html`<details class="technical">
  <summary>Technical details (method, params, payload hash)</summary>
  ${payloadList(a)}
  <p class="hint">Approval <code>${a.approvalId}</code>; the approval binds exactly this payload.</p>
</details>`;
}

function approvalCard(a: ConsoleApproval, csrf: string): Html {
  return html`<article class="card" id="${a.approvalId}" aria-labelledby="${a.approvalId}-title">
  <h2 id="${a.approvalId}-title">${actTitle(a.actionClass, a.payload.method)}</h2>
  ${leadFacts(a)}
  <p class="summary" id="${a.approvalId}-summary">${a.summary}</p>
  ${bankChangeTable(a)}
  ${technical(a)}
  ${decideForms(a, csrf)}
</article>`;
}

/** One approval's own page (the link in its email): its card while pending, else its outcome. */
export function approvalPageBody(session: HumanSession, a: ConsoleApproval): Html {
  if (a.status === 'pending') {
    return html`<h1>Approval waiting for a decision</h1>
<div class="cards">${approvalCard(a, csrfToken(session))}</div>
<p><a href="/console">All pending approvals</a></p>`;
  }
  return html`<h1>Approval ${a.status}</h1>
<p class="notice" role="status">This approval is no longer waiting for a decision.</p>
<ol class="cards plain">${historyItem(a)}</ol>
<p><a href="/console/history">Decision history</a></p>`;
}

const DONE: Readonly<Record<string, string>> = {
  approved: 'Approved. The agent can now complete the act once with this approval.',
  denied: 'Denied. The act can never complete with this approval.',
};

export function inboxBody(session: HumanSession, approvals: readonly ConsoleApproval[], done: string | null): Html {
  const notice = done && DONE[done] ? html`<p role="status" class="notice">${DONE[done]}</p>` : null;
  const ids = approvals.map((a) => a.approvalId).join(' ');
  const list = approvals.length
    ? html`<div class="cards">${approvals.map((a) => approvalCard(a, csrfToken(session)))}</div>`
    : html`<p>Nothing is waiting for a decision.</p>`;
  return html`<h1>Pending approvals</h1>
${notice}
<p id="live" class="notice" role="status" aria-live="polite" hidden></p>
<section data-inbox data-ids="${ids}" aria-label="Pending approvals, newest first">
${list}
</section>`;
}

function outcome(a: ConsoleApproval): Html {
  const used = a.usedAt ? html` · used by ledger <code>#${a.usedLedgerId ?? ''}</code>` : null;
  return html`<span class="badge ${a.status}">${a.status}</span>${used}`;
}

function historyItem(a: ConsoleApproval): Html {
  return html`<li class="card">
  <h2>${actTitle(a.actionClass, a.payload.method)}</h2>
  <p class="summary">${a.summary}</p>
  <dl class="facts">
    <dt>Outcome</dt><dd>${outcome(a)}</dd>
    <dt>Decided by</dt><dd>${a.decidedByName ?? 'nobody (expired)'}</dd>
    <dt>Decided</dt><dd>${when(a.decidedAt)}</dd>
    <dt>Reason</dt><dd>${a.reason ? html`<q>${a.reason}</q> <span class="hint">(as ${a.decidedByName ?? 'the decider'} typed it)</span>` : '—'}</dd>
    <dt>Asked by</dt><dd>${a.requestedByName}</dd>
    <dt>Requested</dt><dd>${when(a.requestedAt)}</dd>
    <dt>Approval</dt><dd><code>${a.approvalId}</code></dd>
  </dl>
</li>`;
}

export function historyBody(decisions: readonly ConsoleApproval[]): Html {
  const list = decisions.length ? html`<ol class="cards plain">${decisions.map(historyItem)}</ol>` : html`<p>No decisions yet.</p>`;
  return html`<h1>Decision history</h1>
<p class="hint">Most recent first: approvals, denials, and requests that expired undecided.</p>
${list}`;
}

/** Dollars for an input field: "5,000.00" (no sign; the label says dollars). */
export function dollarsField(cents: number): string {
  return formatCents(cents).replace('$', '');
}

function whoLabel(who: string, view: PolicyView): string {
  if (who.startsWith('role:')) return `any ${who.slice(5)}`;
  const user = view.users.find((u) => u.id === who);
  // A person's name when they were given one (user add --name), with the email that signs them in.
  if (!user) return who;
  return user.name ? `${user.name} (${user.email}, ${user.role})` : `${user.email} (${user.role})`;
}

function rightsChoices(cls: ActionClass, view: PolicyView, editable: boolean): Html {
  const held = view.policy.decisionRights[cls] ?? [];
  if (!editable) {
    const names = held.map((w) => whoLabel(w, view)).join(', ');
    const shown = names || 'nobody: these acts are refused';
    return html`<dt>${ACT_TITLES[cls]} <code>${cls}</code></dt><dd>${shown}</dd>`;
  }
  const options = [...['owner', 'approver', 'bookkeeper'].map((r) => `role:${r}`), ...view.users.map((u) => u.id)];
  const boxes = options.map((who, i) => {
    const id = `r-${cls.replace(/\W/g, '-')}-${i}`;
    const checked = held.includes(who) ? raw(' checked') : null;
    return html`<div class="check">
<input type="checkbox" id="${id}" name="rights:${cls}" value="${who}"${checked}>
<label for="${id}">${whoLabel(who, view)}</label></div>`;
  });
  return html`<fieldset><legend>${ACT_TITLES[cls]} <code>${cls}</code></legend>${boxes}</fieldset>`;
}

export interface PolicyPageState {
  readonly view: PolicyView;
  readonly session: HumanSession;
  readonly error: string | null;
  readonly saved: boolean;
}

function policyReadOnly(view: PolicyView): Html {
  const p = view.policy;
  return html`<p class="hint">Only an owner can change the policy.</p>
<dl class="facts">
  <dt>Bill approval floor</dt><dd>${formatCents(p.billApprovalFloorCents)}</dd>
  <dt>Materiality floor</dt><dd>${formatCents(p.materialityFloorCents)}</dd>
  <dt>Approval expiry</dt><dd>${p.approvalExpiryMs / 60_000} minutes</dd>
</dl>
<h2>Decision rights</h2>
<dl class="facts">${ACTION_CLASSES.map((c) => rightsChoices(c, view, false))}</dl>`;
}

function policyForm(view: PolicyView, csrf: string): Html {
  const p = view.policy;
  return html`<form method="post" action="/console/policy" class="stack">
<input type="hidden" name="_csrf" value="${csrf}">
<h2>Floors and expiry</h2>
<label for="billFloor">Bill approval floor (dollars)</label>
<input id="billFloor" name="billApprovalFloor" inputmode="decimal" required
  value="${dollarsField(p.billApprovalFloorCents)}" aria-describedby="billFloor-hint">
<p class="hint" id="billFloor-hint">Bills above this are held for a person to approve.</p>
<label for="matFloor">Materiality floor (dollars)</label>
<input id="matFloor" name="materialityFloor" inputmode="decimal" required
  value="${dollarsField(p.materialityFloorCents)}" aria-describedby="matFloor-hint">
<p class="hint" id="matFloor-hint">Held bank-feed matches above this need a signature.</p>
<label for="expiry">Approval expiry (minutes)</label>
<input id="expiry" name="approvalExpiryMinutes" type="number" min="1" max="43200" step="any"
  required value="${p.approvalExpiryMs / 60_000}">
<h2>Decision rights</h2>
<p class="hint">Who may approve each class of act.
A class with nobody ticked cannot be approved, so its acts are refused.</p>
${ACTION_CLASSES.map((c) => rightsChoices(c, view, true))}
<button type="submit">Save policy</button>
</form>`;
}

export function policyBody(s: PolicyPageState): Html {
  const error = s.error ? html`<p role="alert" class="notice error">${s.error}</p>` : null;
  const saved = s.saved ? html`<p role="status" class="notice">Policy saved and recorded in the ledger.</p>` : null;
  const editable = s.session.role === 'owner';
  return html`<h1>Policy</h1>
${error}${saved}
${editable ? policyForm(s.view, csrfToken(s.session)) : policyReadOnly(s.view)}`;
}
