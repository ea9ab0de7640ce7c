/**
 * Test files share their worker's modules (vitest.config.ts: isolate false), so a file that mocks
 * a module, fakes timers or stubs a global would change what the next file in that worker sees.
 * None does; this keeps it so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SHARED_STATE = /\bvi\.(mock|doMock|useFakeTimers|setSystemTime|stubGlobal|stubEnv)\s*\(/;

describe('test files leave their worker as they found it', () => {
  it('no test file mocks modules, fakes timers or stubs globals', () => {
    const found: string[] = [];
    for (const pkg of readdirSync(ROOT)) {
      let files: string[];
      try {
        files = readdirSync(join(ROOT, pkg, 'test'));
      } catch {
        continue;
      }
      for (const f of files.filter((n) => n.endsWith('.ts'))) {
        const text = readFileSync(join(ROOT, pkg, 'test', f), 'utf8');
        const m = SHARED_STATE.exec(text);
        if (m && f !== 'shared-workers.test.ts') found.push(`${pkg}/test/${f}: ${m[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
