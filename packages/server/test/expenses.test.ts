import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyClaimPayment, openClaimsAsOf } from '../src/domain/expenses/ledger-api.js';
import { newJournalId } from '../src/domain/gl/post.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { inUnitOfWork } from '../src/write-path.js';
import { engines, refusal, startTestServer, type TestServer } from './harness.js';
import { eventsOf, inDays, journalLines, journalsOf, today } from './payables-helpers.js';
import { freshKey } from './signature-helpers.js';
import { testFixture } from './test-events.js';

describe.each(engines)('expense claims (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const claim = (o: CreatedOrg, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    t.post(
      o.keys.agent,
      'books.expenseClaim',
      {
        claimant: 'Mia Chen',
        description: 'Officeworks stationery',
        amountCents: 8_745,
        spentOn: today(),
        receiptRef: 'rcpt_demo',
        ...params,
      },
      headers,
    );

  const pay = (o: CreatedOrg, claimId: string, amountCents: number) =>
    inUnitOfWork(t.db, o.orgId, '', async (uow) => {
      const { record, ...applied } = await applyClaimPayment(uow, {
        claimId,
        amountCents,
        date: today(),
        reference: 'EFT',
        journalId: newJournalId(),
      });
      await record((await uow.emit(testFixture, { entityId: claimId, payload: null })).ledgerId);
      return applied;
    });

  it('expenseClaim submits a claim, appends its event and posts nothing', async () => {
    const key = freshKey();
    const r = await claim(org, { accountCode: '6600' }, { 'x-idempotency-key': key });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({
      id: expect.stringMatching(/^clm_/),
      status: 'submitted',
      claimant: 'Mia Chen',
      amountCents: 8_745,
      gstCents: 795, // round(8,745 / 11) = round(795.0)
      taxCode: 'GST_ON_EXPENSES',
      accountCode: '6600',
      receiptRef: 'rcpt_demo',
      journalId: null,
    });
    expect((await eventsOf(t, org)).at(-1)).toMatchObject({
      kind: 'books.expense.claim',
      entity_id: r.body.result.id,
      payload: { claimant: 'Mia Chen', amountCents: 8_745, receiptRef: 'rcpt_demo' },
    });
    expect(await journalsOf(t, org.orgId, r.body.result.id)).toEqual([]);
    const replay = await claim(org, { accountCode: '6600' }, { 'x-idempotency-key': key });
    expect(replay.body).toMatchObject({ code: 'IDEMPOTENT_REPLAY', result: { id: r.body.result.id } });
  });

  it('bad input names the field and changes nothing', async () => {
    const before = (await eventsOf(t, org)).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ spentOn: inDays(1) }, `spentOn: must not be after today (${today()})`],
      [{ spentOn: '2026-13-01' }, 'spentOn: must be a real calendar date'],
      [{ accountCode: '2000' }, 'accountCode: account 2000 is not an expense or asset account'],
      [{ accountCode: '6999' }, 'accountCode: account 6999 does not exist'],
      [{ accountCode: 'rent' }, 'accountCode: must be an account code'],
      [{ taxCode: 'GST' }, 'taxCode: must be one of GST_ON_EXPENSES'],
      [{ receiptRef: 'r'.repeat(101) }, 'receiptRef: must be at most 100 characters'],
      [{ amountCents: 0 }, 'amountCents: must be an integer greater than 0'],
      [{ amountCents: 12.5 }, 'amountCents: must be an integer number of cents'],
      [{ claimant: undefined }, 'claimant: is required'],
      [{ currency: 'AUD' }, 'currency: unknown field'],
    ];
    for (const [params, message] of cases) {
      const r = await claim(org, params);
      expect(r.status, message).toBe(400);
      expect(r.body.error.message).toContain(message);
    }
    expect((await eventsOf(t, org)).length).toBe(before);
  });

  it('expenseApprove posts Dr expense (net, tagged) + Dr GST paid / Cr claims payable; a replay is a no-op', async () => {
    const c = (await claim(org, { accountCode: '6600' })).body.result;
    const r = await t.post(org.keys.agent, 'books.expenseApprove', { id: c.id });
    expect(r.body.result).toMatchObject({ id: c.id, status: 'approved', journalId: expect.stringMatching(/^jnl_/) });
    const ev = (await eventsOf(t, org)).at(-1);
    expect(ev).toMatchObject({ kind: 'books.expense.approve', entity_id: c.id, payload: { journalId: r.body.result.journalId } });
    expect(ev.row_hash.startsWith(r.body.result.ledgerId)).toBe(true);
    expect(await journalLines(t, org.orgId, r.body.result.journalId)).toEqual([
      {
        account_code: '6600',
        debit_cents: 7_950,
        credit_cents: 0,
        tax_code: 'GST_ON_EXPENSES',
        tax_base_cents: 8_745,
        gst_cents: 795,
        doc_id: null,
      },
      { account_code: '1200', debit_cents: 795, credit_cents: 0, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: null },
      { account_code: '2500', debit_cents: 0, credit_cents: 8_745, tax_code: null, tax_base_cents: 0, gst_cents: 0, doc_id: c.id },
    ]);
    const again = await t.post(org.keys.agent, 'books.expenseApprove', { id: c.id });
    expect(again.body.result).toMatchObject({ noop: true, status: 'approved', ledgerId: r.body.result.ledgerId });
    expect(await journalsOf(t, org.orgId, c.id)).toHaveLength(1);
  });

  it('a GST-free claim posts no GST line', async () => {
    const c = (await claim(org, { taxCode: 'GST_FREE_EXPENSES', amountCents: 4_560, description: 'Fruit' })).body.result;
    expect(c).toMatchObject({ gstCents: 0, accountCode: '6000' });
    const r = await t.post(org.keys.agent, 'books.expenseApprove', { id: c.id });
    expect((await journalLines(t, org.orgId, r.body.result.journalId)).map((l) => [l.account_code, l.debit_cents, l.credit_cents])).toEqual(
      [
        ['6000', 4_560, 0],
        ['2500', 0, 4_560],
      ],
    );
  });

  it('expenseReject is final; illegal moves name the state', async () => {
    const c = (await claim(org)).body.result;
    const rej = await t.post(org.keys.agent, 'books.expenseReject', { id: c.id, reason: 'personal purchase' });
    expect(rej.body.result).toMatchObject({ status: 'rejected', note: 'personal purchase' });
    expect((await eventsOf(t, org)).at(-1)).toMatchObject({ kind: 'books.expense.reject', payload: { reason: 'personal purchase' } });
    expect((await t.post(org.keys.agent, 'books.expenseReject', { id: c.id, reason: 'again' })).body.result).toMatchObject({
      noop: true,
      ledgerId: rej.body.result.ledgerId,
    });
    const approve = await t.post(org.keys.agent, 'books.expenseApprove', { id: c.id });
    expect(approve.status).toBe(409);
    expect(approve.body.error.message).toBe(`expense claim ${c.id} is rejected; only a submitted claim can be approved`);
    const ok = (await claim(org)).body.result;
    await t.post(org.keys.agent, 'books.expenseApprove', { id: ok.id });
    const late = await t.post(org.keys.agent, 'books.expenseReject', { id: ok.id, reason: 'x' });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/is approved; only a submitted claim can be rejected/);
    expect((await t.post(org.keys.agent, 'books.expenseReject', { id: ok.id })).body.error.message).toBe('reason: is required');
    expect((await t.post(org.keys.agent, 'books.expenseApprove', { id: 'clm_missing' })).status).toBe(404);
    const other = await t.org();
    expect((await t.post(other.keys.agent, 'books.expenseApprove', { id: ok.id })).status).toBe(404);
    expect((await t.post(org.keys.reader, 'books.expenseClaim', {})).status).toBe(403);
  });

  it('expenseApprove and expenseReject: bad input names the field, illegal states name the state; nothing changes', async () => {
    const o = await t.org();
    const submitted = (await claim(o)).body.result;
    const rejected = (await claim(o)).body.result;
    expect((await t.post(o.keys.agent, 'books.expenseReject', { id: rejected.id, reason: 'personal' })).status).toBe(200);
    const approved = (await claim(o)).body.result;
    expect((await t.post(o.keys.agent, 'books.expenseApprove', { id: approved.id })).status).toBe(200);
    const paid = (await claim(o, { amountCents: 1_000 })).body.result;
    expect((await t.post(o.keys.agent, 'books.expenseApprove', { id: paid.id })).status).toBe(200);
    await pay(o, paid.id, 1_000);
    const statusOf = async (id: string) =>
      (await t.db.reader.get<{ status: string }>('SELECT status FROM expense_claims WHERE org_id = ? AND id = ?', [o.orgId, id]))?.status;
    const before = (await eventsOf(t, o)).length;
    const cases: [string, Record<string, unknown>, number, string][] = [
      ['books.expenseApprove', {}, 400, 'id: is required'],
      ['books.expenseApprove', { id: 'clm 1' }, 400, 'id: must be an id (letters, digits, _ and -)'],
      ['books.expenseApprove', { id: submitted.id, reason: 'x' }, 400, 'reason: unknown field'],
      ['books.expenseReject', { id: submitted.id, reason: '' }, 400, 'reason: must not be empty'],
      ['books.expenseReject', { id: submitted.id, reason: 'x'.repeat(501) }, 400, 'reason: must be at most 500 characters'],
      [
        'books.expenseApprove',
        { id: rejected.id },
        409,
        `expense claim ${rejected.id} is rejected; only a submitted claim can be approved`,
      ],
      ['books.expenseApprove', { id: paid.id }, 409, `expense claim ${paid.id} is paid; only a submitted claim can be approved`],
      [
        'books.expenseReject',
        { id: approved.id, reason: 'x' },
        409,
        `expense claim ${approved.id} is approved; only a submitted claim can be rejected`,
      ],
      [
        'books.expenseReject',
        { id: paid.id, reason: 'x' },
        409,
        `expense claim ${paid.id} is paid; only a submitted claim can be rejected`,
      ],
      ['books.expenseApprove', { id: 'clm_nope' }, 404, 'expense claim clm_nope not found'],
      ['books.expenseReject', { id: 'clm_nope', reason: 'x' }, 404, 'expense claim clm_nope not found'],
    ];
    const code = { 400: 'BAD_REQUEST', 404: 'NOT_FOUND', 409: 'CONFLICT' } as Record<number, string>;
    for (const [method, params, status, message] of cases) {
      const r = await t.post(o.keys.agent, method, params);
      expect(r.status, `${method} ${JSON.stringify(params)}`).toBe(status);
      expect(r.body, method).toEqual(refusal(code[status] ?? String(status), message));
    }
    expect((await eventsOf(t, o)).length).toBe(before);
    expect(await Promise.all([submitted.id, rejected.id, approved.id, paid.id].map(statusOf))).toEqual([
      'submitted',
      'rejected',
      'approved',
      'paid',
    ]);
    expect(await journalsOf(t, o.orgId, submitted.id)).toEqual([]);
  });

  it('ledger API: open claims as at a date; reimbursed in part, then in full; then paid', async () => {
    const o = await t.org();
    const a = (await claim(o, { amountCents: 11_000 })).body.result;
    const submitted = (await claim(o, { amountCents: 500 })).body.result;
    await t.post(o.keys.agent, 'books.expenseApprove', { id: a.id });
    expect(await openClaimsAsOf(t.db.reader, o.orgId, inDays(-1))).toEqual([]);
    expect(await openClaimsAsOf(t.db.reader, o.orgId, today())).toEqual([
      {
        id: a.id,
        kind: 'claim',
        party: 'Mia Chen',
        reference: 'rcpt_demo',
        issuedOn: today(),
        postedOn: today(),
        dueOn: today(),
        totalCents: 11_000,
        outstandingCents: 11_000,
      },
    ]);
    await expect(pay(o, submitted.id, 1)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/is submitted; only an approved claim/),
    });
    expect(await pay(o, a.id, 1_000)).toEqual({ status: 'approved', outstandingCents: 10_000 });
    await expect(pay(o, a.id, 10_001)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: `amountCents: 10001 is more than the 10000 cents outstanding on expense claim ${a.id}`,
    });
    expect((await openClaimsAsOf(t.db.reader, o.orgId, today()))[0]?.outstandingCents).toBe(10_000);
    expect(await pay(o, a.id, 10_000)).toEqual({ status: 'paid', outstandingCents: 0 });
    expect(await openClaimsAsOf(t.db.reader, o.orgId, today())).toEqual([]);
    const approvePaid = await t.post(o.keys.agent, 'books.expenseApprove', { id: a.id });
    expect(approvePaid.status).toBe(409);
    expect(approvePaid.body.error.message).toMatch(/is paid/);
  });
});
