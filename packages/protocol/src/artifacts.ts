import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import { flatObjectSchema } from './flat-schema.js';
import { sha256Hex } from './hash.js';
import { eventCatalogueArtifact } from './events.js';
import { ACTION_CLASSES } from './signature.js';
import { ARTIFACT_FILES, type ArtifactFile } from './methods/artifacts-reads.js';
import { holdFrame } from './methods/fields.js';
import { methods, publicRoutes, reads } from './methods/index.js';
import type { MethodSpec, ReadSpec } from './methods/types.js';

/**
 * Machine-readable descriptions of the API, generated from the declarations:
 * `methods.json` (this project's own shape) and `openapi.json` (OpenAPI 3.1). Nothing here lists a
 * method, read or code by hand: each comes from `methods`, `reads`, `publicRoutes`, ERROR_STATUS.
 * The output is deterministic (lists and paths sorted by name), so the committed copies in
 * docs/artifacts/ can be compared byte for byte with what the code generates.
 */

/** The version both artifacts state; the protocol package's version (a test keeps them equal). */
export const PROTOCOL_VERSION = '0.1.0';

type JsonSchema = { [key: string]: unknown };

/**
 * A zod schema as JSON Schema (draft 2020-12, which OpenAPI 3.1 uses). Params and queries are
 * described as the client sends them (`io: 'input'`: defaults make a field optional, a query
 * integer is the string it arrives as); results as the server answers (`io: 'output'`). A
 * construct JSON Schema cannot express (a transform's output type, a custom check) becomes `{}`
 * (any value) instead of failing the whole artifact (`unrepresentable: 'any'`); the refinements
 * such a schema drops are still enforced by the server, and every current declaration converts
 * without one. `$schema` is dropped: the enclosing document states the dialect once.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete out.$schema;
  if ('$defs' in out) {
    // Only recursive or registered schemas produce $defs; none exist, and a `#/$defs/…` reference
    // would point at the wrong root once the schema is embedded in the OpenAPI document.
    throw new Error('artifacts: a declaration produced JSON Schema $defs; give it a components entry');
  }
  return out;
}

/**
 * Params or a query as a client sends them, always one flat object at the top (flat-schema.ts):
 * a union of object params is advertised flattened, as the MCP tools advertise it.
 */
export function paramsSchemaOf(schema: z.ZodType): JsonSchema {
  return flatObjectSchema(jsonSchemaOf(schema, 'input'));
}

/** The read's result schema when its declaration has one. */
function readResult(spec: ReadSpec): z.ZodType | undefined {
  const r = (spec as { result?: unknown }).result;
  return r instanceof z.ZodType ? r : undefined;
}

const byName = <T extends { name: string }>(list: readonly T[]): T[] =>
  [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

// ---------------------------------------------------------------------------------------------
// methods.json

export interface MethodsArtifact {
  version: string;
  methods: {
    name: string;
    scope: string;
    kind: string;
    actionClass?: string;
    summary: string;
    params: JsonSchema;
    result: JsonSchema;
  }[];
  reads: { name: string; scope: string; summary: string; query: JsonSchema; result?: JsonSchema }[];
  /** Routes that take no API key (the credential is in the body, e.g. a pairing code). */
  publicRoutes: { name: string; summary: string; params: JsonSchema }[];
}

export function methodsArtifact(): MethodsArtifact {
  return {
    version: PROTOCOL_VERSION,
    methods: byName(methods).map((m) => ({
      name: m.name,
      scope: m.scope,
      kind: m.kind,
      ...(m.actionClass !== undefined ? { actionClass: m.actionClass } : {}),
      summary: m.summary,
      params: paramsSchemaOf(m.params),
      result: jsonSchemaOf(m.result, 'output'),
    })),
    reads: byName(reads).map((r) => {
      const result = readResult(r);
      return {
        name: r.name,
        scope: r.scope,
        summary: r.summary,
        query: paramsSchemaOf(r.query),
        ...(result ? { result: jsonSchemaOf(result, 'output') } : {}),
      };
    }),
    publicRoutes: byName(publicRoutes).map((p) => ({
      name: p.name,
      summary: p.summary,
      params: paramsSchemaOf(p.params),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// openapi.json

/** Header names as http/app.ts sends and reads them. */
export const HTTP_HEADERS = {
  idempotencyKey: 'X-Idempotency-Key',
  idempotentReplayed: 'Idempotent-Replayed',
  requestId: 'X-Request-Id',
  rateLimitLimit: 'RateLimit-Limit',
  rateLimitRemaining: 'RateLimit-Remaining',
  rateLimitReset: 'RateLimit-Reset',
  retryAfter: 'Retry-After',
} as const;

/** X-Idempotency-Key: 1 to 255 printable ASCII characters (app.ts IDEMPOTENCY_KEY). */
const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';

const ref = (kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** A valid identifier from a method or read name: `books.invoiceDraft` → `books_invoiceDraft`. */
export function operationIdOf(name: string): string {
  return name.replace(/[^A-Za-z0-9]+/g, '_');
}

/** The family of a name (its tag): what precedes the first `.` or `/`. */
export function familyOf(name: string): string {
  return name.split(/[./]/, 1)[0] ?? name;
}

/** First sentence of a summary (OpenAPI `summary` is a short line; the whole text is `description`). */
function firstSentence(text: string): string {
  const m = /^(.+?[.!?])(\s|$)/.exec(text);
  const s = (m?.[1] ?? text).trim();
  return s.length <= 120 ? s : `${s.slice(0, 117).trimEnd()}…`;
}

/** Error codes per HTTP status, from ERROR_STATUS (IDEMPOTENT_REPLAY is a success, 200). */
function errorStatuses(): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) {
    if (status < 400) continue;
    out.set(status, [...(out.get(status) ?? []), code].sort());
  }
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
}

const responseName = (status: number) => `Error${status}`;

function components(): JsonSchema {
  const errorCodes = Object.entries(ERROR_STATUS)
    .filter(([, status]) => status >= 400)
    .map(([code]) => code)
    .sort();
  const approvalRef = {
    type: 'object',
    description: 'What a human must approve: file it with approval.request.',
    required: ['actionClass', 'payloadHash', 'subject'],
    properties: {
      actionClass: { type: 'string', enum: [...ACTION_CLASSES].sort() },
      payloadHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      subject: {
        type: 'object',
        required: ['kind', 'subjectId', 'summary'],
        properties: {
          kind: { type: 'string', const: 'books.signature' },
          subjectId: { type: 'string' },
          summary: { type: 'string' },
        },
      },
    },
  };
  const rateHeaders = {
    [HTTP_HEADERS.rateLimitLimit]: {
      description: 'Requests the key may make in a burst (token bucket size).',
      schema: { type: 'integer', minimum: 0 },
    },
    [HTTP_HEADERS.rateLimitRemaining]: {
      description: 'Requests left in the bucket after this one.',
      schema: { type: 'integer', minimum: 0 },
    },
    [HTTP_HEADERS.rateLimitReset]: {
      description: 'Seconds until the bucket is full again.',
      schema: { type: 'integer', minimum: 0 },
    },
  };
  const responses: JsonSchema = {};
  for (const [status, codes] of errorStatuses()) {
    responses[responseName(status)] = {
      description: `Error frame with code ${codes.join(' or ')}.`,
      headers: {
        [HTTP_HEADERS.requestId]: ref('headers', HTTP_HEADERS.requestId),
        ...(status === ERROR_STATUS.RATE_LIMITED ? { [HTTP_HEADERS.retryAfter]: ref('headers', HTTP_HEADERS.retryAfter) } : {}),
      },
      content: {
        'application/json': {
          schema: {
            allOf: [
              ref('schemas', 'ErrorFrame'),
              {
                type: 'object',
                required: ['error'],
                properties: {
                  error: { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } },
                },
              },
            ],
          },
        },
      },
    };
  }
  return {
    schemas: {
      ApprovalRef: approvalRef,
      ErrorFrame: {
        type: 'object',
        description:
          'Every refusal: a closed code, a message naming the problem, `field` (the first offending parameter, as a path) ' +
          'and, on a GOVERNANCE_NOT_READY refusal a human decision can lift, `approval` to file with approval.request.',
        required: ['ok', 'error'],
        properties: {
          ok: { type: 'boolean', const: false },
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: {
              code: { type: 'string', enum: errorCodes },
              message: { type: 'string' },
              field: { type: 'string', description: 'The parameter refused, as a path such as `lines[0].amountCents`.' },
              approval: ref('schemas', 'ApprovalRef'),
            },
          },
        },
      },
      HoldResult: {
        type: 'object',
        description:
          'The result of a signature act that needs a human: file `approval` with approval.request, wait for the ' +
          'decision (approval.wait), then retry the act with the approvalId.',
        required: ['status', 'approval', 'subjectId', 'message', 'ledgerId'],
        properties: {
          status: { type: 'string', const: 'approval_required' },
          approval: {
            type: 'object',
            allOf: [
              ref('schemas', 'ApprovalRef'),
              { type: 'object', required: ['expiresInMs'], properties: { expiresInMs: { type: 'integer', minimum: 0 } } },
            ],
          },
          subjectId: { type: 'string' },
          message: { type: 'string' },
          ledgerId: {
            type: 'string',
            description: 'The ledger event that records the held attempt (every unproven attempt is audited).',
          },
        },
      },
      HoldFrame: {
        type: 'object',
        description: 'A signature act held for a human decision: ok, with the hold as its result.',
        required: ['ok', 'result'],
        properties: { ok: { type: 'boolean', const: true }, result: ref('schemas', 'HoldResult') },
      },
      OkFrame: {
        type: 'object',
        description:
          'Every success of a POST: `result` is the answer, its schema stated by each operation. `code` is ' +
          'IDEMPOTENT_REPLAY only when the answer is the stored one of an earlier request with the same X-Idempotency-Key.',
        // `result` is required here and typed by each operation's 200 response (which repeats that
        // it is required). It has no property schema of its own: "any JSON" would be `{}`, which the
        // /docs page's reader (Scalar) refuses as a schema object, and every type at once would
        // make each operation's result a union a generated client cannot narrow.
        required: ['ok', 'result'],
        properties: {
          ok: { type: 'boolean', const: true },
          code: { type: 'string', const: 'IDEMPOTENT_REPLAY' },
        },
      },
    },
    responses,
    parameters: {
      IdempotencyKey: {
        name: HTTP_HEADERS.idempotencyKey,
        in: 'header',
        required: false,
        description:
          'Makes a retry safe: a second request with the same key answers the stored result with code ' +
          'IDEMPOTENT_REPLAY instead of acting again. 1 to 255 printable ASCII characters.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
      },
    },
    headers: {
      ...rateHeaders,
      [HTTP_HEADERS.retryAfter]: {
        description: 'Seconds until the key may call again (RATE_LIMITED).',
        schema: { type: 'integer', minimum: 0 },
      },
      [HTTP_HEADERS.requestId]: {
        description: 'The id of this request; quote it to the operator about an INTERNAL error.',
        schema: { type: 'string' },
      },
      [HTTP_HEADERS.idempotentReplayed]: {
        description: '`true` when the answer is a stored replay.',
        schema: { type: 'string', const: 'true' },
      },
    },
    securitySchemes: {
      bearerApiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key of the organisation: `Authorization: Bearer <key>`. Its tier (observer, reader, agent) fixes its scopes.',
      },
    },
  };
}

/** Response headers of a keyed request that passed the credential check. */
function keyedHeaders(): JsonSchema {
  return {
    [HTTP_HEADERS.requestId]: ref('headers', HTTP_HEADERS.requestId),
    [HTTP_HEADERS.rateLimitLimit]: ref('headers', HTTP_HEADERS.rateLimitLimit),
    [HTTP_HEADERS.rateLimitRemaining]: ref('headers', HTTP_HEADERS.rateLimitRemaining),
    [HTTP_HEADERS.rateLimitReset]: ref('headers', HTTP_HEADERS.rateLimitReset),
  };
}

/** Error responses of an operation: every status ERROR_STATUS maps a code to, less the excluded codes. */
function errorResponses(exclude: readonly ErrorCode[]): JsonSchema {
  const out: JsonSchema = {};
  for (const [status, codes] of errorStatuses()) {
    if (codes.every((c) => exclude.includes(c))) continue;
    out[String(status)] = ref('responses', responseName(status));
  }
  return out;
}

/** The ok frame of one operation: `result` required, with the operation's schema. */
function okWith(result: JsonSchema): JsonSchema {
  return {
    allOf: [ref('schemas', 'OkFrame'), { type: 'object', required: ['result'], properties: { result } }],
  };
}

/**
 * A signature act's declared result is `done | hold` (a union with the shared holdFrame). The 200
 * answer is stated as `oneOf [ok frame with the done result, HoldFrame]`: the two branches are
 * disjoint (a oneOf whose branches overlap refuses the very answer both accept), and a generator
 * names the hold once, by its component. Undefined when the result does not include the hold.
 */
function doneResultOf(m: MethodSpec): z.ZodType | undefined {
  if (!(m.result instanceof z.ZodUnion)) return undefined;
  const options = m.result.options as readonly z.ZodType[];
  if (!options.includes(holdFrame)) return undefined;
  const done = options.filter((o) => o !== holdFrame);
  const [first, ...rest] = done;
  if (first === undefined) return undefined;
  return rest.length === 0 ? first : z.union([first, ...rest]);
}

function methodOperation(m: MethodSpec): JsonSchema {
  const done = m.kind === 'signature' ? doneResultOf(m) : undefined;
  const ok = okWith(jsonSchemaOf(done ?? m.result, 'output'));
  const writes = m.kind !== 'read';
  return {
    operationId: operationIdOf(m.name),
    tags: [familyOf(m.name)],
    summary: firstSentence(m.summary),
    description: m.summary,
    ...(writes ? { parameters: [ref('parameters', 'IdempotencyKey')] } : {}),
    requestBody: {
      required: true,
      description: 'The params, bare or wrapped as `{"params": {…}}`.',
      content: { 'application/json': { schema: paramsSchemaOf(m.params) } },
    },
    responses: {
      '200': {
        description: done !== undefined ? 'Done, or held for a human decision (the hold frame: result.status approval_required).' : 'Done.',
        headers: {
          ...keyedHeaders(),
          ...(writes ? { [HTTP_HEADERS.idempotentReplayed]: ref('headers', HTTP_HEADERS.idempotentReplayed) } : {}),
        },
        content: {
          'application/json': {
            schema: done !== undefined ? { oneOf: [ok, ref('schemas', 'HoldFrame')] } : ok,
          },
        },
      },
      ...errorResponses([]),
    },
    'x-scope': m.scope,
    'x-kind': m.kind,
    ...(m.actionClass !== undefined ? { 'x-action-class': m.actionClass } : {}),
  };
}

function readOperation(r: ReadSpec): JsonSchema {
  const query = paramsSchemaOf(r.query);
  const properties = (query.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((query.required ?? []) as string[]);
  const result = readResult(r);
  return {
    operationId: operationIdOf(r.name),
    tags: [familyOf(r.name)],
    summary: firstSentence(r.summary),
    description: r.summary,
    ...(Object.keys(properties).length > 0
      ? {
          parameters: Object.entries(properties).map(([name, schema]) => ({
            name,
            in: 'query',
            required: required.has(name),
            schema,
          })),
        }
      : {}),
    responses: {
      '200': {
        description: 'The read, as JSON (no frame: a GET answers its payload).',
        headers: keyedHeaders(),
        content: { 'application/json': { schema: result ? jsonSchemaOf(result, 'output') : {} } },
      },
      // A read changes no state to conflict with and meets no signature law.
      ...errorResponses(['CONFLICT', 'GOVERNANCE_NOT_READY']),
    },
    'x-scope': r.scope,
  };
}

function publicOperation(p: (typeof publicRoutes)[number]): JsonSchema {
  return {
    operationId: operationIdOf(p.name),
    tags: [familyOf(p.name)],
    summary: firstSentence(p.summary),
    description: p.summary,
    security: [],
    requestBody: {
      required: true,
      description: 'The params, bare or wrapped as `{"params": {…}}`.',
      content: { 'application/json': { schema: paramsSchemaOf(p.params) } },
    },
    responses: {
      '200': {
        description: 'Done.',
        headers: keyedHeaders(),
        content: { 'application/json': { schema: ref('schemas', 'OkFrame') } },
      },
      // No key: no scope to miss.
      ...errorResponses(['FORBIDDEN_SCOPE']),
    },
  };
}

export function openapiArtifact(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const at = (name: string) => (paths[`/api/v1/${name}`] ??= {});
  for (const m of methods) at(m.name).post = methodOperation(m);
  for (const r of reads) at(r.name).get = readOperation(r);
  for (const p of publicRoutes) at(p.name).post = publicOperation(p);
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const families = [...new Set([...methods, ...reads, ...publicRoutes].map((s) => familyOf(s.name)))].sort();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Finance Desk API',
      version: PROTOCOL_VERSION,
      summary: 'An HTTP+JSON API through which AI agents run a small business’s books.',
      description:
        'Generated from the protocol declarations (packages/protocol); docs/protocol.md explains the conventions. ' +
        'POST /api/v1/{method} takes the params as a JSON body and answers an ok frame or an error frame; ' +
        'GET /api/v1/{read} takes a query string and answers the payload. Signature acts may answer the hold frame ' +
        '(status approval_required) until a human approves. Money is integer cents.',
      contact: { name: 'Finance Desk operator' },
      // A licence object needs `url` or `identifier` (an SPDX id) or strict validators refuse it.
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ bearerApiKey: [] }],
    tags: families.map((name) => ({ name, description: `Methods and reads of the ${name} family.` })),
    paths: sortedPaths,
    components: components(),
  };
}

// ---------------------------------------------------------------------------------------------
// Rendering

/** JSON with a 2-space indent and a final newline: the committed and served form. */
export function renderArtifact(obj: unknown): string {
  return `${JSON.stringify(obj, null, 2)}\n`;
}

const BUILDERS: Readonly<Record<ArtifactFile, () => unknown>> = {
  'methods.json': methodsArtifact,
  'openapi.json': openapiArtifact,
  'events.json': eventCatalogueArtifact,
};

export interface RenderedArtifact {
  readonly file: ArtifactFile;
  readonly text: string;
  readonly sha256: string;
}

/** Every artifact rendered, in ARTIFACT_FILES order, with the SHA-256 of its UTF-8 bytes. */
export function renderArtifacts(): RenderedArtifact[] {
  return ARTIFACT_FILES.map(({ file }) => {
    const text = renderArtifact(BUILDERS[file]());
    return { file, text, sha256: sha256Hex(text) };
  });
}
