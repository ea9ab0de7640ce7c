import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 58: names for who acted. A key issued without pairing carries the label its issuer
 * gave it (`finance-desk key issue --label`), and a person the name given when they were added
 * (`finance-desk user add --name`), so the console and the approval emails name them instead of
 * showing a key id or an email address. Both are optional: rows from before keep NULL and are
 * shown as the key's tier and id and the person's email, except the keys an organisation was
created with, which are labelled as `org create` labels them now.
 */
export const migration: Migration = {
  id: 58,
  name: 'org: key labels and people names',
  statements: [
    'ALTER TABLE credentials ADD COLUMN label TEXT',
    'ALTER TABLE users ADD COLUMN name TEXT',
    // The keys an organisation was created with (named by its first event, org.created at seq 1)
    // take the labels org create now gives them, so existing organisations do not show their ids.
    `UPDATE credentials SET label = 'Setup ' || tier || ' key'
     WHERE label IS NULL AND agent_id IS NULL AND EXISTS (
       SELECT 1 FROM events e WHERE e.org_id = credentials.org_id AND e.seq = 1
         AND e.payload LIKE '%"' || credentials.id || '"%')`,
  ],
};
