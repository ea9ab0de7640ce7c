import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 35: the organisation's credential epoch, on its head row. Every unit of
 * work that changes a credential or an agent of the organisation moves it by one, in the same
 * transaction (write-path.ts). A principal remembered by the API (org/principal-cache.ts) is
 * remembered with the epoch it was read at, and a write made with it checks, under the
 * organisation's head lock, that the epoch has not moved — else the credential is read again
 * there, so a key revoked by any process is refused from the moment the revocation commits.
 */
export const migration: Migration = {
  id: 35,
  name: 'credential epoch on the organisation head',
  statements: ['ALTER TABLE org_heads ADD COLUMN auth_epoch BIGINT NOT NULL DEFAULT 0'],
};
