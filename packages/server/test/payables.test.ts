import { gstOfInclusive } from '@finance-desk/protocol';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBillPayment, openBillsAsOf } from '../src/domain/payables/ledger-api.js';
import { accountBalanceCents, newJournalId } from '../src/domain/gl/post.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { inUnitOfWork } from '../src/write-path.js';
import { parseAba } from './aba-parse.js';
import { engines, refusal, startTestServer, type TestServer } from './harness.js';
import { approvedBill, bank, eventsOf, FUNDING, inDays, journalLines, journalsOf, today } from './payables-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';
import { testFixture } from './test-events.js';

/** A line on 1500 carries its fixed asset's details: approving the bill registers the asset. */
const ROUTER = { name: 'CNC router', effectiveLifeYears: 10, method: 'diminishing_value' };

describe.each(engines)('payables: bills post on approval (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine, { paymentsOutboxDir: mkdtempSync(join(tmpdir(), 'fd-pay-')) });
    org = await t.org();
  });
  afterAll(async () => t.close());

  const capture = (o: CreatedOrg, params: Record<string, unknown>) =>
    t.post(o.keys.agent, 'books.billCapture', { payeeName: 'Coastal Timber', description: 'Timber', dueDays: 30, ...params });

  /** One payment applied by another area's act (reconciliation), through the ledger API. */
  const pay = (o: CreatedOrg, billId: string, amountCents: number) =>
    inUnitOfWork(t.db, o.orgId, '', async (uow) => {
      const journalId = newJournalId();
      const { record, ...applied } = await applyBillPayment(uow, { billId, amountCents, date: today(), reference: 'EFT 1', journalId });
      await record((await uow.emit(testFixture, { entityId: billId, payload: { amountCents } })).ledgerId);
      return applied;
    });

  it('billCapture with lines: defaults, GST once per bill, bank details upper-cased, masked in the event', async () => {
    const r = await capture(org, {
      payeeName: 'Coastal Timber Supplies',
      description: 'October order',
      taxCode: 'GST_ON_EXPENSES',
      lines: [
        { description: 'Stationery', amountCents: 10_000, accountCode: '6600' },
        { description: 'CNC router', amountCents: 27_500, taxCode: 'GST_ON_CAPITAL', asset: ROUTER },
        { description: 'Fruit', amountCents: 4_560, taxCode: 'GST_FREE_EXPENSES' },
        { description: 'Bank fees', amountCents: 3_000, taxCode: 'INPUT_TAXED_EXPENSE', accountCode: '6300' },
      ],
      ...bank('062-703', '11223344', 'Coastal Timber Supplies Pty Ltd', 'cts-89012'),
    });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      status: 'held',
      heldReason: 'NEW_PAYEE',
      totalCents: 45_060,
      gstCents: 3_409, // round(37,500 / 11) once for the bill
      payeeAccountName: 'COASTAL TIMBER SUPPLIES PTY LTD',
      payeeReference: 'CTS-89012',
      journalId: null,
      lines: [
        { description: 'Stationery', amountCents: 10_000, taxCode: 'GST_ON_EXPENSES', accountCode: '6600', gstCents: 909 },
        { description: 'CNC router', amountCents: 27_500, taxCode: 'GST_ON_CAPITAL', accountCode: '1500', gstCents: 2_500 },
        { description: 'Fruit', amountCents: 4_560, taxCode: 'GST_FREE_EXPENSES', accountCode: '6000', gstCents: 0 },
        { description: 'Bank fees', amountCents: 3_000, taxCode: 'INPUT_TAXED_EXPENSE', accountCode: '6300', gstCents: 0 },
      ],
    });
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev).toMatchObject({
      kind: 'books.bill.capture',
      payload: { payee: 'Coastal Timber Supplies', totalCents: 45_060, payeeAccount: '062-703 ...344', runId: null },
    });
    expect(JSON.stringify(ev)).not.toContain('11223344');
    // Nothing posts before approval.
    expect(await journalsOf(t, org.orgId, r.body.result.id)).toEqual([]);
  });

  it('approval posts Dr expense/asset (net, tax-tagged) + Dr GST paid / Cr payables with the bill as document', async () => {
    const bill = await approvedBill(t, org, {
      payeeName: 'Posting Test',
      description: 'Mixed bill',
      lines: [
        { description: 'Stationery', amountCents: 10_000, accountCode: '6600' },
        { description: 'CNC router', amountCents: 27_500, taxCode: 'GST_ON_CAPITAL', asset: ROUTER },
        { description: 'Fruit', amountCents: 4_560, taxCode: 'GST_FREE_EXPENSES' },
      ],
    });
    expect(bill).toMatchObject({ status: 'approved', journalId: expect.stringMatching(/^jnl_/) });
    const [journal] = await journalsOf(t, org.orgId, bill.id);
    expect(journal).toMatchObject({ id: bill.journalId, date: today(), source_kind: 'bill', ledger_id: bill.ledgerId });
    expect(await journalLines(t, org.orgId, bill.journalId)).toEqual([
      {
        account_code: '6600',
        debit_cents: 9_091,
        credit_cents: 0,
        tax_code: 'GST_ON_EXPENSES',
        tax_base_cents: 10_000,
        gst_cents: 909,
        doc_id: null,
      },
      {
        account_code: '1500',
        debit_cents: 25_000,
        credit_cents: 0,
        tax_code: 'GST_ON_CAPITAL',
        tax_base_cents: 27_500,
        gst_cents: 2_500,
        doc_id: null,
      },
      {
        account_code: '6000',
        debit_cents: 4_560,
        credit_cents: 0,
        tax_code: 'GST_FREE_EXPENSES',
        tax_base_cents: 4_560,
        gst_cents: 0,
        doc_id: null,
      },
      { account_code: '1200', debit_cents: 3_409, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
      { account_code: '2000', debit_cents: 0, credit_cents: 42_060, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: bill.id },
    ]);
    const approveEvent = (await eventsOf(t, org)).at(-1);
    expect(approveEvent).toMatchObject({ kind: 'books.bill.approve', payload: { journalId: bill.journalId, gstCents: 3_409 } });
    // Approving again is a no-op (idempotent by state) and posts nothing more.
    const again = await t.post(org.keys.agent, 'books.billApprove', { id: bill.id });
    expect(again.body.result).toMatchObject({ noop: true, ledgerId: bill.ledgerId, journalId: bill.journalId });
    expect(await journalsOf(t, org.orgId, bill.id)).toHaveLength(1);
  });

  it('GST of a bill is rounded once and shared so the line tags sum to it', async () => {
    const bill = await approvedBill(t, org, {
      payeeName: 'Rounding Pty',
      description: 'Three equal lines',
      lines: [1, 2, 3].map((n) => ({ description: `Part ${n}`, amountCents: 1_000 })),
    });
    const lines = await journalLines(t, org.orgId, bill.journalId);
    const tagged = lines.filter((l) => l.tax_code === 'GST_ON_EXPENSES');
    expect(tagged.map((l) => l.gst_cents)).toEqual([91, 91, 91]);
    expect(bill.gstCents).toBe(gstOfInclusive(3_000));
    // Three 6-cent lines: rounding each line would give 3 cents of GST; the bill's GST is
    // round(18 / 11) = 2 (s 9-90: sum then round), shared by largest remainder, first line first.
    const uneven = await approvedBill(t, org, {
      payeeName: 'Rounding Pty',
      description: 'Sum then round',
      lines: ['a', 'b', 'c'].map((description) => ({ description, amountCents: 6 })),
    });
    expect(uneven.gstCents).toBe(2);
    expect(uneven.lines.map((l: any) => l.gstCents)).toEqual([1, 1, 0]);
    const unevenLines = (await journalLines(t, org.orgId, uneven.journalId)).filter((l) => l.tax_code);
    expect(unevenLines.map((l) => [l.debit_cents, l.gst_cents, l.tax_base_cents])).toEqual([
      [5, 1, 6],
      [5, 1, 6],
      [6, 0, 6],
    ]);
  });

  it('bad input names the field and changes nothing', async () => {
    const before = (await eventsOf(t, org)).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ lines: [{ description: 'x', amountCents: 100, accountCode: '6999' }] }, 'lines[0].accountCode: account 6999 does not exist'],
      [
        { lines: [{ description: 'x', amountCents: 100, accountCode: '1000' }] },
        'lines[0].accountCode: account 1000 is not an expense or asset account',
      ],
      [
        { lines: [{ description: 'x', amountCents: 100, accountCode: '4000' }] },
        'lines[0].accountCode: account 4000 is not an expense or asset',
      ],
      [{ totalCents: 100, lines: [{ description: 'x', amountCents: 150 }] }, 'totalCents: must equal the sum of lines (150)'],
      [{}, 'totalCents: is required (or give lines)'],
      [{ totalCents: 100, lines: [] }, 'lines: must have at least 1 line'],
      [{ lines: Array.from({ length: 101 }, () => ({ description: 'x', amountCents: 1 })) }, 'lines: must have at most 100 items'],
      [{ totalCents: 100, taxCode: 'GST' }, 'taxCode: must be one of GST_ON_EXPENSES'],
      [{ lines: [{ description: 'x', amountCents: 0 }] }, 'lines[0].amountCents: must be an integer greater than 0'],
      [
        { totalCents: 100, payeeBsb: '062-703' },
        'payeeAccountNumber: is required with payeeBsb; payeeAccountName: is required with payeeBsb',
      ],
      [{ totalCents: 100, ...bank('062703', '1', 'A') }, 'payeeBsb: must be a BSB of the form NNN-NNN'],
      [{ totalCents: 100, ...bank('062-703', '1234567890', 'A') }, 'payeeAccountNumber: must be 1 to 9 digits'],
      [{ totalCents: 100, ...bank('062-703', '000', 'A') }, 'payeeAccountNumber: must not be all zeros'],
      [{ totalCents: 100, ...bank('062-703', '1', 'Café Crème') }, 'payeeAccountName: must use only letters, digits'],
      [{ totalCents: 100, ...bank('062-703', '1', 'X'.repeat(33)) }, 'payeeAccountName: must be at most 32 characters'],
      [{ totalCents: 100, ...bank('062-703', '1', 'A', '0042') }, 'payeeReference: must not start with a space, a zero or a hyphen'],
    ];
    for (const [params, message] of cases) {
      const r = await capture(org, params);
      expect(r.status, message).toBe(400);
      expect(r.body.error.message).toContain(message);
    }
    expect((await eventsOf(t, org)).length).toBe(before);
  });

  it('a bad bank field is named once, with one message, and the other problems still follow', async () => {
    const before = (await eventsOf(t, org)).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ totalCents: 100, ...bank('062-703', '0x', 'A') }, 'payeeAccountNumber: must be 1 to 9 digits'],
      [{ totalCents: 100, ...bank('062-703', '1', '   ') }, 'payeeAccountName: must not be blank'],
      [{ totalCents: 100, ...bank('062-703', '1', 'A', ' ') }, 'payeeReference: must not be blank'],
      [
        { totalCents: 100, payeeAccountNumber: '000' },
        'payeeAccountNumber: must not be all zeros; payeeBsb: is required with payeeAccountNumber; payeeAccountName: is required with payeeAccountNumber',
      ],
    ];
    for (const [params, message] of cases) {
      const r = await capture(org, params);
      expect(r.body, message).toEqual(refusal('BAD_REQUEST', message));
    }
    expect((await eventsOf(t, org)).length).toBe(before);
  });

  it('billApprove, billHold, billReturn: bad input names the field, illegal states name the state; nothing changes', async () => {
    const o = await t.org();
    const open = (await capture(o, { payeeName: 'Open Co', totalCents: 1_000 })).body.result;
    const returned = (await capture(o, { payeeName: 'Returned Co', totalCents: 1_000 })).body.result;
    expect((await t.post(o.keys.agent, 'books.billReturn', { id: returned.id, reason: 'wrong entity' })).status).toBe(200);
    const paid = await approvedBill(t, o, { payeeName: 'Paid Co', description: 'x', totalCents: 2_000 });
    await pay(o, paid.id, 2_000);
    const statuses = async () => {
      const bills = (await t.post(o.keys.reader, 'books.bills', {})).body.result.bills as any[];
      return bills.map((b) => [b.id, b.status, b.outstandingCents]);
    };
    const was = await statuses();
    expect(was).toEqual([
      [open.id, 'held', 1_000],
      [returned.id, 'returned', 0],
      [paid.id, 'paid', 0],
    ]);
    const payable = await accountBalanceCents(t.db.reader, o.orgId, '2000');
    const before = (await eventsOf(t, o)).length;
    const cases: [string, Record<string, unknown>, number, string][] = [
      ['books.billApprove', {}, 400, 'id: is required'],
      ['books.billApprove', { id: 'bill 1' }, 400, 'id: must be an id (letters, digits, _ and -)'],
      [
        'books.billApprove',
        { id: open.id, approvalId: 'apr_x', signatureToken: 't' },
        400,
        'signatureToken: give either approvalId or signatureToken, not both',
      ],
      ['books.billApprove', { id: open.id, reason: 'x' }, 400, 'reason: unknown field'],
      ['books.billHold', { id: open.id, reason: '' }, 400, 'reason: must not be empty'],
      ['books.billHold', { id: open.id, reason: 'x'.repeat(501) }, 400, 'reason: must be at most 500 characters'],
      ['books.billReturn', { id: open.id }, 400, 'reason: is required'],
      ['books.billReturn', {}, 400, 'id: is required; reason: is required'],
      [
        'books.billApprove',
        { id: returned.id },
        409,
        `bill ${returned.id} is returned; only a captured, held or on-hold bill can be approved`,
      ],
      ['books.billApprove', { id: paid.id }, 409, `bill ${paid.id} is paid; only a captured, held or on-hold bill can be approved`],
      [
        'books.billHold',
        { id: returned.id, reason: 'x' },
        409,
        `bill ${returned.id} is returned; only a captured, held or approved bill can be put on hold`,
      ],
      [
        'books.billHold',
        { id: paid.id, reason: 'x' },
        409,
        `bill ${paid.id} is paid; only a captured, held or approved bill can be put on hold`,
      ],
      ['books.billReturn', { id: paid.id, reason: 'x' }, 409, `bill ${paid.id} is paid; it can no longer be returned`],
      ['books.billApprove', { id: 'bill_nope' }, 404, 'bill bill_nope not found'],
      ['books.billHold', { id: 'bill_nope', reason: 'x' }, 404, 'bill bill_nope not found'],
      ['books.billReturn', { id: 'bill_nope', reason: 'x' }, 404, 'bill bill_nope not found'],
    ];
    const code = { 400: 'BAD_REQUEST', 404: 'NOT_FOUND', 409: 'CONFLICT' } as Record<number, string>;
    for (const [method, params, status, message] of cases) {
      const r = await t.post(o.keys.agent, method, params);
      expect(r.status, `${method} ${JSON.stringify(params)}`).toBe(status);
      expect(r.body, method).toEqual(refusal(code[status] ?? String(status), message));
    }
    // Another organisation's bill does not exist there, whatever the method.
    for (const [method, params] of [
      ['books.billApprove', { id: open.id }],
      ['books.billHold', { id: open.id, reason: 'x' }],
      ['books.billReturn', { id: open.id, reason: 'x' }],
    ] as const) {
      const r = await t.post(org.keys.agent, method, params);
      expect(r.body.error, method).toEqual({ code: 'NOT_FOUND', message: `bill ${open.id} not found` });
    }
    expect((await eventsOf(t, o)).length).toBe(before);
    expect(await statuses()).toEqual(was);
    expect(await accountBalanceCents(t.db.reader, o.orgId, '2000')).toBe(payable);
  });

  it('hold then re-approve posts once; returning a posted bill reverses it (tags negated)', async () => {
    await approvedBill(t, org, { payeeName: 'Return Co', description: 'First (a human approves a new payee)', totalCents: 100 });
    const bill = await approvedBill(t, org, { payeeName: 'Return Co', description: 'Wrong goods', totalCents: 11_000 });
    expect(bill.heldReason).toBeNull();
    expect((await t.post(org.keys.agent, 'books.billHold', { id: bill.id, reason: 'disputed' })).body.result.status).toBe('on_hold');
    const again = await t.post(org.keys.agent, 'books.billApprove', { id: bill.id });
    expect(again.body.result).toMatchObject({ status: 'approved', journalId: bill.journalId });
    expect(await journalsOf(t, org.orgId, bill.id)).toHaveLength(1);
    const ret = await t.post(org.keys.agent, 'books.billReturn', { id: bill.id, reason: 'not ours' });
    expect(ret.body.result.status).toBe('returned');
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev).toMatchObject({ kind: 'books.bill.return', payload: { reversalJournalId: expect.stringMatching(/^jnl_/) } });
    const reversal = await journalLines(t, org.orgId, ev.payload.reversalJournalId);
    expect(reversal).toEqual([
      {
        account_code: '6000',
        debit_cents: 0,
        credit_cents: 10_000,
        tax_code: 'GST_ON_EXPENSES',
        tax_base_cents: -11_000,
        gst_cents: -1_000,
        doc_id: null,
      },
      { account_code: '1200', debit_cents: 0, credit_cents: 1_000, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
      { account_code: '2000', debit_cents: 11_000, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: bill.id },
    ]);
    expect((await openBillsAsOf(t.db.reader, org.orgId, '9999-12-31')).find((b) => b.id === bill.id)).toBeUndefined();
    // Returning a returned bill is a no-op and reverses nothing twice.
    expect((await t.post(org.keys.agent, 'books.billReturn', { id: bill.id, reason: 'x' })).body.result.noop).toBe(true);
    expect((await journalsOf(t, org.orgId, bill.id)).map((j) => j.source_kind)).toEqual(['bill', 'bill_return']);
  });

  it('ledger API: open bills as at a date, partial and full payments, overpayment and state refused', async () => {
    const o = await t.org();
    const a = await approvedBill(t, o, { payeeName: 'Alpha', description: 'a', totalCents: 50_000, dueDays: 10 });
    const b = await approvedBill(t, o, { payeeName: 'Beta', description: 'b', totalCents: 20_000, dueDays: 5 });
    const captured = (await capture(o, { payeeName: 'Alpha', totalCents: 999 })).body.result;
    expect(await openBillsAsOf(t.db.reader, o.orgId, inDays(-1))).toEqual([]); // posted today
    const open = await openBillsAsOf(t.db.reader, o.orgId, today());
    expect(open).toEqual([
      {
        id: b.id,
        kind: 'bill',
        party: 'Beta',
        reference: 'b',
        quoted: [],
        issuedOn: today(),
        postedOn: today(),
        dueOn: inDays(5),
        totalCents: 20_000,
        outstandingCents: 20_000,
      },
      {
        id: a.id,
        kind: 'bill',
        party: 'Alpha',
        reference: 'a',
        quoted: [],
        issuedOn: today(),
        postedOn: today(),
        dueOn: inDays(10),
        totalCents: 50_000,
        outstandingCents: 50_000,
      },
    ]);
    expect(await pay(o, a.id, 30_000)).toEqual({ status: 'approved', outstandingCents: 20_000 });
    // An overpayment is BAD_REQUEST naming amountCents and what is outstanding, as on invoices.
    await expect(pay(o, a.id, 20_001)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: `amountCents: 20001 is more than the 20000 cents outstanding on bill ${a.id}`,
    });
    expect((await openBillsAsOf(t.db.reader, o.orgId, today())).find((x) => x.id === a.id)?.outstandingCents).toBe(20_000);
    expect(await pay(o, a.id, 20_000)).toEqual({ status: 'paid', outstandingCents: 0 });
    await expect(pay(o, a.id, 1)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `bill ${a.id} is paid; only an approved bill can be paid`,
    });
    await expect(pay(o, captured.id, 1)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/is captured/) });
    await expect(pay(org, b.id, 1)).rejects.toMatchObject({ code: 'NOT_FOUND' }); // another organisation's bill
    expect((await openBillsAsOf(t.db.reader, o.orgId, today())).map((x) => x.id)).toEqual([b.id]);
    const bills = (await t.post(o.keys.reader, 'books.bills', { payeeName: 'alpha' })).body.result.bills;
    expect(bills.map((x: any) => [x.id, x.status, x.outstandingCents])).toEqual([
      [a.id, 'paid', 0],
      [captured.id, 'captured', 999],
    ]);
    // A partly paid bill cannot be returned: the payment would be orphaned.
    await pay(o, b.id, 1_000);
    const ret = await t.post(o.keys.agent, 'books.billReturn', { id: b.id, reason: 'x' });
    expect(ret.status).toBe(409);
    expect(ret.body.error.message).toMatch(/has \$10\.00 paid against it/);
  });

  it('books.bills filters, pages and answers outstandingCents per state', async () => {
    const o = await t.org();
    const ids: string[] = [];
    for (const [payeeName, dueDays] of [
      ['Harbour Fish', 3],
      ['Harbour Fish', 40],
      ['Dry Goods 100%_Co', 10],
    ] as const) {
      ids.push((await capture(o, { payeeName, totalCents: 1_100, dueDays })).body.result.id);
    }
    const list = async (params: Record<string, unknown>) => {
      const r = await t.post(o.keys.reader, 'books.bills', params);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.result as { bills: any[]; nextCursor: string | null };
    };
    expect((await list({})).bills.map((b) => b.id)).toEqual(ids);
    expect((await list({ payeeName: 'FISH' })).bills.map((b) => b.id)).toEqual(ids.slice(0, 2));
    expect((await list({ payeeName: '100%_' })).bills.map((b) => b.id)).toEqual([ids[2]]);
    expect((await list({ payeeName: '0%' })).bills.map((b) => b.id)).toEqual([ids[2]]);
    expect((await list({ payeeName: '_' })).bills.map((b) => b.id)).toEqual([ids[2]]); // _ is not a wildcard
    expect((await list({ dueBefore: inDays(10) })).bills.map((b) => b.id)).toEqual([ids[0]]);
    expect((await list({ status: 'held' })).bills).toHaveLength(3);
    const p1 = await list({ limit: 2 });
    expect(p1.bills.map((b) => b.id)).toEqual(ids.slice(0, 2));
    const p2 = await list({ limit: 2, cursor: p1.nextCursor });
    expect(p2).toMatchObject({ bills: [{ id: ids[2], outstandingCents: 1_100, lines: [{ gstCents: 100 }] }], nextCursor: null });
    const other = await t.org();
    const foreign = (
      await t.post(other.keys.agent, 'books.billCapture', { payeeName: 'Elsewhere', description: 'x', totalCents: 100, dueDays: 1 })
    ).body.result.id;
    for (const cursor of [foreign, 'bill_nosuchbill']) {
      const r = await t.post(o.keys.reader, 'books.bills', { cursor });
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual({
        code: 'BAD_REQUEST',
        field: 'cursor',
        message: `cursor: no bill ${cursor} in this organisation; pass the nextCursor of a previous page`,
      });
    }
    const bad = await t.post(o.keys.reader, 'books.bills', { limit: 0, status: 'lost', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('extra: unknown field');
    expect(bad.body.error.message).toContain('limit: must be an integer from 1 to 200');
    expect(bad.body.error.message).toContain('status: must be one of');
    expect((await t.post(o.keys.observer, 'books.bills', {})).status).toBe(403);
  });
});

describe.each(engines)('payables: payment runs by ABA file, a signature act (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-pay-'));
    t = await startTestServer(engine, { paymentsOutboxDir: dir });
  });
  afterAll(async () => t.close());

  const ddmmyy = (d: string) => `${d.slice(8, 10)}${d.slice(5, 7)}${d.slice(2, 4)}`;
  const run = (o: CreatedOrg, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.post(o.keys.agent, 'books.billScheduleRun', { funding: FUNDING, ...params }, headers);

  /** FORMAT.md's three suppliers, as approved bills with their bank details. */
  async function formatBills(o: CreatedOrg) {
    const specs = [
      ['Coastal Timber Supplies', 1_234_567, bank('062-703', '11223344', 'Coastal Timber Supplies Pty Ltd', 'CTS-89012')],
      ['Northside Hardware', 123_450, bank('083-047', '587412369', 'Northside Hardware Pty Ltd', 'NH-2230')],
      ['Spotless Cleaning', 88_000, bank('013-006', '45678901', 'Spotless Cleaning Co', 'SCC 5521')],
    ] as const;
    const out = [];
    for (const [payeeName, totalCents, details] of specs) {
      out.push(await approvedBill(t, o, { payeeName, description: 'Supplies', totalCents, dueDays: 7, ...details }));
    }
    return out;
  }

  it('hold → request → human approves → retry: bills paid, journal posted, ABA file written', async () => {
    const o = await t.org();
    const bills = await formatBills(o);
    const paymentDate = inDays(3);
    const params = { billIds: bills.map((b) => b.id), paymentDate, funding: FUNDING };
    const { hold, approvalId, request } = await heldAndRequested(t, o, 'books.billScheduleRun', params);
    expect(hold.approval.actionClass).toBe('books.bill_schedule_run');
    expect(hold.subjectId).toMatch(/^run_[0-9a-f]{26}$/);
    const summary: string = hold.approval.subject.summary;
    expect(request.summary).toBe(summary);
    for (const part of [
      'Pay 3 bills',
      '$14,460.17',
      paymentDate,
      'WBC account 034-702 458921',
      '"Coastal Timber Supplies" $12,345.67 to BSB 062-703 account 11223344',
      '"Northside Hardware" $1,234.50 to BSB 083-047 account 587412369',
      '"Spotless Cleaning" $880.00 to BSB 013-006 account 45678901',
    ]) {
      expect(summary).toContain(part);
    }
    // Held: nothing paid, nothing posted.
    expect((await t.post(o.keys.reader, 'books.bills', { status: 'approved' })).body.result.bills).toHaveLength(3);
    expect((await eventsOf(t, o)).filter((e) => e.kind === 'books.signature.hold').at(-1)).toMatchObject({ entity_id: hold.subjectId });

    await decide(t, o, approvalId, true);
    const done = await run(o, { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(done.status).toBe(200);
    const r = done.body.result;
    expect(r).toMatchObject({
      runId: hold.subjectId,
      status: 'executed',
      paymentDate,
      billIds: params.billIds,
      billCount: 3,
      totalCents: 1_446_017,
      fileName: `${hold.subjectId}.aba`,
      journalId: expect.stringMatching(/^jnl_/),
    });
    const ev = (await eventsOf(t, o)).at(-1);
    expect(ev).toMatchObject({
      kind: 'books.bill_run.execute',
      entity_id: r.runId,
      payload: {
        runId: r.runId,
        billIds: params.billIds,
        totalCents: 1_446_017,
        journalId: r.journalId,
        approvalId,
        fundingAccount: '034-702 ...921',
      },
    });
    expect(ev.payload.bills[0]).toEqual({
      id: bills[0].id,
      payee: 'Coastal Timber Supplies',
      totalCents: 1_234_567,
      amountCents: 1_234_567,
      heldReason: 'ABOVE_FLOOR',
      runId: r.runId,
    });
    expect(ev.row_hash.startsWith(r.ledgerId)).toBe(true);

    // One journal, dated the payment date: Dr 2000 per bill (its document) / Cr 1000 the total.
    const [journal] = await journalsOf(t, o.orgId, r.runId);
    expect(journal).toMatchObject({ id: r.journalId, date: paymentDate, source_kind: 'payment_run' });
    expect((await journalLines(t, o.orgId, r.journalId)).map((l) => [l.account_code, l.debit_cents, l.credit_cents, l.doc_id])).toEqual([
      ['2000', 1_234_567, 0, bills[0].id],
      ['2000', 123_450, 0, bills[1].id],
      ['2000', 88_000, 0, bills[2].id],
      ['1000', 0, 1_446_017, null],
    ]);
    const after = (await t.post(o.keys.reader, 'books.bills', {})).body.result.bills;
    expect(after.map((b: any) => [b.status, b.runId, b.outstandingCents, b.ledgerId])).toEqual(
      bills.map(() => ['paid', r.runId, 0, r.ledgerId]),
    );
    // The ledger decides "open as at": the money leaves on the payment date.
    expect((await openBillsAsOf(t.db.reader, o.orgId, today())).map((b) => b.id)).toEqual(params.billIds);
    expect(await openBillsAsOf(t.db.reader, o.orgId, paymentDate)).toEqual([]);

    // The file, after commit: FORMAT.md's example byte for byte, but for the processing date.
    await t.server.outbox.kick();
    const file = readFileSync(join(dir, r.fileName));
    const expected = readFileSync(new URL('./fixtures/aba/example_supplier_run.aba', import.meta.url))
      .toString('latin1')
      .replace('021026', ddmmyy(paymentDate));
    expect(file.toString('latin1')).toBe(expected);
    checkColumns(parseAba(file.toString('latin1')), paymentDate);

    // The same call again is a no-op (idempotent by state) answering with the run; the spent proof is refused.
    const replay = await run(o, params);
    expect(replay.body.result).toMatchObject({ runId: r.runId, noop: true, ledgerId: r.ledgerId });
    const reuse = await run(o, { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(reuse.status).toBe(409);
    expect(reuse.body.error.message).toMatch(/already used/);
  });

  /** Every field of a file a run wrote, read back by its columns (FORMAT.md). */
  function checkColumns(f: ReturnType<typeof parseAba>, paymentDate: string) {
    expect(f.descriptive).toMatchObject({
      recordType: '0',
      blank1: ' '.repeat(17),
      reelSequenceNumber: '01',
      financialInstitution: 'WBC',
      blank2: ' '.repeat(7),
      userName: 'HARBOURSIDE JOINERY'.padEnd(26),
      userIdNumber: '512734',
      entriesDescription: 'CREDITORS'.padEnd(12),
      processingDate: ddmmyy(paymentDate),
      blank3: ' '.repeat(40),
    });
    const want = [
      ['062-703', ' 11223344', '0001234567', 'COASTAL TIMBER SUPPLIES PTY LTD', 'CTS-89012'],
      ['083-047', '587412369', '0000123450', 'NORTHSIDE HARDWARE PTY LTD', 'NH-2230'],
      ['013-006', ' 45678901', '0000088000', 'SPOTLESS CLEANING CO', 'SCC 5521'],
    ];
    expect(f.details).toEqual(
      want.map(([bsb, accountNumber, amount, title, ref]) => ({
        recordType: '1',
        bsb,
        accountNumber,
        indicator: ' ',
        transactionCode: '50',
        amount,
        accountTitle: (title ?? '').padEnd(32),
        lodgementReference: (ref ?? '').padEnd(18),
        traceBsb: '034-702',
        traceAccountNumber: '   458921',
        remitterName: 'HARBOURSIDE JOIN',
        withholdingTax: '00000000',
      })),
    );
    const sum = f.details.reduce((s, d) => s + Number(d.amount), 0);
    expect(f.total).toEqual({
      recordType: '7',
      bsbFiller: '999-999',
      blank1: ' '.repeat(12),
      netTotal: String(sum).padStart(10, '0'),
      creditTotal: String(sum).padStart(10, '0'),
      debitTotal: '0000000000',
      blank2: ' '.repeat(24),
      count: '000003',
      blank3: ' '.repeat(40),
    });
  }

  it('dueOnOrBefore picks approved bills due by then; selfBalancing adds the code-13 debit; replay is a no-op', async () => {
    const o = await t.org();
    const details = bank('062-703', '11223344', 'Coastal Timber', 'CT-1');
    const soon = await approvedBill(t, o, { payeeName: 'Coastal', description: 'a', totalCents: 10_000, dueDays: 5, ...details });
    const partly = await approvedBill(t, o, { payeeName: 'Coastal', description: 'b', totalCents: 20_000, dueDays: 10, ...details });
    const later = await approvedBill(t, o, { payeeName: 'Coastal', description: 'c', totalCents: 30_000, dueDays: 40, ...details });
    await t.post(o.keys.agent, 'books.billCapture', {
      payeeName: 'Coastal',
      description: 'not approved',
      totalCents: 1,
      dueDays: 1,
      ...details,
    });
    await inUnitOfWork(t.db, o.orgId, '', async (uow) => {
      const { record, ...applied } = await applyBillPayment(uow, {
        billId: partly.id,
        amountCents: 5_000,
        date: today(),
        reference: 'part',
        journalId: newJournalId(),
      });
      await record((await uow.emit(testFixture, { entityId: partly.id, payload: null })).ledgerId);
      return applied;
    });
    const params = {
      dueOnOrBefore: inDays(10),
      paymentDate: today(),
      funding: { ...FUNDING, accountName: 'Harbourside Joinery Pty Ltd' },
      selfBalancing: true,
    };
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.billScheduleRun', params);
    expect(hold.approval.subject.summary).toContain('Pay 2 bills totalling $250.00');
    await decide(t, o, approvalId, true);
    const done = await run(o, { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(done.body.result).toMatchObject({
      billIds: [soon.id, partly.id],
      totalCents: 25_000,
      payments: [
        { billId: soon.id, amountCents: 10_000 },
        { billId: partly.id, amountCents: 15_000 },
      ],
    });
    await t.server.outbox.kick();
    const f = parseAba(readFileSync(join(dir, done.body.result.fileName)).toString('latin1'));
    expect(f.details.map((d) => [d.transactionCode, d.amount])).toEqual([
      ['50', '0000010000'],
      ['50', '0000015000'],
      ['13', '0000025000'],
    ]);
    expect(f.details[2]).toMatchObject({
      bsb: '034-702',
      accountNumber: '   458921',
      accountTitle: 'HARBOURSIDE JOINERY PTY LTD'.padEnd(32),
      lodgementReference: `CREDITORS ${ddmmyy(today())}`.padEnd(18),
    });
    expect(f.total).toMatchObject({ netTotal: '0000000000', creditTotal: '0000025000', debitTotal: '0000025000', count: '000003' });
    // Replayed after the run: nothing is due any more, and the answer is that run, as a no-op.
    const replay = await run(o, params);
    expect(replay.body.result).toMatchObject({ runId: done.body.result.runId, noop: true });

    // The set a human approved is the subject: a bill approved meanwhile voids the proof.
    const p2 = { dueOnOrBefore: inDays(60), paymentDate: today() };
    const second = await heldAndRequested(t, o, 'books.billScheduleRun', { ...p2, funding: FUNDING });
    expect(second.hold.approval.subject.summary).toContain(later.id);
    await approvedBill(t, o, { payeeName: 'Coastal', description: 'd', totalCents: 1_000, dueDays: 50, ...details });
    await decide(t, o, second.approvalId, true);
    const stale = await run(o, { ...p2, approvalId: second.approvalId }, { 'x-idempotency-key': freshKey() });
    expect(stale.status).toBe(409);
    expect(stale.body.error.message).toContain(`is bound to subject ${second.hold.subjectId}`);
  });

  it('refusals name the bill, the field or the state, and change nothing', async () => {
    const o = await t.org();
    const noBank = await approvedBill(t, o, { payeeName: 'Cash Only', description: 'x', totalCents: 500 });
    const captured = (
      await t.post(o.keys.agent, 'books.billCapture', {
        payeeName: 'Cash Only',
        description: 'y',
        totalCents: 500,
        dueDays: 1,
        ...bank('062-703', '1', 'A'),
      })
    ).body.result;
    const ok = await approvedBill(t, o, { payeeName: 'Paid Well', description: 'z', totalCents: 500, ...bank('062-703', '1', 'A') });
    const before = (await eventsOf(t, o)).length;
    const base = { paymentDate: today(), funding: FUNDING };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ billIds: [ok.id, noBank.id] }, 409, `bill ${noBank.id} (Cash Only) has no payee bank details`],
      // Cash Only's first bank details are held (BANK_DETAILS_CHANGED): no human has approved them yet.
      [{ billIds: [captured.id] }, 409, `bill ${captured.id} is held; only an approved bill can be paid in a run`],
      [{ billIds: ['bill_nope'] }, 404, 'bill bill_nope not found'],
      [{ dueOnOrBefore: inDays(-400) }, 409, `no approved bill is due on or before ${inDays(-400)}`],
      [{}, 400, 'billIds: give exactly one of billIds and dueOnOrBefore'],
      [{ billIds: [ok.id], dueOnOrBefore: today() }, 400, 'billIds: give exactly one of billIds and dueOnOrBefore'],
      [{ billIds: [ok.id, ok.id] }, 400, 'billIds: must not name a bill twice'],
      [{ billIds: [ok.id], paymentDate: inDays(-1) }, 400, `paymentDate: must be today (${today()}) or later`],
      [{ billIds: [ok.id], paymentDate: '2026-02-30' }, 400, 'paymentDate: must be a real calendar date'],
      [{ billIds: [ok.id], funding: { ...FUNDING, bsb: '034702' } }, 400, 'funding.bsb: must be a BSB of the form NNN-NNN'],
      [
        { billIds: [ok.id], funding: { ...FUNDING, apcaUserId: '51273' } },
        400,
        'funding.apcaUserId: must be the 6-digit Direct Entry user id',
      ],
      [{ billIds: [ok.id], funding: { ...FUNDING, bankCode: 'wbc' } }, 400, 'funding.bankCode: must be the 3-letter APCA abbreviation'],
      [
        { billIds: [ok.id], funding: { ...FUNDING, remitterName: 'Harbourside Joinery' } },
        400,
        'funding.remitterName: must be at most 16 characters',
      ],
      [{ billIds: [ok.id], funding: { ...FUNDING, userName: 'Café' } }, 400, 'funding.userName: must use only letters'],
      [{ billIds: [ok.id], funding: { ...FUNDING, iban: 'x' } }, 400, 'funding.iban: unknown field'],
    ];
    for (const [params, status, message] of cases) {
      const r = await run(o, { ...base, ...params });
      expect(r.status, message).toBe(status);
      expect(r.body.error.message).toContain(message);
    }
    expect((await eventsOf(t, o)).length).toBe(before);
    expect((await t.post(o.keys.reader, 'books.billScheduleRun', { ...base, billIds: [ok.id] })).status).toBe(403);
    // Without decision rights for the class no human could approve: refused, no hold, no event.
    const ungoverned = await t.org(undefined, { decisionRights: false });
    const r = await t.post(ungoverned.keys.agent, 'books.billScheduleRun', { ...base, dueOnOrBefore: today() });
    expect(r.status).toBe(423);
    expect(r.body.error.message).toContain('no decision rights are declared for books.bill_schedule_run');
  });
});
