import {
  METHOD_NAME,
  NOT_DEPLOYED_READS,
  errorFrame,
  firstField,
  isHold,
  limits,
  missingScopeMessage,
  statusOf,
  validate,
  type ErrorCode,
} from '@finance-desk/protocol';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';
import { consolePlugin } from '../human/console.js';
import { newRequestId } from '../ids.js';
import type { Principal } from '../principal.js';
import { RawJson } from '../raw-json.js';
import { malformedQueryMessage, parseQuery } from './query.js';
import { declaredMethods, methodRegistry, readRegistry, type MethodBinding, type ReadBinding } from '../registry.js';
import type { Database } from '../storage/types.js';
import { runWrite } from '../write-path.js';
import { registerDocsRoutes } from './docs-route.js';
import { bearerOf, principalOf } from './bearer.js';
import { PRINCIPAL_CACHE_MAX_ENTRIES, PrincipalCache } from '../org/principal-cache.js';
import { registerMcpRoute } from './mcp-route.js';
import { registerPairRoute } from './pair-route.js';
import { registerOAuthRoutes, type OAuthOptions } from './oauth-route.js';
import { readiness } from './health.js';
import { createMetrics, registerMetrics, type Metrics } from './metrics.js';
import { MemoryRateLimiter, type RateConfig, type RateLimiter } from './rate-limit.js';

export interface AppOptions {
  readonly db: Database;
  readonly rateLimiter: RateLimiter;
  /**
   * pino options or false; secrets never reach the log (no headers are serialised). `stream`
   * replaces stdout as the destination (tests read the lines a server writes).
   */
  readonly logger?: boolean | { level: string; stream?: { write(line: string): void } };
  /** Serve `POST /bench/bare` (a JSON echo with no auth, no storage): the benchmark baseline. */
  readonly benchRoute?: boolean;
  /** Mark the console's session cookie Secure (COOKIE_SECURE=1). */
  readonly cookieSecure?: boolean;
  /** Budget of POST /api/v1/org/pair per client address (default PAIR_ROUTE_RATE). */
  readonly pairRate?: RateConfig | undefined;
  /** METRICS_TOKEN: serve GET /metrics to `Authorization: Bearer <token>`; unset, /metrics is 404. */
  readonly metricsToken?: string | null;
  /** PUBLIC_URL: with it (https, or http on loopback), the OAuth endpoints for remote MCP connectors are served (oauth-route.ts). */
  readonly publicUrl?: string | null | undefined;
  /** Budgets and bounds of the OAuth endpoints (tests narrow or widen them). */
  readonly oauth?: OAuthOptions | undefined;
  /** PRINCIPAL_CACHE_MAX: API keys remembered between requests (default PRINCIPAL_CACHE_MAX_ENTRIES). */
  readonly principalCacheMax?: number | undefined;
}

interface Gate {
  principal: Principal;
  method: MethodBinding | null;
  read: ReadBinding | null;
  /**
   * The principal came from the cache (org/principal-cache.ts), not from a read for this request:
   * the write checks it under the organisation's lock, and any answer given before that is
   * confirmed against the database first (confirmRemembered).
   */
  remembered: { readonly token: string; readonly epoch: number } | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    gate: Gate | null;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** An incoming x-request-id kept as the request's id: short, and only characters safe in a log line. */
const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A bounded label for metrics and the access log: the declared method or read, else the route pattern. */
function routeOf(req: FastifyRequest): string {
  const named = req.gate?.method?.spec.name ?? req.gate?.read?.spec.name;
  return named ?? req.routeOptions.url ?? 'unmatched';
}
/** Retry-After of a request that arrives while the server shuts down (another process, or this one restarted, answers). */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 1;
const API_PREFIX = '/api/v1/';
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

function fail(code: Exclude<ErrorCode, 'IDEMPOTENT_REPLAY' | 'INTERNAL'>, message: string): never {
  throw new DomainError(code, message);
}

function send(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(body);
}

function nameOf(req: FastifyRequest): string {
  const path = req.url.split('?', 1)[0] ?? '';
  return decodeURIComponent(path.slice(API_PREFIX.length));
}

/** One token of the key's budget, with the RateLimit headers; RATE_LIMITED with Retry-After when spent. */
export async function takeRate(limiter: RateLimiter, principal: Principal, reply: FastifyReply, metrics: Metrics): Promise<void> {
  const rate = await limiter.take(principal.credentialId);
  reply.header('RateLimit-Limit', rate.limit);
  reply.header('RateLimit-Remaining', rate.remaining);
  reply.header('RateLimit-Reset', rate.resetSeconds);
  if (!rate.allowed) {
    metrics.rateLimited.inc();
    reply.header('Retry-After', rate.retryAfterSeconds);
    fail('RATE_LIMITED', `rate limit exceeded for this key; retry in ${rate.retryAfterSeconds} seconds`);
  }
}

/**
 * A request whose principal may come from the cache: a declared write that runs wholly inside a
 * unit of work (no `prepare` step, which runs and may answer before it; not a read, which has no
 * unit to check the credential in). Only looks: the gate judges the name, in the order of checks,
 * after.
 */
function rememberable(req: FastifyRequest, name: string | null): boolean {
  if (req.method !== 'POST' || name === null) return false;
  const m = methodRegistry.get(name);
  return m !== undefined && m.write !== undefined && m.prepare === undefined;
}

/**
 * An answer about to be given with a remembered principal before its unit checked it (a refused
 * scope, invalid params, a spent rate): read the credential now, so a revoked key hears
 * UNAUTHORIZED, as it would have with the key read for this request.
 */
async function confirmRemembered(db: Database, cache: PrincipalCache, req: FastifyRequest): Promise<void> {
  const g = req.gate;
  if (!g?.remembered) return;
  cache.forget(g.principal.credentialId);
  await principalOf(db, `Bearer ${g.remembered.token}`, cache);
}

/** The order of checks, first half (before the body is read): credential → rate limit → name → exists → scope. */
async function gate(
  req: FastifyRequest,
  reply: FastifyReply,
  db: Database,
  limiter: RateLimiter,
  metrics: Metrics,
  cache: PrincipalCache,
): Promise<void> {
  // The name once per request: both halves of the gate look at it.
  let name: string | null;
  try {
    name = nameOf(req);
  } catch {
    name = null;
  }
  const token = rememberable(req, name) ? bearerOf(req.headers.authorization) : null;
  const hit = token === null ? null : cache.get(token);
  const principal = hit ? hit.principal : (await principalOf(db, req.headers.authorization, token === null ? undefined : cache)).principal;
  req.gate = { principal, method: null, read: null, remembered: hit && token !== null ? { token, epoch: hit.epoch } : null };
  try {
    await gateAfterCredential(req, reply, principal, name, limiter, metrics);
  } catch (error) {
    await confirmRemembered(db, cache, req);
    throw error;
  }
}

async function gateAfterCredential(
  req: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  name: string | null,
  limiter: RateLimiter,
  metrics: Metrics,
): Promise<void> {
  const remembered = req.gate?.remembered ?? null;
  await takeRate(limiter, principal, reply, metrics);

  if (name === null) fail('BAD_REQUEST', 'malformed path');
  if (req.method === 'POST') {
    if (!METHOD_NAME.test(name)) {
      fail('BAD_REQUEST', `malformed method name "${name.slice(0, 100)}": expected family.method`);
    }
    const method = methodRegistry.get(name);
    if (!method) {
      fail('NOT_FOUND', declaredMethods.has(name) ? `method ${name} is not deployed` : `unknown method ${name}`);
    }
    if (!principal.scopes.includes(method.spec.scope)) {
      fail('FORBIDDEN_SCOPE', missingScopeMessage(method.spec.scope, name));
    }
    req.gate = { principal, method, read: null, remembered };
    return;
  }
  const read = readRegistry.get(name);
  if (!read) {
    fail('NOT_FOUND', (NOT_DEPLOYED_READS as readonly string[]).includes(name) ? `read ${name} is not deployed` : `unknown read ${name}`);
  }
  if (!principal.scopes.includes(read.spec.scope)) {
    fail('FORBIDDEN_SCOPE', missingScopeMessage(read.spec.scope, name));
  }
  req.gate = { principal, method: null, read, remembered: null };
}

/** `{"params":{…}}` is the wrapped form, any other object the bare params, empty is `{}`. */
export function paramsOf(body: unknown): unknown {
  if (body === undefined || (typeof body === 'string' && body.trim() === '')) return {};
  let parsed: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the app's one content-type parser hands over text
    parsed = JSON.parse(String(body));
  } catch (error) {
    fail('BAD_REQUEST', `body: invalid JSON (${(error as Error).message.slice(0, 120)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    fail('BAD_REQUEST', 'body: must be a JSON object');
  }
  const keys = Object.keys(parsed);
  if (keys.length === 1 && keys[0] === 'params') {
    const inner = (parsed as { params: unknown }).params;
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) {
      fail('BAD_REQUEST', 'params: must be a JSON object');
    }
    return inner;
  }
  return parsed;
}

function idempotencyKeyOf(req: FastifyRequest): string | null {
  const raw = req.headers['x-idempotency-key'];
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !IDEMPOTENCY_KEY.test(raw)) {
    fail('BAD_REQUEST', 'x-idempotency-key: must be 1 to 255 printable ASCII characters');
  }
  return raw;
}

async function callMethod(
  req: FastifyRequest,
  reply: FastifyReply,
  db: Database,
  g: Gate,
  m: MethodBinding,
  metrics: Metrics,
  cache: PrincipalCache,
) {
  const params = paramsOf(req.body);
  const parsed = validate(m.spec.params, params);
  if (!parsed.ok) fail('BAD_REQUEST', parsed.message);
  const key = idempotencyKeyOf(req);
  if (m.read) {
    // Read-kind methods (books reads): committed data, no event, nothing to make idempotent.
    const result = await m.read(parsed.value, { db, principal: g.principal });
    return send(reply, 200, JSON.stringify({ ok: true, result }));
  }
  const write = m.write;
  const prepare = m.prepare;
  const outcome = await runWrite(
    db,
    {
      orgId: g.principal.orgId,
      actor: g.principal.actor,
      credentialId: g.principal.credentialId,
      method: m.spec.name,
      params: parsed.value,
      idempotencyKey: key,
      remembered: g.remembered
        ? { epoch: g.remembered.epoch, confirmed: (epoch: number) => cache.confirmed(g.principal.credentialId, epoch) }
        : undefined,
    },
    (uow, prepared) => write(parsed.value, uow, prepared),
    prepare ? () => prepare(parsed.value, { db, principal: g.principal }) : undefined,
  );
  metrics.writes.inc({ method: m.spec.name, outcome: outcome.replay ? 'replay' : isHold(outcome.result) ? 'hold' : 'ok' });
  if (outcome.replay) {
    reply.header('idempotent-replayed', 'true');
    return send(reply, 200, JSON.stringify({ ok: true, code: 'IDEMPOTENT_REPLAY', result: outcome.result }));
  }
  return send(reply, 200, JSON.stringify({ ok: true, result: outcome.result }));
}

async function callRead(
  req: FastifyRequest,
  reply: FastifyReply,
  db: Database,
  g: Gate,
  r: ReadBinding,
  onDrain: (fn: () => void) => () => void,
) {
  const malformed = malformedQueryMessage(req.query);
  if (malformed) fail('BAD_REQUEST', malformed);
  const parsed = validate(r.spec.query, req.query ?? {});
  if (!parsed.ok) fail('BAD_REQUEST', parsed.message);
  // The caller hanging up, or the server starting to close, ends a long-poll early.
  const abort = new AbortController();
  const hangUp = () => abort.abort();
  // The response's 'close' before it is finished: the connection went away.
  reply.raw.once('close', hangUp);
  const unregister = onDrain(hangUp);
  try {
    const payload = await r.run(parsed.value, { db, principal: g.principal, signal: abort.signal });
    return send(reply, 200, payload instanceof RawJson ? payload.text : JSON.stringify(payload));
  } finally {
    reply.raw.off('close', hangUp);
    unregister();
  }
}

/** Fastify's own client errors worded as ours (`field: problem`): which part of the request is wrong. */
const FRAMEWORK_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: `body: larger than the limit of ${limits.bodyBytesMax} bytes`,
  FST_ERR_BAD_URL: 'path: malformed percent-encoding',
  FST_ERR_MAX_PARAM_LENGTH: 'path: too long',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'content-type: not a media type this server reads; send application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'content-length: does not match the body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'body: empty',
};

function errorReply(req: FastifyRequest, reply: FastifyReply, error: unknown, metrics?: Metrics): FastifyReply {
  const method = req.gate?.method;
  if (metrics && method && method.spec.kind !== 'read') {
    metrics.writes.inc({ method: method.spec.name, outcome: error instanceof DomainError ? error.code : 'INTERNAL' });
  }
  if (error instanceof DomainError) {
    // A refused parameter is named in `error.field` (validation and the domain's checks both word
    // their messages `field: problem`).
    const field = error.details.field ?? (error.code === 'BAD_REQUEST' ? firstField(error.message) : undefined);
    const details = field === undefined ? error.details : { ...error.details, field };
    return send(reply, statusOf(error.code), JSON.stringify(errorFrame(error.code, error.message, details)));
  }
  const status = (error as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Every framework client error gets our error frame as BAD_REQUEST, never Fastify's own body.
    const code = (error as { code?: string }).code ?? '';
    const message = FRAMEWORK_MESSAGES[code] ?? `request: ${String((error as Error).message).slice(0, 200)}`;
    return send(reply, 400, JSON.stringify(errorFrame('BAD_REQUEST', message)));
  }
  req.log.error({ err: error, reqId: req.id }, 'internal error');
  const frame = errorFrame('INTERNAL', `internal error; quote request id ${req.id} to the operator`);
  return send(reply, 500, JSON.stringify(frame));
}

/**
 * Errors node's HTTP parser finds before Fastify sees a request (a malformed request line, a bad
 * header, headers too large): answered with our error frame on the raw socket, then closed, as
 * node itself does, instead of Fastify's `{"error":"Bad Request"...}`.
 */
function clientErrorReply(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'headers: larger than the server accepts'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'request: not received in time'
        : 'request: malformed HTTP request';
  // BAD_REQUEST is always 400, whatever node would have said (431, 408).
  const body = JSON.stringify(errorFrame('BAD_REQUEST', message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Build the HTTP app from the registry (docs/architecture.md, A method call, end to end). */
export function buildApp(options: AppOptions): FastifyInstance {
  const { db, rateLimiter } = options;
  // Principals remembered between requests, for writes checked under their organisation's lock.
  const principals = new PrincipalCache(options.principalCacheMax ?? PRINCIPAL_CACHE_MAX_ENTRIES);
  const metrics = createMetrics(db, {
    principals,
    ...(rateLimiter instanceof MemoryRateLimiter ? { rate_limit_buckets: rateLimiter } : {}),
  });
  const app = Fastify({
    logger: options.logger ?? false,
    // Per-request lines are off: at thousands of requests a second they cost more than the
    // request. Errors are logged with their request id (errorReply).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: limits.bodyBytesMax,
    // A well-formed incoming x-request-id is kept (a caller's or a proxy's trace id); else ours.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && INCOMING_REQUEST_ID.test(given) ? given : newRequestId();
    },
    requestIdHeader: false,
    // Late arrivals while closing get our error frame from our own hook (drain below), never
    // Fastify's own 503 body.
    return503OnClosing: false,
    // Router errors (malformed percent-encoding in the path, …) get our error frame.
    frameworkErrors: (error, req, reply) => {
      errorReply(req, reply, error, metrics);
    },
    clientErrorHandler: clientErrorReply,
    routerOptions: { querystringParser: parseQuery },
  });
  app.decorateRequest('gate', null);
  // Shutdown: from the moment close begins, every new request is answered at
  // once with 503, the error frame and Retry-After, and its connection is closed; requests already
  // running finish (app.close waits for them, and so for their commits).
  let draining = false;
  const drainListeners = new Set<() => void>();
  const onDrain = (fn: () => void) => {
    drainListeners.add(fn);
    return () => void drainListeners.delete(fn);
  };
  // Connections and how many requests each is serving: at close, a connection serving none is
  // ended at once (Node's closeIdleConnections misses one that never sent a request, and shutdown
  // then waited out the grace period); one serving a request ends with its answer (onSend below).
  const connections = new Map<Socket, { serving: number; seen: number }>();
  app.server.on('connection', (socket: Socket) => {
    connections.set(socket, { serving: 0, seen: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const c = connections.get(req.socket);
    if (!c) return;
    c.serving += 1;
    c.seen += 1;
    res.once('close', () => {
      c.serving -= 1;
      if (draining && c.serving === 0) req.socket.destroySoon();
    });
  });
  app.addHook('preClose', () => {
    draining = true;
    for (const fn of drainListeners) fn();
    // Idle keep-alive connections, and ones that never sent a byte, end now; a connection whose
    // first request is still arriving stays, to be answered with the 503 frame (onRequest above).
    for (const [socket, c] of connections) {
      if (c.serving === 0 && (c.seen > 0 || socket.bytesRead === 0)) socket.destroySoon();
    }
    return Promise.resolve();
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!draining) return;
    reply.header('retry-after', SHUTDOWN_RETRY_AFTER_SECONDS).header('connection', 'close');
    const frame = errorFrame('INTERNAL', `server is shutting down; retry in ${SHUTDOWN_RETRY_AFTER_SECONDS} second(s)`);
    return send(reply, 503, JSON.stringify(frame));
  });
  app.removeAllContentTypeParsers();
  // Bodies are read as text and parsed by the pipeline, so that invalid JSON is judged after
  // the credential, rate-limit, name and scope checks (docs/protocol.md, Error codes).
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    // The /docs assets set their own (docs-route.ts); everything else is never cached.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    // A request that was in flight when close began ends its keep-alive connection with its
    // answer, so shutdown does not wait out the keep-alive timeout of busy connections.
    if (draining) reply.header('connection', 'close');
  });
  app.setErrorHandler((error, req, reply) => errorReply(req, reply, error, metrics));
  // Metrics for every route, and one access-log line per request at info: method,
  // route (a declared name or a fixed route, never the raw path), status, ms, organisation, key id,
  // request id (pino binds reqId). Never headers, bodies or secrets.
  registerMetrics(app, metrics, options.metricsToken ?? null, routeOf, (reply, status, code, message) =>
    send(reply, status, JSON.stringify(errorFrame(code, message))),
  );
  if (['info', 'debug', 'trace'].includes(app.log.level)) {
    app.addHook('onResponse', async (req, reply) => {
      const principal = req.gate?.principal;
      req.log.info(
        {
          method: req.method,
          route: routeOf(req),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          ...(principal ? { org: principal.orgId, keyId: principal.credentialId } : {}),
        },
        'request',
      );
    });
  }
  app.setNotFoundHandler((req, reply) =>
    send(reply, 404, JSON.stringify(errorFrame('NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`))),
  );
  // Liveness and readiness (http/health.ts): no credential, no secrets.
  app.get('/healthz', async (_req, reply) => send(reply, 200, '{"ok":true}'));
  app.get('/readyz', async (_req, reply) => {
    const ready = await readiness(db, rateLimiter);
    return send(reply, draining || !ready.ok ? 503 : 200, JSON.stringify({ ...ready, ok: ready.ok && !draining }));
  });
  if (options.benchRoute) {
    app.post('/bench/bare', async (req, reply) => send(reply, 200, JSON.stringify({ ok: true, result: paramsOf(req.body) })));
  }
  // The API reference: public, like the document it renders.
  registerDocsRoutes(app);
  app.register(consolePlugin, { db, cookieSecure: options.cookieSecure ?? false });
  // Registered before the key pipeline's wildcard: the one route whose credential is a pairing code.
  registerPairRoute(app, { db, rate: options.pairRate, paramsOf });
  // Remote MCP connectors (OAuth 2.1): metadata, /authorize, /token, /register, /revoke, on PUBLIC_URL.
  const oauthUrls = registerOAuthRoutes(app, { db, publicUrl: options.publicUrl, options: options.oauth });
  registerMcpRoute(app, { db, oauthUrls, takeRate: (principal, reply) => takeRate(rateLimiter, principal, reply, metrics) });
  app.route({
    method: ['GET', 'POST'],
    url: '/api/v1/*',
    onRequest: async (req, reply) => gate(req, reply, db, rateLimiter, metrics, principals),
    handler: async (req, reply) => {
      const g = req.gate;
      if (!g) throw new Error('gate did not run');
      try {
        if (g.method) return await callMethod(req, reply, db, g, g.method, metrics, principals);
        if (g.read) return await callRead(req, reply, db, g, g.read, onDrain);
      } catch (error) {
        await confirmRemembered(db, principals, req);
        throw error;
      }
      throw new Error('gate resolved nothing');
    },
  });
  return app;
}
