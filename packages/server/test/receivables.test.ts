import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import { accountBalanceCents, newJournalId } from '../src/domain/gl/post.js';
import { allocateSaleGst } from '../src/domain/receivables/invoice-lines.js';
import { applyInvoicePayment, openInvoicesAsOf } from '../src/domain/receivables/ledger-api.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { inUnitOfWork } from '../src/write-path.js';
import { migration } from '../src/domain/receivables/migration.js';
import { engines, refusal, openTestDatabase, startTestServer, type TestServer } from './harness.js';
import { freshKey } from './signature-helpers.js';
import { testFixture } from './test-events.js';

// The organisation's today: test organisations keep the default time zone (clock.ts).
const today = () => localDate(new Date().toISOString(), DEFAULT_TIME_ZONE);

/** The worked example of docs/examples/receivables.md: GST, GST-free and input-taxed lines. */
const MIXED = {
  payeeName: 'Harbour Cafe',
  payeeEmail: 'accounts@harbour-cafe.example',
  description: 'November catering and supplies',
  totalCents: 144_462,
  dueDays: 14,
  lines: [
    { description: 'Catering for 40', amountCents: 110_000 },
    { description: 'Fresh fruit boxes', amountCents: 33_000, taxCode: 'GST_FREE' },
    { description: 'Residential sublet, 1 day', amountCents: 1_462, taxCode: 'INPUT_TAXED', accountCode: '4200' },
  ],
};

const SIMPLE = { payeeName: 'Second Street Bakery', description: 'Bread order', totalCents: 110_000, dueDays: 30 };

interface Line {
  account_code: string;
  debit_cents: number;
  credit_cents: number;
  tax_code: string | null;
  tax_base_cents: number;
  gst_cents: number;
  doc_id: string | null;
}

describe.each(engines)('receivables (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const post = (method: string, params: Record<string, unknown>, o: CreatedOrg = org) => t.post(o.keys.agent, method, params);
  const events = async (o: CreatedOrg = org) => (await t.get(o.keys.observer, 'events?limit=500')).body.events as any[];
  const headSeq = async (o: CreatedOrg = org) => (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;

  async function sent(params: Record<string, unknown> = SIMPLE, o: CreatedOrg = org) {
    const d = await post('books.invoiceDraft', params, o);
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    const s = await post('books.invoiceSend', { id: d.body.result.id }, o);
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    return s.body.result;
  }

  async function journalLines(journalId: string, o: CreatedOrg = org): Promise<Line[]> {
    const rows = await t.db.reader.all<Line>(
      `SELECT account_code, debit_cents, credit_cents, tax_code, tax_base_cents, gst_cents, doc_id FROM journal_lines
       WHERE org_id = ? AND journal_id = ? ORDER BY line_no`,
      [o.orgId, journalId],
    );
    return rows.map((r) => ({
      ...r,
      debit_cents: Number(r.debit_cents),
      credit_cents: Number(r.credit_cents),
      tax_base_cents: Number(r.tax_base_cents),
      gst_cents: Number(r.gst_cents),
    }));
  }

  const journal = (id: string, o: CreatedOrg = org) =>
    t.db.reader.get<{ date: string; ledger_id: string; source_kind: string }>(
      'SELECT date, ledger_id, source_kind FROM journals WHERE org_id = ? AND id = ?',
      [o.orgId, id],
    );

  /** Debits equal credits over the whole organisation, and per journal. */
  async function expectTrialBalance(o: CreatedOrg) {
    const rows = await t.db.reader.all<{ journal_id: string; dr: number; cr: number }>(
      'SELECT journal_id, SUM(debit_cents) AS dr, SUM(credit_cents) AS cr FROM journal_lines WHERE org_id = ? GROUP BY journal_id',
      [o.orgId],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(Number(r.dr)).toBe(Number(r.cr));
    const codes = await t.db.reader.all<{ code: string }>('SELECT code FROM accounts WHERE org_id = ?', [o.orgId]);
    let sum = 0;
    for (const c of codes) sum += await accountBalanceCents(t.db.reader, o.orgId, c.code);
    expect(sum).toBe(0);
  }

  const outbox = (o: CreatedOrg) =>
    t.db.reader.all<{ body: string }>("SELECT body FROM outbox WHERE org_id = ? AND channel = 'email' ORDER BY created_at, id", [o.orgId]);

  describe('invoiceDraft with lines', () => {
    it('stores mixed tax codes and computes GST once on the GST lines', async () => {
      const r = await post('books.invoiceDraft', MIXED);
      expect(r.status).toBe(200);
      expect(r.body.result).toMatchObject({
        status: 'draft',
        totalCents: 144_462,
        gstCents: 10_000,
        outstandingCents: 0,
        journalId: null,
        lines: [
          { description: 'Catering for 40', amountCents: 110_000, taxCode: 'GST', accountCode: '4000', gstCents: 10_000 },
          { description: 'Fresh fruit boxes', amountCents: 33_000, taxCode: 'GST_FREE', accountCode: '4000', gstCents: 0 },
          { description: 'Residential sublet, 1 day', amountCents: 1_462, taxCode: 'INPUT_TAXED', accountCode: '4200', gstCents: 0 },
        ],
      });
      const read = await t.post(org.keys.reader, 'books.invoices', { payeeName: 'harbour', status: 'draft' });
      expect(read.body.result.invoices.find((i: { id: string }) => i.id === r.body.result.id)).toMatchObject({
        gstCents: 10_000,
        lines: r.body.result.lines,
      });
    });

    it('the single-line form takes a top-level taxCode; the four basic params alone still work (GST, 4000)', async () => {
      const exp = await post('books.invoiceDraft', { ...SIMPLE, taxCode: 'EXPORT' });
      expect(exp.body.result).toMatchObject({
        gstCents: 0,
        lines: [{ amountCents: 110_000, taxCode: 'EXPORT', accountCode: '4000', gstCents: 0 }],
      });
      const basic = await post('books.invoiceDraft', { ...SIMPLE, totalCents: 1_005 });
      expect(basic.body.result).toMatchObject({
        gstCents: 91,
        lines: [{ description: 'Bread order', amountCents: 1_005, taxCode: 'GST', gstCents: 91 }],
      });
    });

    it('GST is rounded once per invoice; the largest GST line takes the difference', async () => {
      // Each 105 alone is 9.55 → 10 GST; the invoice's 315 is 28.64 → 29, so one line gives a cent back.
      const three = { description: 'Coffee', amountCents: 105 };
      const r = await post('books.invoiceDraft', { ...SIMPLE, totalCents: 315, lines: [three, three, three] });
      expect(r.body.result.gstCents).toBe(29);
      expect(r.body.result.lines.map((l: { gstCents: number }) => l.gstCents)).toEqual([9, 10, 10]);
      // Many cent-sized lines: shares stay within 0..amount and still sum to the invoice's GST.
      const tiny = Array.from({ length: 100 }, () => ({ amountCents: 6, taxCode: 'GST' as const }));
      const shares = allocateSaleGst(tiny);
      expect(shares.reduce((s, g) => s + g, 0)).toBe(55); // round(600 / 11)
      expect(shares.every((g) => g >= 0 && g <= 6)).toBe(true);
    });

    it.each([
      [{ ...MIXED, totalCents: 144_000 }, 'totalCents: must equal the sum of lines (144462)'],
      [{ ...MIXED, lines: [] }, 'lines: must have at least 1 line'],
      [{ ...MIXED, lines: [{ description: 'x', amountCents: 0 }] }, 'lines[0].amountCents: must be an integer greater than 0'],
      [{ ...MIXED, taxCode: 'GST_ON_EXPENSES' }, 'taxCode: must be one of GST, EXPORT, GST_FREE, INPUT_TAXED, BAS_EXCLUDED'],
      [{ ...MIXED, lines: [{ description: 'x', amountCents: 5, bogus: 1 }], totalCents: 5 }, 'bogus'],
    ])('bad input names the field and appends nothing: %#', async (params, message) => {
      const before = await headSeq();
      const r = await post('books.invoiceDraft', params);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('BAD_REQUEST');
      expect(r.body.error.message).toContain(message);
      expect(await headSeq()).toBe(before);
    });

    it('a line account must exist and be a revenue account (BAD_REQUEST naming lines[i].accountCode)', async () => {
      const before = await headSeq();
      const lines = (accountCode: string) => [MIXED.lines[0], { description: 'x', amountCents: 33_000, accountCode }, MIXED.lines[2]];
      const exp = await post('books.invoiceDraft', { ...MIXED, lines: lines('6000') });
      expect(exp.status).toBe(400);
      expect(exp.body.error.message).toBe('lines[1].accountCode: account 6000 is an expense account, not a revenue account');
      const none = await post('books.invoiceDraft', { ...MIXED, lines: lines('4999') });
      expect(none.body.error.message).toBe('lines[1].accountCode: account 4999 does not exist');
      expect(await headSeq()).toBe(before);
    });
  });

  describe('invoiceSend posts the invoice', () => {
    it('Dr 1100 total / Cr revenue net per line with tax tags / Cr 2100 GST; emailed; dated the issue date', async () => {
      const inv = await sent(MIXED);
      expect(inv).toMatchObject({ status: 'sent', issuedOn: today(), outstandingCents: 144_462 });
      expect(await journalLines(inv.journalId)).toEqual([
        { account_code: '1100', debit_cents: 144_462, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: inv.id },
        {
          account_code: '4000',
          debit_cents: 0,
          credit_cents: 100_000,
          tax_code: 'GST',
          tax_base_cents: 110_000,
          gst_cents: 10_000,
          doc_id: null,
        },
        {
          account_code: '4000',
          debit_cents: 0,
          credit_cents: 33_000,
          tax_code: 'GST_FREE',
          tax_base_cents: 33_000,
          gst_cents: 0,
          doc_id: null,
        },
        {
          account_code: '4200',
          debit_cents: 0,
          credit_cents: 1_462,
          tax_code: 'INPUT_TAXED',
          tax_base_cents: 1_462,
          gst_cents: 0,
          doc_id: null,
        },
        { account_code: '2100', debit_cents: 0, credit_cents: 10_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
      ]);
      const j = await journal(inv.journalId);
      expect(j).toMatchObject({ date: inv.issuedOn, ledger_id: inv.ledgerId, source_kind: 'invoice' });
      const ev = (await events()).at(-1);
      expect(ev).toMatchObject({
        kind: 'books.invoice.send',
        entity_id: inv.id,
        payload: { journalId: inv.journalId, totalCents: 144_462, gstCents: 10_000, channel: 'email', recipients: 1 },
      });
      expect(JSON.stringify(ev.payload)).not.toContain('Catering');
      const mail = JSON.parse((await outbox(org)).at(-1)?.body ?? '{}');
      expect(mail).toMatchObject({ to: 'accounts@harbour-cafe.example' });
      expect(mail.subject).toBe(`Tax invoice ${inv.number}: $1,444.62 due ${inv.dueOn}`);
      expect(mail.text).toContain('includes GST of $100.00');
    });

    it('without payeeEmail nothing is emailed; sending again is a no-op with no second posting', async () => {
      const o = await t.org();
      const inv = await sent(SIMPLE, o);
      expect(await outbox(o)).toEqual([]);
      expect((await events(o)).at(-1).payload).toMatchObject({ channel: null, recipients: 0 });
      const again = await post('books.invoiceSend', { id: inv.id }, o);
      expect(again.body.result).toMatchObject({ noop: true, ledgerId: inv.ledgerId, journalId: inv.journalId });
      expect(await accountBalanceCents(t.db.reader, o.orgId, '1100')).toBe(110_000);
      expect(await accountBalanceCents(t.db.reader, o.orgId, '2100')).toBe(-10_000);
    });
  });

  describe('invoiceRecordPayment', () => {
    it('a part payment then the rest: sent → part_paid → paid, Dr 1000 / Cr 1100', async () => {
      const inv = await sent();
      const part = await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 40_000, reference: 'EFT 1001' });
      expect(part.status).toBe(200);
      expect(part.body.result).toMatchObject({
        id: inv.id,
        status: 'part_paid',
        outstandingCents: 70_000,
        date: today(),
        amountCents: 40_000,
      });
      expect(part.body.result.paymentId).toMatch(/^pay_/);
      expect(await journalLines(part.body.result.journalId)).toEqual([
        { account_code: '1000', debit_cents: 40_000, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
        { account_code: '1100', debit_cents: 0, credit_cents: 40_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: inv.id },
      ]);
      expect((await events()).at(-1)).toMatchObject({
        kind: 'books.invoice.payment',
        entity_id: inv.id,
        payload: { amountCents: 40_000, journalId: part.body.result.journalId, outstandingCents: 70_000 },
      });
      const rest = await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 70_000 });
      expect(rest.body.result).toMatchObject({ status: 'paid', outstandingCents: 0, reference: '' });
      const read = await t.post(org.keys.reader, 'books.invoices', { status: 'paid' });
      expect(read.body.result.invoices.find((i: { id: string }) => i.id === inv.id)).toMatchObject({
        outstandingCents: 0,
        ledgerId: rest.body.result.ledgerId,
      });
    });

    it('overpaying is BAD_REQUEST naming amountCents with what is outstanding (and the excess param); nothing changes', async () => {
      const inv = await sent();
      const before = await headSeq();
      const r = await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 110_001 });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe(
        `amountCents: 110001 is more than the 110000 cents outstanding on invoice ${inv.id}; ` +
          "pass excess 'credit' to keep the 1 cents beyond it as a credit on the customer",
      );
      expect(await headSeq()).toBe(before);
    });

    it.each([
      [{ amountCents: 0 }, 'amountCents: must be an integer greater than 0'],
      [{ amountCents: 1.5 }, 'amountCents: must be an integer number of cents'],
      [{ amountCents: 100, date: '2026-02-30' }, 'date: must be a real calendar date'],
      [{ amountCents: 100, date: '2000-01-01' }, 'date: 2000-01-01 is before invoice'],
      [{ amountCents: 100, date: addDays(today(), 1) }, 'is in the future'],
      [{ amountCents: 100, reference: 'x'.repeat(201) }, 'reference: '],
    ])('bad input names the field: %#', async (params, message) => {
      const inv = await sent();
      const before = await headSeq();
      const r = await post('books.invoiceRecordPayment', { id: inv.id, ...params });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain(message);
      expect(await headSeq()).toBe(before);
    });

    it('a draft, paid or void invoice is CONFLICT naming the state; unknown is NOT_FOUND', async () => {
      const d = (await post('books.invoiceDraft', SIMPLE)).body.result;
      const draft = await post('books.invoiceRecordPayment', { id: d.id, amountCents: 100 });
      expect(draft.status).toBe(409);
      expect(draft.body.error.message).toBe(`invoice ${d.id} is draft; only a sent or part_paid invoice can take a payment`);
      const paid = await sent();
      await post('books.invoiceRecordPayment', { id: paid.id, amountCents: 110_000 });
      const again = await post('books.invoiceRecordPayment', { id: paid.id, amountCents: 1 });
      expect(again.body.error.message).toMatch(/is paid; only a sent or part_paid invoice/);
      await post('books.invoiceVoid', { id: d.id, reason: 'duplicate' });
      expect((await post('books.invoiceRecordPayment', { id: d.id, amountCents: 1 })).body.error.message).toMatch(/is void;/);
      const none = await post('books.invoiceRecordPayment', { id: 'inv_nope', amountCents: 1 });
      expect(none.body.error).toEqual({ code: 'NOT_FOUND', message: 'invoice inv_nope not found' });
    });

    it('the same reference again is a no-op with the first ledgerId; with another amount CONFLICT', async () => {
      const inv = await sent();
      const first = await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 110_000, reference: 'EFT 77' });
      const seq = await headSeq();
      const again = await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 110_000, reference: 'EFT 77' });
      expect(again.status).toBe(200);
      expect(again.body.result).toMatchObject({
        noop: true,
        paymentId: first.body.result.paymentId,
        ledgerId: first.body.result.ledgerId,
        status: 'paid',
      });
      const other = await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 5, reference: 'EFT 77' });
      expect(other.status).toBe(409);
      expect(other.body.error.message).toContain(`already has payment ${first.body.result.paymentId} with reference EFT 77`);
      expect(await headSeq()).toBe(seq);
    });

    it('a reader key is FORBIDDEN_SCOPE', async () => {
      const r = await t.post(org.keys.reader, 'books.invoiceRecordPayment', { id: 'inv_x', amountCents: 1 });
      expect(r.status).toBe(403);
    });
  });

  describe('ledger API for reconciliation', () => {
    it('applyInvoicePayment posts under the caller’s event and emits none; openInvoicesAsOf reads the ledger', async () => {
      const o = await t.org();
      const a = await sent({ ...SIMPLE, payeeName: 'Apex Gym' }, o);
      const b = await sent({ ...SIMPLE, payeeName: 'Bay Books', totalCents: 5_000 }, o);
      const res = await inUnitOfWork(t.db, o.orgId, '', async (uow) => {
        const journalId = newJournalId();
        const { record, ...applied } = await applyInvoicePayment(uow, {
          invoiceId: a.id,
          amountCents: 10_000,
          date: today(),
          reference: 'BANK 9',
          journalId,
        });
        const ev = await uow.emit(testFixture, { entityId: a.id, payload: null });
        await record(ev.ledgerId);
        return { ...applied, journalId, ledgerId: ev.ledgerId };
      });
      expect(res).toMatchObject({ status: 'part_paid', outstandingCents: 100_000 });
      expect(res.paymentId).toMatch(/^pay_/);
      expect(await journal(res.journalId, o)).toMatchObject({ ledger_id: res.ledgerId, source_kind: 'invoice_payment' });
      expect((await events(o)).filter((e) => e.kind === testFixture.kind)).toHaveLength(1);
      const open = await openInvoicesAsOf(t.db.reader, o.orgId, today());
      expect(open).toEqual([
        {
          id: a.id,
          kind: 'invoice',
          party: 'Apex Gym',
          reference: a.id,
          quoted: [a.number],
          issuedOn: today(),
          postedOn: today(),
          dueOn: a.dueOn,
          totalCents: 110_000,
          outstandingCents: 100_000,
        },
        {
          id: b.id,
          kind: 'invoice',
          party: 'Bay Books',
          reference: b.id,
          quoted: [b.number],
          issuedOn: today(),
          postedOn: today(),
          dueOn: b.dueOn,
          totalCents: 5_000,
          outstandingCents: 5_000,
        },
      ]);
      expect(await openInvoicesAsOf(t.db.reader, o.orgId, addDays(today(), -1))).toEqual([]);
      const over = inUnitOfWork(t.db, o.orgId, '', async (uow) => {
        const { record, ...applied } = await applyInvoicePayment(uow, {
          invoiceId: b.id,
          amountCents: 5_001,
          date: today(),
          reference: '',
          journalId: newJournalId(),
        });
        await record((await uow.emit(testFixture, { entityId: b.id, payload: null })).ledgerId);
        return applied;
      });
      await expect(over).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/^amountCents: 5001 is more than the 5000/),
      });
      await expectTrialBalance(o);
    });
  });

  describe('invoiceCreditNote', () => {
    it('a partial credit of the dominant code: Dr revenue net (tags negative) / Dr 2100 / Cr 1100', async () => {
      const inv = await sent(MIXED);
      const r = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 22_000, reason: '8 meals not served' });
      expect(r.status).toBe(200);
      expect(r.body.result).toMatchObject({
        taxCode: 'GST',
        gstCents: 2_000,
        accountCode: '4000',
        status: 'sent',
        outstandingCents: 122_462,
        issuedOn: today(),
      });
      expect(r.body.result.creditNoteId).toMatch(/^cn_/);
      expect(await journalLines(r.body.result.journalId)).toEqual([
        {
          account_code: '4000',
          debit_cents: 20_000,
          credit_cents: 0,
          tax_code: 'GST',
          tax_base_cents: -22_000,
          gst_cents: -2_000,
          doc_id: null,
        },
        { account_code: '2100', debit_cents: 2_000, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
        { account_code: '1100', debit_cents: 0, credit_cents: 22_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: inv.id },
      ]);
      expect((await events()).at(-1)).toMatchObject({
        kind: 'books.invoice.credit',
        entity_id: inv.id,
        payload: { gstCents: 2_000, status: 'sent' },
      });
      const free = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 3_300, reason: 'bruised fruit', taxCode: 'GST_FREE' });
      expect(free.body.result).toMatchObject({ gstCents: 0, taxCode: 'GST_FREE' });
    });

    it('fully credited → credited; credited to zero after a payment → paid', async () => {
      const a = await sent();
      const r = await post('books.invoiceCreditNote', { id: a.id, amountCents: 110_000, reason: 'order cancelled' });
      expect(r.body.result).toMatchObject({ status: 'credited', outstandingCents: 0, gstCents: 10_000 });
      const b = await sent();
      await post('books.invoiceRecordPayment', { id: b.id, amountCents: 100_000 });
      const rest = await post('books.invoiceCreditNote', { id: b.id, amountCents: 10_000, reason: 'early payment discount' });
      expect(rest.body.result).toMatchObject({ status: 'paid', outstandingCents: 0, gstCents: 909 });
      const list = (await t.post(org.keys.reader, 'books.invoices', { status: 'credited' })).body.result.invoices;
      expect(list.map((i: { id: string }) => i.id)).toContain(a.id);
    });

    it('the credit that clears a code takes what is left of its GST, so rounding never over-reverses', async () => {
      const inv = await sent({ ...SIMPLE, totalCents: 66 }); // GST 6
      for (let k = 0; k < 10; k += 1) {
        const r = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 6, reason: `slice ${k}` });
        expect(r.status).toBe(200);
      }
      const last = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 6, reason: 'slice 10' });
      expect(last.body.result).toMatchObject({ status: 'credited', outstandingCents: 0 });
      const rows = await t.db.reader.all<{ g: number }>(
        'SELECT gst_cents AS g FROM invoice_credit_notes WHERE org_id = ? AND invoice_id = ?',
        [org.orgId, inv.id],
      );
      expect(rows.reduce((s, r) => s + Number(r.g), 0)).toBe(6);
    });

    it('more than is left of that code is BAD_REQUEST naming the field (beyond what is outstanding makes a credit)', async () => {
      const inv = await sent(MIXED);
      await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 140_000 });
      const before = await headSeq();
      const over = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 110_001, reason: 'x' });
      expect(over.status).toBe(400);
      expect(over.body.error.message).toBe(
        `amountCents: 110001 is more than the 110000 cents of GST supplies left to credit on invoice ${inv.id}`,
      );
      const code = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 1_463, reason: 'x', taxCode: 'INPUT_TAXED' });
      expect(code.body.error.message).toBe(
        `amountCents: 1463 is more than the 1462 cents of INPUT_TAXED supplies left to credit on invoice ${inv.id}`,
      );
      const missing = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 100, reason: 'x', taxCode: 'EXPORT' });
      expect(missing.body.error.message).toBe(
        `taxCode: invoice ${inv.id} has no EXPORT line; credit one of its codes (GST, GST_FREE, INPUT_TAXED)`,
      );
      const noReason = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 100 });
      expect(noReason.body.error.message).toMatch(/^reason: /);
      expect(await headSeq()).toBe(before);
    });

    it('the same credit note again is a no-op; a draft or void invoice is CONFLICT', async () => {
      const inv = await sent();
      const first = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 1_100, reason: 'damaged loaf' });
      const seq = await headSeq();
      const again = await post('books.invoiceCreditNote', { id: inv.id, amountCents: 1_100, reason: 'damaged loaf' });
      expect(again.body.result).toMatchObject({
        noop: true,
        creditNoteId: first.body.result.creditNoteId,
        ledgerId: first.body.result.ledgerId,
      });
      expect(await headSeq()).toBe(seq);
      const d = (await post('books.invoiceDraft', SIMPLE)).body.result;
      const draft = await post('books.invoiceCreditNote', { id: d.id, amountCents: 1, reason: 'x' });
      expect(draft.status).toBe(409);
      expect(draft.body.error.message).toBe(`invoice ${d.id} is draft; only a sent, part_paid or paid invoice can be credited`);
    });
  });

  describe('invoiceVoid', () => {
    it('a draft is voided without posting; voiding again is a no-op with the void ledgerId', async () => {
      const d = (await post('books.invoiceDraft', SIMPLE)).body.result;
      const v = await post('books.invoiceVoid', { id: d.id, reason: 'raised twice' });
      expect(v.body.result).toMatchObject({ status: 'void', voidReason: 'raised twice', voidJournalId: null, journalId: null });
      const again = await post('books.invoiceVoid', { id: d.id, reason: 'other words' });
      expect(again.body.result).toMatchObject({ noop: true, ledgerId: v.body.result.ledgerId, voidReason: 'raised twice' });
      expect((await post('books.invoiceSend', { id: d.id })).body.error.message).toBe(
        `invoice ${d.id} is void; only a draft invoice can be sent`,
      );
    });

    it('an untouched sent invoice is voided by a reversing journal dated today', async () => {
      const o = await t.org();
      const inv = await sent(MIXED, o);
      const v = await post('books.invoiceVoid', { id: inv.id, reason: 'wrong customer' }, o);
      expect(v.status).toBe(200);
      expect(v.body.result).toMatchObject({ status: 'void', outstandingCents: 0 });
      expect(await journalLines(v.body.result.voidJournalId, o)).toEqual([
        { account_code: '1100', debit_cents: 0, credit_cents: 144_462, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: inv.id },
        {
          account_code: '4000',
          debit_cents: 100_000,
          credit_cents: 0,
          tax_code: 'GST',
          tax_base_cents: -110_000,
          gst_cents: -10_000,
          doc_id: null,
        },
        {
          account_code: '4000',
          debit_cents: 33_000,
          credit_cents: 0,
          tax_code: 'GST_FREE',
          tax_base_cents: -33_000,
          gst_cents: 0,
          doc_id: null,
        },
        {
          account_code: '4200',
          debit_cents: 1_462,
          credit_cents: 0,
          tax_code: 'INPUT_TAXED',
          tax_base_cents: -1_462,
          gst_cents: 0,
          doc_id: null,
        },
        { account_code: '2100', debit_cents: 10_000, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
      ]);
      expect((await journal(v.body.result.voidJournalId, o))?.date).toBe(today());
      for (const code of ['1100', '2100', '4000', '4200']) expect(await accountBalanceCents(t.db.reader, o.orgId, code)).toBe(0);
      expect((await events(o)).at(-1)).toMatchObject({ kind: 'books.invoice.void', payload: { from: 'sent', reason: 'wrong customer' } });
    });

    it('an invoice with payments or credit notes is CONFLICT naming why; paid names the state', async () => {
      const a = await sent();
      await post('books.invoiceRecordPayment', { id: a.id, amountCents: 100 });
      const pa = await post('books.invoiceVoid', { id: a.id, reason: 'x' });
      expect(pa.status).toBe(409);
      expect(pa.body.error.message).toBe(
        `invoice ${a.id} is part_paid; only a draft or a sent invoice with no payments or credit notes can be voided`,
      );
      const b = await sent();
      await post('books.invoiceCreditNote', { id: b.id, amountCents: 200, reason: 'x' });
      const cr = await post('books.invoiceVoid', { id: b.id, reason: 'x' });
      expect(cr.body.error.message).toBe(`invoice ${b.id} has credit notes of 200 cents; credit the rest instead of voiding it`);
      const bad = await post('books.invoiceVoid', { id: b.id });
      expect(bad.body.error.message).toMatch(/^reason: /);
    });

    it('an invoice sent before invoices were posted (no journal) voids without posting and cannot be paid', async () => {
      const o = await t.org();
      const inv = await sent(SIMPLE, o);
      // What migration 4 leaves for an invoice sent under the earlier schema: status sent, no journal.
      await t.db.write(async (tx) => {
        await tx.run('DELETE FROM journal_lines WHERE org_id = ? AND journal_id = ?', [o.orgId, inv.journalId]);
        await tx.run('DELETE FROM journals WHERE org_id = ? AND id = ?', [o.orgId, inv.journalId]);
        await tx.run('UPDATE invoices SET journal_id = NULL WHERE org_id = ? AND id = ?', [o.orgId, inv.id]);
      });
      const pay = await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 100 }, o);
      expect(pay.status).toBe(409);
      expect(pay.body.error.message).toContain('was sent before invoices were posted');
      const listed = (await t.post(o.keys.reader, 'books.invoices', {})).body.result.invoices[0];
      expect(listed.outstandingCents).toBe(110_000);
      const v = await post('books.invoiceVoid', { id: inv.id, reason: 'superseded' }, o);
      expect(v.body.result).toMatchObject({ status: 'void', voidJournalId: null });
    });
  });

  describe('invoicePromise', () => {
    it('each call records a promise and appends books.invoice.promise (a new act)', async () => {
      const inv = await sent();
      const on = addDays(today(), 7);
      const first = await post('books.invoicePromise', { id: inv.id, promisedOn: on, note: 'owner on leave until next week' });
      expect(first.body.result).toMatchObject({ id: inv.id, promisedOn: on, amountCents: 110_000, outstandingCents: 110_000 });
      expect(first.body.result.promiseId).toMatch(/^prm_/);
      const ev = (await events()).at(-1);
      expect(ev).toMatchObject({
        kind: 'books.invoice.promise',
        entity_id: inv.id,
        payload: { promisedOn: on, amountCents: 110_000, hasNote: true },
      });
      expect(JSON.stringify(ev.payload)).not.toContain('leave');
      const second = await post('books.invoicePromise', { id: inv.id, promisedOn: today(), amountCents: 50_000 });
      expect(second.body.result.ledgerId).not.toBe(first.body.result.ledgerId);
      const key = freshKey();
      const replay1 = await t.post(org.keys.agent, 'books.invoicePromise', { id: inv.id, promisedOn: on }, { 'x-idempotency-key': key });
      const seq = await headSeq();
      const replay2 = await t.post(org.keys.agent, 'books.invoicePromise', { id: inv.id, promisedOn: on }, { 'x-idempotency-key': key });
      expect(replay2.body).toMatchObject({ code: 'IDEMPOTENT_REPLAY', result: replay1.body.result });
      expect(await headSeq()).toBe(seq);
      const rows = await t.db.reader.all('SELECT id FROM invoice_promises WHERE org_id = ? AND invoice_id = ?', [org.orgId, inv.id]);
      expect(rows).toHaveLength(3);
    });

    it('a past date or more than is outstanding is BAD_REQUEST; a draft is CONFLICT', async () => {
      const inv = await sent();
      const before = await headSeq();
      const past = await post('books.invoicePromise', { id: inv.id, promisedOn: addDays(today(), -1) });
      expect(past.body.error.message).toBe(`promisedOn: must be today (${today()}) or later`);
      const over = await post('books.invoicePromise', { id: inv.id, promisedOn: today(), amountCents: 110_001 });
      expect(over.body.error.message).toBe(`amountCents: 110001 is more than the 110000 cents outstanding on invoice ${inv.id}`);
      const bad = await post('books.invoicePromise', { id: inv.id, promisedOn: 'soon' });
      expect(bad.body).toEqual(refusal('BAD_REQUEST', 'promisedOn: must be a date YYYY-MM-DD'));
      const d = (await post('books.invoiceDraft', SIMPLE)).body.result;
      const draft = await post('books.invoicePromise', { id: d.id, promisedOn: today() });
      expect(draft.status).toBe(409);
      expect(draft.body.error.message).toBe(`invoice ${d.id} is draft; only a sent or part_paid invoice can take a promise to pay`);
      expect(await headSeq()).toBe(before + 1); // only the draft
    });
  });

  describe('statementRun', () => {
    it('a statement per customer with open invoices; emails those with an address; a new act each run', async () => {
      const o = await t.org();
      const a1 = await sent({ ...SIMPLE, payeeName: 'Apex Gym', payeeEmail: 'ap@apex.example' }, o);
      const a2 = await sent({ ...SIMPLE, payeeName: 'Apex Gym', totalCents: 5_500 }, o);
      const b = await sent({ ...SIMPLE, payeeName: 'Bay Books', totalCents: 2_200 }, o);
      const paid = await sent({ ...SIMPLE, payeeName: 'Cove Dental', payeeEmail: 'cove@dental.example' }, o);
      await post('books.invoiceRecordPayment', { id: paid.id, amountCents: 110_000 }, o);
      await post('books.invoiceRecordPayment', { id: a1.id, amountCents: 10_000 }, o);
      const mailsBefore = (await outbox(o)).length;
      const r = await post('books.statementRun', {}, o);
      expect(r.status).toBe(200);
      expect(r.body.result).toMatchObject({
        asOf: today(),
        statements: [
          {
            payeeName: 'Apex Gym',
            openCents: 105_500,
            emailed: true,
            invoices: [
              { id: a1.id, totalCents: 110_000, outstandingCents: 100_000, issuedOn: today(), dueOn: a1.dueOn },
              { id: a2.id, totalCents: 5_500, outstandingCents: 5_500 },
            ],
          },
          { payeeName: 'Bay Books', openCents: 2_200, emailed: false, invoices: [{ id: b.id }] },
        ],
      });
      const mails = (await outbox(o)).slice(mailsBefore).map((m) => JSON.parse(m.body));
      expect(mails).toHaveLength(1);
      expect(mails[0]).toMatchObject({ to: 'ap@apex.example', subject: `Statement as at ${today()}: $1,055.00 owing` });
      const ev = (await events(o)).at(-1);
      expect(ev).toMatchObject({
        kind: 'books.statement.run',
        entity_id: r.body.result.runId,
        payload: { customers: 2, invoices: 3, openCents: 107_700, channel: 'email', recipients: 1, payeeName: null },
      });
      const again = await post('books.statementRun', { payeeName: 'bay books' }, o);
      expect(again.body.result.statements).toEqual([
        {
          payeeName: 'Bay Books',
          openCents: 2_200,
          emailed: false,
          invoices: [{ id: b.id, issuedOn: today(), dueOn: b.dueOn, totalCents: 2_200, outstandingCents: 2_200 }],
        },
      ]);
      expect(again.body.result.ledgerId).not.toBe(r.body.result.ledgerId);
      const yesterday = await post('books.statementRun', { asOf: addDays(today(), -1) }, o);
      expect(yesterday.body.result.statements).toEqual([]);
      await expectTrialBalance(o);
    });

    it('a future asOf or an unknown field is BAD_REQUEST; a reader key is FORBIDDEN_SCOPE', async () => {
      const before = await headSeq();
      const future = await post('books.statementRun', { asOf: addDays(today(), 1) });
      expect(future.body.error.message).toBe(`asOf: must be today (${today()}) or earlier`);
      const unknown = await post('books.statementRun', { customer: 'x' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.message).toContain('customer');
      expect((await t.post(org.keys.reader, 'books.statementRun', {})).status).toBe(403);
      expect(await headSeq()).toBe(before);
    });
  });

  describe('books.invoices read', () => {
    it('filters by status, payeeName and dueBefore, pages by cursor, shows outstanding', async () => {
      const o = await t.org();
      const soon = await sent({ ...SIMPLE, payeeName: 'Dune Surf', dueDays: 3 }, o);
      const later = await sent({ ...SIMPLE, payeeName: 'Dune Surf', dueDays: 60 }, o);
      const draft = (await post('books.invoiceDraft', { ...SIMPLE, payeeName: 'Elm St 100%' }, o)).body.result;
      await post('books.invoiceRecordPayment', { id: later.id, amountCents: 30_000 }, o);
      const read = (params: Record<string, unknown>) => t.post(o.keys.reader, 'books.invoices', params);
      const all = (await read({})).body.result;
      expect(all.invoices.map((i: { id: string }) => i.id)).toEqual([soon.id, later.id, draft.id]);
      expect(all.invoices.map((i: { outstandingCents: number }) => i.outstandingCents)).toEqual([110_000, 80_000, 0]);
      expect(all.nextCursor).toBeNull();
      expect((await read({ status: 'part_paid' })).body.result.invoices.map((i: { id: string }) => i.id)).toEqual([later.id]);
      expect((await read({ payeeName: '100%' })).body.result.invoices.map((i: { id: string }) => i.id)).toEqual([draft.id]);
      expect(
        (await read({ payeeName: 'DUNE', dueBefore: addDays(today(), 10) })).body.result.invoices.map((i: { id: string }) => i.id),
      ).toEqual([soon.id]);
      const p1 = (await read({ limit: 2 })).body.result;
      expect(p1.nextCursor).toBe(later.id);
      const p2 = (await read({ limit: 2, cursor: p1.nextCursor })).body.result;
      expect(p2).toMatchObject({ invoices: [{ id: draft.id }], nextCursor: null });
      // A cursor is the last id of this organisation's previous page; anything else is named.
      const foreign = (await post('books.invoiceDraft', SIMPLE)).body.result.id;
      for (const cursor of [foreign, 'inv_nosuchinvoice']) {
        const r = await read({ cursor });
        expect(r.status).toBe(400);
        expect(r.body.error).toEqual({
          code: 'BAD_REQUEST',
          field: 'cursor',
          message: `cursor: no invoice ${cursor} in this organisation; pass the nextCursor of a previous page`,
        });
      }
      const seq = await headSeq(o);
      expect((await read({ limit: 201 })).body.error.message).toBe('limit: must be an integer from 1 to 200');
      expect((await read({ status: 'open' })).body.error.message).toMatch(/^status: /);
      expect((await t.post(o.keys.observer, 'books.invoices', {})).status).toBe(403);
      expect(await headSeq(o)).toBe(seq);
    });
  });

  describe('migration 4', () => {
    it('backfills one GST line on 4000 and the GST (half up, integer SQL) for invoices drafted before it', async () => {
      const { db, drop } = await openTestDatabase(engine);
      try {
        await db.migrate();
        // A row as the earlier schema wrote it: no lines, no GST. 1,005 / 11 = 91.36 → 91; 1,012 / 11 = 92.
        await db.write(async (tx) => {
          for (const [id, total] of [
            ['inv_old1', 1_005],
            ['inv_old2', 1_012],
            ['inv_old3', 6],
          ] as const) {
            await tx.run(
              `INSERT INTO invoices (org_id, id, status, payee_name, description, total_cents, due_days, created_at, ledger_id)
               VALUES ('org_legacy', ?, 'draft', 'Old Customer', 'Old work', ?, 7, '2026-01-01T00:00:00.000Z', 'abcd1234')`,
              [id, total],
            );
          }
          const backfill = migration.statements.filter((sql) => /^(UPDATE invoices|INSERT INTO invoice_lines)/.test(sql.trim()));
          expect(backfill).toHaveLength(2);
          for (const sql of backfill) await tx.run(sql);
        });
        const rows = await db.reader.all<{
          id: string;
          gst: number;
          line_gst: number;
          amount: number;
          tax_code: string;
          account_code: string;
        }>(
          `SELECT i.id AS id, i.gst_cents AS gst, l.gst_cents AS line_gst, l.amount_cents AS amount, l.tax_code AS tax_code, l.account_code AS account_code
           FROM invoices i JOIN invoice_lines l ON l.org_id = i.org_id AND l.invoice_id = i.id
           WHERE i.org_id = 'org_legacy' ORDER BY i.id`,
        );
        expect(rows.map((r) => [r.id, Number(r.gst), Number(r.line_gst), Number(r.amount), r.tax_code, r.account_code])).toEqual([
          ['inv_old1', 91, 91, 1_005, 'GST', '4000'],
          ['inv_old2', 92, 92, 1_012, 'GST', '4000'],
          ['inv_old3', 1, 1, 6, 'GST', '4000'],
        ]);
      } finally {
        await db.close();
        await drop();
      }
    });
  });

  describe('every receivables write refuses bad input and illegal states without changing anything', () => {
    const statusOf = async (id: string) =>
      (await t.db.reader.get<{ status: string }>('SELECT status FROM invoices WHERE org_id = ? AND id = ?', [org.orgId, id]))?.status;

    it('bad input is BAD_REQUEST naming the field, exactly; no event, no change', async () => {
      const inv = await sent();
      const d = (await post('books.invoiceDraft', SIMPLE)).body.result;
      const receivable = await accountBalanceCents(t.db.reader, org.orgId, '1100');
      const before = await headSeq();
      const cases: [string, Record<string, unknown>, string][] = [
        ['books.invoiceDraft', { ...SIMPLE, dueDays: -1 }, 'dueDays: must be an integer of at least 0'],
        ['books.invoiceDraft', { ...SIMPLE, totalCents: 10.5 }, 'totalCents: must be an integer number of cents'],
        ['books.invoiceDraft', { ...SIMPLE, payeeEmail: 'not-an-address' }, 'payeeEmail: must be an email address'],
        ['books.invoiceSend', {}, 'id: is required'],
        ['books.invoiceSend', { id: 'inv 1' }, 'id: must be an id (letters, digits, _ and -)'],
        ['books.invoiceSend', { id: d.id, dueDays: 3 }, 'dueDays: unknown field'],
        ['books.invoiceChaseStep', { id: inv.id }, 'step: is required'],
        ['books.invoiceChaseStep', { id: inv.id, step: 1.5 }, 'step: must be an integer'],
        // A bound names the bound, not the type: 11 and 10^15 are integers, only too large.
        ['books.invoiceChaseStep', { id: inv.id, step: 11 }, 'step: must be an integer of at most 10'],
        [
          'books.invoiceDraft',
          { ...SIMPLE, totalCents: 1_000_000_000_001, dueDays: 3_651 },
          'totalCents: must be at most 1000000000000; dueDays: must be an integer of at most 3650',
        ],
        ['books.invoiceRecordPayment', { id: inv.id }, 'amountCents: is required'],
        ['books.invoiceRecordPayment', { id: inv.id, amountCents: 100, date: '2026-1-5' }, 'date: must be a date YYYY-MM-DD'],
        ['books.invoiceCreditNote', { id: inv.id, amountCents: -5, reason: 'x' }, 'amountCents: must be an integer greater than 0'],
        [
          'books.invoiceCreditNote',
          { id: inv.id, amountCents: 110_001, reason: 'x' },
          `amountCents: 110001 is more than the 110000 cents of GST supplies left to credit on invoice ${inv.id}`,
        ],
        ['books.invoiceVoid', { id: d.id }, 'reason: is required'],
        ['books.invoiceVoid', { id: d.id, reason: '' }, 'reason: must not be empty'],
        ['books.invoicePromise', { id: inv.id }, 'promisedOn: is required'],
        ['books.invoicePromise', { id: inv.id, promisedOn: today(), amountCents: 0 }, 'amountCents: must be an integer greater than 0'],
        ['books.statementRun', { asOf: '2026-02-30' }, 'asOf: must be a real calendar date'],
        ['books.statementRun', { payeeName: '' }, 'payeeName: must not be empty'],
      ];
      for (const [method, params, message] of cases) {
        const r = await post(method, params);
        expect(r.status, `${method} ${JSON.stringify(params)}`).toBe(400);
        expect(r.body, method).toEqual(refusal('BAD_REQUEST', message));
      }
      expect(await headSeq()).toBe(before);
      expect([await statusOf(inv.id), await statusOf(d.id)]).toEqual(['sent', 'draft']);
      expect(await accountBalanceCents(t.db.reader, org.orgId, '1100')).toBe(receivable);
    });

    it('illegal states are CONFLICT naming the state; no event, no change', async () => {
      const d = (await post('books.invoiceDraft', SIMPLE)).body.result;
      const v = (await post('books.invoiceDraft', SIMPLE)).body.result;
      await post('books.invoiceVoid', { id: v.id, reason: 'raised twice' });
      const paid = await sent();
      await post('books.invoiceRecordPayment', { id: paid.id, amountCents: 110_000 });
      const part = await sent();
      await post('books.invoiceRecordPayment', { id: part.id, amountCents: 10_000 });
      const receivable = await accountBalanceCents(t.db.reader, org.orgId, '1100');
      const before = await headSeq();
      const cases: [string, Record<string, unknown>, string][] = [
        ['books.invoiceSend', { id: v.id }, `invoice ${v.id} is void; only a draft invoice can be sent`],
        ['books.invoiceSend', { id: paid.id }, `invoice ${paid.id} is paid; only a draft invoice can be sent`],
        [
          'books.invoiceRecordPayment',
          { id: d.id, amountCents: 100 },
          `invoice ${d.id} is draft; only a sent or part_paid invoice can take a payment`,
        ],
        [
          'books.invoiceRecordPayment',
          { id: v.id, amountCents: 100 },
          `invoice ${v.id} is void; only a sent or part_paid invoice can take a payment`,
        ],
        [
          'books.invoiceCreditNote',
          { id: v.id, amountCents: 1, reason: 'x' },
          `invoice ${v.id} is void; only a sent, part_paid or paid invoice can be credited`,
        ],
        [
          'books.invoiceVoid',
          { id: part.id, reason: 'x' },
          `invoice ${part.id} is part_paid; only a draft or a sent invoice with no payments or credit notes can be voided`,
        ],
        [
          'books.invoicePromise',
          { id: v.id, promisedOn: today() },
          `invoice ${v.id} is void; only a sent or part_paid invoice can take a promise to pay`,
        ],
        ['books.invoiceChaseStep', { id: paid.id, step: 1 }, `invoice ${paid.id} is paid; only a sent or part_paid invoice can be chased`],
        ['books.invoiceChaseStep', { id: part.id, step: 2 }, `invoice ${part.id}: step 2 needs step 1 first; last step done is none`],
      ];
      for (const [method, params, message] of cases) {
        const r = await post(method, params);
        expect(r.status, `${method} ${JSON.stringify(params)}`).toBe(409);
        expect(r.body, method).toEqual(refusal('CONFLICT', message));
      }
      expect(await headSeq()).toBe(before);
      expect(await Promise.all([d.id, v.id, paid.id, part.id].map(statusOf))).toEqual(['draft', 'void', 'paid', 'part_paid']);
      expect(await accountBalanceCents(t.db.reader, org.orgId, '1100')).toBe(receivable);
    });

    it('another organisation’s invoice is NOT_FOUND for every write, and is untouched', async () => {
      const inv = await sent();
      const other = await t.org();
      const before = await headSeq();
      const otherBefore = await headSeq(other);
      const cases: [string, Record<string, unknown>][] = [
        ['books.invoiceSend', { id: inv.id }],
        ['books.invoiceChaseStep', { id: inv.id, step: 1 }],
        ['books.invoiceRecordPayment', { id: inv.id, amountCents: 100 }],
        ['books.invoiceCreditNote', { id: inv.id, amountCents: 100, reason: 'x' }],
        ['books.invoiceVoid', { id: inv.id, reason: 'x' }],
        ['books.invoicePromise', { id: inv.id, promisedOn: today() }],
      ];
      for (const [method, params] of cases) {
        const r = await post(method, params, other);
        expect(r.status, method).toBe(404);
        expect(r.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: `invoice ${inv.id} not found` } });
      }
      expect([await headSeq(), await headSeq(other)]).toEqual([before, otherBefore]);
      expect(await statusOf(inv.id)).toBe('sent');
    });
  });

  describe('chase and the ledger together', () => {
    it('a part_paid invoice can be chased for what is outstanding', async () => {
      const inv = await sent({ ...SIMPLE, payeeEmail: 'a@b.example' });
      await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 60_000 });
      const r = await post('books.invoiceChaseStep', { id: inv.id, step: 1, early: true });
      expect(r.body.result).toMatchObject({ id: inv.id, step: 1 });
      const mail = JSON.parse((await outbox(org)).at(-1)?.body ?? '{}');
      expect(mail.subject).toBe(`Friendly reminder: invoice ${inv.number} for $500.00`);
      // The reminder says what is still outstanding of a part-paid invoice, not that it is unpaid.
      expect(mail.text).toContain(
        `Our records show $500.00 of invoice ${inv.number} (total $1,100.00), due on ${inv.dueOn}, is still outstanding.`,
      );
      expect(mail.text).not.toContain('not yet paid');
      expect((await events()).at(-1).payload).toMatchObject({ outstandingCents: 50_000, totalCents: 110_000 });
      // The escalation a human approves names the real state and what is left, never "unpaid".
      const held = await post('books.invoiceChaseStep', { id: inv.id, step: 2 });
      expect(held.body.result.status).toBe('approval_required');
      expect(held.body.result.approval.subject.summary).toBe(
        `Send dunning step 2 (Second notice) for invoice ${inv.id} to "Second Street Bakery" <a@b.example> ` +
          `(part_paid: $500.00 outstanding of $1,100.00, due ${inv.dueOn})`,
      );
    });

    it('a sent invoice with nothing paid is chased as unpaid; a paid one is CONFLICT naming its state', async () => {
      const inv = await sent({ ...SIMPLE, payeeEmail: 'a@b.example' });
      expect((await post('books.invoiceChaseStep', { id: inv.id, step: 1, early: true })).body.result).toMatchObject({
        id: inv.id,
        step: 1,
      });
      const mail = JSON.parse((await outbox(org)).at(-1)?.body ?? '{}');
      expect(mail.text).toContain(
        `Our records show $1,100.00 of invoice ${inv.number} (total $1,100.00), due on ${inv.dueOn}, is not yet paid.`,
      );
      const held = await post('books.invoiceChaseStep', { id: inv.id, step: 2 });
      expect(held.body.result.approval.subject.summary).toBe(
        `Send dunning step 2 (Second notice) for invoice ${inv.id} to "Second Street Bakery" <a@b.example> ` +
          `(sent, unpaid: $1,100.00 outstanding, due ${inv.dueOn})`,
      );
      await post('books.invoiceRecordPayment', { id: inv.id, amountCents: 110_000 });
      const before = await headSeq();
      const r = await post('books.invoiceChaseStep', { id: inv.id, step: 2 });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({
        ok: false,
        error: { code: 'CONFLICT', message: `invoice ${inv.id} is paid; only a sent or part_paid invoice can be chased` },
      });
      expect(await headSeq()).toBe(before);
    });

    it('the organisation’s trial balance still balances and 1100 equals what invoices say is owed', async () => {
      await expectTrialBalance(org);
      const invoices: { outstandingCents: number; status: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = (await t.post(org.keys.reader, 'books.invoices', { limit: 200, ...(cursor ? { cursor } : {}) })).body.result;
        invoices.push(...page.invoices);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const owed = invoices.reduce((s, i) => s + i.outstandingCents, 0);
      expect(await accountBalanceCents(t.db.reader, org.orgId, '1100')).toBe(owed);
      const open = await openInvoicesAsOf(t.db.reader, org.orgId, today());
      expect(open.reduce((s, i) => s + i.outstandingCents, 0)).toBe(owed);
    });
  });
});
