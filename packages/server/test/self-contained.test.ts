/**
 * The repository stands alone: nothing in it may cite what a reader who clones it cannot open —
 * the numbered work orders it was built in, the numbered decisions and sections of a specification
 * kept outside it, a rule id of that specification, or a path beside the checkout. Each such
 * citation is said in words instead, or points to a section of this repository's docs.
 *
 * Scanned: every text file git knows of (tracked, and new files not ignored), the MCP tool list a
 * model reads (every description and title, parameters included), and the OpenAPI document.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toolCatalogue } from '@finance-desk/mcp';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SELF = 'packages/server/test/self-contained.test.ts';

/** What a citation looks like. The section sign is escaped so that this file does not cite. */
const PATTERNS: readonly { readonly what: string; readonly re: RegExp }[] = [
  { what: 'work order', re: /\bissue \d/gi },
  { what: 'work-order item', re: /\bitem \d/gi },
  { what: 'decision number', re: /\bD\d{1,2}\b/g },
  { what: 'specification section', re: /seed \u00a7/g },
  { what: 'specification rule id', re: /PB-[A-Z]\d/g },
  { what: 'path outside the repository', re: /\.\.\/shared\//g },
];

/**
 * Real-world text that merely looks like a citation, as exact (file, text) pairs: a hit inside
 * one of these texts on a line of that file is not one. Every entry must still match something
 * (the last test), so the list cannot outlive its reason.
 */
const ALLOWED: readonly { readonly file: string; readonly text: string | RegExp }[] = [
  // QIF bank statements: a `D` line is the transaction date (D + dd/mm/yy), in the fixture and in
  // the QIF bodies the parser tests and the parser benchmark build.
  { file: 'packages/server/test/fixtures/bank/statement_ddmmyy.qif', text: /^D\d\d\/\d\d\/\d\d$/g },
  { file: 'packages/server/test/bank-parsers.test.ts', text: 'D01/06/26' },
  { file: 'packages/server/test/bank-parsers.test.ts', text: 'D01/02/26' },
  { file: 'packages/server/test/reconciliation.test.ts', text: 'D01/06/26' },
  { file: 'bench/parsers.mjs', text: 'D01/06/26' },
  { file: 'bench/parsers.mjs', text: 'D01/11/26' },
];

/** Not text, or not ours to word: images, fonts, archives, the lock file. */
const SKIP_FILE = /(^|\/)(node_modules\/|package-lock\.json$)|\.(png|jpe?g|gif|ico|webp|pdf|woff2?|ttf|otf|zip|gz|tgz|db|sqlite)$/i;

const used = new Set<(typeof ALLOWED)[number]>();

/** The allow-list entry whose text, on `line` of `file`, covers position `at`, if any. */
function allowedAt(file: string, line: string, at: number): (typeof ALLOWED)[number] | undefined {
  return ALLOWED.find((entry) => {
    if (entry.file !== file) return false;
    if (typeof entry.text === 'string') {
      for (let i = line.indexOf(entry.text); i >= 0; i = line.indexOf(entry.text, i + 1)) {
        if (at >= i && at < i + entry.text.length) return true;
      }
      return false;
    }
    return [...line.matchAll(entry.text)].some((m) => at >= m.index && at < m.index + m[0].length);
  });
}

/** Each citation in `text` as `where: what "match"`; `where(lineNo)` names its place. */
function citations(text: string, where: (lineNo: number) => string, file?: string): string[] {
  const hits: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    for (const { what, re } of PATTERNS) {
      for (const m of line.matchAll(re)) {
        const allowed = file === undefined ? undefined : allowedAt(file, line, m.index);
        if (allowed) {
          used.add(allowed);
          continue;
        }
        hits.push(`${where(i + 1)}: ${what} ${JSON.stringify(line.slice(Math.max(0, m.index - 30), m.index + m[0].length + 30).trim())}`);
      }
    }
  });
  return hits;
}

/** Every string value under `value`, with its JSON path; `keys` limits it to those property names. */
function strings(value: unknown, path: string, keys?: ReadonlySet<string>, out: [string, string][] = []): [string, string][] {
  if (typeof value === 'string') {
    if (!keys) out.push([path, value]);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => strings(v, `${path}[${i}]`, keys, out));
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (keys && keys.has(k) && typeof v === 'string') out.push([`${path}.${k}`, v]);
      else strings(v, `${path}.${k}`, keys, out);
    }
  }
  return out;
}

function fail(hits: readonly string[], where: string): void {
  if (hits.length > 0) {
    expect.fail(`${hits.length} citation(s) in ${where}; say each in words or point to this repository's docs:\n${hits.join('\n')}`);
  }
}

describe('the repository stands alone: no citation of work orders or of an outside specification', () => {
  it('no text file of the repository cites one', () => {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    })
      .split('\0')
      .filter((f) => f !== '' && f !== SELF && !SKIP_FILE.test(f));
    const hits: string[] = [];
    let scanned = 0;
    for (const file of [...new Set(listed)].sort()) {
      const full = ROOT + file;
      if (!existsSync(full)) continue; // deleted in the work tree, not yet in the index
      const bytes = readFileSync(full);
      if (bytes.subarray(0, 8000).includes(0)) continue; // binary
      scanned += 1;
      hits.push(...citations(bytes.toString('utf8'), (n) => `${file}:${n}`, file));
    }
    expect(scanned).toBeGreaterThan(100);
    fail(hits, 'the repository');
  });

  it('no MCP tool description or parameter description cites one', () => {
    const { tools } = toolCatalogue();
    expect(tools.length).toBeGreaterThan(0);
    const hits = tools.flatMap((tool) =>
      strings(tool, tool.name, new Set(['description', 'title'])).flatMap(([path, text]) => citations(text, () => `mcp ${path}`)),
    );
    fail(hits, 'the MCP tool list');
  });

  it('no string of the OpenAPI document cites one', () => {
    const doc: unknown = JSON.parse(readFileSync(`${ROOT}docs/artifacts/openapi.json`, 'utf8'));
    const hits = strings(doc, 'openapi').flatMap(([path, text]) => citations(text, () => path));
    fail(hits, 'docs/artifacts/openapi.json');
  });

  it('every allow-list entry still excuses a hit (run after the file scan)', () => {
    const stale = ALLOWED.filter((entry) => !used.has(entry)).map((e) => `${e.file}: ${String(e.text)}`);
    expect(stale).toEqual([]);
  });
});
