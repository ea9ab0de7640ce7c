/**
 * The README's quick start must not leave secrets in the checkout: `org create --json` prints the
 * owner's password and three API keys, so the file it is redirected to lies outside the
 * repository and is created readable by its owner alone; and a copy written here by mistake (or an
 * export or audit pack the CLI writes into the working directory by default) is git-ignored.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(new URL('README.md', `file://${ROOT}`), 'utf8');

/** Every line of the README's shell code blocks. */
function shellLines(): string[] {
  const out: string[] = [];
  for (const block of README.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)\n```/g)) out.push(...(block[1] ?? '').split('\n'));
  return out;
}

describe('README: the org file', () => {
  it('writes org create output outside the checkout, created mode 600, and reads the keys from there', () => {
    const lines = shellLines();
    const creates = lines.filter((l) => /finance-desk org create\b.*--json/.test(l));
    expect(creates.length).toBeGreaterThan(0);
    for (const line of creates) {
      const target = /--json\s*>\s*(\S+?)\)?$/.exec(line.trim())?.[1];
      expect(target, line).toBeDefined();
      // Home or an absolute path: never a path relative to the checkout.
      expect(target, line).toMatch(/^(?:~\/|\$HOME\/|\/)/);
      expect(line, 'created readable by its owner alone').toMatch(/umask 077|chmod 600/);
    }
    for (const line of lines) expect(line, line).not.toMatch(/['"(\s]\.?\/?org\.json\b/);
  });

  it('git-ignores an org file, an export and an audit pack written in the checkout', () => {
    for (const path of [
      'org.json',
      'harbour-cafe-org.json',
      'export-harbour-cafe-2026-07-01-2026-09-30/journals.csv',
      'audit-pack-harbour-cafe-2026-07-01-2026-09-30.tar.gz',
    ]) {
      const r = spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: ROOT });
      expect(r.status, `${path} is ignored`).toBe(0);
    }
    // And nothing that belongs in the repository is.
    const kept = spawnSync('git', ['check-ignore', '--no-index', '-q', 'packages/server/test/fixtures/bank/EXPECTED.json'], { cwd: ROOT });
    expect(kept.status).toBe(1);
  });
});
