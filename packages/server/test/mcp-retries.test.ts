/**
 * Retries that never duplicate, and toolsets, through MCP against a real server on a real
 * database (both engines): the SDK's own client over Streamable HTTP at /mcp. Two identical
 * books_invoiceDraft (or books_billCapture) calls with the same idempotencyKey make one document,
 * the second answering the first's result; without it they make two, as the tool's annotations
 * say (idempotentHint false). books.payrollDraft, whose summary says the same draft again is a
 * no-op, is checked to be one over HTTP with two different keys.
 */
import { AREAS, areaOf, methods, reads, type MethodSpec } from '@finance-desk/protocol';
import { HINT_DEFAULTS, isArtifactRead, toolName } from '@finance-desk/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, uniqueName, type TestServer } from './harness.js';
import { activeEmployee } from './payroll-helpers.js';
import { freshKey } from './signature-helpers.js';

interface ToolCall {
  isError?: boolean;
  structuredContent?: any;
}

describe.each(engines)('MCP retries and toolsets (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await t?.close();
  });

  async function connect(key: string, query = ''): Promise<Client> {
    const client = new Client({ name: 'retries-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp${query}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    clients.push(client);
    return client;
  }
  const call = async (client: Client, tool: string, args: Record<string, unknown>) =>
    (await client.callTool({ name: tool, arguments: args })) as ToolCall;

  async function listed(method: 'books.invoices' | 'books.bills', payeeName: string): Promise<{ id: string }[]> {
    const r = await t.post(org.keys.agent, method, { payeeName });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return method === 'books.invoices' ? r.body.result.invoices : r.body.result.bills;
  }

  it.each([
    ['books.invoiceDraft', 'books.invoices', { description: 'Joinery', totalCents: 12_300, dueDays: 14 }],
    ['books.billCapture', 'books.bills', { description: 'Timber', totalCents: 8_800, dueDays: 30 }],
  ] as const)('%s: the same call twice with one idempotencyKey makes one document; without it, two', async (method, list, params) => {
    const agent = await connect(org.keys.agent);
    const tool = toolName(method);
    const once = uniqueName('Once');
    const key = `mcp-retry-${once}`;
    const first = await call(agent, tool, { payeeName: once, ...params, idempotencyKey: key });
    expect(first.isError, JSON.stringify(first.structuredContent)).toBeFalsy();
    const retry = await call(agent, tool, { payeeName: once, ...params, idempotencyKey: key });
    expect(retry.isError).toBeFalsy();
    expect(retry.structuredContent).toEqual(first.structuredContent);
    expect((await listed(list, once)).map((d) => d.id)).toEqual([first.structuredContent.id]);

    const twice = uniqueName('Twice');
    const a = await call(agent, tool, { payeeName: twice, ...params });
    const b = await call(agent, tool, { payeeName: twice, ...params });
    expect(a.structuredContent.id).not.toBe(b.structuredContent.id);
    expect(await listed(list, twice)).toHaveLength(2);

    // The key reused for another call is the API's CONFLICT, as over HTTP.
    const other = await call(agent, tool, { payeeName: once, ...params, description: 'Other', idempotencyKey: key });
    expect(other.isError).toBe(true);
    expect(other.structuredContent.error.code).toBe('CONFLICT');
    await t.verifyAll();
  });

  it('refuses an idempotencyKey the API would refuse, naming the field, and creates nothing', async () => {
    const agent = await connect(org.keys.agent);
    const payee = uniqueName('BadKey');
    const bad = await call(agent, toolName('books.invoiceDraft'), {
      payeeName: payee,
      description: 'x',
      totalCents: 100,
      dueDays: 0,
      idempotencyKey: 'two words',
    });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent.error).toMatchObject({ code: 'BAD_REQUEST', field: 'idempotencyKey' });
    expect(await listed('books.invoices', payee)).toEqual([]);
  });

  it('books.payrollDraft: the same draft again with a new key is the same run (its by-state promise holds)', async () => {
    const employeeId = await activeEmployee(t, org, { name: uniqueName('Staff'), annualSalaryCents: 7_800_000 });
    const run = {
      periodStart: '2026-07-01',
      periodEnd: '2026-07-14',
      paymentDate: '2026-07-16',
      payFrequency: 'fortnightly',
      employeeIds: [employeeId],
    };
    const first = await t.post(org.keys.agent, 'books.payrollDraft', run, { 'x-idempotency-key': freshKey() });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await t.post(org.keys.agent, 'books.payrollDraft', run, { 'x-idempotency-key': freshKey() });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.result.id).toBe(first.body.result.id);
    expect(methods.find((m) => m.name === 'books.payrollDraft')?.repeat).toBeUndefined();
  });

  it('lists annotations that match each declaration', async () => {
    // Every toolset, the opt-in setup one too.
    const { tools } = await (await connect(org.keys.agent, '?toolsets=all')).listTools();
    const byTool = new Map<string, MethodSpec>(methods.map((m) => [toolName(m.name), m]));
    expect(tools).toHaveLength(methods.length + reads.filter((r) => !isArtifactRead(r.name)).length);
    for (const tool of tools) {
      const m = byTool.get(tool.name);
      const readOnly = !m || m.kind === 'read';
      const actsAgain = !readOnly && (m.kind !== 'write' || m.repeat === 'creates');
      // Hints equal to the MCP specification's defaults are not sent; a read's destructive and
      // idempotent hints mean nothing by the specification.
      const hints = { ...HINT_DEFAULTS, ...(tool.annotations ?? {}) };
      if (readOnly) expect(hints, tool.name).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      else
        expect(hints, tool.name).toEqual({
          readOnlyHint: false,
          destructiveHint: m.kind === 'signature',
          idempotentHint: !actsAgain,
          openWorldHint: m.reachesOut === true,
        });
    }
  });

  it('/mcp?toolsets=receivables lists receivables and approval tools only, refuses a call outside them; an unknown toolset is 400', async () => {
    const agent = await connect(org.keys.agent, '?toolsets=receivables');
    const { tools } = await agent.listTools();
    const declared = new Map([...methods, ...reads].map((d) => [toolName(d.name), d.name]));
    expect(new Set(tools.map((tool) => areaOf(declared.get(tool.name) ?? '')))).toEqual(new Set(['receivables', 'approval']));
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['books_invoiceDraft', 'approval_request', 'approval_wait']));
    await expect(call(agent, 'books_billCapture', { payeeName: 'Out', description: 'x', totalCents: 100, dueDays: 0 })).rejects.toThrow(
      /not in the toolsets this server loads/,
    );
    expect(await listed('books.bills', 'Out')).toEqual([]);
    const drafted = await call(agent, 'books_invoiceDraft', { payeeName: uniqueName('In'), description: 'x', totalCents: 100, dueDays: 0 });
    expect(drafted.isError).toBeFalsy();

    const res = await fetch(`${t.url}/mcp?toolsets=receivables,ledgers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${org.keys.agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32602, message: `toolsets: unknown toolset "ledgers": valid toolsets are ${AREAS.join(', ')}, all` },
      id: null,
    });
  });
});
