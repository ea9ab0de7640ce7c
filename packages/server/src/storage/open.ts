import type { Migration } from './migration-types.js';
import { PostgresDatabase } from './postgres.js';
import { SqliteDatabase, type SqliteSynchronous } from './sqlite.js';
import type { Database } from './types.js';

export const DEFAULT_DATABASE_URL = 'sqlite:./data/finance-desk.db';

export interface OpenOptions {
  /** Every migration, ids ascending: the full list is collected where the server is assembled (schema.ts). */
  readonly migrations: readonly Migration[];
  readonly schema?: string;
  readonly sqliteSynchronous?: SqliteSynchronous;
  readonly poolSize?: number;
  /** Compare the schema with what the migrations create and refuse a difference (MigrateOptions). */
  readonly checkSchema?: boolean;
  /** The setting or flag the URL came from, for messages (default DATABASE_URL; `copy --to` names its flag). */
  readonly setting?: string;
}

/** Select the engine from `DATABASE_URL`: `sqlite:<path>` or `postgres://…`. */
export function openDatabase(url: string, options: OpenOptions): Database {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (!path) throw new Error('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/fd.db');
    return new SqliteDatabase({
      path,
      migrations: options.migrations,
      ...(options.sqliteSynchronous ? { synchronous: options.sqliteSynchronous } : {}),
    });
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return new PostgresDatabase({
      url,
      migrations: options.migrations,
      ...(options.schema ? { schema: options.schema } : {}),
      ...(options.poolSize ? { poolSize: options.poolSize } : {}),
    });
  }
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}

/**
 * Open and migrate the database, turning a failure to reach it into a message that names
 * DATABASE_URL (or `options.setting`) and where it points (host and port or file; never the password).
 */
export async function openMigrated(url: string, options: OpenOptions): Promise<Database> {
  const setting = options.setting ?? 'DATABASE_URL';
  let db: Database;
  try {
    db = openDatabase(url, options);
  } catch (error) {
    throw new Error(`${setting}: cannot open ${whereOf(url)}: ${reasonOf(error)}`, { cause: error });
  }
  try {
    await db.migrate(options.checkSchema ? { checkSchema: true } : {});
    return db;
  } catch (error) {
    await db.close().catch(() => undefined);
    const code = (error as { code?: string }).code;
    // Connection-level failures name the setting; a failing migration keeps its own message.
    if (code && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|SQLITE_CANTOPEN|3D000|28P01|28000)$/.test(code)) {
      throw new Error(`${setting}: cannot connect to ${whereOf(url)}: ${reasonOf(error)}`, { cause: error });
    }
    throw error;
  }
}

/** Where a database URL points, without its password: a file, or host, port and database. */
export function whereOf(url: string): string {
  if (url.startsWith('sqlite:')) return `the SQLite file ${url.slice('sqlite:'.length)}`;
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'the configured database';
  }
}

function reasonOf(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const message =
    String(e.message ?? error)
      .split('\n', 1)[0]
      ?.slice(0, 200) ?? '';
  return e.code && !message.includes(e.code) ? `${e.code} ${message}` : message;
}
