import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 58: names for who acted. A key issued without pairing carries the label its issuer
 * gave it (`finance-desk key issue --label`), and a person the name given when they were added
 * (`finance-desk user add --name`), so the console and the approval emails name them instead of
 * showing a key id or an email address. Both are optional: rows from before keep NULL and are
 * shown as before (the key's tier and id, the person's email).
 */
export const migration: Migration = {
  id: 58,
  name: 'org: key labels and people names',
  statements: ['ALTER TABLE credentials ADD COLUMN label TEXT', 'ALTER TABLE users ADD COLUMN name TEXT'],
};
