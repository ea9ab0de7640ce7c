/**
 * Liveness and readiness, every setting validated at start with a message
 * naming it, and an orderly shutdown under load (late arrivals get the error frame, acknowledged
 * writes are all on the ledger, the process exits by itself within its bound).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { SHUTDOWN_GRACE_MS } from '../src/server.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { heldAndRequested, sentInvoice } from './signature-helpers.js';
import { freePorts, runCli, spawnServe, stopServe, waitHealthy, type ServeProcess } from './multiprocess.js';

describe('configuration', () => {
  const problems = (env: NodeJS.ProcessEnv): string[] => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return [...error.problems];
      throw error;
    }
    return [];
  };

  it('takes the documented defaults from an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      logLevel: 'info',
      sqliteSynchronous: 'FULL',
      redisUrl: null,
      ratePerSecond: 50,
      rateBurst: 100,
    });
    expect(c.ai?.provider).toBe('grounded');
  });

  it('names every bad setting, what it must be and what it got', () => {
    expect(problems({ PORT: '99999', LOG_LEVEL: 'verbose' })).toEqual([
      'PORT: must be an integer from 0 to 65535, got "99999"',
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ]);
    expect(problems({ RATE_LIMIT_BURST: '0' })).toEqual(['RATE_LIMIT_BURST: must be an integer from 1 to 1000000, got "0"']);
    expect(problems({ PORT: '80.5' })[0]).toMatch(/^PORT: /);
    expect(problems({ SQLITE_SYNCHRONOUS: 'OFF' })).toEqual(['SQLITE_SYNCHRONOUS: must be one of FULL, NORMAL, got "OFF"']);
    expect(problems({ DATABASE_POOL_SIZE: '0' })).toEqual(['DATABASE_POOL_SIZE: must be an integer from 1 to 200, got "0"']);
    expect(problems({ DATABASE_POOL_SIZE: '24' })).toEqual([]);
    expect(problems({ COOKIE_SECURE: 'yes' })).toEqual(['COOKIE_SECURE: must be 1 or 0, got "yes"']);
    expect(problems({ AI_PROVIDER: 'openai' })).toEqual([
      'AI_BASE_URL: is required when AI_PROVIDER=openai',
      'AI_MODEL: is required when AI_PROVIDER=openai',
      'AI_API_KEY: is required when AI_PROVIDER=openai',
    ]);
  });

  it('never echoes a secret it refuses', () => {
    const p = problems({ METRICS_TOKEN: 'short-secret', CHECKPOINT_SIGNING_KEY: 'not-a-seed-secret' });
    expect(p).toEqual([
      'METRICS_TOKEN: must be 24 to 256 printable ASCII characters with no spaces (a long random token)',
      'CHECKPOINT_SIGNING_KEY: must be the base64 of a 32-byte Ed25519 seed (finance-desk checkpoint keygen)',
    ]);
    expect(p.join(' ')).not.toMatch(/short-secret|not-a-seed-secret/);
  });

  it('never echoes a URL, which may carry a password', () => {
    const p = problems({ DATABASE_URL: 'mysql://root:hunter2@db/x', REDIS_URL: 'http://:s3cret@r' });
    expect(p).toEqual(['DATABASE_URL: must be a sqlite: or postgres: or postgresql: URL', 'REDIS_URL: must be a redis: or rediss: URL']);
    expect(p.join(' ')).not.toMatch(/hunter2|s3cret/);
  });

  it('serve exits 2 naming the setting; an unreachable database names DATABASE_URL without its password', async () => {
    const bad = await runCli({ PORT: '99999', LOG_LEVEL: 'verbose' }, ['serve'], 20_000);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('PORT: must be an integer from 0 to 65535');
    expect(bad.err).toContain('LOG_LEVEL: must be one of');
    const [port] = await freePorts(1);
    const down = await runCli({ DATABASE_URL: `postgres://postgres:pw123456@127.0.0.1:${port}/test` }, ['serve'], 20_000);
    expect(down.code).toBe(2);
    expect(down.err).toContain(`DATABASE_URL: cannot connect to PostgreSQL at 127.0.0.1:${port}/test`);
    expect(down.err).not.toContain('pw123456');
  });
});

describe.each(engines)('health and readiness on %s', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('/healthz answers without a credential', async () => {
    const r = await t.raw('/healthz', {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true });
  });

  it('/readyz checks the database and the migrations, naming no host or secret', async () => {
    const r = await t.raw('/readyz', {});
    expect(r.status).toBe(200);
    const body = r.body as { ok: boolean; checks: Record<string, { ok: boolean; detail?: string }> };
    expect(body.ok).toBe(true);
    expect(body.checks.database).toMatchObject({ ok: true, detail: engine });
    expect(body.checks.migrations?.ok).toBe(true);
    expect(body.checks.redis).toBeUndefined();
  });

  it('/readyz is 503 while a migration this build knows is not applied', async () => {
    const row = await t.db.reader.get<{ id: number; name: string; applied_at: string }>(
      'SELECT id, name, applied_at FROM schema_migrations ORDER BY id DESC LIMIT 1',
    );
    if (!row) throw new Error('no migrations recorded');
    await t.db.write(async (tx) => void (await tx.run('DELETE FROM schema_migrations WHERE id = ?', [row.id])));
    try {
      const r = await t.raw('/readyz', {});
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ ok: false, checks: { migrations: { ok: false, detail: '1 migration(s) not applied' } } });
    } finally {
      await t.db.write(
        async (tx) =>
          void (await tx.run('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)', [row.id, row.name, row.applied_at])),
      );
    }
    expect((await t.raw('/readyz', {})).status).toBe(200);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('readiness with Redis', () => {
  it('/readyz includes Redis when REDIS_URL is configured', async () => {
    const t = await startTestServer('sqlite', { redisUrl: process.env.TEST_REDIS_URL ?? null });
    try {
      const r = await t.raw('/readyz', {});
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ok: true, checks: { redis: { ok: true } } });
    } finally {
      await t.close();
    }
  });
});

describe('a request that arrives while the server closes', () => {
  /** A raw connection: what it received, and a promise of its end. */
  async function rawConnection(port: number) {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return { socket, ended, received: () => received };
  }
  const bodyOf = (response: string): unknown => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

  it('the in-flight request completes; one still arriving gets 503, the error frame, Retry-After, and its connection closed', async () => {
    const t = await startTestServer('sqlite');
    const org = await t.org();
    const port = Number(new URL(t.url).port);
    const body = JSON.stringify({ title: 'in flight while closing' });
    // A: headers and half the body, so it is in flight (past its gate) when close begins.
    const a = await rawConnection(port);
    a.socket.write(
      `POST /api/v1/board.createTask HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${org.keys.agent}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    // B: a request still arriving (its headers unfinished) when close begins.
    const b = await rawConnection(port);
    b.socket.write('GET /api/v1/snapshot HTTP/1.1\r\nHost: t\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const closing = t.server.app.close();
    await new Promise((r) => setTimeout(r, 100));
    a.socket.write(body.slice(10));
    b.socket.write(`Authorization: Bearer ${org.keys.agent}\r\n\r\n`);
    await Promise.all([a.ended, b.ended]);
    await closing;

    expect(a.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(a.received().toLowerCase()).toContain('connection: close');
    expect(bodyOf(a.received())).toMatchObject({ ok: true, result: { title: 'in flight while closing' } });
    expect(b.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(b.received().toLowerCase()).toContain('retry-after: 1');
    expect(b.received().toLowerCase()).toContain('connection: close');
    expect(bodyOf(b.received())).toEqual({
      ok: false,
      error: { code: 'INTERNAL', message: 'server is shutting down; retry in 1 second(s)' },
    });
    await t.close();
  });
});

describe('a long-polling approval.wait', () => {
  it('ends when its caller hangs up, and answers at once when the server starts to close', async () => {
    const t = await startTestServer('sqlite', { metricsToken: 'metrics-token-0123456789abcdef' });
    const org = await t.org();
    const invoice = await sentInvoice(t, org);
    const { approvalId } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id: invoice, step: 2 });
    const waiters = async () => {
      const text = await (await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789abcdef' } })).text();
      const line = text.split('\n').find((l) => l.startsWith('fd_http_requests_in_flight{route="approval.wait"}'));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    const path = `${t.url}/api/v1/approval.wait?approvalId=${approvalId}&timeoutMs=30000`;
    const headers = { authorization: `Bearer ${org.keys.observer}` };

    // The caller hangs up: the server stops waiting (no waiter left), long before the 30 s timeout.
    const abort = new AbortController();
    const gone = fetch(path, { headers, signal: abort.signal }).catch(() => null);
    for (let i = 0; i < 100 && (await waiters()) === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(await waiters()).toBe(1);
    abort.abort();
    await gone;
    for (let i = 0; i < 100 && (await waiters()) > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(await waiters()).toBe(0);

    // The server starts to close: the waiting caller gets its answer (still pending) at once.
    const started = Date.now();
    const waiting = fetch(path, { headers }).then(async (r) => ({ status: r.status, body: await r.json() }));
    for (let i = 0; i < 100 && (await waiters()) === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    await t.verifyAll();
    const closing = t.server.app.close();
    const answer = await waiting;
    await closing;
    expect(answer).toMatchObject({ status: 200, body: { approvalId, status: 'pending' } });
    expect(Date.now() - started).toBeLessThan(10_000);
    await t.close();
  }, 30_000);
});

describe('npm start', () => {
  it('passes SIGTERM to the server: it shuts down and frees its port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fd-npmstart-'));
    const [port] = await freePorts(1);
    const root = new URL('../../../', import.meta.url).pathname;
    const child = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: `sqlite:${join(dir, 'fd.db')}`,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        EMAIL_OUTBOX_DIR: join(dir, 'out'),
      },
      stdio: 'ignore',
    });
    try {
      let up = false;
      for (let i = 0; i < 300 && !up; i += 1) {
        up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!up) await new Promise((r) => setTimeout(r, 100));
      }
      expect(up).toBe(true);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      await exited;
      // The server itself is gone, not only npm: nothing answers on its port.
      let answered = true;
      for (let i = 0; i < 50 && answered; i += 1) {
        answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          () => true,
          () => false,
        );
        if (answered) await new Promise((r) => setTimeout(r, 100));
      }
      expect(answered).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('SIGTERM under write load', () => {
  let dir: string;
  let serve: ServeProcess | null = null;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fd-sigterm-'));
  });
  afterAll(async () => {
    if (serve) await stopServe(serve);
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes in-flight writes, answers late arrivals with the error frame, exits 0, loses no acknowledged write', async () => {
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'fd.db')}`,
      SQLITE_SYNCHRONOUS: 'NORMAL',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_BURST: '100000',
      RATE_LIMIT_PER_SECOND: '100000',
      EMAIL_OUTBOX_DIR: join(dir, 'out'),
      PAYMENTS_OUTBOX_DIR: join(dir, 'pay'),
      LODGEMENT_OUTBOX_DIR: join(dir, 'lodge'),
    };
    const created = await runCli(env, ['org', 'create', '--name', 'Shutdown Pty Ltd', '--json']);
    expect(created.code).toBe(0);
    const org = JSON.parse(created.out) as { slug: string; keys: { agent: string } };
    const [port] = await freePorts(1);
    serve = spawnServe(0, port as number, env);
    await waitHealthy(serve);
    // Node's fetch keeps connections alive, so requests also arrive on connections the server holds.
    const url = serve.url;
    const results: (
      | { kind: 'ok'; taskId: string }
      | { kind: 'frame'; status: number; code: string; retryAfter: string | null }
      | { kind: 'network' }
      | { kind: 'foreign'; status: number; text: string }
    )[] = [];
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop && i < 400; i += 1) {
        try {
          const res = await fetch(`${url}/api/v1/board.createTask`, {
            method: 'POST',
            headers: { authorization: `Bearer ${org.keys.agent}`, 'content-type': 'application/json' },
            body: JSON.stringify({ title: `task ${w}-${i}` }),
          });
          const text = await res.text();
          let body: { ok?: boolean; result?: { id?: string }; error?: { code?: string } } | null = null;
          try {
            body = JSON.parse(text);
          } catch {
            body = null;
          }
          if (res.status === 200 && body?.ok === true && body.result?.id) results.push({ kind: 'ok', taskId: body.result.id });
          else if (body?.ok === false && typeof body.error?.code === 'string')
            results.push({ kind: 'frame', status: res.status, code: body.error.code, retryAfter: res.headers.get('retry-after') });
          else results.push({ kind: 'foreign', status: res.status, text: text.slice(0, 200) });
        } catch {
          results.push({ kind: 'network' });
          return; // the server is gone for this worker
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, w) => worker(w));
    while (results.filter((r) => r.kind === 'ok').length < 50) await new Promise((r) => setTimeout(r, 5));
    const exited = new Promise<{ code: number | null; ms: number }>((resolve) => {
      const started = Date.now();
      serve?.child.once('exit', (code) => resolve({ code, ms: Date.now() - started }));
    });
    serve.child.kill('SIGTERM');
    const exit = await exited;
    stop = true;
    await Promise.all(workers);
    serve = null;

    const tally = results.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.kind]: (acc[r.kind] ?? 0) + 1 }), {});
    console.log('shutdown under load:', JSON.stringify(tally), `exit ${exit.code} after ${exit.ms} ms`);
    expect(exit.code).toBe(0);
    // Well inside SHUTDOWN_GRACE_MS: in-flight answers close their keep-alive connections.
    expect(exit.ms).toBeLessThan(SHUTDOWN_GRACE_MS);
    expect(results.filter((r) => r.kind === 'foreign')).toEqual([]);
    for (const r of results) {
      if (r.kind === 'frame') expect(r).toEqual({ kind: 'frame', status: 503, code: 'INTERNAL', retryAfter: '1' });
    }
    const acked = results.flatMap((r) => (r.kind === 'ok' ? [r.taskId] : []));

    // Every acknowledged write is on the ledger, and the chain verifies.
    const verify = await runCli(env, ['verify', '--org', org.slug, '--json']);
    expect(verify.code).toBe(0);
    const [port2] = await freePorts(1);
    serve = spawnServe(1, port2 as number, env);
    await waitHealthy(serve);
    const seen = new Set<string>();
    for (let cursor = 0; ;) {
      const res = await fetch(`${serve.url}/api/v1/events?cursor=${cursor}&limit=500`, {
        headers: { authorization: `Bearer ${org.keys.agent}` },
      });
      const page = (await res.json()) as { events: { entity_id: string; seq: number }[]; nextCursor: number };
      for (const e of page.events) seen.add(e.entity_id);
      if (page.events.length === 0) break;
      cursor = page.nextCursor;
    }
    expect(acked.filter((id) => !seen.has(id))).toEqual([]);
  }, 90_000);
});
