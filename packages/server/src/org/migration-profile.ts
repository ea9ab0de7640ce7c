import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 26: the organisation profile, agent tiers and revocation,
 * and pairing codes.
 *
 * Profile defaults are what the code assumed before there was a profile: GST registered, the
 * accrual basis (books.taxPrepare's default), quarterly BAS, a financial year from July (the
 * Australian year STP reports in); no ABN and no legal name until an owner sets them.
 *
 * An agent's `tier` is the tier it was paired with (null for agents named by `key issue --agent`,
 * whose keys carry their own tiers); `revoked_at`/`revoked_by` mark a revoked agent, whose keys
 * are revoked in the same transaction. A pairing code stores only a hash of its secret
 * (`chosen` = 1 when a person chose the secret: then an scrypt hash, else SHA-256 of 256 random
 * bits); `failed_attempts` burns a code after repeated wrong secrets. The code's id is global
 * (the exchange has no organisation to start from), as a key's id is.
 */
export const migration: Migration = {
  id: 26,
  name: 'organisation profile, agent revocation, pairing codes',
  statements: [
    'ALTER TABLE organisations ADD COLUMN legal_name TEXT',
    'ALTER TABLE organisations ADD COLUMN abn TEXT',
    'ALTER TABLE organisations ADD COLUMN gst_registered BIGINT NOT NULL DEFAULT 1',
    "ALTER TABLE organisations ADD COLUMN gst_basis TEXT NOT NULL DEFAULT 'accrual'",
    "ALTER TABLE organisations ADD COLUMN bas_frequency TEXT NOT NULL DEFAULT 'quarterly'",
    'ALTER TABLE organisations ADD COLUMN fy_start_month BIGINT NOT NULL DEFAULT 7',
    'ALTER TABLE agents ADD COLUMN tier TEXT',
    'ALTER TABLE agents ADD COLUMN paired_at TEXT',
    'ALTER TABLE agents ADD COLUMN revoked_at TEXT',
    'ALTER TABLE agents ADD COLUMN revoked_by TEXT',
    `CREATE TABLE pairing_codes (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL REFERENCES organisations(id),
      agent_name TEXT NOT NULL,
      tier TEXT NOT NULL,
      secret_hash TEXT NOT NULL,
      chosen BIGINT NOT NULL,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      used_at TEXT,
      agent_id TEXT,
      failed_attempts BIGINT NOT NULL DEFAULT 0
    )`,
    'CREATE INDEX pairing_codes_org ON pairing_codes (org_id, created_at)',
    'CREATE INDEX agents_org ON agents (org_id, id)',
    'CREATE INDEX credentials_agent ON credentials (org_id, agent_id)',
  ],
};
