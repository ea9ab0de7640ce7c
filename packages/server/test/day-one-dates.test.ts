import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { NUMBER_WINDOW_SQL } from '../src/domain/receivables/invoices.js';
import { engines, openTestDatabase, startTestServer, type TestServer } from './harness.js';
import { consoleForm, consoleJson, consoleSignIn } from './console-helpers.js';
import { report } from './reports-helpers.js';

/**
 * Document dates and the lock date, through HTTP on both engines, on a clock the test
 * moves (Config.now): documents entered with an earlier issueDate (postings, due dates, aged
 * reports), invoice numbers from the organisation's sequence or given, references and match
 * suggestions that quote them, the owner's lock date refusing every way into a locked period,
 * and approval expiry judged by the server's clock.
 */
describe.each(engines)('day one: issue dates, invoice numbers, references, lock date (%s)', (engine) => {
  let t: TestServer;
  // 11:00 in Sydney on 15 July 2026: the organisation's today is 2026-07-15.
  const JUL15 = '2026-07-15T01:00:00.000Z';
  let clock = JUL15;

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock });
  });
  afterAll(async () => {
    await t?.checkEvents();
    await t?.close();
  });

  async function ok(key: string, method: string, body: Record<string, unknown>) {
    const r = await t.post(key, method, body);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  }

  /** A refusal with its code and the field it names; the organisation's chain did not move. */
  async function refused(o: CreatedOrg, key: string, method: string, body: Record<string, unknown>, code: string, field: string) {
    const before = await headSeq(o);
    const r = await t.post(key, method, body);
    expect(r.body.ok, `${method} ${JSON.stringify(r.body)}`).toBe(false);
    expect(r.body.error.code, JSON.stringify(r.body)).toBe(code);
    expect(r.body.error.field, JSON.stringify(r.body)).toBe(field);
    expect(await headSeq(o)).toBe(before);
    return r.body.error.message as string;
  }

  const headSeq = async (o: CreatedOrg) =>
    Number((await t.db.reader.get<{ seq: number }>('SELECT seq FROM org_heads WHERE org_id = ?', [o.orgId]))?.seq ?? 0);

  const journalDate = async (o: CreatedOrg, id: string) =>
    (await t.db.reader.get<{ date: string }>('SELECT date FROM journals WHERE org_id = ? AND id = ?', [o.orgId, id]))?.date;

  const eventsOf = (o: CreatedOrg, kind: string) =>
    t.db.reader.all<{ payload: string }>('SELECT payload FROM events WHERE org_id = ? AND kind = ? ORDER BY seq', [o.orgId, kind]);

  const draft = (o: CreatedOrg, extra: Record<string, unknown> = {}) =>
    ok(o.keys.agent, 'books.invoiceDraft', {
      payeeName: 'Seaside Events',
      description: 'Joinery',
      totalCents: 11_000,
      dueDays: 14,
      ...extra,
    });

  /** Approve a bill, through the owner's approval when it is held (a new payee). */
  async function approveBill(o: CreatedOrg, id: string) {
    const first = await t.post(o.keys.agent, 'books.billApprove', { id });
    if (first.status === 200) return first.body.result;
    const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.body.error.message)?.[1];
    const req = await ok(o.keys.agent, 'approval.request', {
      actionClass: 'books.bill_approve',
      payloadHash,
      subject: { kind: 'books.signature', subjectId: id },
    });
    const { decideApproval } = await import('../src/governance/approvals.js');
    await decideApproval(t.db, {
      orgId: o.orgId,
      approvalId: req.approvalId,
      user: { id: o.owner.userId, role: 'owner' },
      approve: true,
      reason: null,
    });
    return ok(o.keys.agent, 'books.billApprove', { id, approvalId: req.approvalId });
  }

  async function owner(o: CreatedOrg) {
    return consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
  }

  async function setProfile(o: CreatedOrg, patch: Record<string, unknown>) {
    return consoleJson(t, await owner(o), 'PUT', '/console/api/org/profile', patch);
  }

  describe('issueDate', () => {
    it("last month's invoice, bill, claim and credit note are posted, due and aged from their issue dates", async () => {
      clock = JUL15;
      const o = await t.org();
      const d = await draft(o, { issueDate: '2026-06-10', reference: 'PO 7781' });
      expect(d).toMatchObject({ status: 'draft', issuedOn: '2026-06-10', dueOn: '2026-06-24', reference: 'PO 7781', number: 'INV-0001' });
      const sent = await ok(o.keys.agent, 'books.invoiceSend', { id: d.id });
      expect(sent).toMatchObject({ status: 'sent', issuedOn: '2026-06-10', dueOn: '2026-06-24' });
      expect(await journalDate(o, sent.journalId)).toBe('2026-06-10');
      const [sendEvent] = await eventsOf(o, 'books.invoice.send');
      expect(JSON.parse(sendEvent?.payload ?? '{}')).toMatchObject({ issuedOn: '2026-06-10', dueOn: '2026-06-24', number: 'INV-0001' });
      // A payment before the issue date stays refused.
      await refused(
        o,
        o.keys.agent,
        'books.invoiceRecordPayment',
        { id: d.id, amountCents: 1_000, date: '2026-06-09' },
        'BAD_REQUEST',
        'date',
      );

      const cn = await ok(o.keys.agent, 'books.invoiceCreditNote', {
        id: d.id,
        amountCents: 1_100,
        reason: 'Short delivery',
        issueDate: '2026-06-12',
      });
      expect(cn.issuedOn).toBe('2026-06-12');
      expect(await journalDate(o, cn.journalId)).toBe('2026-06-12');
      await refused(
        o,
        o.keys.agent,
        'books.invoiceCreditNote',
        { id: d.id, amountCents: 1_100, reason: 'Too early', issueDate: '2026-06-09' },
        'BAD_REQUEST',
        'issueDate',
      );

      const bill = await ok(o.keys.agent, 'books.billCapture', {
        payeeName: 'Timber Co',
        description: 'Oak',
        totalCents: 22_000,
        dueDays: 30,
        issueDate: '2026-06-05',
        reference: 'TC-4410',
      });
      expect(bill).toMatchObject({ issuedOn: '2026-06-05', dueOn: '2026-07-05', reference: 'TC-4410' });
      const approved = await approveBill(o, bill.id);
      expect(await journalDate(o, approved.journalId)).toBe('2026-06-05');
      const bills = await ok(o.keys.reader, 'books.bills', {});
      expect(bills.bills.find((b: { id: string }) => b.id === bill.id)).toMatchObject({ issuedOn: '2026-06-05', reference: 'TC-4410' });

      const claim = await ok(o.keys.agent, 'books.expenseClaim', {
        claimant: 'Sam',
        description: 'Fuel',
        amountCents: 5_500,
        spentOn: '2026-06-18',
        receiptRef: 'photo 1',
        issueDate: '2026-06-20',
      });
      expect(claim.issuedOn).toBe('2026-06-20');
      const claimApproved = await ok(o.keys.agent, 'books.expenseApprove', { id: claim.id });
      expect(await journalDate(o, claimApproved.journalId)).toBe('2026-06-20');
      await refused(
        o,
        o.keys.agent,
        'books.expenseClaim',
        {
          claimant: 'Sam',
          description: 'Fuel',
          amountCents: 5_500,
          spentOn: '2026-06-18',
          receiptRef: 'photo 2',
          issueDate: '2026-06-17',
        },
        'BAD_REQUEST',
        'issueDate',
      );

      // Aged as at today: the invoice fell due on 24 June (21 days over), the bill on 5 July (10).
      const ar = await report(t, o, { type: 'aged_receivables' });
      expect(ar.parties[0].items[0]).toMatchObject({
        id: d.id,
        issuedOn: '2026-06-10',
        dueOn: '2026-06-24',
        daysOverdue: 21,
        bucket: '1-30',
        outstandingCents: 9_900,
      });
      const ap = await report(t, o, { type: 'aged_payables' });
      expect(ap.parties[0].items[0]).toMatchObject({ id: bill.id, issuedOn: '2026-06-05', dueOn: '2026-07-05', daysOverdue: 10 });
      // June's GST sees June's documents: the sale (1 000 less the 100 credited), the bill's 2 000 and the claim's 500.
      const gst = await report(t, o, { type: 'gst_summary', from: '2026-06-01', to: '2026-06-30' });
      expect(gst.summary).toMatchObject({ '8A': 9, '8B': 25 });
    });

    it('an issueDate in the future is refused, naming it, on every document', async () => {
      clock = JUL15;
      const o = await t.org();
      await refused(
        o,
        o.keys.agent,
        'books.invoiceDraft',
        { payeeName: 'A', description: 'x', totalCents: 100, dueDays: 7, issueDate: '2026-07-16' },
        'BAD_REQUEST',
        'issueDate',
      );
      await refused(
        o,
        o.keys.agent,
        'books.billCapture',
        { payeeName: 'A', description: 'x', totalCents: 100, dueDays: 7, issueDate: '2026-07-16' },
        'BAD_REQUEST',
        'issueDate',
      );
      await refused(
        o,
        o.keys.agent,
        'books.expenseClaim',
        {
          claimant: 'Sam',
          description: 'x',
          amountCents: 100,
          spentOn: '2026-07-15',
          receiptRef: 'r',
          issueDate: '2026-07-16',
        },
        'BAD_REQUEST',
        'issueDate',
      );
      const d = await draft(o);
      await ok(o.keys.agent, 'books.invoiceSend', { id: d.id });
      await refused(
        o,
        o.keys.agent,
        'books.invoiceCreditNote',
        { id: d.id, amountCents: 100, reason: 'x', issueDate: '2026-07-16' },
        'BAD_REQUEST',
        'issueDate',
      );
      await refused(
        o,
        o.keys.agent,
        'books.invoiceDraft',
        { payeeName: 'A', description: 'x', totalCents: 100, dueDays: 7, issueDate: '2026-02-30' },
        'BAD_REQUEST',
        'issueDate',
      );
    });

    it('without issueDate an invoice is issued the day it is sent, as before', async () => {
      clock = JUL15;
      const o = await t.org();
      const d = await draft(o);
      expect(d).toMatchObject({ issuedOn: null, dueOn: null });
      clock = '2026-07-20T01:00:00.000Z';
      const sent = await ok(o.keys.agent, 'books.invoiceSend', { id: d.id });
      expect(sent).toMatchObject({ issuedOn: '2026-07-20', dueOn: '2026-08-03' });
      clock = JUL15;
    });
  });

  describe('invoice numbers', () => {
    it('numbers run INV-0001, INV-0002; a business may give its own (unique); the owner moves prefix and next number', async () => {
      clock = JUL15;
      const o = await t.org();
      expect((await draft(o)).number).toBe('INV-0001');
      expect((await draft(o)).number).toBe('INV-0002');
      const own = await draft(o, { number: 'J-77' });
      expect(own.number).toBe('J-77');
      expect((await draft(o)).number).toBe('INV-0003');
      const dup = await refused(
        o,
        o.keys.agent,
        'books.invoiceDraft',
        { payeeName: 'A', description: 'x', totalCents: 100, dueDays: 7, number: 'J-77' },
        'CONFLICT',
        'number',
      );
      expect(dup).toContain('J-77');
      await refused(
        o,
        o.keys.agent,
        'books.invoiceDraft',
        { payeeName: 'A', description: 'x', totalCents: 100, dueDays: 7, number: 'INV-0002' },
        'CONFLICT',
        'number',
      );
      await refused(
        o,
        o.keys.agent,
        'books.invoiceDraft',
        { payeeName: 'A', description: 'x', totalCents: 100, dueDays: 7, number: 'two\nlines' },
        'BAD_REQUEST',
        'number',
      );
      // A number given in the sequence's way is skipped, not repeated.
      await draft(o, { number: 'INV-0004' });
      expect((await draft(o)).number).toBe('INV-0005');

      // The invoices read finds one by number; the draft event carries it.
      const found = await ok(o.keys.reader, 'books.invoices', { number: 'J-77' });
      expect(found.invoices.map((i: { id: string }) => i.id)).toEqual([own.id]);
      const drafts = (await eventsOf(o, 'books.invoice.draft')).map((e) => JSON.parse(e.payload).number);
      expect(drafts).toEqual(['INV-0001', 'INV-0002', 'J-77', 'INV-0003', 'INV-0004', 'INV-0005']);

      // The owner's profile: a next number at or below one used with the prefix is refused.
      const low = await setProfile(o, { invoiceNextNumber: 5 });
      expect(low.status, low.text).toBe(400);
      expect(low.body.error.message).toContain('INV-0005');
      const moved = await setProfile(o, { invoicePrefix: 'S-', invoiceNextNumber: 100 });
      expect(moved.status, moved.text).toBe(200);
      expect((await t.get(o.keys.observer, 'org/profile')).body).toMatchObject({ invoicePrefix: 'S-', invoiceNextNumber: 100 });
      expect((await draft(o)).number).toBe('S-0100');
      const [update] = await eventsOf(o, 'org.profile.update');
      expect(JSON.parse(update?.payload ?? '{}')).toMatchObject({
        fields: ['invoicePrefix', 'invoiceNextNumber'],
        before: { invoicePrefix: 'INV-', invoiceNextNumber: 6 },
        after: { invoicePrefix: 'S-', invoiceNextNumber: 100 },
      });
      // Back to INV- with a number already used under it: refused.
      expect((await setProfile(o, { invoicePrefix: 'INV-', invoiceNextNumber: 3 })).status).toBe(400);
      expect((await setProfile(o, { invoicePrefix: 'bad prefix!' })).status).toBe(400);
    });

    it('a sequence crossing a width (INV-9999 to INV-10000) skips the numbers given by hand on both sides, drafts sent together or alone', async () => {
      clock = JUL15;
      const o = await t.org();
      expect((await setProfile(o, { invoiceNextNumber: 9_998 })).status).toBe(200);
      // Given by hand in the sequence's way, one of each width.
      await draft(o, { number: 'INV-9999' });
      await draft(o, { number: 'INV-10001' });
      // The next draft reads the window INV-9998 … INV-10253: two ranges of the number index.
      const together = await Promise.all([draft(o), draft(o), draft(o)]);
      const alone = await draft(o);
      const numbers = [...together.map((d) => d.number as string), alone.number as string];
      expect(numbers.slice(0, 3).sort()).toEqual(['INV-10000', 'INV-10002', 'INV-9998']);
      expect(numbers[3]).toBe('INV-10003');
      // The window's two-range read itself (a wrong window is only caught later, by the unique
      // index, and the batch run again): every number in either range, from this organisation.
      const other = await t.org();
      await draft(other, { number: 'INV-9999' });
      const read = await t.db.reader.all<{ number: string }>(NUMBER_WINDOW_SQL.two, [
        o.orgId,
        'INV-9998',
        'INV-9999',
        o.orgId,
        'INV-10000',
        'INV-10253',
      ]);
      expect(read.map((r) => r.number).sort()).toEqual(['INV-10000', 'INV-10001', 'INV-10002', 'INV-10003', 'INV-9998', 'INV-9999']);
    });

    it('the sequence skips up to 1000 numbers given by hand in its way, then is blocked (CONFLICT naming the number)', async () => {
      clock = JUL15;
      const o = await t.org();
      // Invoices numbered by hand, written as rows (a thousand drafts through HTTP would only be slower).
      const handNumbered = (from: number, to: number) =>
        t.db.write(async (tx) => {
          for (let n = from; n <= to; n += 1) {
            await tx.run(
              `INSERT INTO invoices (org_id, id, number, status, payee_name, payee_search, description, total_cents, due_days, created_at, ledger_id)
               VALUES (?, ?, ?, 'draft', 'A', 'a', 'By hand', 1000, 7, ?, 'hand0000')`,
              [o.orgId, `inv_hand${n}`, `INV-${String(n).padStart(4, '0')}`, JUL15],
            );
          }
          return null;
        });
      // INV-0001 … INV-1000 taken: exactly 1000 skips, and the 1001st number is free.
      await handNumbered(1, 1000);
      expect((await draft(o)).number).toBe('INV-1001');
      // INV-1002 … INV-2002 taken: 1000 skips reach INV-2002, also taken, so the sequence is blocked there.
      await handNumbered(1002, 2002);
      const r = await t.post(o.keys.agent, 'books.invoiceDraft', { payeeName: 'A', description: 'x', totalCents: 100, dueDays: 7 });
      expect(r.body.error?.code, JSON.stringify(r.body)).toBe('CONFLICT');
      expect(r.body.error.message).toBe('the invoice sequence is blocked at INV-2002: the owner can move the next number in the profile');
      // The refusal changed nothing: the sequence still stands at INV-1002.
      const next = await t.db.reader.get<{ invoice_next: number }>('SELECT invoice_next FROM organisations WHERE id = ?', [o.orgId]);
      expect(Number(next?.invoice_next)).toBe(1002);
    });

    it('migration 30 numbers existing invoices in creation order per organisation and continues the sequence', async () => {
      const { db, drop } = await openTestDatabase(engine);
      try {
        await db.migrate({ throughId: 29 });
        await db.write(async (tx) => {
          for (const org of ['org_a', 'org_b']) {
            await tx.run('INSERT INTO organisations (id, slug, name, created_at) VALUES (?, ?, ?, ?)', [
              org,
              `slug-${org}`,
              org,
              '2026-01-01T00:00:00.000Z',
            ]);
          }
          const invoice = (org: string, id: string, at: string) =>
            tx.run(
              `INSERT INTO invoices (org_id, id, status, payee_name, payee_search, description, total_cents, due_days, created_at, ledger_id)
               VALUES (?, ?, 'draft', 'A', 'a', 'Old work', 1000, 7, ?, ?)`,
              [org, id, at, `led${id}`],
            );
          // Ids out of creation order, and two created at the same instant (then by id).
          await invoice('org_a', 'inv_z', '2026-01-01T00:00:00.000Z');
          await invoice('org_a', 'inv_b', '2026-01-03T00:00:00.000Z');
          await invoice('org_a', 'inv_a', '2026-01-03T00:00:00.000Z');
          await invoice('org_b', 'inv_c', '2026-01-02T00:00:00.000Z');
          return null;
        });
        await db.migrate();
        const rows = await db.reader.all<{ org_id: string; id: string; number: string }>(
          'SELECT org_id, id, number FROM invoices ORDER BY org_id, number',
        );
        expect(rows).toEqual([
          { org_id: 'org_a', id: 'inv_z', number: 'INV-0001' },
          { org_id: 'org_a', id: 'inv_a', number: 'INV-0002' },
          { org_id: 'org_a', id: 'inv_b', number: 'INV-0003' },
          { org_id: 'org_b', id: 'inv_c', number: 'INV-0001' },
        ]);
        const next = await db.reader.all<{ id: string; invoice_next: number }>('SELECT id, invoice_next FROM organisations ORDER BY id');
        expect(next.map((r) => [r.id, Number(r.invoice_next)])).toEqual([
          ['org_a', 4],
          ['org_b', 2],
        ]);
      } finally {
        await db.close();
        await drop();
      }
    });
  });

  describe('match suggestions quote numbers and references', () => {
    it('"PAYMENT INV-0003 THANKS" ranks INV-0003 first with reason reference; INV-00031 does not; a bill is found by its reference', async () => {
      clock = JUL15;
      const o = await t.org();
      const ids: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const d = await draft(o);
        await ok(o.keys.agent, 'books.invoiceSend', { id: d.id });
        ids.push(d.id);
      }
      const bill = await ok(o.keys.agent, 'books.billCapture', {
        payeeName: 'Timber Co',
        description: 'Oak',
        totalCents: 5_000,
        dueDays: 30,
        reference: 'PO-5521',
      });
      await approveBill(o, bill.id);
      await ok(o.keys.agent, 'books.feedLines', {
        lines: [
          { date: '2026-07-15', amountCents: 11_000, description: 'PAYMENT INV-0003 THANKS' },
          { date: '2026-07-15', amountCents: 11_000, description: 'PAYMENT INV-00031' },
          { date: '2026-07-15', amountCents: 11_000, description: 'DEPOSIT', reference: 'inv0002' },
          { date: '2026-07-15', amountCents: -4_000, description: 'TRANSFER po 5521' },
        ],
      });
      const list = await ok(o.keys.reader, 'books.feedLinesList', { status: 'all' });
      const byDesc = (d: string) => list.lines.find((l: { description: string }) => l.description === d);
      const first = byDesc('PAYMENT INV-0003 THANKS').suggestions[0];
      expect(first).toMatchObject({ kind: 'invoice', id: ids[2], reasons: ['amount', 'reference'], score: 85 });
      const longer = byDesc('PAYMENT INV-00031').suggestions;
      expect(longer.some((s: { reasons: string[] }) => s.reasons.includes('reference'))).toBe(false);
      expect(byDesc('DEPOSIT').suggestions[0]).toMatchObject({ id: ids[1], reasons: ['amount', 'reference'] });
      expect(byDesc('TRANSFER po 5521').suggestions[0]).toMatchObject({
        kind: 'bill',
        id: bill.id,
        reasons: ['partial_amount', 'reference'],
      });
    });
  });

  describe('lock date', () => {
    it('the owner sets it (an event; not in the future; null clears it); keys cannot', async () => {
      clock = JUL15;
      const o = await t.org();
      expect((await setProfile(o, { lockDate: '2026-07-16' })).body.error.message).toContain('future');
      const set = await setProfile(o, { lockDate: '2026-06-30' });
      expect(set.status, set.text).toBe(200);
      expect((await t.get(o.keys.reader, 'org/profile')).body.lockDate).toBe('2026-06-30');
      expect((await setProfile(o, { lockDate: null })).status).toBe(200);
      // The console form: the lock date beside its own message when refused.
      const s = await owner(o);
      const form = {
        _csrf: s.csrf,
        name: o.slug,
        legalName: '',
        abn: '',
        gstRegistered: 'yes',
        gstBasis: 'accrual',
        basFrequency: 'quarterly',
        financialYearStartMonth: '7',
        invoicePrefix: 'INV-',
        invoiceNextNumber: '1',
      };
      const future = await consoleForm(t, s, '/console/org', { ...form, lockDate: '2026-08-01' });
      expect(future.status).toBe(400);
      expect(future.text).toContain('lockDate must not be in the future');
      expect((await consoleForm(t, s, '/console/org', { ...form, lockDate: '2026-05-31' })).status).toBe(303);
      expect((await t.get(o.keys.reader, 'org/profile')).body.lockDate).toBe('2026-05-31');
      expect((await consoleForm(t, s, '/console/org', { ...form, lockDate: '' })).status).toBe(303);
      const updates = (await eventsOf(o, 'org.profile.update')).map((e) => JSON.parse(e.payload));
      expect(updates.slice(0, 2)).toEqual([
        { fields: ['lockDate'], before: { lockDate: null }, after: { lockDate: '2026-06-30' } },
        { fields: ['lockDate'], before: { lockDate: '2026-06-30' }, after: { lockDate: null } },
      ]);
      // No API method sets the profile: a key on the console's JSON API is not a session.
      const withKey = await fetch(`${t.url}/console/api/org/profile`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${o.keys.agent}` },
        body: JSON.stringify({ lockDate: '2026-06-30' }),
      });
      expect(withKey.status).not.toBe(200);
      expect((await t.get(o.keys.reader, 'org/profile')).body.lockDate).toBeNull();
    });

    it('every way to post on or before the lock date is refused, naming the field, and changes nothing', async () => {
      clock = '2026-06-29T01:00:00.000Z';
      const o = await t.org();
      // Before the lock: an invoice issued in June, a draft dated June, June bank lines (one recoded).
      const inv = await draft(o, { issueDate: '2026-06-10' });
      await ok(o.keys.agent, 'books.invoiceSend', { id: inv.id });
      const lateDraft = await draft(o, { issueDate: '2026-06-20' });
      const bill = await ok(o.keys.agent, 'books.billCapture', {
        payeeName: 'Timber Co',
        description: 'Oak',
        totalCents: 5_000,
        dueDays: 30,
        issueDate: '2026-06-20',
      });
      const claim = await ok(o.keys.agent, 'books.expenseClaim', {
        claimant: 'Sam',
        description: 'Fuel',
        amountCents: 500,
        spentOn: '2026-06-20',
        receiptRef: 'r',
        issueDate: '2026-06-21',
      });
      const feed = await ok(o.keys.agent, 'books.feedLines', {
        lines: [
          { date: '2026-06-29', amountCents: 11_000, description: 'PAYMENT' },
          { date: '2026-06-29', amountCents: -1_000, description: 'FEE' },
        ],
      });
      const [payLine, feeLine] = feed.lineIds as string[];
      await ok(o.keys.agent, 'books.lineRecode', { lineId: feeLine, accountCode: '6300' });

      clock = JUL15;
      expect((await setProfile(o, { lockDate: '2026-06-30' })).status).toBe(200);
      const june = { payeeName: 'A', description: 'x', totalCents: 100, dueDays: 7, issueDate: '2026-06-30' };
      await refused(
        o,
        o.keys.agent,
        'books.journalPost',
        {
          date: '2026-06-30',
          memo: 'Accrual',
          lines: [
            { accountCode: '6000', debitCents: 100 },
            { accountCode: '3000', creditCents: 100 },
          ],
        },
        'BAD_REQUEST',
        'date',
      );
      await refused(o, o.keys.agent, 'books.invoiceDraft', june, 'BAD_REQUEST', 'issueDate');
      await refused(o, o.keys.agent, 'books.billCapture', june, 'BAD_REQUEST', 'issueDate');
      await refused(
        o,
        o.keys.agent,
        'books.expenseClaim',
        {
          claimant: 'Sam',
          description: 'x',
          amountCents: 100,
          spentOn: '2026-06-01',
          receiptRef: 'r',
          issueDate: '2026-06-01',
        },
        'BAD_REQUEST',
        'issueDate',
      );
      await refused(
        o,
        o.keys.agent,
        'books.invoiceCreditNote',
        { id: inv.id, amountCents: 100, reason: 'x', issueDate: '2026-06-30' },
        'BAD_REQUEST',
        'issueDate',
      );
      await refused(
        o,
        o.keys.agent,
        'books.invoiceRecordPayment',
        { id: inv.id, amountCents: 100, date: '2026-06-30' },
        'BAD_REQUEST',
        'date',
      );
      // Documents dated before the lock moved over them cannot be posted now.
      await refused(o, o.keys.agent, 'books.invoiceSend', { id: lateDraft.id }, 'BAD_REQUEST', 'issueDate');
      await refused(o, o.keys.agent, 'books.expenseApprove', { id: claim.id }, 'BAD_REQUEST', 'id');
      const billApprove = await t.post(o.keys.agent, 'books.billApprove', { id: bill.id });
      expect(billApprove.body.ok).toBe(false);
      // Bank lines of June: not matched, not coded, not re-coded.
      await refused(
        o,
        o.keys.agent,
        'books.matchAccept',
        { lineId: payLine, target: { kind: 'invoice', id: inv.id } },
        'BAD_REQUEST',
        'lineId',
      );
      await refused(o, o.keys.agent, 'books.lineRecode', { lineId: payLine, accountCode: '4100' }, 'BAD_REQUEST', 'lineId');
      await refused(o, o.keys.agent, 'books.lineRecode', { lineId: feeLine, accountCode: '6000' }, 'BAD_REQUEST', 'lineId');
      // After the lock date all of these go through.
      await ok(o.keys.agent, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 100, date: '2026-07-01' });
      await ok(o.keys.agent, 'books.invoiceCreditNote', { id: inv.id, amountCents: 100, reason: 'x', issueDate: '2026-07-01' });

      // Today locked: anything posting today is refused (void, send, a payment defaulting to today).
      const clean = await draft(o);
      await ok(o.keys.agent, 'books.invoiceSend', { id: clean.id });
      const other = await draft(o);
      expect(other.number).toBe('INV-0004');
      expect((await setProfile(o, { lockDate: '2026-07-15' })).status).toBe(200);
      await refused(o, o.keys.agent, 'books.invoiceSend', { id: other.id }, 'BAD_REQUEST', 'date');
      await refused(o, o.keys.agent, 'books.invoiceVoid', { id: clean.id, reason: 'Wrong customer' }, 'BAD_REQUEST', 'date');
      await refused(o, o.keys.agent, 'books.invoiceRecordPayment', { id: clean.id, amountCents: 100 }, 'BAD_REQUEST', 'date');
      // A draft is voided with no posting: nothing enters the locked period, so it is allowed.
      expect((await ok(o.keys.agent, 'books.invoiceVoid', { id: other.id, reason: 'Not needed' })).status).toBe('void');
    });
  });

  describe('approval expiry', () => {
    it('is judged by the server clock: an approval expires when the clock passes expiresAt', async () => {
      clock = JUL15;
      const o = await t.org();
      const bill = await ok(o.keys.agent, 'books.billCapture', {
        payeeName: 'New Supplier',
        description: 'Oak',
        totalCents: 5_000,
        dueDays: 30,
      });
      const first = await t.post(o.keys.agent, 'books.billApprove', { id: bill.id });
      const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.body.error.message)?.[1];
      const req = await ok(o.keys.agent, 'approval.request', {
        actionClass: 'books.bill_approve',
        payloadHash,
        subject: { kind: 'books.signature', subjectId: bill.id },
      });
      expect((await t.get(o.keys.observer, `approval.wait?approvalId=${req.approvalId}`)).body.status).toBe('pending');
      const pending = (await t.get(o.keys.observer, 'decision.list?status=pending')).body;
      expect(pending.decisions.map((d: { approvalId: string }) => d.approvalId)).toEqual([req.approvalId]);
      // The wall clock has not moved; the server's has.
      clock = new Date(Date.parse(req.expiresAt) + 60_000).toISOString();
      expect((await t.get(o.keys.observer, `approval.wait?approvalId=${req.approvalId}`)).body.status).toBe('expired');
      const expired = (await t.get(o.keys.observer, 'decision.list?status=expired')).body;
      expect(expired.decisions.map((d: { approvalId: string }) => d.approvalId)).toEqual([req.approvalId]);
      expect((await t.get(o.keys.observer, 'decision.list?status=pending')).body.decisions).toEqual([]);
      clock = JUL15;
    });
  });
});
