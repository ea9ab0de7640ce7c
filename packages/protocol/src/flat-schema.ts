/**
 * Params as one flat JSON Schema object. Tool hosts refuse a tool whose input schema is not a
 * top-level `type: "object"` with `properties`, or that has oneOf/anyOf/allOf/enum/not at its top
 * (Anthropic's API, OpenAI's function calling); a host sends every tool every turn, so one such
 * tool breaks all of them. A union of object params (a discriminated union, as
 * books.onboardingAdvance's steps) converts to a top-level `oneOf`, so it is advertised flattened:
 * one object with every variant's fields, the discriminator an enum, and each field that belongs
 * to some variants only saying which, in its description. The server still validates with the
 * declaration's own zod union, so what the flat schema cannot say (a field of another variant, a
 * variant's required field) is refused there, naming the field.
 */

type JsonSchema = { [key: string]: unknown };

/** What may not sit at the top of a tool's input schema (see above). */
export const TOP_LEVEL_COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'enum', 'not'] as const;

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

function objectBranch(b: unknown): b is JsonSchema & { properties: Record<string, JsonSchema> } {
  return isObject(b) && b.type === 'object' && isObject(b.properties);
}

/** Stable text of a schema, to tell whether two variants declare a shared field alike. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const withNote = (schema: JsonSchema, note: string): JsonSchema => ({
  ...schema,
  description: typeof schema.description === 'string' && schema.description !== '' ? `${schema.description} (${note})` : note,
});

/**
 * `schema` unchanged when it is already one object; a top-level oneOf/anyOf of object variants
 * told apart by one property with a `const` in each (the discriminator) as one flat object.
 * Throws on a union it cannot flatten faithfully (no discriminator, a field declared differently
 * by two variants): a declaration bug, found when the artifacts or the tool list are built.
 */
export function flatObjectSchema(schema: JsonSchema): JsonSchema {
  const key = (['oneOf', 'anyOf'] as const).find((k) => Array.isArray(schema[k]));
  if (key === undefined) return schema;
  const branches = schema[key] as unknown[];
  if (branches.length === 0 || !branches.every(objectBranch)) {
    throw new Error(`flatObjectSchema: every variant of a top-level ${key} must be an object with properties`);
  }
  const variants = branches as (JsonSchema & { properties: Record<string, JsonSchema> })[];
  const first = variants[0] as (typeof variants)[number];
  const discriminator = Object.keys(first.properties).find((p) =>
    variants.every((b) => isObject(b.properties[p]) && 'const' in b.properties[p]),
  );
  if (discriminator === undefined)
    throw new Error(`flatObjectSchema: the variants of a top-level ${key} share no property with a const in each`);
  const valueOf = (b: (typeof variants)[number]) => (b.properties[discriminator] as JsonSchema).const;
  const values = variants.map(valueOf);
  const requiredOf = (b: JsonSchema) => new Set(Array.isArray(b.required) ? (b.required as string[]) : []);

  const fields = new Map<string, { schema: JsonSchema; in: unknown[]; requiredIn: unknown[] }>();
  for (const b of variants) {
    const required = requiredOf(b);
    for (const [name, field] of Object.entries(b.properties)) {
      if (name === discriminator) continue;
      const seen = fields.get(name);
      if (seen && canonical(seen.schema) !== canonical(field)) {
        throw new Error(`flatObjectSchema: field ${name} is declared differently by two variants`);
      }
      const entry = seen ?? { schema: field, in: [], requiredIn: [] };
      entry.in.push(valueOf(b));
      if (required.has(name)) entry.requiredIn.push(valueOf(b));
      fields.set(name, entry);
    }
  }
  const everywhere = (list: unknown[]) => list.length === variants.length;
  const named = (list: unknown[]) => list.map((v) => String(v)).join(' or ');
  const properties: Record<string, JsonSchema> = {};
  const types = new Set(variants.map((b) => (b.properties[discriminator] as JsonSchema).type));
  const [type] = types;
  properties[discriminator] = withNote(
    { ...(types.size === 1 && type !== undefined ? { type } : {}), enum: values },
    `picks the fields: ${variants
      .map((b) => {
        const own = [...fields].filter(([, f]) => !everywhere(f.in) && f.requiredIn.includes(valueOf(b))).map(([n]) => n);
        return `${String(valueOf(b))}${own.length > 0 ? ` needs ${own.join(', ')}` : ''}`;
      })
      .join('; ')}`,
  );
  for (const [name, f] of fields) {
    if (everywhere(f.in)) properties[name] = f.schema;
    else {
      const required =
        f.requiredIn.length === 0
          ? ''
          : f.requiredIn.length === f.in.length
            ? ', required there'
            : `, required with ${discriminator} ${named(f.requiredIn)}`;
      properties[name] = withNote(f.schema, `${discriminator} ${named(f.in)} only${required}`);
    }
  }
  const requiredAll = [discriminator, ...[...fields].filter(([, f]) => everywhere(f.requiredIn)).map(([n]) => n)];
  const order = Object.keys(first.properties).filter((p) => requiredAll.includes(p));
  const { [key]: _union, type: _type, ...rest } = schema;
  void _union;
  void _type;
  const closed = variants.every((b) => b.additionalProperties === false);
  return {
    ...rest,
    type: 'object',
    properties,
    required: order,
    ...(closed ? { additionalProperties: false } : {}),
  };
}
