import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import type { FastifyInstance } from 'fastify';
import { InvalidTokenError, UnsupportedGrantTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthMetadata,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { clientKey } from '../human/login.js';
import { authenticate } from '../org/credentials.js';
import {
  LOOPBACK,
  OAUTH_LIMITS,
  challengeForCode,
  exchangeCode,
  oauthClient,
  registerOAuthClient,
  revokeOAuthToken,
  startGrant,
  type OAuthUrls,
} from '../org/oauth.js';
import type { Database } from '../storage/types.js';
import { MemoryRateLimiter, type RateConfig } from './rate-limit.js';

/**
 * Remote MCP connectors (docs/agents.md "OAuth"; docs/decisions.md "Remote MCP connectors over
 * OAuth"). The MCP SDK's authorization server (mcpAuthRouter: /authorize, /token, /register,
 * /revoke, the RFC 8414 and RFC 9728 metadata documents) over our storage (org/oauth.ts), on an
 * Express app that Fastify hands these few paths to untouched: a route-level onRequest hook takes
 * a token of the endpoint's budget per client address, then hijacks the reply and passes the raw
 * request and response, before Fastify reads the body. The consent step is the console's
 * (human/oauth-pages.ts): `/authorize` stores the request and redirects there.
 *
 * Served only with PUBLIC_URL set to an https origin (or http on a loopback address, for local
 * use): the issuer and resource URLs are derived from it, never from a request's Host header.
 */
export const OAUTH_ENDPOINT_RATE: RateConfig = { perSecond: 1 / 6, burst: 10 };

export interface OAuthOptions {
  /** Budget of each OAuth endpoint per client address (default OAUTH_ENDPOINT_RATE). */
  readonly rate?: RateConfig | undefined;
  /** Registered clients kept at once (default OAUTH_LIMITS.clientsMax). */
  readonly clientsMax?: number | undefined;
}

/** PRM path of the MCP endpoint (RFC 9728 §3.1, path-suffixed), and the root one. */
const PRM_PATH = '/.well-known/oauth-protected-resource';
const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';
const LIMITED = ['/authorize', '/token', '/register', '/revoke'] as const;

/**
 * The OAuth URLs for a PUBLIC_URL, or why OAuth is not offered: https (http only on a loopback
 * address), an origin with no path, query or fragment (the endpoints are at the root).
 */
export function oauthUrlsOf(publicUrl: string | null | undefined): OAuthUrls | { problem: string } {
  if (!publicUrl) return { problem: 'PUBLIC_URL is not set' };
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return { problem: 'PUBLIC_URL is not a URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    return { problem: 'PUBLIC_URL must be https (http only on a loopback address)' };
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    return { problem: 'PUBLIC_URL must be an origin with no path, query or fragment' };
  }
  return { base: url.origin, resource: `${url.origin}/mcp` };
}

/** The `WWW-Authenticate` of a 401 from /mcp: where the protected-resource metadata is (RFC 9728 §5.1). */
export function mcpChallenge(urls: OAuthUrls | null, invalidToken: boolean): string {
  const error = invalidToken ? ', error="invalid_token"' : '';
  return urls ? `Bearer resource_metadata="${urls.base}${PRM_PATH}/mcp"${error}` : `Bearer realm="finance-desk"${error}`;
}

class DeskClients implements OAuthRegisteredClientsStore {
  constructor(
    private readonly db: Database,
    private readonly clientsMax: number,
    private readonly log: (info: Record<string, unknown>) => void,
  ) {}

  getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    return oauthClient(this.db.reader, clientId);
  }

  async registerClient(client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>): Promise<OAuthClientInformationFull> {
    const stored = await registerOAuthClient(this.db, client as OAuthClientInformationFull, this.clientsMax);
    // Public clients have no secret; the log names the client and where it redirects, nothing else.
    this.log({
      clientId: stored.client_id,
      clientName: stored.client_name ?? null,
      redirectHosts: stored.redirect_uris.map((u) => new URL(u).host),
    });
    return stored;
  }
}

class DeskProvider implements OAuthServerProvider {
  readonly clientsStore: DeskClients;

  constructor(
    private readonly db: Database,
    private readonly urls: OAuthUrls,
    clientsMax: number,
    log: (info: Record<string, unknown>) => void,
  ) {
    this.clientsStore = new DeskClients(db, clientsMax, log);
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: express.Response): Promise<void> {
    // The SDK lets a loopback redirect URI differ in port (RFC 8252 §7.3); we ask for the exact
    // URI registered, and answer here rather than redirect anywhere that is not.
    if (!client.redirect_uris.includes(params.redirectUri)) {
      res.status(400).json({ error: 'invalid_request', error_description: 'redirect_uri: must exactly match a registered redirect URI' });
      return;
    }
    const grantId = await startGrant(this.db, this.urls, {
      client,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      state: params.state,
      resource: params.resource,
    });
    res.redirect(302, `${this.urls.base}/console/oauth/authorize?request=${grantId}`);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return challengeForCode(this.db, client.client_id, code);
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const issued = await exchangeCode(this.db, this.urls, { clientId: client.client_id, code, redirectUri, resource });
    // The access token is an API key: no expiry and so no refresh token (docs/agents.md "OAuth").
    return { access_token: issued.key, token_type: 'Bearer' };
  }

  exchangeRefreshToken(): Promise<OAuthTokens> {
    return Promise.reject(new UnsupportedGrantTypeError('refresh tokens are not issued: the access token does not expire'));
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const found = await authenticate(this.db.reader, token);
    if (!found) throw new InvalidTokenError('invalid or revoked API key');
    const grant = await this.db.reader.get<{ client_id: string }>('SELECT client_id FROM oauth_grants WHERE key_id = ?', [
      found.principal.credentialId,
    ]);
    return { token, clientId: grant?.client_id ?? '', scopes: [...found.principal.scopes], resource: new URL(this.urls.resource) };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    await revokeOAuthToken(this.db, client.client_id, request.token);
  }
}

/** JSON for what falls through or fails in the Express app: never its HTML page or a stack. */
function finalHandlers(app: express.Express): void {
  app.use((_req: express.Request, res: express.Response) => {
    res.status(404).json({ error: 'not_found', error_description: 'no such OAuth endpoint' });
  });
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = (err as { status?: unknown }).status;
    const client = typeof status === 'number' && status >= 400 && status < 500;
    res.status(client ? status : 500).json({
      error: client ? 'invalid_request' : 'server_error',
      error_description: client ? 'body: malformed or too large' : 'internal error',
    });
  });
}

/**
 * Mount the OAuth endpoints on `app`, or nothing (with a warning) when PUBLIC_URL cannot carry
 * them. Returns the URLs in use, or null when OAuth is off.
 */
export function registerOAuthRoutes(
  app: FastifyInstance,
  o: { db: Database; publicUrl: string | null | undefined; options?: OAuthOptions | undefined },
): OAuthUrls | null {
  const urls = oauthUrlsOf(o.publicUrl);
  if ('problem' in urls) {
    if (o.publicUrl) app.log.warn(`OAuth for remote MCP connectors is off: ${urls.problem}`);
    return null;
  }
  const clientsMax = o.options?.clientsMax ?? OAUTH_LIMITS.clientsMax;
  const provider = new DeskProvider(o.db, urls, clientsMax, (info) => app.log.info(info, 'oauth client registered'));
  const issuerUrl = new URL(urls.base);
  const resourceServerUrl = new URL(urls.resource);
  const sdkMetadata = createOAuthMetadata({ provider, issuerUrl });
  // What this server really supports: public clients only, authorization codes only (no refresh).
  const metadata: OAuthMetadata = {
    ...sdkMetadata,
    token_endpoint_auth_methods_supported: ['none'],
    grant_types_supported: ['authorization_code'],
    revocation_endpoint_auth_methods_supported: ['none'],
  };
  const resourceMetadata = {
    resource: urls.resource,
    authorization_servers: [metadata.issuer],
    resource_name: 'Finance Desk',
    resource_documentation: `${urls.base}/docs`,
    bearer_methods_supported: ['header'],
  };
  const ex = express();
  ex.set('env', 'production');
  ex.disable('x-powered-by');
  ex.use(AS_METADATA_PATH, metadataHandler(metadata));
  ex.use(`${PRM_PATH}/mcp`, metadataHandler(resourceMetadata));
  ex.use(PRM_PATH, metadataHandler(resourceMetadata));
  // The SDK's own per-address limits are off: ours run first (below), one budget per endpoint.
  ex.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      resourceServerUrl,
      resourceName: 'Finance Desk',
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false, clientSecretExpirySeconds: 0 },
    }),
  );
  finalHandlers(ex);

  const limiters = new Map(LIMITED.map((path) => [path, new MemoryRateLimiter(o.options?.rate ?? OAUTH_ENDPOINT_RATE)]));
  const paths = [PRM_PATH, `${PRM_PATH}/mcp`, AS_METADATA_PATH, ...LIMITED];
  for (const url of paths) {
    app.route({
      method: ['GET', 'POST', 'OPTIONS'],
      url,
      onRequest: async (req, reply) => {
        const limiter = limiters.get(url as (typeof LIMITED)[number]);
        if (limiter && req.method !== 'OPTIONS') {
          const rate = await limiter.take(clientKey(req.ip));
          if (!rate.allowed) {
            return reply
              .code(429)
              .header('retry-after', rate.retryAfterSeconds)
              .type('application/json; charset=utf-8')
              .send(
                JSON.stringify({
                  error: 'too_many_requests',
                  error_description: `too many requests to ${url} from this address; retry in ${rate.retryAfterSeconds} seconds`,
                }),
              );
          }
        }
        reply.hijack();
        reply.raw.setHeader('x-request-id', req.id);
        ex(req.raw as IncomingMessage & express.Request, reply.raw as ServerResponse & express.Response);
        return reply;
      },
      handler: () => Promise.reject(new Error('unreachable: the OAuth paths are answered by the Express app')),
    });
  }
  return urls;
}
