/**
 * Storage's own migrations: the core tables it was first written with, which every area builds
 * on (and migration-search.ts). The ordered list of every migration, these and each area's, is
 * collected where the server is assembled (schema.ts) and handed to the engines when a database
 * is opened, so storage imports no area.
 */
import { randomBytes } from 'node:crypto';
import type { Migration } from './migration-types.js';

// The types live in migration-types.ts, which the areas' migrations import; kept here for callers.
export { backfillSteps, type Backfill, type MigrateOptions, type Migration } from './migration-types.js';

/**
 * Rows every installation needs, created once after the schema (idempotent): the signature-token
 * signing key, random per installation.
 */
export function seedStatements(): readonly { sql: string; params: readonly string[] }[] {
  return [
    {
      sql: "INSERT INTO server_secrets (name, value, created_at) VALUES ('token_signing_key', ?, ?) ON CONFLICT (name) DO NOTHING",
      params: [randomBytes(32).toString('base64url'), new Date().toISOString()],
    },
  ];
}

/** The core schema (1) and the signature law, approvals, bills, outbox and human lane (2). */
export const coreMigrations: readonly Migration[] = [
  {
    id: 1,
    name: 'core',
    statements: [
      `CREATE TABLE organisations (
        id TEXT PRIMARY KEY,
        slug TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      // The head row is the per-organisation append lock (FOR UPDATE in PostgreSQL).
      `CREATE TABLE org_heads (
        org_id TEXT PRIMARY KEY REFERENCES organisations(id),
        seq BIGINT NOT NULL,
        row_hash TEXT NOT NULL
      )`,
      // Payload is stored as the exact canonical text that was hashed, so a row re-hashes to itself.
      `CREATE TABLE events (
        org_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        family TEXT NOT NULL,
        kind TEXT NOT NULL,
        entity_id TEXT NOT NULL,
        actor TEXT NOT NULL,
        at TEXT NOT NULL,
        payload TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        row_hash TEXT NOT NULL,
        PRIMARY KEY (org_id, seq)
      )`,
      `CREATE INDEX events_entity ON events (org_id, entity_id, seq)`,
      `CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organisations(id),
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (org_id, name)
      )`,
      `CREATE TABLE credentials (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organisations(id),
        tier TEXT NOT NULL,
        agent_id TEXT REFERENCES agents(id),
        secret_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      )`,
      `CREATE INDEX credentials_org ON credentials (org_id)`,
      `CREATE TABLE users (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organisations(id),
        email TEXT NOT NULL,
        role TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (org_id, email)
      )`,
      `CREATE TABLE policies (
        org_id TEXT PRIMARY KEY REFERENCES organisations(id),
        body TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      `CREATE TABLE idempotency (
        org_id TEXT NOT NULL,
        credential_id TEXT NOT NULL,
        idem_key TEXT NOT NULL,
        method TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        result TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (org_id, credential_id, idem_key)
      )`,
      `CREATE INDEX idempotency_age ON idempotency (created_at)`,
      `CREATE TABLE board_items (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        title TEXT NOT NULL,
        priority TEXT NOT NULL,
        priority_rank BIGINT NOT NULL,
        col TEXT NOT NULL,
        claimed_by TEXT,
        created_at TEXT NOT NULL,
        ledger_id TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
      `CREATE INDEX board_ready ON board_items (org_id, col, priority_rank, created_at)`,
      `CREATE TABLE invoices (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        status TEXT NOT NULL,
        payee_name TEXT NOT NULL,
        description TEXT NOT NULL,
        total_cents BIGINT NOT NULL,
        due_days BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        issued_on TEXT,
        due_on TEXT,
        ledger_id TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
    ],
  },
  {
    id: 2,
    name: 'signature law, approvals, bills, outbox, human lane',
    statements: [
      // An unproven signature act: what was asked, bound by payload hash.
      `CREATE TABLE holds (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        action_class TEXT NOT NULL,
        subject_id TEXT NOT NULL,
        payload_hash TEXT NOT NULL,
        method TEXT NOT NULL,
        params TEXT NOT NULL,
        summary TEXT NOT NULL,
        created_at TEXT NOT NULL,
        released_at TEXT,
        PRIMARY KEY (org_id, id)
      )`,
      `CREATE INDEX holds_binding ON holds (org_id, action_class, subject_id, payload_hash)`,
      `CREATE TABLE approvals (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        action_class TEXT NOT NULL,
        subject_id TEXT NOT NULL,
        payload_hash TEXT NOT NULL,
        method TEXT NOT NULL,
        params TEXT NOT NULL,
        summary TEXT NOT NULL,
        status TEXT NOT NULL,
        requested_by TEXT NOT NULL,
        requested_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        decided_by TEXT,
        decided_at TEXT,
        reason TEXT,
        used_at TEXT,
        used_ledger_id TEXT,
        ledger_id TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
      `CREATE UNIQUE INDEX approvals_id ON approvals (id)`,
      `CREATE INDEX approvals_binding ON approvals (org_id, action_class, subject_id, payload_hash)`,
      `CREATE TABLE bills (
        org_id TEXT NOT NULL,
        id TEXT NOT NULL,
        status TEXT NOT NULL,
        payee_name TEXT NOT NULL,
        payee_key TEXT NOT NULL,
        description TEXT NOT NULL,
        total_cents BIGINT NOT NULL,
        due_days BIGINT NOT NULL,
        due_on TEXT NOT NULL,
        held_reason TEXT,
        note TEXT,
        run_id TEXT,
        created_at TEXT NOT NULL,
        approved_at TEXT,
        ledger_id TEXT NOT NULL,
        PRIMARY KEY (org_id, id)
      )`,
      `CREATE INDEX bills_payee ON bills (org_id, payee_key, approved_at)`,
      `ALTER TABLE invoices ADD COLUMN payee_email TEXT`,
      `ALTER TABLE invoices ADD COLUMN chase_step BIGINT NOT NULL DEFAULT 0`,
      `ALTER TABLE invoices ADD COLUMN chase_ledger_id TEXT`,
      // Effects outside the database, written in the same transaction and delivered after it.
      `CREATE TABLE outbox (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        attempts BIGINT NOT NULL DEFAULT 0,
        claimed_until TEXT,
        delivered_at TEXT,
        last_error TEXT
      )`,
      `CREATE INDEX outbox_pending ON outbox (delivered_at, created_at)`,
      `CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        org_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        csrf TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      )`,
      `CREATE TABLE login_attempts (
        bucket TEXT PRIMARY KEY,
        failures BIGINT NOT NULL,
        window_start TEXT NOT NULL,
        locked_until TEXT
      )`,
      `CREATE TABLE server_secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
    ],
  },
];

// Sign-in throttling is swept by window start on every counted attempt.
// Existing rows keep their meaning; the first sweep removes the stale ones.
export const loginAttemptsSweep: Migration = {
  id: 13,
  name: 'login attempts sweep index',
  statements: ['CREATE INDEX login_attempts_window ON login_attempts (window_start)'],
};

/**
 * `list` if its ids ascend, else an error naming the first out of place: migrations are applied in
 * the list's order, and `throughId` takes a prefix of it, so an installation's history reads in order.
 */
export function inIdOrder(list: readonly Migration[]): readonly Migration[] {
  for (let i = 1; i < list.length; i += 1) {
    const [prev, next] = [list[i - 1], list[i]];
    if (prev && next && prev.id >= next.id) throw new Error(`migration ${next.id} is listed after ${prev.id}`);
  }
  return list;
}
