import { APPROVAL_STATUSES, limits, queryInt, multilineText, validate, idField } from '@finance-desk/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { clockOf, orgToday } from '../clock.js';
import { DomainError } from '../errors.js';
import { decideApproval } from '../governance/approvals.js';
import { policyPatchSchema, setPolicy } from '../governance/policy-admin.js';
import { chainStatus, consoleApprovals, decisionHistory, policyView } from './console-data.js';
import {
  clearSessionCookie,
  cookieToken,
  jsonOf,
  pathId,
  requireCsrf,
  requireSession,
  sendJson,
  type ConsoleOptions,
} from './console-http.js';
import { csrfToken, deleteSession, type HumanSession } from './sessions.js';

/**
 * The console's JSON API under /console/api. A session cookie is the only credential;
 * state-changing calls also need the session's CSRF token in `x-csrf-token`. GETs return the
 * bare payload and writes the `{ok, result}` frame, like the agent API; errors are the
 * error frame with the API's statuses (401 no session, 403 no rights or bad CSRF, 404, 409).
 */

const approvalsQuery = z.strictObject({
  status: z.enum(APPROVAL_STATUSES).optional(),
  cursor: idField().optional(),
  limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault),
});

const historyQuery = z.strictObject({
  limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault),
});

export const denySchema = z.strictObject({ reason: multilineText(500) });

function parsed<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const out = validate(schema, value);
  if (!out.ok) throw new DomainError('BAD_REQUEST', out.message);
  return out.value;
}

export function requireOwner(s: HumanSession): void {
  if (s.role !== 'owner') {
    throw new DomainError('FORBIDDEN_SCOPE', `user ${s.userId} is not an owner; only owners change policy`);
  }
}

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

async function writer(o: ConsoleOptions, req: FastifyRequest): Promise<HumanSession> {
  const session = await requireSession(o.db, req);
  const header = req.headers['x-csrf-token'];
  requireCsrf(session, typeof header === 'string' ? header : null);
  return session;
}

/** A decision by the signed-in person; the token is left for the agent's approval.wait. */
async function decide(o: ConsoleOptions, s: HumanSession, approvalId: string, approve: boolean, reason: string | null) {
  const out = await decideApproval(o.db, {
    orgId: s.orgId,
    approvalId,
    user: { id: s.userId, role: s.role },
    approve,
    reason,
  });
  return { approvalId: out.approvalId, status: out.status, ledgerId: out.ledgerId };
}

function registerReads(app: FastifyInstance, o: ConsoleOptions): void {
  app.get('/console/api/session', async (req, reply) => {
    const s = await requireSession(o.db, req);
    return sendJson(reply, 200, {
      user: { id: s.userId, email: s.email, role: s.role },
      org: { id: s.orgId, slug: s.orgSlug, name: s.orgName },
      csrfToken: csrfToken(s),
      expiresAt: s.expiresAt,
    });
  });
  app.get('/console/api/approvals', async (req, reply) => {
    const s = await requireSession(o.db, req);
    const q = parsed(approvalsQuery, req.query ?? {});
    return sendJson(reply, 200, await consoleApprovals(o.db.reader, s, q, clockOf(o.db)(), await orgToday(o.db, s.orgId)));
  });
  app.get('/console/api/decisions', async (req, reply) => {
    const s = await requireSession(o.db, req);
    const q = parsed(historyQuery, req.query ?? {});
    return sendJson(reply, 200, await decisionHistory(o.db.reader, s, q.limit, clockOf(o.db)()));
  });
  app.get('/console/api/policy', async (req, reply) => {
    const s = await requireSession(o.db, req);
    return sendJson(reply, 200, (await policyView(o.db.reader, s.orgId)).policy);
  });
  app.get('/console/api/chain', async (req, reply) => {
    const s = await requireSession(o.db, req);
    return sendJson(reply, 200, { orgId: s.orgId, ...(await chainStatus(o.db, s.orgId)) });
  });
}

function registerWrites(app: FastifyInstance, o: ConsoleOptions): void {
  app.post('/console/api/approvals/:id/approve', async (req: IdRequest, reply) => {
    const s = await writer(o, req);
    return sendJson(reply, 200, {
      ok: true,
      result: await decide(o, s, pathId(req), true, null),
    });
  });
  app.post('/console/api/approvals/:id/deny', async (req: IdRequest, reply) => {
    const s = await writer(o, req);
    const body = parsed(denySchema, jsonOf(req));
    return sendJson(reply, 200, {
      ok: true,
      result: await decide(o, s, pathId(req), false, body.reason),
    });
  });
  app.put('/console/api/policy', async (req, reply) => {
    const s = await writer(o, req);
    // Rights before body (as in the API's order of checks): a non-owner learns nothing from a malformed patch.
    requireOwner(s);
    const patch = parsed(policyPatchSchema, jsonOf(req));
    const result = await setPolicy(o.db, {
      orgId: s.orgId,
      user: { id: s.userId, role: s.role },
      patch,
    });
    return sendJson(reply, 200, { ok: true, result });
  });
  app.post('/console/api/logout', async (req, reply) => {
    await writer(o, req);
    await deleteSession(o.db, cookieToken(req));
    clearSessionCookie(reply, o.cookieSecure);
    return sendJson(reply, 200, { ok: true, result: { signedOut: true } });
  });
}

export function registerConsoleApi(app: FastifyInstance, o: ConsoleOptions): void {
  registerReads(app, o);
  registerWrites(app, o);
}
