/**
 * books.invoiceWriteOff through HTTP, on every engine: the rest of an invoice written off as a bad
 * debt. Figures by hand: a $1,100 invoice with $100 GST, $440 paid, leaves $660; its GST is
 * 660 × 100 / 1,100 = $60, so Dr 7000 Bad debts $600, Dr 2100 GST collected $60, Cr 1100 $660.
 * Written off in a later period than the invoice, the BAS shows it as a credit note's: G18 $660
 * and 1B $60 (a decreasing adjustment on sales), G1 untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { agentCalls, engines, refusal, startTestServer, type TestServer } from './harness.js';

const BAKERY = { payeeName: 'Second Street Bakery', description: 'Bread order', totalCents: 110_000, dueDays: 30 };

describe.each(engines)('books.invoiceWriteOff (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  const { post, ok } = agentCalls(() => t);

  async function sent(o: CreatedOrg, params: Record<string, unknown> = BAKERY) {
    const d = await ok(o, 'books.invoiceDraft', params);
    return ok(o, 'books.invoiceSend', { id: d.id });
  }

  const lines = async (o: CreatedOrg, journalId: string) =>
    (
      await t.db.reader.all<{
        account_code: string;
        debit_cents: unknown;
        credit_cents: unknown;
        tax_code: string | null;
        tax_base_cents: unknown;
        gst_cents: unknown;
      }>(
        `SELECT account_code, debit_cents, credit_cents, tax_code, tax_base_cents, gst_cents FROM journal_lines
         WHERE org_id = ? AND journal_id = ? ORDER BY line_no`,
        [o.orgId, journalId],
      )
    ).map((r) => ({
      account: r.account_code,
      dr: Number(r.debit_cents),
      cr: Number(r.credit_cents),
      taxCode: r.tax_code,
      base: Number(r.tax_base_cents),
      gst: Number(r.gst_cents),
    }));
  const writeOffEvents = async (o: CreatedOrg) =>
    ((await t.get(o.keys.observer, 'events?limit=500')).body.events as any[]).filter((e) => e.kind === 'books.invoice.write_off');

  it('writes off $660 of a $1,100 invoice: Dr 7000 $600, Dr 2100 $60, Cr 1100 $660; one event; the BAS shows the adjustment', async () => {
    const o = await t.org();
    const inv = await sent(o, { ...BAKERY, issueDate: '2026-09-10' });
    await ok(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 44_000, date: '2026-09-20' });

    const w = await ok(o, 'books.invoiceWriteOff', {
      id: inv.id,
      reason: 'Customer wound up; liquidator pays nothing',
      date: '2026-10-15',
    });
    expect(w).toMatchObject({
      id: inv.id,
      status: 'written_off',
      outstandingCents: 0,
      writeOff: { date: '2026-10-15', reason: 'Customer wound up; liquidator pays nothing', amountCents: 66_000, gstCents: 6_000 },
    });
    expect(w.noop).toBeUndefined();
    expect(await lines(o, w.writeOff.journalId)).toEqual([
      { account: '7000', dr: 60_000, cr: 0, taxCode: 'GST', base: -66_000, gst: -6_000 },
      { account: '2100', dr: 6_000, cr: 0, taxCode: null, base: 0, gst: 0 },
      { account: '1100', dr: 0, cr: 66_000, taxCode: null, base: 0, gst: 0 },
    ]);
    const ev = await writeOffEvents(o);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      entity_id: inv.id,
      payload: { amountCents: 66_000, gstCents: 6_000, date: '2026-10-15', from: 'part_paid', journalId: w.writeOff.journalId },
    });
    expect(w.ledgerId).toBe(ev[0].row_hash.slice(0, 8));

    // The invoice read, aged receivables and the customer's statement no longer show it owed.
    const read = await ok(o, 'books.invoice', { id: inv.id });
    expect(read).toMatchObject({ status: 'written_off', outstandingCents: 0 });
    const aged = (await t.post(o.keys.reader, 'books.reports', { type: 'aged_receivables' })).body.result;
    expect(JSON.stringify(aged)).not.toContain(inv.id);
    const st = await ok(o, 'books.statementRun', { payeeName: BAKERY.payeeName });
    expect(st.statements).toEqual([]);

    // October's BAS: no sale, a decreasing adjustment of $660 carrying $60 of GST.
    const gst = (await t.post(o.keys.reader, 'books.reports', { type: 'gst_summary', from: '2026-10-01', to: '2026-10-31' })).body.result;
    expect(gst.exactCents).toMatchObject({ G1: 0, G18: 66_000, '1A': 0, '1B': 6_000 });
    // September's is unchanged: the $1,100 sale and its $100 GST.
    const sep = (await t.post(o.keys.reader, 'books.reports', { type: 'gst_summary', from: '2026-09-01', to: '2026-09-30' })).body.result;
    expect(sep.exactCents).toMatchObject({ G1: 110_000, '1A': 10_000 });

    // The same write-off again is a no-op; so is the same idempotency key.
    const again = await ok(o, 'books.invoiceWriteOff', { id: inv.id, reason: 'again' });
    expect(again).toMatchObject({ noop: true, status: 'written_off', ledgerId: w.ledgerId, writeOff: w.writeOff });
    expect(await writeOffEvents(o)).toHaveLength(1);

    // A later payment or credit note on it is refused, naming the write-off.
    const pay = await post(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 100 });
    expect(pay.status).toBe(409);
    expect(pay.body.error.message).toContain('written_off');
    const credit = await post(o, 'books.invoiceCreditNote', { id: inv.id, amountCents: 100, reason: 'x' });
    expect(credit.status).toBe(409);
    expect(credit.body.error.message).toContain('written_off');
  });

  it('a sent invoice with nothing paid, written off today: its whole total, GST 1/11', async () => {
    const o = await t.org();
    const inv = await sent(o, { ...BAKERY, totalCents: 1_001 });
    const key = { 'idempotency-key': `wo-${o.orgId}` };
    const w = await ok(o, 'books.invoiceWriteOff', { id: inv.id, reason: 'Gone' }, key);
    const replay = await ok(o, 'books.invoiceWriteOff', { id: inv.id, reason: 'Gone' }, key);
    expect(replay.ledgerId).toBe(w.ledgerId);
    // GST 91 of 1,001 (1/11 half up at the draft); all of it outstanding, so all of the GST.
    expect(w.writeOff).toMatchObject({ amountCents: 1_001, gstCents: 91 });
    expect(await lines(o, w.writeOff.journalId)).toEqual([
      { account: '7000', dr: 910, cr: 0, taxCode: 'GST', base: -1_001, gst: -91 },
      { account: '2100', dr: 91, cr: 0, taxCode: null, base: 0, gst: 0 },
      { account: '1100', dr: 0, cr: 1_001, taxCode: null, base: 0, gst: 0 },
    ]);
    expect(await writeOffEvents(o)).toHaveLength(1);
  });

  it('written off in the period of its invoice, the bad debt is still an adjustment: G1 keeps the sale, G18 and 1B carry the write-off', async () => {
    const o = await t.org();
    const inv = await sent(o, { ...BAKERY, issueDate: '2026-10-02' });
    await ok(o, 'books.invoiceWriteOff', { id: inv.id, reason: 'Customer vanished', date: '2026-10-20' });
    // October: the $1,100 sale with its $100 GST in G1 and 1A; the $1,100 written off, $100 of it
    // GST, a decreasing adjustment (G18, 1B) rather than a smaller G1: net GST 0.
    const gst = (await t.post(o.keys.reader, 'books.reports', { type: 'gst_summary', from: '2026-10-01', to: '2026-10-31' })).body.result;
    expect(gst.exactCents).toMatchObject({ G1: 110_000, G18: 110_000, '1A': 10_000, '1B': 10_000 });
  });

  it('GST-free supplies are written off untagged: only the GST part adjusts the BAS', async () => {
    const o = await t.org();
    const inv = await sent(o, {
      ...BAKERY,
      totalCents: 143_000,
      lines: [
        { description: 'Catering', amountCents: 110_000 },
        { description: 'Fruit', amountCents: 33_000, taxCode: 'GST_FREE' },
      ],
    });
    await ok(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 43_000 });
    const w = await ok(o, 'books.invoiceWriteOff', { id: inv.id, reason: 'Uncollectable' });
    // $1,000 left: GST 1,000 × 100 / 1,430 = 69.93 → $69.93; GST-bearing part 1,000 × 1,100 / 1,430 = 769.23.
    expect(w.writeOff).toMatchObject({ amountCents: 100_000, gstCents: 6_993 });
    expect(await lines(o, w.writeOff.journalId)).toEqual([
      { account: '7000', dr: 76_923 - 6_993, cr: 0, taxCode: 'GST', base: -76_923, gst: -6_993 },
      { account: '7000', dr: 100_000 - 76_923, cr: 0, taxCode: null, base: 0, gst: 0 },
      { account: '2100', dr: 6_993, cr: 0, taxCode: null, base: 0, gst: 0 },
      { account: '1100', dr: 0, cr: 100_000, taxCode: null, base: 0, gst: 0 },
    ]);
  });

  it('refuses a draft, paid, void or credited invoice (CONFLICT naming its state), and nothing changes', async () => {
    const o = await t.org();
    const draft = await ok(o, 'books.invoiceDraft', BAKERY);
    const paid = await sent(o);
    await ok(o, 'books.invoiceRecordPayment', { id: paid.id, amountCents: 110_000 });
    const voided = await sent(o);
    await ok(o, 'books.invoiceVoid', { id: voided.id, reason: 'raised in error' });
    const credited = await sent(o);
    await ok(o, 'books.invoiceCreditNote', { id: credited.id, amountCents: 110_000, reason: 'returned' });
    for (const [inv, state] of [
      [draft, 'draft'],
      [paid, 'paid'],
      [voided, 'void'],
      [credited, 'credited'],
    ] as const) {
      const r = await post(o, 'books.invoiceWriteOff', { id: inv.id, reason: 'bad' });
      expect(r.body).toEqual(
        refusal(
          'CONFLICT',
          `invoice ${inv.id} is ${state}; only a sent or part_paid invoice with an amount outstanding can be written off`,
        ),
      );
    }
    expect(await writeOffEvents(o)).toHaveLength(0);
  });

  it('bad input names the field; nothing changes', async () => {
    const o = await t.org();
    const inv = await sent(o, { ...BAKERY, issueDate: '2026-09-10' });
    const cases: [Record<string, unknown>, string][] = [
      [{ reason: 'x' }, 'id'],
      [{ id: inv.id }, 'reason'],
      [{ id: inv.id, reason: '' }, 'reason'],
      [{ id: inv.id, reason: 'x'.repeat(501) }, 'reason'],
      [{ id: inv.id, reason: 'x', date: '2026-02-30' }, 'date'],
      [{ id: inv.id, reason: 'x', date: '2026-09-09' }, 'date'],
      [{ id: inv.id, reason: 'x', date: '2999-01-01' }, 'date'],
      [{ id: inv.id, reason: 'x', extra: 1 }, 'extra'],
    ];
    for (const [params, field] of cases) {
      const r = await post(o, 'books.invoiceWriteOff', params);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.field, JSON.stringify(r.body)).toBe(field);
    }
    // On or before the lock date.
    await t.db.write((tx) => tx.run('UPDATE organisations SET lock_date = ? WHERE id = ?', ['2026-09-30', o.orgId]));
    const locked = await post(o, 'books.invoiceWriteOff', { id: inv.id, reason: 'x', date: '2026-09-30' });
    expect(locked.status, JSON.stringify(locked.body)).toBe(400);
    expect(locked.body.error.field).toBe('date');
    expect(await writeOffEvents(o)).toHaveLength(0);
    expect((await ok(o, 'books.invoice', { id: inv.id })).status).toBe('sent');
  });

  it('scope: the reader cannot write off; another organisation’s invoice is NOT_FOUND', async () => {
    const o = await t.org();
    const other = await t.org();
    const inv = await sent(o);
    expect((await t.post(o.keys.reader, 'books.invoiceWriteOff', { id: inv.id, reason: 'x' })).status).toBe(403);
    const r = await post(other, 'books.invoiceWriteOff', { id: inv.id, reason: 'x' });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NOT_FOUND');
    expect((await ok(o, 'books.invoice', { id: inv.id })).status).toBe('sent');
  });
});
