import {
  formatIssues,
  orgProfilePatch,
  pairingCodeCreate,
  textIssues,
  validate,
  type OrgProfilePatch,
  type PairingCodeCreate,
} from '@finance-desk/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';
import { orgAgents } from '../org/org-reads.js';
import { createPairingCode, openCodes, revokeAgent } from '../org/pairing.js';
import { loadProfile, setProfile } from '../org/profile.js';
import { requireOwner } from './console-api.js';
import { jsonOf, pathId, requireCsrf, requireSession, sendJson, seeOther, type ConsoleOptions } from './console-http.js';
import { formPost, render, signedIn } from './console-pages.js';
import { receivesDigest, setWeeklyDigest } from './digest-sweep.js';
import { html, type Html } from './html.js';
import { csrfToken } from './sessions.js';
import { agentsBody, profileBody, profileFormValues, type AgentsPageState, type ProfileForm } from './org-views.js';
import type { HumanSession } from './sessions.js';

/**
 * The console's Organisation and Agents pages and their JSON API. Only
 * an owner changes the profile, creates pairing codes or revokes agents; every signed-in person
 * may look. Forms carry the session's CSRF token; the JSON writes carry it in `x-csrf-token`.
 * Each change is one event with the owner's user id as actor.
 */
const PROFILE_FIELDS = [
  'name',
  'legalName',
  'abn',
  'gstRegistered',
  'gstBasis',
  'basFrequency',
  'financialYearStartMonth',
  // Invoice numbering and the lock date.
  'invoicePrefix',
  'invoiceNextNumber',
  'lockDate',
  // The account printed as "how to pay" on invoices.
  'paymentAccountName',
  'paymentBsb',
  'paymentAccountNumber',
] as const;

/** Per-field messages for a profile patch: every problem of a field, under its name. */
export function profileFieldErrors(patch: Record<string, unknown>): Record<string, string> {
  const parsed = orgProfilePatch.safeParse(patch, { reportInput: true });
  const issues = [...(parsed.success ? [] : parsed.error.issues), ...textIssues(patch)];
  const byField = new Map<string, typeof issues>();
  for (const issue of issues) {
    const field = String(issue.path[0] ?? 'form');
    byField.set(field, [...(byField.get(field) ?? []), issue]);
  }
  // formatIssues words each problem as "field: problem"; the form shows the problem beside the field.
  return Object.fromEntries(
    [...byField].map(([field, list]) => [
      field,
      formatIssues(list)
        .split('; ')
        .map((m) => m.replace(/^[^:]*: /, ''))
        .join('; '),
    ]),
  );
}

/** The form speaks text: an empty ABN or legal name clears it; yes/no; a month number. */
function profilePatchFromForm(form: URLSearchParams): Record<string, unknown> {
  const get = (k: string) => (form.get(k) ?? '').trim();
  const month = get('financialYearStartMonth');
  const registered = get('gstRegistered');
  return {
    name: get('name'),
    legalName: get('legalName') === '' ? null : get('legalName'),
    abn: get('abn') === '' ? null : get('abn'),
    gstRegistered: registered === 'yes' ? true : registered === 'no' ? false : registered,
    gstBasis: get('gstBasis'),
    basFrequency: get('basFrequency'),
    financialYearStartMonth: /^\d{1,2}$/.test(month) ? Number(month) : month,
    // Each only when the form has it (an empty prefix is a choice, not a missing field):
    // an empty lock date clears it; the next number is digits.
    ...(form.has('invoicePrefix') ? { invoicePrefix: get('invoicePrefix') } : {}),
    ...(form.has('invoiceNextNumber')
      ? { invoiceNextNumber: /^\d{1,9}$/.test(get('invoiceNextNumber')) ? Number(get('invoiceNextNumber')) : get('invoiceNextNumber') }
      : {}),
    ...(form.has('lockDate') ? { lockDate: get('lockDate') === '' ? null : get('lockDate') } : {}),
    // Empty clears (as the ABN): invoices then carry no bank details.
    paymentAccountName: get('paymentAccountName') === '' ? null : get('paymentAccountName'),
    paymentBsb: get('paymentBsb') === '' ? null : get('paymentBsb'),
    paymentAccountNumber: get('paymentAccountNumber') === '' ? null : get('paymentAccountNumber'),
  };
}

function formValues(form: URLSearchParams): ProfileForm {
  return Object.fromEntries(PROFILE_FIELDS.map((f) => [f, (form.get(f) ?? '').slice(0, 200)])) as ProfileForm;
}

async function agentsState(o: ConsoleOptions, s: HumanSession, extra: Partial<AgentsPageState> = {}): Promise<AgentsPageState> {
  const { agents } = await orgAgents(o.db.reader, s.orgId, { limit: 200 });
  return {
    session: s,
    agents,
    codes: await openCodes(o.db, s.orgId),
    created: null,
    error: null,
    notice: null,
    values: { agentName: '', tier: 'agent', ttlMinutes: '60' },
    ...extra,
  };
}

function pairingRequestFromForm(form: URLSearchParams): PairingCodeCreate {
  const ttl = (form.get('ttlMinutes') ?? '').trim();
  const secret = form.get('secret') ?? '';
  const out = validate(pairingCodeCreate, {
    agentName: (form.get('agentName') ?? '').trim(),
    tier: form.get('tier') ?? '',
    ...(secret !== '' ? { secret } : {}),
    ...(ttl !== '' ? { ttlMinutes: /^\d{1,9}$/.test(ttl) ? Number(ttl) : ttl } : {}),
  });
  if (!out.ok) throw new DomainError('BAD_REQUEST', out.message);
  return out.value;
}

/** A refused create or revoke re-shows the page with the message (and what was typed, never the secret). */
async function agentsRefused(o: ConsoleOptions, reply: FastifyReply, s: HumanSession, error: unknown, form: URLSearchParams | null) {
  if (!(error instanceof DomainError) || !['BAD_REQUEST', 'WEAK_SECRET', 'CONFLICT'].includes(error.code)) throw error;
  const values = form
    ? {
        agentName: (form.get('agentName') ?? '').slice(0, 64),
        tier: form.get('tier') ?? 'agent',
        ttlMinutes: (form.get('ttlMinutes') ?? '60').slice(0, 9),
      }
    : undefined;
  const state = await agentsState(o, s, { error: error.message, ...(values ? { values } : {}) });
  return render(o, reply, s, {
    status: error.code === 'CONFLICT' ? 409 : 400,
    title: 'Agents',
    body: agentsBody(state),
    current: 'agents',
  });
}

function registerPages(app: FastifyInstance, o: ConsoleOptions): void {
  app.get(
    '/console/org',
    signedIn(o, async (req, reply, s) => {
      const profile = await loadProfile(o.db.reader, s.orgId);
      const query = req.query as { saved?: unknown; digest?: unknown } | undefined;
      const saved = query?.saved === '1';
      const body = html`${profileBody({ profile, session: s, values: profileFormValues(profile), errors: {}, saved })}${await digestSection(o, s, query?.digest === '1')}`;
      return render(o, reply, s, { status: 200, title: 'Organisation', body, current: 'org' });
    }),
  );
  // Each person's own weekly digest, whatever their role: a choice about their own inbox.
  app.post(
    '/console/org/digest',
    formPost(o, async (_req, reply, s, form) => {
      const choice = form.get('weeklyDigest');
      if (choice !== 'on' && choice !== 'off') throw new DomainError('BAD_REQUEST', 'weeklyDigest: must be on or off');
      await setWeeklyDigest(o.db, s.orgId, s.userId, choice);
      return seeOther(reply, '/console/org?digest=1#digest');
    }),
  );
  app.post(
    '/console/org',
    formPost(o, async (_req, reply, s, form) => {
      requireOwner(s);
      const patch = profilePatchFromForm(form);
      const errors = profileFieldErrors(patch);
      if (Object.keys(errors).length > 0) {
        const profile = await loadProfile(o.db.reader, s.orgId);
        const body = profileBody({ profile, session: s, values: formValues(form), errors, saved: false });
        return render(o, reply, s, { status: 400, title: 'Organisation', body, current: 'org' });
      }
      try {
        await setProfile(o.db, { orgId: s.orgId, actor: s.userId, patch: orgProfilePatch.parse(patch) });
      } catch (error) {
        // A refusal that names a profile field (a future lock date, a next invoice number already
        // used, a BSB without its account number) is shown beside that field like any other problem.
        const field = error instanceof DomainError ? error.details.field : undefined;
        if (!(error instanceof DomainError) || field === undefined || !(PROFILE_FIELDS as readonly string[]).includes(field)) throw error;
        const profile = await loadProfile(o.db.reader, s.orgId);
        const errors = { [field]: error.message.startsWith(`${field}: `) ? error.message.slice(field.length + 2) : error.message };
        const body = profileBody({ profile, session: s, values: formValues(form), errors, saved: false });
        return render(o, reply, s, { status: 400, title: 'Organisation', body, current: 'org' });
      }
      return seeOther(reply, '/console/org?saved=1');
    }),
  );
  app.get(
    '/console/agents',
    signedIn(o, async (req, reply, s) => {
      const done = (req.query as { revoked?: unknown } | undefined)?.revoked === '1';
      const state = await agentsState(o, s, done ? { notice: 'Agent revoked with all its keys, and recorded in the ledger.' } : {});
      return render(o, reply, s, { status: 200, title: 'Agents', body: agentsBody(state), current: 'agents' });
    }),
  );
  app.post(
    '/console/agents/pair',
    formPost(o, async (_req, reply, s, form) => {
      requireOwner(s);
      try {
        const created = await createPairingCode(o.db, { orgId: s.orgId, actor: s.userId, request: pairingRequestFromForm(form) });
        // Shown once on this response (no redirect: the code must not travel in a URL or be re-shown).
        const state = await agentsState(o, s, { created });
        return render(o, reply, s, { status: 200, title: 'Agents', body: agentsBody(state), current: 'agents' });
      } catch (error) {
        return agentsRefused(o, reply, s, error, form);
      }
    }),
  );
  app.post(
    '/console/agents/:id/revoke',
    formPost(o, async (req, reply, s) => {
      requireOwner(s);
      await revokeAgent(o.db, { orgId: s.orgId, agentId: pathId(req), actor: s.userId });
      return seeOther(reply, '/console/agents?revoked=1');
    }),
  );
}

async function ownerWriter(o: ConsoleOptions, req: FastifyRequest): Promise<HumanSession> {
  const s = await requireSession(o.db, req);
  const header = req.headers['x-csrf-token'];
  requireCsrf(s, typeof header === 'string' ? header : null);
  // Rights before body (as in the API's order of checks): a non-owner learns nothing from a malformed body.
  requireOwner(s);
  return s;
}

function parsedBody<T>(schema: Parameters<typeof validate>[0], req: FastifyRequest): T {
  const out = validate(schema, jsonOf(req));
  if (!out.ok) throw new DomainError('BAD_REQUEST', out.message);
  return out.value as T;
}

/**
 * JSON API: GET/PUT /console/api/org/profile, GET /console/api/agents, POST
 * /console/api/pairing-codes (a weak person-chosen secret answers WEAK_SECRET, HTTP 401),
 * POST /console/api/agents/:id/revoke.
 */
function registerApi(app: FastifyInstance, o: ConsoleOptions): void {
  app.get('/console/api/org/profile', async (req, reply) => {
    const s = await requireSession(o.db, req);
    return sendJson(reply, 200, await loadProfile(o.db.reader, s.orgId));
  });
  app.put('/console/api/org/profile', async (req, reply) => {
    const s = await ownerWriter(o, req);
    const patch = parsedBody<OrgProfilePatch>(orgProfilePatch, req);
    const result = await setProfile(o.db, { orgId: s.orgId, actor: s.userId, patch });
    return sendJson(reply, 200, { ok: true, result });
  });
  app.get('/console/api/agents', async (req, reply) => {
    const s = await requireSession(o.db, req);
    const { agents } = await orgAgents(o.db.reader, s.orgId, { limit: 200 });
    return sendJson(reply, 200, { agents, codes: await openCodes(o.db, s.orgId) });
  });
  app.post('/console/api/pairing-codes', async (req, reply) => {
    const s = await ownerWriter(o, req);
    const request = parsedBody<PairingCodeCreate>(pairingCodeCreate, req);
    const c = await createPairingCode(o.db, { orgId: s.orgId, actor: s.userId, request });
    const result = { code: c.code, codeId: c.codeId, expiresAt: c.expiresAt, agentName: c.agentName, tier: c.tier, ledgerId: c.ledgerId };
    return sendJson(reply, 200, { ok: true, result });
  });
  app.post('/console/api/agents/:id/revoke', async (req, reply) => {
    const s = await ownerWriter(o, req);
    const result = await revokeAgent(o.db, { orgId: s.orgId, agentId: pathId(req), actor: s.userId });
    return sendJson(reply, 200, { ok: true, result });
  });
}

export function registerOrgConsole(app: FastifyInstance, o: ConsoleOptions): void {
  registerPages(app, o);
  registerApi(app, o);
}

/** The signed-in person's weekly digest: whether they receive it, and the one button that changes it. */
async function digestSection(o: ConsoleOptions, s: HumanSession, changed: boolean): Promise<Html> {
  const row = await o.db.reader.get<{ weekly_digest: string | null; role: string }>(
    'SELECT weekly_digest, role FROM users WHERE org_id = ? AND id = ?',
    [s.orgId, s.userId],
  );
  const on = row ? receivesDigest(row) : false;
  return html`<section id="digest" aria-labelledby="digest-title">
<h2 id="digest-title">Your weekly digest</h2>
${changed ? html`<p role="status" class="notice">Saved and recorded in the ledger.</p>` : null}
<p>${
    on
      ? 'Every Monday morning you receive an email about last week: what the agents did, what waits for you, what is overdue, the cash in the bank and whether the record of every change verified.'
      : 'You do not receive the weekly email about last week’s books. Owners receive it until they turn it off; anyone may turn it on.'
  }</p>
<form method="post" action="/console/org/digest">
<input type="hidden" name="_csrf" value="${csrfToken(s)}">
<input type="hidden" name="weeklyDigest" value="${on ? 'off' : 'on'}">
<button type="submit">${on ? 'Stop the weekly digest' : 'Send me the weekly digest'}</button>
</form>
</section>`;
}
