import { TIERS, TIER_SCOPES, isTier, statusOf } from '@finance-desk/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clockOf } from '../clock.js';
import { DomainError } from '../errors.js';
import { MemoryRateLimiter } from '../http/rate-limit.js';
import { decideGrant, isGrantId, pendingGrant, type PendingGrant } from '../org/oauth.js';
import {
  CONTENT_SECURITY_POLICY,
  cookieToken,
  currentSession,
  formOf,
  loginFormProblem,
  requireCsrf,
  seeOther,
  sendHtml,
  setSessionCookie,
  type ConsoleOptions,
} from './console-http.js';
import { LOGIN_ROUTE_RATE, render } from './console-pages.js';
import { errorBody, html, page, raw, type Html } from './html.js';
import { SignInLocked, clientKey, signIn } from './login.js';
import { csrfToken, deleteSession, type HumanSession } from './sessions.js';

/**
 * The consent step of remote MCP connectors (docs/console.md "Connecting a remote connector";
 * the protocol is http/oauth-route.ts). `/authorize` stores the request and sends the browser to
 * GET /console/oauth/authorize?request=<id>: without a session, a sign-in form that comes back
 * here; with one, the consent page: the client's name QUOTED as its own words, where the browser
 * goes afterwards, and the tiers pairing offers. Only an owner (the people who may pair agents,
 * org-pages.ts) approves or denies; the form carries the session's CSRF token.
 */
const PATH = '/console/oauth/authorize';
const SIGN_IN_PATH = '/console/oauth/sign-in';

const TIER_WORDS: Readonly<Record<(typeof TIERS)[number], string>> = {
  observer: 'see the organisation, its people and agents; no books',
  reader: 'read the books as well',
  agent: 'read and write the books and the board (signature acts still wait for a person’s approval)',
};

function requestIdOf(value: unknown): string {
  if (!isGrantId(value)) throw new DomainError('BAD_REQUEST', 'request: not a connection request id');
  return value;
}

function signInBody(requestId: string, v: { slug: string; email: string; error: string | null }): Html {
  const error = v.error ? html`<p role="alert" class="notice error" id="login-error">${v.error}</p>` : null;
  const described = v.error ? raw(' aria-describedby="login-error"') : null;
  return html`<h1>Sign in to connect an application</h1>
<p>An application asked to connect to an organisation's books. Sign in as an owner of that organisation to decide.</p>
${error}
<form method="post" action="${SIGN_IN_PATH}" class="stack narrow"${described}>
  <input type="hidden" name="request" value="${requestId}">
  <label for="org">Organisation (slug)</label>
  <input id="org" name="org" autocomplete="organization" required maxlength="48" value="${v.slug}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${v.email}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
  <button type="submit">Sign in</button>
</form>
<p class="hint">Already signed in to the console in this browser?
<a href="${PATH}?request=${requestId}">Continue</a> (a browser may withhold the console's cookie when arriving from another site).</p>`;
}

function consentBody(s: HumanSession, g: PendingGrant): Html {
  const name = g.clientName === null ? html`<em>(it gave no name)</em>` : html`<q class="client-words">${g.clientName}</q>`;
  const tiers = TIERS.map(
    (t) => html`<li><label><input type="radio" name="tier" value="${t}" required> <strong>${t}</strong>:
${TIER_WORDS[t]} <span class="mono">(${TIER_SCOPES[t].join(', ')})</span></label></li>`,
  );
  return html`<h1>Connect an application to ${s.orgName}?</h1>
<p>An application asks to act on this organisation's books as an agent, over MCP.</p>
<dl class="payload">
  <dt>It calls itself</dt><dd>${name} <span class="hint">(the application's own words: Finance Desk has not checked them)</span></dd>
  <dt>After you decide, your browser goes to</dt><dd><code>${g.redirectOrigin}</code></dd>
  <dt>Client id</dt><dd><code>${g.clientId}</code></dd>
</dl>
<form method="post" action="${PATH}" class="stack">
  <input type="hidden" name="_csrf" value="${csrfToken(s)}">
  <input type="hidden" name="request" value="${g.grantId}">
  <fieldset>
    <legend>If you approve, it gets an agent key of this tier</legend>
    <ul class="plain">${tiers}</ul>
  </fieldset>
  <p class="hint">Approving creates an agent named after the application, with its own API key; the ledger records it.
  Revoke it any time on the <a href="/console/agents">Agents</a> page.</p>
  <button type="submit" name="decision" value="approve">Approve</button>
  <button type="submit" name="decision" value="deny" class="secondary" formnovalidate>Deny</button>
</form>`;
}

/**
 * The console's CSP, with the client's redirect origin added to form-action: browsers apply
 * form-action to the redirect that follows the form's submission, and the decision's answer is a
 * redirect to the client (only on the consent page, only that origin).
 */
function consentCsp(reply: FastifyReply, g: PendingGrant): void {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${g.redirectOrigin}`));
}

async function refusedPage(o: ConsoleOptions, reply: FastifyReply, s: HumanSession | null, error: DomainError): Promise<FastifyReply> {
  const status = statusOf(error.code);
  if (s) return render(o, reply, s, { status, title: 'Refused', body: errorBody(status, error.message), current: null });
  return sendHtml(reply, status, page('Refused', errorBody(status, error.message), null));
}

/** Only those who may pair agents (owners, org-pages.ts) may connect one. */
function requirePairingRights(s: HumanSession): void {
  if (s.role !== 'owner') {
    throw new DomainError(
      'FORBIDDEN_SCOPE',
      `you are signed in as ${s.email} (${s.role}); only an owner may connect an application as an agent: ask an owner to sign in here`,
    );
  }
}

export function registerOAuthConsole(app: FastifyInstance, o: ConsoleOptions): void {
  const limiter = new MemoryRateLimiter(o.loginRate ?? LOGIN_ROUTE_RATE);

  app.get(PATH, async (req: FastifyRequest, reply: FastifyReply) => {
    const s = await currentSession(o.db, req);
    try {
      const requestId = requestIdOf((req.query as { request?: unknown } | undefined)?.request);
      if (!s) return sendHtml(reply, 200, page('Sign in', signInBody(requestId, { slug: '', email: '', error: null }), null));
      requirePairingRights(s);
      const g = await pendingGrant(o.db.reader, clockOf(o.db)(), requestId);
      consentCsp(reply, g);
      return render(o, reply, s, { status: 200, title: 'Connect an application', body: consentBody(s, g), current: 'agents' });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return refusedPage(o, reply, s, error);
    }
  });

  app.post(SIGN_IN_PATH, async (req, reply) => {
    const form = formOf(req);
    let requestId: string;
    try {
      requestId = requestIdOf(form.get('request'));
    } catch (error) {
      return refusedPage(o, reply, null, error as DomainError);
    }
    const rate = await limiter.take(clientKey(req.ip));
    if (!rate.allowed) {
      reply.header('retry-after', rate.retryAfterSeconds);
      const error = `too many sign-in attempts from this address; try again in ${rate.retryAfterSeconds} seconds`;
      return sendHtml(reply, 429, page('Sign in', signInBody(requestId, { slug: '', email: '', error }), null));
    }
    const input = { slug: form.get('org') ?? '', email: form.get('email') ?? '', password: form.get('password') ?? '' };
    try {
      const problem = loginFormProblem({ org: input.slug, email: input.email, password: input.password });
      if (problem) throw new DomainError('BAD_REQUEST', problem);
      const session = await signIn(o.db, { ...input, ip: req.ip });
      await deleteSession(o.db, cookieToken(req));
      setSessionCookie(reply, session.token, o.cookieSecure);
      return seeOther(reply, `${PATH}?request=${requestId}`);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error instanceof SignInLocked) reply.header('retry-after', error.retryAfterSeconds);
      const body = signInBody(requestId, {
        slug: loginFormProblem({ org: input.slug }) ? '' : input.slug.slice(0, 48),
        email: loginFormProblem({ email: input.email }) ? '' : input.email.slice(0, 254),
        error: error.message,
      });
      return sendHtml(reply, statusOf(error.code), page('Sign in', body, null));
    }
  });

  app.post(PATH, async (req, reply) => {
    const s = await currentSession(o.db, req);
    const form = formOf(req);
    try {
      const requestId = requestIdOf(form.get('request'));
      if (!s) return seeOther(reply, `${PATH}?request=${requestId}`);
      requireCsrf(s, form.get('_csrf'));
      requirePairingRights(s);
      const decision = form.get('decision');
      if (decision !== 'approve' && decision !== 'deny') throw new DomainError('BAD_REQUEST', 'decision: must be approve or deny');
      const tier = form.get('tier');
      if (decision === 'approve' && !isTier(tier)) throw new DomainError('BAD_REQUEST', `tier: must be one of ${TIERS.join(', ')}`);
      const { location } = await decideGrant(o.db, {
        grantId: requestId,
        orgId: s.orgId,
        userId: s.userId,
        approve: decision === 'approve',
        tier: decision === 'approve' && isTier(tier) ? tier : null,
      });
      // 303: the browser follows with a GET (RFC 9700 §4.11), to the client's registered redirect URI.
      return reply.code(303).header('location', location).type('text/html; charset=utf-8').send('');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return refusedPage(o, reply, s, error);
    }
  });
}
