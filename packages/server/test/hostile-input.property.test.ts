/**
 * Hostile input (Standards: "nothing ever gets a 500 that a client could have caused"): every POST
 * method of the contract gets random bodies through HTTP: random JSON, its own field names with
 * values of every wrong kind (huge, negative, fractional, unicode, injection-shaped, nested),
 * and real ids of this and another organisation's documents so that the calls reach the domain
 * code. After every call: no 5xx, a JSON envelope, and a refusal appends no event. At the end
 * every chain verifies.
 *
 * Runs: FD_HOSTILE_RUNS (default 400 per engine; `npm run test:property` runs 5 000) bodies spread over all methods.
 */
import fc from 'fast-check';
import { methods, reads } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, today } from './payables-helpers.js';
import { sentInvoice } from './signature-helpers.js';

const RUNS = Number(process.env.FD_HOSTILE_RUNS ?? 400);

/** The field names a method declares (strict objects; refinements keep their shape in zod 4). */
function fieldsOf(spec: (typeof methods)[number]): string[] {
  const shape = (spec.params as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

const nasty = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    "'; DROP TABLE events; --",
    '%_!',
    '\u0000',
    '../../etc/passwd',
    '__proto__',
    'constructor',
    '2026-02-30',
    '9999-99-99',
    'inv_',
    'x'.repeat(10_000),
    '🦘'.repeat(300),
    'NaN',
    '1e309',
    // The text rules: a lone surrogate, C1 control, bidi override and isolate.
    'Acme \ud800',
    '\udc00',
    'x\u0085y',
    '$48,000.00\u202e',
    '\u2066Acme',
  ),
  fc.constantFrom(0, -1, -0, 0.5, 1e15, -1e15, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e308, 9_999_999_999_99),
  fc.constantFrom(true, false, null, [], {}, [[]], { __proto__: 1 }, { constructor: { prototype: 1 } }),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double({ noNaN: true }),
);

describe.each(engines)('hostile input to every method (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let other: CreatedOrg;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    other = await t.org();
    // Real documents of both organisations, so random calls reach past "not found".
    for (const o of [org, other]) {
      ids.push(await sentInvoice(t, o, false));
      ids.push((await approvedBill(t, o, { payeeName: `Supplier ${o.orgId}`, description: 'Timber', totalCents: 5_000 })).id);
      const claim = await t.post(o.keys.agent, 'books.expenseClaim', {
        claimant: 'Sam',
        description: 'Taxi',
        amountCents: 2_200,
        spentOn: today(),
        receiptRef: 'ext-1',
      });
      ids.push(claim.body.result.id);
      const feed = await t.post(o.keys.agent, 'books.feedLines', {
        lines: [
          { date: today(), amountCents: -5_000, description: `Timber ${o.orgId}` },
          { date: today(), amountCents: 2_200, description: 'Deposit' },
        ],
      });
      ids.push(...feed.body.result.lineIds);
    }
  });
  afterAll(async () => t?.close());

  const head = async () =>
    Number((await t.db.reader.get<{ s: number | null }>('SELECT MAX(seq) AS s FROM events WHERE org_id = ?', [org.orgId]))?.s ?? 0);

  /** Outcomes (FD_PROPERTY_STATS=1 prints them): evidence that bodies get past validation. */
  const stats = new Map<string, number>();

  it('never answers 5xx, always a JSON envelope; a refusal changes nothing', async () => {
    const names = methods.map((m) => m.name);
    const ymd = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const date = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: -400, max: 30 }).map(ymd) }, { weight: 1, arbitrary: nasty });
    const cents = fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 2_000_000 }) },
      { weight: 4, arbitrary: fc.constantFrom(1, 5_000, 2_200, 100_001, 500_001) },
      { weight: 1, arbitrary: nasty },
    );
    const id = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: nasty });
    const code = fc.constantFrom('1000', '1100', '1200', '2000', '2100', '2500', '3000', '4000', '6000', '6300', '9999', 'abc');
    const taxCode = fc.constantFrom(
      'GST',
      'GST_FREE',
      'INPUT_TAXED',
      'EXPORT',
      'GST_ON_EXPENSES',
      'GST_ON_CAPITAL',
      'BAS_EXCLUDED',
      'BAS_EXCLUDED_WAGES',
      'gst',
    );
    const text = fc.oneof({ weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) }, { weight: 1, arbitrary: nasty });
    const line = fc.record(
      { description: text, amountCents: cents, taxCode, accountCode: code, date, debitCents: cents, creditCents: cents },
      { requiredKeys: [] },
    );
    /** A plausible value for a field, by its name; sometimes a hostile one instead. */
    const plausible: Record<string, fc.Arbitrary<unknown>> = {
      id,
      lineId: id,
      claimId: id,
      cursor: id,
      approvalId: fc.constantFrom('apr_nosuch', ''),
      billIds: fc.array(id, { maxLength: 3 }),
      lines: fc.array(line, { maxLength: 4 }),
      target: fc.record({ kind: fc.constantFrom('invoice', 'bill', 'claim', 'journal', 'x'), id }),
      taxCode,
      accountCode: code,
      step: fc.integer({ min: 0, max: 11 }),
      dueDays: fc.integer({ min: -1, max: 400 }),
      limit: fc.integer({ min: 0, max: 201 }),
      suggestions: fc.boolean(),
      selfBalancing: fc.boolean(),
      type: fc.constantFrom('trial_balance', 'profit_and_loss', 'balance_sheet', 'aged_receivables', 'aged_payables', 'gst_summary', 'x'),
      status: fc.constantFrom('draft', 'sent', 'approved', 'unreconciled', 'all', 'held', 'x'),
      file: fc.record(
        {
          format: fc.constantFrom('csv', 'ofx', 'qif', 'pdf'),
          bank: fc.constantFrom('cba', 'nab', 'x'),
          content: fc.oneof(
            fc.string({ maxLength: 200 }),
            fc.constant('Date,Amount,Description\n01/02/2026,-10.00,X\n'),
            fc.constant('<OFX><STMTTRN><TRNAMT>-1.00</STMTTRN></OFX>'),
          ),
        },
        { requiredKeys: [] },
      ),
      funding: fc.record(
        {
          bsb: fc.constantFrom('034-702', '999', ''),
          accountNumber: fc.constantFrom('458921', 'x'),
          bankCode: fc.constantFrom('WBC', 'wbc'),
          userName: text,
          apcaUserId: fc.constantFrom('512734', '1'),
          remitterName: text,
        },
        { requiredKeys: [] },
      ),
      contentBase64: fc.oneof(fc.base64String({ maxLength: 40 }), nasty),
      mimeType: fc.constantFrom('application/pdf', 'image/jpeg', 'PDF'),
      gstMethod: fc.constantFrom('accounts', 'worksheet', 'x'),
    };
    const valueFor = (field: string) =>
      plausible[field] ??
      (/Cents$/.test(field) ? cents : /On$|^date$|^asOf$|^from$|^to$|Before$|^dueOnOrBefore$/.test(field) ? date : text);
    const value = fc.oneof(
      { weight: 3, arbitrary: nasty },
      { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
      { weight: 2, arbitrary: fc.constantFrom(...ids) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constantFrom('invoice', 'bill', 'claim', 'journal', 'x'), id: fc.constantFrom(...ids) }),
      },
      { weight: 1, arbitrary: fc.array(nasty, { maxLength: 3 }) },
    );
    const OMIT = Symbol('omit');
    // A method, then its own fields: mostly each given, by the field's name a plausible value or,
    // one time in four, any hostile one; plus strangers, and sometimes a body that is not an object.
    const call = fc.constantFrom(...names).chain((name) => {
      const spec = methods.find((m) => m.name === name)!;
      const fieldArbs = Object.fromEntries(
        fieldsOf(spec).map((f) => [
          f,
          fc.oneof({ weight: 16, arbitrary: valueFor(f) }, { weight: 1, arbitrary: value }, { weight: 1, arbitrary: fc.constant(OMIT) }),
        ]),
      );
      return fc.record({
        method: fc.constant(name),
        fields: fc.record(fieldArbs),
        extra: fc.oneof(
          { weight: 8, arbitrary: fc.constant(null) },
          { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), nasty, { maxKeys: 2 }) },
        ),
        wrap: fc.oneof(
          { weight: 5, arbitrary: fc.constant('params') },
          { weight: 2, arbitrary: fc.constant('bare') },
          { weight: 1, arbitrary: fc.constant('raw') },
        ),
        raw: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 30 })),
      });
    });
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        const params: Record<string, unknown> = {};
        for (const [f, v] of Object.entries(c.fields)) if (v !== OMIT) params[f] = v;
        Object.assign(params, c.extra ?? {});
        const body =
          c.wrap === 'params' ? { params } : c.wrap === 'bare' ? params : typeof c.raw === 'string' ? c.raw : JSON.stringify(c.raw);
        const before = await head();
        const r = await t.post(org.keys.agent, c.method, body);
        const tag = `${c.method} ${JSON.stringify(body).slice(0, 300)} → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
        const outcome = `${r.status} ${r.body?.error?.code ?? 'ok'}`;
        stats.set(outcome, (stats.get(outcome) ?? 0) + 1);
        expect(r.status, tag).toBeLessThan(500);
        expect(typeof r.body, tag).toBe('object');
        expect(typeof r.body.ok, tag).toBe('boolean');
        if (r.status !== 200) {
          expect(r.body.ok, tag).toBe(false);
          expect(r.body.error.message.length, tag).toBeGreaterThan(0);
          expect(await head(), `a refusal appended an event: ${tag}`).toBe(before);
        }
      }),
      { numRuns: RUNS },
    );
    if (process.env.FD_PROPERTY_STATS === '1')
      console.info(
        [...stats]
          .sort()
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
      );
    await t.verifyAll();
  }, 600_000);
  /** One character the text rules refuse anywhere: C0 (not tab/LF/CR), DEL/C1, bidi, lone surrogate. */
  const forbidden = fc
    .oneof(
      fc.integer({ min: 0x00, max: 0x1f }).filter((c) => c !== 0x09 && c !== 0x0a && c !== 0x0d),
      fc.integer({ min: 0x7f, max: 0x9f }),
      fc.integer({ min: 0x202a, max: 0x202e }),
      fc.integer({ min: 0x2066, max: 0x2069 }),
      fc.integer({ min: 0xd800, max: 0xdfff }),
    )
    .map((c) => String.fromCharCode(c));
  /** Ordinary text with one forbidden character somewhere in it. */
  const poisoned = fc
    .tuple(fc.string({ maxLength: 12 }), forbidden, fc.string({ maxLength: 12 }))
    // fc.string may itself end in a high surrogate half or start with a low one; the forbidden
    // character is what the test places, so the halves around it are plain ASCII.
    .map(([a, bad, b]) => `${a.replace(/[^\x20-\x7e]/g, '')}${bad}${b.replace(/[^\x20-\x7e]/g, '')}`);

  it('text rules: a forbidden character in any field, at any depth or in a key, is BAD_REQUEST naming it; nothing changes', async () => {
    const names = methods.map((m) => m.name);
    const call = fc.record({
      method: fc.constantFrom(...names),
      field: fc.string({ minLength: 1, maxLength: 10 }).map((f) => f.replace(/[^A-Za-z]/g, '') || 'x'),
      bad: poisoned,
      shape: fc.constantFrom('value', 'nested', 'array', 'key'),
    });
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        const spec = methods.find((m) => m.name === c.method)!;
        const own = fieldsOf(spec);
        const field = own.length > 0 && c.field.length % 2 === 0 ? own[c.field.length % own.length]! : c.field;
        const params: Record<string, unknown> =
          c.shape === 'value'
            ? { [field]: c.bad }
            : c.shape === 'nested'
              ? { [field]: { inner: c.bad } }
              : c.shape === 'array'
                ? { [field]: ['ok', c.bad] }
                : { [c.bad]: 1 };
        const named =
          c.shape === 'value'
            ? `${field}: `
            : c.shape === 'nested'
              ? `${field}.inner: `
              : c.shape === 'array'
                ? `${field}[1]: `
                : 'params: a field name';
        const before = await head();
        const r = await t.post(org.keys.agent, c.method, { params });
        const tag = `${c.method} ${JSON.stringify(params)} → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
        expect(r.status, tag).toBe(400);
        expect(r.body.error.code, tag).toBe('BAD_REQUEST');
        expect(r.body.error.message, tag).toContain(named);
        expect(await head(), tag).toBe(before);
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  }, 600_000);

  it('text rules in GET reads: a forbidden character in a query value is BAD_REQUEST naming the key', async () => {
    const names = reads.map((r) => r.name).filter((n) => n !== 'approval.wait');
    const keys = ['cursor', 'limit', 'slug', 'status', 'x'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), fc.constantFrom(...keys), poisoned, async (name, key, bad) => {
        const before = await head();
        // encodeURIComponent refuses a lone surrogate; those reach a query only as invalid UTF-8.
        const encoded = /[\ud800-\udfff]/.test(bad) ? '%ED%A0%80%00' : encodeURIComponent(bad);
        const r = await t.get(org.keys.agent, `${name}?${key}=${encoded}`);
        const tag = `GET ${name}?${key}=${encoded} → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
        expect([400, 403], tag).toContain(r.status);
        if (r.status === 400) expect(r.body.error.message, tag).toContain(`${key}: `);
        expect(await head(), tag).toBe(before);
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  }, 600_000);

  it('GET reads: random query strings never answer 5xx and never append an event', async () => {
    const names = [...reads.map((r) => r.name), 'hierarchy', 'no.such', 'org/../events'];
    const keys = [
      'cursor',
      'limit',
      'id',
      'slug',
      'approvalId',
      'timeoutMs',
      'status',
      'actionClass',
      'subjectId',
      'from',
      'to',
      'kind',
      'x',
    ];
    const qvalue = fc.oneof(
      fc.constantFrom(
        '',
        '0',
        '-1',
        '1.5',
        '1e3',
        '500',
        '501',
        '9007199254740993',
        'inv_x',
        '%00',
        '%E0%A4%A',
        '%E2%80%AE',
        '%C2%85',
        '%ED%A0%80',
        'harbour',
        '30001',
        '2026-07-01',
        '0000-01-01',
        '9999-12-31',
        'bill.due',
      ),
      fc.string({ maxLength: 20 }),
      fc.constantFrom(...ids),
    );
    const query = fc.array(fc.tuple(fc.constantFrom(...keys), qvalue), { maxLength: 4 });
    const key = fc.constantFrom(org.keys.observer, org.keys.reader, org.keys.agent);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), query, key, async (name, q, k) => {
        // timeoutMs is capped so that a long-poll cannot stall the run; everything else is raw.
        const qs = q
          .map(([a, b]) => (a === 'timeoutMs' ? [a, String(Math.min(Number(b) || 0, 50))] : [a, b]))
          .map(([a, b]) => `${encodeURIComponent(a!)}=${b!.startsWith('%') ? b : encodeURIComponent(b!)}`)
          .join('&');
        const before = await head();
        const r = await t.get(k, `${name}${qs ? `?${qs}` : ''}`);
        const tag = `GET ${name}?${qs} → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
        expect(r.status, tag).toBeLessThan(500);
        expect(typeof r.body, tag).toBe('object');
        expect(await head(), tag).toBe(before);
      }),
      { numRuns: RUNS },
    );
  }, 600_000);
});
