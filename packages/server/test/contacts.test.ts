import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, openTestDatabase, startTestServer, type TestServer } from './harness.js';
import { approvedBill, bank, FUNDING, inDays } from './payables-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

/**
 * Contacts: customers and suppliers as records, found or created by the
 * documents that name them, changed by books.contactCreate / books.contactUpdate, listed with
 * their balances by GET contacts.list. Every case through HTTP, on both engines.
 */

const DOC = { description: 'Work', totalCents: 11_000, dueDays: 14 };
const ABN = '51 824 753 556';

describe.each(engines)('contacts (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine, { paymentsOutboxDir: mkdtempSync(join(tmpdir(), 'fd-contacts-pay-')) });
    org = await t.org();
  });
  afterAll(async () => t.close());

  const post = (method: string, params: Record<string, unknown>, o: CreatedOrg = org) => t.post(o.keys.agent, method, params);
  const ok = async (method: string, params: Record<string, unknown>, o: CreatedOrg = org) => {
    const r = await post(method, params, o);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const seq = async (o: CreatedOrg = org) => (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;
  const lastEvent = async (o: CreatedOrg = org) => {
    const s = await seq(o);
    return (await t.get(o.keys.observer, `events?cursor=${s - 1}`)).body.events[0];
  };
  const list = async (query = '', o: CreatedOrg = org) => {
    const r = await t.get(o.keys.observer, `contacts.list${query ? `?${query}` : ''}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { contacts: any[]; nextCursor: string | null };
  };
  const contactNamed = async (name: string, o: CreatedOrg = org) =>
    (await list(`q=${encodeURIComponent(name)}`, o)).contacts.find((c) => c.name === name);
  /** Refused with `code` and a message matching `message`, appending nothing. */
  const refused = async (
    method: string,
    params: Record<string, unknown>,
    status: number,
    code: string,
    message: RegExp,
    o: CreatedOrg = org,
  ) => {
    const before = await seq(o);
    const r = await post(method, params, o);
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.message).toMatch(message);
    expect(await seq(o)).toBe(before);
  };

  describe('documents find or create their contact by normalised name', () => {
    it('"Café Ltd", "CAFE LTD" and "cafe\\u0301  ltd" are one contact, created once by the first invoice', async () => {
      const o = await t.org();
      const first = await ok('books.invoiceDraft', { ...DOC, payeeName: 'Café Ltd', payeeEmail: 'ap@cafe.example' }, o);
      expect(first.contactId).toMatch(/^con_[0-9a-z]{26}$/);
      const created = await lastEvent(o);
      expect(created).toMatchObject({
        kind: 'books.invoice.draft',
        entity_id: first.id,
        payload: { payee: 'Café Ltd', contactId: first.contactId, contactCreated: true },
      });
      for (const payeeName of ['CAFE LTD', 'cafe\u0301  ltd']) {
        const again = await ok('books.invoiceDraft', { ...DOC, payeeName }, o);
        expect(again).toMatchObject({ contactId: first.contactId, payeeName });
        const ev = await lastEvent(o);
        expect(ev.payload).toMatchObject({ contactId: first.contactId });
        expect(ev.payload.contactCreated).toBeUndefined();
      }
      const { contacts } = await list('', o);
      expect(contacts).toHaveLength(1);
      expect(contacts[0]).toMatchObject({
        id: first.contactId,
        name: 'Café Ltd',
        email: 'ap@cafe.example',
        abn: null,
        isCustomer: true,
        isSupplier: false,
        bank: null,
        ledgerId: created.row_hash.slice(0, 8),
        receivableCents: 0,
        openInvoices: 0,
        payableCents: 0,
        openBills: 0,
      });
    });

    it('a bill from the same name makes the contact a supplier too; one event per act, nothing else', async () => {
      const o = await t.org();
      const inv = await ok('books.invoiceDraft', { ...DOC, payeeName: 'Harbour Joinery' }, o);
      const before = await seq(o);
      const bill = await ok('books.billCapture', { ...DOC, payeeName: 'HARBOUR  joinery' }, o);
      expect(await seq(o)).toBe(before + 1);
      expect(bill).toMatchObject({ contactId: inv.contactId, payeeName: 'HARBOUR  joinery' });
      const ev = await lastEvent(o);
      expect(ev).toMatchObject({ kind: 'books.bill.capture', payload: { contactId: inv.contactId } });
      const [c] = (await list('', o)).contacts;
      expect(c).toMatchObject({ id: inv.contactId, isCustomer: true, isSupplier: true, ledgerId: ev.row_hash.slice(0, 8) });
    });

    it("a contactId alone writes the contact's name; with a payeeName it must be the same contact", async () => {
      const o = await t.org();
      const c = await ok('books.contactCreate', { name: 'Summit Roofing', kind: 'supplier' }, o);
      const byId = await ok('books.invoiceDraft', { ...DOC, contactId: c.id }, o);
      expect(byId).toMatchObject({ payeeName: 'Summit Roofing', contactId: c.id });
      const both = await ok('books.billCapture', { ...DOC, contactId: c.id, payeeName: 'summit roofing' }, o);
      expect(both).toMatchObject({ payeeName: 'summit roofing', contactId: c.id });
      expect((await list('', o)).contacts).toMatchObject([{ id: c.id, isCustomer: true, isSupplier: true }]);
      await refused(
        'books.invoiceDraft',
        { ...DOC, contactId: c.id, payeeName: 'Summit Plumbing' },
        400,
        'BAD_REQUEST',
        /^payeeName: is not the name of contact con_\w+ \("Summit Roofing"\)/,
        o,
      );
      await refused('books.billCapture', { ...DOC, contactId: c.id, payeeName: 'Other' }, 400, 'BAD_REQUEST', /^payeeName: /, o);
      await refused('books.invoiceDraft', DOC, 400, 'BAD_REQUEST', /^payeeName: is required \(or give contactId\)$/, o);
      await refused('books.billCapture', DOC, 400, 'BAD_REQUEST', /^payeeName: is required \(or give contactId\)$/, o);
      expect((await list('', o)).contacts).toHaveLength(1);
    });

    it("another organisation's contact is NOT_FOUND for documents, updates and filters", async () => {
      const mine = await t.org();
      const theirs = await t.org();
      const c = await ok('books.contactCreate', { name: 'Private Co', kind: 'customer' }, theirs);
      await refused('books.invoiceDraft', { ...DOC, contactId: c.id }, 404, 'NOT_FOUND', new RegExp(`^contact ${c.id} not found$`), mine);
      await refused('books.billCapture', { ...DOC, contactId: c.id }, 404, 'NOT_FOUND', /not found/, mine);
      await refused('books.contactUpdate', { id: c.id, email: 'x@y.example' }, 404, 'NOT_FOUND', /not found/, mine);
      for (const method of ['books.invoices', 'books.bills']) {
        const r = await t.post(mine.keys.reader, method, { contactId: c.id });
        expect(r.status).toBe(404);
        expect(r.body.error.code).toBe('NOT_FOUND');
      }
      expect((await list('', mine)).contacts).toEqual([]);
      expect((await t.get(mine.keys.observer, `contacts.list?cursor=${c.id}`)).status).toBe(400);
    });

    it('two drafts racing with one new name end with one contact, created by exactly one of them', async () => {
      const o = await t.org();
      const names = ['Racing Café', 'RACING CAFE', 'racing cafe\u0301', 'Racing  Café', 'racing café'];
      const results = await Promise.all(
        [...names, ...names].map((payeeName, i) =>
          post(i % 2 === 0 ? 'books.invoiceDraft' : 'books.billCapture', { ...DOC, payeeName }, o),
        ),
      );
      for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
      const ids = new Set(results.map((r) => r.body.result.contactId));
      expect(ids.size).toBe(1);
      const events = (await t.get(o.keys.observer, 'events?limit=500')).body.events as any[];
      expect(events.filter((e) => e.payload?.contactCreated === true)).toHaveLength(1);
      const { contacts } = await list('', o);
      expect(contacts).toHaveLength(1);
      expect(contacts[0]).toMatchObject({ id: [...ids][0], isCustomer: true, isSupplier: true });
    });
  });

  describe('books.contactCreate and books.contactUpdate', () => {
    it('create: a contact before its first document; the same name again is a no-op; another kind makes it both', async () => {
      const o = await t.org();
      const c = await ok('books.contactCreate', { name: 'Beacon Studio', kind: 'customer', email: 'hi@beacon.example', abn: ABN }, o);
      expect(c).toMatchObject({
        name: 'Beacon Studio',
        email: 'hi@beacon.example',
        abn: '51824753556',
        isCustomer: true,
        isSupplier: false,
      });
      const created = await lastEvent(o);
      expect(created).toMatchObject({
        kind: 'books.contact.create',
        entity_id: c.id,
        payload: { name: 'Beacon Studio', kind: 'customer', abn: '51824753556', hasEmail: true, created: true },
      });
      expect(JSON.stringify(created.payload)).not.toContain('hi@beacon.example');
      const before = await seq(o);
      const again = await ok('books.contactCreate', { name: 'BEACON studio', kind: 'customer', abn: '51824753556' }, o);
      expect(again).toEqual({ ...c, noop: true });
      expect(await seq(o)).toBe(before);
      await refused(
        'books.contactCreate',
        { name: 'Beacon Studio', kind: 'customer', email: 'other@beacon.example' },
        409,
        'CONFLICT',
        new RegExp(`^contact ${c.id} \\("Beacon Studio"\\) already has this name with another email`),
        o,
      );
      const both = await ok('books.contactCreate', { name: 'Beacon Studio', kind: 'supplier' }, o);
      expect(both).toMatchObject({ id: c.id, isCustomer: true, isSupplier: true });
      expect(both.noop).toBeUndefined();
      expect(await lastEvent(o)).toMatchObject({
        kind: 'books.contact.create',
        entity_id: c.id,
        payload: { kind: 'supplier', created: false },
      });
      // The invoice then finds it by name.
      expect((await ok('books.invoiceDraft', { ...DOC, payeeName: 'beacon studio' }, o)).contactId).toBe(c.id);
    });

    it('update: bad ABN, unknown fields (bank details) and nothing to change are BAD_REQUEST naming the field', async () => {
      const o = await t.org();
      const c = await ok('books.contactCreate', { name: 'Granite Tiling', kind: 'supplier' }, o);
      await refused(
        'books.contactUpdate',
        { id: c.id, abn: '51 824 753 557' },
        400,
        'BAD_REQUEST',
        /^abn: must pass the ABN check digits$/,
        o,
      );
      await refused('books.contactUpdate', { id: c.id, abn: '1234' }, 400, 'BAD_REQUEST', /^abn: must be an ABN of 11 digits/, o);
      await refused('books.contactCreate', { name: 'X', kind: 'customer', abn: '51824753557' }, 400, 'BAD_REQUEST', /^abn: /, o);
      await refused('books.contactUpdate', { id: c.id, bsb: '062-000' }, 400, 'BAD_REQUEST', /bsb/, o);
      await refused('books.contactUpdate', { id: c.id, bankAccountNumber: '12345678' }, 400, 'BAD_REQUEST', /bankAccountNumber/, o);
      await refused('books.contactUpdate', { id: c.id }, 400, 'BAD_REQUEST', /^id: give at least one of name, email, abn$/, o);
      await refused(
        'books.contactUpdate',
        { id: c.id, email: 'not-an-address' },
        400,
        'BAD_REQUEST',
        /^email: must be an email address$/,
        o,
      );
      await refused('books.contactUpdate', { id: 'con_nope', email: 'a@b.example' }, 404, 'NOT_FOUND', /^contact con_nope not found$/, o);
    });

    it('update: changes name, email and ABN with one event; the same values again are a no-op with its ledgerId', async () => {
      const o = await t.org();
      const c = await ok('books.contactCreate', { name: 'Willow Nursery', kind: 'customer', email: 'old@willow.example' }, o);
      const u = await ok(
        'books.contactUpdate',
        { id: c.id, name: 'Willow Nursery Pty Ltd', email: 'new@willow.example', abn: '53 004 085 616' },
        o,
      );
      expect(u).toMatchObject({ id: c.id, name: 'Willow Nursery Pty Ltd', email: 'new@willow.example', abn: '53004085616' });
      const ev = await lastEvent(o);
      expect(ev).toMatchObject({
        kind: 'books.contact.update',
        entity_id: c.id,
        payload: { changed: ['name', 'email', 'abn'], name: 'Willow Nursery Pty Ltd', previousName: 'Willow Nursery', abn: '53004085616' },
      });
      expect(JSON.stringify(ev.payload)).not.toContain('willow.example');
      expect(u.ledgerId).toBe(ev.row_hash.slice(0, 8));
      const before = await seq(o);
      const same = await ok(
        'books.contactUpdate',
        { id: c.id, name: 'Willow Nursery Pty Ltd', email: 'new@willow.example', abn: '53004085616' },
        o,
      );
      expect(same).toEqual({ ...u, noop: true });
      expect(await seq(o)).toBe(before);
      // null clears; the new name is how documents find it now, the old one makes a new contact.
      expect(await ok('books.contactUpdate', { id: c.id, email: null, abn: null }, o)).toMatchObject({ email: null, abn: null });
      expect((await ok('books.invoiceDraft', { ...DOC, payeeName: 'willow nursery pty ltd' }, o)).contactId).toBe(c.id);
      expect((await ok('books.invoiceDraft', { ...DOC, payeeName: 'Willow Nursery' }, o)).contactId).not.toBe(c.id);
    });

    it("update: a name that normalises to another contact's is CONFLICT naming that contact", async () => {
      const o = await t.org();
      const a = await ok('books.contactCreate', { name: 'Kestrel Freight', kind: 'supplier' }, o);
      const b = await ok('books.contactCreate', { name: 'Kestrel Logistics', kind: 'supplier' }, o);
      await refused(
        'books.contactUpdate',
        { id: b.id, name: 'KESTREL FREIGHT' },
        409,
        'CONFLICT',
        new RegExp(`^name: contact ${a.id} \\("Kestrel Freight"\\) already has this name$`),
        o,
      );
      // Its own name in another spelling is a change of spelling, not a conflict.
      expect(await ok('books.contactUpdate', { id: a.id, name: 'KESTREL Freight' }, o)).toMatchObject({
        id: a.id,
        name: 'KESTREL Freight',
      });
    });

    it('write methods need books.write; contacts.list is an org.read', async () => {
      const o = await t.org();
      for (const method of ['books.contactCreate', 'books.contactUpdate']) {
        const r = await t.post(o.keys.reader, method, { name: 'x', kind: 'customer' });
        expect(r.status).toBe(403);
        expect(r.body.error.message).toBe(`missing scope books.write for ${method}`);
      }
      expect((await t.get(o.keys.observer, 'contacts.list')).status).toBe(200);
      expect((await t.get(null, 'contacts.list')).status).toBe(401);
    });
  });

  describe('balances', () => {
    it('receivableCents is what books.invoices says is outstanding: after partial payment, credit note, draft and void', async () => {
      const o = await t.org();
      const sent = async (totalCents: number) => {
        const d = await ok('books.invoiceDraft', { ...DOC, payeeName: 'Orchid Pharmacy', totalCents }, o);
        return ok('books.invoiceSend', { id: d.id }, o);
      };
      const paidInPart = await sent(110_000);
      await ok('books.invoiceRecordPayment', { id: paidInPart.id, amountCents: 30_000 }, o);
      const credited = await sent(55_000);
      await ok('books.invoiceCreditNote', { id: credited.id, amountCents: 22_000, reason: 'short delivery' }, o);
      const settled = await sent(10_000);
      await ok('books.invoiceRecordPayment', { id: settled.id, amountCents: 10_000 }, o);
      const cleared = await sent(5_000);
      await ok('books.invoiceCreditNote', { id: cleared.id, amountCents: 5_000, reason: 'goodwill' }, o);
      await ok('books.invoiceDraft', { ...DOC, payeeName: 'orchid pharmacy', totalCents: 99_000 }, o);
      const voided = await ok('books.invoiceDraft', { ...DOC, payeeName: 'Orchid Pharmacy', totalCents: 77_000 }, o);
      await ok('books.invoiceVoid', { id: voided.id, reason: 'raised twice' }, o);
      const c = await contactNamed('Orchid Pharmacy', o);
      expect(c).toMatchObject({ receivableCents: 80_000 + 33_000, openInvoices: 2, payableCents: 0, openBills: 0 });
      const invoices = (await t.post(o.keys.reader, 'books.invoices', { contactId: c.id })).body.result.invoices as any[];
      expect(invoices).toHaveLength(6);
      expect(invoices.every((i) => i.contactId === c.id)).toBe(true);
      expect(invoices.reduce((s, i) => s + i.outstandingCents, 0)).toBe(c.receivableCents);
      expect(invoices.filter((i) => i.outstandingCents > 0)).toHaveLength(c.openInvoices);
    });

    it('payableCents is what books.bills says is still to pay on approved bills; a payment run clears it', async () => {
      const o = await t.org();
      const supplier = { payeeName: 'Redgum Cabinets', ...bank('062-703', '11223344', 'Redgum Cabinets') };
      const a = await approvedBill(t, o, { ...supplier, description: 'Doors', totalCents: 100_000, dueDays: 7 });
      const b = await approvedBill(t, o, { ...supplier, description: 'Hinges', totalCents: 40_000, dueDays: 7 });
      await ok('books.billCapture', { ...supplier, description: 'Awaiting approval', totalCents: 9_000, dueDays: 7 }, o);
      const parked = await approvedBill(t, o, { ...supplier, description: 'Disputed', totalCents: 6_000, dueDays: 7 });
      await ok('books.billHold', { id: parked.id, reason: 'disputed' }, o);
      let c = await contactNamed('Redgum Cabinets', o);
      expect(c).toMatchObject({ payableCents: 146_000, openBills: 3, receivableCents: 0, isSupplier: true, isCustomer: false });
      expect(c.bank).toEqual({ bsb: '062-703', accountNumberMasked: '*****344', accountName: 'REDGUM CABINETS' });
      const posted = ((await t.post(o.keys.reader, 'books.bills', { contactId: c.id })).body.result.bills as any[]).filter(
        (x) => x.journalId !== null,
      );
      expect(posted.reduce((s, x) => s + x.outstandingCents, 0)).toBe(c.payableCents);

      const params = { billIds: [a.id], paymentDate: inDays(1), funding: FUNDING };
      const { approvalId } = await heldAndRequested(t, o, 'books.billScheduleRun', params);
      await decide(t, o, approvalId, true);
      const run = await t.post(o.keys.agent, 'books.billScheduleRun', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
      expect(run.body.result).toMatchObject({ status: 'executed' });
      c = await contactNamed('Redgum Cabinets', o);
      expect(c).toMatchObject({ payableCents: 46_000, openBills: 2 });
      await ok('books.billReturn', { id: b.id, reason: 'wrong order' }, o);
      expect(await contactNamed('Redgum Cabinets', o)).toMatchObject({ payableCents: 6_000, openBills: 1 });
    });

    it('the contact keeps the bank details of its most recently approved bill; a returned bill gives them back', async () => {
      const o = await t.org();
      await approvedBill(t, o, {
        payeeName: 'Lantern Glazing',
        description: 'Glass',
        totalCents: 1_000,
        ...bank('083-047', '587412369', 'Lantern Glazing'),
      });
      expect((await contactNamed('Lantern Glazing', o)).bank).toMatchObject({ bsb: '083-047', accountNumberMasked: '******369' });
      // New details: held for a human (BANK_DETAILS_CHANGED, unchanged by contacts); only approval moves the contact's.
      const cap = await ok(
        'books.billCapture',
        {
          payeeName: 'Lantern Glazing',
          description: 'More glass',
          totalCents: 1_000,
          dueDays: 7,
          ...bank('013-006', '45678901', 'Lantern Glazing'),
        },
        o,
      );
      expect(cap.heldReason).toBe('BANK_DETAILS_CHANGED');
      expect((await contactNamed('Lantern Glazing', o)).bank).toMatchObject({ bsb: '083-047' });
      await refused('books.billApprove', { id: cap.id }, 423, 'GOVERNANCE_NOT_READY', /books\.bill_approve/, o);
      const newer = await approvedBill(t, o, {
        payeeName: 'Lantern Glazing',
        description: 'Glass again',
        totalCents: 1_000,
        ...bank('013-006', '45678901', 'Lantern Glazing'),
      });
      expect((await contactNamed('Lantern Glazing', o)).bank).toEqual({
        bsb: '013-006',
        accountNumberMasked: '*****901',
        accountName: 'LANTERN GLAZING',
      });
      await ok('books.billReturn', { id: newer.id, reason: 'fraudulent' }, o);
      expect((await contactNamed('Lantern Glazing', o)).bank).toMatchObject({ bsb: '083-047', accountNumberMasked: '******369' });
    });
  });

  describe('GET contacts.list', () => {
    let o: CreatedOrg;
    const names = ['Acme Joinery', 'Banksia Bakery', 'Café Royal', 'Coastal Freight', 'Juniper Printing', 'Meridian 50% Off'];
    beforeAll(async () => {
      o = await t.org();
      for (const [i, name] of names.entries()) {
        await ok('books.contactCreate', { name, kind: i % 2 === 0 ? 'customer' : 'supplier' }, o);
      }
    });

    it('pages in name order by cursor until nextCursor is null', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await list(`limit=4${cursor ? `&cursor=${cursor}` : ''}`, o);
        seen.push(...page.contacts.map((c) => c.name));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBe(2);
      expect(seen).toEqual(names);
    });

    it('filters by kind and by a name fragment, case and accents folded, wildcards literal', async () => {
      expect((await list('kind=customer', o)).contacts.map((c) => c.name)).toEqual(['Acme Joinery', 'Café Royal', 'Juniper Printing']);
      expect((await list('kind=supplier', o)).contacts.map((c) => c.name)).toEqual([
        'Banksia Bakery',
        'Coastal Freight',
        'Meridian 50% Off',
      ]);
      expect((await list(`q=${encodeURIComponent('CAFÉ')}`, o)).contacts.map((c) => c.name)).toEqual(['Café Royal']);
      expect((await list('q=cafe', o)).contacts.map((c) => c.name)).toEqual(['Café Royal']);
      expect((await list('q=ery', o)).contacts.map((c) => c.name)).toEqual(['Acme Joinery', 'Banksia Bakery']);
      expect((await list(`q=${encodeURIComponent('%')}`, o)).contacts.map((c) => c.name)).toEqual(['Meridian 50% Off']);
      expect((await list(`q=${encodeURIComponent('_')}`, o)).contacts).toEqual([]);
      expect((await list('kind=supplier&q=co', o)).contacts.map((c) => c.name)).toEqual(['Coastal Freight']);
    });

    it('refuses bad queries naming the parameter', async () => {
      const cases: [string, RegExp][] = [
        ['limit=0', /^limit: must be an integer from 1 to 200$/],
        ['limit=201', /^limit: /],
        ['kind=employee', /^kind: /],
        [`q=${'a'.repeat(101)}`, /^q: /],
        ['q=', /^q: must not be empty$/],
        ['cursor=con_unknown', /^cursor: no contact con_unknown in this organisation/],
        ['colour=red', /colour/],
      ];
      for (const [query, message] of cases) {
        const r = await t.get(o.keys.observer, `contacts.list?${query}`);
        expect(r.status, query).toBe(400);
        expect(r.body.error.code).toBe('BAD_REQUEST');
        expect(r.body.error.message, query).toMatch(message);
      }
    });
  });

  describe('books.invoices and books.bills by contact', () => {
    it("each row carries contactId and the contactId filter keeps that contact's documents", async () => {
      const o = await t.org();
      const a = await ok('books.invoiceDraft', { ...DOC, payeeName: 'Pioneer Electrical' }, o);
      await ok('books.invoiceDraft', { ...DOC, payeeName: 'Someone Else' }, o);
      const b = await ok('books.billCapture', { ...DOC, payeeName: 'pioneer electrical' }, o);
      await ok('books.billCapture', { ...DOC, payeeName: 'Someone Else' }, o);
      const inv = (await t.post(o.keys.reader, 'books.invoices', { contactId: a.contactId })).body.result.invoices as any[];
      expect(inv.map((i) => [i.id, i.contactId])).toEqual([[a.id, a.contactId]]);
      const bills = (await t.post(o.keys.reader, 'books.bills', { contactId: a.contactId })).body.result.bills as any[];
      expect(bills.map((x) => [x.id, x.contactId])).toEqual([[b.id, a.contactId]]);
      const all = (await t.post(o.keys.reader, 'books.invoices', {})).body.result.invoices as any[];
      expect(all.every((i) => /^con_/.test(i.contactId))).toBe(true);
    });
  });
});

describe.each(engines)('migration 25: contacts from existing invoices and bills (%s)', (engine) => {
  it('one contact per organisation and normalised payee name, contact_id on every row, bank from the last approved bill', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate({ throughId: 24 });
      const at = (d: number) => `2026-01-0${d}T00:00:00.000Z`;
      await db.write(async (tx) => {
        const invoice = (org: string, id: string, name: string, email: string | null, day: number) =>
          tx.run(
            `INSERT INTO invoices (org_id, id, status, payee_name, payee_search, description, total_cents, due_days, created_at, ledger_id, payee_email)
             VALUES (?, ?, 'draft', ?, '', 'Old work', 1000, 7, ?, ?, ?)`,
            [org, id, name, at(day), `led${id}`, email],
          );
        const bill = (org: string, id: string, name: string, day: number, approved: boolean, status: string, bsb: string | null) =>
          tx.run(
            `INSERT INTO bills (org_id, id, status, payee_name, payee_key, description, total_cents, due_days, due_on,
               payee_bsb, payee_account_number, payee_account_name, approved_at, created_at, ledger_id)
             VALUES (?, ?, ?, ?, ?, 'Old', 100, 7, '2026-01-20', ?, ?, ?, ?, ?, ?)`,
            [
              org,
              id,
              status,
              name,
              name.toLowerCase(),
              bsb,
              bsb ? `9${day}12345` : null,
              bsb ? 'OLD NAME' : null,
              approved ? at(day) : null,
              at(day),
              `led${id}`,
            ],
          );
        await invoice('org_a', 'inv_1', 'Café Ltd', 'first@cafe.example', 1);
        await invoice('org_a', 'inv_2', 'CAFE LTD', 'newest@cafe.example', 3);
        await invoice('org_a', 'inv_3', 'cafe\u0301 ltd', null, 4);
        await invoice('org_a', 'inv_4', 'Tea House', null, 2);
        await bill('org_a', 'bill_1', 'Cafe Ltd', 2, true, 'approved', '062-000');
        await bill('org_a', 'bill_2', 'café ltd', 5, true, 'approved', '083-111');
        await bill('org_a', 'bill_3', 'CAFÉ LTD', 6, true, 'returned', '013-999');
        await bill('org_a', 'bill_4', 'Timber Co', 1, false, 'captured', '062-000');
        await invoice('org_b', 'inv_5', 'café ltd', null, 1);
        return null;
      });
      await db.migrate();
      const contacts = await db.reader.all<Record<string, unknown>>(
        `SELECT org_id, id, name, name_key, email, is_customer, is_supplier, bank_bsb, bank_account_number, created_at, ledger_id
         FROM contacts ORDER BY org_id, name_key`,
      );
      expect(
        contacts.map((c) => ({ ...c, id: undefined, is_customer: Number(c.is_customer), is_supplier: Number(c.is_supplier) })),
      ).toEqual([
        {
          org_id: 'org_a',
          id: undefined,
          name: 'Café Ltd',
          name_key: 'cafe ltd',
          email: 'newest@cafe.example',
          is_customer: 1,
          is_supplier: 1,
          bank_bsb: '083-111',
          bank_account_number: '9512345',
          created_at: at(1),
          ledger_id: 'ledinv_1',
        },
        {
          org_id: 'org_a',
          id: undefined,
          name: 'Tea House',
          name_key: 'tea house',
          email: null,
          is_customer: 1,
          is_supplier: 0,
          bank_bsb: null,
          bank_account_number: null,
          created_at: at(2),
          ledger_id: 'ledinv_4',
        },
        {
          org_id: 'org_a',
          id: undefined,
          name: 'Timber Co',
          name_key: 'timber co',
          email: null,
          is_customer: 0,
          is_supplier: 1,
          bank_bsb: null,
          bank_account_number: null,
          created_at: at(1),
          ledger_id: 'ledbill_4',
        },
        {
          org_id: 'org_b',
          id: undefined,
          name: 'café ltd',
          name_key: 'cafe ltd',
          email: null,
          is_customer: 1,
          is_supplier: 0,
          bank_bsb: null,
          bank_account_number: null,
          created_at: at(1),
          ledger_id: 'ledinv_5',
        },
      ]);
      const idOf = (org: string, key: string) => contacts.find((c) => c.org_id === org && c.name_key === key)?.id;
      for (const id of contacts.map((c) => c.id)) expect(String(id)).toMatch(/^con_[0-9a-z]{26}$/);
      const docs = await db.reader.all<{ org_id: string; id: string; contact_id: string | null }>(
        'SELECT org_id, id, contact_id FROM invoices UNION ALL SELECT org_id, id, contact_id FROM bills ORDER BY 2',
      );
      expect(docs.map((d) => [d.id, d.contact_id])).toEqual([
        ['bill_1', idOf('org_a', 'cafe ltd')],
        ['bill_2', idOf('org_a', 'cafe ltd')],
        ['bill_3', idOf('org_a', 'cafe ltd')],
        ['bill_4', idOf('org_a', 'timber co')],
        ['inv_1', idOf('org_a', 'cafe ltd')],
        ['inv_2', idOf('org_a', 'cafe ltd')],
        ['inv_3', idOf('org_a', 'cafe ltd')],
        ['inv_4', idOf('org_a', 'tea house')],
        ['inv_5', idOf('org_b', 'cafe ltd')],
      ]);
      // Applied once: migrating again changes nothing.
      await db.migrate();
      expect(Number((await db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM contacts'))?.n)).toBe(4);
    } finally {
      await db.close();
      await drop();
    }
  });
});
