import { limits } from '@finance-desk/protocol';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Desk } from './desk.js';
import { createMcpServer, parseToolsets, type McpServerOptions } from './server.js';

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
export async function serveStdio(
  desk: Desk,
  io: { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream } = {},
  options: Pick<McpServerOptions, 'toolsets'> = {},
): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin as typeof process.stdin, (io.stdout ?? process.stdout) as typeof process.stdout, {
    maxBufferSize: MCP_MESSAGE_BYTES_MAX,
  });
  const tracked = trackedDesk(desk);
  const server = createMcpServer(tracked.desk, options);
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

/** JSON-RPC 2.0 error codes used here. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const SERVER_ERROR = -32000;

export const BATCH_REFUSED =
  'Invalid Request: JSON-RPC batches are not accepted (MCP 2025-06-18 and later has none); send one message per request';

function rpcError(status: number, code: number, message: string, id: string | number | null = null): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** The body as text, or null once it is over `bytesMax` (a declared length over it is not read at all). */
async function boundedText(request: Request, bytesMax: number): Promise<string | null> {
  if (Number(request.headers.get('content-length')) > bytesMax) return null;
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > bytesMax) {
        await reader.cancel();
        return null;
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return text + decoder.decode();
}

function requestId(message: unknown): string | number | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

export interface McpHttpOptions {
  /** The most bytes one response may carry (default limits.mcpResponseBytesMax). */
  readonly responseBytesMax?: number;
  /**
   * The toolsets to load, as a host sent them (`/mcp?toolsets=receivables,payables`): the text,
   * or its values when the parameter came more than once. An unknown one is a 400 JSON-RPC error
   * naming it and listing the valid ones.
   */
  readonly toolsets?: string | readonly string[];
}

/**
 * One Streamable HTTP exchange in stateless mode (no session id): a fresh server and transport per
 * request, JSON answers rather than SSE. A GET (the optional server-to-client stream) has nothing
 * to carry without sessions, so it is 405, as the MCP transport spec allows; clients then go on
 * without it.
 *
 * One request is one message. The SDK's transport would run a JSON-RPC batch (up to 100 messages)
 * for the one rate-limit token the request took, so a batch is refused here, whole and before any
 * message in it is handed to the server: MCP 2025-06-18 removed batches, and the SDK's clients
 * never send one. What one request makes the server write is bounded too (`responseBytesMax`):
 * tool results are cut to an error in the tool layer (server.ts), and any other answer over the
 * bound becomes a JSON-RPC error here.
 */
export async function handleMcpHttp(desk: Desk, request: Request, options: McpHttpOptions = {}): Promise<Response> {
  if (request.method === 'GET') {
    return new Response(METHOD_NOT_ALLOWED, { status: 405, headers: { 'content-type': 'application/json', allow: 'POST, DELETE' } });
  }
  const responseBytesMax = options.responseBytesMax ?? limits.mcpResponseBytesMax;
  let toolsets: string[] = [];
  if (options.toolsets !== undefined) {
    try {
      toolsets = parseToolsets(typeof options.toolsets === 'string' ? options.toolsets : options.toolsets.join(','));
    } catch (error) {
      return rpcError(400, INVALID_PARAMS, `toolsets: ${(error as Error).message}`);
    }
  }
  let parsedBody: unknown;
  if (request.method === 'POST') {
    const text = await boundedText(request, MCP_MESSAGE_BYTES_MAX);
    if (text === null)
      return rpcError(413, SERVER_ERROR, `Payload Too Large: a request body must not exceed ${MCP_MESSAGE_BYTES_MAX} bytes`);
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return rpcError(400, PARSE_ERROR, 'Parse error: Invalid JSON');
    }
    if (Array.isArray(parsedBody)) return rpcError(400, INVALID_REQUEST, BATCH_REFUSED);
  }
  const server = createMcpServer(desk, { responseBytesMax, toolsets });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_MESSAGE_BYTES_MAX,
  });
  await server.connect(transport);
  let response: Response;
  try {
    response = await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    // The JSON answer is complete once handleRequest resolves; nothing outlives the request.
    await server.close();
  }
  if (response.body === null) return response;
  const body = await response.text();
  if (Buffer.byteLength(body) > responseBytesMax) {
    return rpcError(
      200,
      SERVER_ERROR,
      `the response is larger than the ${responseBytesMax} bytes one MCP response may carry`,
      requestId(parsedBody),
    );
  }
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
