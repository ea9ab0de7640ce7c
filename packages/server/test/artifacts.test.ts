import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import spectralCore from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import {
  ARTIFACT_FILES,
  ERROR_CODES,
  ERROR_STATUS,
  HTTP_HEADERS,
  PROTOCOL_VERSION,
  TIERS,
  TIER_SCOPES,
  artifactReads,
  artifactsIndex,
  books,
  methods,
  operationIdOf,
  publicRoutes,
  reads,
  renderArtifacts,
} from '@finance-desk/protocol';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { DOCS_CONTENT_SECURITY_POLICY, DOCS_PATHS } from '../src/http/docs-route.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { sentInvoice } from './signature-helpers.js';

/**
 * The machine-readable artifacts: served as org.read GETs, generated from the
 * declarations (every method and read exactly once), committed in docs/artifacts without drift,
 * lint-clean OpenAPI 3.1, and the /docs reference page served from this origin only.
 */
const rendered = new Map(renderArtifacts().map((a) => [a.file, a]));
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const docsDir = new URL('../../../docs/artifacts/', import.meta.url);

describe.each(engines)('artifacts over HTTP (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  it('the index names every artifact with its path and the SHA-256 of the bytes served there', async () => {
    const index = await t.get(org.keys.observer, artifactsIndex.name);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(index.body.artifacts.map((a: { name: string }) => a.name)).toEqual(ARTIFACT_FILES.map((a) => a.file));
    for (const entry of index.body.artifacts as { name: string; path: string; sha256: string; bytes: number }[]) {
      const res = await fetch(`${t.url}${entry.path}`, { headers: { authorization: `Bearer ${org.keys.observer}` } });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(sha256(text)).toBe(entry.sha256);
      expect(Buffer.byteLength(text)).toBe(entry.bytes);
      expect(text).toBe(rendered.get(entry.name as (typeof ARTIFACT_FILES)[number]['file'])?.text);
    }
  });

  it('every tier may read them (org.read is in every tier); without a key they are UNAUTHORIZED', async () => {
    for (const tier of TIERS) expect(TIER_SCOPES[tier]).toContain(artifactsIndex.scope);
    const paths = [artifactsIndex.name, ...artifactReads.map((a) => a.spec.name)];
    for (const path of paths) {
      for (const key of [org.keys.observer, org.keys.reader, org.keys.agent]) {
        expect((await t.get(key, path)).status).toBe(200);
      }
      const anonymous = await t.get(null, path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
      // An empty strict query: anything else is named.
      const extra = await t.get(org.keys.observer, `${path}?x=1`);
      expect(extra.status).toBe(400);
      expect(extra.body.error.field).toBe('x');
    }
  });

  it('the hold frame and an error frame a client meets have exactly the shapes the document declares', async () => {
    const doc = JSON.parse(rendered.get('openapi.json')!.text);
    const schemas = doc.components.schemas;
    const id = await sentInvoice(t, org);
    const held = await t.post(org.keys.agent, books.invoiceChaseStep.name, { id, step: 2 });
    expect(held.body.result.status).toBe(schemas.HoldResult.properties.status.const);
    expect(Object.keys(held.body.result).sort()).toEqual([...schemas.HoldResult.required].sort());
    expect(Object.keys(held.body.result.approval).sort()).toEqual(
      [...schemas.ApprovalRef.required, ...schemas.HoldResult.properties.approval.allOf[1].required].sort(),
    );
    expect(Object.keys(held.body.result.approval.subject).sort()).toEqual([...schemas.ApprovalRef.properties.subject.required].sort());
    expect(schemas.ApprovalRef.properties.actionClass.enum).toContain(held.body.result.approval.actionClass);

    const refused = await t.post(org.keys.agent, books.invoiceDraft.name, { payeeName: 'x', totalCents: -1 });
    expect(refused.status).toBe(400);
    const allowed = Object.keys(schemas.ErrorFrame.properties.error.properties);
    for (const key of Object.keys(refused.body.error)) expect(allowed).toContain(key);
    expect(schemas.ErrorFrame.properties.error.properties.code.enum).toContain(refused.body.error.code);
    expect(refused.body.error.field).toBeTypeOf('string');
  });

  it('/docs, its script and its document are served without a key, from this origin only', async () => {
    const page = await t.raw(DOCS_PATHS.page, {});
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(DOCS_CONTENT_SECURITY_POLICY);
    const html = page.body as string;
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    for (const u of urls) expect(u).toMatch(/^\/docs\//);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>|<style|style="/);

    const scriptUrl = urls.find((u) => u.startsWith(`${DOCS_PATHS.script}?`))!;
    const script = await fetch(`${t.url}${scriptUrl}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toContain('immutable');
    const body = await script.text();
    expect(body).toContain('createApiReference');
    const etag = script.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    // The ?v= of the page is the content hash, so a new bundle is a new URL.
    expect(scriptUrl).toBe(`${DOCS_PATHS.script}?v=${etag.slice(1, 17)}`);
    const again = await fetch(`${t.url}${DOCS_PATHS.script}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);

    const init = await t.raw(
      urls.find((u) => u.startsWith(`${DOCS_PATHS.init}?`))!,
      {},
    );
    expect(init.status).toBe(200);
    const config = JSON.parse(/createApiReference\('#reference', (.*)\);/.exec(init.body as string)![1]!);
    expect(config).toMatchObject({
      url: DOCS_PATHS.openapi,
      withDefaultFonts: false,
      hideClientButton: true,
      hideTestRequestButton: true,
      telemetry: false,
      agent: { disabled: true },
    });
    expect(config).not.toHaveProperty('proxyUrl');

    const doc = await fetch(`${t.url}${DOCS_PATHS.openapi}`);
    expect(doc.status).toBe(200);
    expect(await doc.text()).toBe(rendered.get('openapi.json')!.text);
  });
});

describe('the artifacts describe every declaration exactly once', () => {
  const doc = JSON.parse(rendered.get('openapi.json')!.text);
  const catalogue = JSON.parse(rendered.get('methods.json')!.text);
  const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([verb, op]) => ({ path, verb, op })),
  );
  const errorStatuses = [...new Set(Object.values(ERROR_STATUS).filter((s) => s >= 400))].sort();

  it('has one operation per method, read and keyless route, and nothing else', () => {
    expect(operations).toHaveLength(methods.length + reads.length + publicRoutes.length);
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
  });

  it.each(methods.map((m) => [m.name, m] as const))('POST %s', (name, m) => {
    expect(operations.filter((o) => o.path === `/api/v1/${name}` && o.verb === 'post')).toHaveLength(1);
    const op = doc.paths[`/api/v1/${name}`].post;
    expect(op.operationId).toBe(operationIdOf(name));
    expect(op['x-scope']).toBe(m.scope);
    expect(op['x-kind']).toBe(m.kind);
    expect(op['x-action-class']).toBe(m.actionClass);
    expect(op.tags).toEqual([name.split('.')[0]]);
    const ok = op.responses['200'].content['application/json'].schema;
    // A signature act whose declared result includes the hold answers `oneOf [ok frame with the done
    // result, HoldFrame]`, two disjoint branches; any other method (books.billApprove refuses with
    // GOVERNANCE_NOT_READY instead of holding) answers its ok frame alone.
    const holds =
      m.kind === 'signature' &&
      JSON.stringify(catalogue.methods.find((c: { name: string }) => c.name === name).result).includes('approval_required');
    const okFrame = holds ? ok.oneOf[0] : ok;
    expect(okFrame.allOf[0]).toEqual({ $ref: '#/components/schemas/OkFrame' });
    expect(okFrame.allOf[1].required).toEqual(['result']);
    if (holds) {
      expect(ok.oneOf).toHaveLength(2);
      expect(ok.oneOf[1]).toEqual({ $ref: '#/components/schemas/HoldFrame' });
      expect(JSON.stringify(okFrame)).not.toContain('approval_required');
    } else {
      expect(ok.oneOf).toBeUndefined();
      expect(JSON.stringify(op.responses['200'])).not.toContain('HoldFrame');
    }
    const idempotent = (op.parameters ?? []).some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey');
    expect(idempotent).toBe(m.kind !== 'read');
    expect(
      Object.keys(op.responses)
        .filter((s) => s !== '200')
        .sort(),
    ).toEqual(errorStatuses.map(String));
    expect(catalogue.methods.filter((c: { name: string }) => c.name === name)).toEqual([
      expect.objectContaining({ name, scope: m.scope, kind: m.kind, summary: m.summary }),
    ]);
    // The params, in both documents, are what tool hosts accept as a tool's input schema (a
    // generator feeding either to a model must not meet a top-level union).
    const params = catalogue.methods.find((c: { name: string }) => c.name === name).params;
    for (const schema of [op.requestBody.content['application/json'].schema, params]) {
      expect(schema.type).toBe('object');
      expect(typeof schema.properties).toBe('object');
      for (const key of ['oneOf', 'anyOf', 'allOf', 'enum', 'not']) expect(schema).not.toHaveProperty(key);
    }
  });

  it.each(reads.map((r) => [r.name, r] as const))('GET %s', (name, r) => {
    expect(operations.filter((o) => o.path === `/api/v1/${name}` && o.verb === 'get')).toHaveLength(1);
    const op = doc.paths[`/api/v1/${name}`].get;
    expect(op['x-scope']).toBe(r.scope);
    // Query parameters: exactly the query schema's keys, required as the schema says.
    const query = z.toJSONSchema(r.query, { io: 'input' }) as { properties?: object; required?: string[] };
    const params = (op.parameters ?? []) as { name: string; in: string; required: boolean }[];
    expect(params.map((p) => p.name).sort()).toEqual(Object.keys(query.properties ?? {}).sort());
    for (const p of params) {
      expect(p.in).toBe('query');
      expect(p.required).toBe((query.required ?? []).includes(p.name));
    }
    expect(catalogue.reads.filter((c: { name: string }) => c.name === name)).toHaveLength(1);
  });

  it.each(publicRoutes.map((p) => p.name))('keyless POST %s', (name) => {
    const op = doc.paths[`/api/v1/${name}`].post;
    expect(op.security).toEqual([]);
    expect(op.responses['403']).toBeUndefined();
    expect(catalogue.publicRoutes.filter((c: { name: string }) => c.name === name)).toHaveLength(1);
  });

  it('the error frame lists every error code and the headers app.ts sends', () => {
    const s = doc.components.schemas.ErrorFrame.properties.error.properties;
    expect([...s.code.enum].sort()).toEqual(ERROR_CODES.filter((c) => ERROR_STATUS[c] >= 400).sort());
    expect(Object.keys(s)).toEqual(expect.arrayContaining(['field', 'approval']));
    expect(Object.keys(doc.components.headers).sort()).toEqual(
      Object.values(HTTP_HEADERS)
        .filter((h) => h !== HTTP_HEADERS.idempotencyKey)
        .sort(),
    );
    expect(doc.components.responses.Error429.headers).toHaveProperty(HTTP_HEADERS.retryAfter);
    // The real header names, as http/app.ts reads and writes them.
    const app = readFileSync(new URL('../src/http/app.ts', import.meta.url), 'utf8');
    for (const h of Object.values(HTTP_HEADERS)) expect(app.toLowerCase()).toContain(`'${h.toLowerCase()}'`);
  });

  it('every declaration converts to JSON Schema without an unrepresentable part', () => {
    // jsonSchemaOf uses unrepresentable: 'any' as a safety net; today nothing needs it.
    for (const m of methods) {
      expect(() => z.toJSONSchema(m.params, { io: 'input' })).not.toThrow();
      expect(() => z.toJSONSchema(m.result, { io: 'output' })).not.toThrow();
    }
    for (const r of reads) expect(() => z.toJSONSchema(r.query, { io: 'input' })).not.toThrow();
  });

  it('states the protocol package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../protocol/package.json', import.meta.url), 'utf8'));
    expect(PROTOCOL_VERSION).toBe(pkg.version);
    expect(doc.info.version).toBe(pkg.version);
    expect(catalogue.version).toBe(pkg.version);
  });
});

describe('the committed artifacts', () => {
  it.each(ARTIFACT_FILES.map((a) => a.file))('docs/artifacts/%s is what the code generates', (file) => {
    let committed = '';
    try {
      committed = readFileSync(new URL(file, docsDir), 'utf8');
    } catch {
      // missing: the comparison below fails with the instruction
    }
    expect(committed === rendered.get(file)!.text, `docs/artifacts/${file} is stale: run npm run artifacts`).toBe(true);
  });
});

describe('openapi.json is a valid, lint-clean OpenAPI 3.1 document', () => {
  const text = rendered.get('openapi.json')!.text;

  it('validates against the OpenAPI 3.1 schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(text));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it("has no Spectral finding under the oas ruleset's recommended rules, not even a hint", async () => {
    const spectral = new spectralCore.Spectral();
    // Nothing disabled. (The `all` set adds contact-properties and license-url, which want a
    // contact URL and e-mail and a licence URL (the licence is named by its SPDX identifier
    // instead), and oas3-parameter-description, which the declarations do not carry per query key.)
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
    const results = await spectral.run(text);
    expect(results.map((r) => `${r.code} (severity ${r.severity}): ${r.message} at ${r.path.join('.')}`)).toEqual([]);
  }, 60_000);
});
