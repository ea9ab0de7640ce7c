/**
 * The import graph of packages/server/src only goes down: no circle between files, and no import
 * from a lower layer to a higher one (docs/architecture.md, Which way dependencies point). Every
 * relative import counts, type-only and dynamic ones too: a type import still ties the two files
 * together for a reader and for the compiler.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * The layers, lowest first. A file belongs to the entry with the longest prefix of its path; a
 * file may import its own layer and the ones before it. Keep in step with the table in
 * docs/architecture.md.
 */
const LAYERS: readonly { readonly name: string; readonly paths: readonly string[] }[] = [
  {
    name: 'utilities',
    // search-key.ts is a pure text function: the domain and a storage migration both compute it.
    paths: ['errors.ts', 'ids.ts', 'money.ts', 'raw-json.ts', 'principal.ts', 'artifacts.ts', 'domain/search-key.ts'],
  },
  { name: 'storage', paths: ['storage/', 'clock.ts', 'config.ts'] },
  // backup.ts verifies every chain before it calls a file good, so it sits above the ledger.
  { name: 'ledger', paths: ['ledger/', 'storage/backup.ts'] },
  // The write path checks at commit that the caller's credential still stands.
  { name: 'write path', paths: ['write-path.ts', 'org/credentials.ts'] },
  // The channels acts write to (in their transaction) and the outbox that delivers them.
  { name: 'delivery adapters', paths: ['adapters/'] },
  { name: 'governance', paths: ['governance/'] },
  { name: 'binding', paths: ['binding.ts'] },
  // The AI answerer reads the books through the domain's read functions, so it sits with them.
  { name: 'domain', paths: ['domain/', 'org/', 'calendar/', 'adapters/ai-'] },
  { name: 'methods and operations', paths: ['registry.ts', 'reads.ts', 'ops/'] },
  { name: 'surfaces', paths: ['http/', 'human/'] },
  // schema.ts collects every area's migrations into the one ordered list storage is handed.
  { name: 'assembly', paths: ['server.ts', 'index.ts', 'schema.ts', 'cli/'] },
];

/**
 * Upward edges that remain, each with why. `to` is matched against the imported file's path.
 * An entry that no longer matches any edge fails the test, so the list only shrinks.
 */
const ALLOWED_UP: readonly { readonly from: string; readonly to: RegExp; readonly why: string }[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const rel = (abs: string): string => relative(SRC, abs).split('\\').join('/');

/** file → the files of src it imports (relative specifiers only; packages are not in the graph). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const abs of sourceFiles(SRC)) {
    const from = rel(abs);
    const info = ts.preProcessFile(readFileSync(abs, 'utf8'), true, true);
    const to = info.importedFiles
      .map((i) => i.fileName)
      .filter((s) => s.startsWith('.'))
      .map((s) => posix.normalize(posix.join(posix.dirname(from), s.replace(/\.js$/, '.ts'))));
    graph.set(from, [...new Set(to)]);
  }
  return graph;
}

function layerOf(file: string): number {
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((layer, i) => {
    for (const p of layer.paths) {
      const matches = p.endsWith('/') || p.endsWith('-') ? file.startsWith(p) : file === p;
      if (matches && p.length > bestLength) [best, bestLength] = [i, p.length];
    }
  });
  return best;
}

/** Strongly connected components of more than one file (Tarjan), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph of packages/server/src', () => {
  const graph = importGraph();

  it('resolves every relative import to a file of src', () => {
    const missing = [...graph].flatMap(([from, tos]) => tos.filter((t) => !graph.has(t)).map((t) => `${from} -> ${t}`));
    expect(missing).toEqual([]);
  });

  it('places every file in a layer', () => {
    expect([...graph.keys()].filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it('has no circle between files', () => {
    const shown = circles(graph).map((c) => {
      const inside = new Set(c);
      const edges = c.flatMap((f) => (graph.get(f) ?? []).filter((t) => inside.has(t)).map((t) => `${f} -> ${t}`));
      return `circle of ${c.length} files:\n  ${edges.join('\n  ')}`;
    });
    expect(shown).toEqual([]);
  });

  it('has no import from a lower layer to a higher one, beyond the listed ones', () => {
    const used = new Set<number>();
    const upward: string[] = [];
    for (const [from, tos] of graph) {
      for (const to of tos) {
        const [a, b] = [layerOf(from), layerOf(to)];
        if (a < 0 || b < 0 || b <= a) continue;
        const allowed = ALLOWED_UP.findIndex((e) => e.from === from && e.to.test(to));
        if (allowed >= 0) used.add(allowed);
        else upward.push(`${from} (${LAYERS[a]!.name}) -> ${to} (${LAYERS[b]!.name})`);
      }
    }
    expect(upward).toEqual([]);
    const stale = ALLOWED_UP.filter((_, i) => !used.has(i)).map((e) => `${e.from} -> ${String(e.to)}`);
    expect(stale).toEqual([]);
  });
});
