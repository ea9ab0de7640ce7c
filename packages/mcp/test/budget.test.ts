/**
 * The tool list within a model's budget. A host sends the whole list on every turn: its size is
 * context the model cannot spend on the books. Held here: the default tools/list result (every
 * toolset but the opt-in setup one) at most 72 000 bytes as JSON (about 18 000 tokens at 4 bytes a token), no description over 1 024 characters,
 * every tool and every parameter (nested ones too) described, and no text a reader outside this
 * repository cannot follow (citations of work orders, decision numbers or internal rule ids).
 */
import { describe, expect, it } from 'vitest';
import { methods, reads } from '@finance-desk/protocol';
import { toolCatalogue, toolsetCatalogue } from '../src/server.js';

export const TOOL_LIST_BYTES_MAX = 72_000;
const DESCRIPTION_CHARS_MAX = 1_024;
const CITATION = /issue \d|item \d|\bD\d+\b|PB-[A-Z]\d/i;

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every property of a schema, nested ones too (objects, arrays' items, unions' variants), by path. */
function properties(schema: Schema, path = ''): [string, Schema][] {
  const out: [string, Schema][] = [];
  if (isObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      if (!isObject(sub)) continue;
      out.push([`${path}${name}`, sub], ...properties(sub, `${path}${name}.`));
    }
  }
  if (isObject(schema.items)) out.push(...properties(schema.items, `${path.replace(/\.$/, '')}[].`));
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    if (Array.isArray(schema[key])) for (const b of schema[key] as unknown[]) if (isObject(b)) out.push(...properties(b, path));
  }
  return out;
}

describe('the tool list within budget', () => {
  // The descriptions' rules hold for every tool; the budget for the list a host gets by default.
  const { tools } = toolCatalogue();
  const listed = toolsetCatalogue().tools;
  const bytes = Buffer.byteLength(JSON.stringify({ tools: listed }));

  it(`is at most ${TOOL_LIST_BYTES_MAX} bytes as the default tools/list result (about ${TOOL_LIST_BYTES_MAX / 4} tokens)`, () => {
    const largest = listed
      .map((t) => ({ tool: t.name, bytes: Buffer.byteLength(JSON.stringify(t)) }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 10);
    console.info(
      `tools/list: ${listed.length} of ${tools.length} tools (${Buffer.byteLength(JSON.stringify({ tools }))} bytes with every toolset), ${bytes} bytes, about ${Math.round(bytes / 4)} tokens; largest: ${largest.map((l) => `${l.tool} ${l.bytes}`).join(', ')}`,
    );
    expect(bytes, `largest tools: ${JSON.stringify(largest)}`).toBeLessThanOrEqual(TOOL_LIST_BYTES_MAX);
  });

  it(`gives every tool a description of at most ${DESCRIPTION_CHARS_MAX} characters`, () => {
    const over = tools
      .filter((t) => !t.description || t.description.length > DESCRIPTION_CHARS_MAX)
      .map((t) => `${t.name} ${t.description?.length ?? 0}`);
    expect(over).toEqual([]);
  });

  it('describes every parameter of every tool, nested ones too', () => {
    const bare = tools.flatMap((t) =>
      properties(t.inputSchema as Schema)
        .filter(([, s]) => typeof s.description !== 'string' || s.description.trim() === '')
        .map(([path]) => `${t.name}.${path}`),
    );
    expect(bare).toEqual([]);
  });

  it('cites no work order, decision number or rule id in any description or parameter description', () => {
    const cited = tools.flatMap((t) => [
      ...(CITATION.test(t.description ?? '') ? [`${t.name}: ${t.description?.match(CITATION)?.[0]}`] : []),
      ...properties(t.inputSchema as Schema)
        .filter(([, s]) => typeof s.description === 'string' && CITATION.test(s.description))
        .map(([path, s]) => `${t.name}.${path}: ${(s.description as string).match(CITATION)?.[0]}`),
    ]);
    expect(cited).toEqual([]);
  });

  it('names tools, not API methods or reads, in its cross-references', () => {
    const declared = [...methods, ...reads].map((d) => d.name).filter((n) => /[./]/.test(n));
    const escaped = declared.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
    const methodName = new RegExp(`(?<![\\w./])(?:${escaped.join('|')})(?![\\w/]|\\.\\w)`);
    const texts = tools.flatMap((t) => [
      [t.name, t.description ?? ''] as const,
      ...properties(t.inputSchema as Schema).map(
        ([path, s]) => [`${t.name}.${path}`, typeof s.description === 'string' ? s.description : ''] as const,
      ),
    ]);
    const named = texts.filter(([, text]) => methodName.test(text)).map(([where, text]) => `${where}: ${text.match(methodName)?.[0]}`);
    expect(named).toEqual([]);
    const lineRecode = tools.find((t) => t.name === 'books_lineSplit');
    expect(lineRecode?.description).not.toContain('books.');
  });
});
