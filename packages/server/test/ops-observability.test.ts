/**
 * /metrics (Prometheus text, guarded by METRICS_TOKEN), the access log (one line
 * per request at info, never secrets), and a well-formed incoming x-request-id kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { people } from '@finance-desk/protocol';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, refusal, startTestServer, type TestServer } from './harness.js';
import { freePorts, runCli, spawnServe, stopServe, waitHealthy, type ServeProcess } from './multiprocess.js';
import { sentInvoice } from './signature-helpers.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample line `name{labels} value` of a Prometheus text page, or null. */
function sample(text: string, name: string, labels: Record<string, string>): number | null {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const inner = line.slice(name.length).match(/^\{([^}]*)\}/)?.[1] ?? '';
    const have = inner.split(',').filter(Boolean);
    if (want.every((w) => have.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

describe.each(engines)('metrics on %s', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  beforeAll(async () => {
    t = await startTestServer(engine, { metricsToken: TOKEN, ratePerSecond: 1, rateBurst: 40 });
    org = await t.org();
  });
  afterAll(async () => t.close());

  const scrape = async () => {
    const r = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    return r.text();
  };

  it('refuses a scrape without the token, or with a wrong one, with the error frame', async () => {
    const none = await t.raw('/metrics', {});
    expect(none.status).toBe(401);
    expect(none.body).toEqual(refusal('UNAUTHORIZED', 'metrics: send Authorization: Bearer <METRICS_TOKEN>'));
    const wrong = await t.raw('/metrics', { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const apiKey = await t.raw('/metrics', { headers: { authorization: `Bearer ${org.keys.agent}` } });
    expect(apiKey.status).toBe(401);
  });

  it('counts requests by route and status, writes and holds by method and outcome, latency, the outbox', async () => {
    expect((await t.post(org.keys.agent, 'board.createTask', { title: 'counted' })).status).toBe(200);
    expect((await t.post(org.keys.agent, 'board.createTask', { title: 'again' }, { 'x-idempotency-key': 'k-1' })).status).toBe(200);
    expect((await t.post(org.keys.agent, 'board.createTask', { title: 'again' }, { 'x-idempotency-key': 'k-1' })).status).toBe(200);
    expect((await t.post(org.keys.agent, 'board.createTask', { title: '' })).status).toBe(400);
    const invoice = await sentInvoice(t, org);
    const held = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id: invoice, step: 2 });
    expect(held.body.result.status).toBe('approval_required');
    expect((await t.get(org.keys.agent, 'snapshot')).status).toBe(200);

    const text = await scrape();
    expect(sample(text, 'fd_writes_total', { method: 'board.createTask', outcome: 'ok' })).toBe(2);
    expect(sample(text, 'fd_writes_total', { method: 'board.createTask', outcome: 'replay' })).toBe(1);
    expect(sample(text, 'fd_writes_total', { method: 'board.createTask', outcome: 'BAD_REQUEST' })).toBe(1);
    expect(sample(text, 'fd_writes_total', { method: 'books.invoiceChaseStep', outcome: 'hold' })).toBe(1);
    expect(sample(text, 'fd_http_requests_total', { route: 'board.createTask', status: '200' })).toBe(3);
    expect(sample(text, 'fd_http_requests_total', { route: 'board.createTask', status: '400' })).toBe(1);
    expect(sample(text, 'fd_http_requests_total', { route: 'snapshot', status: '200' })).toBe(1);
    expect(sample(text, 'fd_http_request_duration_seconds_count', { route: 'snapshot' })).toBe(1);
    expect(sample(text, 'fd_http_requests_in_flight', { route: 'snapshot' })).toBe(0);
    // The invoice's emails are queued in the outbox (or already delivered by the dispatcher).
    expect(sample(text, 'fd_outbox_backlog', { state: 'queued' })).not.toBeNull();
    expect(sample(text, 'fd_outbox_backlog', { state: 'undeliverable' })).toBe(0);
    expect(sample(text, 'fd_db_pool_connections', { state: 'total' }) !== null).toBe(engine === 'postgres');
    // Both engines group concurrent writes into one commit (PostgreSQL per organisation): every
    // write that reached its unit of work is in some batch.
    expect(sample(text, 'fd_group_commit_units_sum', {})).toBeGreaterThanOrEqual(4);
    expect(sample(text, 'fd_group_commit_units_count', {})).toBeGreaterThanOrEqual(1);
    expect(text).toContain('fd_process_resident_memory_bytes');
    // No label carries a raw path, a key or a body.
    expect(text).not.toContain(org.keys.agent);
    expect(text).not.toContain('counted');
  });

  it('a path that names no declared method is one bounded label, whatever the path', async () => {
    for (const name of ['books.nope1', 'books.nope2', 'x.y']) await t.post(org.keys.agent, name, {});
    const text = await scrape();
    expect(text).not.toContain('nope1');
    expect(sample(text, 'fd_http_requests_total', { route: '/api/v1/*', status: '404' })).toBe(3);
  });

  it('counts RATE_LIMITED refusals', async () => {
    const key = (await t.org()).keys.reader;
    let limited = 0;
    for (let i = 0; i < 45 && limited === 0; i += 1) if ((await t.get(key, 'snapshot')).status === 429) limited += 1;
    expect(limited).toBe(1);
    expect(sample(await scrape(), 'fd_rate_limited_total', {})).toBeGreaterThanOrEqual(1);
  });

  it('keeps a well-formed incoming x-request-id and replaces a malformed one', async () => {
    const kept = await t.raw('/api/v1/snapshot', {
      headers: { authorization: `Bearer ${org.keys.observer}`, 'x-request-id': 'trace-7f3a.b2:01' },
    });
    expect(kept.headers.get('x-request-id')).toBe('trace-7f3a.b2:01');
    for (const bad of ['has spaces in it', 'x'.repeat(129), 'semi;colon', 'quote"d']) {
      const r = await t.raw('/api/v1/snapshot', { headers: { authorization: `Bearer ${org.keys.observer}`, 'x-request-id': bad } });
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    }
  });
});

describe('metrics without METRICS_TOKEN', () => {
  it('is not served at all', async () => {
    const t = await startTestServer('sqlite');
    try {
      const r = await t.raw('/metrics', {});
      expect(r.status).toBe(404);
      expect(r.body).toEqual(refusal('NOT_FOUND', 'no route GET /metrics: set METRICS_TOKEN to serve metrics'));
    } finally {
      await t.close();
    }
  });
});

describe('the access log', () => {
  let dir: string;
  let serve: ServeProcess | null = null;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fd-accesslog-'));
  });
  afterAll(async () => {
    if (serve) await stopServe(serve);
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes one line per request at info with route, status, ms, org, key id and request id; never a secret or a body', async () => {
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'fd.db')}`,
      SQLITE_SYNCHRONOUS: 'NORMAL',
      LOG_LEVEL: 'info',
      EMAIL_OUTBOX_DIR: join(dir, 'out'),
    };
    const created = await runCli(env, ['org', 'create', '--name', 'Logged Pty Ltd', '--json']);
    expect(created.code).toBe(0);
    const org = JSON.parse(created.out) as { orgId: string; keys: { agent: string } };
    const [port] = await freePorts(1);
    serve = spawnServe(0, port as number, env);
    await waitHealthy(serve);
    const secretTitle = 'body text that must not be logged';
    const res = await fetch(`${serve.url}/api/v1/board.createTask`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.keys.agent}`, 'content-type': 'application/json', 'x-request-id': 'trace-access-1' },
      body: JSON.stringify({ title: secretTitle }),
    });
    expect(res.status).toBe(200);
    await fetch(`${serve.url}/api/v1/${people.employees.name}`, { method: 'POST', headers: { authorization: 'Bearer fd_wrong_key' } });
    await stopServe(serve);
    const out = serve.output();
    serve = null;
    const lines = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = lines.filter((l) => l.msg === 'request');
    const write = access.find((l) => l.reqId === 'trace-access-1');
    expect(write).toMatchObject({ level: 30, method: 'POST', route: 'board.createTask', status: 200, org: org.orgId });
    expect(typeof write?.ms).toBe('number');
    expect(String(write?.keyId)).toMatch(/^key_|^cred_|^[a-z]+_/);
    const refused = access.find((l) => l.status === 401);
    expect(refused).toMatchObject({ method: 'POST', route: '/api/v1/*' });
    expect(refused?.org).toBeUndefined();
    expect(out).not.toContain(org.keys.agent);
    expect(out).not.toContain('fd_wrong_key');
    expect(out).not.toContain(secretTitle);
    expect(out.toLowerCase()).not.toContain('authorization');
  }, 60_000);
});
