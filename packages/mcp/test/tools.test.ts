/** The tool layer without a server: names, schemas and the results a model sees. */
import {
  ACTION_CLASS,
  approval as approvalSpecs,
  books,
  flatObjectSchema,
  methods,
  people,
  readSpecs,
  reads,
} from '@finance-desk/protocol';
import { describe, expect, it } from 'vitest';
import { isArtifactRead, toolCatalogue } from '../src/server.js';
import { TOOL_NAME, toolName, toolTable } from '../src/names.js';
import { callQuery } from '../src/schemas.js';
import { boundedResult, getResult, postResult } from '../src/results.js';

describe('tool names', () => {
  it('maps every declaration to a valid, distinct MCP tool name', () => {
    const names = [...methods, ...reads].map((d) => toolName(d.name));
    for (const n of names) expect(n).toMatch(TOOL_NAME);
    expect(new Set(names).size).toBe(names.length);
    expect(toolName(books.invoiceDraft.name)).toBe('books_invoiceDraft');
    expect(toolName(readSpecs.orgProfile.name)).toBe('org_profile');
  });

  it('refuses two declarations on one tool name, and a name MCP clients would reject, at start', () => {
    expect(() =>
      toolTable([
        ['a.b', 1],
        ['a/b', 2],
      ]),
    ).toThrow('declarations a.b and a/b both map to MCP tool a_b');
    expect(() => toolTable([[`x.${'y'.repeat(70)}`, 1]])).toThrow(/invalid MCP tool name/);
  });

  it('gives every tool an input schema hosts accept: a top-level object with properties, no oneOf/anyOf/allOf/enum/not there', () => {
    const { tools } = toolCatalogue();
    // Every method and read, except the artifact reads (documents for code generators, not tools).
    expect(tools.length).toBe(methods.length + reads.filter((r) => !isArtifactRead(r.name)).length);
    for (const tool of tools) {
      const schema = tool.inputSchema as Record<string, unknown>;
      expect(schema.type, tool.name).toBe('object');
      expect(typeof schema.properties === 'object' && schema.properties !== null && !Array.isArray(schema.properties), tool.name).toBe(
        true,
      );
      for (const key of ['oneOf', 'anyOf', 'allOf', 'enum', 'not'])
        expect(schema, `${tool.name} has a top-level ${key}`).not.toHaveProperty(key);
    }
  });

  it("advertises a union of params flattened: the discriminator an enum, each variant's fields optional and labelled", () => {
    const advance = toolCatalogue().tools.find((t) => t.name === toolName(people.onboardingAdvance.name));
    const schema = advance?.inputSchema as {
      properties: Record<string, { enum?: unknown[]; description?: string }>;
      required: string[];
      additionalProperties?: unknown;
    };
    expect(schema.properties.step?.enum).toEqual(['tax_declaration', 'super', 'contract']);
    expect(schema.properties.step?.description).toContain('super needs fundName, fundAbn, memberNumber');
    expect(schema.required.sort()).toEqual(['id', 'step']);
    expect(schema.properties.taxFileNumber?.description).toMatch(/(^|\()step tax_declaration only, required there\)?$/);
    expect(schema.properties.approvalId?.description).toMatch(/(^|\()step contract only\)?$/);
    // Closed objects are left to the API, which names an unknown field; the list does not carry it.
    expect(schema.additionalProperties).toBeUndefined();
  });

  it('refuses to flatten a union it cannot say faithfully', () => {
    const obj = (props: Record<string, unknown>) => ({ type: 'object', properties: props });
    expect(() => flatObjectSchema({ oneOf: [obj({ a: { const: 'x' } }), { type: 'string' }] })).toThrow(/must be an object/);
    expect(() => flatObjectSchema({ oneOf: [obj({ a: { type: 'string' } }), obj({ a: { type: 'string' } })] })).toThrow(
      /no property with a const/,
    );
    expect(() =>
      flatObjectSchema({ anyOf: [obj({ k: { const: 1 }, v: { type: 'string' } }), obj({ k: { const: 2 }, v: { type: 'number' } })] }),
    ).toThrow(/field v is declared differently/);
    expect(flatObjectSchema({ type: 'object', properties: {} })).toEqual({ type: 'object', properties: {} });
  });

  it('builds the tool list once per process and answers the same objects every time', () => {
    expect(toolCatalogue()).toBe(toolCatalogue());
  });
});

describe('read arguments', () => {
  it('writes numbers and booleans as the query strings the API reads, and drops absent values', () => {
    expect(callQuery({ limit: 5, flag: true, q: 'x', cursor: undefined, none: null })).toEqual({
      ok: true,
      query: { limit: '5', flag: 'true', q: 'x' },
    });
  });

  it('refuses an object or array value naming the field', () => {
    expect(callQuery({ limit: [1] })).toEqual({ ok: false, field: 'limit', message: 'limit: must be a string, a number or a boolean' });
    expect(callQuery({ limit: Number.NaN })).toMatchObject({ ok: false, field: 'limit' });
  });
});

describe('results', () => {
  const approval = {
    actionClass: ACTION_CLASS.billApprove,
    payloadHash: 'a'.repeat(64),
    subject: { kind: 'books.signature' as const, subjectId: 'bill_1', summary: 'Pay Acme' },
  };

  it('turns a GOVERNANCE_NOT_READY refusal carrying an approval into an error with the next step', () => {
    const tool = toolName(books.billApprove.name);
    const r = postResult(
      tool,
      { id: 'bill_1' },
      {
        status: 423,
        requestId: 'req_1',
        frame: { ok: false, error: { code: 'GOVERNANCE_NOT_READY', message: 'held', approval } },
      },
    );
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({
      error: { code: 'GOVERNANCE_NOT_READY', approval },
      next: {
        tool: toolName(approvalSpecs.request.name),
        arguments: {
          actionClass: approval.actionClass,
          payloadHash: approval.payloadHash,
          subject: { kind: 'books.signature', subjectId: 'bill_1' },
        },
        then: [{ tool: toolName(readSpecs.approvalWait.name) }, { tool, arguments: { id: 'bill_1', approvalId: expect.any(String) } }],
      },
    });
  });

  it('carries a non-object payload as { result } (structuredContent must be an object)', () => {
    expect(getResult('x', {}, { status: 200, body: [1, 2], requestId: null }).structuredContent).toEqual({ result: [1, 2] });
    expect(postResult('x', {}, { status: 200, requestId: null, frame: { ok: true, result: 'done' } }).structuredContent).toEqual({
      result: 'done',
    });
  });

  it("bounds a result's bytes: over the bound it is an error asking for less (and, after a write, saying it is done)", () => {
    const big = getResult('events', {}, { status: 200, body: { rows: 'x'.repeat(5_000) }, requestId: null });
    expect(boundedResult('events', big, 20_000, false)).toBe(big);
    const cut = boundedResult('events', big, 4_000, false);
    expect(cut.isError).toBe(true);
    expect(cut.structuredContent).toMatchObject({
      ok: false,
      error: {
        code: 'RESPONSE_TOO_LARGE',
        message: expect.stringMatching(/^events: the result is \d+ bytes, more than the 4000 .* ask for less/),
      },
    });
    expect(JSON.stringify(cut).length).toBeLessThan(4_000);
    expect(boundedResult('books_x', big, 4_000, true).content[0]?.text).toContain('the call itself completed (do not repeat it)');
  });

  it('reports an answer that is not an error frame as an error naming the status', () => {
    const r = getResult('x', {}, { status: 502, body: '<html>', requestId: null });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toBe('HTTP 502 from Finance Desk (request id none)');
  });
});
