import { createRequire } from 'node:module';
import {
  ALWAYS_AREA,
  ARTIFACTS_READ,
  AREAS,
  OPT_IN_AREAS,
  areaOf,
  isArea,
  limits,
  methods,
  reads,
  type MethodSpec,
  type ReadSpec,
} from '@finance-desk/protocol';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Desk } from './desk.js';
import { INSTRUCTIONS, methodAnnotations, methodDescription, readAnnotations, readDescription, sentHints } from './describe.js';
import { toolTable } from './names.js';
import { callQuery, methodInputSchema, readInputSchema, writeArguments } from './schemas.js';
import { boundedResult, failureResult, getResult, postResult, type ToolResult } from './results.js';

type Entry = { readonly method: MethodSpec; readonly read?: never } | { readonly read: ReadSpec; readonly method?: never };

interface Catalogue {
  readonly tools: Tool[];
  readonly byName: ReadonlyMap<string, Entry>;
}

let catalogue: Catalogue | undefined;

/**
 * The machine-readable descriptions (OpenAPI, the method list, the event catalogue) are for code
 * generators, not for a model: it has the tools themselves, and one of those documents would fill
 * its context. They stay reads of the API (GET /api/v1/artifacts/…), not tools.
 */
export function isArtifactRead(name: string): boolean {
  return name === ARTIFACTS_READ || name.startsWith(`${ARTIFACTS_READ}/`);
}

/**
 * Every POST method and every GET read as a tool, built once from the declarations: JSON Schemas,
 * annotations and descriptions come from the same specs the API validates with, so a tool can
 * never drift from its method. Throws at start on a tool-name collision. Built once per process
 * and shared by every server (one per HTTP request): a tools/list answers the same objects each
 * time rather than converting every schema again.
 */
export function toolCatalogue(): Catalogue {
  if (catalogue) return catalogue;
  const byName = toolTable<Entry>([
    ...methods.map((m) => [m.name, { method: m }] as const),
    ...reads.filter((r) => !isArtifactRead(r.name)).map((r) => [r.name, { read: r }] as const),
  ]);
  const tools: Tool[] = [];
  for (const [name, entry] of byName) {
    if (entry.method) {
      const m = entry.method;
      tools.push({
        name,
        description: methodDescription(m),
        inputSchema: methodInputSchema(m),
        annotations: sentHints(methodAnnotations(m)),
      });
    } else {
      const r = entry.read;
      tools.push({
        name,
        description: readDescription(r),
        inputSchema: readInputSchema(r),
        annotations: sentHints(readAnnotations(r)),
      });
    }
  }
  catalogue = { tools, byName };
  return catalogue;
}

/** The toolsets a host may load: the API's areas (protocol AREAS). */
export const TOOLSETS: readonly string[] = AREAS;

/** The name that loads every toolset, the opt-in ones too. */
export const ALL_TOOLSETS = 'all';

/**
 * `receivables,payables` (a CLI flag, an environment variable, a query parameter) as toolset
 * names; blanks around commas are ignored, `all` stands for every toolset, and an empty text is
 * the default set (an empty list: every toolset but the opt-in ones). Throws an Error naming an
 * unknown toolset and listing the valid ones.
 */
export function parseToolsets(text: string): string[] {
  const names = [
    ...new Set(
      text
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ];
  const unknown = names.filter((n) => n !== ALL_TOOLSETS && !isArea(n));
  if (unknown.length > 0) {
    const named =
      unknown
        .slice(0, 5)
        .map((u) => JSON.stringify(u.slice(0, 40)))
        .join(', ') + (unknown.length > 5 ? ', …' : '');
    throw new Error(`unknown toolset${unknown.length > 1 ? 's' : ''} ${named}: valid toolsets are ${TOOLSET_NAMES}`);
  }
  return names.includes(ALL_TOOLSETS) ? [...AREAS] : names;
}

/** The valid toolset names as an error lists them. */
export const TOOLSET_NAMES = [...AREAS, ALL_TOOLSETS].join(', ');

const subsets = new Map<string, Catalogue>();

/**
 * The catalogue cut to `toolsets`; with none named, every toolset but the opt-in ones (protocol
 * OPT_IN_AREAS: the books' setup, done once, whose tools a model running the books day to day
 * would otherwise carry on every turn). The approval area is always in: a held signature act needs
 * approval_request and approval_wait to complete.
 */
export function toolsetCatalogue(toolsets: readonly string[] = []): Catalogue {
  const all = toolCatalogue();
  const wanted = new Set<string>(
    toolsets.length === 0 ? AREAS.filter((a) => !OPT_IN_AREAS.includes(a)) : parseToolsets(toolsets.join(',')),
  );
  wanted.add(ALWAYS_AREA);
  if (wanted.size === AREAS.length) return all;
  const key = [...wanted].sort().join(',');
  const cached = subsets.get(key);
  if (cached) return cached;
  const inSet = (name: string) => {
    const entry = all.byName.get(name);
    const area = entry && areaOf(entry.method ? entry.method.name : entry.read.name);
    return area !== undefined && wanted.has(area);
  };
  const subset: Catalogue = {
    tools: all.tools.filter((t) => inSet(t.name)),
    byName: new Map([...all.byName].filter(([name]) => inSet(name))),
  };
  subsets.set(key, subset);
  return subset;
}

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

function argumentsObject(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

export interface McpServerOptions {
  /** The most bytes one tool result may carry (default limits.mcpResponseBytesMax). */
  readonly responseBytesMax?: number;
  /**
   * Load only these toolsets (areas: `receivables`, `payables`, …, or `all`; see parseToolsets),
   * plus the approval tools; default every toolset but the opt-in `setup`. A tool outside them is
   * unknown to this server.
   */
  readonly toolsets?: readonly string[];
}

function badArgument(field: string, message: string): ToolResult {
  return {
    content: [{ type: 'text', text: `BAD_REQUEST: ${message} (field ${field})` }],
    structuredContent: { ok: false, error: { code: 'BAD_REQUEST', message, field } },
    isError: true,
  };
}

/** One tool call: one API call through the desk, its answer as a tool result. */
async function callTool(desk: Desk, entry: Entry, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
  try {
    if (entry.method) {
      if (entry.method.kind === 'read') return postResult(tool, args, await desk.post(entry.method.name, args, { signal }));
      const write = writeArguments(args);
      if (!write.ok) return badArgument(write.field, write.message);
      // The model's key when it gave one (a retry of its own call); else the desk makes a fresh one.
      const opts = write.idempotencyKey === undefined ? { signal } : { signal, idempotencyKey: write.idempotencyKey };
      return postResult(tool, args, await desk.post(entry.method.name, write.params, opts));
    }
    const query = callQuery(args);
    if (!query.ok) return badArgument(query.field, query.message);
    return getResult(tool, args, await desk.get(entry.read.name, query.query, { signal }));
  } catch (error) {
    return failureResult(tool, error);
  }
}

/**
 * One MCP server over a Desk. Each tool call is one API call through the desk, so the API's own
 * rules (credential, scopes, rate limit, validation, the signature law, the ledger) judge it. A
 * write goes with the model's `idempotencyKey` when it gave one, else the desk (the typed client)
 * gives it a fresh one. A result over `responseBytesMax` is answered with an error asking for
 * less. Throws on an unknown toolset.
 */
export function createMcpServer(desk: Desk, options: McpServerOptions = {}): Server {
  const { tools, byName } = toolsetCatalogue(options.toolsets);
  const responseBytesMax = options.responseBytesMax ?? limits.mcpResponseBytesMax;
  const server = new Server(
    { name: 'finance-desk', title: 'Finance Desk', version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<ToolResult> => {
    const tool = request.params.name;
    const entry = byName.get(tool);
    if (!entry) {
      const outside = toolCatalogue().byName.has(tool) ? ' (not in the toolsets this server loads)' : '';
      throw new McpError(ErrorCode.InvalidParams, `unknown tool ${tool.slice(0, 100)}${outside}`);
    }
    const result = await callTool(desk, entry, tool, argumentsObject(request.params.arguments), extra.signal);
    // A write's result is small; were one ever over the bound, the act stands and the model must know it.
    return boundedResult(tool, result, responseBytesMax, entry.method !== undefined && entry.method.kind !== 'read');
  });
  return server;
}
