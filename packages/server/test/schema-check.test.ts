/**
 * A database is used only if its schema is exactly what the migrations create (storage/
 * schema-check.ts). A backup with an added `AFTER INSERT ON approvals … SET status = 'approved'`
 * trigger verifies chain by chain, so restore and start compare the schema itself and refuse
 * naming the object: an added trigger, view, table or index, a changed or dropped definition.
 */
import BetterSqlite3 from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg } from '../src/org/orgs.js';
import { startServer } from '../src/server.js';
import { checkDatabaseFile } from '../src/storage/backup.js';
import { migrations } from '../src/schema.js';
import { PostgresDatabase } from '../src/storage/postgres.js';
import { SqliteDatabase } from '../src/storage/sqlite.js';
import type { Database } from '../src/storage/types.js';
import { engines, openTestDatabase, runCliHere, testConfig, type Engine } from './harness.js';
import { createScratchDatabase, freePorts, runCli, spawnServe, stopServe } from './multiprocess.js';

const exec = promisify(execFile);

const NOT_OURS = "is not created by Finance Desk's migrations";

/** A change to a migrated schema, how to undo it, and what a refusal must say. */
interface Tamper {
  readonly what: string;
  readonly engines: readonly Engine[];
  readonly apply: Record<Engine, readonly string[]>;
  readonly undo: Record<Engine, readonly string[]>;
  readonly names: string;
}

const both = (sql: readonly string[]): Record<Engine, readonly string[]> => ({ sqlite: sql, postgres: sql });

const TAMPERS: readonly Tamper[] = [
  {
    what: 'a trigger that approves every request',
    engines: ['sqlite', 'postgres'],
    apply: {
      sqlite: [
        `CREATE TRIGGER approve_all AFTER INSERT ON approvals
         BEGIN UPDATE approvals SET status = 'approved' WHERE org_id = NEW.org_id AND id = NEW.id; END`,
      ],
      postgres: [
        `CREATE FUNCTION approve_all() RETURNS trigger AS $$ BEGIN NEW.status := 'approved'; RETURN NEW; END $$ LANGUAGE plpgsql`,
        'CREATE TRIGGER approve_all BEFORE INSERT ON approvals FOR EACH ROW EXECUTE FUNCTION approve_all()',
      ],
    },
    undo: { sqlite: ['DROP TRIGGER approve_all'], postgres: ['DROP TRIGGER approve_all ON approvals', 'DROP FUNCTION approve_all()'] },
    names: `trigger approve_all on approvals ${NOT_OURS}`,
  },
  {
    what: 'an extra view',
    engines: ['sqlite', 'postgres'],
    apply: both(['CREATE VIEW pending_all AS SELECT org_id, id FROM approvals']),
    undo: both(['DROP VIEW pending_all']),
    names: `view pending_all ${NOT_OURS}`,
  },
  {
    what: 'an extra table',
    engines: ['sqlite', 'postgres'],
    apply: both(['CREATE TABLE shadow_keys (id TEXT PRIMARY KEY)']),
    undo: both(['DROP TABLE shadow_keys']),
    names: `table shadow_keys ${NOT_OURS}`,
  },
  {
    what: 'an extra index',
    engines: ['sqlite', 'postgres'],
    apply: both(['CREATE INDEX approvals_status ON approvals (status)']),
    undo: both(['DROP INDEX approvals_status']),
    names: `index approvals_status on approvals ${NOT_OURS}`,
  },
  {
    what: 'a dropped index',
    engines: ['sqlite', 'postgres'],
    apply: both(['DROP INDEX approvals_binding']),
    undo: both(['CREATE INDEX approvals_binding ON approvals (org_id, action_class, subject_id, payload_hash)']),
    names: "index approvals_binding on approvals, which Finance Desk's migrations create, is missing",
  },
  {
    what: 'an index of the same name on other columns',
    engines: ['sqlite', 'postgres'],
    apply: both(['DROP INDEX approvals_binding', 'CREATE INDEX approvals_binding ON approvals (org_id)']),
    undo: both([
      'DROP INDEX approvals_binding',
      'CREATE INDEX approvals_binding ON approvals (org_id, action_class, subject_id, payload_hash)',
    ]),
    names: "index approvals_binding on approvals is not as Finance Desk's migrations create it",
  },
  {
    // SQLite cannot change a default in place; the restore tests below change one in a file.
    what: 'a changed column default',
    engines: ['postgres'],
    apply: both(["ALTER TABLE approvals ALTER COLUMN status SET DEFAULT 'approved'"]),
    undo: both(['ALTER TABLE approvals ALTER COLUMN status DROP DEFAULT']),
    names: "column status on approvals is not as Finance Desk's migrations create it",
  },
];

async function run(db: Database, statements: readonly string[]): Promise<void> {
  for (const sql of statements) await db.write(async (tx) => tx.run(sql));
}

describe.each(engines)('the schema check at start (%s)', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  let another: () => Database;
  beforeAll(async () => {
    ({ db, drop, another } = await openTestDatabase(engine));
    await db.migrate();
  });
  afterAll(async () => {
    await db.close();
    await drop();
  });

  for (const tamper of TAMPERS.filter((t) => t.engines.includes(engine))) {
    it(`refuses to start on a database with ${tamper.what}, naming it`, async () => {
      await run(db, tamper.apply[engine]);
      try {
        const where = engine === 'sqlite' ? 'the SQLite file ' : 'PostgreSQL schema ';
        // One start, both parts of its refusal: where, and what.
        const refusal = startServer(testConfig(), { db, logger: false });
        await expect(refusal).rejects.toThrow(`refusing to start on ${where}`);
        await expect(refusal).rejects.toThrow(tamper.names);
      } finally {
        await run(db, tamper.undo[engine]);
      }
    });
  }

  it('starts on the same database once it is exactly what the migrations create, and more than one start may race', async () => {
    const server = await startServer(testConfig(), { db, logger: false });
    await server.close();
    // Several processes starting on one existing database at once: each checks the migrated schema.
    const others = [another(), another()];
    try {
      await Promise.all(others.map((o) => o.migrate({ checkSchema: true })));
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });
});

describe.each(engines)('the schema check on an upgraded or new database (%s)', (engine) => {
  // Every SQLite upgrade path (each a few milliseconds); a few on PostgreSQL, where each costs a schema.
  // From the second on: the installation's signing key is seeded into a table of migration 2.
  const ids = migrations.map((m) => m.id).slice(1, -1);
  const through = engine === 'sqlite' ? ids : [ids[0] as number, ids[Math.floor(ids.length / 2)] as number, ids.at(-1) as number];

  it('an installation migrated by an older build, then started by this one, passes', async () => {
    for (const id of through) {
      const { db, drop } = await openTestDatabase(engine);
      try {
        await db.migrate({ throughId: id });
        await expect(db.migrate({ checkSchema: true }), `upgraded from migration ${id}`).resolves.toBeUndefined();
      } finally {
        await db.close();
        await drop();
      }
    }
  }, 120_000);

  it('two starts racing on a new database both pass (one creates it, the other checks it)', async () => {
    const { db, drop, another } = await openTestDatabase(engine);
    const second = another();
    try {
      await Promise.all([db.migrate({ checkSchema: true }), second.migrate({ checkSchema: true })]);
    } finally {
      await second.close();
      await db.close();
      await drop();
    }
  });
});

describe.runIf(engines.includes('postgres'))('the PostgreSQL check is of its own schema', () => {
  it('a trigger on a table of the same name in another schema does not refuse this one', async () => {
    const [a, b] = [await openTestDatabase('postgres'), await openTestDatabase('postgres')];
    try {
      await a.db.migrate();
      await b.db.migrate();
      await run(b.db, TAMPERS[0]?.apply.postgres ?? []);
      await expect(a.db.migrate({ checkSchema: true })).resolves.toBeUndefined();
      await expect(b.db.migrate({ checkSchema: true })).rejects.toThrow(
        `: function approve_all() ${NOT_OURS}; trigger approve_all on approvals ${NOT_OURS}`,
      );
    } finally {
      for (const o of [a, b]) {
        await o.db.close();
        await o.drop();
      }
    }
  });
});

describe.runIf(engines.includes('postgres'))('a PostgreSQL database restored with pg_restore', () => {
  it('an honest dump restores and starts; the same database with a trigger added is refused', async () => {
    const admin = process.env.TEST_DATABASE_URL as string;
    const [source, target] = [await createScratchDatabase(admin), await createScratchDatabase(admin)];
    const dump = join(mkdtempSync(join(tmpdir(), 'fd-pgdump-')), 'fd.dump');
    try {
      const db = new PostgresDatabase({ migrations, url: source.url });
      await db.migrate();
      await createOrg(db, { name: 'Dumped Pty Ltd', slug: 'dumped', decisionRights: true });
      await db.close();
      await exec('pg_dump', ['--format=custom', `--file=${dump}`, source.url]);
      await exec('pg_restore', ['--no-owner', `--dbname=${target.url}`, dump]);
      const server = await startServer(testConfig({ databaseUrl: target.url }), { logger: false });
      await server.close();
      const restored = new PostgresDatabase({ migrations, url: target.url });
      try {
        await run(restored, TAMPERS[0]?.apply.postgres ?? []);
      } finally {
        await restored.close();
      }
      await expect(startServer(testConfig({ databaseUrl: target.url }), { logger: false })).rejects.toThrow(
        `refusing to start on PostgreSQL schema public: function approve_all() ${NOT_OURS}; trigger approve_all on approvals ${NOT_OURS}`,
      );
    } finally {
      rmSync(dirname(dump), { recursive: true, force: true });
      await source.drop();
      await target.drop();
    }
  }, 120_000);
});

describe('restore and serve of a crafted SQLite backup', () => {
  let dir: string;
  const live = () => join(dir, 'live.db');
  const honest = () => join(dir, 'honest.db');
  const env = () => ({
    DATABASE_URL: `sqlite:${live()}`,
    SQLITE_SYNCHRONOUS: 'NORMAL',
    LOG_LEVEL: 'warn',
    EMAIL_OUTBOX_DIR: join(dir, 'out'),
  });
  let agentKey: string;

  // The operator's command in this process (a process per command cost about two seconds of
  // start-up); the honest restore and serve below still run as processes.
  const cliHere = (args: readonly string[]) => runCliHere(env(), args);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-schema-'));
    const created = await cliHere(['org', 'create', '--name', 'Crafted Backup Pty Ltd', '--json']);
    expect(created.code, created.err).toBe(0);
    agentKey = (JSON.parse(created.out) as { keys: { agent: string } }).keys.agent;
    const backup = await cliHere(['backup', '--to', honest()]);
    expect(backup.code, backup.err).toBe(0);
  }, 60_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the honest backup with `sql` run on it (raw: outside any check, as an attacker would). */
  const crafted = (name: string, sql: readonly string[], unsafe = false): string => {
    const file = join(dir, `${name}.db`);
    copyFileSync(honest(), file);
    const raw = new BetterSqlite3(file);
    try {
      if (unsafe) raw.unsafeMode(true);
      for (const s of sql) raw.exec(s);
    } finally {
      raw.close();
    }
    return file;
  };

  const FILE_CASES: readonly { what: string; sql: readonly string[]; unsafe?: boolean; names: string }[] = [
    ...TAMPERS.filter((t) => t.engines.includes('sqlite')).map((t) => ({ what: t.what, sql: t.apply.sqlite, names: t.names })),
    {
      what: 'a column default changed in the stored definition',
      sql: [
        'PRAGMA writable_schema = ON',
        "UPDATE sqlite_master SET sql = replace(sql, 'status TEXT NOT NULL,', 'status TEXT NOT NULL DEFAULT ''approved'',') WHERE name = 'approvals'",
        'PRAGMA writable_schema = OFF',
      ],
      unsafe: true,
      names:
        "table approvals is not as Finance Desk's migrations create it: it has status TEXT NOT NULL DEFAULT 'approved' where the migrations have status TEXT NOT NULL",
    },
  ];

  for (const [i, c] of FILE_CASES.entries()) {
    it(`restore refuses a backup with ${c.what}, naming it, and leaves the database as it was`, async () => {
      const file = crafted(`crafted-${i}`, c.sql, c.unsafe);
      const before = readFileSync(live());
      const r = await cliHere(['restore', '--from', file]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`finance-desk: restore refused: ${c.names}`);
      expect(r.err).toContain('nothing was restored');
      expect(readFileSync(live()).equals(before)).toBe(true);
      expect(readdirSync(dir).filter((f) => f.includes('before-restore'))).toEqual([]);
    }, 60_000);
  }

  it('checkDatabaseFile reports the schema of a crafted file, and none for the honest one', async () => {
    const file = crafted('crafted-check', TAMPERS[0]?.apply.sqlite ?? []);
    const check = await checkDatabaseFile(file, migrations);
    expect(check.ok).toBe(false);
    expect(check.schema).toEqual([`trigger approve_all on approvals ${NOT_OURS}`]);
    // Every chain still verifies: the schema is what gives it away.
    expect(check.organisations.every((o) => o.ok)).toBe(true);
    const clean = await checkDatabaseFile(honest(), migrations);
    expect(clean.schema).toEqual([]);
    expect(clean.ok).toBe(true);
  });

  it('serve refuses to start on a crafted file, naming the trigger, and leaves its schema as it was', async () => {
    const file = crafted('crafted-serve', TAMPERS[0]?.apply.sqlite ?? []);
    const [port] = await freePorts(1);
    const serve = spawnServe(0, port as number, { ...env(), DATABASE_URL: `sqlite:${file}` });
    try {
      const deadline = Date.now() + 30_000;
      while (!serve.exited() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(serve.exited()?.code).toBe(2);
      expect(serve.output()).toContain(
        `finance-desk: refusing to start on the SQLite file ${file}: trigger approve_all on approvals ${NOT_OURS}`,
      );
    } finally {
      await stopServe(serve);
    }
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      expect(raw.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all()).toEqual([{ name: 'approve_all' }]);
    } finally {
      raw.close();
    }
  }, 60_000);

  it('an honest backup still restores, and the server starts on it and serves', async () => {
    const r = await runCli(env(), ['restore', '--from', honest(), '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.out) as { ok: boolean; schema: string[]; previous: string };
    expect(result.ok).toBe(true);
    expect(result.schema).toEqual([]);
    expect(existsSync(result.previous)).toBe(true);
    const server = await startServer(testConfig({ databaseUrl: `sqlite:${live()}` }), { logger: false });
    try {
      const snap = await fetch(`${server.url}/api/v1/snapshot`, { headers: { authorization: `Bearer ${agentKey}` } });
      expect(snap.status).toBe(200);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a backup written before the latest migrations restores, and its start completes it to exactly their schema', async () => {
    const older = join(dir, 'older.db');
    const db = new SqliteDatabase({ migrations, path: older, synchronous: 'NORMAL' });
    await db.migrate({ throughId: migrations[Math.floor(migrations.length / 2)]?.id ?? 1 });
    await db.close();
    const check = await checkDatabaseFile(older, migrations);
    expect(check.schema).toEqual([]);
    expect(check.migrations.applied).toBeLessThan(check.migrations.known);
    const again = new SqliteDatabase({ migrations, path: older, synchronous: 'NORMAL' });
    try {
      await expect(again.migrate({ checkSchema: true })).resolves.toBeUndefined();
    } finally {
      await again.close();
    }
  });
});
