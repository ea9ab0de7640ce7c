import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 10: the last verified head per organisation. The console verifies
 * the chain from here instead of from seq 1 on every page. Nothing to backfill: an organisation
 * without a row is verified in full on its first console view, which then stores its head.
 */
export const migration: Migration = {
  id: 10,
  name: 'chain verified heads',
  statements: [
    `CREATE TABLE chain_verified (
      org_id TEXT PRIMARY KEY,
      seq BIGINT NOT NULL,
      row_hash TEXT NOT NULL,
      verified_at TEXT NOT NULL
    )`,
  ],
};
