/**
 * What the tool layer promises without a server: annotations that say truthfully whether a call
 * acts again, the idempotencyKey argument of every write tool, and toolsets (a host loading part
 * of the API, the approval tools always with it).
 */
import { AREAS, OPT_IN_AREAS, areaOf, books, methods, payables, reads, type MethodSpec } from '@finance-desk/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Desk, DeskCallOptions } from '../src/desk.js';
import { actsAgain, APPROVAL_NOTE, HINT_DEFAULTS, INSTRUCTIONS } from '../src/describe.js';
import { toolName } from '../src/names.js';
import { postResult } from '../src/results.js';
import { createMcpServer, parseToolsets, toolCatalogue, toolsetCatalogue } from '../src/server.js';
import { handleMcpHttp } from '../src/transports.js';

function recordingDesk() {
  const posts: { method: string; params: unknown; opts: DeskCallOptions | undefined }[] = [];
  const desk: Desk = {
    post: (method, params, opts) => {
      posts.push({ method, params, opts });
      return Promise.resolve({
        status: 200,
        frame: { ok: true, result: { id: 'inv_1' } },
        idempotencyKey: opts?.idempotencyKey ?? 'fresh',
        requestId: null,
      });
    },
    get: () => Promise.resolve({ status: 200, body: {}, requestId: null }),
  };
  return { desk, posts };
}

async function connected(desk: Desk, toolsets?: string[]) {
  const server = createMcpServer(desk, toolsets ? { toolsets } : {});
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 't', version: '0' });
  await client.connect(b);
  return client;
}

const declared = new Map<string, MethodSpec>(methods.map((m) => [toolName(m.name), m]));

describe('annotations', () => {
  it('match each declaration: reads and by-state writes idempotent; new acts, signature acts and writes that create are not', () => {
    for (const tool of toolCatalogue().tools) {
      const m = declared.get(tool.name);
      // Absent hints take the MCP specification's defaults (only differing hints are sent).
      const a = { ...HINT_DEFAULTS, ...(tool.annotations ?? {}) };
      // No title either: it was the name re-spelt, and a host shows the name when there is none.
      expect(a, tool.name).not.toHaveProperty('title');
      expect(tool, tool.name).not.toHaveProperty('title');
      if (!m || m.kind === 'read') {
        expect(a, tool.name).toMatchObject({ readOnlyHint: true, openWorldHint: false });
        expect(tool.annotations, tool.name).toEqual({ readOnlyHint: true, openWorldHint: false });
        continue;
      }
      const actsAgain = m.kind === 'new-act' || m.kind === 'signature' || m.repeat === 'creates';
      expect(a, tool.name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: m.kind === 'signature',
        idempotentHint: !actsAgain,
        // Open world: the call may email, lodge, write a file for a bank or fund, or ask a model.
        openWorldHint: m.reachesOut === true,
      });
      expect(m.repeat === undefined || m.kind === 'write', `${m.name}: repeat is for writes`).toBe(true);
    }
    for (const m of [books.invoiceDraft, books.billCapture]) expect(m.repeat, m.name).toBe('creates');
    // Sending an invoice emails the customer; a manual journal touches the books alone.
    const hints = new Map(toolCatalogue().tools.map((t) => [t.name, { ...HINT_DEFAULTS, ...(t.annotations ?? {}) }]));
    expect(hints.get('books_invoiceSend')?.openWorldHint).toBe(true);
    expect(hints.get('books_taxSignLodge')?.openWorldHint).toBe(true);
    expect(hints.get('books_journalPost')?.openWorldHint).toBe(false);
  });

  it("say so in words, once each: a write's idempotencyKey tells how a repeat acts, a signature act that it needs a human", () => {
    const byName = new Map(toolCatalogue().tools.map((t) => [t.name, t]));
    const key = (name: string) => (byName.get(name)?.inputSchema.properties as Record<string, { description?: string }>).idempotencyKey;
    expect(key('books_invoiceDraft')?.description).toBe('Reuse on retry, else creates again');
    expect(key('books_invoiceSend')?.description).toBe('Reuse on retry (repeat-safe)');
    expect(key('books_payrollSign')?.description).toBe('Reuse on retry, else acts again');
    for (const m of methods.filter((d) => d.kind !== 'read')) {
      const tool = byName.get(toolName(m.name));
      expect(key(toolName(m.name))?.description?.includes('repeat-safe'), m.name).toBe(!actsAgain(m));
      // Said beside the key, not again in the description (the tool list's budget).
      expect(tool?.description, m.name).not.toMatch(/repeat-safe|reuse idempotencyKey|same call again/i);
      expect(tool?.description?.endsWith(`\n\n${APPROVAL_NOTE}`), m.name).toBe(m.kind === 'signature');
    }
    const sign = byName.get('books_payrollSign')?.description ?? '';
    expect(sign).toContain('Needs a human: on "approval_required", make the calls its next lists.');
    expect(sign).not.toContain('(Finance Desk method');
    expect(INSTRUCTIONS).toContain('1. call approval_request');
    for (const ending of ['"repeat-safe"', '"else creates again"', '"else acts again"']) expect(INSTRUCTIONS).toContain(ending);
  });
});

describe('params a tool does not offer', () => {
  const declaredParams = (m: MethodSpec) =>
    Object.keys((z.toJSONSchema(m.params, { io: 'input' }) as { properties?: object }).properties ?? {});

  it('offers approvalId, not signatureToken, on every signature act (the approval loop gives approvalId)', () => {
    const { tools } = toolCatalogue();
    for (const tool of tools) expect(tool.inputSchema.properties ?? {}, tool.name).not.toHaveProperty('signatureToken');
    for (const m of methods.filter((d) => d.kind === 'signature'))
      expect(tools.find((t) => t.name === toolName(m.name))?.inputSchema.properties, m.name).toHaveProperty('approvalId');
  });

  it('offers fundingAccountId, not inline funding, where a method takes both', () => {
    const both = methods.filter((m) => ['funding', 'fundingAccountId'].every((p) => declaredParams(m).includes(p)));
    expect(both.map((m) => m.name)).toEqual(expect.arrayContaining([payables.billScheduleRun.name]));
    for (const m of both) {
      const props = toolCatalogue().tools.find((t) => t.name === toolName(m.name))?.inputSchema.properties as Record<
        string,
        { description?: string }
      >;
      expect(props, m.name).not.toHaveProperty('funding');
      expect(props.fundingAccountId?.description, m.name).toBe('Pay-from account: a books_bankAccounts id with directEntry');
    }
  });

  it('passes one sent anyway to the API, which judges it as over HTTP', async () => {
    const { desk, posts } = recordingDesk();
    const client = await connected(desk);
    const args = { billIds: ['bill_1'], paymentDate: '2030-01-01', funding: { bsb: '062-000' }, signatureToken: 'fdt_x' };
    await client.callTool({ name: toolName(payables.billScheduleRun.name), arguments: args });
    expect(posts).toEqual([{ method: payables.billScheduleRun.name, params: args, opts: expect.anything() }]);
    await client.close();
  });
});

describe('the idempotencyKey argument', () => {
  it('is offered by every write tool (write, new act, signature) and by no read', () => {
    for (const tool of toolCatalogue().tools) {
      const m = declared.get(tool.name);
      const writes = m !== undefined && m.kind !== 'read';
      const props = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string; maxLength?: number }>;
      expect('idempotencyKey' in props, tool.name).toBe(writes);
      if (writes) {
        expect(props.idempotencyKey?.description).toContain('Reuse on retry');
        expect(props.idempotencyKey).toEqual({ type: 'string', description: expect.any(String) as string });
        expect(tool.inputSchema.required ?? []).not.toContain('idempotencyKey');
      }
    }
  });

  it("is sent as the request's idempotency key, never as a param; absent, the desk makes its own", async () => {
    const { desk, posts } = recordingDesk();
    const client = await connected(desk);
    const args = { payeeName: 'Ann', description: 'x', totalCents: 100, dueDays: 0 };
    await client.callTool({ name: 'books_invoiceDraft', arguments: { ...args, idempotencyKey: 'retry-1' } });
    await client.callTool({ name: 'books_invoiceDraft', arguments: args });
    expect(posts).toEqual([
      { method: 'books.invoiceDraft', params: args, opts: expect.objectContaining({ idempotencyKey: 'retry-1' }) },
      { method: 'books.invoiceDraft', params: args, opts: expect.not.objectContaining({ idempotencyKey: expect.anything() }) },
    ]);
    await client.close();
  });

  it('refuses a key the API would refuse, naming the field, before any request', async () => {
    const { desk, posts } = recordingDesk();
    const client = await connected(desk);
    for (const bad of ['', 'has space', 'x'.repeat(256), 42, 'é']) {
      const r = (await client.callTool({
        name: 'books_invoiceDraft',
        arguments: { payeeName: 'A', description: 'x', totalCents: 1, dueDays: 0, idempotencyKey: bad },
      })) as any;
      expect(r.isError, String(bad)).toBe(true);
      expect(r.structuredContent.error).toMatchObject({ code: 'BAD_REQUEST', field: 'idempotencyKey' });
    }
    expect(posts).toEqual([]);
    await client.close();
  });

  it("is left out of the held call's retry in `next` (the retry with the proof is a new call)", () => {
    const approval = {
      actionClass: 'books.payroll_sign',
      payloadHash: 'a'.repeat(64),
      subject: { kind: 'books.signature' as const, subjectId: 'pr_1', summary: 's' },
    };
    const r = postResult(
      'books_payrollSign',
      { id: 'pr_1', idempotencyKey: 'k1' },
      {
        status: 200,
        requestId: null,
        frame: { ok: true, result: { status: 'approval_required', approval, subjectId: 'pr_1', message: 'held' } },
      },
    );
    const retry = (r.structuredContent as any).next.then[1];
    expect(retry.arguments).toEqual({ id: 'pr_1', approvalId: expect.any(String) });
  });
});

describe('toolsets', () => {
  it('put every method and read in exactly one area', () => {
    for (const d of [...methods, ...reads]) expect(AREAS, d.name).toContain(areaOf(d.name));
  });

  it('parse a comma list, and name an unknown toolset with the valid ones', () => {
    expect(parseToolsets(' receivables, payables ,,receivables')).toEqual(['receivables', 'payables']);
    expect(parseToolsets('')).toEqual([]);
    expect(parseToolsets('receivables,all')).toEqual([...AREAS]);
    expect(() => parseToolsets('receivables,nope')).toThrow(`unknown toolset "nope": valid toolsets are ${AREAS.join(', ')}, all`);
  });

  it('leave the opt-in setup toolset out by default, and load it when named or with all', () => {
    expect(OPT_IN_AREAS).toEqual(['setup']);
    const names = (toolsets?: string[]) => toolsetCatalogue(toolsets).tools.map((t) => t.name);
    const setupTools = [
      'books_openingBalances',
      'books_accountCreate',
      'books_accountUpdate',
      'books_accountArchive',
      'books_budgetSet',
      'books_trackingSet',
    ];
    for (const t of setupTools) expect(areaOf(toolCatalogue().byName.get(t)?.method?.name ?? ''), t).toBe('setup');
    expect(names()).not.toEqual(expect.arrayContaining([setupTools[0]]));
    for (const t of setupTools) expect(names(), t).not.toContain(t);
    expect(names()).toEqual(expect.arrayContaining(['books_invoiceDraft', 'books_accounts', 'books_journalPost', 'approval_request']));
    expect(names(['setup']).sort()).toEqual([...setupTools, ...names(['approval'])].sort());
    expect(toolsetCatalogue(['all'])).toBe(toolCatalogue());
    expect(names().length + setupTools.length).toBe(toolCatalogue().tools.length);
  });

  it("list only the chosen areas' tools plus the approval tools, and refuse a call outside them", async () => {
    const { desk, posts } = recordingDesk();
    const client = await connected(desk, ['receivables']);
    const { tools } = await client.listTools();
    const areas = new Set(
      tools.map((t) => areaOf(toolCatalogue().byName.get(t.name)?.method?.name ?? toolCatalogue().byName.get(t.name)?.read?.name ?? '')),
    );
    expect([...areas].sort()).toEqual(['approval', 'receivables']);
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['books_invoiceDraft', 'books_invoices', 'approval_request', 'approval_wait']));
    expect(names).not.toContain('books_billCapture');
    expect(tools).toEqual(toolsetCatalogue(['receivables']).tools);
    await expect(
      client.callTool({ name: 'books_billCapture', arguments: { payeeName: 'A', description: 'x', totalCents: 1, dueDays: 0 } }),
    ).rejects.toThrow(/unknown tool books_billCapture \(not in the toolsets this server loads\)/);
    expect(posts).toEqual([]);
    await client.close();
    expect(() => createMcpServer(desk, { toolsets: ['ledger'] })).toThrow(/unknown toolset "ledger"/);
  });

  it('over HTTP: an unknown toolset is a 400 JSON-RPC error naming it and listing the valid ones', async () => {
    const { desk } = recordingDesk();
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const res = await handleMcpHttp(desk, request, { toolsets: 'receivables,bogus' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32602, message: `toolsets: unknown toolset "bogus": valid toolsets are ${AREAS.join(', ')}, all` },
      id: null,
    });
  });
});
