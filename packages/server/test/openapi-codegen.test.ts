/**
 * The committed OpenAPI document, fed to a code generator as an agent developer would: types from
 * openapi-typescript, calls through openapi-fetch's createClient<paths>(). A script that runs the
 * whole signature loop (draft, send, chase to a hold, file the hold's approval, wait, retry with the
 * approvalId, read the result) must type-check under strict options with no `as`, no `!`, no `any`,
 * and then run against a real server while a human approves.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { methods, renderArtifacts } from '@finance-desk/protocol';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { decide } from './signature-helpers.js';

const OPENAPI = fileURLToPath(new URL('../../../docs/artifacts/openapi.json', import.meta.url));

/** The agent developer's script, written against the generated `paths` only. */
const SCRIPT = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export interface Outcome {
  invoiceId: string;
  heldActionClass: string;
  approvalId: string;
  step: number;
  ledgerId: string;
}

export async function run(baseUrl: string, apiKey: string, human: (approvalId: string) => Promise<void>): Promise<Outcome> {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${apiKey}\` } });

  const drafted = await client.POST('/api/v1/books.invoiceDraft', {
    body: { payeeName: 'Harbour Cafe', payeeEmail: 'accounts@harbour-cafe.example', description: 'October catering', totalCents: 110000, dueDays: 14 },
  });
  if (drafted.error) throw new Error(\`draft: \${drafted.error.error.code} \${drafted.error.error.message}\`);
  const invoiceId = drafted.data.result.id;

  const sent = await client.POST('/api/v1/books.invoiceSend', { body: { id: invoiceId } });
  if (sent.error) throw new Error(\`send: \${sent.error.error.code}\`);

  const reminded = await client.POST('/api/v1/books.invoiceChaseStep', { body: { id: invoiceId, step: 1, early: true } });
  if (reminded.error) throw new Error(\`chase 1: \${reminded.error.error.code}\`);
  if ('approval' in reminded.data.result) throw new Error('chase step 1 is not a signature act');

  const held = await client.POST('/api/v1/books.invoiceChaseStep', { body: { id: invoiceId, step: 2 } });
  if (held.error) throw new Error(\`chase 2: \${held.error.error.code}\`);
  const hold = held.data.result;
  if (!('approval' in hold)) throw new Error('chase step 2 was not held for a human');

  // The hold's approval, filed as it stands: actionClass is the enum approval.request takes.
  const filed = await client.POST('/api/v1/approval.request', {
    body: {
      actionClass: hold.approval.actionClass,
      payloadHash: hold.approval.payloadHash,
      subject: { kind: hold.approval.subject.kind, subjectId: hold.approval.subject.subjectId, summary: hold.approval.subject.summary },
    },
  });
  if (filed.error) throw new Error(\`approval.request: \${filed.error.error.code} \${filed.error.error.message}\`);
  const approvalId = filed.data.result.approvalId;

  await human(approvalId);
  let status = filed.data.result.status === 'pending' ? 'pending' : 'unknown';
  for (let round = 0; round < 20 && status === 'pending'; round += 1) {
    const waited = await client.GET('/api/v1/approval.wait', { params: { query: { approvalId, timeoutMs: '1000' } } });
    if (waited.error) throw new Error(\`approval.wait: \${waited.error.error.code}\`);
    status = waited.data.status;
  }
  if (status !== 'approved') throw new Error(\`approval \${approvalId} is \${status}\`);

  const done = await client.POST('/api/v1/books.invoiceChaseStep', { body: { id: invoiceId, step: 2, approvalId } });
  if (done.error) throw new Error(\`chase 2 with proof: \${done.error.error.code} \${done.error.error.message}\`);
  const result = done.data.result;
  if ('approval' in result) throw new Error('still held after the approval');
  return { invoiceId: result.id, heldActionClass: hold.approval.actionClass, approvalId, step: result.step, ledgerId: result.ledgerId };
}
`;

interface Outcome {
  invoiceId: string;
  heldActionClass: string;
  approvalId: string;
  step: number;
  ledgerId: string;
}

/** Every `as`, `<T>x`, `x!` and `any` in a source text: none is allowed in the script. */
function escapes(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isSatisfiesExpression(node))
      found.push(`cast: ${node.getText(source)}`);
    if (ts.isNonNullExpression(node)) found.push(`non-null assertion: ${node.getText(source)}`);
    if (node.kind === ts.SyntaxKind.AnyKeyword) found.push(`any at ${node.pos}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('openapi.json through openapi-typescript and openapi-fetch', () => {
  let dir: string;
  let diagnostics: string[] = [];
  let generated = '';

  beforeAll(async () => {
    // Inside the repository, so that `openapi-fetch` resolves from its node_modules.
    dir = mkdtempSync(join(fileURLToPath(new URL('.', import.meta.url)), '.codegen-'));
    generated = astToString(await openapiTS(pathToFileURL(OPENAPI)));
    writeFileSync(join(dir, 'api.d.ts'), generated);
    writeFileSync(join(dir, 'script.ts'), SCRIPT);
    const program = ts.createProgram([join(dir, 'script.ts')], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      noImplicitReturns: true,
      noEmit: true,
      skipLibCheck: false,
    });
    diagnostics = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || !d.file.fileName.includes('/node_modules/'))
      .map((d) => `${d.file ? `${d.file.fileName.slice(dir.length + 1)}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the committed document is the one the declarations generate', () => {
    const rendered = renderArtifacts().find((a) => a.file === 'openapi.json');
    expect(readFileSync(OPENAPI, 'utf8') === rendered?.text, 'docs/artifacts/openapi.json is stale: run npm run docs').toBe(true);
  });

  it('is valid OpenAPI 3.1 whose licence a strict parser accepts (url or identifier)', async () => {
    const doc = JSON.parse(readFileSync(OPENAPI, 'utf8'));
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const license = doc.info.license as { name?: string; url?: string; identifier?: string };
    expect(typeof license.url === 'string' || typeof license.identifier === 'string').toBe(true);
    expect(license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('generates types in which every ok frame has its result and a hold names the action class enum', () => {
    // No ok frame's result is optional: not the shared OkFrame, not any operation's.
    expect(generated).not.toMatch(/OkFrame"\] & \{\s*result\?:/);
    expect(generated.match(/OkFrame"\] & \{\s*result:/g)?.length).toBe(methods.length);
    // The shared frame requires it; each operation's response gives its type.
    const doc = JSON.parse(readFileSync(OPENAPI, 'utf8')) as { components: { schemas: { OkFrame: { required: string[] } } } };
    expect(doc.components.schemas.OkFrame.required).toEqual(['ok', 'result']);
    const hold = /HoldResult: \{[\s\S]*?actionClass: ([^;]+);/.exec(generated);
    expect(hold?.[1]).toContain('"books.invoice_chase_step"');
    const request = /approval_request: \{[\s\S]*?actionClass: ([^;]+);/.exec(generated);
    expect(request?.[1]).toBe(hold?.[1]);
  });

  it('the signature-loop script type-checks under strict options with no cast, non-null assertion or any', () => {
    expect(diagnostics).toEqual([]);
    const source = ts.createSourceFile('script.ts', SCRIPT, ts.ScriptTarget.ES2022, true);
    expect(escapes(source)).toEqual([]);
  });

  describe.each(engines)('and runs against a real server (%s)', (engine) => {
    let t: TestServer;
    let org: CreatedOrg;
    beforeAll(async () => {
      t = await startTestServer(engine);
      org = await t.org();
    });
    afterAll(async () => t.close());

    it('draft, send, hold, approval.request, a human approves, wait, retry with approvalId, result', async () => {
      const script = (await import(pathToFileURL(join(dir, 'script.ts')).href)) as {
        run: (baseUrl: string, apiKey: string, human: (approvalId: string) => Promise<void>) => Promise<Outcome>;
      };
      const decided: string[] = [];
      const outcome = await script.run(t.url, org.keys.agent, async (approvalId) => {
        await decide(t, org, approvalId, true);
        decided.push(approvalId);
      });
      expect(decided).toEqual([outcome.approvalId]);
      expect(outcome).toMatchObject({ heldActionClass: 'books.invoice_chase_step', step: 2 });
      // The step the script read is on the ledger: its ledgerId is the start of a stored row's hash.
      const events = (await t.get(org.keys.observer, 'events?limit=500')).body.events as { kind: string; row_hash: string }[];
      const row = events.find((e) => e.row_hash.startsWith(outcome.ledgerId));
      expect(row?.kind).toMatch(/chase/i);
    });
  });
});
