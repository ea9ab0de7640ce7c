/**
 * The direct row-hash-input builder, the one-pass canonical-text judge and the
 * one-shot SHA-256 are faster forms of definitions that stay in the code. Each is checked here
 * against its definition — canonicalJson of the eight-key object, `canonicalJson(JSON.parse(t))
 * === t`, and `createHash` — on awkward hand-picked inputs and on random ones.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ChainVerifier,
  canonicalJson,
  isCanonicalJsonText,
  isCanonicalJsonTextSlow,
  provesCanonicalJsonText,
  rowHash,
  rowHashInput,
  rowHashInputWithPayload,
  sha256Hex,
  type JsonValue,
  type StoredEventRow,
} from '../src/index.js';

/** Code units that exercise every branch of JSON string escaping and surrogate handling. */
const AWKWARD_UNITS = [
  0x00, 0x01, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1f, 0x20, 0x22, 0x2f, 0x5c, 0x7f, 0x80, 0xe9, 0x2028, 0x2029, 0xd7ff, 0xd800, 0xd83d,
  0xdbff, 0xdc00, 0xde00, 0xdfff, 0xe000, 0xfeff, 0xfffd, 0xffff, 0x61, 0x7a, 0x30,
];

/** Any string of UTF-16 code units, lone surrogates included, biased to the awkward ones. */
const anyString = (maxLength = 12) =>
  fc
    .array(fc.oneof(fc.constantFrom(...AWKWARD_UNITS), fc.integer({ min: 0, max: 0xffff })), { maxLength })
    .map((units) => String.fromCharCode(...units));

/** Strings canonicalJson accepts: well-formed UTF-16 (surrogates only in pairs). */
const wellFormed = (maxLength = 12) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...AWKWARD_UNITS.filter((u) => u < 0xd800 || u > 0xdfff)),
        fc.constantFrom('\u{1F600}', '\u{10FFFF}', '\u{10000}', 'é', '"', '\\'),
        fc.integer({ min: 0, max: 0x7f }).map((u) => String.fromCharCode(u)),
      ),
      { maxLength },
    )
    .map((parts) => parts.join(''));

/** Values canonicalJson accepts. */
const canonicalValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<JsonValue>(null, true, false, 0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 9_007_199_254_740_990),
    fc.maxSafeInteger(),
    fc.integer({ min: -1000, max: 1000 }),
    wellFormed(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(wellFormed(6), fc.constantFrom('a', 'b', 'B', '10', '2', '__proto__', '')), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** The definition of the hash input: canonicalJson of the eight-key object. */
function referenceInput(prev: string, row: Omit<StoredEventRow, 'prev_hash' | 'row_hash' | 'payload'>, payload: JsonValue) {
  return canonicalJson({
    actor: row.actor,
    at: row.at,
    entity_id: row.entity_id,
    family: row.family,
    kind: row.kind,
    payload,
    prev,
    seq: row.seq,
  });
}

/** What rowHashInputWithPayload gave before the direct builder: two canonicalJson calls and a splice. */
function previousConstruction(
  prev: string,
  row: { actor: string; at: string; entity_id: string; family: string; kind: string; seq: number },
  payloadText: string,
) {
  const head = canonicalJson({ actor: row.actor ?? '', at: row.at, entity_id: row.entity_id ?? '', family: row.family, kind: row.kind });
  const tail = canonicalJson({ prev, seq: row.seq });
  return `${head.slice(0, -1)},"payload":${payloadText},${tail.slice(1)}`;
}

/** Either the value or the error message: a throw must be the same throw. */
function outcome(fn: () => string): { value: string } | { error: string } {
  try {
    return { value: fn() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('rowHashInputWithPayload writes the bytes canonicalJson writes', () => {
  const base = {
    seq: 7,
    family: 'books',
    kind: 'books.invoice.draft',
    entity_id: 'inv_01',
    actor: 'key_01',
    at: '2026-01-01T00:00:00.000Z',
  };
  const awkward = [
    '',
    'plain',
    'quote " inside',
    'back\\slash',
    'tab\there',
    'new\nline',
    '\u0000\u001f\u007f',
    '\b\f\r',
    'é ü 🧾 😀',
    '\u2028\u2029',
    'x","at":"forged',
    '\\"',
    '"',
    '\\',
    '}{',
    '\ud83d\ude00',
    '/slash/',
  ];

  it('for awkward strings in every field, the same text as the definition', () => {
    const payload = { description: 'a "b" \\ c\n', n: -5, list: [1, 'é'] };
    const payloadText = canonicalJson(payload);
    for (const s of awkward) {
      for (const field of ['actor', 'at', 'entity_id', 'family', 'kind', 'prev'] as const) {
        const row = { ...base, ...(field === 'prev' ? {} : { [field]: s }) };
        const prev = field === 'prev' ? s : 'ab'.repeat(32);
        const built = rowHashInputWithPayload(prev, row, payloadText);
        expect(built).toBe(referenceInput(prev, row, payload));
        expect(built).toBe(previousConstruction(prev, row, payloadText));
        expect(rowHashInput(prev, { ...row, payload })).toBe(built);
      }
    }
  });

  it('a lone surrogate in any field throws what canonicalJson throws', () => {
    for (const s of ['\ud800', 'a\udc00b', '\ud83d']) {
      for (const field of ['actor', 'at', 'entity_id', 'family', 'kind'] as const) {
        const row = { ...base, [field]: s };
        expect(outcome(() => rowHashInputWithPayload('', row, 'null'))).toEqual(outcome(() => previousConstruction('', row, 'null')));
        expect(() => rowHashInputWithPayload('', row, 'null')).toThrow(/lone surrogate/);
      }
      expect(() => rowHashInputWithPayload(s, base, 'null')).toThrow(/lone surrogate/);
    }
  });

  it('an unsafe seq, an absent actor or entity, a missing field: the same as before', () => {
    const odd = [
      { ...base, seq: 1.5 },
      { ...base, seq: 2 ** 53 },
      { ...base, seq: -0 },
      { ...base, actor: undefined, entity_id: undefined },
      { ...base, actor: null, entity_id: null },
      { ...base, at: undefined },
      { ...base, kind: 5 },
    ] as unknown as (typeof base)[];
    for (const row of odd) {
      expect(outcome(() => rowHashInputWithPayload('p', row, '{}'))).toEqual(outcome(() => previousConstruction('p', row, '{}')));
    }
    expect(rowHashInputWithPayload('', { ...base, actor: undefined, entity_id: undefined } as unknown as typeof base, 'null')).toBe(
      '{"actor":"","at":"2026-01-01T00:00:00.000Z","entity_id":"","family":"books","kind":"books.invoice.draft","payload":null,"prev":"","seq":7}',
    );
  });

  it('random strings (lone surrogates included) in every field: the same text or the same error', () => {
    fc.assert(
      fc.property(
        anyString(),
        anyString(),
        anyString(),
        anyString(),
        anyString(),
        anyString(),
        fc.maxSafeInteger(),
        canonicalValue,
        (actor, at, entity, family, kind, prev, seq, payload) => {
          const row = { seq, family, kind, entity_id: entity, actor, at };
          const payloadText = canonicalJson(payload);
          const got = outcome(() => rowHashInputWithPayload(prev, row, payloadText));
          expect(got).toEqual(outcome(() => previousConstruction(prev, row, payloadText)));
          if ('value' in got) expect(got.value).toBe(referenceInput(prev, row, payload));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

/** Whether some object key in the value is written with an escape sequence. */
function hasEscapedKey(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(hasEscapedKey);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([k, v]) => JSON.stringify(k).includes('\\') || hasEscapedKey(v));
}

describe('isCanonicalJsonText: the one-pass judge agrees with the definition', () => {
  const canonical = [
    'null',
    'true',
    'false',
    '0',
    '-1',
    '9007199254740991',
    '-9007199254740991',
    '""',
    '"é😀\\n\\"\\\\\\u0000\\u001f\\b\\f\\r\\t"',
    '[]',
    '{}',
    '[[],{}]',
    '{"":0,"a":[1,"x"],"b":{"c":null}}',
    '{"10":4,"2":3,"B":2,"a":1}',
    '{"__proto__":1}',
    '"\u2028\u007f/"',
    '{"\ud83d\ude00":2,"\uff5a":1}',
  ];
  const notCanonical = [
    '',
    ' ',
    ' 1',
    '1 ',
    '{ }',
    '[1, 2]',
    '{"a": 1}',
    '1.0',
    '1e3',
    '-0',
    '01',
    '+1',
    '.5',
    '9007199254740992',
    '-9007199254740992',
    '12345678901234567890',
    '"\\/"',
    '"\\u0041"',
    '"\\u001F"',
    '"\\u000a"',
    '"\\u0008"',
    '"\\ud83d\\ude00"',
    '"\\ud800"',
    '"\ud800"',
    '"\udc00"',
    '"a\ud83d"',
    '"\u0001"',
    '"\n"',
    '{"b":1,"a":2}',
    '{"a":1,"a":1}',
    '{"a":1,}',
    '[1,]',
    '[1',
    '{"a"}',
    '{"a":}',
    "'a'",
    'NaN',
    'Infinity',
    'nul',
    'truex',
    '[]]',
    '"unterminated',
    '{"a":1}x',
    '{"\\u0000":1,"a":2}x',
    'undefined',
    '"\\x41"',
    '"\\"',
    '{1:2}',
  ];

  it('accepts canonical texts on its own (without falling back to the definition)', () => {
    for (const t of canonical) {
      expect(isCanonicalJsonTextSlow(t), t).toBe(true);
      expect(provesCanonicalJsonText(t), t).toBe(true);
      expect(isCanonicalJsonText(t), t).toBe(true);
    }
  });

  it('rejects what the definition rejects', () => {
    for (const t of notCanonical) {
      expect(isCanonicalJsonTextSlow(t), t).toBe(false);
      expect(provesCanonicalJsonText(t), t).toBe(false);
      expect(isCanonicalJsonText(t), t).toBe(false);
    }
  });

  it('leaves keys with escapes and deep nesting to the definition, which decides them', () => {
    for (const t of ['{"\\n":1}', '{"\\"":1,"a":2}', `${'['.repeat(100)}${']'.repeat(100)}`]) {
      expect(provesCanonicalJsonText(t)).toBe(false);
      expect(isCanonicalJsonText(t)).toBe(true);
    }
    expect(isCanonicalJsonText('{"a":1,"\\n":2}')).toBe(false); // "\n" sorts before "a"
  });

  it('random canonical texts are proven canonical by the one pass', () => {
    fc.assert(
      fc.property(canonicalValue, (value) => {
        const text = canonicalJson(value);
        // Keys holding an escape are left to the definition; none others may be.
        if (!hasEscapedKey(value)) expect(provesCanonicalJsonText(text)).toBe(true);
        expect(isCanonicalJsonText(text)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('every one-character change, insertion or deletion of a canonical text is judged as the definition judges it', () => {
    const edits = fc.oneof(
      fc.constantFrom(
        ...AWKWARD_UNITS.map((u) => String.fromCharCode(u)),
        ' ',
        '.',
        'e',
        '-',
        '0',
        '9',
        ',',
        ':',
        '{',
        '}',
        '[',
        ']',
        'u',
        'n',
      ),
    );
    fc.assert(
      fc.property(canonicalValue, fc.nat(), edits, fc.constantFrom('replace', 'insert', 'delete'), (value, at, ch, how) => {
        const text = canonicalJson(value);
        const i = text.length === 0 ? 0 : at % (text.length + (how === 'insert' ? 1 : 0));
        const changed =
          how === 'replace'
            ? text.slice(0, i) + ch + text.slice(i + 1)
            : how === 'insert'
              ? text.slice(0, i) + ch + text.slice(i)
              : text.slice(0, i) + text.slice(i + 1);
        const truth = isCanonicalJsonTextSlow(changed);
        if (provesCanonicalJsonText(changed)) expect(truth, changed).toBe(true);
        expect(isCanonicalJsonText(changed), changed).toBe(truth);
      }),
      { numRuns: 5000 },
    );
  });

  it('arbitrary strings: what the one pass proves, the definition accepts', () => {
    fc.assert(
      fc.property(anyString(20), (text) => {
        if (provesCanonicalJsonText(text)) expect(isCanonicalJsonTextSlow(text), text).toBe(true);
        expect(isCanonicalJsonText(text)).toBe(isCanonicalJsonTextSlow(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('sha256Hex (one-shot where the runtime has it) digests as createHash does', () => {
  it('for ASCII, non-ASCII, astral and lone-surrogate strings', () => {
    const samples = ['', 'abc', 'é', '😀', '\ud800', 'a\udc00b', '\u0000', 'x'.repeat(100_000)];
    for (const s of samples) expect(sha256Hex(s)).toBe(createHash('sha256').update(s, 'utf8').digest('hex'));
    fc.assert(
      fc.property(anyString(40), (s) => {
        expect(sha256Hex(s)).toBe(createHash('sha256').update(s, 'utf8').digest('hex'));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the stored-row verifier on the fast path', () => {
  const make = (n: number, prev0 = '') => {
    const rows: StoredEventRow[] = [];
    let prev = prev0;
    for (let seq = 1; seq <= n; seq += 1) {
      const payload = { n: seq, note: seq % 2 ? 'quote " and \\ and \n' : 'é😀' };
      const row = {
        seq,
        family: 'books',
        kind: 'k',
        entity_id: seq === 2 ? 'id "with" quotes' : `e${seq}`,
        actor: 'a',
        at: '2026-01-01T00:00:00.000Z',
      };
      const hash = rowHash(prev, { ...row, payload });
      rows.push({ ...row, payload: canonicalJson(payload), prev_hash: prev, row_hash: hash });
      prev = hash;
    }
    return rows;
  };
  const verdict = (rows: readonly StoredEventRow[], from?: { seq: number; rowHash: string }) => {
    const v = new ChainVerifier(from);
    for (const r of rows) if (!v.pushStored(r)) break;
    return v.verdict();
  };

  it('verifies rows whose fields need escaping, from the start and from a non-hex starting point', () => {
    expect(verdict(make(5))).toMatchObject({ ok: true, rows: 5 });
    // A starting point is the caller's: it is checked as text, not assumed to be hex.
    const odd = 'start "point" \\';
    expect(verdict(make(5, odd), { seq: 0, rowHash: odd })).toMatchObject({ ok: true, rows: 5 });
  });

  it('a field forged to look like the next key is a row_hash break, not a match', () => {
    const rows = make(3);
    const row = rows[1] as StoredEventRow;
    // Hash over the text the shortcut would build if it did not check for quotes.
    const forgedEntity = 'x","family":"books';
    const naive = `{"actor":"${row.actor}","at":"${row.at}","entity_id":"${forgedEntity}","family":"${row.family}","kind":"${row.kind}","payload":${row.payload},"prev":"${row.prev_hash}","seq":${row.seq}}`;
    const forged = { ...row, entity_id: forgedEntity, row_hash: sha256Hex(naive) };
    expect(verdict([rows[0] as StoredEventRow, forged])).toMatchObject({ ok: false, seq: 2, reason: 'row_hash' });
  });

  it('hashed, non-canonical payload bytes are a payload break at that seq', () => {
    const rows = make(3);
    const row = rows[2] as StoredEventRow;
    const foreign = row.payload.replace('{', '{ ');
    const forged = { ...row, payload: foreign, row_hash: sha256Hex(rowHashInputWithPayload(row.prev_hash, row, foreign)) };
    expect(verdict([rows[0] as StoredEventRow, rows[1] as StoredEventRow, forged])).toMatchObject({
      ok: false,
      seq: 3,
      reason: 'payload',
      expected: 'canonical JSON',
    });
  });
});
