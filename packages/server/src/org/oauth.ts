import { createHash, timingSafeEqual } from 'node:crypto';
import { events, isTier, textProblem, type Tier } from '@finance-desk/protocol';
import {
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  TemporarilyUnavailableError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { clockOf } from '../clock.js';
import { DomainError, invariant, notFound } from '../errors.js';
import { newId, secret } from '../ids.js';
import type { Database, Queryable } from '../storage/types.js';
import { inUnitOfWork } from '../write-path.js';
import { authenticate, issueKey, parseKey } from './credentials.js';
import { revokeAgent } from './pairing.js';

/**
 * The authorization server's storage (docs/agents.md "OAuth"; the protocol itself is the MCP SDK's,
 * http/oauth-route.ts). A remote connector registers (public client, PKCE), sends a person to
 * `/authorize`, where an owner signs in to the console and approves with a tier (an event), and
 * exchanges the code at `/token` for an API key of that tier held by a new agent named after the
 * client (an event). Codes are `fdo_<grant id>_<secret>`: the id locates the row, only SHA-256 of
 * the secret is stored, compared in constant time; single use, short-lived, bound to the client,
 * the redirect URI, the PKCE challenge, the resource, the organisation, the person and the tier.
 */
export const OAUTH_LIMITS = {
  /** Registered clients kept at once, server-wide (registration knows no organisation). */
  clientsMax: 1000,
  /** A client that has not exchanged a code this long after registering is swept. */
  unusedClientTtlMs: 24 * 60 * 60 * 1000,
  redirectUrisMax: 5,
  redirectUriCharsMax: 2000,
  clientNameCharsMax: 100,
  stateCharsMax: 1024,
  /** An authorization request waits this long for a person to sign in and decide. */
  requestTtlMs: 15 * 60 * 1000,
  /** An approved code must be exchanged within this. */
  codeTtlMs: 10 * 60 * 1000,
  /** Undecided or unexchanged requests at once, server-wide. */
  openGrantsMax: 1000,
} as const;

const CODE = /^fdo_([0-9a-z]{26})_([A-Za-z0-9_-]{43})$/;
const GRANT_ID = /^oag_[0-9a-z]{26}$/;
/** What the SDK generates (crypto.randomUUID); anything else is no client (and never reaches a query). */
const CLIENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** Hosts of this machine: plain http is allowed to them only (redirect URIs, PUBLIC_URL). */
export const LOOPBACK: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);
const DUMMY_HASH = Buffer.alloc(32);
const REFUSED_CODE = 'invalid, expired or already used authorization code';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export const isGrantId = (value: unknown): value is string => typeof value === 'string' && GRANT_ID.test(value);

/** https anywhere, http only to this machine; no fragment (RFC 6749 §3.1.2). */
function redirectUriProblem(uri: string): string | null {
  if (uri.length > OAUTH_LIMITS.redirectUriCharsMax) return `at most ${OAUTH_LIMITS.redirectUriCharsMax} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'not a URL';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return null;
  return 'must be https, or http to a loopback address (localhost, 127.0.0.1, [::1])';
}

interface ClientRow {
  client_id: string;
  client_name: string | null;
  redirect_uris: string;
  created_at: string;
}

function clientInfo(row: ClientRow): OAuthClientInformationFull {
  return {
    client_id: row.client_id,
    client_id_issued_at: Math.floor(Date.parse(row.created_at) / 1000),
    redirect_uris: JSON.parse(row.redirect_uris) as string[],
    ...(row.client_name !== null ? { client_name: row.client_name } : {}),
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
  };
}

const stale = (now: string, ms: number): string => new Date(Date.parse(now) - ms).toISOString();

/**
 * Register a client (RFC 7591, through the SDK's `/register`). Only public clients: whatever
 * method was asked for, the client is registered with `token_endpoint_auth_method: none` and no
 * secret (RFC 7591 §3.2.1 lets the server replace requested values); PKCE protects its codes.
 * Redirect URIs: 1 to 5, https or loopback http. Before the insert, clients never used within a
 * day are swept; at the cap, TemporarilyUnavailable. No event: no organisation is involved yet.
 */
export async function registerOAuthClient(
  db: Database,
  requested: Omit<OAuthClientInformationFull, 'client_id_issued_at'> & { client_id?: string },
  clientsMax: number = OAUTH_LIMITS.clientsMax,
): Promise<OAuthClientInformationFull> {
  const uris = requested.redirect_uris;
  if (uris.length === 0 || uris.length > OAUTH_LIMITS.redirectUrisMax) {
    throw new InvalidClientMetadataError(`redirect_uris: 1 to ${OAUTH_LIMITS.redirectUrisMax} URIs`);
  }
  uris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidClientMetadataError(`redirect_uris[${i}]: ${problem}`);
  });
  const name = requested.client_name?.trim() ?? '';
  if (name.length > OAUTH_LIMITS.clientNameCharsMax) {
    throw new InvalidClientMetadataError(`client_name: at most ${OAUTH_LIMITS.clientNameCharsMax} characters`);
  }
  const nameProblem = name === '' ? null : textProblem(name, { multiline: false });
  if (nameProblem) throw new InvalidClientMetadataError(`client_name: ${nameProblem}`);
  if (requested.grant_types && !requested.grant_types.includes('authorization_code')) {
    throw new InvalidClientMetadataError('grant_types: only authorization_code is supported');
  }
  const clientId = requested.client_id;
  invariant(clientId !== undefined && CLIENT_ID.test(clientId), 'the SDK generates a UUID client id');
  const now = clockOf(db)();
  const row: ClientRow = {
    client_id: clientId,
    client_name: name === '' ? null : name,
    redirect_uris: JSON.stringify(uris),
    created_at: now,
  };
  await db.write(async (tx) => {
    const cutoff = stale(now, OAUTH_LIMITS.unusedClientTtlMs);
    await tx.run(
      `DELETE FROM oauth_grants WHERE used_at IS NULL AND client_id IN
         (SELECT client_id FROM oauth_clients WHERE last_used_at IS NULL AND created_at < ?)`,
      [cutoff],
    );
    await tx.run('DELETE FROM oauth_clients WHERE last_used_at IS NULL AND created_at < ?', [cutoff]);
    const count = await tx.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM oauth_clients');
    if (Number(count?.n ?? 0) >= clientsMax) {
      throw new TemporarilyUnavailableError(`this server already has ${clientsMax} registered OAuth clients; try again later`);
    }
    await tx.run('INSERT INTO oauth_clients (client_id, client_name, redirect_uris, created_at) VALUES (?, ?, ?, ?)', [
      row.client_id,
      row.client_name,
      row.redirect_uris,
      row.created_at,
    ]);
  });
  return clientInfo(row);
}

export async function oauthClient(q: Queryable, clientId: string): Promise<OAuthClientInformationFull | undefined> {
  if (!CLIENT_ID.test(clientId)) return undefined;
  const row = await q.get<ClientRow>('SELECT client_id, client_name, redirect_uris, created_at FROM oauth_clients WHERE client_id = ?', [
    clientId,
  ]);
  return row ? clientInfo(row) : undefined;
}

/** The resource indicators (RFC 8707) this server accepts for its MCP endpoint; the first is canonical. */
export interface OAuthUrls {
  /** `<PUBLIC_URL>` without a trailing slash. */
  readonly base: string;
  /** `<PUBLIC_URL>/mcp`: the protected resource. */
  readonly resource: string;
}

function resourceOf(urls: OAuthUrls, given: URL | string | undefined): string {
  if (given === undefined) return urls.resource;
  const text = typeof given === 'string' ? given : given.href;
  if ([urls.resource, urls.base, `${urls.base}/`].includes(text)) return urls.resource;
  throw new InvalidTargetError(`resource: this server's MCP endpoint is ${urls.resource}`);
}

/**
 * `/authorize`, after the SDK checked the client, the redirect URI (registered) and the request's
 * form: the redirect URI must equal a registered one exactly (no loopback port relaxation), the
 * challenge be an S256 one, the resource ours. Stores the request and returns its id, which the
 * console's consent page takes. Expired requests are swept first; at the cap, TemporarilyUnavailable.
 */
export async function startGrant(
  db: Database,
  urls: OAuthUrls,
  input: {
    client: OAuthClientInformationFull;
    redirectUri: string;
    codeChallenge: string;
    state?: string | undefined;
    resource?: URL | undefined;
  },
  openMax: number = OAUTH_LIMITS.openGrantsMax,
): Promise<string> {
  if (!S256_CHALLENGE.test(input.codeChallenge))
    throw new InvalidRequestError('code_challenge: must be an S256 challenge (43 base64url characters)');
  if (input.state !== undefined && (input.state.length > OAUTH_LIMITS.stateCharsMax || textProblem(input.state, { multiline: false }))) {
    throw new InvalidRequestError(`state: at most ${OAUTH_LIMITS.stateCharsMax} printable characters`);
  }
  const resource = resourceOf(urls, input.resource);
  const now = clockOf(db)();
  const id = newId('oag');
  await db.write(async (tx) => {
    // Past their time and never exchanged: requests nobody decided, codes nobody used.
    await tx.run('DELETE FROM oauth_grants WHERE used_at IS NULL AND expires_at < ?', [now]);
    const open = await tx.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM oauth_grants WHERE used_at IS NULL');
    if (Number(open?.n ?? 0) >= openMax)
      throw new TemporarilyUnavailableError('too many authorization requests in progress; try again later');
    await tx.run(
      `INSERT INTO oauth_grants (id, client_id, redirect_uri, code_challenge, state, resource, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        input.client.client_id,
        input.redirectUri,
        input.codeChallenge,
        input.state ?? null,
        resource,
        now,
        new Date(Date.parse(now) + OAUTH_LIMITS.requestTtlMs).toISOString(),
      ],
    );
  });
  return id;
}

/** An authorization request as the consent page shows it. */
export interface PendingGrant {
  readonly grantId: string;
  readonly clientId: string;
  /** The client's own words (RFC 7591 client_name), never checked by anyone; null when it gave none. */
  readonly clientName: string | null;
  readonly redirectUri: string;
  /** `scheme://host[:port]` of the redirect URI: where the browser goes after the decision. */
  readonly redirectOrigin: string;
  readonly expiresAt: string;
}

interface GrantRow {
  id: string;
  client_id: string;
  client_name: string | null;
  redirect_uri: string;
  state: string | null;
  expires_at: string;
  decision: string | null;
}

/** An undecided, unexpired request of a still-registered client; NOT_FOUND otherwise (one answer for all). */
export async function pendingGrant(q: Queryable, now: string, grantId: string): Promise<PendingGrant & { state: string | null }> {
  const row = isGrantId(grantId)
    ? await q.get<GrantRow>(
        `SELECT g.id, g.client_id, c.client_name, g.redirect_uri, g.state, g.expires_at, g.decision
         FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id WHERE g.id = ?`,
        [grantId],
      )
    : undefined;
  if (!row || row.decision !== null || row.expires_at <= now) {
    throw new DomainError('NOT_FOUND', 'this connection request has expired or was already answered: start again from the application');
  }
  return {
    grantId: row.id,
    clientId: row.client_id,
    clientName: row.client_name,
    redirectUri: row.redirect_uri,
    redirectOrigin: new URL(row.redirect_uri).origin,
    expiresAt: row.expires_at,
    state: row.state,
  };
}

/** The redirect after an approval (code) or a denial (error=access_denied), with the request's state. */
function redirectWith(uri: string, params: Record<string, string>, state: string | null): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (state !== null) url.searchParams.set('state', state);
  return url.href;
}

/**
 * A person's decision on the consent page (the console checked the session, the CSRF token and
 * that the person is an owner). Approve: the request is bound to the person's organisation, the
 * person and the tier, a code is issued (only its hash stored), event `org.oauth.consent`. Deny:
 * event `org.oauth.deny`, nothing issued. Either way once: the decision is a conditional UPDATE
 * in the organisation's unit of work, so a second decision on the same request is NOT_FOUND.
 * Returns where the browser goes next.
 */
export async function decideGrant(
  db: Database,
  input: { grantId: string; orgId: string; userId: string; approve: boolean; tier: Tier | null },
): Promise<{ location: string; ledgerId: string }> {
  if (input.approve && (input.tier === null || !isTier(input.tier)))
    throw new DomainError('BAD_REQUEST', 'tier: choose one of the tiers offered');
  return inUnitOfWork(db, input.orgId, input.userId, async (uow) => {
    const g = await pendingGrant(uow.tx, uow.now, input.grantId);
    const redirectHost = new URL(g.redirectUri).host;
    const who = { grantId: g.grantId, clientId: g.clientId, clientName: g.clientName, redirectHost };
    if (!input.approve || input.tier === null) {
      const decided = await uow.tx.run(
        "UPDATE oauth_grants SET decision = 'denied', decided_at = ?, org_id = ?, user_id = ? WHERE id = ? AND decision IS NULL",
        [uow.now, uow.orgId, input.userId, g.grantId],
      );
      if (decided.changes !== 1) throw notFound('connection request', g.grantId);
      const event = await uow.emit(events.orgOAuthDeny, { entityId: g.grantId, payload: who });
      const location = redirectWith(
        g.redirectUri,
        { error: 'access_denied', error_description: 'the person declined to connect this application' },
        g.state,
      );
      return { location, ledgerId: event.ledgerId };
    }
    const secretText = secret(32);
    const codeExpiresAt = new Date(Date.parse(uow.now) + OAUTH_LIMITS.codeTtlMs).toISOString();
    const decided = await uow.tx.run(
      `UPDATE oauth_grants SET decision = 'approved', decided_at = ?, org_id = ?, user_id = ?, tier = ?, code_hash = ?,
         code_expires_at = ?, expires_at = ? WHERE id = ? AND decision IS NULL`,
      [uow.now, uow.orgId, input.userId, input.tier, sha256(secretText).toString('hex'), codeExpiresAt, codeExpiresAt, g.grantId],
    );
    if (decided.changes !== 1) throw notFound('connection request', g.grantId);
    const event = await uow.emit(events.orgOAuthConsent, {
      entityId: g.grantId,
      payload: { ...who, tier: input.tier, expiresAt: codeExpiresAt },
    });
    const code = `fdo_${g.grantId.slice(4)}_${secretText}`;
    return { location: redirectWith(g.redirectUri, { code }, g.state), ledgerId: event.ledgerId };
  });
}

interface CodeRow {
  id: string;
  client_id: string;
  org_id: string | null;
  tier: Tier | null;
  code_hash: string | null;
  code_expires_at: string | null;
  code_challenge: string;
  redirect_uri: string;
  resource: string;
  used_at: string | null;
}

/**
 * The approved, unused, unexpired grant a code names, for this client; InvalidGrant otherwise,
 * one answer for every reason (nothing about the code leaks). The secret's hash is compared in
 * constant time; an unknown id still costs one comparison.
 */
async function grantOfCode(db: Database, clientId: string, code: string): Promise<CodeRow & { org_id: string; tier: Tier }> {
  const match = CODE.exec(code);
  const row = match
    ? await db.reader.get<CodeRow>(
        `SELECT id, client_id, org_id, tier, code_hash, code_expires_at, code_challenge, redirect_uri, resource, used_at
         FROM oauth_grants WHERE id = ?`,
        [`oag_${match[1]}`],
      )
    : undefined;
  const stored = row?.code_hash ? Buffer.from(row.code_hash, 'hex') : DUMMY_HASH;
  const given = sha256(match?.[2] ?? '');
  const equal = stored.length === given.length && timingSafeEqual(stored, given);
  const now = clockOf(db)();
  if (!row || !equal || row.code_hash === null || row.client_id !== clientId || row.used_at !== null)
    throw new InvalidGrantError(REFUSED_CODE);
  if (row.org_id === null || row.tier === null || row.code_expires_at === null || row.code_expires_at <= now)
    throw new InvalidGrantError(REFUSED_CODE);
  return row as CodeRow & { org_id: string; tier: Tier };
}

/** The PKCE challenge the code was issued against (the SDK checks the verifier against it). */
export async function challengeForCode(db: Database, clientId: string, code: string): Promise<string> {
  return (await grantOfCode(db, clientId, code)).code_challenge;
}

/** An agent name from the client's name: the characters an agent name allows, else a default. */
function agentBaseName(clientName: string | null): string {
  const cleaned = (clientName ?? '')
    .replace(/[^A-Za-z0-9 ._-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 52)
    .trim();
  return cleaned === '' ? 'OAuth client' : cleaned;
}

const NAME_TRIES = 100;

/**
 * `/token` with an authorization code, after the SDK checked the PKCE verifier: the code is marked
 * used by a conditional UPDATE in the organisation's unit of work (of two racing exchanges exactly
 * one wins), an agent named after the client is created (the pairing rule: a name no agent has or
 * had and no open pairing code holds; "Name", then "Name 2", "Name 3", …) with an API key of the
 * chosen tier, event `org.oauth.token` (actor: the new agent). The key is the access token: no
 * expiry, no refresh token; it stands until revoked like any key.
 */
export async function exchangeCode(
  db: Database,
  urls: OAuthUrls,
  input: { clientId: string; code: string; redirectUri?: string | undefined; resource?: URL | undefined },
): Promise<{ key: string; keyId: string; agentId: string; tier: Tier }> {
  const row = await grantOfCode(db, input.clientId, input.code);
  if (input.redirectUri !== undefined && input.redirectUri !== row.redirect_uri) {
    throw new InvalidGrantError('redirect_uri: not the one the authorization request used');
  }
  if (input.resource !== undefined && resourceOf(urls, input.resource) !== row.resource) {
    throw new InvalidTargetError('resource: not the one the authorization request used');
  }
  const client = await db.reader.get<{ client_name: string | null }>('SELECT client_name FROM oauth_clients WHERE client_id = ?', [
    row.client_id,
  ]);
  if (!client) throw new InvalidGrantError(REFUSED_CODE);
  const agentId = newId('agt');
  const base = agentBaseName(client.client_name);
  return inUnitOfWork(db, row.org_id, agentId, async (uow) => {
    const used = await uow.tx.run(
      "UPDATE oauth_grants SET used_at = ?, agent_id = ? WHERE id = ? AND used_at IS NULL AND decision = 'approved' AND code_expires_at > ?",
      [uow.now, agentId, row.id, uow.now],
    );
    if (used.changes !== 1) throw new InvalidGrantError(REFUSED_CODE);
    let name: string | null = null;
    for (let i = 1; i <= NAME_TRIES && name === null; i += 1) {
      const candidate = i === 1 ? base : `${base} ${i}`;
      const taken = await uow.tx.get<{ id: string }>(
        `SELECT id FROM agents WHERE org_id = ? AND name = ?
         UNION ALL SELECT id FROM pairing_codes WHERE org_id = ? AND agent_name = ? AND used_at IS NULL AND expires_at > ?`,
        [uow.orgId, candidate, uow.orgId, candidate, uow.now],
      );
      if (!taken) name = candidate;
    }
    if (name === null)
      throw new InvalidGrantError(
        `no free agent name for this client in the organisation ("${base}" to "${base} ${NAME_TRIES}" are taken)`,
      );
    await uow.tx.run('INSERT INTO agents (id, org_id, name, created_at, tier, paired_at) VALUES (?, ?, ?, ?, ?, ?)', [
      agentId,
      uow.orgId,
      name,
      uow.now,
      row.tier,
      uow.now,
    ]);
    const key = await issueKey(uow.tx, uow.orgId, row.tier, agentId, uow.now);
    await uow.tx.run('UPDATE oauth_grants SET key_id = ? WHERE id = ?', [key.keyId, row.id]);
    await uow.tx.run('UPDATE oauth_clients SET last_used_at = ? WHERE client_id = ?', [uow.now, row.client_id]);
    await uow.emit(events.orgOAuthToken, {
      entityId: agentId,
      payload: { grantId: row.id, clientId: row.client_id, agentId, name, tier: row.tier, keyId: key.keyId },
    });
    return { key: key.key, keyId: key.keyId, agentId, tier: row.tier };
  });
}

/**
 * `/revoke` (RFC 7009): a valid access token this client obtained revokes its agent and the
 * agent's keys (event `org.agent.revoke`, actor: the agent). Anything else (unknown, revoked,
 * another client's, not ours) does nothing, as RFC 7009 §2.2 asks.
 */
export async function revokeOAuthToken(db: Database, clientId: string, token: string): Promise<void> {
  const parsed = parseKey(token);
  if (!parsed || !CLIENT_ID.test(clientId)) return;
  const found = await authenticate(db.reader, token);
  if (!found?.principal.agent) return;
  const grant = await db.reader.get<{ org_id: string; agent_id: string }>(
    'SELECT org_id, agent_id FROM oauth_grants WHERE key_id = ? AND client_id = ?',
    [parsed.keyId, clientId],
  );
  if (!grant || grant.agent_id !== found.principal.agent.id || grant.org_id !== found.principal.orgId) return;
  await revokeAgent(db, { orgId: grant.org_id, agentId: grant.agent_id, actor: grant.agent_id });
}
