import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountBalanceCents } from '../src/domain/gl/post.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, bank, FUNDING, inDays, journalLines, today } from './payables-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

/** The binding the write path adds for a journal the event posted (protocol bindings.ts). */
const bound = (id: string) => ({ id, date: today(), linesSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

/**
 * Corrections, through HTTP on both engines: books.lineUnmatch,
 * books.invoicePaymentDishonour, books.billPaymentReturn, books.journalReverse — each its
 * postings, the document's state, its one event, the no-op when repeated and its refusals.
 */

describe.each(engines)('corrections (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const post = (method: string, params: unknown, o: CreatedOrg = org) => t.post(o.keys.agent, method, params);
  const ok = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const events = async (o: CreatedOrg = org) => (await t.get(o.keys.observer, 'events?limit=500')).body.events as any[];
  const lastEvent = async (o: CreatedOrg = org) => (await events(o)).at(-1);
  const balance = (code: string, o: CreatedOrg = org) => accountBalanceCents(t.db.reader, o.orgId, code);
  const owedOn = async (code: string, docId: string, o: CreatedOrg = org) => {
    const r = await t.db.reader.get<{ dr: number | null; cr: number | null }>(
      'SELECT SUM(debit_cents) AS dr, SUM(credit_cents) AS cr FROM journal_lines WHERE org_id = ? AND account_code = ? AND doc_id = ?',
      [o.orgId, code, docId],
    );
    return Number(r?.dr ?? 0) - Number(r?.cr ?? 0);
  };
  const invoiceRow = (id: string, o: CreatedOrg = org) =>
    t.db.reader.get<{ status: string }>('SELECT status FROM invoices WHERE org_id = ? AND id = ?', [o.orgId, id]);

  async function invoice(totalCents: number, o: CreatedOrg = org): Promise<string> {
    const d = ok(
      await post(
        'books.invoiceDraft',
        { payeeName: 'Harbour Cafe', payeeEmail: 'ap@harbour.example', description: 'Joinery', totalCents, dueDays: 14 },
        o,
      ),
    );
    ok(await post('books.invoiceSend', { id: d.id }, o));
    return d.id;
  }
  async function line(amountCents: number, o: CreatedOrg = org): Promise<string> {
    return ok(await post('books.feedLines', { lines: [{ date: today(), amountCents, description: `LINE ${freshKey()}` }] }, o)).lineIds[0];
  }
  const match = async (lineId: string, kind: string, id: string, amountCents?: number, o: CreatedOrg = org) =>
    ok(await post('books.matchAccept', { lineId, target: { kind, id }, ...(amountCents ? { amountCents } : {}) }, o));

  describe('books.lineUnmatch', () => {
    it('reverses an invoice match: mirror journal, match kept as reversed, invoice owed again, line unmatched; again is a no-op', async () => {
      const inv = await invoice(30_000);
      const lineId = await line(30_000);
      const m = await match(lineId, 'invoice', inv);
      expect(m.document.status).toBe('paid');
      const bankBefore = await balance('1000');
      const r = ok(await post('books.lineUnmatch', { lineId, reason: 'Matched to the wrong customer' }));
      expect(r).toMatchObject({
        lineId,
        status: 'unmatched',
        line: { status: 'unmatched', matchedCents: 0, remainingCents: 30_000, matches: [] },
      });
      expect(r.reversed).toEqual([
        {
          matchId: m.match.id,
          kind: 'invoice',
          targetId: inv,
          amountCents: 30_000,
          journalId: m.match.journalId,
          reversalJournalId: expect.stringMatching(/^jnl_/),
          documentStatus: 'sent',
        },
      ]);
      const lines = await journalLines(t, org.orgId, r.reversed[0].reversalJournalId);
      expect(lines.map((l) => [l.account_code, Number(l.debit_cents), Number(l.credit_cents), l.doc_id])).toEqual([
        ['1000', 0, 30_000, null],
        ['1100', 30_000, 0, inv],
      ]);
      expect(await balance('1000')).toBe(bankBefore - 30_000);
      expect(await owedOn('1100', inv)).toBe(30_000);
      expect(await invoiceRow(inv)).toMatchObject({ status: 'sent' });
      const kept = await t.db.reader.get<{ reversed_at: string | null; reversal_journal_id: string }>(
        'SELECT reversed_at, reversal_journal_id FROM bank_feed_matches WHERE org_id = ? AND id = ?',
        [org.orgId, m.match.id],
      );
      expect(kept?.reversed_at).not.toBeNull();
      expect(kept?.reversal_journal_id).toBe(r.reversed[0].reversalJournalId);
      const pay = await t.db.reader.get<{ reversal_kind: string }>(
        'SELECT reversal_kind FROM invoice_payments WHERE org_id = ? AND journal_id = ?',
        [org.orgId, m.match.journalId],
      );
      expect(pay?.reversal_kind).toBe('unmatched');
      const ev = await lastEvent();
      expect(ev).toMatchObject({ kind: 'books.line.unmatch', entity_id: lineId });
      expect(ev.payload).toMatchObject({
        lineId,
        lineAmountCents: 30_000,
        date: today(),
        status: 'unmatched',
        reason: 'Matched to the wrong customer',
      });
      // Again: nothing left to undo, no event.
      const count = (await events()).length;
      expect(ok(await post('books.lineUnmatch', { lineId }))).toMatchObject({ noop: true, reversed: [] });
      expect(ok(await post('books.lineUnmatch', { lineId, matchId: m.match.id }))).toMatchObject({ noop: true });
      expect((await events()).length).toBe(count);
      // The line and the invoice can be matched again.
      expect((await match(lineId, 'invoice', inv)).document.status).toBe('paid');
    });

    it('undoes one match of a split line (matchId): the line is part_matched, the other match stands', async () => {
      const a = await invoice(20_000);
      const b = await invoice(30_000);
      const lineId = await line(50_000);
      const ma = await match(lineId, 'invoice', a, 20_000);
      await match(lineId, 'invoice', b, 30_000);
      const r = ok(await post('books.lineUnmatch', { lineId, matchId: ma.match.id }));
      expect(r.status).toBe('part_matched');
      expect(r.line).toMatchObject({ matchedCents: 30_000, remainingCents: 20_000 });
      expect(r.line.matches.map((x: any) => x.targetId)).toEqual([b]);
      expect(await owedOn('1100', a)).toBe(20_000);
      expect(await owedOn('1100', b)).toBe(0);
      expect(await invoiceRow(b)).toMatchObject({ status: 'paid' });
      const unknown = await post('books.lineUnmatch', { lineId, matchId: 'mat_nope' });
      expect(unknown.status).toBe(404);
    });

    it('reopens a bill and a claim; a match to an existing bank journal posts nothing', async () => {
      const o = await t.org();
      const bill = await approvedBill(t, o, { payeeName: 'Coastal Timber', description: 'Timber', totalCents: 11_000 });
      const out = await line(-11_000, o);
      await match(out, 'bill', bill.id, undefined, o);
      expect(
        (await t.db.reader.get<{ status: string }>('SELECT status FROM bills WHERE org_id = ? AND id = ?', [o.orgId, bill.id]))?.status,
      ).toBe('paid');
      const r = ok(await post('books.lineUnmatch', { lineId: out }, o));
      expect(r.reversed[0]).toMatchObject({ kind: 'bill', documentStatus: 'approved' });
      expect(await owedOn('2000', bill.id, o)).toBe(-11_000);
      const c = ok(
        await post(
          'books.expenseClaim',
          { claimant: 'Sam', description: 'Stationery', amountCents: 4_400, spentOn: today(), receiptRef: 'photo 1' },
          o,
        ),
      );
      ok(await post('books.expenseApprove', { id: c.id }, o));
      const cl = await line(-4_400, o);
      await match(cl, 'claim', c.id, undefined, o);
      expect(ok(await post('books.lineUnmatch', { lineId: cl }, o)).reversed[0]).toMatchObject({
        kind: 'claim',
        documentStatus: 'approved',
      });
      expect(await owedOn('2500', c.id, o)).toBe(-4_400);
      const j = ok(
        await post(
          'books.journalPost',
          {
            date: today(),
            memo: 'Owner loan',
            lines: [
              { accountCode: '1000', debitCents: 7_000 },
              { accountCode: '3000', creditCents: 7_000 },
            ],
          },
          o,
        ),
      );
      const jl = await line(7_000, o);
      await match(jl, 'journal', j.journalId, undefined, o);
      const journalsBefore = await t.db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM journals WHERE org_id = ?', [o.orgId]);
      const u = ok(await post('books.lineUnmatch', { lineId: jl }, o));
      expect(u.reversed[0]).toMatchObject({ kind: 'journal', reversalJournalId: null, documentStatus: null });
      expect(await t.db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM journals WHERE org_id = ?', [o.orgId])).toEqual(
        journalsBefore,
      );
      expect(await balance('2000', o)).toBe(-11_000);
    });

    it('undoes a recode: the recode journal is mirrored and the line is unmatched', async () => {
      const o = await t.org();
      const fee = await line(-1_500, o);
      const rc = ok(await post('books.lineRecode', { lineId: fee, accountCode: '6300' }, o));
      expect(await balance('6300', o)).toBe(1_500);
      const r = ok(await post('books.lineUnmatch', { lineId: fee }, o));
      expect(r).toMatchObject({ status: 'unmatched', line: { status: 'unmatched', recode: null } });
      expect(r.reversed[0]).toMatchObject({ matchId: null, kind: 'recode', targetId: '6300', journalId: rc.journalId });
      expect(await balance('6300', o)).toBe(0);
      expect(await balance('1000', o)).toBe(0);
      ok(await post('books.lineRecode', { lineId: fee, accountCode: '6000' }, o));
    });

    it('refuses a held line (CONFLICT), a future date (naming date), and an unknown line', async () => {
      const o = await t.org();
      const inv = await invoice(150_000, o);
      const held = await line(150_000, o);
      expect((await match(held, 'invoice', inv, undefined, o)).status).toBe('held');
      const r = await post('books.lineUnmatch', { lineId: held }, o);
      expect(r.status).toBe(409);
      expect(r.body.error.message).toContain('books.matchHoldResolve');
      const small = await invoice(1_000, o);
      const l = await line(1_000, o);
      await match(l, 'invoice', small, undefined, o);
      const future = await post('books.lineUnmatch', { lineId: l, date: inDays(1) }, o);
      expect(future.status).toBe(400);
      expect(future.body.error).toMatchObject({ field: 'date' });
      const past = await post('books.lineUnmatch', { lineId: l, date: inDays(-1) }, o);
      expect(past.status).toBe(400);
      expect(past.body.error.message).toContain('is before');
      expect((await post('books.lineUnmatch', { lineId: 'bln_nope' }, o)).status).toBe(404);
      expect(await invoiceRow(small, o)).toMatchObject({ status: 'paid' });
    });
  });

  describe('books.invoicePaymentDishonour', () => {
    it('reverses the payment to the invoice: Dr 1100 / Cr bank, owed again; again is a no-op', async () => {
      const inv = await invoice(20_000);
      const p1 = ok(await post('books.invoiceRecordPayment', { id: inv, amountCents: 5_000, reference: 'EFT 1' }));
      const p2 = ok(await post('books.invoiceRecordPayment', { id: inv, amountCents: 15_000, reference: 'EFT 2' }));
      expect(p2.status).toBe('paid');
      const r = ok(await post('books.invoicePaymentDishonour', { id: inv, paymentId: p2.paymentId, reason: 'Insufficient funds' }));
      expect(r).toMatchObject({
        id: inv,
        paymentId: p2.paymentId,
        amountCents: 15_000,
        date: today(),
        status: 'part_paid',
        outstandingCents: 15_000,
      });
      const lines = await journalLines(t, org.orgId, r.journalId);
      expect(lines.map((l) => [l.account_code, Number(l.debit_cents), Number(l.credit_cents), l.doc_id])).toEqual([
        ['1000', 0, 15_000, null],
        ['1100', 15_000, 0, inv],
      ]);
      expect(await invoiceRow(inv)).toMatchObject({ status: 'part_paid' });
      const ev = await lastEvent();
      expect(ev).toMatchObject({ kind: 'books.invoice.payment_dishonour', entity_id: inv });
      expect(ev.payload).toEqual({
        paymentId: p2.paymentId,
        amountCents: 15_000,
        date: today(),
        reason: 'Insufficient funds',
        journalId: r.journalId,
        outstandingCents: 15_000,
        status: 'part_paid',
        journals: [bound(r.journalId)],
      });
      const count = (await events()).length;
      expect(ok(await post('books.invoicePaymentDishonour', { id: inv, paymentId: p2.paymentId, reason: 'again' }))).toMatchObject({
        noop: true,
        journalId: r.journalId,
      });
      expect((await events()).length).toBe(count);
      const first = ok(await post('books.invoicePaymentDishonour', { id: inv, paymentId: p1.paymentId, reason: 'Also bounced' }));
      expect(first).toMatchObject({ status: 'sent', outstandingCents: 20_000 });
      // Owed again: it can be paid (and chased) again.
      expect(ok(await post('books.invoiceRecordPayment', { id: inv, amountCents: 20_000, reference: 'EFT 3' })).status).toBe('paid');
    });

    it("refuses an unknown payment, another invoice's payment, and a payment undone by lineUnmatch", async () => {
      const a = await invoice(3_000);
      const b = await invoice(3_000);
      const pa = ok(await post('books.invoiceRecordPayment', { id: a, amountCents: 3_000 }));
      expect((await post('books.invoicePaymentDishonour', { id: a, paymentId: 'pay_nope', reason: 'x' })).status).toBe(404);
      expect((await post('books.invoicePaymentDishonour', { id: b, paymentId: pa.paymentId, reason: 'x' })).status).toBe(404);
      const lineId = await line(3_000);
      const m = await match(lineId, 'invoice', b);
      ok(await post('books.lineUnmatch', { lineId }));
      const pay = await t.db.reader.get<{ id: string }>('SELECT id FROM invoice_payments WHERE org_id = ? AND journal_id = ?', [
        org.orgId,
        m.match.journalId,
      ]);
      const r = await post('books.invoicePaymentDishonour', { id: b, paymentId: pay?.id, reason: 'x' });
      expect(r.status).toBe(409);
      expect(r.body.error.message).toContain('books.lineUnmatch');
      // And the other way: a matched payment dishonoured keeps its line matched.
      const l2 = await line(3_000);
      const m2 = await match(l2, 'invoice', b);
      const pay2 = await t.db.reader.get<{ id: string }>('SELECT id FROM invoice_payments WHERE org_id = ? AND journal_id = ?', [
        org.orgId,
        m2.match.journalId,
      ]);
      ok(await post('books.invoicePaymentDishonour', { id: b, paymentId: pay2?.id, reason: 'Bounced' }));
      const u = await post('books.lineUnmatch', { lineId: l2 });
      expect(u.status).toBe(409);
      expect(u.body.error.message).toContain('dishonoured');
    });
  });

  describe('books.invoicePaymentDishonour by match id, and books.invoice listing payments', () => {
    const invoiceRead = async (id: string, o: CreatedOrg = org) => ok(await t.post(o.keys.reader, 'books.invoice', { id }));
    const postingOf = async (journalId: string, o: CreatedOrg = org) =>
      (await journalLines(t, o.orgId, journalId)).map((l) => [
        l.account_code,
        Number(l.debit_cents),
        Number(l.credit_cents),
        l.doc_id === null ? null : 'doc',
      ]);

    it('lists every payment of an invoice with its id, date, amount and, from a bank match, the match and line', async () => {
      const inv = await invoice(9_000);
      const direct = ok(await post('books.invoiceRecordPayment', { id: inv, amountCents: 4_000, reference: 'EFT 9' }));
      const lineId = await line(5_000);
      const m = await match(lineId, 'invoice', inv);
      const read = await invoiceRead(inv);
      expect(read).toMatchObject({ id: inv, status: 'paid', outstandingCents: 0, totalCents: 9_000 });
      expect(read.payments).toEqual([
        {
          paymentId: direct.paymentId,
          date: today(),
          amountCents: 4_000,
          reference: 'EFT 9',
          matchId: null,
          lineId: null,
          journalId: direct.journalId,
          reversed: null,
          reversedOn: null,
        },
        {
          paymentId: expect.stringMatching(/^pay_/),
          date: today(),
          amountCents: 5_000,
          reference: `bank line ${lineId}`,
          matchId: m.match.id,
          lineId,
          journalId: m.match.journalId,
          reversed: null,
          reversedOn: null,
        },
      ]);
      // A draft has none; the read of a list and of one invoice agree.
      const draft = ok(await post('books.invoiceDraft', { payeeName: 'Harbour Cafe', description: 'Later', totalCents: 100, dueDays: 14 }));
      expect((await invoiceRead(draft.id)).payments).toEqual([]);
      const listed = ok(await t.post(org.keys.reader, 'books.invoices', { number: read.number })).invoices[0];
      const { payments: _p, ...one } = read;
      expect(one).toEqual(listed);
    });

    it('dishonours a bank-matched payment by its match id, posting exactly as by its payment id; again by either id is a no-op', async () => {
      const byMatch = await invoice(6_000);
      const byPay = await invoice(6_000);
      const mm = await match(await line(6_000), 'invoice', byMatch);
      const mp = await match(await line(6_000), 'invoice', byPay);
      const payOf = async (inv: string) => (await invoiceRead(inv)).payments[0].paymentId as string;
      const [payM, payP] = [await payOf(byMatch), await payOf(byPay)];

      const a = ok(await post('books.invoicePaymentDishonour', { id: byMatch, paymentId: mm.match.id, reason: 'Dishonoured' }));
      const evA = await lastEvent();
      const b = ok(await post('books.invoicePaymentDishonour', { id: byPay, paymentId: payP, reason: 'Dishonoured' }));
      const evB = await lastEvent();
      expect(a).toMatchObject({ id: byMatch, paymentId: payM, amountCents: 6_000, date: today(), status: 'sent', outstandingCents: 6_000 });
      const { id: _ia, paymentId: _pa, journalId: ja, ledgerId: _la, ...restA } = a;
      const { id: _ib, paymentId: _pb, journalId: jb, ledgerId: _lb, ...restB } = b;
      expect(restA).toEqual(restB);
      expect(await postingOf(ja)).toEqual([
        ['1000', 0, 6_000, null],
        ['1100', 6_000, 0, 'doc'],
      ]);
      expect(await postingOf(ja)).toEqual(await postingOf(jb));
      expect(evA).toMatchObject({ kind: 'books.invoice.payment_dishonour', entity_id: byMatch });
      // The events differ only in the ids they name (and what the ids alone make differ).
      const named = ({ journals: _j, ...rest }: Record<string, unknown>) => rest;
      expect(named(evA.payload)).toEqual({ ...named(evB.payload), paymentId: payM, journalId: ja });
      expect(evB.payload.paymentId).toBe(payP);
      expect(await owedOn('1100', byMatch)).toBe(6_000);

      const count = (await events()).length;
      expect(ok(await post('books.invoicePaymentDishonour', { id: byMatch, paymentId: mm.match.id, reason: 'again' }))).toMatchObject({
        noop: true,
        paymentId: payM,
        journalId: ja,
      });
      expect(ok(await post('books.invoicePaymentDishonour', { id: byMatch, paymentId: payM, reason: 'again' }))).toMatchObject({
        noop: true,
        journalId: ja,
      });
      expect(ok(await post('books.invoicePaymentDishonour', { id: byPay, paymentId: mp.match.id, reason: 'again' }))).toMatchObject({
        noop: true,
        journalId: jb,
      });
      expect((await events()).length).toBe(count);
      expect((await invoiceRead(byMatch)).payments).toEqual([
        expect.objectContaining({ paymentId: payM, matchId: mm.match.id, reversed: 'dishonoured', reversedOn: today() }),
      ]);
    });

    it("refuses an unknown id, another invoice's or organisation's match, and a bad id, naming the field; nothing changes", async () => {
      const a = await invoice(2_000);
      const b = await invoice(2_000);
      const ma = await match(await line(2_000), 'invoice', a);
      const other = await t.org();
      const otherInv = await invoice(2_000, other);
      const mo = await match(await line(2_000, other), 'invoice', otherInv, undefined, other);
      // A match to a bill is no payment of an invoice either.
      const bill = await approvedBill(t, org, { payeeName: 'Coastal Timber', description: 'Timber', totalCents: 2_000 });
      const mb = await match(await line(-2_000), 'bill', bill.id);
      const count = (await events()).length;
      for (const [id, paymentId] of [
        [a, 'pay_nope'],
        [a, 'mat_nope'],
        [b, ma.match.id],
        [a, mo.match.id],
        [a, mb.match.id],
      ] as const) {
        const r = await post('books.invoicePaymentDishonour', { id, paymentId, reason: 'x' });
        expect(r.status, `${id} ${paymentId}`).toBe(404);
        expect(r.body.error).toMatchObject({
          code: 'NOT_FOUND',
          field: 'paymentId',
          message: `paymentId: ${paymentId} is not a payment (pay_…) or bank-line match (mat_…) of invoice ${id}`,
        });
      }
      const missing = await post('books.invoicePaymentDishonour', { id: a, reason: 'x' });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'paymentId' });
      const bad = await post('books.invoicePaymentDishonour', { id: a, paymentId: 'mat nope', reason: 'x' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'paymentId' });
      expect((await events()).length).toBe(count);
      expect(await owedOn('1100', a)).toBe(0);

      // The read: another organisation's invoice is NOT_FOUND, a malformed id BAD_REQUEST, both naming id.
      const theirs = await t.post(org.keys.reader, 'books.invoice', { id: otherInv });
      expect(theirs.status).toBe(404);
      expect(theirs.body.error).toMatchObject({ code: 'NOT_FOUND', field: 'id', message: `invoice ${otherInv} not found` });
      const malformed = await t.post(org.keys.reader, 'books.invoice', { id: 'inv 1' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'id' });
      const extra = await t.post(org.keys.reader, 'books.invoice', { id: a, paymentId: ma.match.id });
      expect(extra.status).toBe(400);
      expect(extra.body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'paymentId' });
    });

    it('a match undone by books.lineUnmatch is CONFLICT by its match id too', async () => {
      const inv = await invoice(1_500);
      const lineId = await line(1_500);
      const m = await match(lineId, 'invoice', inv);
      ok(await post('books.lineUnmatch', { lineId }));
      const r = await post('books.invoicePaymentDishonour', { id: inv, paymentId: m.match.id, reason: 'x' });
      expect(r.status).toBe(409);
      expect(r.body.error.message).toContain('books.lineUnmatch');
      expect((await invoiceRead(inv)).payments).toEqual([expect.objectContaining({ matchId: m.match.id, reversed: 'unmatched' })]);
    });
  });

  describe('books.billPaymentReturn', () => {
    it('returns a payment-run payment: Dr bank / Cr 2000, the bill approved and payable again; again is a no-op', async () => {
      const o = await t.org();
      const bill = await approvedBill(t, o, {
        payeeName: 'Coastal Timber',
        description: 'Timber',
        totalCents: 12_000,
        ...bank('062-703', '11223344', 'Coastal Timber'),
      });
      const params = { billIds: [bill.id], paymentDate: today(), funding: FUNDING };
      const { approvalId } = await heldAndRequested(t, o, 'books.billScheduleRun', params);
      await decide(t, o, approvalId, true);
      const run = ok(await t.post(o.keys.agent, 'books.billScheduleRun', { ...params, approvalId }, { 'x-idempotency-key': freshKey() }));
      const r = ok(await post('books.billPaymentReturn', { id: bill.id, paymentId: run.runId, reason: 'Account closed' }, o));
      expect(r).toMatchObject({ id: bill.id, paymentId: run.runId, amountCents: 12_000, status: 'approved', outstandingCents: 12_000 });
      const lines = await journalLines(t, o.orgId, r.journalId);
      expect(lines.map((l) => [l.account_code, Number(l.debit_cents), Number(l.credit_cents), l.doc_id])).toEqual([
        ['1000', 12_000, 0, null],
        ['2000', 0, 12_000, bill.id],
      ]);
      expect(await balance('1000', o)).toBe(0);
      const ev = await lastEvent(o);
      expect(ev).toMatchObject({ kind: 'books.bill.payment_return', entity_id: bill.id });
      expect(ev.payload).toEqual({
        paymentId: run.runId,
        amountCents: 12_000,
        date: today(),
        reason: 'Account closed',
        journalId: r.journalId,
        outstandingCents: 12_000,
        journals: [bound(r.journalId)],
      });
      const count = (await events(o)).length;
      expect(ok(await post('books.billPaymentReturn', { id: bill.id, paymentId: run.runId, reason: 'again' }, o))).toMatchObject({
        noop: true,
        journalId: r.journalId,
      });
      expect((await events(o)).length).toBe(count);
      const bills = ok(await t.post(o.keys.reader, 'books.bills', { status: 'approved' })).bills;
      expect(bills.map((b: any) => [b.id, b.outstandingCents])).toEqual([[bill.id, 12_000]]);
      // Payable again by a bank line.
      const out = await line(-12_000, o);
      expect((await match(out, 'bill', bill.id, undefined, o)).document.status).toBe('paid');
    });

    it('returns a bank-line payment (matchId); refuses unknown payments; lineUnmatch then refuses', async () => {
      const o = await t.org();
      const bill = await approvedBill(t, o, { payeeName: 'Northside Hardware', description: 'Tools', totalCents: 8_000 });
      const out = await line(-8_000, o);
      const m = await match(out, 'bill', bill.id, undefined, o);
      expect((await post('books.billPaymentReturn', { id: bill.id, paymentId: 'run_nope', reason: 'x' }, o)).status).toBe(404);
      const r = ok(await post('books.billPaymentReturn', { id: bill.id, paymentId: m.match.id, reason: 'Bounced back' }, o));
      expect(r).toMatchObject({ status: 'approved', outstandingCents: 8_000 });
      expect(await owedOn('2000', bill.id, o)).toBe(-8_000);
      const u = await post('books.lineUnmatch', { lineId: out }, o);
      expect(u.status).toBe(409);
      expect(u.body.error.message).toContain('returned');
    });
  });

  describe('books.journalReverse', () => {
    it('posts the mirror (GST tags negated), marks the journal reversed; again is a no-op', async () => {
      const o = await t.org();
      const j = ok(
        await post(
          'books.journalPost',
          {
            date: today(),
            memo: 'Cleaning accrual',
            lines: [
              { accountCode: '6000', debitCents: 11_000, taxCode: 'GST_ON_EXPENSES' },
              { accountCode: '1000', creditCents: 11_000 },
            ],
          },
          o,
        ),
      );
      const r = ok(await post('books.journalReverse', { journalId: j.journalId, reason: 'Posted twice' }, o));
      expect(r).toMatchObject({ journalId: j.journalId, date: today(), reason: 'Posted twice', totalCents: 11_000 });
      const orig = await journalLines(t, o.orgId, j.journalId);
      const rev = await journalLines(t, o.orgId, r.reversalJournalId);
      expect(
        rev.map((l) => [l.account_code, Number(l.debit_cents), Number(l.credit_cents), Number(l.gst_cents), Number(l.tax_base_cents)]),
      ).toEqual(
        orig.map((l) => [
          l.account_code,
          Number(l.credit_cents),
          Number(l.debit_cents),
          -Number(l.gst_cents) || 0,
          -Number(l.tax_base_cents) || 0,
        ]),
      );
      for (const code of ['6000', '1200', '1000']) expect(await balance(code, o)).toBe(0);
      const row = await t.db.reader.get<{ reversed_by: string }>('SELECT reversed_by FROM journals WHERE org_id = ? AND id = ?', [
        o.orgId,
        j.journalId,
      ]);
      expect(row?.reversed_by).toBe(r.reversalJournalId);
      const read = (await t.post(o.keys.reader, 'books.journals', { sourceId: j.journalId })).body.result.journals as any[];
      expect(read.find((x) => x.id === j.journalId)).toMatchObject({ reversedBy: r.reversalJournalId });
      expect(read.find((x) => x.id === r.reversalJournalId)).toMatchObject({
        reversedBy: null,
        source: { kind: 'journal_reversal', id: j.journalId },
      });
      const ev = await lastEvent(o);
      expect(ev).toMatchObject({ kind: 'books.journal.reverse', entity_id: j.journalId });
      expect(ev.payload).toEqual({
        journalId: j.journalId,
        reversalJournalId: r.reversalJournalId,
        date: today(),
        totalCents: 11_000,
        reason: 'Posted twice',
        journals: [bound(r.reversalJournalId)],
      });
      const count = (await events(o)).length;
      expect(ok(await post('books.journalReverse', { journalId: j.journalId, reason: 'again' }, o))).toMatchObject({
        noop: true,
        reversalJournalId: r.reversalJournalId,
        reason: 'Posted twice',
      });
      expect((await events(o)).length).toBe(count);
      const ofReversal = await post('books.journalReverse', { journalId: r.reversalJournalId, reason: 'x' }, o);
      expect(ofReversal.status).toBe(409);
    });

    it('refuses journals other acts posted (naming the method), fixed-asset journals, matched journals, future dates', async () => {
      const o = await t.org();
      const inv = await invoice(5_000, o);
      const invJournal = (
        await t.db.reader.get<{ journal_id: string }>('SELECT journal_id FROM invoices WHERE org_id = ? AND id = ?', [o.orgId, inv])
      )?.journal_id;
      const r = await post('books.journalReverse', { journalId: invJournal, reason: 'x' }, o);
      expect(r.status).toBe(409);
      expect(r.body.error.message).toContain('books.invoiceVoid');
      const asset = ok(
        await post(
          'books.journalPost',
          {
            date: today(),
            memo: 'Saw',
            lines: [
              { accountCode: '1500', debitCents: 200_000, asset: { name: 'Saw', effectiveLifeYears: 5, method: 'prime_cost' } },
              { accountCode: '3000', creditCents: 200_000 },
            ],
          },
          o,
        ),
      );
      const a = await post('books.journalReverse', { journalId: asset.journalId, reason: 'x' }, o);
      expect(a.status).toBe(409);
      expect(a.body.error.message).toContain('books.assetDispose');
      const j = ok(
        await post(
          'books.journalPost',
          {
            date: today(),
            memo: 'Owner loan',
            lines: [
              { accountCode: '1000', debitCents: 7_000 },
              { accountCode: '3000', creditCents: 7_000 },
            ],
          },
          o,
        ),
      );
      const l = await line(7_000, o);
      await match(l, 'journal', j.journalId, undefined, o);
      const matched = await post('books.journalReverse', { journalId: j.journalId, reason: 'x' }, o);
      expect(matched.status).toBe(409);
      expect(matched.body.error.message).toContain('books.lineUnmatch');
      ok(await post('books.lineUnmatch', { lineId: l }, o));
      const future = await post('books.journalReverse', { journalId: j.journalId, reason: 'x', date: inDays(1) }, o);
      expect(future.status).toBe(400);
      expect(future.body.error).toMatchObject({ field: 'date' });
      ok(await post('books.journalReverse', { journalId: j.journalId, reason: 'Loan never drawn' }, o));
      expect((await post('books.journalReverse', { journalId: 'jnl_nope', reason: 'x' }, o)).status).toBe(404);
    });
  });
});
