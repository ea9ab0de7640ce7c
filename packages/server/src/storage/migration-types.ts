/**
 * One schema for both engines. Types are chosen from the subset both accept: TEXT, BIGINT (an
 * INTEGER in SQLite, int8 in PostgreSQL, parsed to a JS number with a safe-integer guard).
 * Every table of an organisation's books is keyed by org_id first, so that organisations could be
 * sharded (docs/architecture.md, Everything is keyed by organisation).
 */
export interface Migration {
  readonly id: number;
  readonly name: string;
  readonly statements: readonly string[];
  /**
   * TypeScript steps after the statements, for values SQL cannot compute on both engines; a list
   * runs in order, each step seeing what the previous ones wrote (migration 25: contacts are
   * inserted, then every document is pointed at its contact).
   */
  readonly backfill?: Backfill | readonly Backfill[];
}

/**
 * The backfill hook: both engines run it once, in the migration's own
 * transaction, after its statements: every row of `select` is written back with `update`
 * (`?` placeholders) and the values `params` computes from the row. Data, not a callback on a
 * connection, so the synchronous SQLite runner and the asynchronous PostgreSQL one share it.
 * `update` is any one data statement: an UPDATE, or an INSERT … ON CONFLICT that
 * creates rows keyed by a value computed in TypeScript.
 */
export interface Backfill {
  readonly select: string;
  readonly update: string;
  readonly params: (row: Readonly<Record<string, unknown>>) => readonly (string | number | null)[];
}

/** The backfill steps of a migration, in order (none, one, or a list). */
export function backfillSteps(m: Migration): readonly Backfill[] {
  if (m.backfill === undefined) return [];
  // (Array.isArray narrows a readonly array to any[], hence the first assertion.)
  return Array.isArray(m.backfill) ? (m.backfill as readonly Backfill[]) : [m.backfill as Backfill];
}

/** Options of `Database.migrate`. */
export interface MigrateOptions {
  /**
   * Apply migrations up to and including this id only (tests that write rows as an older schema
   * had them, then migrate the rest, as an upgraded installation does). Default: all.
   */
  readonly throughId?: number;
  /**
   * After migrating, in the same transaction, compare the schema with exactly what the
   * migrations create (storage/schema-check.ts) and refuse (SchemaRefused, everything rolled
   * back) if anything differs. The server's start sets it; a database this call creates from
   * nothing is not compared (it is the migrations' own work). Only with every migration applied.
   */
  readonly checkSchema?: boolean;
}
