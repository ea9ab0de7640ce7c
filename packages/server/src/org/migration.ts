import { DEFAULT_TIME_ZONE } from '../clock.js';
import type { Migration } from '../storage/migration-types.js';

/**
 * Migration 15: each organisation keeps its books in a time zone (clock.ts). Existing rows take
 * the default through the column default, on both engines.
 */
export const migration: Migration = {
  id: 15,
  name: 'organisation time zone',
  statements: [`ALTER TABLE organisations ADD COLUMN time_zone TEXT NOT NULL DEFAULT '${DEFAULT_TIME_ZONE}'`],
};
