import type { Migration } from '../../storage/migrations.js';

/** This area's schema, applied after the general ledger (see storage/migrations.ts). */
export const migration: Migration | null = null;
