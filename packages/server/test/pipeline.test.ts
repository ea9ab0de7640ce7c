import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, refusal, startTestServer, type TestServer } from './harness.js';

const draft = { payeeName: 'Bob Pty Ltd', description: 'Consulting', totalCents: 12_345, dueDays: 14 };

describe.each(engines)('method pipeline (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  async function head(): Promise<number> {
    return (await t.get(org.keys.observer, 'snapshot')).body.head.seq;
  }

  describe('order of checks (credential, rate limit, name, method, scope, params): each failure changes nothing', () => {
    it('missing credential is UNAUTHORIZED before anything else', async () => {
      const r = await t.post(null, 'not a method!', 'not json');
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ ok: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    });

    it('an unknown key and a malformed key are UNAUTHORIZED', async () => {
      const forged = org.keys.agent.slice(0, -4) + 'AAAA';
      for (const key of [forged, 'fdk_nope', 'Basic abc']) {
        const r = await t.post(key, 'books.invoiceDraft', draft);
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('UNAUTHORIZED');
      }
    });

    it('a malformed method name is BAD_REQUEST before existence and scope', async () => {
      const r = await t.post(org.keys.observer, 'books', 'not json');
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/malformed method name/);
      const r2 = await t.post(org.keys.observer, 'books.invoice-draft', {});
      expect(r2.status).toBe(400);
    });

    it('an unknown method is NOT_FOUND before scope', async () => {
      const r = await t.post(org.keys.observer, 'books.noSuchMethod', 'not json');
      expect(r.status).toBe(404);
      expect(r.body.error).toEqual({ code: 'NOT_FOUND', message: 'unknown method books.noSuchMethod' });
    });

    it('missing scope is FORBIDDEN_SCOPE before the body is read', async () => {
      const r = await t.post(org.keys.reader, 'books.invoiceDraft', 'not json');
      expect(r.status).toBe(403);
      expect(r.body.error).toEqual({
        code: 'FORBIDDEN_SCOPE',
        message: 'missing scope books.write for books.invoiceDraft',
      });
    });

    it('invalid JSON is BAD_REQUEST after scope', async () => {
      const before = await head();
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', '{"payeeName": ');
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('BAD_REQUEST');
      expect(r.body.error.message).toMatch(/^body: invalid JSON/);
      expect(await head()).toBe(before);
    });

    it('a body that is not an object is BAD_REQUEST', async () => {
      for (const body of ['[1,2]', '"text"', '42', 'null']) {
        const r = await t.post(org.keys.agent, 'books.invoiceDraft', body);
        expect(r.status).toBe(400);
        expect(r.body.error.message).toBe('body: must be a JSON object');
      }
    });
  });

  describe('request bodies and validation', () => {
    it('accepts the wrapped and the bare form alike', async () => {
      const wrapped = await t.post(org.keys.agent, 'books.invoiceDraft', { params: draft });
      const bare = await t.post(org.keys.agent, 'books.invoiceDraft', draft);
      expect(wrapped.status).toBe(200);
      expect(bare.status).toBe(200);
      expect(wrapped.body.result.totalCents).toBe(12_345);
      expect(bare.body.result.payeeName).toBe('Bob Pty Ltd');
    });

    it('an empty body is {} and names every missing field', async () => {
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', '');
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe(
        // Either payeeName or contactId; the check that says so runs after the fields' own.
        'description: is required; totalCents: is required; dueDays: is required; payeeName: is required (or give contactId)',
      );
    });

    it('an unknown field is named', async () => {
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', { ...draft, colour: 'blue' });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe('colour: unknown field');
    });

    it('unknown field inside the wrapper is named too', async () => {
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', { params: { ...draft, extra: 1 } });
      expect(r.body.error.message).toBe('extra: unknown field');
    });

    it('a wrapper with a non-object params is refused', async () => {
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', { params: [1] });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe('params: must be a JSON object');
    });

    it.each([
      [{ totalCents: 0 }, 'totalCents: must be an integer greater than 0'],
      [{ totalCents: -5 }, 'totalCents: must be an integer greater than 0'],
      [{ totalCents: 12.5 }, 'totalCents: must be an integer number of cents'],
      [{ totalCents: '100' }, 'totalCents: must be an integer number of cents'],
      [{ dueDays: -1 }, 'dueDays: must be an integer of at least 0'],
      [{ dueDays: 1.5 }, 'dueDays: must be an integer number of days'],
      [{ payeeName: '' }, 'payeeName: must not be empty'],
      [{ payeeName: 'x'.repeat(201) }, 'payeeName: must be at most 200 characters'],
      [{ description: 7 }, 'description: must be a string'],
    ])('malformed value %j names field and constraint', async (patch, message) => {
      const before = await head();
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', { ...draft, ...patch });
      expect(r.status).toBe(400);
      expect(r.body).toEqual(refusal('BAD_REQUEST', message));
      expect(await head()).toBe(before);
    });

    it('lists every problem when several things are wrong', async () => {
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', { payeeName: '', totalCents: 0, dueDays: 3, zz: 1 });
      expect(r.body.error.message).toBe(
        'payeeName: must not be empty; description: is required; totalCents: must be an integer greater than 0; zz: unknown field',
      );
    });

    it('a body over 1 MiB is BAD_REQUEST', async () => {
      const big = JSON.stringify({ ...draft, description: 'x'.repeat(1024 * 1024 + 10) });
      const r = await t.post(org.keys.agent, 'books.invoiceDraft', big);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('BAD_REQUEST');
      expect(r.body.error.message).toMatch(/larger than the limit/);
    });

    it('any content type is read as JSON text', async () => {
      const r = await t.raw('/api/v1/books.invoiceDraft', {
        method: 'POST',
        headers: { authorization: `Bearer ${org.keys.agent}`, 'content-type': 'text/plain' },
        body: JSON.stringify(draft),
      });
      expect(r.status).toBe(200);
      expect(r.body.ok).toBe(true);
    });
  });

  describe('response frames', () => {
    it('a success is exactly {ok, result} with JSON content type and a ledgerId', async () => {
      const res = await fetch(`${t.url}/api/v1/books.invoiceDraft`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.keys.agent}`, 'content-type': 'application/json' },
        body: JSON.stringify(draft),
      });
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['ok', 'result']);
      expect((body.result as { ledgerId: string }).ledgerId).toMatch(/^[0-9a-f]{8}$/);
    });

    it('unknown paths under /api/v1 and elsewhere answer a JSON 404 frame', async () => {
      const a = await t.raw('/api/v2/snapshot', { method: 'GET' });
      expect(a.status).toBe(404);
      expect(a.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(a.body.error.code).toBe('NOT_FOUND');
      const b = await t.get(org.keys.observer, 'no.such.read');
      expect(b.status).toBe(404);
      expect(b.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'unknown read no.such.read' } });
      const c = await t.raw('/api/v1/snapshot', { method: 'DELETE', headers: { authorization: `Bearer ${org.keys.agent}` } });
      expect(c.status).toBe(404);
    });

    it('every response carries a request id', async () => {
      const r = await t.get(org.keys.observer, 'snapshot');
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    });
  });
});
