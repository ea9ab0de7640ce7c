import BetterSqlite3 from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { verifyStoredChain } from '../ledger/verify.js';
import type { Migration } from './migration-types.js';
import { problemLine } from './schema-check.js';
import { SqliteDatabase, sqliteSchemaProblems } from './sqlite.js';

/**
 * Backups and restores of the SQLite engine (docs/operations.md, "Backups").
 *
 * `cp` of a live database file is not a backup: the file and its WAL change under the copy, and a
 * copy taken that way was found missing a whole organisation. A backup here uses SQLite's online
 * backup API on its own read connection, copying every page in ONE step: the step holds a read
 * snapshot of the database (WAL readers never block the server's writer), so the copy is the
 * database exactly as at one commit: every write acknowledged before the backup began is in it,
 * and no write is half in it. The copy goes to a temporary file beside the target, is fsynced,
 * checked (integrity, migrations, the schema exactly as the migrations create it, every
 * organisation's chain), and only then renamed into place.
 *
 * PostgreSQL is backed up with its own tools (`pg_dump --format=custom`, a consistent snapshot
 * while the servers run) and restored with `pg_restore`; docs/operations.md "Backups" has the commands.
 */
export interface OrgCheck {
  readonly slug: string;
  readonly ok: boolean;
  readonly events: number;
  readonly headSeq: number;
  readonly problem?: string;
}

export interface FileCheck {
  readonly ok: boolean;
  readonly integrity: string;
  /**
   * Applied of the migrations this build knows; `unknown`: applied ones it does not know (a file
   * from a newer build, which this build must not serve). Pending ones are applied by the next start.
   */
  readonly migrations: { readonly applied: number; readonly known: number; readonly unknown: number };
  /**
   * How the schema differs from exactly what the migrations it has applied create (an added
   * trigger, view, table or index, a changed or missing definition): one line each; empty when
   * it is exactly that. Chains verify whatever triggers surround them, so this is checked apart.
   */
  readonly schema: readonly string[];
  readonly organisations: readonly OrgCheck[];
}

export interface BackupReport extends FileCheck {
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** Where `DATABASE_URL` points, for the SQLite engine only. */
export function sqlitePathOf(databaseUrl: string): string | null {
  return databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : null;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function fsyncDir(path: string): void {
  try {
    fsyncFile(path);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  }
}

/** A backup is one file: rollback-journal mode (no WAL beside it when opened), fsynced. */
function selfContained(path: string): void {
  const raw = new BetterSqlite3(path);
  try {
    raw.pragma('journal_mode = DELETE');
  } finally {
    raw.close();
  }
  for (const suffix of ['-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  fsyncFile(path);
}

/**
 * Check a database file that no server is using: SQLite's integrity check, every one of
 * `migrations` (this build's) applied, the schema exactly what those migrations create, and every
 * organisation's chain recomputed from genesis.
 */
export async function checkDatabaseFile(path: string, migrations: readonly Migration[]): Promise<FileCheck> {
  const raw = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  let integrity: string;
  let applied: number;
  let unknown: number;
  let schema: string[];
  try {
    integrity = (raw.pragma('integrity_check', { simple: true }) as string) ?? 'unknown';
    const ids = new Set((raw.prepare('SELECT id FROM schema_migrations').all() as { id: number }[]).map((r) => Number(r.id)));
    applied = migrations.filter((m) => ids.has(m.id)).length;
    const known = new Set(migrations.map((m) => m.id));
    unknown = [...ids].filter((id) => !known.has(id)).length;
    schema = sqliteSchemaProblems(raw, migrations);
  } finally {
    raw.close();
  }
  const db = new SqliteDatabase({ path, synchronous: 'NORMAL', migrations });
  const organisations: OrgCheck[] = [];
  try {
    const orgs = await db.reader.all<{ id: string; slug: string }>('SELECT id, slug FROM organisations ORDER BY slug', []);
    for (const org of orgs) {
      const verdict = await verifyStoredChain(db, org.id);
      organisations.push(
        verdict.ok
          ? { slug: org.slug, ok: true, events: verdict.rows, headSeq: verdict.head.seq }
          : {
              slug: org.slug,
              ok: false,
              events: 0,
              headSeq: verdict.seq,
              problem: `chain broken at seq ${verdict.seq}: ${verdict.reason}`,
            },
      );
    }
  } finally {
    await db.close();
  }
  const known = migrations.length;
  return {
    ok: integrity === 'ok' && unknown === 0 && schema.length === 0 && organisations.every((o) => o.ok),
    integrity,
    migrations: { applied, known, unknown },
    schema,
    organisations,
  };
}

/**
 * Copy the live database at `sourcePath` to `target` (which must not exist unless `force`),
 * checked against `migrations` (this build's) before it is put in place.
 */
export async function backupSqlite(
  sourcePath: string,
  target: string,
  migrations: readonly Migration[],
  force = false,
): Promise<BackupReport> {
  if (!existsSync(sourcePath)) throw new Error(`DATABASE_URL: no SQLite database at ${sourcePath}`);
  const to = resolve(target);
  if (existsSync(to) && !force) throw new Error(`--to: ${target} exists; choose a new file or pass --force`);
  if (!existsSync(dirname(to))) throw new Error(`--to: directory ${dirname(to)} does not exist`);
  const temp = join(dirname(to), `.${basename(to)}.${process.pid}.partial`);
  rmSync(temp, { force: true });
  const source = new BetterSqlite3(sourcePath, { readonly: true, fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    // Every remaining page in one step: one read snapshot, so the copy is one commit's state.
    await source.backup(temp, { progress: () => 0x7fffffff });
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  } finally {
    source.close();
  }
  try {
    const check = await checkDatabaseFile(temp, migrations);
    if (!check.ok) throw new Error(`the backup did not check out (${describeProblems(check)}); nothing was written to ${target}`);
    selfContained(temp);
    renameSync(temp, to);
    fsyncDir(dirname(to));
    return { file: to, bytes: statSync(to).size, sha256: await sha256File(to), ...check };
  } finally {
    for (const p of [temp, `${temp}-wal`, `${temp}-shm`]) rmSync(p, { force: true });
  }
}

/**
 * Put a backup in place of the database at `targetPath`. The server must be stopped first. The
 * backup is checked before anything is touched; the old database (with its WAL and shared-memory
 * files, which would otherwise be replayed onto the restored file) is kept beside it as
 * `<file>.before-restore-<time>` unless there was none. Both files are checked against
 * `migrations` (this build's).
 */
export async function restoreSqlite(
  from: string,
  targetPath: string,
  migrations: readonly Migration[],
  now: string,
): Promise<FileCheck & { readonly previous: string | null }> {
  if (!existsSync(from)) throw new Error(`--from: no file ${from}`);
  const check = await checkDatabaseFile(from, migrations);
  for (const suffix of ['-wal', '-shm']) rmSync(`${from}${suffix}`, { force: true });
  // A schema the migrations did not make is refused by name, whatever else checks out.
  if (check.schema.length > 0) throw new Error(`restore refused: ${problemLine(check.schema)} (in ${from}); nothing was restored`);
  if (!check.ok) throw new Error(`--from: ${from} does not check out (${describeProblems(check)}); nothing was restored`);
  const to = resolve(targetPath);
  const temp = join(dirname(to), `.${basename(to)}.${process.pid}.restoring`);
  const src = new BetterSqlite3(from, { readonly: true });
  try {
    await src.backup(temp, { progress: () => 0x7fffffff });
  } finally {
    src.close();
  }
  selfContained(temp);
  let previous: string | null = null;
  if (existsSync(to)) {
    previous = `${to}.before-restore-${now.replace(/[:.]/g, '-')}`;
    renameSync(to, previous);
  }
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(`${to}${suffix}`)) {
      if (previous) renameSync(`${to}${suffix}`, `${previous}${suffix}`);
      else rmSync(`${to}${suffix}`, { force: true });
    }
  }
  renameSync(temp, to);
  fsyncDir(dirname(to));
  return { ...(await checkDatabaseFile(to, migrations)), previous };
}

export function describeProblems(check: FileCheck): string {
  const problems: string[] = [];
  if (check.integrity !== 'ok') problems.push(`integrity: ${check.integrity.slice(0, 200)}`);
  if (check.migrations.unknown > 0) {
    problems.push(`migrations: ${check.migrations.unknown} applied that this build does not know (a newer build wrote it)`);
  }
  if (check.schema.length > 0) problems.push(`schema: ${problemLine(check.schema)}`);
  for (const o of check.organisations) if (!o.ok) problems.push(`${o.slug}: ${o.problem}`);
  return problems.join('; ') || 'ok';
}
