import { createRequire } from 'node:module';
import { limits, methods, reads, type MethodSpec, type ReadSpec } from '@finance-desk/protocol';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Desk } from './desk.js';
import { INSTRUCTIONS, methodAnnotations, methodDescription, readAnnotations, readDescription } from './describe.js';
import { toolTable } from './names.js';
import { callQuery, methodInputSchema, readInputSchema } from './schemas.js';
import { boundedResult, failureResult, getResult, postResult, type ToolResult } from './results.js';

type Entry = { readonly method: MethodSpec; readonly read?: never } | { readonly read: ReadSpec; readonly method?: never };

interface Catalogue {
  readonly tools: Tool[];
  readonly byName: ReadonlyMap<string, Entry>;
}

let catalogue: Catalogue | undefined;

/**
 * Every POST method and every GET read as a tool, built once from the declarations (issue 11
 * item 5): JSON Schemas, annotations and descriptions come from the same specs the API validates
 * with, so a tool can never drift from its method. Throws at start on a tool-name collision.
 * Built once per process and shared by every server (one per HTTP request): a tools/list answers
 * the same objects each time rather than converting every schema again.
 */
export function toolCatalogue(): Catalogue {
  if (catalogue) return catalogue;
  const byName = toolTable<Entry>([
    ...methods.map((m) => [m.name, { method: m }] as const),
    ...reads.map((r) => [r.name, { read: r }] as const),
  ]);
  const tools: Tool[] = [];
  for (const [name, entry] of byName) {
    if (entry.method) {
      const m = entry.method;
      const annotations = methodAnnotations(m);
      tools.push({ name, title: annotations.title, description: methodDescription(m), inputSchema: methodInputSchema(m), annotations });
    } else {
      const r = entry.read;
      const annotations = readAnnotations(r);
      tools.push({ name, title: annotations.title, description: readDescription(r), inputSchema: readInputSchema(r), annotations });
    }
  }
  catalogue = { tools, byName };
  return catalogue;
}

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

function argumentsObject(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

export interface McpServerOptions {
  /** The most bytes one tool result may carry (default limits.mcpResponseBytesMax). */
  readonly responseBytesMax?: number;
}

/** One tool call: one API call through the desk, its answer as a tool result. */
async function callTool(desk: Desk, entry: Entry, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
  try {
    if (entry.method) {
      return postResult(tool, args, await desk.post(entry.method.name, args, { signal }));
    }
    const query = callQuery(args);
    if (!query.ok) {
      return {
        content: [{ type: 'text', text: `BAD_REQUEST: ${query.message}` }],
        structuredContent: { ok: false, error: { code: 'BAD_REQUEST', message: query.message, field: query.field } },
        isError: true,
      };
    }
    return getResult(tool, args, await desk.get(entry.read.name, query.query, { signal }));
  } catch (error) {
    return failureResult(tool, error);
  }
}

/**
 * One MCP server over a Desk. Each tool call is one API call through the desk, so the API's own
 * rules (credential, scopes, rate limit, validation, the signature law, the ledger) judge it; the
 * desk (the typed client) gives every POST its own idempotency key. A result over
 * `responseBytesMax` is answered with an error asking for less.
 */
export function createMcpServer(desk: Desk, options: McpServerOptions = {}): Server {
  const { tools, byName } = toolCatalogue();
  const responseBytesMax = options.responseBytesMax ?? limits.mcpResponseBytesMax;
  const server = new Server({ name: 'finance-desk', title: 'Finance Desk', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<ToolResult> => {
    const tool = request.params.name;
    const entry = byName.get(tool);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${tool.slice(0, 100)}`);
    const result = await callTool(desk, entry, tool, argumentsObject(request.params.arguments), extra.signal);
    // A write's result is small; were one ever over the bound, the act stands and the model must know it.
    return boundedResult(tool, result, responseBytesMax, entry.method !== undefined && entry.method.kind !== 'read');
  });
  return server;
}
