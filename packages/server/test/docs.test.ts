import { readFileSync } from 'node:fs';
import { methods, publicRoutes, reads } from '@finance-desk/protocol';
import { describe, expect, it } from 'vitest';

// docs/methods.md is generated (`npm run docs`); this fails when a method is declared but the
// document was not regenerated, so the docs cannot silently fall behind the code.
const doc = readFileSync(new URL('../../../docs/methods.md', import.meta.url), 'utf8');

describe('docs/methods.md matches the declarations', () => {
  it.each(methods.map((m) => m.name))('documents %s with an example', (name) => {
    const section = doc.split(`\n## ${name}\n`)[1]?.split('\n## ')[0] ?? '';
    expect(section).toContain(`POST /api/v1/${name}`);
    expect(section).not.toContain('HTTP 500');
  });

  it.each(reads.map((r) => r.name))('documents the read %s', (name) => {
    expect(doc).toContain(`\n## ${name}\n`);
  });

  it.each(publicRoutes.map((r) => r.name))('documents the keyless route %s with an example', (name) => {
    const section = doc.split(`\n## ${name}\n`)[1]?.split('\n## ')[0] ?? '';
    expect(section).toContain(`POST /api/v1/${name}`);
    expect(section).toContain('HTTP 200');
  });
});
