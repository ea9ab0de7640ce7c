/**
 * The three published packages as a user gets them: `npm pack` each of @finance-desk/protocol,
 * @finance-desk/client and @finance-desk/mcp, install the tarballs into an empty folder outside the
 * repository, and run what the README tells people to run from there — the `finance-desk-mcp` bin
 * that `npx -y @finance-desk/mcp` starts, driven by the MCP SDK's own client over stdio through
 * the whole approval loop; a plain .mjs importing the client and the protocol; a TypeScript file
 * type-checked against the installed types; the protocol's `finance-desk-protocol verify-pack`.
 *
 * One engine (SQLite) is enough here: this tests packaging, not storage; the MCP server against
 * both engines is packages/server/test/mcp.test.ts. Needs the packages built (`npm test` builds
 * first; `npm pack` also runs each package's prepack build) and npm's cache filled by `npm ci`:
 * the install runs `--offline` and falls back to `--prefer-offline` when the cache lacks a
 * package's metadata (npm ci caches tarballs, not always the registry documents a fresh resolve
 * reads).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCP_ENV, toolName } from '@finance-desk/mcp';
import { approval, books, readSpecs } from '@finance-desk/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAuditPack } from '../../server/src/ops/audit-pack.js';
import type { CreatedOrg } from '../../server/src/org/orgs.js';
import { startTestServer, type TestServer } from '../../server/test/harness.js';
import { decide } from '../../server/test/signature-helpers.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = ['protocol', 'client', 'mcp'] as const;
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

interface PackedFile {
  path: string;
}
interface Packed {
  name: string;
  version: string;
  filename: string;
  files: PackedFile[];
}

/** The environment for a child npm: this run's npm_* settings (when under `npm test`) are not the user's. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^npm_/i.test(k) || /^npm_config_(cache|registry|userconfig)$/i.test(k)) env[k] = v;
  }
  return env;
}

function npm(args: string[], cwd: string) {
  return spawnSync('npm', args, { cwd, env: npmEnv(), encoding: 'utf8', timeout: 180_000, maxBuffer: 32 * 1024 * 1024 });
}

/**
 * A child process, awaited without blocking: the test server runs in this process, so a
 * synchronous spawn that calls it would wait on itself.
 */
function run(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** The README section for agent developers, and its JSON blocks. */
function readmeAgentSection(): { text: string; json: unknown[] } {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## For agent developers');
  const end = readme.indexOf('\n## ', start + 1);
  if (start < 0) throw new Error('README has no "For agent developers" section');
  const text = readme.slice(start, end < 0 ? undefined : end);
  const json = [...text.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1] ?? '') as unknown);
  return { text, json };
}

describe('the packed packages, installed outside the repository', () => {
  let packDir: string;
  let home: string;
  let packed: Packed[];
  let installedWith: string;
  let installMs: number;
  let t: TestServer;
  let org: CreatedOrg;
  let client: Client | undefined;

  beforeAll(async () => {
    packDir = mkdtempSync(join(tmpdir(), 'fd-pack-'));
    home = realpathSync(mkdtempSync(join(tmpdir(), 'fd-installed-')));
    const pack = npm(['pack', ...PACKAGES.flatMap((p) => ['-w', `packages/${p}`]), '--pack-destination', packDir, '--json'], REPO);
    expect(pack.status, pack.stderr).toBe(0);
    // Each prepack's own output precedes npm's JSON on stdout.
    packed = JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m))) as Packed[];
    expect(packed.map((p) => p.name)).toEqual(PACKAGES.map((p) => `@finance-desk/${p}`));

    writeFileSync(join(home, 'package.json'), JSON.stringify({ name: 'fd-packed-install', private: true, type: 'module' }));
    const tarballs = packed.map((p) => join(packDir, p.filename));
    const started = Date.now();
    let install = npm(['install', '--offline', '--no-audit', '--no-fund', ...tarballs], home);
    installedWith = '--offline';
    if (install.status !== 0 && /ENOTCACHED/.test(install.stderr + install.stdout)) {
      install = npm(['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], home);
      installedWith = '--prefer-offline';
    }
    installMs = Date.now() - started;
    expect(install.status, install.stderr).toBe(0);

    t = await startTestServer('sqlite');
    org = await t.org();
  }, 240_000);

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await t?.close();
    for (const d of [packDir, home]) if (d) rmSync(d, { recursive: true, force: true });
  });

  it('installs from the tarballs alone, quickly', () => {
    // The cache serves zod and the MCP SDK; a slow install here means it went to the network for tarballs.
    expect(installMs, `npm install ${installedWith} took ${installMs} ms`).toBeLessThan(60_000);
  });

  it('ships dist, README and LICENSE: no tests, sources, source maps or build info', () => {
    for (const p of packed) {
      const paths = p.files.map((f) => f.path);
      expect(paths, p.name).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']));
      for (const path of paths) {
        expect(path, `${p.name}: ${path}`).toMatch(/^(package\.json|README\.md|LICENSE|dist\/.+\.(js|d\.ts))$/);
        expect(path, `${p.name}: ${path}`).not.toMatch(/(^|\/)(test|tests|__tests__)\/|\.test\.|\.spec\./);
      }
      const manifest = JSON.parse(readFileSync(join(home, 'node_modules', p.name, 'package.json'), 'utf8')) as Record<string, any>;
      expect(manifest.private, p.name).toBeUndefined();
      expect(manifest).toMatchObject({ license: 'MIT', version: packed[0]?.version, engines: { node: '>=20.19' }, type: 'module' });
      expect(manifest.exports['.']).toMatchObject({ types: './dist/index.d.ts', import: './dist/index.js' });
      expect(manifest.description).not.toMatch(/issue \d|item \d|\bD\d+\b/i);
      for (const [dep, range] of Object.entries((manifest.dependencies ?? {}) as Record<string, string>)) {
        if (dep.startsWith('@finance-desk/')) expect(range, `${p.name} → ${dep}`).toBe(manifest.version);
      }
      expect(readFileSync(join(home, 'node_modules', p.name, 'LICENSE'), 'utf8')).toContain('Copyright (c) 2026 Finance Desk contributors');
    }
    const bin = readFileSync(join(home, 'node_modules', '@finance-desk', 'mcp', 'dist', 'bin.js'), 'utf8');
    expect(bin.startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  /** The installed bin, as `npx -y @finance-desk/mcp` runs it: from the user's folder, through node_modules/.bin. */
  const binPath = () => join(home, 'node_modules', '.bin', 'finance-desk-mcp');
  const childPath = () => [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);

  it('answers --version and --help, and refuses to start without its environment (exit 2, nothing on stdout)', async () => {
    expect(realpathSync(binPath()).startsWith(join(home, 'node_modules') + sep)).toBe(true);
    const bin = (args: string[], env: Record<string, string>) => run(binPath(), args, { cwd: home, env: { PATH: childPath(), ...env } });
    const version = await bin(['--version'], {});
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(packed[2]?.version);
    const help = await bin(['--help'], {});
    expect(help.status).toBe(0);
    for (const name of Object.values(MCP_ENV)) expect(help.stdout).toContain(name);
    const noUrl = await bin([], { [MCP_ENV.apiKey]: org.keys.agent });
    expect(noUrl.status).toBe(2);
    expect(noUrl.stdout).toBe('');
    expect(noUrl.stderr).toMatch(/^finance-desk-mcp: FINANCE_DESK_URL: /);
    const badKey = await bin([], { [MCP_ENV.url]: t.url, [MCP_ENV.apiKey]: 'two words' });
    expect(badKey.status).toBe(2);
    expect(badKey.stdout).toBe('');
    expect(badKey.stderr).toMatch(/^finance-desk-mcp: FINANCE_DESK_API_KEY: /);
    expect(badKey.stderr).not.toContain('two words');
    const unknown = await bin(['--bogus'], {});
    expect(unknown.status).toBe(2);
    expect(unknown.stdout).toBe('');
    const badToolset = await bin(['--toolsets', 'receivables,nope'], { [MCP_ENV.url]: t.url, [MCP_ENV.apiKey]: org.keys.agent });
    expect(badToolset.status).toBe(2);
    expect(badToolset.stdout).toBe('');
    expect(badToolset.stderr).toMatch(/^finance-desk-mcp: --toolsets: unknown toolset "nope": valid toolsets are .*receivables/);
    const badToolsetEnv = await bin([], { [MCP_ENV.url]: t.url, [MCP_ENV.apiKey]: org.keys.agent, [MCP_ENV.toolsets]: 'nope' });
    expect(badToolsetEnv.status).toBe(2);
    expect(badToolsetEnv.stderr).toMatch(/^finance-desk-mcp: FINANCE_DESK_TOOLSETS: unknown toolset/);
  });

  it('serves MCP over stdio from the installed bin, one toolset loaded, through the whole approval loop', async () => {
    const sdk = new Client({ name: 'packed-test', version: '1.0.0' });
    await sdk.connect(
      new StdioClientTransport({
        command: binPath(),
        cwd: home,
        env: { PATH: childPath(), [MCP_ENV.url]: t.url, [MCP_ENV.apiKey]: org.keys.agent, [MCP_ENV.toolsets]: 'receivables' },
        stderr: 'pipe',
      }),
    );
    client = sdk;
    const call = async (name: string, args: Record<string, unknown>) =>
      (await sdk.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as { isError?: boolean; structuredContent?: any };

    // Receivables and the approval tools (always loaded: a held act needs them), nothing of payables.
    const names = (await sdk.listTools()).tools.map((x) => x.name);
    expect(names).toEqual(
      expect.arrayContaining([
        toolName(books.invoiceChaseStep.name),
        toolName(approval.request.name),
        toolName(readSpecs.approvalWait.name),
      ]),
    );
    expect(names).not.toContain(toolName(books.billCapture.name));

    const draft = await call(toolName(books.invoiceDraft.name), {
      payeeName: 'Packed Pty Ltd',
      description: 'Joinery',
      totalCents: 12_300,
      dueDays: 14,
    });
    expect(draft.isError).toBeFalsy();
    const id: string = draft.structuredContent.id;
    expect((await call(toolName(books.invoiceSend.name), { id })).isError).toBeFalsy();
    const chase = toolName(books.invoiceChaseStep.name);
    expect((await call(chase, { id, step: 1, early: true })).isError).toBeFalsy();

    const hold = (await call(chase, { id, step: 2 })).structuredContent;
    expect(hold).toMatchObject({ status: 'approval_required', subjectId: id, next: { tool: toolName(approval.request.name) } });
    const requested = await call(hold.next.tool, hold.next.arguments);
    expect(requested.structuredContent).toMatchObject({ status: 'pending', approvalId: expect.any(String) });
    const approvalId: string = requested.structuredContent.approvalId;

    const waiting = call(toolName(readSpecs.approvalWait.name), { approvalId, timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 200));
    await decide(t, org, approvalId, true); // a human approves
    expect((await waiting).structuredContent).toMatchObject({ approvalId, status: 'approved' });

    const done = await call(chase, { id, step: 2, approvalId });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ id, step: 2, ledgerId: expect.any(String) });
  }, 120_000);

  it('resolves @finance-desk/client and @finance-desk/protocol from the install in a plain .mjs', async () => {
    const script = join(home, 'read.mjs');
    writeFileSync(
      script,
      [
        "import { FinanceDesk } from '@finance-desk/client';",
        "import { books, readSpecs } from '@finance-desk/protocol';",
        'const fd = new FinanceDesk({ baseUrl: process.env.FINANCE_DESK_URL, apiKey: process.env.FINANCE_DESK_API_KEY });',
        'const self = await fd.read(readSpecs.orgSelf.name);',
        "const where = ['@finance-desk/client', '@finance-desk/protocol'].map((m) => import.meta.resolve(m));",
        'console.log(JSON.stringify({ slug: self.slug, method: books.invoiceDraft.name, where }));',
      ].join('\n'),
    );
    const r = await run(process.execPath, [script], {
      cwd: home,
      env: { PATH: childPath(), [MCP_ENV.url]: t.url, [MCP_ENV.apiKey]: org.keys.reader },
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { slug: string; method: string; where: string[] };
    expect(out).toMatchObject({ slug: org.slug, method: books.invoiceDraft.name });
    for (const where of out.where) expect(realpathSync(fileURLToPath(where)).startsWith(join(home, 'node_modules') + sep)).toBe(true);
  });

  it('type-checks a TypeScript caller against the installed types (params typed from the declarations)', () => {
    writeFileSync(
      join(home, 'typed.ts'),
      [
        "import { FinanceDesk } from '@finance-desk/client';",
        "import { books, readSpecs } from '@finance-desk/protocol';",
        "import { toolName } from '@finance-desk/mcp';",
        'export async function typed(fd: FinanceDesk): Promise<string> {',
        "  const inv = await fd.call(books.invoiceDraft.name, { payeeName: 'A', description: 'x', totalCents: 100, dueDays: 0 });",
        '  const id: string = inv.id;',
        '  // @ts-expect-error totalCents is integer cents, not a string',
        "  await fd.call(books.invoiceDraft.name, { payeeName: 'A', description: 'x', totalCents: '1.00', dueDays: 0 });",
        '  return id + toolName(readSpecs.orgSelf.name);',
        '}',
      ].join('\n'),
    );
    writeFileSync(
      join(home, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['typed.ts'],
      }),
    );
    const r = spawnSync(process.execPath, [TSC, '-p', join(home, 'tsconfig.json')], { cwd: home, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  }, 120_000);

  it("runs the protocol's finance-desk-protocol verify-pack from the install on a real audit pack", async () => {
    const out = join(packDir, 'audit.tar.gz');
    const today = new Date().toISOString().slice(0, 10);
    await writeAuditPack(t.db, {
      orgId: org.orgId,
      orgSlug: org.slug,
      from: '2000-01-01',
      to: today,
      out,
      vkey: null,
      now: new Date().toISOString(),
    });
    const r = spawnSync(join(home, 'node_modules', '.bin', 'finance-desk-protocol'), ['verify-pack', out, '--json'], {
      cwd: home,
      env: { PATH: childPath() },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const report = JSON.parse(r.stdout) as { checks: { name: string; ok: boolean }[] };
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['chain', 'approvals']));
    expect(r.status, r.stderr).toBe(0);
  });

  it("the README's MCP config starts exactly this package with the variables its bin reads", () => {
    const { text, json } = readmeAgentSection();
    const stdio = json.find((b) => JSON.stringify(b).includes('"command"')) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    const server = Object.values(stdio.mcpServers)[0];
    expect(server?.command).toBe('npx');
    expect(server?.args).toEqual(['-y', packed[2]?.name]);
    // The two variables the bin requires, and the optional one named in the text.
    expect(Object.keys(server?.env ?? {}).sort()).toEqual([MCP_ENV.apiKey, MCP_ENV.url].sort());
    expect(text).toContain(`${MCP_ENV.toolsets}=receivables,payables`);
    expect(text).toContain(`npm install ${packed[1]?.name} ${packed[0]?.name}`);
    const manifest = JSON.parse(readFileSync(join(home, 'node_modules', '@finance-desk', 'mcp', 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(Object.keys(manifest.bin)).toEqual(['finance-desk-mcp']);
  });
});
