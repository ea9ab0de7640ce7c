import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import { JOURNAL_READ } from '../src/domain/reconciliation/bank-journal-words.js';
import {
  AMOUNT_READ,
  DOCUMENTS_PER_AMOUNT,
  DOCUMENTS_PER_WORD,
  lookupTargets,
  WORD_READ,
} from '../src/domain/reconciliation/document-words.js';
import type { SuggestLine } from '../src/domain/reconciliation/suggest.js';
import { NEAREST_LOOKUPS_MAX, readNearest, type NearestRead } from '../src/storage/sql.js';
import type { Queryable, SqlValue } from '../src/storage/types.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill } from './payables-helpers.js';

/**
 * Suggestions read every lookup of a request at once (document-words.ts lookupTargets, one
 * statement per table for all lines). A request's answer for a line must be the one the line gets
 * asked alone: lines sharing amounts and words, a payee with more open invoices than the per-word
 * bound, due dates on both sides of the lines' dates, money in and out, bank postings.
 */
const today = () => localDate(new Date().toISOString(), DEFAULT_TIME_ZONE);

describe.each(engines)('batched suggestion lookups (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let lines: { date: string; amountCents: number; description: string }[];

  const ok = async (method: string, params: unknown) => {
    const r = await t.post(org.keys.agent, method, params);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  };

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    // More invoices to one payee than are read per word and side, issued over the last 90 days
    // and due from 90 days ago to a month ahead, four amounts among them (each more than one
    // invoice owes), so a line's date falls among the due dates and an amount finds several.
    for (let i = 0; i < DOCUMENTS_PER_WORD + 12; i += 1) {
      const d = await ok('books.invoiceDraft', {
        payeeName: 'Kestrel Glazing',
        description: 'Glass',
        totalCents: 10_000 + (i % 4),
        issueDate: addDays(today(), -90 + i),
        dueDays: i,
      });
      await ok('books.invoiceSend', { id: d.id });
    }
    // Bills (money out), of one amount and payee.
    for (let i = 0; i < 4; i += 1) {
      await approvedBill(t, org, { payeeName: 'Granite Freight', description: 'Freight', totalCents: 7_700, dueDays: 5 + i * 10 });
    }
    // Bank postings: payments of another payee's invoices, paid today.
    for (let i = 0; i < 3; i += 1) {
      const d = await ok('books.invoiceDraft', { payeeName: 'Harbour Catering', description: 'Lunch', totalCents: 4_400, dueDays: 7 });
      await ok('books.invoiceSend', { id: d.id });
      await ok('books.invoiceRecordPayment', { id: d.id, amountCents: 4_400 });
    }
    // Lines within the last 60 days (so a line asked alone sees the same bank postings as in the
    // request: their window spans the lines' dates), several on one date, sharing amounts and words.
    lines = Array.from({ length: 48 }, (_, i) => {
      const date = addDays(today(), -((i * 7) % 58));
      // The bills are posted today: a line dated before cannot have paid them.
      if (i % 6 === 1) return { date: today(), amountCents: -7_700, description: `GRANITE FREIGHT ${i % 4}` };
      if (i % 6 === 2) return { date, amountCents: 4_400, description: 'HARBOUR CATERING' };
      if (i % 6 === 3) return { date, amountCents: 99_000 + i, description: 'KESTREL GLAZING' };
      return { date, amountCents: 10_000 + (i % 4), description: `DEPOSIT KESTREL ${i % 3 === 0 ? 'GLAZING' : 'PTY'}` };
    });
  });
  afterAll(async () => t.close());

  it('answers each line of an import and of a page as the line asked alone', async () => {
    const fed = await ok('books.feedLines', { lines });
    expect(fed.lineIds).toHaveLength(lines.length);
    const imported = new Map<string, unknown>(fed.suggestions.map((s: any) => [s.lineId, s.candidates]));
    const page = await ok('books.feedLinesList', { limit: 200 });
    expect(page.lines).toHaveLength(lines.length);
    // The page's lines one at a time: each request has the one line's lookups only.
    const alone = new Map<string, unknown>();
    let cursor: string | null = null;
    do {
      const one: any = await ok('books.feedLinesList', { limit: 1, ...(cursor ? { cursor } : {}) });
      for (const l of one.lines) alone.set(l.id, l.suggestions);
      cursor = one.nextCursor;
    } while (cursor !== null);
    for (const l of page.lines) {
      expect(l.suggestions, `line ${l.date} ${l.amountCents} ${l.description}`).toEqual(alone.get(l.id));
      expect(l.suggestions, `import of ${l.description}`).toEqual(imported.get(l.id) ?? []);
    }
    // Every kind was found somewhere: invoices by amount and payee, bills, bank postings.
    const kinds = new Set(page.lines.flatMap((l: any) => l.suggestions.map((s: any) => s.kind)));
    expect([...kinds].sort()).toEqual(['bill', 'invoice', 'journal']);
  });

  it('finds every target of every line as each line alone, over more lookups than one statement takes', async () => {
    // First a statement's worth of lookups of amounts nobody owes, each its own; then lines that
    // find documents, on many dates, whose lookups are in the next statement.
    const filler: SuggestLine[] = Array.from({ length: NEAREST_LOOKUPS_MAX }, (_, i) => ({
      date: today(),
      amountCents: 1_000 + i,
      remainingCents: 1_000 + i,
      description: 'NOBODY',
      reference: null,
    }));
    const finding: SuggestLine[] = Array.from({ length: 120 }, (_, i) => {
      const base = lines[i % lines.length] ?? { date: today(), amountCents: 1, description: '' };
      return { ...base, date: addDays(today(), -((i * 5) % 58)), remainingCents: Math.abs(base.amountCents), reference: null };
    });
    const many = [...filler, ...finding];
    // A line part matched: what is left of it is what it is looked up by.
    many.push({ date: today(), amountCents: 20_000, remainingCents: 10_001, description: 'KESTREL', reference: null });
    const batch = await lookupTargets(t.db.reader, t.db.caps.engine, org.orgId, '1000', today(), many);
    const ids = (ts: readonly { kind: string; id: string; outstandingCents: number }[]) =>
      ts.map((x) => `${x.kind}:${x.id}:${x.outstandingCents}`);
    for (const [i, line] of many.entries()) {
      const [own] = (await lookupTargets(t.db.reader, t.db.caps.engine, org.orgId, '1000', today(), [line])).documents;
      expect(ids(batch.documents[i] ?? []), `line ${i} ${JSON.stringify(line)}`).toEqual(ids(own ?? []));
    }
    expect(batch.documents.slice(NEAREST_LOOKUPS_MAX).filter((d) => d.length > 0).length).toBeGreaterThan(100);
    // The payee's word reads no more than its bound per side, then keeps the nearest bound.
    const payeeOnly = batch.documents.at(-1) ?? [];
    expect(payeeOnly.filter((x) => x.kind === 'invoice').length).toBeLessThanOrEqual(DOCUMENTS_PER_WORD + DOCUMENTS_PER_AMOUNT);
    expect(payeeOnly.filter((x) => x.kind === 'invoice').length).toBeGreaterThanOrEqual(DOCUMENTS_PER_WORD);
  });

  it.runIf(engine === 'sqlite')(
    'each half of each batched read is an index scan in order, stopped at its LIMIT (SQLite plans)',
    async () => {
      const plan = async (
        r: NearestRead,
        lookup: (string | number)[],
        params: { where: SqlValue[]; after?: SqlValue[]; before?: SqlValue[] },
      ) => {
        let seen: { sql: string; params: readonly SqlValue[] } | null = null;
        const capture = {
          all: (sql: string, p: readonly SqlValue[] = []) => {
            seen = { sql, params: p };
            return Promise.resolve([]);
          },
        } as unknown as Queryable;
        await readNearest(capture, 'sqlite', r, [lookup], 50, params);
        const s = seen as { sql: string; params: readonly SqlValue[] } | null;
        if (!s) throw new Error('no statement');
        return (await t.db.reader.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${s.sql}`, s.params)).map((x) => x.detail);
      };
      const word = await plan(WORD_READ, ['kestrel', 'in', today()], { where: [org.orgId] });
      const amount = await plan(AMOUNT_READ, ['1100', 10_000, today()], { where: [org.orgId] });
      const journal = await plan(JOURNAL_READ, ['=4400', 'in', today()], {
        where: [org.orgId, '1000'],
        after: [today()],
        before: [today()],
      });
      for (const [p, index] of [
        [word, 'COVERING INDEX document_words_lookup'],
        [amount, 'COVERING INDEX document_balances_open'],
        [journal, 'INDEX bank_journal_words_lookup'],
      ] as const) {
        expect(
          p.filter((d) => d.startsWith('SEARCH')).every((d) => d.includes(index)),
          p.join('\n'),
        ).toBe(true);
        expect(p.filter((d) => d.startsWith('SEARCH'))).toHaveLength(2);
        // No sort: the index's order is the ORDER BY, so each half stops at its LIMIT.
        expect(
          p.some((d) => d.includes('TEMP B-TREE')),
          p.join('\n'),
        ).toBe(false);
      }
    },
  );
});
