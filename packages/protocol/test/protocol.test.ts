/**
 * Protocol test vectors (docs/protocol.md, docs/protocol-vectors.json).
 *
 * The vectors were computed independently of this package (Python hashlib plus a separate
 * canonical-JSON writer, cross-checked with sha256sum), so these tests check the TypeScript
 * implementation against the published contract rather than against itself.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CanonicalJsonError,
  ChainVerifier,
  ERROR_CODES,
  canonicalJson,
  decimalsAsText,
  cents,
  days,
  formatIssues,
  isoDate,
  ledgerId,
  missingScopeMessage,
  payloadHash,
  rowHash,
  rowHashInput,
  sha256Hex,
  statusOf,
  validate,
  verifyChain,
  type ChainVerdict,
  type EventRow,
} from '../src/index.js';

interface CanonicalVector {
  readonly name: string;
  readonly input: unknown;
  readonly output: string;
}
interface StepVector {
  readonly seq: number;
  readonly hashInput: string;
  readonly row_hash: string;
  readonly ledgerId: string;
}
interface ChainCase {
  readonly name: string;
  readonly from?: { seq: number; rowHash: string };
  readonly rows: EventRow[];
  readonly verdict: ChainVerdict;
}
interface Vectors {
  readonly canonicalJson: CanonicalVector[];
  readonly chain: { rows: EventRow[]; steps: StepVector[]; verdict: ChainVerdict };
  readonly partial: ChainCase;
  readonly broken: ChainCase[];
  readonly payloadHash: { input: unknown; canonical: string; payloadHash: string };
}

const vectors = JSON.parse(readFileSync(new URL('../../../docs/protocol-vectors.json', import.meta.url), 'utf8')) as Vectors;

const HEX64 = /^[0-9a-f]{64}$/;

describe('vector file', () => {
  it('has the promised coverage', () => {
    expect(vectors.canonicalJson.length).toBeGreaterThanOrEqual(4);
    expect(vectors.chain.rows.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(vectors.chain.steps).toHaveLength(3);
    const reasons = vectors.broken.map((b) => b.verdict.ok === false && b.verdict.reason);
    expect(reasons).toContain('row_hash');
    expect(reasons).toContain('prev_hash');
  });
});

describe('canonical JSON vectors', () => {
  for (const v of vectors.canonicalJson) {
    it(v.name, () => {
      expect(canonicalJson(v.input)).toBe(v.output);
    });
  }

  it('spot checks written out by hand', () => {
    expect(canonicalJson({ a: 1, B: 2, '2': 3, '10': 4 })).toBe('{"10":4,"2":3,"B":2,"a":1}');
    expect(canonicalJson({ b: { d: 1, c: [3, 2, 1] }, a: null })).toBe('{"a":null,"b":{"c":[3,2,1],"d":1}}');
    expect(canonicalJson({ '\uff5a': 1, '\u{1F600}': 2 })).toBe('{"\u{1F600}":2,"\uff5a":1}');
    expect(canonicalJson('é\n')).toBe('"é\\n"');
  });

  it('drops keys whose value is undefined, at every depth', () => {
    expect(canonicalJson({ b: 1, a: undefined, c: { d: undefined, e: 2 } })).toBe('{"b":1,"c":{"e":2}}');
  });

  it('is independent of insertion order', () => {
    expect(canonicalJson({ x: 1, y: { p: 1, q: 2 } })).toBe(canonicalJson({ y: { q: 2, p: 1 }, x: 1 }));
  });

  const rejected: Array<[string, unknown]> = [
    ['a fraction', { totalCents: 1.5 }],
    ['NaN', { n: Number.NaN }],
    ['Infinity', [Number.POSITIVE_INFINITY]],
    ['an unsafe integer (2**53)', { n: 2 ** 53 }],
    ['an unsafe negative integer', -(2 ** 53)],
    ['a Date', { at: new Date(0) }],
    ['a Map', new Map()],
    [
      'a class instance',
      new (class Money {
        cents = 1;
      })(),
    ],
    ['a function', { f: () => 1 }],
    ['a bigint', { n: 1n }],
    ['a symbol', Symbol('s')],
    ['undefined at the root', undefined],
    ['undefined inside an array', [undefined]],
  ];
  for (const [what, value] of rejected) {
    it(`rejects ${what}`, () => {
      expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
    });
  }

  it('names the path of the offending value', () => {
    expect(() => canonicalJson({ a: { b: [0, { c: 1.5 }] } })).toThrow(/^a\.b\[1\]\.c: /);
    expect(() => canonicalJson(0.5)).toThrow(/^<root>: /);
  });

  it('accepts the safe-integer bounds', () => {
    expect(canonicalJson([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])).toBe('[9007199254740991,-9007199254740991]');
  });
});

describe('row hash vectors', () => {
  const { rows, steps } = vectors.chain;

  for (const [i, step] of steps.entries()) {
    it(`row seq ${step.seq}: hash input, row_hash and ledgerId`, () => {
      const row = rows[i]!;
      expect(row.seq).toBe(step.seq);
      expect(rowHashInput(row.prev_hash, row)).toBe(step.hashInput);
      expect(sha256Hex(step.hashInput)).toBe(step.row_hash);
      expect(rowHash(row.prev_hash, row)).toBe(step.row_hash);
      expect(row.row_hash).toBe(step.row_hash);
      expect(step.row_hash).toMatch(HEX64);
      expect(ledgerId(step.row_hash)).toBe(step.ledgerId);
      expect(step.ledgerId).toHaveLength(8);
    });
  }

  it('links each row to the previous row_hash, the first to ""', () => {
    expect(rows[0]!.prev_hash).toBe('');
    expect(rows[1]!.prev_hash).toBe(rows[0]!.row_hash);
    expect(rows[2]!.prev_hash).toBe(rows[1]!.row_hash);
  });

  it('hashes exactly the eight fields, ignoring prev_hash/row_hash on the row', () => {
    const row = rows[1]!;
    const decoy = { ...row, prev_hash: 'x', row_hash: 'y', extra: 'ignored' } as EventRow;
    expect(rowHash(row.prev_hash, decoy)).toBe(row.row_hash);
  });

  it('changes when any hashed field changes', () => {
    const row = rows[1]!;
    const variants: EventRow[] = [
      { ...row, seq: 4 },
      { ...row, family: 'board' },
      { ...row, kind: 'books.invoice.send' },
      { ...row, entity_id: '' },
      { ...row, actor: '' },
      { ...row, at: '2025-01-15T09:31:12.346Z' },
      { ...row, payload: null },
    ];
    for (const v of variants) expect(rowHash(row.prev_hash, v)).not.toBe(row.row_hash);
    expect(rowHash('', row)).not.toBe(row.row_hash);
  });

  it('signature payloadHash vector', () => {
    const ph = vectors.payloadHash;
    expect(canonicalJson(ph.input)).toBe(ph.canonical);
    expect(sha256Hex(ph.canonical)).toBe(ph.payloadHash);
    // The shared payloadHash function: the same hash, and a proof in the params does not change it.
    const input = ph.input as { actionClass: string; subjectId: string; params: Record<string, unknown> };
    expect(payloadHash(input.actionClass, input.subjectId, input.params)).toBe(ph.payloadHash);
    expect(payloadHash(input.actionClass, input.subjectId, { ...input.params, approvalId: 'apr_x' })).toBe(ph.payloadHash);
    expect(payloadHash(input.actionClass, input.subjectId, { ...input.params, signatureToken: 't' })).toBe(ph.payloadHash);
    expect(payloadHash(input.actionClass, `${input.subjectId}x`, input.params)).not.toBe(ph.payloadHash);
  });

  it('payloadHash takes a number with decimals as its decimal text, and leaves integers as numbers', () => {
    const params = { employeeId: 'emp_1', hoursPerWeek: 22.8, items: [{ multiplier: 1.5, hours: 4 }] };
    const canonical =
      '{"actionClass":"books.onboarding_advance","params":{"employeeId":"emp_1","hoursPerWeek":"decimal:22.8","items":[{"hours":4,"multiplier":"decimal:1.5"}]},"subjectId":"emp_1"}';
    expect(payloadHash('books.onboarding_advance', 'emp_1', params)).toBe(sha256Hex(canonical));
    expect(decimalsAsText({ a: 0.05, b: [7.6, 38], c: 'x' })).toEqual({ a: 'decimal:0.05', b: ['decimal:7.6', 38], c: 'x' });
  });

  it('sha256Hex is lowercase hex of the UTF-8 bytes', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });
});

function runVerifier(rows: readonly EventRow[], from?: { seq: number; rowHash: string }): ChainVerdict {
  const verifier = new ChainVerifier(from);
  for (const row of rows) verifier.push(row);
  return verifier.verdict();
}

describe('chain verification', () => {
  it('intact chain: ok, head seq 3 and its hash', () => {
    const verdict = verifyChain(vectors.chain.rows);
    expect(verdict).toEqual(vectors.chain.verdict);
    expect(verdict).toEqual({
      ok: true,
      rows: 3,
      head: { seq: 3, rowHash: '5b5c2c103bf2dbc990293b55b076cc42ba3390078b01885e7460a1d7bb1a2a1d' },
    });
    expect(runVerifier(vectors.chain.rows)).toEqual(verdict);
  });

  it('empty ledger: ok with the empty head', () => {
    expect(verifyChain([])).toEqual({ ok: true, rows: 0, head: { seq: 0, rowHash: '' } });
  });

  it(`${vectors.partial.name}`, () => {
    const { from, rows, verdict } = vectors.partial;
    expect(verifyChain(rows, from)).toEqual(verdict);
    expect(runVerifier(rows, from)).toEqual(verdict);
    // Without the known head, the first row's prev_hash does not match "".
    expect(verifyChain(rows)).toMatchObject({ ok: false, seq: 2, reason: 'prev_hash' });
  });

  it('incremental verification page by page matches the one-shot verdict', () => {
    const verifier = new ChainVerifier();
    expect(verifier.push(vectors.chain.rows[0]!)).toBe(true);
    expect(verifier.verdict()).toMatchObject({ ok: true, rows: 1, head: { seq: 1 } });
    expect(verifier.push(vectors.chain.rows[1]!)).toBe(true);
    expect(verifier.push(vectors.chain.rows[2]!)).toBe(true);
    expect(verifier.verdict()).toEqual(vectors.chain.verdict);
  });

  for (const b of vectors.broken) {
    it(`broken: ${b.name}`, () => {
      expect(b.verdict.ok).toBe(false);
      expect(verifyChain(b.rows)).toEqual(b.verdict);
      expect(runVerifier(b.rows)).toEqual(b.verdict);
    });
  }

  it('tampered payload breaks at seq 2 with reason row_hash', () => {
    const verdict = verifyChain(vectors.broken[0]!.rows);
    expect(verdict).toMatchObject({ ok: false, seq: 2, reason: 'row_hash' });
  });

  it('wrong prev_hash breaks at seq 3 with reason prev_hash', () => {
    const verdict = verifyChain(vectors.broken[1]!.rows);
    expect(verdict).toMatchObject({ ok: false, seq: 3, reason: 'prev_hash' });
  });

  it('the verifier stays broken: later good rows do not heal it', () => {
    const tampered = vectors.broken[0]!.rows;
    const verifier = new ChainVerifier();
    expect(verifier.push(tampered[0]!)).toBe(true);
    expect(verifier.push(tampered[1]!)).toBe(false);
    expect(verifier.push(tampered[2]!)).toBe(false);
    expect(verifier.verdict()).toEqual(vectors.broken[0]!.verdict);
  });
});

describe('error codes and their HTTP statuses', () => {
  const table: Record<string, number> = {
    BAD_REQUEST: 400,
    UNAUTHORIZED: 401,
    FORBIDDEN_SCOPE: 403,
    NOT_FOUND: 404,
    CONFLICT: 409,
    IDEMPOTENT_REPLAY: 200,
    GOVERNANCE_NOT_READY: 423,
    RATE_LIMITED: 429,
    WEAK_SECRET: 401,
    INTERNAL: 500,
  };

  it('the code set is exactly the documented one (docs/protocol.md, Error codes)', () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(table).sort());
  });

  for (const [code, status] of Object.entries(table)) {
    it(`${code} -> ${status}`, () => {
      expect(statusOf(code)).toBe(status);
    });
  }

  it('unknown codes collapse to 500', () => {
    for (const code of ['', 'NOPE', 'bad_request', 'toString', '__proto__', 'constructor']) {
      expect(statusOf(code)).toBe(500);
    }
  });

  it('missing-scope message format: missing scope <scope> for <method>', () => {
    expect(missingScopeMessage('books.write', 'books.invoiceDraft')).toBe('missing scope books.write for books.invoiceDraft');
    expect(missingScopeMessage('org.read', 'events')).toBe('missing scope org.read for events');
  });
});

describe('validation messages: each names the field and the constraint', () => {
  const schema = z.strictObject({
    title: z.string().min(1),
    count: z.number().int().gt(0),
    tags: z.array(z.string()).optional(),
  });

  it('accepts valid params and returns the parsed value', () => {
    expect(validate(schema, { title: 'x', count: 2 })).toEqual({ ok: true, value: { title: 'x', count: 2 } });
  });

  it('names an unknown field', () => {
    expect(validate(schema, { title: 'x', count: 1, colour: 'red' })).toEqual({
      ok: false,
      message: 'colour: unknown field',
    });
  });

  it('names a missing field', () => {
    expect(validate(schema, { count: 1 })).toEqual({ ok: false, message: 'title: is required' });
  });

  it('names a field with the wrong type', () => {
    expect(validate(schema, { title: 5, count: 1 })).toEqual({ ok: false, message: 'title: must be a string' });
  });

  it('lists every problem as `field: problem; field: problem`', () => {
    expect(validate(schema, { count: 'many', colour: 'red' })).toEqual({
      ok: false,
      message: 'title: is required; count: must be a number; colour: unknown field',
    });
    expect(validate(schema, { title: '', count: 0, tags: ['a', 3] })).toEqual({
      ok: false,
      message: 'title: must not be empty; count: must be greater than 0; tags[1]: must be a string',
    });
  });

  it('a body that is not an object is reported against params', () => {
    expect(validate(schema, 'text')).toEqual({ ok: false, message: 'params: must be an object' });
  });

  it('formatIssues formats issues parsed with reportInput', () => {
    const parsed = schema.safeParse({ title: 5, extra: 1 }, { reportInput: true });
    expect(parsed.success).toBe(false);
    if (!parsed.success) {
      expect(formatIssues(parsed.error.issues)).toBe('title: must be a string; count: is required; extra: unknown field');
    }
  });

  it('never echoes the input into the message', () => {
    const secret = 'sk_live_do_not_echo';
    const result = validate(schema, { title: 'x', count: secret });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).not.toContain(secret);
  });
});

describe('one message per field for the shared field builders', () => {
  const schema = z
    .strictObject({ from: isoDate(), to: isoDate().optional(), amountCents: cents().optional(), dueDays: days().optional() })
    .superRefine((p, ctx) => {
      if (p.to !== undefined && p.to < p.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be on or after from' });
    });

  it.each([
    ['2026-1-5', 'from: must be a date YYYY-MM-DD'],
    ['05/01/2026', 'from: must be a date YYYY-MM-DD'],
    ['2026-02-30', 'from: must be a real calendar date'],
    ['2026-13-01', 'from: must be a real calendar date'],
  ])('isoDate %s → %s, and nothing else about that field', (from, message) => {
    expect(validate(schema, { from })).toEqual({ ok: false, message });
  });

  it('isoDate accepts real dates, leap days included', () => {
    expect(validate(schema, { from: '2028-02-29' })).toEqual({ ok: true, value: { from: '2028-02-29' } });
    expect(validate(schema, { from: '2026-02-29' })).toEqual({ ok: false, message: 'from: must be a real calendar date' });
  });

  it('other fields are still all reported next to a bad date (every problem is listed)', () => {
    expect(validate(schema, { from: '2026-1-5', amountCents: 0, bogus: 1 })).toEqual({
      ok: false,
      message: 'from: must be a date YYYY-MM-DD; amountCents: must be an integer greater than 0; bogus: unknown field',
    });
  });

  it('a bound is named as the bound, not as the type', () => {
    expect(validate(schema, { from: '2026-01-05', amountCents: 1_000_000_000_001, dueDays: 3_651 })).toEqual({
      ok: false,
      message: 'amountCents: must be at most 1000000000000; dueDays: must be an integer of at most 3650',
    });
  });

  it('the same problem of one field is named once', () => {
    const twice = z.strictObject({
      n: z
        .number()
        .refine(() => false, { error: 'bad' })
        .refine(() => false, { error: 'bad' }),
    });
    expect(validate(twice, { n: 1 })).toEqual({ ok: false, message: 'n: bad' });
  });
});

describe('hardening found in review', () => {
  it('canonicalJson refuses sparse arrays and lone surrogates', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(() => canonicalJson([1, , 3])).toThrow(/sparse/);
    expect(() => canonicalJson({ a: '\ud800' })).toThrow(/lone surrogate/);
    expect(() => canonicalJson({ '\udc00': 1 })).toThrow(/lone surrogate/);
    expect(canonicalJson({ a: '\ud83d\ude00' })).toBe('{"a":"😀"}');
  });

  it('rowHashInput fills the hash input defaults ("" and null) for absent actor, entity and payload', () => {
    const row = { seq: 1, family: 'f', kind: 'k', at: '2026-01-01T00:00:00.000Z' } as unknown as Parameters<typeof rowHashInput>[1];
    expect(rowHashInput('', row)).toBe(
      '{"actor":"","at":"2026-01-01T00:00:00.000Z","entity_id":"","family":"f","kind":"k","payload":null,"prev":"","seq":1}',
    );
  });

  it('a renumbered row that still links by hash is a break at its seq', () => {
    const first = { seq: 1, family: 'f', kind: 'k', entity_id: '', actor: '', at: '2026-01-01T00:00:00.000Z', payload: null };
    const h1 = rowHash('', first);
    const second = { ...first, seq: 5 };
    const rows = [
      { ...first, prev_hash: '', row_hash: h1 },
      { ...second, prev_hash: h1, row_hash: rowHash(h1, second) },
    ];
    expect(verifyChain(rows)).toMatchObject({ ok: false, seq: 5, reason: 'prev_hash' });
  });
});

describe('extended params (extensions of the base protocol are declared as such)', () => {
  it('every param a declaration lists as beyond the base protocol is one of its declared params', async () => {
    const { methods } = await import('../src/methods/index.js');
    for (const m of methods) {
      if (!m.extendedParams) continue;
      const schema = z.toJSONSchema(m.params, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
      for (const p of m.extendedParams) expect(Object.keys(schema.properties ?? {}), `${m.name}.${p}`).toContain(p);
    }
  });
});
