import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 59: the weekly digest. `digests` holds one row per organisation and reported week
 * (its Monday): the primary key is what makes two sweeps, in one process or several, unable to
 * send one week twice; `head_seq` is the chain head the digest counted to, where the next week's
 * count starts. `users.weekly_digest` is each person's choice: 'on', 'off', or NULL for their
 * role's default (owners receive it, others do not).
 */
export const migration: Migration = {
  id: 59,
  name: 'weekly digest',
  statements: [
    `CREATE TABLE digests (
      org_id TEXT NOT NULL REFERENCES organisations(id),
      week_from TEXT NOT NULL,
      week_to TEXT NOT NULL,
      head_seq BIGINT NOT NULL,
      recipients INTEGER NOT NULL,
      sent_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, week_from)
    )`,
    `ALTER TABLE users ADD COLUMN weekly_digest TEXT`,
  ],
};
