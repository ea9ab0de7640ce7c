import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDate } from '../src/clock.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, openTestDatabase, startTestServer, type TestServer } from './harness.js';
import { approvedBill } from './payables-helpers.js';
import { report } from './reports-helpers.js';

/**
 * Through HTTP, with the server on a clock the test moves (Config.now):
 * GST adjustments of earlier periods (G7/G18), "today" in the organisation's time zone, and
 * credit notes that reverse the revenue accounts they credit.
 */
describe.each(engines)('books dates, GST adjustments and credit-note accounts (%s)', (engine) => {
  let t: TestServer;
  let clock = '2026-09-10T01:00:00.000Z';
  const at = (instant: string) => {
    clock = instant;
  };

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function ok(key: string, method: string, body: Record<string, unknown>) {
    const r = await t.post(key, method, body);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  }

  async function sentInvoice(o: CreatedOrg, lines: { amountCents: number; taxCode?: string; accountCode?: string }[]) {
    const totalCents = lines.reduce((s, l) => s + l.amountCents, 0);
    const d = await ok(o.keys.agent, 'books.invoiceDraft', {
      payeeName: 'Seaside Events',
      description: 'Work',
      totalCents,
      dueDays: 14,
      lines: lines.map((l, i) => ({ description: `Line ${i + 1}`, ...l })),
    });
    return ok(o.keys.agent, 'books.invoiceSend', { id: d.id });
  }

  /** The lines of one journal, read through HTTP (books.journals by source id). */
  async function linesOf(o: CreatedOrg, sourceId: string, journalId: string) {
    const r = await ok(o.keys.reader, 'books.journals', { sourceId });
    const j = (r.journals as { id: string; lines: Record<string, unknown>[] }[]).find((x) => x.id === journalId);
    expect(j, `journal ${journalId}`).toBeDefined();
    return (j?.lines ?? []) as {
      accountCode: string;
      debitCents: number;
      taxCode: string | null;
      taxBaseCents: number;
      gstCents: number;
    }[];
  }

  const credit = (o: CreatedOrg, id: string, amountCents: number, taxCode: string) =>
    ok(o.keys.agent, 'books.invoiceCreditNote', { id, amountCents, taxCode, reason: `Credit ${amountCents} ${taxCode}` });

  const SEP = '2026-09-10T01:00:00.000Z';
  const OCT = '2026-10-12T01:00:00.000Z';
  const DEC_Q = { from: '2026-10-01', to: '2026-12-31' };

  describe('adjustments of earlier periods are reported, a quarter can be a refund', () => {
    const cases = [
      {
        name: '$1,100 invoiced in September, credited in full in October: $100 refundable',
        run: async (o: CreatedOrg) => {
          at(SEP);
          const inv = await sentInvoice(o, [{ amountCents: 110_000 }]);
          at(OCT);
          await credit(o, inv.id, 110_000, 'GST');
        },
        accounts: { G1: 0, G2: 0, G10: 0, G11: 0, '1A': 0, '1B': 100 },
        worksheet: { G1: 0, G6: 0, G7: 0, G8: 0, G9: 0, G17: 0, G18: 1_100, G19: 1_100, G20: 100 },
        sheetFront: { G1: 0, '1A': 0, '1B': 100 },
        summary: { '8A': 0, '8B': 100, '9': 100, position: 'refundable', netGst: -100, net: -100 },
      },
      {
        name: '$6,500 export credited next quarter plus an $11,000 taxable sale: 1A 1,000',
        run: async (o: CreatedOrg) => {
          at(SEP);
          const inv = await sentInvoice(o, [{ amountCents: 650_000, taxCode: 'EXPORT' }]);
          at(OCT);
          await credit(o, inv.id, 650_000, 'EXPORT');
          await sentInvoice(o, [{ amountCents: 1_100_000 }]);
        },
        accounts: { G1: 11_000, G2: 0, '1A': 1_000, '1B': 0 },
        worksheet: { G1: 11_000, G2: 0, G5: 0, G6: 11_000, G7: 0, G8: 11_000, G9: 1_000, G18: 0, G20: 0 },
        sheetFront: { G1: 11_000, '1A': 1_000, '1B': 0 },
        summary: { '8A': 1_000, '8B': 0, '9': 1_000, position: 'payable', netGst: 1_000, net: 1_000 },
      },
      {
        name: 'an invoice of September voided in October is a decreasing adjustment too',
        run: async (o: CreatedOrg) => {
          at(SEP);
          const inv = await sentInvoice(o, [{ amountCents: 330_000 }, { amountCents: 50_000, taxCode: 'GST_FREE' }]);
          at(OCT);
          await ok(o.keys.agent, 'books.invoiceVoid', { id: inv.id, reason: 'Raised in error' });
        },
        accounts: { G1: 0, G3: 0, '1A': 0, '1B': 300 },
        worksheet: { G1: 0, G3: 0, G7: 0, G9: 0, G18: 3_300, G19: 3_300, G20: 300 },
        sheetFront: { G1: 0, '1A': 0, '1B': 300 },
        summary: { '8A': 0, '8B': 300, '9': 300, position: 'refundable', netGst: -300, net: -300 },
      },
      {
        name: 'a credit in the same quarter as its invoice nets into G1 (no adjustment)',
        run: async (o: CreatedOrg) => {
          at(OCT);
          const inv = await sentInvoice(o, [{ amountCents: 220_000 }]);
          await credit(o, inv.id, 110_000, 'GST');
        },
        accounts: { G1: 1_100, '1A': 100, '1B': 0 },
        worksheet: { G1: 1_100, G7: 0, G8: 1_100, G9: 100, G18: 0, G20: 0 },
        sheetFront: { G1: 1_100, '1A': 100, '1B': 0 },
        summary: { '8A': 100, '8B': 0, '9': 100, position: 'payable', netGst: 100, net: 100 },
      },
    ];

    it.each(cases)('$name', async (c) => {
      const o = await t.org();
      await c.run(o);
      const accounts = await report(t, o, { type: 'gst_summary', ...DEC_Q });
      expect(accounts.front).toMatchObject(c.accounts);
      expect(accounts.summary).toMatchObject(c.summary);
      const sheet = await report(t, o, { type: 'gst_summary', ...DEC_Q, gstMethod: 'worksheet' });
      expect(sheet.worksheet).toMatchObject(c.worksheet);
      expect(sheet.front).toMatchObject(c.sheetFront);
      expect(sheet.summary).toMatchObject(c.summary);
      // The September quarter still reports the original supply, untouched.
      const sepQ = await report(t, o, { type: 'gst_summary', from: '2026-07-01', to: '2026-09-30' });
      for (const v of Object.values(sepQ.front)) expect(v).toBeGreaterThanOrEqual(0);
    });

    it('a bill returned in a later quarter is an increasing adjustment (G7, 1A)', async () => {
      // Approvals expire by the wall clock, so this case runs at instants after it.
      const o = await t.org();
      at('2027-03-10T01:00:00.000Z');
      const bill = await approvedBill(t, o, { payeeName: 'Timber Co', description: 'Timber', totalCents: 110_000 });
      at('2027-04-12T01:00:00.000Z');
      await ok(o.keys.agent, 'books.billReturn', { id: bill.id, reason: 'Wrong size' });
      const q = { type: 'gst_summary', from: '2027-04-01', to: '2027-06-30' };
      const accounts = await report(t, o, q);
      expect(accounts.front).toMatchObject({ G1: 0, G11: 0, '1A': 100, '1B': 0 });
      expect(accounts.exactCents).toMatchObject({ G7: 110_000, G18: 0, '1A': 10_000, '1B': 0 });
      expect(accounts.summary).toMatchObject({ '9': 100, position: 'payable', netGst: 100 });
      const sheet = await report(t, o, { ...q, gstMethod: 'worksheet' });
      expect(sheet.worksheet).toMatchObject({ G7: 1_100, G8: 1_100, G9: 100, G11: 0, G17: 0, G19: 0, G20: 0 });
      expect(sheet.front).toMatchObject({ '1A': 100, '1B': 0 });
    });
  });

  describe('today is the local date of the organisation', () => {
    const MORNING_1_OCT_SYDNEY = '2026-09-30T23:30:00.000Z';

    it('localDate: 09:30 on 1 October in Sydney is 30 September in UTC', () => {
      expect(localDate(MORNING_1_OCT_SYDNEY, 'Australia/Sydney')).toBe('2026-10-01');
      expect(localDate(MORNING_1_OCT_SYDNEY, 'UTC')).toBe('2026-09-30');
    });

    it('localDate remembers an answer only within its UTC second: midnight is never missed', () => {
      // Sydney midnight on 1 October 2026 (AEST, +10) is 14:00:00.000Z; asked one after another.
      expect(localDate('2026-09-30T13:59:59.000Z', 'Australia/Sydney')).toBe('2026-09-30');
      expect(localDate('2026-09-30T13:59:59.999Z', 'Australia/Sydney')).toBe('2026-09-30');
      expect(localDate('2026-09-30T14:00:00.000Z', 'Australia/Sydney')).toBe('2026-10-01');
      expect(localDate('2026-09-30T13:59:59.999Z', 'Australia/Sydney')).toBe('2026-09-30');
      // The same second in another zone is that zone's date; an offset of whole seconds (Monrovia's
      // −0:44:30 until 1972) still turns over on a second.
      expect(localDate('2026-09-30T14:00:00.000Z', 'UTC')).toBe('2026-09-30');
      expect(localDate('1970-01-02T00:44:29.999Z', 'Africa/Monrovia')).toBe('1970-01-01');
      expect(localDate('1970-01-02T00:44:30.000Z', 'Africa/Monrovia')).toBe('1970-01-02');
      expect(() => localDate('not an instant', 'UTC')).toThrow(RangeError);
    });

    it('an invoice sent at 09:30 Sydney time on 1 October is issued 1 October, in the December quarter', async () => {
      const o = await t.org();
      at(MORNING_1_OCT_SYDNEY);
      const inv = await sentInvoice(o, [{ amountCents: 110_000 }]);
      expect(inv.issuedOn).toBe('2026-10-01');
      const dec = await report(t, o, { type: 'gst_summary', ...DEC_Q });
      expect(dec.front).toMatchObject({ G1: 1_100, '1A': 100 });
      const sep = await report(t, o, { type: 'gst_summary', from: '2026-07-01', to: '2026-09-30' });
      expect(sep.front).toMatchObject({ G1: 0, '1A': 0 });
      const tb = await report(t, o, { type: 'trial_balance' });
      expect(tb.asOf).toBe('2026-10-01');
    });

    const journal = (date: string) => ({
      date,
      memo: 'Owner contribution',
      lines: [
        { accountCode: '1000', debitCents: 5_000 },
        { accountCode: '3000', creditCents: 5_000 },
      ],
    });

    it('a journal dated 1 October is accepted then; 2 October is still the future', async () => {
      const o = await t.org();
      at(MORNING_1_OCT_SYDNEY);
      expect((await t.post(o.keys.agent, 'books.journalPost', journal('2026-10-01'))).status).toBe(200);
      const late = await t.post(o.keys.agent, 'books.journalPost', journal('2026-10-02'));
      expect(late.status).toBe(400);
      expect(late.body.error.message).toMatch(/^date: /);
    });

    it('an organisation in UTC at the same instant is on 30 September', async () => {
      const o = await t.org(undefined, { timeZone: 'UTC' });
      at(MORNING_1_OCT_SYDNEY);
      const inv = await sentInvoice(o, [{ amountCents: 110_000 }]);
      expect(inv.issuedOn).toBe('2026-09-30');
      const refused = await t.post(o.keys.agent, 'books.journalPost', journal('2026-10-01'));
      expect(refused.status).toBe(400);
      expect((await report(t, o, { type: 'trial_balance' })).asOf).toBe('2026-09-30');
    });

    it('an unknown time zone is refused when the organisation is created', async () => {
      await expect(t.org(undefined, { timeZone: 'Mars/Olympus_Mons' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(t.org(undefined, { timeZone: '' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    });
  });

  describe('a credit note reverses the revenue accounts it credits', () => {
    const pl = async (o: CreatedOrg) => {
      const r = await report(t, o, { type: 'profit_and_loss', from: '2026-10-01', to: '2026-10-31' });
      return Object.fromEntries((r.revenue.accounts as { code: string; amountCents: number }[]).map((a) => [a.code, a.amountCents]));
    };

    it('credits on 4000 and 4200 lines debit 4000 and 4200 in proportion; a full credit clears both', async () => {
      const o = await t.org();
      at(OCT);
      const inv = await sentInvoice(o, [
        { amountCents: 110_000, accountCode: '4000' },
        { amountCents: 55_000, accountCode: '4200' },
      ]);
      expect(await pl(o)).toEqual({ '4000': 100_000, '4200': 50_000 });
      // A third of the GST supplies: 55,000 shared 2:1 → 36,667 / 18,333 (largest remainder); its
      // GST 5,000 over those shares → 3,333.36 / 1,666.63 → 3,333 / 1,667.
      const part = await credit(o, inv.id, 55_000, 'GST');
      const lines = await linesOf(o, inv.id, part.journalId);
      const debits = lines.filter((l) => l.taxCode === 'GST').map((l) => [l.accountCode, l.debitCents, l.taxBaseCents, l.gstCents]);
      expect(debits).toEqual([
        ['4000', 33_334, -36_667, -3_333],
        ['4200', 16_666, -18_333, -1_667],
      ]);
      expect(await pl(o)).toEqual({ '4000': 66_666, '4200': 33_334 });
      await credit(o, inv.id, 110_000, 'GST');
      const after = await pl(o);
      expect([after['4000'] ?? 0, after['4200'] ?? 0]).toEqual([0, 0]);
    });

    it('a credit of a code on 4200 only debits 4200', async () => {
      const o = await t.org();
      at(OCT);
      const inv = await sentInvoice(o, [
        { amountCents: 110_000, accountCode: '4000' },
        { amountCents: 33_000, taxCode: 'GST_FREE', accountCode: '4200' },
      ]);
      const note = await credit(o, inv.id, 33_000, 'GST_FREE');
      expect(note.accountCode).toBe('4200');
      const lines = await linesOf(o, inv.id, note.journalId);
      expect(lines.filter((l) => l.debitCents > 0).map((l) => l.accountCode)).toEqual(['4200']);
      expect(await pl(o)).toEqual({ '4000': 100_000, '4200': 0 });
    });
  });
});

describe.each(engines)('migration 15 (%s)', (engine) => {
  it('gives organisations that predate it the default time zone', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate();
      // Back to the schema before migration 15, with an organisation in it; then migrate again.
      await db.write(async (tx) => {
        await tx.run('ALTER TABLE organisations DROP COLUMN time_zone');
        await tx.run('DELETE FROM schema_migrations WHERE id = 15');
        await tx.run(
          "INSERT INTO organisations (id, slug, name, created_at) VALUES ('org_old', 'old', 'Old Co', '2026-01-01T00:00:00.000Z')",
        );
      });
      await db.migrate();
      const row = await db.reader.get<{ time_zone: string }>("SELECT time_zone FROM organisations WHERE id = 'org_old'");
      expect(row?.time_zone).toBe('Australia/Sydney');
    } finally {
      await db.close();
      await drop();
    }
  });
});
