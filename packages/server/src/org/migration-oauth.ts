import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 38: remote MCP connectors over OAuth 2.1 (org/oauth.ts; docs/agents.md "OAuth").
 *
 * `oauth_clients`: clients registered at `/register` (RFC 7591), public only (PKCE, no secret).
 * Registration happens before any organisation is known, so the table is not keyed by one; it is
 * bounded instead (a cap on rows, and a client never used within a day is swept).
 *
 * `oauth_grants`: one row per authorization request: what `/authorize` was asked (client,
 * redirect URI, PKCE challenge, state, resource) and, once a person decides on the console
 * consent page, the organisation, the person, the tier and the decision; on approval the
 * SHA-256 of the authorization code's secret and its expiry; on exchange, when it was used and
 * the agent and key it became. Like a pairing code's, the code's id is global (the exchange has
 * no organisation to start from).
 */
export const migration: Migration = {
  id: 38,
  name: 'OAuth clients and grants for remote MCP connectors',
  statements: [
    `CREATE TABLE oauth_clients (
      client_id TEXT PRIMARY KEY,
      client_name TEXT,
      redirect_uris TEXT NOT NULL,
      created_at TEXT NOT NULL,
      last_used_at TEXT
    )`,
    'CREATE INDEX oauth_clients_created ON oauth_clients (created_at)',
    `CREATE TABLE oauth_grants (
      id TEXT PRIMARY KEY,
      client_id TEXT NOT NULL,
      redirect_uri TEXT NOT NULL,
      code_challenge TEXT NOT NULL,
      state TEXT,
      resource TEXT NOT NULL,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      org_id TEXT REFERENCES organisations(id),
      user_id TEXT,
      tier TEXT,
      decision TEXT,
      decided_at TEXT,
      code_hash TEXT,
      code_expires_at TEXT,
      used_at TEXT,
      agent_id TEXT,
      key_id TEXT
    )`,
    'CREATE INDEX oauth_grants_expiry ON oauth_grants (expires_at)',
    'CREATE INDEX oauth_grants_key ON oauth_grants (key_id)',
    'CREATE INDEX oauth_grants_client ON oauth_grants (client_id)',
  ],
};
