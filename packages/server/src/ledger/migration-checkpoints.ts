import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 29: signed checkpoints of each organisation's chain head. A
 * checkpoint is evidence kept beside the chain, not an act on it: storing one appends no event
 * (an event would move the head it signs).
 */
export const migration: Migration = {
  id: 29,
  name: 'checkpoints: signed heads of each chain',
  statements: [
    `CREATE TABLE checkpoints (
       org_id TEXT NOT NULL REFERENCES organisations(id),
       seq BIGINT NOT NULL,
       row_hash TEXT NOT NULL,
       key_name TEXT NOT NULL,
       note TEXT NOT NULL,
       created_at TEXT NOT NULL,
       PRIMARY KEY (org_id, seq, key_name)
     )`,
  ],
};
