/**
 * Remote MCP connectors over OAuth 2.1 (docs/agents.md "OAuth"): the MCP SDK's own client drives
 * discovery (the 401's WWW-Authenticate → protected-resource metadata → authorization-server
 * metadata), dynamic registration, PKCE and the token exchange, as Claude's or ChatGPT's connector
 * would; the test plays the browser: the console sign-in, the consent page, approve or deny. Then
 * the key it got is an agent's key at /mcp, revocable like any other.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { books, readSpecs } from '@finance-desk/protocol';
import { toolName } from '@finance-desk/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../src/config.js';
import { addUser } from '../src/human/users.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** A free port, so that PUBLIC_URL can be the test server's own URL before it starts. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

async function startOn(engine: (typeof engines)[number], overrides: Partial<Config> = {}): Promise<TestServer> {
  const port = await freePort();
  return startTestServer(engine, {
    port,
    publicUrl: `http://127.0.0.1:${port}`,
    oauth: { rate: { perSecond: 1000, burst: 1000 } },
    ...overrides,
  });
}

/** An in-memory connector: what Claude's or ChatGPT's backend keeps for one user's connection. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  constructor(readonly name: string) {}
  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    };
  }
  state(): string {
    return 'st-' + randomBytes(8).toString('hex');
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** A browser with one cookie jar (the console's session cookie), following no redirect by itself. */
class Browser {
  private cookie: string | null = null;
  constructor(private readonly base: string) {}
  async go(url: string, init: RequestInit = {}): Promise<{ status: number; location: string | null; text: string; headers: Headers }> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set('cookie', this.cookie);
    const res = await fetch(new URL(url, this.base), { ...init, headers, redirect: 'manual' });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0] ?? null;
    return { status: res.status, location: res.headers.get('location'), text: await res.text(), headers: res.headers };
  }
  form(url: string, fields: Record<string, string>) {
    return this.go(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

const hidden = (page: string, name: string): string => {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
  if (!m?.[1]) throw new Error(`no hidden ${name} in the page`);
  return m[1];
};

describe.each(engines)('remote MCP connectors over OAuth (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startOn(engine);
    org = await t.org();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The connector's first call: 401 → discovery → registration → the authorize URL it would open. */
  async function begin(
    name = 'Claude Test Connector',
  ): Promise<{ provider: MemoryProvider; transport: StreamableHTTPClientTransport; authorizeUrl: URL }> {
    const provider = new MemoryProvider(name);
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider });
    const client = new Client({ name: 'connector', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl).not.toBeNull();
    return { provider, transport, authorizeUrl: provider.authorizationUrl as URL };
  }

  /** The browser: /authorize → sign in → the consent page (its HTML and CSRF token). */
  async function toConsent(authorizeUrl: URL, who: { slug: string; email: string; password: string }) {
    const b = new Browser(t.url);
    const start = await b.go(authorizeUrl.href);
    expect(start.status).toBe(302);
    const consentUrl = start.location ?? '';
    expect(consentUrl).toMatch(new RegExp(`^${t.url}/console/oauth/authorize\\?request=oag_`));
    const signInPage = await b.go(consentUrl);
    expect(signInPage.status).toBe(200);
    expect(signInPage.text).toContain('action="/console/oauth/sign-in"');
    const signedIn = await b.form('/console/oauth/sign-in', {
      org: who.slug,
      email: who.email,
      password: who.password,
      request: hidden(signInPage.text, 'request'),
    });
    expect(signedIn.status).toBe(303);
    expect(new URL(signedIn.location ?? '', t.url).href).toBe(consentUrl);
    const consent = await b.go(consentUrl);
    return { b, consent, request: new URL(consentUrl).searchParams.get('request') ?? '' };
  }

  const owner = () => ({ slug: org.slug, email: org.owner.email, password: org.owner.password });

  async function approve(authorizeUrl: URL, tier = 'agent'): Promise<{ code: string; state: string | null }> {
    const { b, consent, request } = await toConsent(authorizeUrl, owner());
    expect(consent.status).toBe(200);
    const approved = await b.form('/console/oauth/authorize', { _csrf: hidden(consent.text, '_csrf'), request, decision: 'approve', tier });
    expect(approved.status).toBe(303);
    const back = new URL(approved.location ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(authorizeUrl.searchParams.get('state'));
    return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') };
  }

  async function tokenCall(fields: Record<string, string>) {
    const res = await fetch(`${t.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const mcpUnauthorized = async (key: string | null) => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    return { status: res.status, challenge: res.headers.get('www-authenticate'), body: (await res.json()) as Record<string, any> };
  };

  it('answers /mcp without a key with 401, the error frame and WWW-Authenticate naming the metadata; serves both metadata documents', async () => {
    const none = await mcpUnauthorized(null);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    expect(none.challenge).toBe(`Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`);
    const wrong = await mcpUnauthorized('fdk_nope');
    expect(wrong.challenge).toBe(`Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`);

    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const prm = await t.raw(path, {});
      expect(prm.status, path).toBe(200);
      expect(prm.body).toEqual({
        resource: `${t.url}/mcp`,
        authorization_servers: [`${t.url}/`],
        resource_name: 'Finance Desk',
        resource_documentation: `${t.url}/docs`,
        bearer_methods_supported: ['header'],
      });
    }
    const as = await t.raw('/.well-known/oauth-authorization-server', {});
    expect(as.status).toBe(200);
    expect(as.body).toMatchObject({
      issuer: `${t.url}/`,
      authorization_endpoint: `${t.url}/authorize`,
      token_endpoint: `${t.url}/token`,
      registration_endpoint: `${t.url}/register`,
      revocation_endpoint: `${t.url}/revoke`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      grant_types_supported: ['authorization_code'],
    });
    // An API key still works at /mcp as before.
    const keyed = new Client({ name: 'keyed', version: '1.0.0' });
    await keyed.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${org.keys.agent}` } },
      }),
    );
    expect((await keyed.listTools()).tools.length).toBeGreaterThan(10);
    await keyed.close();
  });

  it('connects end to end: register, sign in, consent with tier agent, exchange, and the new agent reads and writes over /mcp', async () => {
    const { provider, transport, authorizeUrl } = await begin();
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizeUrl.searchParams.get('resource')).toBe(`${t.url}/mcp`);
    const { b, consent, request } = await toConsent(authorizeUrl, owner());
    expect(consent.status).toBe(200);
    // The client's name QUOTED as its own words, where the browser goes next, the tiers pairing offers.
    expect(consent.text).toContain('<q class="client-words">Claude Test Connector</q>');
    expect(consent.text).toContain('own words');
    expect(consent.text).toContain('<code>http://127.0.0.1:9</code>');
    for (const tier of ['observer', 'reader', 'agent']) expect(consent.text).toContain(`value="${tier}"`);
    expect(consent.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9;");
    expect(consent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Without the CSRF token nothing is decided.
    const forged = await b.form('/console/oauth/authorize', { request, decision: 'approve', tier: 'agent' });
    expect(forged.status).toBe(403);
    const approved = await b.form('/console/oauth/authorize', {
      _csrf: hidden(consent.text, '_csrf'),
      request,
      decision: 'approve',
      tier: 'agent',
    });
    expect(approved.status).toBe(303);
    const back = new URL(approved.location ?? '');
    const code = back.searchParams.get('code') ?? '';
    expect(code).toMatch(/^fdo_/);
    expect(back.searchParams.get('state')).toBe(authorizeUrl.searchParams.get('state'));
    // The same request cannot be decided twice.
    const again = await b.form('/console/oauth/authorize', {
      _csrf: hidden(consent.text, '_csrf'),
      request,
      decision: 'approve',
      tier: 'agent',
    });
    expect(again.status).toBe(404);

    await transport.finishAuth(code);
    expect(provider.saved).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), access_token: expect.stringMatching(/^fdk_/) });
    expect(provider.saved?.refresh_token).toBeUndefined();
    const client = new Client({ name: 'connector', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toContain(toolName(books.invoiceDraft.name));
    const profile = (await client.callTool({ name: toolName(readSpecs.orgProfile.name), arguments: {} })) as {
      isError?: boolean;
      structuredContent?: any;
    };
    expect(profile.isError).toBeFalsy();
    const draft = (await client.callTool({
      name: toolName(books.invoiceDraft.name),
      arguments: { payeeName: 'OAuth Customer', description: 'Joinery', totalCents: 12_300, dueDays: 0 },
    })) as { isError?: boolean; structuredContent?: any };
    expect(draft.isError).toBeFalsy();
    await client.close();

    // The agent named after the client holds the key; it is the actor of the write; events without secrets.
    const agent = await t.db.reader.get<{ id: string; name: string; tier: string }>(
      'SELECT id, name, tier FROM agents WHERE org_id = ? AND name = ?',
      [org.orgId, 'Claude Test Connector'],
    );
    expect(agent).toMatchObject({ tier: 'agent' });
    const written = await t.db.reader.get<{ actor: string }>(
      'SELECT actor FROM events WHERE org_id = ? AND entity_id = ? ORDER BY seq LIMIT 1',
      [org.orgId, draft.structuredContent.id],
    );
    expect(written?.actor).toBe(agent?.id);
    const trail = await t.db.reader.all<{ kind: string; actor: string; payload: string }>(
      "SELECT kind, actor, payload FROM events WHERE org_id = ? AND kind LIKE 'org.oauth.%' ORDER BY seq",
      [org.orgId],
    );
    expect(trail.map((e) => e.kind)).toEqual(['org.oauth.consent', 'org.oauth.token']);
    expect(trail[0]?.actor).toBe(org.owner.userId);
    expect(trail[1]?.actor).toBe(agent?.id);
    expect(JSON.parse(trail[0]?.payload ?? '{}')).toMatchObject({
      clientName: 'Claude Test Connector',
      redirectHost: '127.0.0.1:9',
      tier: 'agent',
    });
    for (const e of trail) {
      expect(e.payload).not.toContain(code);
      expect(e.payload).not.toContain(provider.verifier);
      expect(e.payload).not.toContain(provider.saved?.access_token ?? 'x');
    }
    // The code is single use.
    const reused = await tokenCall({
      grant_type: 'authorization_code',
      client_id: String(provider.info?.client_id),
      code,
      code_verifier: provider.verifier,
      redirect_uri: REDIRECT,
    });
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a wrong code_verifier and a different redirect_uri with invalid_grant', async () => {
    const { provider, authorizeUrl } = await begin('Verifier Check');
    const { code } = await approve(authorizeUrl, 'reader');
    const clientId = String(provider.info?.client_id);
    const wrongVerifier = await tokenCall({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: randomBytes(32).toString('base64url'),
      redirect_uri: REDIRECT,
    });
    expect(wrongVerifier).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const otherRedirect = await tokenCall({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: provider.verifier,
      redirect_uri: 'http://127.0.0.1:9/other',
    });
    expect(otherRedirect).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const right = await tokenCall({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: provider.verifier,
      redirect_uri: REDIRECT,
    });
    expect(right).toMatchObject({ status: 200, body: { token_type: 'Bearer', access_token: expect.stringMatching(/^fdk_/) } });
    expect(right.body.refresh_token).toBeUndefined();
    // The tier chosen is the key's tier.
    const key = String(right.body.access_token);
    expect((await t.post(key, books.invoiceDraft.name, { payeeName: 'R', description: 'x', totalCents: 100, dueDays: 0 })).status).toBe(
      403,
    );
    expect((await t.get(key, 'org/profile')).status).toBe(200);
    // Refresh tokens are not offered.
    const refresh = await tokenCall({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'x' });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
  });

  it('shows a hostile client name escaped, names the agent from its safe characters, and refuses an expired code', async () => {
    const hostile = '"><script>alert(1)</script> Evil';
    const { provider, authorizeUrl } = await begin(hostile);
    const { b, consent, request } = await toConsent(authorizeUrl, owner());
    expect(consent.text).not.toContain('<script>alert(1)');
    expect(consent.text).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt; Evil');
    const approved = await b.form('/console/oauth/authorize', {
      _csrf: hidden(consent.text, '_csrf'),
      request,
      decision: 'approve',
      tier: 'observer',
    });
    const code = new URL(approved.location ?? '').searchParams.get('code') ?? '';
    await t.db.write(async (tx) => {
      await tx.run('UPDATE oauth_grants SET code_expires_at = ? WHERE id = ?', ['2000-01-01T00:00:00.000Z', request]);
    });
    const late = await tokenCall({
      grant_type: 'authorization_code',
      client_id: String(provider.info?.client_id),
      code,
      code_verifier: provider.verifier,
      redirect_uri: REDIRECT,
    });
    expect(late).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // A second connection of the same client: a fresh code, and the agent takes the safe characters of the name.
    const again = await begin(hostile);
    await again.transport.finishAuth((await approve(again.authorizeUrl, 'observer')).code);
    const agent = await t.db.reader.get<{ name: string }>(
      'SELECT a.name FROM agents a JOIN oauth_grants g ON g.agent_id = a.id WHERE g.client_id = ? AND g.used_at IS NOT NULL',
      [String(again.provider.info?.client_id)],
    );
    expect(agent?.name).toBe('script alert 1 script Evil');
  });

  it('refuses at /authorize a redirect_uri that is not exactly a registered one, without redirecting', async () => {
    const { authorizeUrl } = await begin('Redirect Check');
    const moved = new URL(authorizeUrl);
    moved.searchParams.set('redirect_uri', 'http://127.0.0.1:10/callback');
    const res = await fetch(moved, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('redirect_uri') });
    const elsewhere = new URL(authorizeUrl);
    elsewhere.searchParams.set('redirect_uri', 'https://attacker.example/cb');
    const res2 = await fetch(elsewhere, { redirect: 'manual' });
    expect(res2.status).toBe(400);
    expect(res2.headers.get('location')).toBeNull();
  });

  it('lets no non-owner consent, and a denial redirects with access_denied and issues nothing', async () => {
    const { authorizeUrl } = await begin('Deny Check');
    const bookkeeper = await addUser(t.db, {
      orgId: org.orgId,
      email: `bk-${randomBytes(4).toString('hex')}@example.com`,
      role: 'bookkeeper',
    });
    const { b, consent, request } = await toConsent(authorizeUrl, {
      slug: org.slug,
      email: bookkeeper.email,
      password: bookkeeper.password,
    });
    expect(consent.status).toBe(403);
    expect(consent.text).toContain('only an owner may connect');
    const csrf = hidden(consent.text, '_csrf'); // the header's sign-out form carries the session's token
    const tried = await b.form('/console/oauth/authorize', { _csrf: csrf, request, decision: 'approve', tier: 'agent' });
    expect(tried.status).toBe(403);
    expect(tried.location).toBeNull();

    const agentsBefore = await t.db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM agents WHERE org_id = ?', [org.orgId]);
    const asOwner = await toConsent(authorizeUrl, owner());
    const denied = await asOwner.b.form('/console/oauth/authorize', {
      _csrf: hidden(asOwner.consent.text, '_csrf'),
      request,
      decision: 'deny',
    });
    expect(denied.status).toBe(303);
    const back = new URL(denied.location ?? '');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe(authorizeUrl.searchParams.get('state'));
    expect(back.searchParams.get('code')).toBeNull();
    const agentsAfter = await t.db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM agents WHERE org_id = ?', [org.orgId]);
    expect(Number(agentsAfter?.n)).toBe(Number(agentsBefore?.n));
    const denial = await t.db.reader.get<{ actor: string; payload: string }>(
      "SELECT actor, payload FROM events WHERE org_id = ? AND kind = 'org.oauth.deny'",
      [org.orgId],
    );
    expect(denial?.actor).toBe(org.owner.userId);
    expect(JSON.parse(denial?.payload ?? '{}')).toMatchObject({ clientName: 'Deny Check', redirectHost: '127.0.0.1:9' });
  });

  it('stops the key at /mcp once revoked through the existing agent revoke path, and /revoke revokes too', async () => {
    const first = await begin('Revoke Check');
    await first.transport.finishAuth((await approve(first.authorizeUrl)).code);
    const key = String(first.provider.saved?.access_token);
    expect((await mcpUnauthorized(key)).status).not.toBe(401);
    const agent = await t.db.reader.get<{ agent_id: string }>('SELECT agent_id FROM credentials WHERE id = ?', [`key_${key.slice(4, 30)}`]);
    // The owner revokes the agent in the console's JSON API, as for any paired agent.
    const b = new Browser(t.url);
    const signIn = await b.form('/console/login', { org: org.slug, email: org.owner.email, password: org.owner.password });
    expect(signIn.status).toBe(303);
    const agentsPage = await b.go('/console/agents');
    const revoked = await b.go(`/console/api/agents/${agent?.agent_id}/revoke`, {
      method: 'POST',
      headers: { 'x-csrf-token': hidden(agentsPage.text, '_csrf') },
    });
    expect(revoked.status).toBe(200);
    const after = await mcpUnauthorized(key);
    expect(after.status).toBe(401);
    expect(after.challenge).toBe(`Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`);

    // RFC 7009 at /revoke: only the client that obtained the token revokes it.
    const second = await begin('Revoke Endpoint');
    await second.transport.finishAuth((await approve(second.authorizeUrl, 'observer')).code);
    const key2 = String(second.provider.saved?.access_token);
    const stranger = await fetch(`${t.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: String(first.provider.info?.client_id), token: key2 }).toString(),
    });
    expect(stranger.status).toBe(200);
    expect((await t.get(key2, 'org/profile')).status).toBe(200);
    const own = await fetch(`${t.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: String(second.provider.info?.client_id), token: key2 }).toString(),
    });
    expect(own.status).toBe(200);
    expect((await t.get(key2, 'org/profile')).status).toBe(401);
    expect((await mcpUnauthorized(key2)).status).toBe(401);
    const event = await t.db.reader.get<{ actor: string; payload: string }>(
      "SELECT actor, payload FROM events WHERE org_id = ? AND kind = 'org.agent.revoke' ORDER BY seq DESC LIMIT 1",
      [org.orgId],
    );
    expect(JSON.parse(event?.payload ?? '{}')).toMatchObject({ name: 'Revoke Endpoint', keyCount: 1 });
    expect(event?.actor).toBe(JSON.parse(event?.payload ?? '{}').agentId);
  });

  it('bounds /register: redirect URIs checked, public clients only, a cap on clients, a budget per address', async () => {
    const register = (body: unknown, url = t.url) =>
      fetch(`${url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        async (r) => ({
          status: r.status,
          headers: r.headers,
          body: (await r.json()) as Record<string, any>,
        }),
      );
    const plainHttp = await register({ redirect_uris: ['http://connector.example/cb'], client_name: 'Bad' });
    expect(plainHttp).toMatchObject({
      status: 400,
      body: { error: 'invalid_client_metadata', error_description: expect.stringContaining('redirect_uris[0]') },
    });
    const tooMany = await register({ redirect_uris: Array.from({ length: 6 }, (_, i) => `https://c.example/${i}`) });
    expect(tooMany).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    const longName = await register({ redirect_uris: ['https://c.example/cb'], client_name: 'x'.repeat(101) });
    expect(longName).toMatchObject({ status: 400, body: { error_description: expect.stringContaining('client_name') } });
    const malformed = await fetch(`${t.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"redirect_uris":',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'invalid_request' });
    // A confidential client asked for is registered public: no secret is ever issued.
    const confidential = await register({
      redirect_uris: ['https://c.example/cb'],
      client_name: 'Wants a secret',
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(confidential.status).toBe(201);
    expect(confidential.body).toMatchObject({ token_endpoint_auth_method: 'none', redirect_uris: ['https://c.example/cb'] });
    expect(confidential.body.client_secret).toBeUndefined();

    const small = await startOn(engine, { oauth: { rate: { perSecond: 0.001, burst: 4 }, clientsMax: 2 } });
    try {
      const one = await register({ redirect_uris: ['https://c.example/1'] }, small.url);
      expect(one.status).toBe(201);
      expect((await register({ redirect_uris: ['https://c.example/2'] }, small.url)).status).toBe(201);
      const capped = await register({ redirect_uris: ['https://c.example/3'] }, small.url);
      expect(capped).toMatchObject({ status: 400, body: { error: 'temporarily_unavailable' } });
      // A client never used within a day is swept, which makes room again.
      await small.db.write(async (tx) => {
        await tx.run('UPDATE oauth_clients SET created_at = ? WHERE client_id = ?', ['2000-01-01T00:00:00.000Z', one.body.client_id]);
      });
      expect((await register({ redirect_uris: ['https://c.example/4'] }, small.url)).status).toBe(201);
      const gone = await small.db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM oauth_clients WHERE client_id = ?', [
        one.body.client_id,
      ]);
      expect(Number(gone?.n)).toBe(0);
      // Past its budget an address waits.
      const limited = await register({ redirect_uris: ['https://c.example/5'] }, small.url);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ error: 'too_many_requests' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await small.close();
    }
  });

  it('offers no OAuth without a usable PUBLIC_URL, and /mcp still answers 401 with a Bearer challenge', async () => {
    const bare = await startTestServer(engine);
    try {
      expect((await bare.raw('/.well-known/oauth-protected-resource/mcp', {})).status).toBe(404);
      expect((await bare.raw('/.well-known/oauth-authorization-server', {})).status).toBe(404);
      const res = await fetch(`${bare.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="finance-desk"');
    } finally {
      await bare.close();
    }
  });
});
