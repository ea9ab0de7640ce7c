/**
 * The README's "client in ten lines" runs as written, against a real server: the code block is
 * taken from README.md, pointed at the test server and its agent key, and executed; a human
 * approves the held step while it waits, and it finds its act on the verified ledger.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../../server/src/org/orgs.js';
import { startTestServer, type TestServer } from '../../server/test/harness.js';
import { decide } from '../../server/test/signature-helpers.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

function clientSnippet(): string {
  const text = readFileSync(README, 'utf8');
  const at = text.indexOf('**The client in ten lines**');
  const start = text.indexOf('```ts\n', at);
  const end = text.indexOf('\n```', start + 6);
  if (at < 0 || start < 0 || end < 0) throw new Error('README has no "client in ten lines" ts block');
  return text.slice(start + 6, end);
}

describe('README: the client in ten lines', () => {
  let t: TestServer;
  let org: CreatedOrg;
  let dir: string;
  beforeAll(async () => {
    t = await startTestServer('sqlite');
    org = await t.org();
    dir = mkdtempSync(join(fileURLToPath(new URL('.', import.meta.url)), '.readme-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is at most ten lines of code and runs the whole approval loop as written', async () => {
    const snippet = clientSnippet();
    const lines = snippet.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('//'));
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(snippet).toContain("baseUrl: 'http://127.0.0.1:8080'");
    const runnable = snippet
      .replace("'http://127.0.0.1:8080'", JSON.stringify(t.url))
      .replace('process.env.FD_KEY!', JSON.stringify(org.keys.agent));
    const logged: string[] = [];
    const file = join(dir, 'snippet.ts');
    writeFileSync(file, `const console = (globalThis as any).__readmeConsole;\n${runnable}\nexport {};\n`);
    (globalThis as unknown as { __readmeConsole: unknown }).__readmeConsole = { log: (...a: unknown[]) => logged.push(a.join(' ')) };
    // The human: approve the first pending approval that appears.
    let decided = false;
    const human = (async () => {
      for (let i = 0; i < 200 && !decided; i += 1) {
        const pending = (await t.get(org.keys.observer, 'decision.list?status=pending')).body.decisions as { approvalId: string }[];
        if (pending[0]) {
          await decide(t, org, pending[0].approvalId, true);
          decided = true;
        } else await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await import(file);
    await human;
    expect(decided).toBe(true);
    expect(logged[0]).toMatch(/^waiting for a human: /);
    expect(logged.at(-1)).toMatch(/^on the ledger at seq \d+$/);
  }, 30_000);
});
