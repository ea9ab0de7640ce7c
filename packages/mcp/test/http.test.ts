/**
 * The Streamable HTTP exchange without a server: one request is one message (a JSON-RPC batch is
 * refused before any of it reaches the desk), and what one request makes the server write is
 * bounded (a tool result over the bound becomes an error asking for less; any other answer over
 * it, a JSON-RPC error).
 */
import { books, readSpecs } from '@finance-desk/protocol';
import { describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk.js';
import { toolName } from '../src/names.js';
import { BATCH_REFUSED, handleMcpHttp } from '../src/transports.js';

/** A desk that records each call and answers every read with `body`. */
function fakeDesk(body: unknown = { ok: true }) {
  const calls: string[] = [];
  const desk: Desk = {
    post: (method) => {
      calls.push(method);
      return Promise.resolve({ status: 200, frame: { ok: true, result: { id: 'inv_1' } }, idempotencyKey: null, requestId: null });
    },
    get: (name) => {
      calls.push(name);
      return Promise.resolve({ status: 200, body, requestId: null });
    },
  };
  return { desk, calls };
}

const post = (body: unknown) =>
  new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('handleMcpHttp', () => {
  it('refuses a batch whole with 400 Invalid Request, calling nothing', async () => {
    const { desk, calls } = fakeDesk();
    for (const batch of [
      [call(1, toolName(books.invoiceDraft.name), { payeeName: 'A' }), call(2, toolName(readSpecs.orgSelf.name))],
      [call(1, toolName(books.invoiceDraft.name))],
      [],
    ]) {
      const res = await handleMcpHttp(desk, post(batch));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: BATCH_REFUSED }, id: null });
    }
    expect(calls).toEqual([]);
  });

  it('answers one message as before', async () => {
    const { desk, calls } = fakeDesk({ slug: 'x' });
    const res = await handleMcpHttp(desk, post(call(3, toolName(readSpecs.orgSelf.name))));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 3, result: { structuredContent: { slug: 'x' } } });
    expect(calls).toEqual([readSpecs.orgSelf.name]);
    const bad = await handleMcpHttp(desk, post('{'));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('bounds one response: a tool result over the bound is an error asking for less; a tool list over it, a JSON-RPC error', async () => {
    const { desk } = fakeDesk({ rows: 'x'.repeat(50_000) });
    const cut = await handleMcpHttp(desk, post(call(4, toolName(readSpecs.events.name))), { responseBytesMax: 20_000 });
    expect(cut.status).toBe(200);
    const text = await cut.text();
    expect(Buffer.byteLength(text)).toBeLessThan(20_000);
    expect(JSON.parse(text)).toMatchObject({
      id: 4,
      result: {
        isError: true,
        structuredContent: { error: { code: 'RESPONSE_TOO_LARGE', message: expect.stringContaining('ask for less') } },
      },
    });
    const list = await handleMcpHttp(desk, post({ jsonrpc: '2.0', id: 5, method: 'tools/list' }), { responseBytesMax: 20_000 });
    expect(await list.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'the response is larger than the 20000 bytes one MCP response may carry' },
      id: 5,
    });
    // Under the default bound both answer in full.
    const full = await handleMcpHttp(desk, post(call(6, toolName(readSpecs.events.name))));
    expect((await full.json()).result.structuredContent.rows).toHaveLength(50_000);
  });
});
