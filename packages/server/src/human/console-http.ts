import type { FastifyReply, FastifyRequest } from 'fastify';
import { textProblem } from '@finance-desk/protocol';
import { DomainError } from '../errors.js';
import type { RateConfig } from '../http/rate-limit.js';
import type { Database } from '../storage/types.js';
import { SESSION_COOKIE, SESSION_LIFETIME_MS, csrfMatches, sessionOf, type HumanSession } from './sessions.js';

/** Request plumbing shared by the console's pages and its JSON API. */

export interface ConsoleOptions {
  readonly db: Database;
  /** Mark the session cookie Secure (COOKIE_SECURE=1 when served over HTTPS). */
  readonly cookieSecure: boolean;
  /** Budget of POST /console/login per client address (default LOGIN_ROUTE_RATE). */
  readonly loginRate?: RateConfig;
}

/** No inline script or style anywhere, nothing from other origins, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';

export function sendJson(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(JSON.stringify(value));
}

export function sendHtml(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).type(HTML_TYPE).send(text);
}

/** Post/redirect/get: a 303 so that reloading the next page never re-submits a form. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).type(HTML_TYPE).send('');
}

/** The app reads every body as text (http/app.ts); an empty body may arrive as undefined. */
function bodyText(req: FastifyRequest): string {
  return typeof req.body === 'string' ? req.body : '';
}

/**
 * The `:id` of a console route, checked against the API's text rules before it reaches a query
 * (a NUL is an error in a PostgreSQL parameter): BAD_REQUEST naming `id`.
 */
export function pathId(req: FastifyRequest): string {
  const id = (req.params as { id?: unknown }).id;
  const problem = typeof id === 'string' ? textProblem(id, { multiline: false }) : 'is required';
  if (problem) throw new DomainError('BAD_REQUEST', `id: ${problem}`);
  return id as string;
}

/**
 * The sign-in form's fields checked against the API's text rules before anything is looked up or
 * counted, so a NUL or a lone surrogate is BAD_REQUEST naming the field and nothing is stored.
 */
export function loginFormProblem(fields: Readonly<Record<string, string>>): string | null {
  for (const [name, value] of Object.entries(fields)) {
    const problem = textProblem(value, { multiline: false });
    if (problem) return `${name}: ${problem}`;
  }
  return null;
}

export function formOf(req: FastifyRequest): URLSearchParams {
  return new URLSearchParams(bodyText(req));
}

/** A JSON object body (empty is `{}`), else BAD_REQUEST. */
export function jsonOf(req: FastifyRequest): Record<string, unknown> {
  const text = bodyText(req);
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('BAD_REQUEST', 'body: invalid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new DomainError('BAD_REQUEST', 'body: must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** The session token from the request's cookies (parsed by @fastify/cookie, registered in console.ts), or null. */
export function cookieToken(req: FastifyRequest): string | null {
  return req.cookies[SESSION_COOKIE] ?? null;
}

/**
 * Path=/console keeps the cookie away from the agent API; SameSite=Strict keeps it off
 * cross-site requests; HttpOnly keeps it from scripts. Not signed: the value is a random
 * secret whose SHA-256 is looked up in the database, so a signature would add nothing.
 */
function sessionCookieOptions(secure: boolean) {
  return { path: '/console', httpOnly: true, sameSite: 'strict', secure } as const;
}

export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.setCookie(SESSION_COOKIE, token, { ...sessionCookieOptions(secure), maxAge: SESSION_LIFETIME_MS / 1000 });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(secure));
}

export async function currentSession(db: Database, req: FastifyRequest): Promise<HumanSession | null> {
  return sessionOf(db.reader, cookieToken(req));
}

export async function requireSession(db: Database, req: FastifyRequest): Promise<HumanSession> {
  const session = await currentSession(db, req);
  if (!session) throw new DomainError('UNAUTHORIZED', 'no console session: sign in at /console/login');
  return session;
}

/** The presented token must have been made from this session's secret (`csrfToken` in sessions.ts). */
export function requireCsrf(session: HumanSession, presented: string | null | undefined): void {
  if (!csrfMatches(session, presented)) {
    throw new DomainError('FORBIDDEN_SCOPE', 'missing or wrong CSRF token for this session');
  }
}

/**
 * Guards for every console request. An API key is refused outright, even beside a valid
 * session: the human lane is for people only (an API key can never decide). A browser that
 * says a state-changing request comes from another site is refused before anything runs; this
 * also covers the login form, which has no session yet to carry a CSRF token.
 */
export function consoleGuard(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
  if (/^bearer\s/i.test(req.headers.authorization ?? '')) {
    return Promise.reject(
      new DomainError(
        'UNAUTHORIZED',
        'the console does not accept API keys: only a signed-in person can decide; ' + 'sign in at /console/login',
      ),
    );
  }
  const site = req.headers['sec-fetch-site'];
  const unsafe = req.method !== 'GET' && req.method !== 'HEAD';
  if (unsafe && (site === 'cross-site' || site === 'same-site')) {
    return Promise.reject(new DomainError('FORBIDDEN_SCOPE', 'cross-site request refused'));
  }
  return Promise.resolve();
}
