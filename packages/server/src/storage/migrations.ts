/**
 * One schema for both engines. Types are chosen from the subset both accept: TEXT, BIGINT (an
 * INTEGER in SQLite, int8 in PostgreSQL, parsed to a JS number with a safe-integer guard).
 * Every table is keyed by org_id first so that organisations can be sharded (architecture guide).
 */
export interface Migration {
  readonly id: number;
  readonly name: string;
  readonly statements: readonly string[];
}

export const migrations: readonly Migration[] = [
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
      // Payload is stored as the exact canonical text that was hashed (D9).
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
];
