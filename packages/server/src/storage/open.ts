import { PostgresDatabase } from './postgres.js';
import { SqliteDatabase, type SqliteSynchronous } from './sqlite.js';
import type { Database } from './types.js';

export const DEFAULT_DATABASE_URL = 'sqlite:./data/finance-desk.db';

export interface OpenOptions {
  readonly schema?: string;
  readonly sqliteSynchronous?: SqliteSynchronous;
  readonly poolSize?: number;
}

/** Select the engine from `DATABASE_URL` (D10): `sqlite:<path>` or `postgres://…`. */
export function openDatabase(url: string, options: OpenOptions = {}): Database {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (!path) throw new Error('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/fd.db');
    return new SqliteDatabase({
      path,
      ...(options.sqliteSynchronous ? { synchronous: options.sqliteSynchronous } : {}),
    });
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return new PostgresDatabase({
      url,
      ...(options.schema ? { schema: options.schema } : {}),
      ...(options.poolSize ? { poolSize: options.poolSize } : {}),
    });
  }
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}
