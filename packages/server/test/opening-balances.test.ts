import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountBalanceCents } from '../src/domain/gl/post.js';
import { documentWordsCheck } from '../src/domain/reconciliation/document-words.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, bank, FUNDING, inDays, journalLines, today } from './payables-helpers.js';
import { report } from './reports-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

/**
 * books.openingBalances: the conversion journal, documents carried in per docId
 * with their own numbers and dates, aged reports right on day one, and the refusals.
 */
describe.each(engines)('opening balances (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  const ok = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const events = async (o: CreatedOrg) => (await t.get(o.keys.observer, 'events?limit=500')).body.events as any[];

  const conversionDate = () => inDays(-1);

  /** A held bill approved the usual way: billApprove refuses without proof, a human decides, the agent retries. */
  const approveHeld = async (o: CreatedOrg, id: string) => {
    const first = await t.post(o.keys.agent, 'books.billApprove', { id });
    expect(first.status, JSON.stringify(first.body)).toBe(423);
    const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.body.error.message)?.[1];
    const req = ok(
      await t.post(o.keys.agent, 'approval.request', {
        actionClass: 'books.bill_approve',
        payloadHash,
        subject: { kind: 'books.signature', subjectId: id },
      }),
    );
    await decide(t, o, req.approvalId, true);
    const done = ok(
      await t.post(o.keys.agent, 'books.billApprove', { id, approvalId: req.approvalId }, { 'x-idempotency-key': freshKey() }),
    );
    expect(done).toMatchObject({ id, status: 'approved' });
    return done;
  };
  const params = () => ({
    conversionDate: conversionDate(),
    accounts: [
      { accountCode: '1000', debitCents: 500_000 },
      { accountCode: '2100', creditCents: 30_000 },
      { accountCode: '3000', creditCents: 535_000 },
    ],
    invoices: [
      {
        number: 'INV-0041',
        issueDate: inDays(-75),
        dueDate: inDays(-45),
        payeeName: 'Harbour Cafe',
        payeeEmail: 'ap@harbour.example',
        description: 'Shopfit',
        totalCents: 110_000,
        gstCents: 10_000,
        outstandingCents: 60_000,
      },
      {
        number: 'OLD-7',
        issueDate: inDays(-10),
        dueDate: inDays(20),
        payeeName: 'Bay Books',
        description: 'Shelving',
        totalCents: 40_000,
        outstandingCents: 40_000,
      },
    ],
    bills: [
      {
        payeeName: 'Coastal Timber',
        reference: 'CT-991',
        issueDate: inDays(-40),
        dueDate: inDays(-10),
        description: 'Timber',
        totalCents: 35_000,
        outstandingCents: 35_000,
        ...bank('062-703', '11223344', 'Coastal Timber'),
      },
    ],
  });

  it('posts one balanced journal dated the conversion date: accounts, and 1100/2000 per document', async () => {
    const o = await t.org();
    const p = params();
    const r = ok(await t.post(o.keys.agent, 'books.openingBalances', p));
    expect(r).toMatchObject({
      conversionDate: p.conversionDate,
      debitCents: 600_000,
      receivablesCents: 100_000,
      payablesCents: 35_000,
      accountCount: 3,
    });
    expect(r.invoiceIds).toHaveLength(2);
    expect(r.billIds).toHaveLength(1);
    // A fresh organisation has approved no bill: the carried-in bill's payee is new, so the bill is held.
    expect(r.bills).toEqual([{ id: r.billIds[0], status: 'held', heldReason: 'NEW_PAYEE' }]);
    const lines = await journalLines(t, o.orgId, r.journalId);
    expect(lines.filter((l) => l.account_code === '1100').map((l) => [l.doc_id, Number(l.debit_cents)])).toEqual([
      [r.invoiceIds[0], 60_000],
      [r.invoiceIds[1], 40_000],
    ]);
    expect(lines.filter((l) => l.account_code === '2000').map((l) => [l.doc_id, Number(l.credit_cents)])).toEqual([[r.billIds[0], 35_000]]);
    // No revenue, expense or GST tag is posted again.
    expect(lines.some((l) => ['4000', '6000', '1200'].includes(l.account_code) || l.tax_code !== null)).toBe(false);
    const j = await t.db.reader.get<{ date: string; source_kind: string }>(
      'SELECT date, source_kind FROM journals WHERE org_id = ? AND id = ?',
      [o.orgId, r.journalId],
    );
    expect(j).toMatchObject({ date: p.conversionDate, source_kind: 'opening_balances' });
    const tb = await report(t, o, { type: 'trial_balance' });
    expect(tb.totals.debitCents).toBe(tb.totals.creditCents);
    expect(await accountBalanceCents(t.db.reader, o.orgId, '1000')).toBe(500_000);
    const org = await t.db.reader.get<{ conversion_date: string; invoice_next: number }>(
      'SELECT conversion_date, invoice_next FROM organisations WHERE id = ?',
      [o.orgId],
    );
    expect(org).toMatchObject({ conversion_date: p.conversionDate });
    // INV-0041 is in the organisation's prefix: the sequence moves past it; OLD-7 is not.
    expect(Number(org?.invoice_next)).toBe(42);
    const ev = (await events(o)).filter((e) => e.kind === 'books.opening_balances.record');
    expect(ev).toHaveLength(1);
    expect(ev[0].payload).toMatchObject({
      conversionDate: p.conversionDate,
      journalId: r.journalId,
      debitCents: 600_000,
      accountCount: 3,
      invoiceCount: 2,
      receivablesCents: 100_000,
      billCount: 1,
      payablesCents: 35_000,
      heldBillCount: 1,
    });

    // Documents carried in with their own numbers, dates and states.
    const invs = ok(await t.post(o.keys.reader, 'books.invoices', {})).invoices;
    const first = invs.find((i: any) => i.id === r.invoiceIds[0]);
    expect(first).toMatchObject({ status: 'part_paid', outstandingCents: 60_000, payeeName: 'Harbour Cafe' });
    const rows = await t.db.reader.all<{ id: string; number: string; issued_on: string; due_on: string; status: string }>(
      'SELECT id, number, issued_on, due_on, status FROM invoices WHERE org_id = ? ORDER BY number',
      [o.orgId],
    );
    expect(rows.map((x) => [x.number, x.issued_on, x.status])).toEqual([
      ['INV-0041', inDays(-75), 'part_paid'],
      ['OLD-7', inDays(-10), 'sent'],
    ]);
    const bills = ok(await t.post(o.keys.reader, 'books.bills', {})).bills;
    expect(bills).toHaveLength(1);
    expect(bills[0]).toMatchObject({
      id: r.billIds[0],
      status: 'held',
      heldReason: 'NEW_PAYEE',
      outstandingCents: 35_000,
      dueOn: inDays(-10),
    });

    // Same params again: a no-op (idempotent by state); other params: CONFLICT.
    const before = (await events(o)).length;
    const again = ok(await t.post(o.keys.agent, 'books.openingBalances', p));
    expect(again).toMatchObject({ journalId: r.journalId, noop: true });
    expect((await events(o)).length).toBe(before);
    const other = await t.post(o.keys.agent, 'books.openingBalances', {
      ...p,
      accounts: [
        { accountCode: '1000', debitCents: 1 },
        { accountCode: '3000', creditCents: 1 },
      ],
      invoices: [],
      bills: [],
    });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toContain('recorded once');
  });

  it('aged receivables and payables are right on day one, with the original dates', async () => {
    const o = await t.org();
    const r = ok(await t.post(o.keys.agent, 'books.openingBalances', params()));
    const ar = await report(t, o, { type: 'aged_receivables' });
    const cafe = ar.parties.find((x: any) => x.party === 'Harbour Cafe');
    expect(cafe.items[0]).toMatchObject({
      id: r.invoiceIds[0],
      dueOn: inDays(-45),
      daysOverdue: 45,
      bucket: '31-60',
      totalCents: 110_000,
      outstandingCents: 60_000,
    });
    const books = ar.parties.find((x: any) => x.party === 'Bay Books');
    expect(books.items[0]).toMatchObject({ bucket: 'current', outstandingCents: 40_000 });
    expect(ar.controlAccount.balanceCents).toBe(100_000);
    expect(ar.totals.totalCents).toBe(100_000);
    const ap = await report(t, o, { type: 'aged_payables' });
    expect(ap.parties[0].items[0]).toMatchObject({
      id: r.billIds[0],
      dueOn: inDays(-10),
      daysOverdue: 10,
      bucket: '1-30',
      outstandingCents: 35_000,
    });
    expect(ap.controlAccount.balanceCents).toBe(35_000);
  });

  it('a carried-in invoice is paid by a matched bank line; a carried-in bill by a payment run once a human approves it', async () => {
    const o = await t.org();
    const r = ok(await t.post(o.keys.agent, 'books.openingBalances', params()));
    const feed = ok(
      await t.post(o.keys.agent, 'books.feedLines', {
        lines: [{ date: today(), amountCents: 40_000, description: `BAY BOOKS OLD-7 ${freshKey()}` }],
      }),
    );
    const m = ok(
      await t.post(o.keys.agent, 'books.matchAccept', { lineId: feed.lineIds[0], target: { kind: 'invoice', id: r.invoiceIds[1] } }),
    );
    expect(m.document).toMatchObject({ status: 'paid', outstandingCents: 0 });
    const runParams = { billIds: r.billIds, paymentDate: today(), funding: FUNDING };
    // Held (a new payee): not payable by a run until a human approves it.
    const early = await t.post(o.keys.agent, 'books.billScheduleRun', runParams);
    expect(early.status).toBe(409);
    expect(early.body.error.message).toContain(`bill ${r.billIds[0]} is held; only an approved bill can be paid in a run`);
    await approveHeld(o, r.billIds[0]);
    // The conversion journal posted it: approval posts nothing again.
    expect(
      await t.db.reader.get<{ n: number }>("SELECT COUNT(*) AS n FROM journals WHERE org_id = ? AND source_kind = 'bill'", [o.orgId]),
    ).toMatchObject({ n: 0 });
    expect(await accountBalanceCents(t.db.reader, o.orgId, '2000')).toBe(-35_000);
    const { approvalId } = await heldAndRequested(t, o, 'books.billScheduleRun', runParams);
    await decide(t, o, approvalId, true);
    const run = ok(await t.post(o.keys.agent, 'books.billScheduleRun', { ...runParams, approvalId }, { 'x-idempotency-key': freshKey() }));
    expect(run).toMatchObject({ billCount: 1, totalCents: 35_000 });
    expect(await accountBalanceCents(t.db.reader, o.orgId, '2000')).toBe(0);
    expect(await accountBalanceCents(t.db.reader, o.orgId, '1100')).toBe(60_000);
    // Carried-in documents are looked up by bank lines like any posted one, closed once paid.
    const words = await documentWordsCheck(t.db.reader, o.orgId);
    expect(words.kept).toEqual(words.expected);
    expect(words.kept).toContainEqual(expect.stringMatching(new RegExp(` invoice ${r.invoiceIds[1]} in \\S+ 0$`)));
    expect(words.kept).toContainEqual(expect.stringMatching(new RegExp(` invoice ${r.invoiceIds[0]} in \\S+ 1$`)));
    expect(words.kept).toContainEqual(expect.stringMatching(new RegExp(` bill ${r.billIds[0]} out \\S+ 0$`)));
  });

  it('after the conversion nothing posts on or before the conversion date', async () => {
    const o = await t.org();
    const p = params();
    const r = ok(await t.post(o.keys.agent, 'books.openingBalances', p));
    const lines = [
      { accountCode: '6000', debitCents: 100 },
      { accountCode: '1000', creditCents: 100 },
    ];
    const before = await t.post(o.keys.agent, 'books.journalPost', { date: p.conversionDate, memo: 'Late', lines });
    expect(before.status).toBe(400);
    expect(before.body.error).toMatchObject({ field: 'date' });
    expect(before.body.error.message).toContain(`on or before the conversion date ${p.conversionDate}`);
    const pay = await t.post(o.keys.agent, 'books.invoiceRecordPayment', { id: r.invoiceIds[0], amountCents: 100, date: p.conversionDate });
    expect(pay.status).toBe(400);
    ok(await t.post(o.keys.agent, 'books.journalPost', { date: today(), memo: 'After', lines }));
  });

  it("carries documents in for an existing contact (contactId), naming the path when the name is not the contact's", async () => {
    const o = await t.org();
    const c = ok(await t.post(o.keys.agent, 'books.contactCreate', { name: 'Dune Surf Club', kind: 'customer' }));
    const p = params();
    const wrong = await t.post(o.keys.agent, 'books.openingBalances', {
      ...p,
      invoices: [p.invoices[0], { ...p.invoices[1], contactId: c.id }],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ field: 'invoices[1].payeeName' });
    const second = {
      number: 'OLD-7',
      issueDate: inDays(-10),
      dueDate: inDays(20),
      description: 'Shelving',
      totalCents: 40_000,
      outstandingCents: 40_000,
      contactId: c.id,
    };
    const r = ok(await t.post(o.keys.agent, 'books.openingBalances', { ...p, invoices: [p.invoices[0], second] }));
    const row = await t.db.reader.get<{ contact_id: string; payee_name: string }>(
      'SELECT contact_id, payee_name FROM invoices WHERE org_id = ? AND id = ?',
      [o.orgId, r.invoiceIds[1]],
    );
    expect(row).toEqual({ contact_id: c.id, payee_name: 'Dune Surf Club' });
  });

  it('refuses, naming the field, and changes nothing', async () => {
    const o = await t.org();
    const p = params();
    const cases: [unknown, number, string][] = [
      [{ ...p, accounts: [{ accountCode: '1000', debitCents: 500_001 }, ...p.accounts.slice(1)] }, 400, 'accounts: debits (600001'],
      [
        { ...p, accounts: [...p.accounts, { accountCode: '1100', debitCents: 1 }] },
        400,
        'accounts[3].accountCode: 1100 is Accounts receivable',
      ],
      [
        { ...p, accounts: [...p.accounts, { accountCode: '9999', debitCents: 1 }] },
        400,
        'accounts[3].accountCode: account 9999 does not exist',
      ],
      [{ ...p, conversionDate: inDays(1) }, 400, 'conversionDate: '],
      [
        { ...p, invoices: [p.invoices[0], { ...p.invoices[1], number: 'INV-0041' }] },
        400,
        'invoices[1].number: INV-0041 is also invoices[0].number',
      ],
      [
        { ...p, invoices: [p.invoices[0], { ...p.invoices[1], issueDate: p.conversionDate, dueDate: inDays(-3) }] },
        400,
        'invoices[1].dueDate: must be on or after issueDate',
      ],
      [{ ...p, bills: [{ ...p.bills[0], issueDate: today(), dueDate: today() }] }, 400, 'bills[0].issueDate: '],
      [
        { ...p, invoices: [{ ...p.invoices[0], outstandingCents: 110_001 }] },
        400,
        'invoices[0].outstandingCents: must not be more than totalCents',
      ],
    ];
    for (const [body, status, message] of cases) {
      const r = await t.post(o.keys.agent, 'books.openingBalances', body);
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.error.message).toContain(message);
    }
    expect(await t.db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM journals WHERE org_id = ?', [o.orgId])).toMatchObject({ n: 0 });
    expect((await events(o)).filter((e) => e.kind === 'books.opening_balances.record')).toHaveLength(0);
  });

  it('CONFLICT when journals are dated on or before the conversion date', async () => {
    const o = await t.org();
    ok(
      await t.post(o.keys.agent, 'books.journalPost', {
        date: inDays(-2),
        memo: 'Capital',
        lines: [
          { accountCode: '1000', debitCents: 100 },
          { accountCode: '3000', creditCents: 100 },
        ],
      }),
    );
    const r = await t.post(o.keys.agent, 'books.openingBalances', params());
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain('dated on or before conversionDate');
  });

  it('an organisation that already trades cannot convert: CONFLICT, and nothing changes', async () => {
    // One way of trading each: a document of every kind, a journal after the conversion date, a bank line.
    const trade: [string, (o: CreatedOrg) => Promise<unknown>][] = [
      ['invoices', (o) => t.post(o.keys.agent, 'books.invoiceDraft', { payeeName: 'X', description: 'x', totalCents: 100, dueDays: 1 })],
      [
        'bills',
        (o) =>
          t.post(o.keys.agent, 'books.billCapture', { payeeName: 'Coastal Timber', description: 'Timber', totalCents: 100, dueDays: 30 }),
      ],
      [
        'expense claims',
        (o) =>
          t.post(o.keys.agent, 'books.expenseClaim', {
            claimant: 'Sam',
            description: 'Taxi',
            amountCents: 100,
            spentOn: today(),
            receiptRef: 'r-1',
          }),
      ],
      [
        'journals',
        (o) =>
          t.post(o.keys.agent, 'books.journalPost', {
            date: today(),
            memo: 'After',
            lines: [
              { accountCode: '1000', debitCents: 100 },
              { accountCode: '3000', creditCents: 100 },
            ],
          }),
      ],
      [
        'bank feed lines',
        (o) =>
          t.post(o.keys.agent, 'books.feedLines', { lines: [{ date: today(), amountCents: -100, description: `CARD ${freshKey()}` }] }),
      ],
    ];
    for (const [what, act] of trade) {
      const o = await t.org();
      const done = (await act(o)) as { status: number; body: any };
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      const before = (await events(o)).length;
      const r = await t.post(o.keys.agent, 'books.openingBalances', params());
      expect(r.status, what).toBe(409);
      expect(r.body.error.code).toBe('CONFLICT');
      expect(r.body.error.message).toContain(`already trades here (it has ${what})`);
      expect((await events(o)).length).toBe(before);
      expect(await t.db.reader.get('SELECT org_id FROM opening_balances WHERE org_id = ?', [o.orgId])).toBeUndefined();
      const org = await t.db.reader.get<{ conversion_date: string | null }>('SELECT conversion_date FROM organisations WHERE id = ?', [
        o.orgId,
      ]);
      expect(org?.conversion_date ?? null).toBeNull();
    }
  });

  it("a trading organisation cannot carry bills in around the bill-approval hold: a new payee's $90 000 bill and a changed bank account", async () => {
    const o = await t.org();
    // The supplier is known here: a bill of theirs was approved, paying BSB 062-703 account 11223344.
    const known = await approvedBill(t, o, {
      payeeName: 'Coastal Timber',
      description: 'Timber',
      totalCents: 10_000,
      ...bank('062-703', '11223344', 'Coastal Timber'),
    });
    expect(known.status).toBe('approved');
    const p = params();
    const attempt = {
      conversionDate: inDays(-30),
      accounts: [{ accountCode: '3000', debitCents: 9_050_000 }],
      bills: [
        {
          ...p.bills[0],
          issueDate: inDays(-40),
          dueDate: inDays(-35),
          totalCents: 9_000_000,
          outstandingCents: 9_000_000,
          payeeName: 'Brand New Pty Ltd',
          ...bank('032-000', '99887766', 'Brand New'),
        },
        {
          ...p.bills[0],
          issueDate: inDays(-40),
          dueDate: inDays(-35),
          totalCents: 50_000,
          outstandingCents: 50_000,
          ...bank('062-703', '55555555', 'Coastal Timber'),
        },
      ],
    };
    const before = (await events(o)).length;
    const r = await t.post(o.keys.agent, 'books.openingBalances', attempt);
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain('already trades here (it has bills, journals)');
    expect((await events(o)).length).toBe(before);
    expect(await t.db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM bills WHERE org_id = ?', [o.orgId])).toMatchObject({ n: 1 });
    const due = await t.post(o.keys.agent, 'books.billScheduleRun', { dueOnOrBefore: today(), paymentDate: today(), funding: FUNDING });
    expect(due.status).toBe(409);
    expect(due.body.error.message).toContain('no approved bill is due');
  });

  it('carried-in bills are held as billCapture would hold them, and paid only after a human approves them', async () => {
    const o = await t.org();
    const p = params();
    const big = {
      ...p.bills[0],
      payeeName: 'Brand New Pty Ltd',
      reference: 'BN-1',
      totalCents: 9_000_000,
      outstandingCents: 9_000_000,
      ...bank('032-000', '99887766', 'Brand New'),
    };
    const r = ok(
      await t.post(o.keys.agent, 'books.openingBalances', {
        ...p,
        accounts: [...p.accounts.slice(0, 2), { accountCode: '3000', debitCents: 9_000_000 - 535_000 }],
        bills: [p.bills[0], big],
      }),
    );
    // Above the approval floor beats a new payee, as in billCapture.
    expect(r.bills).toEqual([
      { id: r.billIds[0], status: 'held', heldReason: 'NEW_PAYEE' },
      { id: r.billIds[1], status: 'held', heldReason: 'ABOVE_FLOOR' },
    ]);
    const listed = ok(await t.post(o.keys.reader, 'books.bills', { status: 'held' })).bills;
    const heldOf = (id: string) => listed.find((b: any) => b.id === id);
    expect(listed).toHaveLength(2);
    expect(heldOf(r.billIds[0])).toMatchObject({ status: 'held', heldReason: 'NEW_PAYEE', outstandingCents: 35_000 });
    expect(heldOf(r.billIds[1])).toMatchObject({ status: 'held', heldReason: 'ABOVE_FLOOR', outstandingCents: 9_000_000 });
    // Owed all the same: on 2000, in aged payables and the supplier's balance.
    expect(await accountBalanceCents(t.db.reader, o.orgId, '2000')).toBe(-9_035_000);
    const contacts = (await t.get(o.keys.observer, `contacts.list?q=${encodeURIComponent('Brand New')}`)).body.contacts as any[];
    expect(contacts.find((c) => c.name === 'Brand New Pty Ltd')).toMatchObject({ payableCents: 9_000_000, openBills: 1 });
    // Not payable: neither by a run (named or due) nor by a bank line.
    const run = await t.post(o.keys.agent, 'books.billScheduleRun', { billIds: [r.billIds[1]], paymentDate: today(), funding: FUNDING });
    expect(run.status).toBe(409);
    expect(run.body.error.message).toContain('is held; only an approved bill can be paid in a run');
    const due = await t.post(o.keys.agent, 'books.billScheduleRun', { dueOnOrBefore: today(), paymentDate: today(), funding: FUNDING });
    expect(due.status).toBe(409);
    const feed = ok(
      await t.post(o.keys.agent, 'books.feedLines', {
        lines: [{ date: today(), amountCents: -35_000, description: `COASTAL TIMBER ${freshKey()}` }],
      }),
    );
    const match = await t.post(o.keys.agent, 'books.matchAccept', { lineId: feed.lineIds[0], target: { kind: 'bill', id: r.billIds[0] } });
    expect(match.status).toBe(409);
    // The human sees where the money goes, and approves; then it is paid as usual.
    const first = await t.post(o.keys.agent, 'books.billApprove', { id: r.billIds[1] });
    expect(first.status).toBe(423);
    await approveHeld(o, r.billIds[1]);
    const runParams = { billIds: [r.billIds[1]], paymentDate: today(), funding: FUNDING };
    const { approvalId } = await heldAndRequested(t, o, 'books.billScheduleRun', runParams);
    await decide(t, o, approvalId, true);
    ok(await t.post(o.keys.agent, 'books.billScheduleRun', { ...runParams, approvalId }, { 'x-idempotency-key': freshKey() }));
    expect(await accountBalanceCents(t.db.reader, o.orgId, '2000')).toBe(-35_000);
    // Approved here, its bank details are now the payee's last approved: a new bill to them is not held for bank details.
    const next = ok(
      await t.post(o.keys.agent, 'books.billCapture', {
        payeeName: 'Brand New Pty Ltd',
        description: 'More',
        totalCents: 100,
        dueDays: 30,
        payeeBsb: '032-000',
        payeeAccountNumber: '99887766',
        payeeAccountName: 'Brand New',
      }),
    );
    expect(next).toMatchObject({ status: 'captured', heldReason: null });
  });
});
