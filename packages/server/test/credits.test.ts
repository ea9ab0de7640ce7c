/**
 * Contact credits through HTTP, on every engine: money that fits no one document. Figures by hand:
 * - a $1,100 invoice ($100 GST) paid $1,200 with excess 'credit': Dr 1000 $1,200 / Cr 1100 invoice
 *   $1,100 / Cr 1100 credit $100; allocated to the next invoice of $550, that invoice owes $450;
 * - a $330 credit note on a paid $1,100 invoice: all of it is beyond what is owed, so one journal
 *   Dr 4000 $300 / Dr 2100 $30 / Cr 1100 credit $330, GST −$30 (a later period: G18 $330, 1B $30);
 *   refunded: Dr 1100 credit $330 / Cr 1000;
 * - $330 on a $1,100 invoice with $220 still owed: $220 settles it (GST 30 × 220 / 330 = $20), the
 *   $110 beyond is a credit carrying $10 of GST;
 * - a supplier prepayment of $500 allocated to a $770 bill: it owes $270;
 * - an adjustment note of $110 on a $770 bill: Dr 2000 $110 / Cr 6000 $100 / Cr 1200 $10; on a bill
 *   of an earlier period the BAS shows G7 $110 and 1A $10; on a paid bill it is a supplier credit;
 * - that $770 bill paid by a bank line, then the $110 note, then the match undone: it owes $770 again,
 *   but a return is refused, so 6000 keeps $700 − $100 = $600 and the $110 credit stays.
 * Every test checks the trial balance balances, the aged reports total the control accounts and
 * each contact's credit totals equal the ledger under its credits' ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { cashCodeTotals } from '../src/domain/tax/cash.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, journalLines } from './payables-helpers.js';

const CAFE = { payeeName: 'Harbour Cafe', description: 'Catering', totalCents: 110_000, dueDays: 30 };
const TIMBER = { payeeName: 'Coastal Timber', description: 'Timber', totalCents: 77_000 };

describe.each(engines)('contact credits (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  const { post, ok } = agentCalls(() => t);

  async function sent(o: CreatedOrg, params: Record<string, unknown> = CAFE) {
    const d = await ok(o, 'books.invoiceDraft', { ...CAFE, ...params });
    return ok(o, 'books.invoiceSend', { id: d.id });
  }
  const lines = async (o: CreatedOrg, journalId: string) =>
    (await journalLines(t, o.orgId, journalId)).map((l) => ({
      account: l.account_code,
      dr: l.debit_cents,
      cr: l.credit_cents,
      ...(l.tax_code ? { taxCode: l.tax_code, base: l.tax_base_cents, gst: l.gst_cents } : {}),
      doc: l.doc_id,
    }));
  const report = async (o: CreatedOrg, params: Record<string, unknown>) => {
    const r = await t.post(o.keys.reader, 'books.reports', params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const contactOf = async (o: CreatedOrg, id: string) => {
    const r = await t.get(o.keys.reader, 'contacts.list?limit=200');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body.contacts as any[]).find((c) => c.id === id);
  };
  const eventsOf = async (o: CreatedOrg, kind: string) =>
    ((await t.get(o.keys.observer, 'events?limit=500')).body.events as any[]).filter((e) => e.kind === kind);

  /** The books still add up: trial balance, aged reports against their control accounts, credits against the ledger. */
  async function booksAddUp(o: CreatedOrg) {
    const tb = await report(o, { type: 'trial_balance' });
    expect(tb.totals.debitCents).toBe(tb.totals.creditCents);
    for (const type of ['aged_receivables', 'aged_payables']) {
      const aged = await report(o, { type });
      expect(aged.totals.totalCents).toBe(aged.controlAccount.balanceCents);
    }
    const ledger = await t.db.reader.all<{ side: string; contact_id: string; dr: unknown; cr: unknown }>(
      `SELECT c.side AS side, c.contact_id AS contact_id, SUM(l.debit_cents) AS dr, SUM(l.credit_cents) AS cr
       FROM contact_credits c JOIN journal_lines l ON l.org_id = c.org_id AND l.doc_id = c.id
       WHERE c.org_id = ? GROUP BY c.side, c.contact_id`,
      [o.orgId],
    );
    for (const r of ledger) {
      const contact = await contactOf(o, r.contact_id);
      const left = r.side === 'customer' ? Number(r.cr) - Number(r.dr) : Number(r.dr) - Number(r.cr);
      expect(r.side === 'customer' ? contact.customerCreditCents : contact.supplierCreditCents).toBe(left);
      expect((contact.credits as any[]).filter((c) => c.side === r.side).reduce((s, c) => s + c.remainingCents, 0)).toBe(left);
    }
  }

  it('an overpayment is kept as a customer credit and allocated to the next invoice ($100 → the $550 invoice owes $450)', async () => {
    const o = await t.org();
    const inv = await sent(o, { issueDate: '2026-07-10' });
    const refused = await post(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 120_000, date: '2026-07-20' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('amountCents');
    expect(refused.body.error.message).toContain("excess 'credit'");

    const pay = await ok(o, 'books.invoiceRecordPayment', {
      id: inv.id,
      amountCents: 120_000,
      date: '2026-07-20',
      reference: 'EFT 881',
      excess: 'credit',
    });
    expect(pay).toMatchObject({ status: 'paid', outstandingCents: 0, amountCents: 120_000, creditCents: 10_000 });
    const creditId = pay.creditId as string;
    expect(creditId).toMatch(/^crd_/);
    // Dr bank all of it / Cr 1100 the invoice's $1,100 / Cr 1100 the credit's $100.
    expect(await lines(o, pay.journalId)).toEqual([
      { account: '1000', dr: 120_000, cr: 0, doc: null },
      { account: '1100', dr: 0, cr: 110_000, doc: inv.id },
      { account: '1100', dr: 0, cr: 10_000, doc: creditId },
    ]);
    const [ev] = await eventsOf(o, 'books.invoice.payment');
    expect(ev.payload).toMatchObject({ amountCents: 120_000, outstandingCents: 0, creditId, creditCents: 10_000 });
    // The same reference again is the same payment: a no-op naming the same credit.
    const again = await ok(o, 'books.invoiceRecordPayment', {
      id: inv.id,
      amountCents: 120_000,
      date: '2026-07-20',
      reference: 'EFT 881',
      excess: 'credit',
    });
    expect(again).toMatchObject({ noop: true, creditId, creditCents: 10_000, paymentId: pay.paymentId });

    // The contact shows it; aged receivables list it as a negative item of the customer.
    const contact = await contactOf(o, inv.contactId);
    expect(contact).toMatchObject({ customerCreditCents: 10_000, supplierCreditCents: 0, receivableCents: 0 });
    expect(contact.credits).toEqual([
      {
        id: creditId,
        side: 'customer',
        source: 'overpayment',
        documentId: inv.id,
        date: '2026-07-20',
        amountCents: 10_000,
        remainingCents: 10_000,
      },
    ]);
    const aged = await report(o, { type: 'aged_receivables', asOf: '2026-07-31' });
    expect(aged.totals.totalCents).toBe(-10_000);
    expect(aged.parties[0].items).toEqual([expect.objectContaining({ id: creditId, totalCents: -10_000, outstandingCents: -10_000 })]);
    await booksAddUp(o);

    // The next invoice, $550: the credit pays $100 of it.
    const next = await sent(o, { totalCents: 55_000, issueDate: '2026-08-01' });
    const alloc = await ok(o, 'books.creditAllocate', { creditId, documentId: next.id, date: '2026-08-02' });
    expect(alloc).toMatchObject({ amountCents: 10_000, creditRemainingCents: 0, status: 'part_paid', outstandingCents: 45_000 });
    expect(await lines(o, alloc.journalId)).toEqual([
      { account: '1100', dr: 10_000, cr: 0, doc: creditId },
      { account: '1100', dr: 0, cr: 10_000, doc: next.id },
    ]);
    expect((await ok(o, 'books.invoice', { id: next.id })).outstandingCents).toBe(45_000);
    // Again with no amount (or the same): a no-op; another amount: CONFLICT.
    expect(await ok(o, 'books.creditAllocate', { creditId, documentId: next.id })).toMatchObject({
      noop: true,
      allocationId: alloc.allocationId,
    });
    const other = await post(o, 'books.creditAllocate', { creditId, documentId: next.id, amountCents: 5_000 });
    expect(other.status).toBe(409);
    expect((await eventsOf(o, 'books.credit.allocate')).length).toBe(1);
    const after = await contactOf(o, inv.contactId);
    expect(after).toMatchObject({ customerCreditCents: 0, credits: [], receivableCents: 45_000 });

    // Cash basis: the allocation is a payment of the $550 invoice on 2 August: $100 of it, GST 100 × 50 / 550 = $9.09.
    const aug = await cashCodeTotals(t.db.reader, o.orgId, '2026-08-01', '2026-08-31');
    expect(aug.find((c) => c.taxCode === 'GST')).toMatchObject({ baseCents: 10_000, gstCents: 909 });
    await booksAddUp(o);
  });

  it('a credit note on a paid invoice becomes a customer credit (GST −$30, G18 in a later period), refunded through the bank', async () => {
    const o = await t.org();
    const inv = await sent(o, { issueDate: '2026-07-10' });
    await ok(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 110_000, date: '2026-07-15' });
    const cn = await ok(o, 'books.invoiceCreditNote', {
      id: inv.id,
      amountCents: 33_000,
      reason: 'Short delivery',
      issueDate: '2026-08-05',
    });
    expect(cn).toMatchObject({ status: 'paid', outstandingCents: 0, amountCents: 33_000, gstCents: 3_000, creditCents: 33_000 });
    const creditId = cn.creditId as string;
    // Nothing was owed: one journal, all of it the customer's credit.
    expect(await lines(o, cn.journalId)).toEqual([
      { account: '4000', dr: 30_000, cr: 0, taxCode: 'GST', base: -33_000, gst: -3_000, doc: null },
      { account: '2100', dr: 3_000, cr: 0, doc: null },
      { account: '1100', dr: 0, cr: 33_000, doc: creditId },
    ]);
    // The same note again: a no-op naming the credit.
    expect(await ok(o, 'books.invoiceCreditNote', { id: inv.id, amountCents: 33_000, reason: 'Short delivery' })).toMatchObject({
      noop: true,
      creditId,
    });
    // Accruals: August has no sale, a decreasing adjustment of $330 with $30 GST; July is unchanged.
    const aug = await report(o, { type: 'gst_summary', from: '2026-08-01', to: '2026-08-31' });
    expect(aug.exactCents).toMatchObject({ G1: 0, G18: 33_000, '1A': 0, '1B': 3_000 });
    const jul = await report(o, { type: 'gst_summary', from: '2026-07-01', to: '2026-07-31' });
    expect(jul.exactCents).toMatchObject({ G1: 110_000, '1A': 10_000 });
    // Cash basis: July had the $1,100 received; August has the note's −$330 / −$30 as an adjustment.
    const cashJul = await cashCodeTotals(t.db.reader, o.orgId, '2026-07-01', '2026-07-31');
    expect(cashJul.find((c) => c.taxCode === 'GST')).toMatchObject({ baseCents: 110_000, gstCents: 10_000 });
    const cashAug = await cashCodeTotals(t.db.reader, o.orgId, '2026-08-01', '2026-08-31');
    expect(cashAug.find((c) => c.taxCode === 'GST')).toMatchObject({
      baseCents: 0,
      adjustmentBaseCents: -33_000,
      adjustmentGstCents: -3_000,
    });
    await booksAddUp(o);

    // Refunded in full: Dr 1100 credit / Cr 1000.
    const refund = await ok(o, 'books.creditRefund', { creditId, date: '2026-08-10', reference: 'REFUND 12' });
    expect(refund).toMatchObject({ amountCents: 33_000, creditRemainingCents: 0, accountCode: '1000' });
    expect(await lines(o, refund.journalId)).toEqual([
      { account: '1100', dr: 33_000, cr: 0, doc: creditId },
      { account: '1000', dr: 0, cr: 33_000, doc: null },
    ]);
    expect(await ok(o, 'books.creditRefund', { creditId, reference: 'REFUND 12' })).toMatchObject({
      noop: true,
      refundId: refund.refundId,
    });
    const more = await post(o, 'books.creditRefund', { creditId, reference: 'REFUND 13' });
    expect(more.status).toBe(409);
    expect(more.body.error.message).toContain('nothing left');
    expect((await eventsOf(o, 'books.credit.refund')).length).toBe(1);
    await booksAddUp(o);
  });

  it('a note beyond what is still owed: $220 settles the invoice ($20 GST), $110 becomes a credit ($10 GST)', async () => {
    const o = await t.org();
    const inv = await sent(o, { issueDate: '2026-07-10' });
    await ok(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 88_000, date: '2026-07-15' });
    const cn = await ok(o, 'books.invoiceCreditNote', {
      id: inv.id,
      amountCents: 33_000,
      reason: 'Returned chairs',
      issueDate: '2026-08-05',
    });
    expect(cn).toMatchObject({ status: 'paid', outstandingCents: 0, gstCents: 3_000, creditCents: 11_000 });
    expect(await lines(o, cn.journalId)).toEqual([
      { account: '4000', dr: 20_000, cr: 0, taxCode: 'GST', base: -22_000, gst: -2_000, doc: null },
      { account: '2100', dr: 2_000, cr: 0, doc: null },
      { account: '1100', dr: 0, cr: 22_000, doc: inv.id },
    ]);
    const [, creditJournal] = await t.db.reader
      .all<{ id: string }>("SELECT id FROM journals WHERE org_id = ? AND source_kind = 'credit_note' AND source_id = ? ORDER BY id", [
        o.orgId,
        inv.id,
      ])
      .then((rows) => [rows.find((r) => r.id === cn.journalId), rows.find((r) => r.id !== cn.journalId)]);
    expect(await lines(o, creditJournal?.id ?? '')).toEqual([
      { account: '4000', dr: 10_000, cr: 0, taxCode: 'GST', base: -11_000, gst: -1_000, doc: null },
      { account: '2100', dr: 1_000, cr: 0, doc: null },
      { account: '1100', dr: 0, cr: 11_000, doc: cn.creditId },
    ]);
    // Cash basis over July and August: $880 received carries $80; the credit's −$10 counts when issued: $70 on $770 in all.
    const jul = (await cashCodeTotals(t.db.reader, o.orgId, '2026-07-01', '2026-07-31')).find((c) => c.taxCode === 'GST');
    const aug = (await cashCodeTotals(t.db.reader, o.orgId, '2026-08-01', '2026-08-31')).find((c) => c.taxCode === 'GST');
    expect(jul).toMatchObject({ baseCents: 88_000, gstCents: 8_000 });
    expect((aug?.baseCents ?? 0) + (aug?.adjustmentBaseCents ?? 0)).toBe(-11_000);
    expect((aug?.gstCents ?? 0) + (aug?.adjustmentGstCents ?? 0)).toBe(-1_000);
    await booksAddUp(o);
  });

  it('a supplier prepayment of $500 allocated to a $770 bill leaves $270 owed; runs pay only that', async () => {
    const o = await t.org();
    const bill = await approvedBill(t, o, { ...TIMBER, issueDate: '2026-08-03' });
    const pre = await ok(o, 'books.creditPrepayment', {
      contactId: bill.contactId,
      side: 'supplier',
      amountCents: 50_000,
      date: '2026-08-01',
      reference: 'DEPOSIT 1',
    });
    expect(pre).toMatchObject({
      side: 'supplier',
      source: 'prepayment',
      amountCents: 50_000,
      remainingCents: 50_000,
      reference: 'DEPOSIT 1',
    });
    expect(await lines(o, pre.journalId)).toEqual([
      { account: '2000', dr: 50_000, cr: 0, doc: pre.id },
      { account: '1000', dr: 0, cr: 50_000, doc: null },
    ]);
    // The same reference, amount and date: a no-op; another amount: CONFLICT.
    expect(
      await ok(o, 'books.creditPrepayment', { contactId: bill.contactId, side: 'supplier', amountCents: 50_000, reference: 'DEPOSIT 1' }),
    ).toMatchObject({ noop: true, id: pre.id });
    const clash = await post(o, 'books.creditPrepayment', {
      contactId: bill.contactId,
      side: 'supplier',
      amountCents: 40_000,
      reference: 'DEPOSIT 1',
    });
    expect(clash.status).toBe(409);
    expect((await contactOf(o, bill.contactId)).supplierCreditCents).toBe(50_000);
    const agedBefore = await report(o, { type: 'aged_payables' });
    // Owed $770 less the $500 paid ahead: $270.
    expect(agedBefore.totals.totalCents).toBe(27_000);
    await booksAddUp(o);

    const alloc = await ok(o, 'books.creditAllocate', { creditId: pre.id, documentId: bill.id, date: '2026-08-04' });
    expect(alloc).toMatchObject({ amountCents: 50_000, creditRemainingCents: 0, status: 'approved', outstandingCents: 27_000 });
    expect(await lines(o, alloc.journalId)).toEqual([
      { account: '2000', dr: 50_000, cr: 0, doc: bill.id },
      { account: '2000', dr: 0, cr: 50_000, doc: pre.id },
    ]);
    const bills = await ok(o, 'books.bills', { status: 'approved' });
    expect(bills.bills.find((b: any) => b.id === bill.id)?.outstandingCents).toBe(27_000);
    const aged = await report(o, { type: 'aged_payables' });
    expect(aged.parties[0].items).toEqual([expect.objectContaining({ id: bill.id, outstandingCents: 27_000 })]);
    await booksAddUp(o);
  });

  it('an adjustment note of $110 on a $770 bill: Dr 2000 / Cr 6000 $100 / Cr 1200 $10; G7 in a later period; beyond a paid bill, a credit', async () => {
    const o = await t.org();
    const bill = await approvedBill(t, o, { ...TIMBER, issueDate: '2026-07-10' });
    const note = await ok(o, 'books.billCreditNote', {
      id: bill.id,
      amountCents: 11_000,
      reason: 'Two boards split',
      issueDate: '2026-08-05',
    });
    expect(note).toMatchObject({
      amountCents: 11_000,
      gstCents: 1_000,
      taxCode: 'GST_ON_EXPENSES',
      accountCode: '6000',
      status: 'approved',
      outstandingCents: 66_000,
      creditId: null,
      creditCents: 0,
    });
    expect(note.journalIds).toHaveLength(1);
    expect(await lines(o, note.journalIds[0])).toEqual([
      { account: '2000', dr: 11_000, cr: 0, doc: bill.id },
      { account: '6000', dr: 0, cr: 10_000, taxCode: 'GST_ON_EXPENSES', base: -11_000, gst: -1_000, doc: null },
      { account: '1200', dr: 0, cr: 1_000, doc: null },
    ]);
    expect(await ok(o, 'books.billCreditNote', { id: bill.id, amountCents: 11_000, reason: 'Two boards split' })).toMatchObject({
      noop: true,
      creditNoteId: note.creditNoteId,
    });
    // August's BAS: an increasing adjustment (less GST on purchases of July): G7 $110, 1A $10.
    const aug = await report(o, { type: 'gst_summary', from: '2026-08-01', to: '2026-08-31' });
    expect(aug.exactCents).toMatchObject({ G7: 11_000, G11: 0, '1A': 1_000, '1B': 0 });
    await booksAddUp(o);

    // In the bill's own period a note nets into its purchases: $770 − $110 = $660, GST $60.
    const same = await approvedBill(t, o, { ...TIMBER, description: 'More timber', issueDate: '2026-09-02' });
    await ok(o, 'books.billCreditNote', { id: same.id, amountCents: 11_000, reason: 'Short', issueDate: '2026-09-03' });
    const sep = await report(o, { type: 'gst_summary', from: '2026-09-01', to: '2026-09-30' });
    expect(sep.exactCents).toMatchObject({ G11: 66_000, G7: 0, '1B': 6_000 });

    // A bill settled in full by a prepayment, then a $110 note: all of it is a supplier credit.
    const paid = await approvedBill(t, o, { ...TIMBER, description: 'Decking', issueDate: '2026-09-05' });
    const pre = await ok(o, 'books.creditPrepayment', {
      contactId: paid.contactId,
      side: 'supplier',
      amountCents: 77_000,
      date: '2026-09-05',
    });
    expect(await ok(o, 'books.creditAllocate', { creditId: pre.id, documentId: paid.id, date: '2026-09-06' })).toMatchObject({
      status: 'paid',
      outstandingCents: 0,
    });
    const beyond = await ok(o, 'books.billCreditNote', { id: paid.id, amountCents: 11_000, reason: 'Warped', issueDate: '2026-09-10' });
    expect(beyond).toMatchObject({ status: 'paid', outstandingCents: 0, creditCents: 11_000 });
    expect(await lines(o, beyond.journalIds[0])).toEqual([
      { account: '2000', dr: 11_000, cr: 0, doc: beyond.creditId },
      { account: '6000', dr: 0, cr: 10_000, taxCode: 'GST_ON_EXPENSES', base: -11_000, gst: -1_000, doc: null },
      { account: '1200', dr: 0, cr: 1_000, doc: null },
    ]);
    const contact = await contactOf(o, paid.contactId);
    expect(contact.supplierCreditCents).toBe(11_000);
    expect(contact.credits).toEqual([
      expect.objectContaining({ id: beyond.creditId, side: 'supplier', source: 'adjustment_note', documentId: paid.id }),
    ]);
    // Received back from the supplier: Dr 1000 / Cr 2000 credit.
    const back = await ok(o, 'books.creditRefund', { creditId: beyond.creditId, amountCents: 4_000, date: '2026-09-12' });
    expect(await lines(o, back.journalId)).toEqual([
      { account: '1000', dr: 4_000, cr: 0, doc: null },
      { account: '2000', dr: 0, cr: 4_000, doc: beyond.creditId },
    ]);
    expect(back.creditRemainingCents).toBe(7_000);
    expect(await eventsOf(o, 'books.bill.credit_note')).toHaveLength(3);
    await booksAddUp(o);
  });

  it('a customer prepayment before any invoice, then allocated; bad input is named and changes nothing', async () => {
    const o = await t.org();
    const inv = await sent(o, { totalCents: 22_000 });
    const other = await sent(o, { payeeName: 'Another Customer', totalCents: 22_000 });
    const bill = await approvedBill(t, o, TIMBER);
    const pre = await ok(o, 'books.creditPrepayment', { contactId: inv.contactId, side: 'customer', amountCents: 30_000 });
    expect(await lines(o, pre.journalId)).toEqual([
      { account: '1000', dr: 30_000, cr: 0, doc: null },
      { account: '1100', dr: 0, cr: 30_000, doc: pre.id },
    ]);
    const before = (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;
    const cases: [string, Record<string, unknown>, number, string][] = [
      ['books.creditAllocate', { creditId: 'crd_missing', documentId: inv.id }, 404, 'creditId'],
      ['books.creditAllocate', { creditId: pre.id, documentId: other.id }, 400, 'documentId'],
      ['books.creditAllocate', { creditId: pre.id, documentId: bill.id }, 400, 'documentId'],
      ['books.creditAllocate', { creditId: pre.id, documentId: 'inv_missing' }, 404, 'documentId'],
      ['books.creditAllocate', { creditId: pre.id, documentId: inv.id, amountCents: 25_000 }, 400, 'amountCents'],
      ['books.creditAllocate', { creditId: pre.id, documentId: inv.id, date: '2999-01-01' }, 400, 'date'],
      ['books.creditRefund', { creditId: pre.id, amountCents: 30_001 }, 400, 'amountCents'],
      ['books.creditRefund', { creditId: pre.id, accountCode: '4000' }, 400, 'accountCode'],
      ['books.creditRefund', { creditId: 'crd_missing' }, 404, 'creditId'],
      ['books.creditPrepayment', { contactId: 'con_missing', side: 'customer', amountCents: 100 }, 404, 'contactId'],
      ['books.creditPrepayment', { contactId: inv.contactId, side: 'vendor', amountCents: 100 }, 400, 'side'],
      ['books.creditPrepayment', { contactId: inv.contactId, side: 'customer', amountCents: 0 }, 400, 'amountCents'],
      ['books.billCreditNote', { id: bill.id, amountCents: 77_001, reason: 'x' }, 400, 'amountCents'],
      ['books.billCreditNote', { id: bill.id, amountCents: 100, reason: 'x', taxCode: 'GST_FREE_EXPENSES' }, 400, 'taxCode'],
      ['books.invoiceCreditNote', { id: inv.id, amountCents: 22_001, reason: 'x' }, 400, 'amountCents'],
    ];
    for (const [method, params, status, field] of cases) {
      const r = await post(o, method, params);
      expect(r.status, `${method} ${JSON.stringify(params)} ${JSON.stringify(r.body)}`).toBe(status);
      expect(r.body.error.field, JSON.stringify(r.body)).toBe(field);
    }
    expect((await t.get(o.keys.observer, 'snapshot')).body.head.seq).toBe(before);
    // A draft bill takes no adjustment note; a paid invoice takes no allocation.
    const captured = await ok(o, 'books.billCapture', { ...TIMBER, dueDays: 30 });
    expect((await post(o, 'books.billCreditNote', { id: captured.id, amountCents: 100, reason: 'x' })).status).toBe(409);

    // $300 of credit on a $220 invoice: the default takes $220, leaving $80.
    const alloc = await ok(o, 'books.creditAllocate', { creditId: pre.id, documentId: inv.id });
    expect(alloc).toMatchObject({ amountCents: 22_000, creditRemainingCents: 8_000, status: 'paid', outstandingCents: 0 });
    const paidAgain = await post(o, 'books.creditAllocate', {
      creditId: pre.id,
      documentId: (await sent(o, { totalCents: 100, payeeName: 'Harbour Cafe' })).id,
      amountCents: 8_001,
    });
    expect(paidAgain.status).toBe(400);
    expect(paidAgain.body.error.field).toBe('amountCents');
    expect((await contactOf(o, inv.contactId)).customerCreditCents).toBe(8_000);
    await booksAddUp(o);
  });

  it('a bill with an adjustment note cannot be returned, even once it owes its total again (the note reversed $100 of 6000 already)', async () => {
    const o = await t.org();
    const bill = await approvedBill(t, o, TIMBER);
    // Paid in full by a bank line ($770, under the materiality floor), then a $110 note: all of it a supplier credit.
    const feed = await ok(o, 'books.feedLines', { lines: [{ date: bill.issuedOn, amountCents: -77_000, description: 'Coastal Timber' }] });
    const lineId = feed.lineIds[0] as string;
    await ok(o, 'books.matchAccept', { lineId, target: { kind: 'bill', id: bill.id }, amountCents: 77_000 });
    const note = await ok(o, 'books.billCreditNote', { id: bill.id, amountCents: 11_000, reason: 'Warped' });
    expect(note).toMatchObject({ status: 'paid', outstandingCents: 0, creditCents: 11_000 });
    // The match undone: the bill owes its $770 again, and the supplier's $110 credit stays.
    await ok(o, 'books.lineUnmatch', { lineId });
    const owed = await ok(o, 'books.bills', { status: 'approved' });
    expect(owed.bills.find((b: any) => b.id === bill.id)?.outstandingCents).toBe(77_000);
    // Returning it would reverse all $700 of 6000 and $70 of GST again, on top of the note's $100 and $10.
    const before = (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;
    const refused = await post(o, 'books.billReturn', { id: bill.id, reason: 'Not ours' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error.message).toContain('adjustment note');
    expect((await t.get(o.keys.observer, 'snapshot')).body.head.seq).toBe(before);
    const expense = await t.db.reader.get<{ n: unknown }>(
      "SELECT SUM(debit_cents - credit_cents) AS n FROM journal_lines WHERE org_id = ? AND account_code = '6000'",
      [o.orgId],
    );
    // $700 of timber less the note's $100.
    expect(Number(expense?.n)).toBe(60_000);
    expect((await contactOf(o, bill.contactId)).supplierCreditCents).toBe(11_000);
    await booksAddUp(o);
  });
});
