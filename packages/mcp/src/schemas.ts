import { bankAccounts, flatObjectSchema, limits, queryIntRange, type MethodSpec, type ReadSpec } from '@finance-desk/protocol';
import { z } from 'zod';
import { idempotencyKeyNote, SIGNATURE_TOKEN, toolReferences } from './describe.js';
import { toolName } from './names.js';

/**
 * A tool's inputSchema: MCP requires a JSON Schema object whose top-level type is `object`, and
 * hosts' model APIs also require `properties` and refuse oneOf/anyOf/allOf/enum/not at the top.
 */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties: Record<string, object>;
  readonly [key: string]: unknown;
}

/** The argument every write tool takes besides its params: sent as the request's idempotency key. */
export const IDEMPOTENCY_KEY_ARG = 'idempotencyKey';

/** The API's idempotency key: 1 to 255 printable ASCII characters (the server's X-Idempotency-Key rule). */
const IDEMPOTENCY_KEY = new RegExp(`^[\\x21-\\x7e]{1,${limits.idempotencyKeyCharsMax}}$`);

/** Every `description` in a JSON Schema (nested too) with its cross-references written as tool names. */
function withToolReferences(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withToolReferences);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === 'description' && typeof v === 'string' ? toolReferences(v) : withToolReferences(v);
  }
  return out;
}

/**
 * Keywords a tool schema leaves to the API: lengths, patterns, numeric bounds and closed objects.
 * The API validates every one of them and names the field at fault, in words a model can act on;
 * carried into the tool list they cost about a fifth of it, on every turn of every conversation,
 * for checks hosts do not run. What a model needs to build a call stays: types, properties,
 * required, enums, formats and each parameter's description (which gives the bounds that matter).
 */
const LEFT_TO_THE_API = new Set([
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'additionalProperties',
]);

/** The API's calendar date pattern: shown to the model as the standard `format: date`. */
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (typeof value !== 'object' || value === null) return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(source)) {
    if (key === 'properties' && typeof v === 'object' && v !== null) {
      out[key] = Object.fromEntries(Object.entries(v).map(([name, child]) => [name, compact(child)]));
    } else if (!LEFT_TO_THE_API.has(key)) {
      out[key] = compact(v);
    }
  }
  if (source.pattern === DATE_PATTERN && source.format === undefined) out.format = 'date';
  return out;
}

function objectSchema(schema: z.core.JSONSchema.BaseSchema): ToolInputSchema {
  // A union of object params (books.onboardingAdvance's steps) converts to a top-level `oneOf`:
  // advertised flattened (the API still validates the union itself, naming the field at fault).
  // `$schema` is dropped: hosts do not need it, and every tool would carry it again.
  const { $schema: _dialect, ...flat } = compact(withToolReferences(flatObjectSchema(schema))) as Record<string, unknown>;
  void _dialect;
  return { ...flat, type: 'object', properties: (flat.properties as Record<string, object> | undefined) ?? {} };
}

/** Inline bank details of a paying account, and the bank account record that can stand for them. */
const FUNDING = 'funding';
const FUNDING_ACCOUNT_ID = 'fundingAccountId';
/** Files given with the call that creates a document (invoiceDraft, billCapture, journalPost). */
const ATTACHMENTS = 'attachments';

/**
 * Params the API takes that a tool does not offer, each because the tool already offers a way a
 * model should use; one sent anyway reaches the API, which judges it as over HTTP.
 * - signatureToken: a proof is approvalId or signatureToken, never both, and the approval loop a
 *   model runs (a hold's next) gives approvalId; the token was a second name for the same proof.
 * - funding beside fundingAccountId: seven inline bank fields (the account money leaves from),
 *   where a bank account record an owner keeps (its directEntry details) names the same account in
 *   one id; an agent pays from the accounts the business set up.
 * - attachments on the tools that create a document: a file (up to ~1 MB as base64) rides in the
 *   creating call over HTTP; a model attaches it once the document exists, with its own tool (one
 *   event each, the same SHA-256 binding), so a retried creation never carries the file again and
 *   three tools do not each describe the file's shape.
 */
function offered(schema: ToolInputSchema): ToolInputSchema {
  const properties: Record<string, object> = { ...schema.properties };
  const dropped = [SIGNATURE_TOKEN as string];
  if (FUNDING in properties && FUNDING_ACCOUNT_ID in properties) {
    dropped.push(FUNDING);
    properties[FUNDING_ACCOUNT_ID] = {
      ...properties[FUNDING_ACCOUNT_ID],
      description: `Pay-from account: a ${toolName(bankAccounts.bankAccounts.name)} id with directEntry`,
    };
  }
  if (ATTACHMENTS in properties) dropped.push(ATTACHMENTS);
  for (const name of dropped) delete properties[name];
  const required = Array.isArray(schema.required) ? (schema.required as string[]).filter((r) => !dropped.includes(r)) : undefined;
  return { ...schema, properties, ...(required === undefined ? {} : { required }) };
}

/** A POST method's params as the model must send them (zod 4, input side: before transforms). */
export function methodInputSchema(spec: MethodSpec): ToolInputSchema {
  const schema = offered(objectSchema(z.toJSONSchema(spec.params, { io: 'input' })));
  if (spec.kind === 'read') return schema;
  if (IDEMPOTENCY_KEY_ARG in schema.properties)
    throw new Error(`${spec.name} declares a param ${IDEMPOTENCY_KEY_ARG}, which its MCP tool takes as the idempotency key`);
  const key = { type: 'string', description: idempotencyKeyNote(spec) };
  return { ...schema, properties: { ...schema.properties, [IDEMPOTENCY_KEY_ARG]: key } };
}

export type WriteArguments =
  { ok: true; params: Record<string, unknown>; idempotencyKey: string | undefined } | { ok: false; field: string; message: string };

/**
 * A write tool's arguments split into the method's params and the idempotency key (absent when
 * not given or null); a key the API would refuse is refused here, naming the field.
 */
export function writeArguments(args: Record<string, unknown>): WriteArguments {
  const { [IDEMPOTENCY_KEY_ARG]: key, ...params } = args;
  if (key === undefined || key === null) return { ok: true, params, idempotencyKey: undefined };
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
    return {
      ok: false,
      field: IDEMPOTENCY_KEY_ARG,
      message: `${IDEMPOTENCY_KEY_ARG}: must be 1 to ${limits.idempotencyKeyCharsMax} printable ASCII characters without spaces`,
    };
  }
  return { ok: true, params, idempotencyKey: key };
}

/**
 * A read's query. On the wire every value is a string, but the model is shown the real type: a
 * queryInt is an integer with its bounds; `callQuery` writes it back as a string.
 */
export function readInputSchema(spec: ReadSpec): ToolInputSchema {
  return objectSchema(
    z.toJSONSchema(spec.query, {
      io: 'input',
      override: (ctx) => {
        // Its bounds are the API's to check, like every other bound (LEFT_TO_THE_API): the model
        // is shown the integer only.
        if (!queryIntRange(ctx.zodSchema)) return;
        const out = ctx.jsonSchema as Record<string, unknown>;
        for (const key of Object.keys(out)) delete out[key];
        out.type = 'integer';
      },
    }),
  );
}

export type QueryArguments = { ok: true; query: Record<string, string> } | { ok: false; field: string; message: string };

/**
 * A read tool's arguments as a query string's values: numbers and booleans written as the API
 * reads them, absent (undefined/null) left out. Only scalars fit in a query: an object or array
 * is refused here, naming the field, before any request.
 */
export function callQuery(args: Record<string, unknown>): QueryArguments {
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') query[key] = value;
    else if (typeof value === 'number' && Number.isFinite(value)) query[key] = String(value);
    else if (typeof value === 'boolean') query[key] = value ? 'true' : 'false';
    else return { ok: false, field: key, message: `${key}: must be a string, a number or a boolean` };
  }
  return { ok: true, query };
}
