import { FinanceDesk } from '@finance-desk/client';
import { handleMcpHttp } from '@finance-desk/mcp';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { DomainError } from '../errors.js';
import type { OAuthUrls } from '../org/oauth.js';
import type { Principal } from '../principal.js';
import { bearerOf, principalOf } from './bearer.js';
import { mcpChallenge } from './oauth-route.js';
import type { Database } from '../storage/types.js';

/** Where the MCP endpoint is served (Streamable HTTP, stateless). */
export const MCP_PATH = '/mcp';

/** Headers of the HTTP exchange itself, not of the MCP message: not carried into the Request. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/** The in-process API's base URL: never dialled, only parsed (the fetch below goes through inject). */
const IN_PROCESS_BASE = 'http://finance-desk.in-process';

/**
 * A fetch that answers through `app.inject`: the MCP endpoint calls the API in process, through
 * the very pipeline an HTTP caller meets (credential, rate limit, scope, validation, signature law,
 * ledger), without a socket or a loopback address to configure.
 */
function injectFetch(app: FastifyInstance): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string') throw new TypeError('in-process fetch: body must be a string');
    const res = await app.inject({
      method: (init?.method ?? 'GET') as 'GET' | 'POST',
      url: `${url.pathname}${url.search}`,
      headers,
      ...(typeof body === 'string' ? { payload: body } : {}),
    });
    const out = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(key, String(v));
    }
    return new Response(res.payload, { status: res.statusCode, headers: out });
  };
}

/**
 * `POST/GET/DELETE /mcp`: the MCP server over Streamable HTTP. The caller's own
 * API key authenticates the request (401 error frame without one, as the API answers, with a
 * `WWW-Authenticate` naming the OAuth metadata when PUBLIC_URL is set) and is the
 * key every tool call uses, so MCP can do exactly what that key can do over HTTP. Bodies are
 * bounded by the app's bodyLimit, as the API's are.
 */
export function registerMcpRoute(
  app: FastifyInstance,
  o: { db: Database; oauthUrls?: OAuthUrls | null; takeRate: (principal: Principal, reply: FastifyReply) => Promise<void> },
): void {
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    handler: async (req, reply) => {
      // A 401 says where to get a key (RFC 9728 §5.1): the protected-resource metadata, which
      // names this server's OAuth authorization server (docs/agents.md "OAuth").
      const { principal, token } = await principalOf(o.db, req.headers.authorization).catch((error: unknown) => {
        if (error instanceof DomainError && error.code === 'UNAUTHORIZED') {
          reply.header('www-authenticate', mcpChallenge(o.oauthUrls ?? null, bearerOf(req.headers.authorization) !== null));
        }
        throw error;
      });
      // Each MCP request takes one token of the key's budget (so listing tools cannot be
      // flooded), and each tool call's API call takes its own, as over HTTP.
      await o.takeRate(principal, reply);
      // No retries in process: a RATE_LIMITED or 503 answer goes back to the model as it came.
      const desk = new FinanceDesk({ baseUrl: IN_PROCESS_BASE, apiKey: token, fetch: injectFetch(app), maxRetries: 0 });
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value === undefined || HOP_HEADERS.has(key)) continue;
        for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
      }
      const hasBody = req.method === 'POST' && typeof req.body === 'string';
      const request = new Request(`http://localhost${req.url}`, {
        method: req.method,
        headers,
        ...(hasBody ? { body: req.body as string } : {}),
      });
      // `/mcp?toolsets=receivables,payables`: load only those areas' tools (plus the approval
      // tools); an unknown one is a 400 JSON-RPC error naming it (handleMcpHttp).
      const toolsets = (req.query as Record<string, string | string[] | undefined> | undefined)?.toolsets;
      const response = await handleMcpHttp(desk, request, toolsets === undefined ? {} : { toolsets });
      reply.code(response.status);
      response.headers.forEach((value, key) => {
        if (key !== 'content-length') reply.header(key, value);
      });
      return reply.send(await response.text());
    },
  });
}
