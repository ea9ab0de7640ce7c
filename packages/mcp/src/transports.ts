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
 * Serve MCP over stdin/stdout until stdin ends. stdout carries only MCP frames: nothing here logs,
 * and the caller must not write to stdout either.
 */
export async function serveStdio(desk: Desk, io: { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream } = {}): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin as typeof process.stdin, (io.stdout ?? process.stdout) as typeof process.stdout, {
    maxBufferSize: MCP_MESSAGE_BYTES_MAX,
  });
  const server = createMcpServer(desk);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  // The SDK transport does not watch for end of input; the host closing our stdin ends the session.
  stdin.once('end', () => void server.close());
  stdin.once('close', () => void server.close());
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
