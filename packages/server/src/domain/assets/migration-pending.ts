import type { Migration } from '../../storage/migration-types.js';

/**
 * Pending fixed assets: a bill line or an expense claim on 1500 without asset details is on the
 * register as `pending` (the assets table's status is free text, so no change there) until
 * books.assetRegister names it. A depreciation run skips pending assets and says how many; the
 * count is kept with the run so that a rerun (a no-op) answers what the run did.
 */
export const migration: Migration = {
  id: 36,
  name: 'assets: pending assets skipped by each depreciation run',
  statements: ['ALTER TABLE asset_runs ADD COLUMN pending_skipped BIGINT NOT NULL DEFAULT 0'],
};
