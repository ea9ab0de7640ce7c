/**
 * Migrated template databases, one per engine, built once per test run (global-setup.ts) and
 * copied for each test server instead of migrating a new database each time: a SQLite file is
 * copied, a PostgreSQL database is created with CREATE DATABASE … TEMPLATE. Each copy is still a
 * database of its own, so isolation is as before. Tests of migrations themselves open a new
 * database with openTestDatabase (harness.ts) and run the real migrations.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { PostgresDatabase } from '../src/storage/postgres.js';
import { SqliteDatabase } from '../src/storage/sqlite.js';
import { migrations } from '../src/schema.js';

export interface DbTemplates {
  /** A migrated SQLite file to copy (not in WAL mode: the file alone is the whole database). */
  readonly sqlite: string;
  /** The name of a migrated PostgreSQL database on TEST_DATABASE_URL's server, or null without one. */
  readonly postgres: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    dbTemplates: DbTemplates | undefined;
  }
}

/** `url` with its database replaced by `name`. */
export function pgUrlFor(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function pgAdmin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Build the templates; the returned function removes them. */
export async function buildTemplates(pgUrl: string | undefined): Promise<{ templates: DbTemplates; remove: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'fd-template-'));
  const sqlite = join(dir, 'template.db');
  const lite = new SqliteDatabase({ migrations, path: sqlite, synchronous: 'NORMAL' });
  try {
    await lite.migrate();
    // The schema check against what the migrations create, once for every copy.
    await lite.migrate({ checkSchema: true });
  } finally {
    await lite.close();
  }
  const raw = new BetterSqlite3(sqlite);
  raw.pragma('journal_mode = DELETE');
  raw.close();

  let postgres: string | null = null;
  if (pgUrl) {
    postgres = `fd_template_${process.pid}_${Date.now().toString(36)}`;
    const name = postgres;
    await pgAdmin(pgUrl, (c) => c.query(`CREATE DATABASE ${name}`));
    const db = new PostgresDatabase({ migrations, url: pgUrlFor(pgUrl, name) });
    try {
      await db.migrate();
      await db.migrate({ checkSchema: true });
    } finally {
      // No session may stay connected to a template while it is copied.
      await db.close();
    }
  }
  const made = postgres;
  return {
    templates: { sqlite, postgres },
    remove: async () => {
      rmSync(dir, { recursive: true, force: true });
      if (pgUrl && made) await pgAdmin(pgUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${made} WITH (FORCE)`));
    },
  };
}
