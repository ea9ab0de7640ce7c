/**
 * `GET events` writes each row's JSON directly (ledger/read.ts eventJson), the
 * common strings without JSON.stringify. The text must stay what JSON.stringify writes for the
 * row with its stored canonical payload spliced in, whatever the stored columns hold — awkward
 * characters, lone surrogates, a payload that is not canonical JSON (served as a JSON string).
 */
import { canonicalJson } from '@finance-desk/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventJson, eventsAfter, eventsPageJson, storedRowsAfter } from '../src/ledger/read.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import type { StoredEvent } from '../src/ledger/read.js';
import type { Queryable } from '../src/storage/types.js';
import { engines, startTestServer, type TestServer } from './harness.js';

type Stored = StoredEvent;

/** The definition: the row as JSON.stringify writes it, the payload's value parsed back in. */
function reference(e: Stored, payloadIsCanonical: boolean): string {
  const marker = '\u0000payload\u0000';
  const text = JSON.stringify({
    seq: Number(e.seq),
    family: e.family,
    kind: e.kind,
    entity_id: e.entity_id,
    actor: e.actor,
    at: e.at,
    payload: marker,
    prev_hash: e.prev_hash,
    row_hash: e.row_hash,
  });
  return text.replace(JSON.stringify(marker), payloadIsCanonical ? e.payload : JSON.stringify(e.payload));
}

const AWKWARD = [
  '',
  'plain',
  'a"b',
  'back\\slash',
  '\n\t\b\f\r',
  '\u0000\u001f\u007f',
  'é 🧾',
  '\u2028',
  '\ud800',
  'x\udfffy',
  '\ud83d\ude00',
  '</script>',
];

const base: Stored = {
  seq: 12,
  family: 'books',
  kind: 'books.invoice.draft',
  entity_id: 'inv_01',
  actor: 'key_01',
  at: '2026-01-01T00:00:00.000Z',
  payload: canonicalJson({ a: 'x "y" \\ z\n', n: 5 }),
  prev_hash: 'ab'.repeat(32),
  row_hash: 'cd'.repeat(32),
};

describe('events rows on the wire', () => {
  it('awkward strings in every text column: the text JSON.stringify writes, and it parses back', () => {
    for (const s of AWKWARD) {
      for (const column of ['family', 'kind', 'entity_id', 'actor', 'at', 'prev_hash', 'row_hash'] as const) {
        const row = { ...base, [column]: s };
        const text = eventJson(row);
        expect(text).toBe(reference(row, true));
        // Lone surrogates too: JSON.stringify escapes them and JSON.parse gives them back.
        expect((JSON.parse(text) as Record<string, unknown>)[column]).toBe(s);
      }
    }
  });

  it('the canonical payload is spliced byte for byte; anything else is served as a JSON string', () => {
    expect(eventJson(base)).toContain(`"payload":${base.payload},`);
    for (const foreign of ['{"a": 1}', '1.0', 'not json', '{"b":1,"a":2}', '"\\u0041"', '']) {
      const row = { ...base, payload: foreign };
      expect(eventJson(row)).toBe(reference(row, false));
      expect((JSON.parse(eventJson(row)) as { payload: unknown }).payload).toBe(foreign);
    }
  });

  it('random column text (lone surrogates included): always the JSON.stringify text', () => {
    const unit = fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0x22, 0x5c, 0x0a, 0x1f, 0xd800, 0xdc00));
    const text = fc.array(unit, { maxLength: 10 }).map((u) => String.fromCharCode(...u));
    fc.assert(
      fc.property(text, text, text, text, text, text, text, fc.maxSafeInteger(), (family, kind, entity, actor, at, prev, hash, seq) => {
        const row = { ...base, seq, family, kind, entity_id: entity, actor, at, prev_hash: prev, row_hash: hash };
        expect(eventJson(row)).toBe(reference(row, true));
      }),
      { numRuns: 2000 },
    );
  });
});

describe.each(engines)('column-array reads give the same rows as object reads (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    await t.post(org.keys.agent, 'board.createTask', { title: 'Ünïcode "quoted" \\ tâche 🧾', priority: 'high' });
    await t.post(org.keys.agent, 'books.invoiceDraft', {
      payeeName: 'Harbour "Cafe"',
      description: 'Catering\twith a tab',
      totalCents: 110_000,
      dueDays: 14,
    });
  });
  afterAll(async () => t.close());

  it('eventsPageJson and storedRowsAfter, with values() and through the object fallback', async () => {
    const reader = t.db.reader;
    expect(typeof reader.values).toBe('function');
    // The same Queryable without values(): the fallback over eventsAfter.
    const objectsOnly: Queryable = { all: (s, p) => reader.all(s, p), get: (s, p) => reader.get(s, p), run: (s, p) => reader.run(s, p) };
    for (const [cursor, limit] of [
      [0, 500],
      [1, 2],
      [0, 1],
      [10_000, 5],
    ] as const) {
      const fast = await eventsPageJson(reader, org.orgId, cursor, limit);
      const slow = await eventsPageJson(objectsOnly, org.orgId, cursor, limit);
      expect(fast).toEqual(slow);
      expect(fast.rows).toEqual((await eventsAfter(reader, org.orgId, cursor, limit)).map(eventJson));
      expect(await storedRowsAfter(reader, org.orgId, cursor, limit)).toEqual(await storedRowsAfter(objectsOnly, org.orgId, cursor, limit));
    }
    const all = await eventsPageJson(reader, org.orgId, 0, 500);
    expect(all.rows.length).toBeGreaterThanOrEqual(3);
    expect(all.lastSeq).toBe(all.rows.length);
    const rows = await storedRowsAfter(reader, org.orgId, 0, 500);
    expect(typeof rows[0]?.seq).toBe('number');
    // Over HTTP the page is those rows.
    const page = await t.get(org.keys.observer, 'events?limit=500');
    expect(page.body).toEqual({ events: all.rows.map((r) => JSON.parse(r)), nextCursor: all.lastSeq });
  });
});
