/**
 * `finance-desk backup` copies the SQLite database while the server takes writes,
 * consistently (every write acknowledged before the backup began is in it, every chain verifies),
 * and `finance-desk restore` puts a checked backup in place, keeping the previous file.
 */
import BetterSqlite3 from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliHere } from './harness.js';
import { freePorts, runCli, spawnServe, stopServe, waitHealthy, type ServeProcess } from './multiprocess.js';

describe('backup and restore of the SQLite engine', () => {
  let dir: string;
  let serve: ServeProcess | null = null;
  const env = () => ({
    DATABASE_URL: `sqlite:${join(dir, 'live.db')}`,
    SQLITE_SYNCHRONOUS: 'NORMAL',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_BURST: '100000',
    RATE_LIMIT_PER_SECOND: '100000',
    EMAIL_OUTBOX_DIR: join(dir, 'out'),
  });
  let org: { slug: string; keys: { agent: string } };
  const backupFile = () => join(dir, 'backup-1.db');
  const ackedBefore: string[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fd-backup-'));
  });
  afterAll(async () => {
    if (serve) await stopServe(serve);
    rmSync(dir, { recursive: true, force: true });
  });

  const taskIdsIn = (file: string): Set<string> => {
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      return new Set(
        (raw.prepare("SELECT entity_id FROM events WHERE kind = 'item.created'").all() as { entity_id: string }[]).map((r) => r.entity_id),
      );
    } finally {
      raw.close();
    }
  };

  it('backs up under write load: consistent, checked, every write acknowledged before it began is in it', async () => {
    const created = await runCliHere(env(), ['org', 'create', '--name', 'Backed Up Pty Ltd', '--json']);
    expect(created.code).toBe(0);
    org = JSON.parse(created.out);
    const [port] = await freePorts(1);
    serve = spawnServe(0, port as number, env());
    await waitHealthy(serve);
    const url = serve.url;
    const acked: string[] = [];
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i += 1) {
        const res = await fetch(`${url}/api/v1/board.createTask`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.keys.agent}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `t ${w}-${i}` }),
        });
        const body = (await res.json()) as { ok: boolean; result: { id: string } };
        expect(body.ok).toBe(true);
        acked.push(body.result.id);
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    while (acked.length < 100) await new Promise((r) => setTimeout(r, 5));
    ackedBefore.push(...acked);
    const backup = await runCli(env(), ['backup', '--to', backupFile(), '--json']);
    const ackedDuring = acked.length - ackedBefore.length;
    stop = true;
    await Promise.all(workers);
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    const report = JSON.parse(backup.out) as {
      ok: boolean;
      file: string;
      sha256: string;
      organisations: { slug: string; ok: boolean; events: number }[];
    };
    expect(report.ok).toBe(true);
    expect(report.organisations).toEqual([expect.objectContaining({ slug: org.slug, ok: true })]);
    expect(report.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Writes went on while the backup ran, so the copy is of one moment under load.
    expect(ackedDuring).toBeGreaterThan(0);
    const inBackup = taskIdsIn(backupFile());
    expect(ackedBefore.filter((id) => !inBackup.has(id))).toEqual([]);
    // One self-contained file: no WAL or temporary file is left beside it.
    expect(existsSync(`${backupFile()}-wal`)).toBe(false);
    expect(existsSync(join(dir, `.backup-1.db.${process.pid}.partial`))).toBe(false);
  }, 90_000);

  it('refuses to overwrite a file, and sends PostgreSQL users to pg_dump', async () => {
    // Refusals are checked with the command in this process: a process per command costs seconds.
    const again = await runCliHere(env(), ['backup', '--to', backupFile()]);
    expect(again.code).toBe(2);
    expect(again.err).toContain('exists; choose a new file or pass --force');
    const pg = await runCliHere({ ...env(), DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, ['backup', '--to', join(dir, 'pg.db')]);
    expect(pg.code).toBe(2);
    expect(pg.err).toContain('pg_dump --format=custom');
  });

  it('refuses to restore a tampered backup and leaves the database as it was', async () => {
    const tampered = join(dir, 'tampered.db');
    copyFileSync(backupFile(), tampered);
    const raw = new BetterSqlite3(tampered);
    expect(raw.prepare("UPDATE events SET actor = actor || 'x' WHERE seq = 50").run().changes).toBe(1);
    raw.close();
    if (serve) await stopServe(serve);
    serve = null;
    const before = readFileSync(join(dir, 'live.db'));
    const r = await runCliHere(env(), ['restore', '--from', tampered]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/does not check out \(.*chain broken at seq 50/);
    expect(readFileSync(join(dir, 'live.db')).equals(before)).toBe(true);
    const missing = await runCliHere(env(), ['restore', '--from', join(dir, 'nope.db')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--from: no file');
  });

  it('restores over the live file, keeping the previous one; the server then serves the backup and verify passes', async () => {
    // More writes after the backup, which the restore must roll back.
    const [port] = await freePorts(1);
    serve = spawnServe(1, port as number, env());
    await waitHealthy(serve);
    const late = await fetch(`${serve.url}/api/v1/board.createTask`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.keys.agent}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'after the backup' }),
    });
    const lateId = ((await late.json()) as { result: { id: string } }).result.id;
    await stopServe(serve);
    serve = null;

    const r = await runCli(env(), ['restore', '--from', backupFile(), '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.out) as { ok: boolean; previous: string };
    expect(result.ok).toBe(true);
    expect(existsSync(result.previous)).toBe(true);
    expect(taskIdsIn(result.previous).has(lateId)).toBe(true);

    const verify = await runCliHere(env(), ['verify', '--org', org.slug, '--json']);
    expect(verify.code).toBe(0);
    const restored = taskIdsIn(join(dir, 'live.db'));
    expect(restored.has(lateId)).toBe(false);
    expect(ackedBefore.filter((id) => !restored.has(id))).toEqual([]);
    const [port2] = await freePorts(1);
    serve = spawnServe(2, port2 as number, env());
    await waitHealthy(serve);
    const snap = await fetch(`${serve.url}/api/v1/snapshot`, { headers: { authorization: `Bearer ${org.keys.agent}` } });
    expect(snap.status).toBe(200);
    writeFileSync(join(dir, 'done'), 'ok');
  }, 90_000);
});
