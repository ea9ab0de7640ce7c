import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agedReport } from '../src/domain/reports/aged.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, inDays } from './payables-helpers.js';
import { report } from './reports-helpers.js';

/**
 * The aged reports a page at a time: every page's items, read on with each nextCursor, are the
 * whole report's items in order; each party on a page carries its amounts over all its items;
 * totals are the whole report's on every page. Checked as at today, as at dates before payments
 * and documents posted since (their balances then are not the stored ones), and after, with
 * parties spelled two ways, credits (negative items), part payments and credit notes.
 */
type Item = { id: string; outstandingCents: number; dueOn: string };
type PartyRow = { party: string; totalCents: number; currentCents: number; over90Cents: number; items: Item[] };
type Aged = { parties: PartyRow[]; totals: Record<string, number>; nextCursor: string | null };

describe.each(engines)('aged reports a page at a time (%s)', (engine) => {
  let t: TestServer;
  let o: CreatedOrg;

  async function invoice(payeeName: string, totalCents: number, issuedDaysAgo: number, dueDays: number) {
    const d = await t.post(o.keys.agent, 'books.invoiceDraft', {
      payeeName,
      description: 'Catering',
      totalCents,
      dueDays,
      issueDate: inDays(-issuedDaysAgo),
    });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    const s = await t.post(o.keys.agent, 'books.invoiceSend', { id: d.body.result.id });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    return d.body.result.id as string;
  }

  async function pay(id: string, amountCents: number, daysAgo: number, excess?: 'credit') {
    const r = await t.post(o.keys.agent, 'books.invoiceRecordPayment', {
      id,
      amountCents,
      date: inDays(-daysAgo),
      ...(excess ? { excess } : {}),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }

  beforeAll(async () => {
    t = await startTestServer(engine);
    o = await t.org();
    const names = ['Harbour Cafe', 'harbour  cafe', 'Bay Books', 'Dune Surf Club', 'Ōtaki Bakery', 'Zed Ltd', 'Acme'];
    const ids: string[] = [];
    for (let i = 0; i < 28; i += 1) {
      ids.push(await invoice(names[i % names.length] ?? 'Acme', 10_000 + 1_000 * i, 120 - 4 * i, [0, 7, 14, 30][i % 4] ?? 0));
    }
    // Paid in full long ago, paid since day -40, part paid, overpaid (a credit), a credit note.
    await pay(ids[0] ?? '', 10_000, 100);
    await pay(ids[1] ?? '', 11_000, 20);
    await pay(ids[2] ?? '', 5_000, 50);
    await pay(ids[3] ?? '', 5_000, 10);
    await pay(ids[9] ?? '', 25_000, 5, 'credit');
    const note = await t.post(o.keys.agent, 'books.invoiceCreditNote', { id: ids[4] ?? '', amountCents: 3_000, reason: 'Short delivery' });
    expect(note.status, JSON.stringify(note.body)).toBe(200);
    for (let i = 0; i < 5; i += 1) {
      await approvedBill(t, o, {
        payeeName: i % 2 ? 'Paper Co' : 'paper co',
        description: `Rolls ${i}`,
        totalCents: 1_100 * (i + 1),
        dueDays: 7 * i,
      });
    }
  });

  afterAll(async () => t.close());

  async function pages(type: string, asOf: string, limit: number): Promise<Aged[]> {
    const out: Aged[] = [];
    let cursor: string | null | undefined;
    do {
      const page: Aged = await report(t, o, { type, asOf, limit, ...(cursor ? { cursor } : {}) });
      expect(page.parties.flatMap((p) => p.items).length).toBeLessThanOrEqual(limit);
      out.push(page);
      cursor = page.nextCursor;
      expect(out.length).toBeLessThan(100);
    } while (cursor);
    return out;
  }

  const cases = [
    ['aged_receivables', 0],
    ['aged_receivables', -15],
    ['aged_receivables', -40],
    ['aged_receivables', -60],
    ['aged_receivables', 45],
    ['aged_payables', 0],
    ['aged_payables', 20],
  ] as const;

  it.each(cases)('%s as at day %i: pages of 1, 2, 3 and 7 read on to the whole report', async (type, day) => {
    const asOf = inDays(day);
    const whole = await agedReport(t.db.reader, o.orgId, type, asOf);
    expect(whole.parties.length).toBeGreaterThan(0);
    const items = whole.parties.flatMap((p) => p.items.map((i) => ({ ...i, key: p.party.toLowerCase().replace(/\s+/g, ' ') })));
    const amounts = new Map(whole.parties.map((p) => [p.party.toLowerCase().replace(/\s+/g, ' '), p.totalCents]));
    for (const limit of [1, 2, 3, 7]) {
      const read = await pages(type, asOf, limit);
      const paged = read.flatMap((page) =>
        page.parties.flatMap((p) => p.items.map((i) => ({ ...i, key: p.party.toLowerCase().replace(/\s+/g, ' ') }))),
      );
      expect(paged, `limit ${limit}`).toEqual(items);
      for (const page of read) {
        expect(page.totals).toEqual(whole.totals);
        for (const p of page.parties) expect(p.totalCents).toBe(amounts.get(p.party.toLowerCase().replace(/\s+/g, ' ')));
      }
      expect(read.at(-1)?.nextCursor).toBeNull();
      expect(read.length).toBe(Math.max(1, Math.ceil(items.length / limit)));
    }
    // A party whose items run over a page boundary is on both pages, with the same amounts.
    const two = await pages(type, asOf, 2);
    const split = two.findIndex((page, i) => i > 0 && page.parties[0]?.party === two[i - 1]?.parties.at(-1)?.party);
    if (items.length > 2 && new Set(items.map((i) => i.key)).size < items.length) expect(split).toBeGreaterThan(0);
  });

  it('the default page is 50 items; one page holds them all here, nextCursor null', async () => {
    const r: Aged = await report(t, o, { type: 'aged_receivables' });
    expect(r.nextCursor).toBeNull();
    const whole = await agedReport(t.db.reader, o.orgId, 'aged_receivables', inDays(0));
    expect(r.parties).toEqual(whole.parties);
  });

  it('a credit and an item paid since the previous page are cursors that go on after them', async () => {
    const asOf = inDays(0);
    const whole = await agedReport(t.db.reader, o.orgId, 'aged_receivables', asOf);
    const all = whole.parties.flatMap((p) => p.items);
    const credit = all.findIndex((i) => i.outstandingCents < 0);
    expect(credit).toBeGreaterThanOrEqual(0);
    const next: Aged = await report(t, o, { type: 'aged_receivables', asOf, limit: 3, cursor: all[credit]?.id });
    expect(next.parties.flatMap((p) => p.items).map((i) => i.id)).toEqual(all.slice(credit + 1, credit + 4).map((i) => i.id));
    // Pay an item in full, then read on from it as the cursor: the page starts with what came after it.
    const paidId = all.find((i) => i.outstandingCents > 0 && i.outstandingCents < 40_000)?.id ?? '';
    const paidAt = all.findIndex((i) => i.id === paidId);
    const left = all[paidAt]?.outstandingCents ?? 0;
    const r = await t.post(o.keys.agent, 'books.invoiceRecordPayment', { id: paidId, amountCents: left, date: asOf });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const after: Aged = await report(t, o, { type: 'aged_receivables', asOf, limit: 2, cursor: paidId });
    expect(after.parties.flatMap((p) => p.items).map((i) => i.id)).toEqual(all.slice(paidAt + 1, paidAt + 3).map((i) => i.id));
    // Use the credit up on an invoice of its party: it is still a cursor, and the page goes on
    // from where it stood.
    const holder = whole.parties.find((p) => p.items.some((i) => i.id === all[credit]?.id));
    const creditId = all[credit]?.id ?? '';
    const target = holder?.items.find((i) => i.outstandingCents > 10_000 && i.id !== paidId)?.id ?? '';
    const use = await t.post(o.keys.agent, 'books.creditAllocate', { creditId, documentId: target });
    expect(use.status, JSON.stringify(use.body)).toBe(200);
    const now = await agedReport(t.db.reader, o.orgId, 'aged_receivables', asOf);
    const key = (party: string) => party.toLowerCase().replace(/\s+/g, ' ');
    const place = (party: string, i: { dueOn: string; id: string }) => `${key(party)}\u0000${i.dueOn}\u0000${i.id}`;
    const from = place(holder?.party ?? '', all[credit] ?? { dueOn: '', id: '' });
    const rest = now.parties.flatMap((p) => p.items.filter((i) => place(p.party, i) > from).map((i) => i.id));
    const used: Aged = await report(t, o, { type: 'aged_receivables', asOf, limit: 3, cursor: creditId });
    expect(used.parties.flatMap((p) => p.items).map((i) => i.id)).toEqual(rest.slice(0, 3));
    expect(rest.length).toBeGreaterThan(0);
  });

  it('a cursor that is no item of the report, or of another report, is BAD_REQUEST naming cursor', async () => {
    const other = await t.org();
    const bill = (await approvedBill(t, other, { payeeName: 'Elsewhere', description: 'Theirs', totalCents: 1_000 })).id as string;
    for (const cursor of ['inv_nosuchinvoice', bill]) {
      const r = await t.post(o.keys.reader, 'books.reports', { type: 'aged_payables', cursor });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain('cursor');
    }
    const acct = await t.post(o.keys.reader, 'books.reports', { type: 'aged_payables', cursor: '3-jnl_x' });
    expect(acct.status).toBe(400);
    expect(acct.body.error.message).toContain('cursor: must be a nextCursor of aged_payables');
    const limit = await t.post(o.keys.reader, 'books.reports', { type: 'aged_receivables', limit: 201 });
    expect(limit.status).toBe(400);
  });
});
