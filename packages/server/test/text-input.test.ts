/**
 * Through HTTP on every engine: the text rules (no lone surrogate,
 * NUL, C0/C1 control or bidi override/isolate anywhere; tab and line breaks only in multi-line
 * fields), agent text quoted inside server-written summaries, and framework errors in the JSON error frame.
 */
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, refusal, startTestServer, type TestServer } from './harness.js';

const BIN = fileURLToPath(new URL('../bin/finance-desk.js', import.meta.url));

/** Each class of character the rules refuse, and whether a multi-line field accepts it. */
const CLASSES: readonly { name: string; value: string; multilineOk: boolean; says: RegExp }[] = [
  { name: 'lone high surrogate', value: 'Acme \ud800 Pty', multilineOk: false, says: /lone surrogate/ },
  { name: 'lone low surrogate', value: 'Acme \udc00', multilineOk: false, says: /lone surrogate/ },
  { name: 'NUL', value: 'Acme\u0000', multilineOk: false, says: /NUL/ },
  { name: 'C0 control (BEL)', value: 'Acme\u0007', multilineOk: false, says: /control character U\+0007/ },
  { name: 'DEL', value: 'Acme\u007f', multilineOk: false, says: /control character U\+007F/ },
  { name: 'C1 control (NEL)', value: 'Acme\u0085', multilineOk: false, says: /control character U\+0085/ },
  { name: 'bidi override (RLO)', value: 'Pay \u202e00.000,84$', multilineOk: false, says: /bidi .*U\+202E/ },
  { name: 'bidi embedding (LRE)', value: '\u202aAcme', multilineOk: false, says: /bidi .*U\+202A/ },
  { name: 'bidi isolate (FSI)', value: 'Acme\u2068', multilineOk: false, says: /bidi .*U\+2068/ },
  { name: 'tab', value: 'Acme\tPty', multilineOk: true, says: /single line/ },
  { name: 'newline', value: 'Acme\nPty', multilineOk: true, says: /single line/ },
  { name: 'CRLF', value: 'Acme\r\nPty', multilineOk: true, says: /single line/ },
];

const draft = (over: Record<string, unknown>) => ({
  payeeName: 'Acme Pty Ltd',
  description: 'October catering',
  totalCents: 11_000,
  dueDays: 14,
  ...over,
});

/** GET/POST with a literal path (fetch would normalise `%`), answering status, type and body. */
function rawRequest(url: string, method: string, path: string): Promise<{ status: number; type: string; body: any }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Bytes on a socket, for requests node's HTTP client refuses to send. */
function rawSocket(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe.each(engines)('text rules, summaries quoted, framework errors (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => {
    await t.close();
  });

  const eventCount = async () => (await t.get(org.keys.observer, 'events?limit=500')).body.events.length as number;

  describe.each(CLASSES)('$name', ({ value, multilineOk, says }) => {
    it('a single-line field refuses it: BAD_REQUEST naming the field, nothing stored', async () => {
      const before = await eventCount();
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', draft({ payeeName: value }));
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('BAD_REQUEST');
      expect(r.body.error.message).toMatch(new RegExp(`payeeName: .*${says.source}`));
      expect(await eventCount()).toBe(before);
    });

    it(`a multi-line field ${multilineOk ? 'accepts' : 'refuses'} it`, async () => {
      const before = await eventCount();
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', draft({ description: value }));
      if (multilineOk) {
        expect(r.status).toBe(200);
        expect(r.body.result.description).toBe(value);
        expect(await eventCount()).toBe(before + 1);
      } else {
        expect(r.status).toBe(400);
        expect(r.body.error.message).toMatch(new RegExp(`^description: .*${says.source}`));
        expect(await eventCount()).toBe(before);
      }
    });
  });

  it('strings at any depth and object keys are checked, whatever the schema', async () => {
    const nested = await t.post(org.keys.agent, 'books.invoiceDraft', draft({ lines: [{ description: 'x\u0000', amountCents: 11_000 }] }));
    expect(nested.status).toBe(400);
    expect(nested.body.error.message).toContain('lines[0].description: must not contain a NUL character');
    const key = await t.post(org.keys.agent, 'books.invoiceDraft', { ...draft({}), ['bad\u202ekey']: 1 });
    expect(key.status).toBe(400);
    expect(key.body.error.message).toContain('params: a field name must not contain bidi override');
    const token = await t.post(org.keys.agent, 'books.invoiceDraft', { ...draft({}), signatureToken: 'a\ud800' });
    expect(token.status).toBe(400);
  });

  it('a GET read query with NUL or a bidi override is BAD_REQUEST naming the parameter', async () => {
    for (const bad of ['%00', '%E2%80%AE', '%C2%85']) {
      const r = await t.get(org.keys.observer, `org/whoami?slug=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/^slug: /);
    }
  });

  it('a GET read query whose percent-encoding does not decode (a surrogate, %zz) is BAD_REQUEST naming the key', async () => {
    for (const bad of ['%ED%A0%80%00', '%zz', 'caf%E9']) {
      const r = await t.get(org.keys.observer, `org/whoami?slug=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(refusal('BAD_REQUEST', 'slug: malformed percent-encoding'));
    }
    const events = await t.get(org.keys.observer, 'events?cursor=0&limit=%zz');
    expect(events.body.error.message).toBe('limit: malformed percent-encoding');
  });

  it('console sign-in with NUL or invalid UTF-8: no 500, BAD_REQUEST or 401, nothing stored', async () => {
    const attempts = async () => (await t.db.reader.all('SELECT bucket FROM login_attempts')).length;
    const before = await attempts();
    for (const [body, status] of [
      [`org=${org.slug}%00&email=x&password=y`, 400],
      [`org=${org.slug}&email=a%00b&password=y`, 400],
      [`org=${org.slug}&email=${encodeURIComponent(org.owner.email)}&password=%00`, 400],
      [`org=${org.slug}&email=%E2%80%AE&password=y`, 400],
    ] as const) {
      const r = await fetch(`${t.url}/console/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
      expect(r.status, body).toBe(status);
      expect(await r.text()).toMatch(/(org|email|password): must/);
    }
    expect(await attempts()).toBe(before);
    // Invalid UTF-8 (an encoded lone surrogate) decodes to U+FFFD: an ordinary failed sign-in.
    const r = await fetch(`${t.url}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `org=${org.slug}&email=%ED%A0%80&password=y`,
      redirect: 'manual',
    });
    expect(r.status).toBe(401);
  });

  it('summaries quote agent text; the console inbox shows it quoted and escaped', async () => {
    const payee = 'Harbour "Cafe" approved by owner';
    const draftR = await t.post(org.keys.agent, 'books.invoiceDraft', draft({ payeeName: payee, totalCents: 110_000 }));
    const id = draftR.body.result.id as string;
    expect((await t.post(org.keys.agent, 'books.invoiceSend', { id })).status).toBe(200);
    expect((await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 1, early: true })).status).toBe(200);
    const held = await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2 });
    const summary = held.body.result.approval.subject.summary as string;
    expect(summary).toContain(`to ${JSON.stringify(payee)} (`);
    expect(summary).toContain('"Harbour \\"Cafe\\" approved by owner"');
    const a = held.body.result.approval;
    const req = await t.post(org.keys.agent, 'approval.request', {
      actionClass: a.actionClass,
      payloadHash: a.payloadHash,
      subject: { kind: 'books.signature', subjectId: a.subject.subjectId },
    });
    expect(req.status).toBe(200);

    const login = await fetch(`${t.url}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ org: org.slug, email: org.owner.email, password: org.owner.password }).toString(),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const inbox = await (await fetch(`${t.url}/console`, { headers: { cookie } })).text();
    expect(inbox).toContain('to &quot;Harbour \\&quot;Cafe\\&quot; approved by owner&quot; (');
    const api = await (await fetch(`${t.url}/console/api/approvals?status=pending`, { headers: { cookie } })).json();
    expect(JSON.stringify(api)).toContain(JSON.stringify(`to ${JSON.stringify(payee)} (`).slice(1, -1));
  });

  it('a bank line description in the match hold summary is quoted', async () => {
    // The match summary is built by the same quoted() (reconciliation/match.ts); the dunning one
    // above proves it through HTTP, this proves the escaping of a line break as well.
    const { quoted } = await import('../src/governance/quote.js');
    expect(quoted('a"b\nc')).toBe('"a\\"b\\nc"');
  });

  it('console JSON deny reason and approval ids follow the rules (no 500)', async () => {
    const login = await fetch(`${t.url}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ org: org.slug, email: org.owner.email, password: org.owner.password }).toString(),
      redirect: 'manual',
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const session = await (await fetch(`${t.url}/console/api/session`, { headers: { cookie } })).json();
    const headers = { cookie, 'x-csrf-token': session.csrfToken as string, 'content-type': 'application/json' };
    const deny = await fetch(`${t.url}/console/api/approvals/apr_nothing/deny`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ reason: 'no \u202e thanks' }),
    });
    expect(deny.status).toBe(400);
    expect((await deny.json()).error.message).toMatch(/^reason: must not contain bidi/);
    const nul = await fetch(`${t.url}/console/api/approvals/apr%00x/approve`, { method: 'POST', headers, body: '{}' });
    expect(nul.status).toBe(400);
    expect((await nul.json()).error.message).toMatch(/^id: must not contain a NUL/);
  });

  it.each(['/api/v1/%', '/api/v1/%zz', '/console/%', '/console/api/approvals/%E0%A4%A/approve'])(
    'malformed percent-encoding %s gets the JSON error frame',
    async (path) => {
      for (const method of ['GET', 'POST']) {
        const r = await rawRequest(t.url, method, path);
        expect(r.status).toBe(400);
        expect(r.type).toBe('application/json; charset=utf-8');
        expect(r.body).toEqual(refusal('BAD_REQUEST', expect.stringMatching(/^path: /)));
      }
    },
  );

  it('unknown routes, oversized bodies and bad content-length get the JSON error frame', async () => {
    const missing = await rawRequest(t.url, 'GET', '/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const big = await t.post(org.keys.agent, 'books.invoiceDraft', JSON.stringify({ x: 'y'.repeat(1_100_000) }));
    expect(big.status).toBe(400);
    expect(big.body.error.message).toMatch(/^body: larger than/);
    const malformed = await rawSocket(t.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400/);
    expect(malformed).toContain('application/json; charset=utf-8');
    expect(JSON.parse(malformed.slice(malformed.indexOf('\r\n\r\n') + 4))).toEqual({
      ok: false,
      error: { code: 'BAD_REQUEST', message: 'request: malformed HTTP request' },
    });
  });

  it.runIf(engine === 'sqlite')('CLI: an argument with a bidi override or control character is refused naming the option', () => {
    const r = spawnSync(process.execPath, [BIN, 'org', 'create', '--name', 'Acme \u202e Pty'], {
      env: { ...process.env, DATABASE_URL: 'sqlite:/nonexistent/never-opened.db' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--name: must not contain bidi override or isolate character U+202E');
  });
});
