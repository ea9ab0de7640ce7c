/**
 * Other currencies through HTTP, on every engine: the owner's exchange rates table, invoices in
 * NZD and their payments. Figures by hand (rates are AUD per one NZD, six places):
 * - an NZD 1,000.00 export invoice at 0.910000: AUD 100000 × 0.91 = 91000 cents (Dr 1100 / Cr 4000,
 *   EXPORT, GST 0); paid in full at 0.925000: the bank gets 100000 × 0.925 = 92500, 1100 gives up
 *   the 91000 it carries, and 92500 − 91000 = 1500 is a realised gain (Cr 4400);
 * - an NZD 750.01 invoice (lines 500.00 on 4000 and 250.01 on 4200, EXPORT) at 0.913333:
 *   75001 × 0.913333 = 68500.888… → 68501; the nets share it by largest remainder:
 *   68501 × 50000 / 75001 = 45666.72… and 68501 × 25001 / 75001 = 22834.27…, floors 45666 + 22834
 *   = 68500, the cent left goes to the larger remainder: 45667 and 22834;
 *   NZD 400.00 paid at 0.880000: bank 35200, settled at the invoice's rate 40000 × 0.913333 =
 *   36533.32 → 36533, a loss of 36533 − 35200 = 1333 (Dr 4400); the rest, NZD 350.01 at 0.900000:
 *   bank 35001 × 0.9 = 31500.9 → 31501, settling all 68501 − 36533 = 31968 still carried, a loss of
 *   31968 − 31501 = 467. Received 35200 + 31501 = 66701 against 68501 posted: 1800 lost in all.
 * - an NZD 1,100.00 invoice with GST at 0.900000: total 110000 × 0.9 = 99000, GST 10000 × 0.9 =
 *   9000, net 90000 (the BAS reads G1 99000 and 1A 9000).
 * - a USD 2,000.00 bill (GST-free) at 1.523456: 200000 × 1.523456 = 304691.2 → 304691 (Dr 6000 /
 *   Cr 2000); USD 1,000.00 paid at 1.500000: the bank pays 150000, 2000 gives up 100000 × 1.523456 =
 *   152345.6 → 152346, a gain of 152346 − 150000 = 2346 (Cr 4400); the rest, USD 1,000.00 at
 *   1.550000: the bank pays 155000 for the 304691 − 152346 = 152345 still carried, a loss of 2655
 *   (Dr 4400). Paid 150000 + 155000 = 305000 for 304691 carried: 309 lost in all (2346 − 2655).
 * - a USD 4,000.00 bill at 1.5 is AUD 6,000.00, above the $5,000 approval floor: held ABOVE_FLOOR,
 *   though 400000 cents is below it.
 * - an NZD 1,100.00 bill with GST at 0.900000: Cr 2000 99000, Dr 1200 9000, Dr 6000 90000.
 * - revalued on 10 October (NZD 0.925000, USD 1.600000): the NZD 1,000.00 invoice carried at 91000
 *   is 92500, +1500 (Dr 1100); the USD 2,000.00 bill carried at 304691 is 200000 × 1.6 = 320000,
 *   15309 more owed (Cr 2000); net 1500 − 15309 = −13809, a loss (Dr 4400), all reversed on the
 *   11th. The invoice paid on the 12th at 0.930000 (93000) settles the 91000 it was posted at: a
 *   realised gain of 2000, and 1100 holds nothing for it once the reversal is in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleGet, consoleSignIn } from './console-helpers.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, FUNDING, journalLines } from './payables-helpers.js';

const TODAY = '2026-10-15';
const NOW = `${TODAY}T02:00:00.000Z`;
const EXPORT = { payeeName: 'Wellington Traders', description: 'Export order', dueDays: 30, currency: 'NZD', taxCode: 'EXPORT' };
const RATES = [
  { currency: 'NZD', date: '2026-10-01', rate: '0.91' },
  { currency: 'NZD', date: '2026-10-10', rate: '0.925' },
  { currency: 'USD', date: '2026-10-01', rate: '1.523456' },
];

describe.each(engines)('other currencies (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => NOW });
  });
  afterAll(async () => t.close());

  const { post, ok, seq, lastEvent } = agentCalls(() => t);

  const lines = async (o: CreatedOrg, journalId: string) =>
    (await journalLines(t, o.orgId, journalId)).map((l) => ({
      account: l.account_code,
      dr: l.debit_cents,
      cr: l.credit_cents,
      ...(l.tax_code ? { taxCode: l.tax_code, base: l.tax_base_cents, gst: l.gst_cents } : {}),
      ...(l.doc_id ? { doc: l.doc_id } : {}),
    }));
  const report = async (o: CreatedOrg, params: Record<string, unknown>) => {
    const r = await t.post(o.keys.reader, 'books.reports', params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const balanceOf = async (o: CreatedOrg, code: string) => {
    const r = await t.post(o.keys.reader, 'books.accounts', {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body.result.accounts as any[]).find((a) => a.code === code)?.balanceCents;
  };
  const refused = async (o: CreatedOrg, method: string, params: Record<string, unknown>, code: string, message: RegExp) => {
    const before = await seq(o);
    const r = await post(o, method, params);
    expect(r.body.error?.code, JSON.stringify(r.body)).toBe(code);
    expect(r.body.error.message).toMatch(message);
    expect(await seq(o)).toBe(before);
    return r.body.error;
  };
  async function balanced(o: CreatedOrg) {
    const tb = await report(o, { type: 'trial_balance' });
    expect(tb.totals.debitCents).toBe(tb.totals.creditCents);
  }
  async function sentNzd(o: CreatedOrg, params: Record<string, unknown>) {
    const d = await ok(o, 'books.invoiceDraft', { ...EXPORT, ...params });
    return ok(o, 'books.invoiceSend', { id: d.id });
  }

  it('keeps the rates the owner sets, exactly, and answers them by currency and dates', async () => {
    const o = await t.org();
    const set = await ok(o, 'books.exchangeRateSet', { rates: RATES });
    expect(set.rates).toEqual([
      { currency: 'NZD', date: '2026-10-01', rate: '0.910000', changed: true },
      { currency: 'NZD', date: '2026-10-10', rate: '0.925000', changed: true },
      { currency: 'USD', date: '2026-10-01', rate: '1.523456', changed: true },
    ]);
    const event = await lastEvent(o);
    expect(event.kind).toBe('books.exchangeRate.set');
    expect(event.payload.rates[2]).toEqual({ currency: 'USD', date: '2026-10-01', rate: '1.523456', previousRate: null });
    // The same rates again: nothing written.
    const before = await seq(o);
    expect(await ok(o, 'books.exchangeRateSet', { rates: RATES })).toMatchObject({ ledgerId: null, noop: true });
    expect(await seq(o)).toBe(before);
    // One changed: only it is in the event, with what it was.
    await ok(o, 'books.exchangeRateSet', { rates: [{ currency: 'NZD', date: '2026-10-10', rate: '0.93' }, RATES[0]] });
    expect((await lastEvent(o)).payload.rates).toEqual([
      { currency: 'NZD', date: '2026-10-10', rate: '0.930000', previousRate: '0.925000' },
    ]);

    const all = await ok(o, 'books.exchangeRates', {});
    expect(all.rates.map((r: any) => `${r.currency} ${r.date} ${r.rate}`)).toEqual([
      'NZD 2026-10-10 0.930000',
      'NZD 2026-10-01 0.910000',
      'USD 2026-10-01 1.523456',
    ]);
    expect(all.truncated).toBe(false);
    const some = await ok(o, 'books.exchangeRates', { currency: 'NZD', from: '2026-10-02', to: '2026-10-31' });
    expect(some.rates.map((r: any) => r.date)).toEqual(['2026-10-10']);
    const one = await ok(o, 'books.exchangeRates', { limit: 1 });
    expect(one).toMatchObject({ rates: [{ currency: 'NZD', date: '2026-10-10' }], truncated: true });
  });

  it('refuses a bad rates table naming the field, and changes nothing', async () => {
    const o = await t.org();
    const row = { currency: 'NZD', date: '2026-10-01', rate: '0.91' };
    const field = async (rates: unknown[], path: string) => {
      const e = await refused(o, 'books.exchangeRateSet', { rates }, 'BAD_REQUEST', /./);
      expect(JSON.stringify(e)).toContain(path);
    };
    await field([{ ...row, currency: 'AUD' }], 'rates[0].currency');
    await field([{ ...row, currency: 'nzd' }], 'rates[0].currency');
    await field([{ ...row, currency: 'NZDX' }], 'rates[0].currency');
    await field([{ ...row, rate: '0.9123456' }], 'rates[0].rate');
    await field([{ ...row, rate: '0' }], 'rates[0].rate');
    await field([{ ...row, rate: '-1.2' }], 'rates[0].rate');
    await field([{ ...row, rate: '1e-3' }], 'rates[0].rate');
    await field([{ ...row, rate: 0.91 }], 'rates[0].rate');
    await field([{ ...row, date: '2026-02-30' }], 'rates[0].date');
    await field([row, { ...row, rate: '0.92' }], 'rates[1].date');
    await field([], 'rates');
    const year = Array.from({ length: 367 }, (_, i) => ({ ...row, date: new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10) }));
    await field(year, 'rates');
    expect((await ok(o, 'books.exchangeRates', {})).rates).toEqual([]);
    await refused(o, 'books.exchangeRates', { currency: 'AUD' }, 'BAD_REQUEST', /currency/);
    await refused(o, 'books.exchangeRates', { limit: 367 }, 'BAD_REQUEST', /limit/);
  });

  it('posts an NZD export invoice in AUD at its rate and realises the gain when paid at another', async () => {
    const o = await t.org();
    await ok(o, 'books.exchangeRateSet', { rates: RATES });
    const draft = await ok(o, 'books.invoiceDraft', {
      ...EXPORT,
      totalCents: 100_000,
      issueDate: '2026-10-01',
      payeeEmail: 'accounts@wellington.example',
    });
    expect(draft).toMatchObject({ currency: 'NZD', exchangeRate: '0.910000', totalCents: 100_000, audTotalCents: 91_000, audGstCents: 0 });
    expect((await lastEvent(o)).payload).toMatchObject({ currency: 'NZD', exchangeRate: '0.910000' });
    const sent = await ok(o, 'books.invoiceSend', { id: draft.id });
    expect(sent).toMatchObject({ status: 'sent', outstandingCents: 100_000, audOutstandingCents: 91_000 });
    expect((await lastEvent(o)).payload).toMatchObject({ currency: 'NZD', audTotalCents: 91_000, audGstCents: 0 });
    // The email names the currency: "$" alone would read as AUD.
    const mail = await t.db.reader.get<{ body: string }>("SELECT body FROM outbox WHERE org_id = ? AND channel = 'email'", [o.orgId]);
    expect(mail?.body).toContain('NZD $1,000.00');
    expect(await lines(o, sent.journalId)).toEqual([
      { account: '1100', dr: 91_000, cr: 0, doc: draft.id },
      { account: '4000', dr: 0, cr: 91_000, taxCode: 'EXPORT', base: 91_000, gst: 0 },
    ]);
    // The owner's pages show the invoice in its currency, and what the books carry in AUD.
    const owner = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const list = await consoleGet(t, owner, '/console/books/invoices');
    expect(list.text).toContain('<td class="num">NZD 1,000.00</td>');
    const page = await consoleGet(t, owner, `/console/books/invoices/${draft.id}`);
    expect(page.text).toContain('<dt>Total</dt><dd>NZD 1,000.00 (GST NZD 0.00)</dd>');
    expect(page.text).toContain('<dt>In Australian dollars</dt><dd>$910.00 at 0.910000 per NZD, $910.00 still carried</dd>');
    // Paid in full on 10 October: the table's rate that day, 0.925000.
    const paid = await ok(o, 'books.invoiceRecordPayment', { id: draft.id, amountCents: 100_000, date: '2026-10-10', reference: 'NZ-1' });
    expect(paid).toMatchObject({
      status: 'paid',
      outstandingCents: 0,
      currency: 'NZD',
      exchangeRate: '0.925000',
      audAmountCents: 92_500,
      audSettledCents: 91_000,
      audGainCents: 1_500,
    });
    expect(await lines(o, paid.journalId)).toEqual([
      { account: '1000', dr: 92_500, cr: 0 },
      { account: '1100', dr: 0, cr: 91_000, doc: draft.id },
      { account: '4400', dr: 0, cr: 1_500 },
    ]);
    expect((await lastEvent(o)).payload).toMatchObject({
      amountCents: 100_000,
      outstandingCents: 0,
      currency: 'NZD',
      exchangeRate: '0.925000',
      invoiceExchangeRate: '0.910000',
      audAmountCents: 92_500,
      audSettledCents: 91_000,
      audGainCents: 1_500,
    });
    // The same reference again: a no-op answering the same figures.
    const again = await ok(o, 'books.invoiceRecordPayment', { id: draft.id, amountCents: 100_000, date: '2026-10-10', reference: 'NZ-1' });
    expect(again).toMatchObject({ noop: true, paymentId: paid.paymentId, audGainCents: 1_500 });
    const read = await ok(o, 'books.invoice', { id: draft.id });
    expect(read).toMatchObject({ currency: 'NZD', exchangeRate: '0.910000', outstandingCents: 0, audOutstandingCents: 0 });
    expect(read.payments).toEqual([
      expect.objectContaining({ amountCents: 100_000, exchangeRate: '0.925000', audAmountCents: 92_500, audSettledCents: 91_000 }),
    ]);
    const listed = await ok(o, 'books.invoices', {});
    expect(listed.invoices[0]).toMatchObject({ currency: 'NZD', audTotalCents: 91_000, outstandingCents: 0, audOutstandingCents: 0 });
    expect(await balanceOf(o, '4400')).toBe(1_500);
    expect(await balanceOf(o, '1100')).toBe(0);
    // The BAS reads AUD: an export of 91000 in G1 and G2.
    const bas = await report(o, { type: 'gst_summary', from: '2026-10-01', to: '2026-12-31' });
    expect(bas.exactCents).toMatchObject({ G1: 91_000, G2: 91_000 });
    await balanced(o);
  });

  it('shares the AUD over the lines to the cent and realises a loss part by part', async () => {
    const o = await t.org();
    const inv = await sentNzd(o, {
      totalCents: 75_001,
      issueDate: '2026-10-01',
      exchangeRate: '0.913333',
      lines: [
        { description: 'Goods', amountCents: 50_000 },
        { description: 'Freight', amountCents: 25_001, accountCode: '4200' },
      ],
    });
    expect(inv).toMatchObject({ audTotalCents: 68_501, exchangeRate: '0.913333' });
    expect(await lines(o, inv.journalId)).toEqual([
      { account: '1100', dr: 68_501, cr: 0, doc: inv.id },
      { account: '4000', dr: 0, cr: 45_667, taxCode: 'EXPORT', base: 45_667, gst: 0 },
      { account: '4200', dr: 0, cr: 22_834, taxCode: 'EXPORT', base: 22_834, gst: 0 },
    ]);
    const first = await ok(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 40_000, date: '2026-10-05', exchangeRate: '0.88' });
    expect(first).toMatchObject({
      status: 'part_paid',
      outstandingCents: 35_001,
      audAmountCents: 35_200,
      audSettledCents: 36_533,
      audGainCents: -1_333,
    });
    expect(await lines(o, first.journalId)).toEqual([
      { account: '1000', dr: 35_200, cr: 0 },
      { account: '1100', dr: 0, cr: 36_533, doc: inv.id },
      { account: '4400', dr: 1_333, cr: 0 },
    ]);
    expect(await ok(o, 'books.invoice', { id: inv.id })).toMatchObject({ outstandingCents: 35_001, audOutstandingCents: 31_968 });
    const rest = await ok(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 35_001, date: '2026-10-12', exchangeRate: '0.9' });
    expect(rest).toMatchObject({
      status: 'paid',
      outstandingCents: 0,
      audAmountCents: 31_501,
      audSettledCents: 31_968,
      audGainCents: -467,
    });
    expect(await balanceOf(o, '1100')).toBe(0);
    // A loss on a revenue account: its balance is negative, −1333 − 467 = −1800.
    expect(await balanceOf(o, '4400')).toBe(-1_800);
    expect(await balanceOf(o, '1000')).toBe(66_701);
    await balanced(o);
  });

  it('converts GST once for the BAS', async () => {
    const o = await t.org();
    const inv = await sentNzd(o, { totalCents: 110_000, taxCode: 'GST', issueDate: '2026-10-02', exchangeRate: '0.9' });
    expect(inv).toMatchObject({ gstCents: 10_000, audTotalCents: 99_000, audGstCents: 9_000 });
    expect(await lines(o, inv.journalId)).toEqual([
      { account: '1100', dr: 99_000, cr: 0, doc: inv.id },
      { account: '4000', dr: 0, cr: 90_000, taxCode: 'GST', base: 99_000, gst: 9_000 },
      { account: '2100', dr: 0, cr: 9_000 },
    ]);
    const bas = await report(o, { type: 'gst_summary', from: '2026-10-01', to: '2026-12-31' });
    expect(bas.exactCents).toMatchObject({ G1: 99_000 });
    expect(bas.front['1A']).toBe(90);
    await balanced(o);
  });

  it('takes a rate at most 7 days old from the table, else refuses naming exchangeRate', async () => {
    const o = await t.org();
    const missing = await refused(
      o,
      'books.invoiceDraft',
      { ...EXPORT, totalCents: 1_000 },
      'BAD_REQUEST',
      /no NZD rate.*books\.exchangeRateSet/,
    );
    expect(missing.field).toBe('exchangeRate');
    await ok(o, 'books.exchangeRateSet', { rates: [{ currency: 'NZD', date: '2026-09-24', rate: '0.9' }] });
    // 1 October: 24 September is 7 days before, still taken; 2 October it is 8: refused.
    expect(await ok(o, 'books.invoiceDraft', { ...EXPORT, totalCents: 1_000, issueDate: '2026-10-01' })).toMatchObject({
      exchangeRate: '0.900000',
    });
    await refused(
      o,
      'books.invoiceDraft',
      { ...EXPORT, totalCents: 1_000, issueDate: '2026-10-02' },
      'BAD_REQUEST',
      /latest on or before it is of 2026-09-24/,
    );
    // A payment needs its own day's rate the same way.
    const inv = await sentNzd(o, { totalCents: 1_000, issueDate: '2026-10-01' });
    const e = await refused(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 500 }, 'BAD_REQUEST', /exchangeRate/);
    expect(e.field).toBe('exchangeRate');
  });

  it('refuses what it does not do with a foreign invoice, naming why', async () => {
    const o = await t.org();
    await refused(
      o,
      'books.invoiceDraft',
      { ...EXPORT, currency: 'AUD', exchangeRate: '1', totalCents: 1_000 },
      'BAD_REQUEST',
      /exchangeRate/,
    );
    await refused(o, 'books.invoiceDraft', { ...EXPORT, currency: 'nzd', exchangeRate: '1', totalCents: 1_000 }, 'BAD_REQUEST', /currency/);
    const inv = await sentNzd(o, { totalCents: 10_000, issueDate: '2026-10-01', exchangeRate: '0.91' });
    const pay = { id: inv.id, exchangeRate: '0.92' };
    await refused(
      o,
      'books.invoiceRecordPayment',
      { ...pay, amountCents: 10_001 },
      'BAD_REQUEST',
      /amountCents: 10001 is more than the 10000 NZD cents/,
    );
    await refused(
      o,
      'books.invoiceRecordPayment',
      { ...pay, amountCents: 10_001, excess: 'credit' },
      'BAD_REQUEST',
      /excess: .*AUD invoices only/,
    );
    await refused(
      o,
      'books.invoiceCreditNote',
      { id: inv.id, amountCents: 100, reason: 'Discount' },
      'CONFLICT',
      /is in NZD: a credit note is for AUD invoices only/,
    );
    await refused(o, 'books.invoiceWriteOff', { id: inv.id, reason: 'Gone' }, 'CONFLICT', /is in NZD: a write-off/);
    // A customer's credit is AUD: not allocated to an NZD invoice.
    const deposit = await ok(o, 'books.creditPrepayment', {
      contactId: inv.contactId,
      side: 'customer',
      amountCents: 5_000,
      reference: 'DEP',
    });
    await refused(o, 'books.creditAllocate', { creditId: deposit.id, documentId: inv.id }, 'CONFLICT', /is in NZD: allocating a credit/);
    // An AUD invoice takes no exchange rate.
    const aud = await ok(o, 'books.invoiceDraft', { payeeName: 'Local', description: 'Sale', totalCents: 1_100, dueDays: 7 });
    await ok(o, 'books.invoiceSend', { id: aud.id });
    await refused(
      o,
      'books.invoiceRecordPayment',
      { id: aud.id, amountCents: 100, exchangeRate: '1' },
      'BAD_REQUEST',
      /exchangeRate: .* is in AUD/,
    );
    expect(aud.currency).toBeUndefined();
  });

  it('voids a sent foreign invoice by reversing its AUD posting', async () => {
    const o = await t.org();
    const inv = await sentNzd(o, { totalCents: 33_333, issueDate: '2026-10-01', exchangeRate: '0.333333' });
    // 33333 × 0.333333 = 11110.98… → 11111.
    expect(inv.audTotalCents).toBe(11_111);
    const voided = await ok(o, 'books.invoiceVoid', { id: inv.id, reason: 'Raised in error' });
    expect(await lines(o, voided.voidJournalId)).toEqual([
      { account: '1100', dr: 0, cr: 11_111, doc: inv.id },
      { account: '4000', dr: 11_111, cr: 0, taxCode: 'EXPORT', base: -11_111, gst: 0 },
    ]);
    expect(await balanceOf(o, '1100')).toBe(0);
    await balanced(o);
  });

  it('gives existing organisations 4400 Foreign exchange gains and losses', async () => {
    const o = await t.org();
    const r = await t.post(o.keys.reader, 'books.accounts', {});
    expect((r.body.result.accounts as any[]).find((a) => a.code === '4400')).toMatchObject({
      name: 'Foreign exchange gains and losses',
      type: 'revenue',
    });
  });

  it('posts a foreign bill in AUD, holds it by its AUD total, and realises differences as it is paid', async () => {
    const o = await t.org();
    await ok(o, 'books.exchangeRateSet', { rates: RATES });
    const supplier = { payeeName: 'Seattle Tools Inc', description: 'Tools', currency: 'USD', taxCode: 'GST_FREE_EXPENSES' };
    const bill = await approvedBill(t, o, { ...supplier, totalCents: 200_000, issueDate: '2026-10-01' });
    expect(bill).toMatchObject({ status: 'approved', currency: 'USD', exchangeRate: '1.523456', audTotalCents: 304_691, audGstCents: 0 });
    expect(await lines(o, bill.journalId)).toEqual([
      { account: '6000', dr: 304_691, cr: 0, taxCode: 'GST_FREE_EXPENSES', base: 304_691, gst: 0 },
      { account: '2000', dr: 0, cr: 304_691, doc: bill.id },
    ]);
    const first = await ok(o, 'books.billRecordPayment', {
      id: bill.id,
      amountCents: 100_000,
      date: '2026-10-03',
      exchangeRate: '1.5',
      reference: 'W-1',
    });
    expect(first).toMatchObject({
      status: 'approved',
      outstandingCents: 100_000,
      audAmountCents: 150_000,
      audSettledCents: 152_346,
      audGainCents: 2_346,
    });
    expect(await lines(o, first.journalId)).toEqual([
      { account: '2000', dr: 152_346, cr: 0, doc: bill.id },
      { account: '1000', dr: 0, cr: 150_000 },
      { account: '4400', dr: 0, cr: 2_346 },
    ]);
    expect((await lastEvent(o)).payload).toMatchObject({
      currency: 'USD',
      exchangeRate: '1.500000',
      billExchangeRate: '1.523456',
      audGainCents: 2_346,
    });
    const again = await ok(o, 'books.billRecordPayment', { id: bill.id, amountCents: 100_000, date: '2026-10-03', reference: 'W-1' });
    expect(again).toMatchObject({ noop: true, paymentId: first.paymentId });
    await refused(
      o,
      'books.billRecordPayment',
      { id: bill.id, amountCents: 100_001, exchangeRate: '1.5' },
      'BAD_REQUEST',
      /100000 USD cents outstanding/,
    );
    const listed = (await ok(o, 'books.bills', {})).bills.find((b: any) => b.id === bill.id);
    expect(listed).toMatchObject({ outstandingCents: 100_000, audOutstandingCents: 152_345 });
    // A payment run pays AUD by ABA: refused naming the bill and the way to pay it.
    await refused(
      o,
      'books.billScheduleRun',
      { funding: FUNDING, billIds: [bill.id], paymentDate: TODAY },
      'CONFLICT',
      /is in USD: a payment run \(ABA\) pays AUD bills only/,
    );
    const rest = await ok(o, 'books.billRecordPayment', { id: bill.id, amountCents: 100_000, date: '2026-10-05', exchangeRate: '1.55' });
    expect(rest).toMatchObject({
      status: 'paid',
      outstandingCents: 0,
      audAmountCents: 155_000,
      audSettledCents: 152_345,
      audGainCents: -2_655,
    });
    expect(await balanceOf(o, '2000')).toBe(0);
    expect(await balanceOf(o, '4400')).toBe(-309);
    await refused(o, 'books.billRecordPayment', { id: bill.id, amountCents: 1, exchangeRate: '1.5' }, 'CONFLICT', /is paid/);
    await balanced(o);
  });

  it('compares a foreign bill with the approval floor in AUD, posts its GST in AUD, and refuses what it does not do', async () => {
    const o = await t.org();
    const held = await ok(o, 'books.billCapture', {
      payeeName: 'Big Machines',
      description: 'Press',
      totalCents: 400_000,
      dueDays: 30,
      currency: 'USD',
      exchangeRate: '1.5',
      taxCode: 'GST_FREE_EXPENSES',
    });
    expect(held).toMatchObject({ status: 'held', heldReason: 'ABOVE_FLOOR', audTotalCents: 600_000 });
    const local = await ok(o, 'books.billCapture', { payeeName: 'Small Shop', description: 'Parts', totalCents: 400_000, dueDays: 30 });
    expect(local.heldReason).toBe('NEW_PAYEE');
    const gst = await approvedBill(t, o, {
      payeeName: 'Auckland Parts',
      description: 'Parts',
      totalCents: 110_000,
      currency: 'NZD',
      exchangeRate: '0.9',
    });
    expect(await lines(o, gst.journalId)).toEqual([
      { account: '6000', dr: 90_000, cr: 0, taxCode: 'GST_ON_EXPENSES', base: 99_000, gst: 9_000 },
      { account: '1200', dr: 9_000, cr: 0 },
      { account: '2000', dr: 0, cr: 99_000, doc: gst.id },
    ]);
    await refused(
      o,
      'books.billCreditNote',
      { id: gst.id, amountCents: 1_100, reason: 'Short' },
      'CONFLICT',
      /is in NZD: an adjustment note/,
    );
    await refused(
      o,
      'books.billCapture',
      {
        payeeName: 'Auckland Parts',
        description: 'Lathe',
        totalCents: 110_000,
        dueDays: 30,
        currency: 'NZD',
        exchangeRate: '0.9',
        taxCode: 'GST_ON_CAPITAL',
      },
      'BAD_REQUEST',
      /account 1500/,
    );
    const aud = await approvedBill(t, o, { payeeName: 'Small Shop', description: 'More parts', totalCents: 1_100 });
    await refused(o, 'books.billRecordPayment', { id: aud.id, amountCents: 100 }, 'CONFLICT', /is in AUD: pay it in a payment run/);
    // Returning a foreign bill with no payments reverses its AUD posting.
    const returned = await ok(o, 'books.billReturn', { id: gst.id, reason: 'Wrong order' });
    expect(returned.status).toBe('returned');
    expect(await balanceOf(o, '1200')).toBe(100);
    await balanced(o);
  });

  it('revalues open foreign documents at a date and reverses it the next day', async () => {
    const o = await t.org();
    await ok(o, 'books.exchangeRateSet', { rates: [...RATES, { currency: 'USD', date: '2026-10-10', rate: '1.6' }] });
    const inv = await sentNzd(o, { totalCents: 100_000, issueDate: '2026-10-01' });
    const bill = await approvedBill(t, o, {
      payeeName: 'Seattle Tools Inc',
      description: 'Tools',
      totalCents: 200_000,
      currency: 'USD',
      taxCode: 'GST_FREE_EXPENSES',
      issueDate: '2026-10-01',
    });
    await refused(o, 'books.currencyRevalue', { date: '2026-10-09' }, 'BAD_REQUEST', /^date: no NZD rate/);
    await refused(o, 'books.currencyRevalue', { date: '2026-10-16' }, 'BAD_REQUEST', /in the future/);
    const r = await ok(o, 'books.currencyRevalue', { date: '2026-10-10' });
    expect(r).toMatchObject({ date: '2026-10-10', reversalDate: '2026-10-11', audGainCents: -13_809 });
    expect(r.documents).toEqual([
      expect.objectContaining({
        kind: 'invoice',
        id: inv.id,
        outstandingCents: 100_000,
        audCarriedCents: 91_000,
        audRevaluedCents: 92_500,
        audDifferenceCents: 1_500,
      }),
      expect.objectContaining({
        kind: 'bill',
        id: bill.id,
        exchangeRate: '1.600000',
        audCarriedCents: 304_691,
        audRevaluedCents: 320_000,
        audDifferenceCents: 15_309,
      }),
    ]);
    expect(await lines(o, r.journalId)).toEqual([
      { account: '1100', dr: 1_500, cr: 0, doc: inv.id },
      { account: '2000', dr: 0, cr: 15_309, doc: bill.id },
      { account: '4400', dr: 13_809, cr: 0 },
    ]);
    expect(await lines(o, r.reversalJournalId)).toEqual([
      { account: '1100', dr: 0, cr: 1_500, doc: inv.id },
      { account: '2000', dr: 15_309, cr: 0, doc: bill.id },
      { account: '4400', dr: 0, cr: 13_809 },
    ]);
    expect((await lastEvent(o)).kind).toBe('books.currency.revalue');
    const asAt = async (asOf: string) =>
      ((await t.post(o.keys.reader, 'books.accounts', { asOf })).body.result.accounts as any[]).find((a) => a.code === '4400').balanceCents;
    expect(await asAt('2026-10-10')).toBe(-13_809);
    expect(await asAt('2026-10-11')).toBe(0);
    // The same date again: a no-op.
    const before = await seq(o);
    expect(await ok(o, 'books.currencyRevalue', { date: '2026-10-10' })).toMatchObject({ noop: true, journalId: r.journalId });
    expect(await seq(o)).toBe(before);
    // Paid after it: the whole difference from the posted 91000 is realised, nothing stays on 1100.
    const paid = await ok(o, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 100_000, date: '2026-10-12', exchangeRate: '0.93' });
    expect(paid).toMatchObject({ audAmountCents: 93_000, audSettledCents: 91_000, audGainCents: 2_000 });
    expect(await ok(o, 'books.invoice', { id: inv.id })).toMatchObject({ status: 'paid', audOutstandingCents: 0 });
    await balanced(o);
  });
});
