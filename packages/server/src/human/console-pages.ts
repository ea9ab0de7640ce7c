import { statusOf, validate } from '@finance-desk/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clockOf, orgToday } from '../clock.js';
import { DomainError } from '../errors.js';
import { decideApproval } from '../governance/approvals.js';
import { setPolicy } from '../governance/policy-admin.js';
import { CONSOLE_CSS, CONSOLE_ICON, CONSOLE_JS } from './assets.js';
import { denySchema, requireOwner } from './console-api.js';
import { chainStatus, consoleApproval, consoleApprovals, decisionHistory, policyView } from './console-data.js';
import {
  clearSessionCookie,
  cookieToken,
  currentSession,
  formOf,
  loginFormProblem,
  pathId,
  requireCsrf,
  seeOther,
  sendHtml,
  setSessionCookie,
  type ConsoleOptions,
} from './console-http.js';
import { errorBody, page, type Html, type NavKey } from './html.js';
import { MemoryRateLimiter } from '../http/rate-limit.js';
import { SignInLocked, clientKey, signIn } from './login.js';
import { policyPatchFromForm } from './policy-form.js';
import { deleteSession, type HumanSession } from './sessions.js';
import { approvalPageBody, historyBody, inboxBody, loginBody, policyBody } from './views.js';

/** The console's HTML pages: sign in, inbox, history, policy. */

type PageHandler = (req: FastifyRequest, reply: FastifyReply, s: HumanSession) => Promise<FastifyReply>;

export async function render(
  o: ConsoleOptions,
  reply: FastifyReply,
  s: HumanSession,
  p: {
    status: number;
    title: string;
    body: Html;
    current: NavKey | null;
  },
): Promise<FastifyReply> {
  const chain = await chainStatus(o.db, s.orgId);
  return sendHtml(reply, p.status, page(p.title, p.body, { session: s, chain, current: p.current }));
}

/**
 * A page for a signed-in person: without a session, go to the sign-in form; an expected
 * refusal (no rights, unknown approval, already decided, bad CSRF) becomes a page with its status.
 */
export function signedIn(o: ConsoleOptions, handler: PageHandler) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const s = await currentSession(o.db, req);
    if (!s) return seeOther(reply, '/console/login');
    try {
      return await handler(req, reply, s);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const status = statusOf(error.code);
      return render(o, reply, s, {
        status,
        title: 'Refused',
        body: errorBody(status, error.message),
        current: null,
      });
    }
  };
}

/** A form post: its `_csrf` field must be this session's token. */
export function formPost(
  o: ConsoleOptions,
  handler: (req: FastifyRequest, reply: FastifyReply, s: HumanSession, form: URLSearchParams) => Promise<FastifyReply>,
) {
  return signedIn(o, async (req, reply, s) => {
    const form = formOf(req);
    requireCsrf(s, form.get('_csrf'));
    return handler(req, reply, s, form);
  });
}

/**
 * The sign-in route's own budget per client, before any database work or
 * scrypt: a burst of 30, then one attempt every 2 seconds. A person mistyping never meets it; a
 * flood gets a 429 page that costs nothing. In memory per process: each process adds its own
 * budget, which is fine for a bound whose job is cost, not secrecy (the failure counts that
 * protect passwords are in the database, shared by all processes).
 */
export const LOGIN_ROUTE_RATE = { perSecond: 1 / 2, burst: 30 } as const;

function registerLogin(app: FastifyInstance, o: ConsoleOptions): void {
  const limiter = new MemoryRateLimiter(o.loginRate ?? LOGIN_ROUTE_RATE);
  app.get('/console/login', async (req, reply) => {
    if (await currentSession(o.db, req)) return seeOther(reply, '/console');
    return sendHtml(reply, 200, page('Sign in', loginBody({ slug: '', email: '', error: null }), null));
  });
  app.post('/console/login', async (req, reply) => {
    const rate = await limiter.take(clientKey(req.ip));
    if (!rate.allowed) {
      reply.header('retry-after', rate.retryAfterSeconds);
      const error = `too many sign-in attempts from this address; try again in ${rate.retryAfterSeconds} seconds`;
      return sendHtml(reply, 429, page('Sign in', loginBody({ slug: '', email: '', error }), null));
    }
    const form = formOf(req);
    const input = {
      slug: form.get('org') ?? '',
      email: form.get('email') ?? '',
      password: form.get('password') ?? '',
    };
    try {
      const problem = loginFormProblem({ org: input.slug, email: input.email, password: input.password });
      if (problem) throw new DomainError('BAD_REQUEST', problem);
      const session = await signIn(o.db, { ...input, ip: req.ip });
      // A new token on every sign-in; drop the one the browser had, if any (no fixation).
      await deleteSession(o.db, cookieToken(req));
      setSessionCookie(reply, session.token, o.cookieSecure);
      return seeOther(reply, '/console');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error instanceof SignInLocked) reply.header('retry-after', error.retryAfterSeconds);
      const body = loginBody({
        // Only well-formed text is shown back in the form.
        slug: loginFormProblem({ org: input.slug }) ? '' : input.slug.slice(0, 48),
        email: loginFormProblem({ email: input.email }) ? '' : input.email.slice(0, 254),
        error: error.message,
      });
      return sendHtml(reply, statusOf(error.code), page('Sign in', body, null));
    }
  });
  app.post(
    '/console/logout',
    signedIn(o, async (req, reply, s) => {
      requireCsrf(s, formOf(req).get('_csrf'));
      await deleteSession(o.db, cookieToken(req));
      clearSessionCookie(reply, o.cookieSecure);
      return seeOther(reply, '/console/login');
    }),
  );
}

function registerInbox(app: FastifyInstance, o: ConsoleOptions): void {
  const inbox = signedIn(o, async (req, reply, s) => {
    const { approvals } = await consoleApprovals(
      o.db.reader,
      s,
      { status: 'pending', limit: 200 },
      clockOf(o.db)(),
      await orgToday(o.db, s.orgId),
    );
    const done = (req.query as { done?: unknown } | undefined)?.done;
    const body = inboxBody(s, approvals, typeof done === 'string' ? done : null);
    return render(o, reply, s, { status: 200, title: 'Inbox', body, current: 'inbox' });
  });
  app.get('/console', inbox);
  app.get('/console/', inbox);
  // One approval's card: the link an approval email carries.
  app.get(
    '/console/approvals/:id',
    signedIn(o, async (req, reply, s) => {
      const a = await consoleApproval(o.db.reader, s, pathId(req), clockOf(o.db)(), await orgToday(o.db, s.orgId));
      return render(o, reply, s, { status: 200, title: 'Approval', body: approvalPageBody(s, a), current: 'inbox' });
    }),
  );
  app.post(
    '/console/approvals/:id/approve',
    formPost(o, async (req, reply, s) => {
      const id = pathId(req);
      await decideApproval(o.db, {
        orgId: s.orgId,
        approvalId: id,
        user: { id: s.userId, role: s.role },
        approve: true,
      });
      return seeOther(reply, '/console?done=approved');
    }),
  );
  app.post(
    '/console/approvals/:id/deny',
    formPost(o, async (req, reply, s, form) => {
      const id = pathId(req);
      const body = validate(denySchema, { reason: form.get('reason') ?? '' });
      if (!body.ok) throw new DomainError('BAD_REQUEST', body.message);
      const user = { id: s.userId, role: s.role };
      await decideApproval(o.db, {
        orgId: s.orgId,
        approvalId: id,
        user,
        approve: false,
        reason: body.value.reason,
      });
      return seeOther(reply, '/console?done=denied');
    }),
  );
}

function registerHistoryAndPolicy(app: FastifyInstance, o: ConsoleOptions): void {
  app.get(
    '/console/history',
    signedIn(o, async (_req, reply, s) => {
      const { decisions } = await decisionHistory(o.db.reader, s, 200, clockOf(o.db)());
      return render(o, reply, s, {
        status: 200,
        title: 'History',
        body: historyBody(decisions),
        current: 'history',
      });
    }),
  );
  app.get(
    '/console/policy',
    signedIn(o, async (req, reply, s) => {
      const view = await policyView(o.db.reader, s.orgId);
      const saved = (req.query as { saved?: unknown } | undefined)?.saved === '1';
      const body = policyBody({ view, session: s, error: null, saved });
      return render(o, reply, s, { status: 200, title: 'Policy', body, current: 'policy' });
    }),
  );
  app.post(
    '/console/policy',
    formPost(o, async (_req, reply, s, form) => {
      requireOwner(s);
      try {
        const patch = policyPatchFromForm(form);
        await setPolicy(o.db, { orgId: s.orgId, user: { id: s.userId, role: s.role }, patch });
      } catch (error) {
        // A mistyped field re-shows the form with the message instead of a bare error page.
        if (!(error instanceof DomainError) || error.code !== 'BAD_REQUEST') throw error;
        const view = await policyView(o.db.reader, s.orgId);
        const body = policyBody({ view, session: s, error: error.message, saved: false });
        return render(o, reply, s, { status: 400, title: 'Policy', body, current: 'policy' });
      }
      return seeOther(reply, '/console/policy?saved=1');
    }),
  );
}

function registerAssets(app: FastifyInstance): void {
  app.get('/console/assets/console.css', async (_req, reply) => reply.code(200).type('text/css; charset=utf-8').send(CONSOLE_CSS));
  app.get('/console/assets/console.js', async (_req, reply) => reply.code(200).type('text/javascript; charset=utf-8').send(CONSOLE_JS));
  app.get('/console/assets/icon.svg', async (_req, reply) => reply.code(200).type('image/svg+xml').send(CONSOLE_ICON));
}

export function registerConsolePages(app: FastifyInstance, o: ConsoleOptions): void {
  registerLogin(app, o);
  registerInbox(app, o);
  registerHistoryAndPolicy(app, o);
  registerAssets(app);
}
