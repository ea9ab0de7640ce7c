/**
 * The MCP server end to end: the SDK's own Client over both transports — stdio
 * (`finance-desk mcp` as an agent host spawns it, calling the server over a real URL) and
 * Streamable HTTP (`POST /mcp` on the server, calling the API in process) — against a real server
 * on a real database. One full approval loop per transport: write → hold → approval_request →
 * a human approves with the CLI → approval_wait → retry with the proof → the ledger id.
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { OPT_IN_AREAS, approval, areaOf, books, limits, methods, readSpecs, reads, type MethodKind } from '@finance-desk/protocol';
import { HINT_DEFAULTS, isArtifactRead, toolName } from '@finance-desk/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../src/server.js';
import { openDatabase } from '../src/storage/open.js';
import type { Database } from '../src/storage/types.js';
import { migrations } from '../src/schema.js';
import { engines, freshDatabaseUrl, runCliInProcess, startTestServer, testConfig, uniqueName } from './harness.js';

/** Tools a host gets without naming toolsets: every method and read but the artifacts and the opt-in setup area. */
const optIn = (name: string) => OPT_IN_AREAS.includes(areaOf(name) ?? 'books');
const defaultListed = [...methods, ...reads].filter((d) => !isArtifactRead(d.name) && !optIn(d.name));

const BIN = fileURLToPath(new URL('../bin/finance-desk.js', import.meta.url));
const TRANSPORTS = ['stdio', 'http'] as const;
type TransportName = (typeof TRANSPORTS)[number];

interface ToolCall {
  isError?: boolean;
  structuredContent?: any;
  content: { type: string; text?: string }[];
}

describe.each(engines)('MCP server (%s)', (engine) => {
  let dbUrl: string;
  let drop: () => Promise<void>;
  let db: Database;
  let server: RunningServer;
  let slug: string;
  let ownerEmail: string;
  let keys: { observer: string; reader: string; agent: string };
  const clients: Client[] = [];

  beforeAll(async () => {
    ({ url: dbUrl, drop } = await freshDatabaseUrl(engine));
    db = openDatabase(dbUrl, { migrations, sqliteSynchronous: 'NORMAL' });
    server = await startServer(testConfig(), { db, logger: false });
    slug = uniqueName('mcp').toLowerCase().replace(/_/g, '-');
    const created = await runCliInProcess(dbUrl, 'org', 'create', '--name', 'MCP Joinery', '--slug', slug, '--json');
    expect(created.code, created.err).toBe(0);
    const org = JSON.parse(created.out);
    keys = org.keys;
    ownerEmail = org.owner.email;
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await server?.close();
    await db?.close();
    await drop?.();
  });

  async function connect(transport: TransportName, key: string): Promise<Client> {
    const client = new Client({ name: 'finance-desk-test', version: '1.0.0' });
    if (transport === 'stdio') {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp'],
          env: { PATH: process.env.PATH ?? '', FINANCE_DESK_URL: server.url, FINANCE_DESK_API_KEY: key },
          stderr: 'pipe',
        }),
      );
    } else {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
    }
    clients.push(client);
    return client;
  }

  const call = async (client: Client, tool: string, args: Record<string, unknown>): Promise<ToolCall> =>
    (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as ToolCall;

  describe.each(TRANSPORTS)('over %s', (transport) => {
    let agent: Client;
    beforeAll(async () => {
      agent = await connect(transport, keys.agent);
    });

    it('lists every method and read as a tool but the opt-in setup ones, with hints from its kind and schemas from its declaration', async () => {
      const { tools } = await agent.listTools();
      expect(tools).toHaveLength(defaultListed.length);
      const names = new Set(tools.map((t) => t.name));
      for (const m of methods) expect(names.has(toolName(m.name)), m.name).toBe(!optIn(m.name));
      for (const r of reads) expect(names.has(toolName(r.name)), r.name).toBe(!isArtifactRead(r.name) && !optIn(r.name));
      for (const t of tools) expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

      const byName = new Map(tools.map((t) => [t.name, t]));
      const ofKind = (kind: MethodKind) => {
        const spec = methods.find((m) => m.kind === kind && m.repeat === undefined);
        if (!spec) throw new Error(`no ${kind} method`);
        const tool = byName.get(toolName(spec.name));
        if (!tool) throw new Error(`no tool for ${spec.name}`);
        return tool;
      };
      // Hints equal to the MCP specification's defaults are not sent.
      const hints = (t: { annotations?: object } | undefined) => ({ ...HINT_DEFAULTS, ...(t?.annotations ?? {}) });
      expect(hints(ofKind('read'))).toMatchObject({ readOnlyHint: true });
      expect(hints(ofKind('write'))).toMatchObject({ readOnlyHint: false, idempotentHint: true, destructiveHint: false });
      // A write whose repeat creates another record is not idempotent (its retry takes an idempotencyKey).
      expect(hints(byName.get(toolName(books.invoiceDraft.name)))).toMatchObject({ readOnlyHint: false, idempotentHint: false });
      expect(hints(ofKind('new-act'))).toMatchObject({ readOnlyHint: false, idempotentHint: false, destructiveHint: false });
      expect(hints(ofKind('signature'))).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      const wait = byName.get(toolName(readSpecs.approvalWait.name));
      expect(hints(wait)).toMatchObject({ readOnlyHint: true });
      // No title: it was the name re-spelt, and a host shows the name when there is none (the list's budget).
      expect(wait).not.toHaveProperty('title');

      // The query is strings on the wire; the model is shown the integer (its bounds are the API's to check).
      expect(wait?.inputSchema.properties?.timeoutMs).toMatchObject({ type: 'integer' });
      const draft = byName.get(toolName(books.invoiceDraft.name));
      expect(draft?.inputSchema.required).toEqual(expect.arrayContaining(['description', 'totalCents', 'dueDays']));
      expect(draft?.inputSchema.properties?.totalCents).toMatchObject({ type: 'integer' });

      // A signature act says it needs a human and where the steps come from: the hold's next (the
      // loop in full is in the server instructions; its steps are driven below).
      const chase = byName.get(toolName(books.invoiceChaseStep.name));
      expect(chase?.description).toContain('Needs a human: on "approval_required", make the calls its next lists.');
      expect(chase?.inputSchema.properties).toHaveProperty('approvalId');
    });

    it('drives the approval loop: write, hold, request, human approves via the CLI, wait, retry with the proof', async () => {
      const draft = await call(agent, toolName(books.invoiceDraft.name), {
        payeeName: `Ann ${transport}`,
        description: 'Joinery',
        totalCents: 12_300,
        dueDays: 0,
      });
      expect(draft.isError).toBeFalsy();
      expect(draft.structuredContent).toMatchObject({ id: expect.stringMatching(/^inv_/), status: 'draft', ledgerId: expect.any(String) });
      expect(JSON.parse(draft.content[0]?.text ?? '')).toEqual(draft.structuredContent);
      const invoiceId: string = draft.structuredContent.id;

      const sent = await call(agent, toolName(books.invoiceSend.name), { id: invoiceId });
      expect(sent.structuredContent).toMatchObject({ status: 'sent', ledgerId: expect.any(String) });
      const chaseTool = toolName(books.invoiceChaseStep.name);
      const step1 = await call(agent, chaseTool, { id: invoiceId, step: 1, early: true });
      expect(step1.structuredContent).toMatchObject({ step: 1, ledgerId: expect.any(String) });

      // Step 2 needs a human: a hold the model can act on, with the next call ready.
      const hold = await call(agent, chaseTool, { id: invoiceId, step: 2 });
      expect(hold.isError).toBeFalsy();
      const held = hold.structuredContent;
      expect(held).toMatchObject({
        status: 'approval_required',
        subjectId: invoiceId,
        approval: { actionClass: books.invoiceChaseStep.actionClass, payloadHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
        message: expect.any(String),
        next: {
          tool: toolName(approval.request.name),
          arguments: {
            actionClass: books.invoiceChaseStep.actionClass,
            payloadHash: held.approval.payloadHash,
            subject: { kind: 'books.signature', subjectId: invoiceId },
          },
        },
      });
      expect(held.next.then.map((s: { tool: string }) => s.tool)).toEqual([toolName(readSpecs.approvalWait.name), chaseTool]);

      const requested = await call(agent, held.next.tool, held.next.arguments);
      expect(requested.isError).toBeFalsy();
      expect(requested.structuredContent).toMatchObject({
        status: 'pending',
        approvalId: expect.any(String),
        ledgerId: expect.any(String),
      });
      const approvalId: string = requested.structuredContent.approvalId;

      const waitTool = toolName(readSpecs.approvalWait.name);
      const pending = await call(agent, waitTool, { approvalId, timeoutMs: 0 });
      expect(pending.structuredContent).toMatchObject({ approvalId, status: 'pending' });

      // A long-poll from the model, answered when a human approves from the operator CLI.
      const waiting = call(agent, waitTool, { approvalId, timeoutMs: 30_000 });
      await new Promise((r) => setTimeout(r, 300));
      const decided = await runCliInProcess(
        dbUrl,
        'approval',
        'decide',
        '--org',
        slug,
        '--approval',
        approvalId,
        '--approve',
        '--by',
        ownerEmail,
        '--json',
      );
      expect(decided.code, decided.err).toBe(0);
      const approved = await waiting;
      expect(approved.isError).toBeFalsy();
      expect(approved.structuredContent).toMatchObject({ approvalId, status: 'approved', signatureToken: expect.stringMatching(/^fdt_/) });

      const done = await call(agent, chaseTool, { id: invoiceId, step: 2, approvalId });
      expect(done.isError).toBeFalsy();
      expect(done.structuredContent).toMatchObject({ id: invoiceId, step: 2, ledgerId: expect.any(String) });

      // The act is on the ledger under that id, as an HTTP caller would see it.
      const events = await call(agent, toolName(readSpecs.events.name), { cursor: 0, limit: 500 });
      expect(events.isError).toBeFalsy();
      const rows = JSON.stringify(events.structuredContent);
      expect(rows).toContain(done.structuredContent.ledgerId);

      // A proof is single-use: the same retry again is refused, as over HTTP.
      const again = await call(agent, chaseTool, { id: invoiceId, step: 2, approvalId });
      expect(again.isError).toBe(true);
      expect(again.structuredContent.error.code).toBe('CONFLICT');
    }, 90_000);

    it('returns an error frame as isError with the code, message and field', async () => {
      const bad = await call(agent, toolName(books.invoiceDraft.name), { payeeName: 'Bo', description: 'x', totalCents: -5, dueDays: 0 });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent.error).toMatchObject({
        code: 'BAD_REQUEST',
        field: 'totalCents',
        message: expect.stringMatching(/^totalCents: /),
      });
      expect(bad.content[0]?.text).toMatch(/^BAD_REQUEST: totalCents: .*\(field totalCents\)/);

      const badQuery = await call(agent, toolName(readSpecs.approvalWait.name), { approvalId: 'apr_missing', timeoutMs: 99_999 });
      expect(badQuery.isError).toBe(true);
      expect(badQuery.structuredContent.error).toMatchObject({ code: 'BAD_REQUEST', field: 'timeoutMs' });
    });

    it('acts with exactly the scopes of its key: a read key cannot write', async () => {
      const reader = await connect(transport, keys.reader);
      const refused = await call(reader, toolName(books.invoiceDraft.name), {
        payeeName: 'Cy',
        description: 'x',
        totalCents: 100,
        dueDays: 0,
      });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error.code).toBe('FORBIDDEN_SCOPE');
      const whoami = await call(reader, toolName(readSpecs.orgSelf.name), {});
      expect(whoami.isError).toBeFalsy();
      expect(whoami.structuredContent).toMatchObject({ slug });
    });
  });

  describe('the stdio command', () => {
    /** `finance-desk mcp` as a host runs it, initialised; `output()` is what it wrote on stdout so far. */
    function stdioSession(apiKey: string) {
      const child = spawn(process.execPath, [BIN, 'mcp'], {
        env: { PATH: process.env.PATH ?? '', FINANCE_DESK_URL: server.url, FINANCE_DESK_API_KEY: apiKey },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return { child, send, exited, output: () => out };
    }

    it('writes only MCP messages on stdout and, when the host closes stdin, answers what it was asked and ends', async () => {
      const { child, send, exited, output } = stdioSession(keys.observer);
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: toolName(readSpecs.orgSelf.name), arguments: {} } });
      // Closing stdin at once ends the session only after the answers owed are written.
      child.stdin.end();
      expect(await exited).toBe(0);
      const lines = output()
        .split('\n')
        .filter((l) => l !== '');
      expect(lines).toHaveLength(2);
      const [init, self] = lines.map((l) => JSON.parse(l));
      expect(init).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'finance-desk' }, capabilities: { tools: {} } } });
      expect(init.result.instructions).toContain(toolName(approval.request.name));
      expect(self).toMatchObject({ jsonrpc: '2.0', id: 2, result: { structuredContent: { slug } } });
    });

    it('runs nothing of a JSON-RPC batch line (the SDK reads one message a line) and goes on answering single messages', async () => {
      const head = async () =>
        (
          await fetch(`${server.url}/api/v1/${readSpecs.snapshot.name}`, { headers: { authorization: `Bearer ${keys.agent}` } }).then((r) =>
            r.json(),
          )
        ).head;
      const before = await head();
      const { child, send, exited, output } = stdioSession(keys.agent);
      const draft = {
        name: toolName(books.invoiceDraft.name),
        arguments: { payeeName: 'Batch Stdio', description: 'x', totalCents: 100, dueDays: 0 },
      };
      send([
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: draft },
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      ]);
      send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: toolName(readSpecs.orgSelf.name), arguments: {} } });
      child.stdin.end();
      expect(await exited).toBe(0);
      const answers = output()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l));
      expect(answers.map((a) => a.id)).toEqual([1, 4]);
      expect(answers[1]).toMatchObject({ result: { structuredContent: { slug } } });
      expect(await head()).toEqual(before);
    });

    it('refuses to start without its environment, naming the variable', () => {
      const run = (env: Record<string, string>) =>
        spawnSync(process.execPath, [BIN, 'mcp'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', input: '' });
      const noUrl = run({ FINANCE_DESK_API_KEY: keys.agent });
      expect(noUrl.status).toBe(2);
      expect(noUrl.stdout).toBe('');
      expect(noUrl.stderr).toMatch(/^finance-desk: FINANCE_DESK_URL: /);
      const noKey = run({ FINANCE_DESK_URL: server.url });
      expect(noKey.status).toBe(2);
      expect(noKey.stderr).toMatch(/^finance-desk: FINANCE_DESK_API_KEY: /);
      const badUrl = run({ FINANCE_DESK_URL: 'ftp://example', FINANCE_DESK_API_KEY: keys.agent });
      expect(badUrl.stderr).toMatch(/^finance-desk: FINANCE_DESK_URL: must be an http\(s\) URL/);
      // The same command as @finance-desk/mcp's bin: its flag and variable are checked the same way.
      const env = { PATH: process.env.PATH ?? '', FINANCE_DESK_URL: server.url, FINANCE_DESK_API_KEY: keys.agent };
      const badFlag = spawnSync(process.execPath, [BIN, 'mcp', '--toolsets', 'receivables,nope'], { env, encoding: 'utf8', input: '' });
      expect(badFlag.status).toBe(2);
      expect(badFlag.stdout).toBe('');
      expect(badFlag.stderr).toMatch(/^finance-desk: --toolsets: unknown toolset "nope"/);
      const badVar = run({ ...env, FINANCE_DESK_TOOLSETS: 'nope' });
      expect(badVar.status).toBe(2);
      expect(badVar.stderr).toMatch(/^finance-desk: FINANCE_DESK_TOOLSETS: unknown toolset "nope"/);
    });
  });

  describe('the HTTP endpoint', () => {
    it('refuses a request without a valid key with the API’s 401 error frame', async () => {
      const init = { headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const none = await fetch(`${server.url}/mcp`, { method: 'POST', ...init, body });
      expect(none.status).toBe(401);
      expect(await none.json()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
      const wrong = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...init.headers, authorization: 'Bearer fdk_00000000000000000000000000_0000000000000000000000000000000000000000000' },
        body,
      });
      expect(wrong.status).toBe(401);
    });

    it('never answers 5xx to hostile requests, and appends nothing for them', async () => {
      const auth = { authorization: `Bearer ${keys.agent}` };
      const json = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const rpc = (method: string, params?: unknown) =>
        JSON.stringify({ jsonrpc: '2.0', id: 7, method, ...(params === undefined ? {} : { params }) });
      const before = await fetch(`${server.url}/api/v1/${readSpecs.snapshot.name}`, { headers: auth }).then((r) => r.json());
      expect(before.head).toMatchObject({ seq: expect.any(Number), rowHash: expect.any(String) });
      const cases: { headers: Record<string, string>; body?: string; method?: string }[] = [
        { headers: json, body: '{' },
        { headers: json, body: '' },
        { headers: json, body: '"x"' },
        { headers: json, body: '[]' },
        { headers: json, body: '{"jsonrpc":"2.0"}' },
        { headers: json, body: rpc('no/such/method') },
        { headers: json, body: rpc('tools/call', { name: 'no_such_tool', arguments: {} }) },
        { headers: json, body: rpc('tools/call', { name: toolName(books.invoiceDraft.name), arguments: [1, 2] }) },
        { headers: json, body: rpc('tools/call', { name: toolName(books.invoiceDraft.name), arguments: 'x' }) },
        { headers: json, body: rpc('tools/call', { name: toolName(readSpecs.events.name), arguments: { limit: { a: 1 } } }) },
        {
          headers: json,
          body: rpc('tools/call', {
            name: toolName(books.invoiceDraft.name),
            arguments: { totalCents: 1e300, payeeName: '\u202e', description: 'x'.repeat(100_000), dueDays: -1 },
          }),
        },
        { headers: json, body: JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }))) },
        { headers: { ...json, 'content-type': 'text/plain' }, body: rpc('tools/list') },
        { headers: { ...auth, 'content-type': 'application/json' }, body: rpc('tools/list') },
        { headers: { ...json, 'mcp-protocol-version': '1900-01-01' }, body: rpc('tools/list') },
        { headers: auth, method: 'DELETE' },
        { headers: auth, method: 'PUT', body: '{}' },
      ];
      for (const c of cases) {
        const res = await fetch(`${server.url}/mcp`, {
          method: c.method ?? 'POST',
          headers: c.headers,
          ...(c.body !== undefined ? { body: c.body } : {}),
        });
        const text = await res.text();
        expect(res.status, `${c.method ?? 'POST'} ${String(c.body).slice(0, 60)} → ${text.slice(0, 200)}`).toBeLessThan(500);
      }
      const after = await fetch(`${server.url}/api/v1/${readSpecs.snapshot.name}`, { headers: auth }).then((r) => r.json());
      expect(after.head).toEqual(before.head);
    });

    it('refuses a JSON-RPC batch whole (400, Invalid Request) before any message in it runs; one message still works', async () => {
      const auth = { authorization: `Bearer ${keys.agent}` };
      const headers = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const head = async () =>
        (await fetch(`${server.url}/api/v1/${readSpecs.snapshot.name}`, { headers: auth }).then((r) => r.json())).head;
      const draft = (payeeName: string) => ({
        name: toolName(books.invoiceDraft.name),
        arguments: { payeeName, description: 'Batch', totalCents: 100, dueDays: 0 },
      });
      const before = await head();
      // A write first, then a hundred lists: the batch that once bought a hundred answers for one token.
      const batch = [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: draft('Batch Buyer') },
        ...Array.from({ length: 99 }, (_, i) => ({ jsonrpc: '2.0', id: i + 2, method: 'tools/list' })),
      ];
      const refused = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(batch) });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message: expect.stringMatching(/^Invalid Request: JSON-RPC batches are not accepted .*send one message per request$/),
        },
        id: null,
      });
      const one = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: draft('Batch One') }]),
      });
      expect(one.status).toBe(400);
      await one.text();
      expect(await head()).toEqual(before);

      const single = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: draft('Single Buyer') }),
      });
      expect(single.status).toBe(200);
      const answer = await single.json();
      expect(answer).toMatchObject({
        jsonrpc: '2.0',
        id: 9,
        result: { structuredContent: { id: expect.stringMatching(/^inv_/), status: 'draft' } },
      });
      expect((await head()).seq).toBeGreaterThan(before.seq);
      const list = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list' }),
      });
      expect(list.status).toBe(200);
      const listed = await list.json();
      expect(listed.result.tools).toHaveLength(defaultListed.length);
      expect(Buffer.byteLength(JSON.stringify(listed))).toBeLessThanOrEqual(limits.mcpResponseBytesMax);
    });

    it('has no server-initiated stream in stateless mode (GET is 405) and bounds the body as the API does', async () => {
      const auth = { authorization: `Bearer ${keys.agent}` };
      const get = await fetch(`${server.url}/mcp`, { headers: { ...auth, accept: 'text/event-stream' } });
      expect(get.status).toBe(405);
      await get.body?.cancel();
      const huge = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }),
      });
      expect(huge.status).toBe(400);
      expect(await huge.json()).toMatchObject({
        ok: false,
        error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^body: larger than the limit/) },
      });
    });

    it("takes one token of the key's budget per request: a flood of tools/list is RATE_LIMITED with the API's frame", async () => {
      const limited = await startTestServer(engine, { ratePerSecond: 1, rateBurst: 3 });
      try {
        const o = await limited.org();
        const headers = {
          authorization: `Bearer ${o.keys.agent}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        };
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        const statuses: number[] = [];
        let refused: unknown = null;
        for (let i = 0; i < 6; i += 1) {
          const res = await fetch(`${limited.url}/mcp`, { method: 'POST', headers, body });
          statuses.push(res.status);
          if (res.status === 429) {
            expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
            refused = await res.json();
          } else await res.text();
        }
        expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
        expect(statuses).toContain(429);
        expect(refused).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED' } });
      } finally {
        await limited.close();
      }
    });
  });
});
