/**
 * Test harness: a real server on a real port over a real database, for each engine in the
 * environment, so that every storage and HTTP test runs on both engines
 * (docs/architecture.md, Two engines, one codebase). SQLite always; PostgreSQL when
 * TEST_DATABASE_URL is set. A test server gets a copy of a migrated template
 * (openMigratedTestDatabase); a database a test opens itself is new, in a schema of its own.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkEvent, firstField, methods, reads } from '@finance-desk/protocol';
import pg from 'pg';
import type { z } from 'zod';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { Config } from '../src/config.js';
import { eventsAfter } from '../src/ledger/read.js';
import { verifyStoredChain } from '../src/ledger/verify.js';
import { testCatalogue } from './test-events.js';
import { createOrg, type CreatedOrg } from '../src/org/orgs.js';
import { startServer, type RunningServer } from '../src/server.js';
import { PostgresDatabase } from '../src/storage/postgres.js';
import { SqliteDatabase } from '../src/storage/sqlite.js';
import type { Database } from '../src/storage/types.js';
import { migrations } from '../src/schema.js';
import { pgAdmin, pgUrlFor } from './db-templates.js';

export type Engine = 'sqlite' | 'postgres';

const pgUrl = process.env.TEST_DATABASE_URL;

export const engines: readonly Engine[] = pgUrl ? ['sqlite', 'postgres'] : ['sqlite'];

if (!pgUrl) {
  console.warn('[finance-desk tests] PostgreSQL suite SKIPPED: TEST_DATABASE_URL is not set.');
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestServer {
  readonly engine: Engine;
  readonly url: string;
  readonly db: Database;
  readonly server: RunningServer;
  /** Another connection to the same storage, as another process would open it (PostgreSQL: a pool of `poolSize`); the caller closes it. */
  another(poolSize?: number): Database;
  /** PostgreSQL: the URL of the server's database (its tables are in the connection's current_schema()). */
  readonly pgUrl: string | undefined;
  /**
   * The server's database as a DATABASE_URL the CLI opens (a SQLite file, or a PostgreSQL database
   * of its own); undefined for a PostgreSQL schema, which a URL cannot name.
   */
  readonly databaseUrl: string | undefined;
  org(name?: string, opts?: { decisionRights?: boolean; timeZone?: string }): Promise<CreatedOrg>;
  post(key: string | null, method: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  get(key: string | null, path: string): Promise<Reply>;
  raw(path: string, init: RequestInit): Promise<Reply>;
  /** Verify every organisation's chain; throws naming the first break. */
  verifyAll(): Promise<void>;
  /** Check every event of the test's organisations against the event catalogue; throws naming the first misfit. */
  checkEvents(): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;

export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter}`;
}

export function openTestDatabase(
  engine: Engine,
): Promise<{ db: Database; drop: () => Promise<void>; another: (poolSize?: number) => Database; pgUrl?: string; databaseUrl?: string }> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'fd-test-'));
    const path = join(dir, 'fd.db');
    const db = new SqliteDatabase({ migrations, path });
    return Promise.resolve({
      db,
      databaseUrl: `sqlite:${path}`,
      another: () => new SqliteDatabase({ migrations, path }),
      drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    });
  }
  if (!pgUrl) return Promise.reject(new Error('TEST_DATABASE_URL is not set'));
  const url = pgUrl;
  const schema = uniqueName('t').toLowerCase();
  const db = new PostgresDatabase({ migrations, url, schema });
  return Promise.resolve({
    db,
    pgUrl: url,
    another: (poolSize?: number) => new PostgresDatabase({ migrations, url, schema, poolSize }),
    drop: async () => {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  });
}

/**
 * A database of its own, already migrated: a copy of this run's template (db-templates.ts), so no
 * test server migrates one from nothing. A PostgreSQL copy is a database of its own rather than a
 * schema. Without templates (a run outside vitest.config.ts), a new database as openTestDatabase.
 */
export async function openMigratedTestDatabase(
  engine: Engine,
): Promise<{ db: Database; drop: () => Promise<void>; another: (poolSize?: number) => Database; pgUrl?: string; databaseUrl?: string }> {
  const templates = inject('dbTemplates');
  if (engine === 'sqlite' && templates) {
    const dir = mkdtempSync(join(tmpdir(), 'fd-test-'));
    const path = join(dir, 'fd.db');
    copyFileSync(templates.sqlite, path);
    const db = new SqliteDatabase({ migrations, path });
    return {
      db,
      databaseUrl: `sqlite:${path}`,
      another: () => new SqliteDatabase({ migrations, path }),
      drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    };
  }
  if (engine === 'postgres' && pgUrl && templates?.postgres) {
    const name = uniqueName('t').toLowerCase();
    const template = templates.postgres;
    await pgAdmin(pgUrl, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
    const url = pgUrlFor(pgUrl, name);
    const db = new PostgresDatabase({ migrations, url });
    // The template passed the schema check when it was built, and a copy is the same catalogue;
    // the check here would build its reference again for every new database URL.
    const migrate = db.migrate.bind(db);
    db.migrate = (options) => migrate({ ...options, checkSchema: false });
    return {
      db,
      pgUrl: url,
      databaseUrl: url,
      another: (poolSize?: number) => new PostgresDatabase({ migrations, url, poolSize }),
      drop: () => pgAdmin(pgUrl, async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
    };
  }
  return openTestDatabase(engine);
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    databaseUrl: 'unused',
    port: 0,
    host: '127.0.0.1',
    ratePerSecond: 10_000,
    rateBurst: 10_000,
    redisUrl: null,
    sqliteSynchronous: 'NORMAL',
    databasePoolSize: 10,
    logLevel: 'silent',
    benchRoute: false,
    smtpUrl: null,
    emailOutboxDir: join(tmpdir(), `fd-outbox-${process.pid}`),
    emailFrom: 'Finance Desk Tests <tests@finance-desk.invalid>',
    paymentsOutboxDir: join(tmpdir(), `fd-payments-${process.pid}`),
    lodgementOutboxDir: join(tmpdir(), `fd-lodgements-${process.pid}`),
    cookieSecure: false,
    // Tests run the weekly digest's sweep themselves (runDigests), on their own clock.
    digestSweepMs: 0,
    ...overrides,
  };
}

async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // leave as text; tests that expect JSON will fail on it
  }
  return { status: res.status, headers: res.headers, body };
}

/**
 * `logLines`: the server logs (at the config's logLevel, which testConfig sets to silent) and
 * every line it writes is pushed there, for tests that check what reaches a log.
 */
export async function startTestServer(
  engine: Engine,
  overrides: Partial<Config> = {},
  options: { logLines?: string[] } = {},
): Promise<TestServer> {
  const { db, drop, another, pgUrl: databasePgUrl, databaseUrl } = await openMigratedTestDatabase(engine);
  const lines = options.logLines;
  const logger = lines ? { stream: { write: (line: string) => void lines.push(line) } } : false;
  const server = await startServer(testConfig(overrides), { db, logger });
  const orgIds: string[] = [];
  const auth = (key: string | null): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});
  const ts: TestServer = {
    engine,
    url: server.url,
    db,
    server,
    another,
    pgUrl: databasePgUrl,
    databaseUrl,
    async org(name = uniqueName('Org'), opts = {}) {
      const created = await createOrg(db, {
        name,
        slug: uniqueName('o').toLowerCase().replace(/_/g, '-'),
        decisionRights: opts.decisionRights ?? true,
        ...(opts.timeZone !== undefined ? { timeZone: opts.timeZone } : {}),
      });
      orgIds.push(created.orgId);
      return created;
    },
    async post(key, method, body = {}, headers = {}) {
      const res = await fetch(`${server.url}/api/v1/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth(key), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return checkedResult(method, await toReply(res));
    },
    async get(key, path) {
      return checkedRead(path, await toReply(await fetch(`${server.url}/api/v1/${path}`, { headers: auth(key) })));
    },
    async raw(path, init) {
      return toReply(await fetch(`${server.url}${path}`, init));
    },
    async verifyAll() {
      for (const orgId of orgIds) {
        // One snapshot (Database.read): head and pages read apart would see a background write
        // (an STP lodgement confirmed by the outbox) land between them and call it a break.
        const verdict = await verifyStoredChain(db, orgId);
        if (!verdict.ok)
          throw new Error(`chain of ${orgId} broken at seq ${verdict.seq}: ${verdict.reason}\n${await rowsAround(db, orgId, verdict.seq)}`);
      }
    },
    async checkEvents() {
      for (const orgId of orgIds) await checkOrgEvents(db, orgId);
    },
    async close() {
      try {
        // The server first: closing drains its outbox, so background writes have landed.
        await server.close();
        await ts.verifyAll();
        await ts.checkEvents();
      } finally {
        await db.close();
        await drop();
      }
    },
  };
  return ts;
}

const EVENT_PAGE_ROWS = 500;

/** The stored rows next to a chain break, for the failure message. */
async function rowsAround(db: Database, orgId: string, seq: number): Promise<string> {
  const rows = await db.reader.all<{ seq: number; kind: string; actor: string; prev_hash: string; row_hash: string }>(
    'SELECT seq, kind, actor, prev_hash, row_hash FROM events WHERE org_id = ? AND seq BETWEEN ? AND ? ORDER BY seq',
    [orgId, seq - 2, seq + 2],
  );
  return rows
    .map((r) => `  ${r.seq} ${r.kind} by ${r.actor || 'system'}: prev ${r.prev_hash.slice(0, 12)} row ${r.row_hash.slice(0, 12)}`)
    .join('\n');
}

/**
 * Every event a test's organisation holds is checked against the event catalogue
 * (protocol events.ts): its kind is declared, its family is the kind's, and its stored
 * payload parses with the kind's strict schema. A handler that writes a payload its declaration
 * does not describe fails the test that caused it.
 */
export async function checkOrgEvents(db: Database, orgId: string): Promise<void> {
  let cursor = 0;
  for (;;) {
    const page = await eventsAfter(db.reader, orgId, cursor, EVENT_PAGE_ROWS);
    for (const row of page) {
      const problems = checkEvent({ family: row.family, kind: row.kind, payload: JSON.parse(row.payload) as unknown }, testCatalogue);
      if (problems.length > 0) {
        throw new Error(`event seq ${row.seq} (${row.kind}) of ${orgId} does not match the event catalogue: ${problems.join('; ')}`);
      }
    }
    if (page.length < EVENT_PAGE_ROWS) return;
    cursor = Number(page[page.length - 1]?.seq);
  }
}

const METHOD_SPECS = new Map(methods.map((m) => [m.name, m]));
const READ_SPECS = new Map<string, (typeof reads)[number]>(reads.map((r) => [r.name, r]));

/** The first few paths where `value` departs from `schema`, or null when it conforms. */
function mismatches(schema: z.ZodType, value: unknown): string | null {
  const parsed = schema.safeParse(value);
  if (parsed.success) return null;
  return parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.')}: ${i.message}`)
    .join('; ');
}

/**
 * Every 200 payload of a GET read a test receives is checked against the read's declared result,
 * found by the path before `?`: a handler (or a RawJson text) that answers
 * something its declaration does not promise fails the test that saw it. Other paths and other
 * statuses pass untouched.
 */
export function checkedRead(path: string, reply: Reply): Reply {
  const spec = READ_SPECS.get(path.split('?')[0] ?? '');
  if (!spec || reply.status !== 200) return reply;
  const problems = mismatches(spec.result, reply.body);
  if (problems !== null) throw new Error(`${spec.name}: payload does not match its declared result schema: ${problems}`);
  return reply;
}

/**
 * Every `ok` result a test receives is checked against its method's declared result schema:
 * a handler that returns something its declaration does not promise fails the
 * test that saw it. Hold frames (an unproven signature act's answer) are the hold shape, not the method's result.
 */
export function checkedResult(method: string, reply: Reply): Reply {
  const spec = METHOD_SPECS.get(method);
  const body = reply.body as { ok?: unknown; result?: { status?: unknown } } | null;
  if (!spec || reply.status !== 200 || body?.ok !== true || body.result?.status === 'approval_required') return reply;
  const problems = mismatches(spec.result, body.result);
  if (problems !== null) throw new Error(`${method}: result does not match its declared result schema: ${problems}`);
  return reply;
}

/**
 * A DATABASE_URL of a brand-new database for tests that run the CLI or other processes:
 * a temp SQLite file, or a fresh PostgreSQL database (dropped by `drop`).
 */
export async function freshDatabaseUrl(engine: Engine): Promise<{ url: string; drop: () => Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'fd-cli-'));
    return { url: `sqlite:${join(dir, 'fd.db')}`, drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) };
  }
  if (!pgUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = uniqueName('fd').toLowerCase();
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * The error frame a refusal is expected to be: a BAD_REQUEST names its first
 * field in `error.field` when its message starts with one (protocol firstField); tests that
 * check a message check the frame's field with it.
 */
export function refusal(code: string, message: string) {
  const field = code === 'BAD_REQUEST' ? firstField(message) : undefined;
  return { ok: false, error: { code, message, ...(field !== undefined ? { field } : {}) } };
}

/**
 * A migrated SQLite database of its own for the describe block that calls this (query-plan
 * tests): opened before its tests, closed and removed after them. Returns a getter.
 */
export function migratedSqliteForSuite(): () => SqliteDatabase {
  let db: SqliteDatabase | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await openMigratedTestDatabase('sqlite');
    db = opened.db as SqliteDatabase;
    drop = opened.drop;
    await db.migrate();
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });
  return () => {
    if (!db) throw new Error('the database opens in beforeAll');
    return db;
  };
}

const CLI_BIN = fileURLToPath(new URL('../bin/finance-desk.js', import.meta.url));

/** Run the operator CLI (`finance-desk …`) against a database, as an operator would. */
export function runCli(databaseUrl: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI_BIN, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, SQLITE_SYNCHRONOUS: 'NORMAL' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/**
 * Run an operator CLI command in this process (cli/main.ts with these settings, its output
 * captured), for tests of what a command does; runCli spawns a process, for tests of the process.
 */
export async function runCliInProcess(databaseUrl: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return runCliHere({ DATABASE_URL: databaseUrl, SQLITE_SYNCHRONOUS: 'NORMAL' }, args);
}

/**
 * runCli's counterpart in this process: the same settings over this process's environment, the
 * same result. A process per command costs one to three seconds of start-up; keep runCli for
 * what only a separate process shows (its exit, its own connection under a live server).
 */
export async function runCliHere(env: NodeJS.ProcessEnv, args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const { main } = await import('../src/cli/main.js');
  let out = '';
  let err = '';
  const code = await main(args, {
    env: { ...process.env, ...env },
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
  });
  return { code, out, err };
}

/**
 * An organisation's agent key calling `server()`'s API (a getter: the server starts in beforeAll):
 * `post` answers the reply, `ok` expects 200 and answers the result; `seq` is the organisation's
 * chain head and `lastEvent` its newest event, as its observer key reads them.
 */
export function agentCalls(server: () => TestServer) {
  const post = (o: CreatedOrg, method: string, params: Record<string, unknown>, headers?: Record<string, string>) =>
    server().post(o.keys.agent, method, params, headers);
  const ok = async (o: CreatedOrg, method: string, params: Record<string, unknown>, headers?: Record<string, string>) => {
    const r = await post(o, method, params, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const seq = async (o: CreatedOrg) => (await server().get(o.keys.observer, 'snapshot')).body.head.seq as number;
  const lastEvent = async (o: CreatedOrg) => {
    const s = await seq(o);
    return (await server().get(o.keys.observer, `events?cursor=${s - 1}`)).body.events[0];
  };
  return { post, ok, seq, lastEvent };
}
