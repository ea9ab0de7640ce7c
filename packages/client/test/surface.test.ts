/**
 * One way to name every method: `fd.<family>.<method>(params, opts?)`, built from the declarations,
 * and `fd.paginate(name, query)` for every cursor-paged list, against a real server on both engines.
 */
import { methodSpecs, methods, pagedReads, reads, readsByName, type MethodName, type PagedName } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { CreatedOrg } from '../../server/src/org/orgs.js';
import { engines, startTestServer, type TestServer } from '../../server/test/harness.js';
import { FinanceDesk, type MethodSurface, type PageItemOf, type ResultOf } from '../src/index.js';

/** `family.member` for every member of the surface type. */
type SurfaceNames = { [F in keyof MethodSurface]: `${F & string}.${keyof MethodSurface[F] & string}` }[keyof MethodSurface];
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
// Compile-time: the surface names exactly the declared methods, no more, no fewer (tsc -p tsconfig.test.json).
const surfaceIsEveryMethod: Equal<SurfaceNames, MethodName> = true;

describe('the typed surface and paginate, without a server', () => {
  const fd = new FinanceDesk({ baseUrl: 'http://127.0.0.1:1', apiKey: 'fd_test' });

  it('has a function for every declared method, named by its wire name, and nothing else', () => {
    expect(surfaceIsEveryMethod).toBe(true);
    const surface = fd as unknown as Record<string, Record<string, unknown>>;
    const families = [...new Set(methods.map((m) => m.name.split('.')[0]!))].sort();
    for (const m of methods) {
      const [family, member] = m.name.split('.') as [string, string];
      const fn = surface[family]?.[member];
      expect(typeof fn, m.name).toBe('function');
      expect((fn as { name: string }).name).toBe(m.name);
    }
    for (const family of families) {
      expect(Object.keys(surface[family]!).length).toBe(methods.filter((m) => m.name.startsWith(`${family}.`)).length);
      expect(Object.isFrozen(surface[family])).toBe(true);
    }
    expect(fd.books.billScheduleRun.name).toBe('books.billScheduleRun');
    expectTypeOf(fd.books.invoiceDraft.name).toEqualTypeOf<'books.invoiceDraft'>();
    expectTypeOf(fd.approval.request).parameter(0).toHaveProperty('actionClass');
  });

  it('exports every declaration in one flat record by wire name', () => {
    for (const m of methods) expect(methodSpecs[m.name as MethodName]).toBe(m);
    for (const r of reads) expect(readsByName[r.name]).toBe(r);
    expect(methodSpecs['books.billScheduleRun'].actionClass).toBe('books.bill_schedule_run');
  });

  it('paginate covers every list that takes a cursor and answers a nullable nextCursor (events has its own iterator)', () => {
    const taking = [
      ...methods.filter((m) => 'cursor' in ((m.params as { shape?: object }).shape ?? {})).map((m) => m.name),
      ...reads.filter((r) => 'cursor' in ((r.query as { shape?: object }).shape ?? {})).map((r) => r.name),
    ]
      // events pages by seq; books.reports takes a cursor for one of its types only (the ledger
      // detail of an account), whose result is one member of a union: a caller follows its
      // nextCursor by hand.
      .filter((n) => n !== 'events' && n !== 'books.reports');
    expect(pagedReads.map((p) => p.name).sort()).toEqual(taking.sort());
    expectTypeOf<'books.invoices'>().toExtend<PagedName>();
    expectTypeOf<'contacts.list'>().toExtend<PagedName>();
    expectTypeOf<'events'>().not.toExtend<PagedName>();
    expectTypeOf<'books.invoiceDraft'>().not.toExtend<PagedName>();
    expectTypeOf<PageItemOf<'books.invoices'>>().toEqualTypeOf<ResultOf<'books.invoices'>['invoices'][number]>();
  });

  it('paginate refuses a name that is not a paged list, and a bad limit, before any request', async () => {
    // @ts-expect-error books.invoiceDraft is not a paged list
    await expect(fd.paginate('books.invoiceDraft', {}).next()).rejects.toThrow(/not a cursor-paged list/);
    await expect(fd.paginate('books.invoices', {}, { limit: 0 }).next()).rejects.toThrow(/limit: must be a positive integer/);
  });
});

describe.each(engines)('the typed surface and paginate (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let fd: FinanceDesk;
  const requests: string[] = [];

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    const counting: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input);
      requests.push(`${init?.method ?? 'GET'} ${url.pathname.replace('/api/v1/', '')}${url.search}`);
      return fetch(input, init);
    };
    fd = new FinanceDesk({ baseUrl: t.url, apiKey: org.keys.agent, fetch: counting });
  });
  afterAll(async () => t.close());

  it('fd.books.invoiceDraft drafts an invoice end to end, typed by its declaration', async () => {
    const drafted = await fd.books.invoiceDraft({
      payeeName: 'Harbour Cafe',
      description: 'October catering',
      totalCents: 110_000,
      dueDays: 14,
    });
    expectTypeOf(drafted).toEqualTypeOf<ResultOf<'books.invoiceDraft'>>();
    expect(drafted.id).toMatch(/\S/);
    const read = await fd.books.invoice({ id: drafted.id });
    expect(read).toMatchObject({ id: drafted.id, status: 'draft', payeeName: 'Harbour Cafe' });
    // The same call by name, through the function's own name.
    const again = await fd.call(fd.books.invoice.name, { id: drafted.id });
    expect(again).toEqual(read);
  });

  it('paginate walks a POST list page by page: exactly the items, in order, once each; limit stops early', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      ids.push((await fd.books.invoiceDraft({ payeeName: `Paged Payee ${i}`, description: 'paged', totalCents: 1000 + i, dueDays: 7 })).id);
    }
    const all = (await fd.books.invoices({ payeeName: 'Paged Payee', limit: 200 })).invoices.map((i) => i.id);
    expect(all).toEqual(ids);

    requests.length = 0;
    const walked: string[] = [];
    for await (const invoice of fd.paginate('books.invoices', { payeeName: 'Paged Payee', limit: 2 })) {
      expectTypeOf(invoice).toEqualTypeOf<ResultOf<'books.invoices'>['invoices'][number]>();
      walked.push(invoice.id);
    }
    expect(walked).toEqual(ids);
    expect(requests.length).toBe(4);
    expect(requests.every((r) => r === 'POST books.invoices')).toBe(true);

    requests.length = 0;
    const firstThree: string[] = [];
    for await (const invoice of fd.paginate('books.invoices', { payeeName: 'Paged Payee', limit: 2 }, { limit: 3 }))
      firstThree.push(invoice.id);
    expect(firstThree).toEqual(ids.slice(0, 3));
    expect(requests.length).toBe(2);
  });

  it('paginate walks a GET read with the cursor in the query string', async () => {
    const whole = (await fd.read('org/keys', { limit: 200 })).keys.map((k) => k.keyId);
    expect(whole.length).toBeGreaterThan(2);
    requests.length = 0;
    const walked: string[] = [];
    for await (const key of fd.paginate('org/keys', { limit: 1 })) walked.push(key.keyId);
    expect(walked).toEqual(whole);
    expect(new Set(walked).size).toBe(walked.length);
    expect(requests.length).toBeGreaterThanOrEqual(whole.length);
    expect(requests.slice(1).every((r) => /^GET org\/keys\?limit=1&cursor=/.test(r))).toBe(true);
  });
});
