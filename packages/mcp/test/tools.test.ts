/** The tool layer without a server: names, schemas and the results a model sees (issue 11 item 5). */
import { approval as approvalSpecs, books, methods, people, readSpecs, reads } from '@finance-desk/protocol';
import { describe, expect, it } from 'vitest';
import { toolCatalogue } from '../src/server.js';
import { TOOL_NAME, toolName, toolTable } from '../src/names.js';
import { callQuery } from '../src/schemas.js';
import { getResult, postResult } from '../src/results.js';

describe('tool names', () => {
  it('maps every declaration to a valid, distinct MCP tool name', () => {
    const names = [...methods, ...reads].map((d) => toolName(d.name));
    for (const n of names) expect(n).toMatch(TOOL_NAME);
    expect(new Set(names).size).toBe(names.length);
    expect(toolName(books.invoiceDraft.name)).toBe('books_invoiceDraft');
    expect(toolName(readSpecs.orgProfile.name)).toBe('org_profile');
  });

  it('refuses two declarations on one tool name, and a name MCP clients would reject, at start', () => {
    expect(() => toolTable([['a.b', 1], ['a/b', 2]])).toThrow('declarations a.b and a/b both map to MCP tool a_b');
    expect(() => toolTable([[`x.${'y'.repeat(70)}`, 1]])).toThrow(/invalid MCP tool name/);
  });

  it('gives every tool an object input schema (a union of params is oneOf under type object)', () => {
    for (const tool of toolCatalogue().tools) expect(tool.inputSchema.type, tool.name).toBe('object');
    const advance = toolCatalogue().tools.find((t) => t.name === toolName(people.onboardingAdvance.name));
    expect(Array.isArray(advance?.inputSchema.oneOf)).toBe(true);
  });
});

describe('read arguments', () => {
  it('writes numbers and booleans as the query strings the API reads, and drops absent values', () => {
    expect(callQuery({ limit: 5, flag: true, q: 'x', cursor: undefined, none: null })).toEqual({ ok: true, query: { limit: '5', flag: 'true', q: 'x' } });
  });

  it('refuses an object or array value naming the field', () => {
    expect(callQuery({ limit: [1] })).toEqual({ ok: false, field: 'limit', message: 'limit: must be a string, a number or a boolean' });
    expect(callQuery({ limit: Number.NaN })).toMatchObject({ ok: false, field: 'limit' });
  });
});

describe('results', () => {
  const approval = {
    actionClass: books.billApprove.actionClass ?? '',
    payloadHash: 'a'.repeat(64),
    subject: { kind: 'books.signature' as const, subjectId: 'bill_1', summary: 'Pay Acme' },
  };

  it('turns a GOVERNANCE_NOT_READY refusal carrying an approval into an error with the next step', () => {
    const tool = toolName(books.billApprove.name);
    const r = postResult(tool, { id: 'bill_1' }, {
      status: 423,
      requestId: 'req_1',
      frame: { ok: false, error: { code: 'GOVERNANCE_NOT_READY', message: 'held', approval } },
    });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({
      error: { code: 'GOVERNANCE_NOT_READY', approval },
      next: {
        tool: toolName(approvalSpecs.request.name),
        arguments: { actionClass: approval.actionClass, payloadHash: approval.payloadHash, subject: { kind: 'books.signature', subjectId: 'bill_1' } },
        then: [{ tool: toolName(readSpecs.approvalWait.name) }, { tool, arguments: { id: 'bill_1', approvalId: expect.any(String) } }],
      },
    });
  });

  it('carries a non-object payload as { result } (structuredContent must be an object)', () => {
    expect(getResult('x', {}, { status: 200, body: [1, 2], requestId: null }).structuredContent).toEqual({ result: [1, 2] });
    expect(postResult('x', {}, { status: 200, requestId: null, frame: { ok: true, result: 'done' } }).structuredContent).toEqual({ result: 'done' });
  });

  it('reports an answer that is not an error frame as an error naming the status', () => {
    const r = getResult('x', {}, { status: 502, body: '<html>', requestId: null });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toBe('HTTP 502 from Finance Desk (request id none)');
  });
});
