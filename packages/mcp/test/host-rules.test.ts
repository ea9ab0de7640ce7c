/**
 * Every tool as model hosts take it. A host sends every tool on every turn, so one tool its model
 * API refuses breaks all of them: each tool is held here to Anthropic's rules for a tool
 * (`name`, `description`, `input_schema`) and OpenAI's for a function (`name`, `parameters`),
 * and each input schema is compiled as JSON Schema draft 2020-12 (the dialect MCP names).
 * OpenAI's strict mode is not supported (docs/decisions.md, "MCP tools every host accepts").
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { toolCatalogue } from '../src/server.js';

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

describe('every tool, as model hosts take it', () => {
  const { tools } = toolCatalogue();

  it.each(tools.map((t) => [t.name, t] as const))("%s meets Anthropic's rules for a tool", (_name, tool) => {
    expect(tool.name).toMatch(NAME);
    expect(typeof tool.description === 'string' && tool.description.trim() !== '').toBe(true);
    const schema = tool.inputSchema as Record<string, unknown>;
    expect(schema.type).toBe('object');
    for (const key of ['oneOf', 'anyOf', 'allOf']) expect(schema, `top-level ${key}`).not.toHaveProperty(key);
  });

  it.each(tools.map((t) => [t.name, t] as const))("%s meets OpenAI's rules for a function", (_name, tool) => {
    expect(tool.name).toMatch(NAME);
    const schema = tool.inputSchema as Record<string, unknown>;
    expect(schema.type).toBe('object');
    expect(isObject(schema.properties)).toBe(true);
    for (const key of ['oneOf', 'anyOf', 'allOf', 'enum', 'not']) expect(schema, `top-level ${key}`).not.toHaveProperty(key);
    if (schema.required !== undefined) {
      expect(Array.isArray(schema.required)).toBe(true);
      for (const r of schema.required as string[]) expect(schema.properties, `required ${r} is a property`).toHaveProperty(r);
    }
  });

  it('compiles every input schema as JSON Schema draft 2020-12 (strict: no unknown keyword or format)', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    for (const tool of tools) {
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    }
  });

  it('leaves out $schema (hosts do not need it), and each schema still compiles', () => {
    for (const tool of tools) expect(tool.inputSchema, tool.name).not.toHaveProperty('$schema');
  });

  it('validates real arguments with the compiled schema: a good call passes, a wrong type fails', () => {
    const ajv = new Ajv2020({ strict: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const draft = tools.find((t) => t.name === 'books_invoiceDraft');
    const validate = ajv.compile(draft?.inputSchema ?? {});
    expect(
      validate({ payeeName: 'Ann', description: 'Joinery', totalCents: 12_300, dueDays: 14, idempotencyKey: 'draft-ann-1' }),
      JSON.stringify(validate.errors),
    ).toBe(true);
    expect(validate({ payeeName: 'Ann', description: 'Joinery', totalCents: '12300', dueDays: 14 })).toBe(false);
    expect(validate({ payeeName: 'Ann', description: 'Joinery', totalCents: 1, dueDays: 1, taxCode: 'VAT' })).toBe(false);
    // Lengths and patterns are the API's to check (it names the field); the schema keeps types and enums.
    expect(validate({ payeeName: 'Ann', description: 'Joinery', totalCents: 1, dueDays: 1, idempotencyKey: 'has space' })).toBe(true);
  });
});
