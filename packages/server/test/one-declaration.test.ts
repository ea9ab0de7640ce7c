/**
 * No method's name, action class or event kind is written anywhere but its
 * declaration. This scans the source of the server, the client and the MCP server for any string
 * literal ('…', "…" or `…` without interpolation) equal to a declared method or read name, an
 * action class or an event kind. Comments are not code and are skipped; the protocol package, where
 * the declarations live, is not scanned.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACTION_CLASSES, eventKinds, methods, reads } from '@finance-desk/protocol';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = ['server/src', 'client/src', 'mcp/src'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Source with comments blanked out (line and block comments outside strings). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

const declared = new Map<string, string>([
  ...methods.map((m) => [m.name, 'method name'] as const),
  ...reads.filter((r) => r.name.includes('.')).map((r) => [r.name, 'read name'] as const),
  ...ACTION_CLASSES.map((c) => [c, 'action class'] as const),
  ...eventKinds.map((e) => [e.kind, 'event kind'] as const),
]);

describe('one declaration', () => {
  it('no declared name, action class or event kind is written as a literal outside the protocol package', () => {
    const found: string[] = [];
    for (const dir of SCANNED) {
      for (const file of files(join(ROOT, dir))) {
        const text = code(readFileSync(file, 'utf8'));
        for (const m of text.matchAll(/'([^'\\\n]{3,80})'|"([^"\\\n]{3,80})"|`([^`\\$\n]{3,80})`/g)) {
          const literal = m[1] ?? m[2] ?? m[3] ?? '';
          const what = declared.get(literal);
          if (what) found.push(`${file.slice(ROOT.length)}: ${what} '${literal}'`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('the scan sees literals (it would fail on one)', () => {
    const sample = code(`const a = 'books.invoiceDraft'; // 'books.bill_approve' in a comment\nconst b = x;`);
    const hits = [...sample.matchAll(/'([^'\\\n]{3,80})'/g)].map((m) => m[1]).filter((l) => declared.has(l ?? ''));
    expect(hits).toEqual(['books.invoiceDraft']);
  });
});
