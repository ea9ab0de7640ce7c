import { limits } from '@finance-desk/protocol';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Desk } from './desk.js';
import { createMcpServer } from './server.js';

/**
 * A JSON-RPC message is the API's params plus a small envelope: the bound is the API's body limit
 * with room for the envelope, so MCP accepts what the API would and nothing far larger.
 */
export const MCP_MESSAGE_BYTES_MAX = limits.bodyBytesMax + 16 * 1024;

/**
 * Counts the desk calls in flight, so the end of input can wait for the answers already owed: a
 * host that writes its requests and closes stdin still gets every response.
 */
function trackedDesk(desk: Desk): { desk: Desk; idle: () => Promise<void> } {
  let pending = 0;
  const waiters: (() => void)[] = [];
  const track = async <T>(call: Promise<T>): Promise<T> => {
    pending += 1;
    try {
      return await call;
    } finally {
      pending -= 1;
      if (pending === 0) for (const wake of waiters.splice(0)) wake();
    }
  };
  return {
    desk: {
      post: (method, params, opts) => track(desk.post(method, params, opts)),
      get: (name, query, opts) => track(desk.get(name, query, opts)),
    },
    idle: () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}

/**
 * Serve MCP over stdin/stdout until stdin ends and every answer owed is written. stdout carries
 * only MCP frames: nothing here logs, and the caller must not write to stdout either.
 */
export async function serveStdio(desk: Desk, io: { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream } = {}): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin as typeof process.stdin, (io.stdout ?? process.stdout) as typeof process.stdout, {
    maxBufferSize: MCP_MESSAGE_BYTES_MAX,
  });
  const tracked = trackedDesk(desk);
  const server = createMcpServer(tracked.desk);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  // The SDK transport does not watch for end of input: the host closing our stdin ends the
  // session, once the calls in flight have answered (their responses are written in the
  // microtasks after the desk resolves, hence the turn of the event loop before closing).
  let ending = false;
  const end = () => {
    if (ending) return;
    ending = true;
    void tracked
      .idle()
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => server.close());
  };
  stdin.once('end', end);
  stdin.once('close', end);
  await closed;
}

const METHOD_NOT_ALLOWED = JSON.stringify({
  jsonrpc: '2.0',
  error: { code: -32000, message: 'this server is stateless: send JSON-RPC requests with POST /mcp (no server-initiated stream)' },
  id: null,
});

/**
 * One Streamable HTTP exchange in stateless mode (no session id): a fresh server and transport per
 * request, JSON answers rather than SSE. A GET (the optional server-to-client stream) has nothing
 * to carry without sessions, so it is 405, as the MCP transport spec allows; clients then go on
 * without it.
 */
export async function handleMcpHttp(desk: Desk, request: Request): Promise<Response> {
  if (request.method === 'GET') {
    return new Response(METHOD_NOT_ALLOWED, { status: 405, headers: { 'content-type': 'application/json', allow: 'POST, DELETE' } });
  }
  const server = createMcpServer(desk);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_MESSAGE_BYTES_MAX,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    // The JSON answer is complete once handleRequest resolves; nothing outlives the request.
    await server.close();
  }
}
