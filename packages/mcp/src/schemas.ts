import { flatObjectSchema, queryIntRange, type MethodSpec, type ReadSpec } from '@finance-desk/protocol';
import { z } from 'zod';

/**
 * A tool's inputSchema: MCP requires a JSON Schema object whose top-level type is `object`, and
 * hosts' model APIs also require `properties` and refuse oneOf/anyOf/allOf/enum/not at the top.
 */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties: Record<string, object>;
  readonly [key: string]: unknown;
}

function objectSchema(schema: z.core.JSONSchema.BaseSchema): ToolInputSchema {
  // A union of object params (books.onboardingAdvance's steps) converts to a top-level `oneOf`:
  // advertised flattened (the API still validates the union itself, naming the field at fault).
  const flat = flatObjectSchema(schema as Record<string, unknown>);
  return { ...flat, type: 'object', properties: (flat.properties as Record<string, object> | undefined) ?? {} };
}

/** A POST method's params as the model must send them (zod 4, input side: before transforms). */
export function methodInputSchema(spec: MethodSpec): ToolInputSchema {
  return objectSchema(z.toJSONSchema(spec.params, { io: 'input' }));
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
        const range = queryIntRange(ctx.zodSchema);
        if (!range) return;
        const out = ctx.jsonSchema as Record<string, unknown>;
        for (const key of Object.keys(out)) delete out[key];
        Object.assign(out, { type: 'integer', minimum: range.min, maximum: range.max });
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
