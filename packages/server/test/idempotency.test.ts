import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { runWrite } from '../src/write-path.js';
import { consoleJson, consoleSignIn } from './console-helpers.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, bank, FUNDING, today } from './payables-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';
import { testFixture } from './test-events.js';

const draft = { payeeName: 'Idem Pty Ltd', description: 'Once only', totalCents: 5_000, dueDays: 7 };

const EMPLOYEE = {
  email: 'staff@harbourside.example',
  startDate: '2026-07-01',
  employmentBasis: 'full_time',
  payFrequency: 'fortnightly',
  annualSalaryCents: 7_280_000,
};
const FUND = { fundName: 'AustralianSuper', fundAbn: '65 714 394 898', memberNumber: 'M-123456' };
const PAY_RUN = { periodStart: '2026-07-01', periodEnd: '2026-07-14', paymentDate: '2026-07-16', payFrequency: 'fortnightly' };
const LEAVE = { leaveType: 'annual', startDate: '2026-09-07', endDate: '2026-09-07', hours: 7 };

describe.each(engines)('idempotency keys (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let n = 0;
  const key = () => `key-${engine}-${(n += 1)}`;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const seq = async () => (await t.get(org.keys.observer, 'snapshot')).body.head.seq as number;

  it('the same key, method and params replays the first result and appends nothing', async () => {
    const k = key();
    const first = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    expect(first.status).toBe(200);
    const after = await seq();
    const again = await t.post(org.keys.agent, 'books.invoiceDraft', { params: draft }, { 'x-idempotency-key': k });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ok: true, code: 'IDEMPOTENT_REPLAY', result: first.body.result });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await seq()).toBe(after);
  });

  it('the same key with other params is CONFLICT and executes nothing', async () => {
    const k = key();
    await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    const before = await seq();
    const r = await t.post(org.keys.agent, 'books.invoiceDraft', { ...draft, totalCents: 5_001 }, { 'x-idempotency-key': k });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('CONFLICT');
    expect(r.body.error.message).toMatch(/different request/);
    expect(await seq()).toBe(before);
  });

  it('the same key on another method is CONFLICT', async () => {
    const k = key();
    await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    const r = await t.post(org.keys.agent, 'board.createTask', { title: 'x' }, { 'x-idempotency-key': k });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/books\.invoiceDraft/);
  });

  it('keys are scoped per credential: another key of the org executes afresh', async () => {
    const other = await t.org();
    const k = key();
    const a = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    const b = await t.post(other.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    expect(b.body.code).toBeUndefined();
    expect(b.body.result.id).not.toBe(a.body.result.id);
  });

  it('errors are not cached: the key may be used again after a 4xx', async () => {
    const k = key();
    const bad = await t.post(org.keys.agent, 'books.invoiceSend', { id: 'inv_missing' }, { 'x-idempotency-key': k });
    expect(bad.status).toBe(404);
    const good = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    expect(good.status).toBe(200);
    expect(good.body.code).toBeUndefined();
  });

  it('a malformed key is BAD_REQUEST', async () => {
    const r = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': 'x'.repeat(256) });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/^x-idempotency-key:/);
  });

  it('many concurrent calls with one key execute exactly once', async () => {
    const k = key();
    const before = await seq();
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k })),
    );
    const executed = replies.filter((r) => r.status === 200 && r.body.code === undefined);
    const replayed = replies.filter((r) => r.body.code === 'IDEMPOTENT_REPLAY');
    const inFlight = replies.filter((r) => r.status === 409);
    expect(executed).toHaveLength(1);
    expect(replayed.length + inFlight.length).toBe(19);
    for (const r of replayed) expect(r.body.result).toEqual(executed[0]?.body.result);
    expect(await seq()).toBe(before + 1);
  });

  it('a key whose first call is still running is CONFLICT', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const call = {
      orgId: org.orgId,
      actor: 'test',
      credentialId: org.keyIds.agent,
      method: 'board.createTask',
      params: { title: 'slow' },
      idempotencyKey: key(),
    };
    const slow = runWrite(t.db, call, async (uow) => {
      await gate;
      const e = await uow.emit(testFixture, { entityId: 'task_slow', payload: null });
      return { ledgerId: e.ledgerId };
    });
    await new Promise((r) => setTimeout(r, 20));
    await expect(runWrite(t.db, call, () => Promise.resolve({}))).rejects.toMatchObject({ code: 'CONFLICT' });
    release();
    const done = await slow;
    expect(done.replay).toBe(false);
    const replay = await runWrite(t.db, call, () => Promise.resolve({}));
    expect(replay).toEqual({ replay: true, result: done.result });
  });

  it.runIf(engine === 'postgres')('in flight over HTTP while the org is locked elsewhere → CONFLICT', async () => {
    const client = new pg.Client({ connectionString: t.pgUrl });
    await client.connect();
    const schema = (await t.db.reader.get<{ s: string }>('SELECT current_schema() AS s'))?.s;
    await client.query(`SET search_path = ${schema}`);
    await client.query('BEGIN');
    await client.query('SELECT seq FROM org_heads WHERE org_id = $1 FOR UPDATE', [org.orgId]);
    const k = key();
    const first = t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    await new Promise((r) => setTimeout(r, 100));
    const second = await t.post(org.keys.agent, 'books.invoiceDraft', draft, { 'x-idempotency-key': k });
    expect(second.status).toBe(409);
    expect(second.body.error.message).toMatch(/still running/);
    await client.query('COMMIT');
    await client.end();
    expect((await first).status).toBe(200);
  });
});

/**
 * Idempotency keys for every books write, not only invoiceDraft: the first call with a key executes (one
 * event); the same key and params again answer exactly that result with code IDEMPOTENT_REPLAY
 * and the replay header, execute nothing and append nothing, even where the state has moved on
 * or the first call spent a proof. (Other params under a used key: the CONFLICT tests above.)
 */
describe.each(engines)('every books write replays with the same key and params (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine, { paymentsOutboxDir: mkdtempSync(join(tmpdir(), 'fd-idem-pay-')) });
    org = await t.org();
  });
  afterAll(async () => t.close());

  const seq = async () => (await t.get(org.keys.observer, 'snapshot')).body.head.seq as number;
  /**
   * Events since `cursor` made by calls: an adapter's confirmation after commit (the system's
   * `books.tax.lodged` and `books.stp.lodged`, actor "") is its own side effect, not the call's,
   * and may land any time.
   */
  const callEvents = async (cursor: number) => {
    const r = await t.get(org.keys.observer, `events?cursor=${cursor}&limit=500`);
    return (r.body.events as { kind: string; actor: string }[]).filter(
      (e) => !(e.actor === '' && (e.kind === 'books.tax.lodged' || e.kind === 'books.stp.lodged')),
    ).length;
  };
  const agent = (method: string, params: unknown, headers: Record<string, string> = {}) => t.post(org.keys.agent, method, params, headers);
  const ok = async (method: string, params: unknown) => {
    const r = await agent(method, params);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  };

  let n = 0;
  const unique = (prefix: string) => `${prefix} ${engine} ${(n += 1)}`;
  const draftId = async () =>
    (await ok('books.invoiceDraft', { payeeName: unique('Customer'), description: 'Work', totalCents: 110_000, dueDays: 14 })).id as string;
  const sentId = async (totalCents = 110_000) => {
    const id = (await ok('books.invoiceDraft', { payeeName: unique('Customer'), description: 'Work', totalCents, dueDays: 14 }))
      .id as string;
    await ok('books.invoiceSend', { id });
    return id;
  };
  const quoteId = async () =>
    (await ok('books.quoteDraft', { payeeName: unique('Prospect'), lines: [{ description: 'Fit-out', amountCents: 110_000 }] }))
      .id as string;
  /** A captured bill an agent may approve: its payee already has an approved bill (so it is not held for a new payee). */
  const knownPayeeBill = async () => {
    const payeeName = unique('Supplier');
    await approvedBill(t, org, { payeeName, description: 'First bill', totalCents: 1_100 });
    const bill = await ok('books.billCapture', { payeeName, description: 'Second bill', totalCents: 2_200, dueDays: 30 });
    expect(bill.heldReason).toBeNull();
    return bill.id as string;
  };
  const submittedClaim = async () =>
    (
      await ok('books.expenseClaim', {
        claimant: 'Mia Chen',
        description: 'Stationery',
        amountCents: 8_745,
        spentOn: today(),
        receiptRef: unique('rcpt'),
      })
    ).id as string;
  const lineOf = async (amountCents: number) =>
    (await ok('books.feedLines', { lines: [{ date: today(), amountCents, description: unique('BANK LINE') }] })).lineIds[0] as string;

  let saverCode: string | null = null;
  /** A second bank account, added once by the owner in the console (keys cannot add accounts). */
  const secondAccount = async () => {
    if (saverCode) return saverCode;
    const s = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
    const r = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'bank', name: 'Saver' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    saverCode = (r.body as { result: { account: { accountCode: string } } }).result.account.accountCode;
    return saverCode;
  };

  const employeeId = async () => (await ok('books.onboardingStart', { ...EMPLOYEE, name: unique('Employee') })).id as string;
  const taxStep = (id: string) => ({
    id,
    step: 'tax_declaration',
    taxFileNumber: '876543210',
    residency: 'resident',
    claimsTaxFreeThreshold: true,
  });
  const activeEmployeeId = async () => {
    const id = await employeeId();
    await ok('books.onboardingAdvance', taxStep(id));
    await ok('books.onboardingAdvance', { id, step: 'super', ...FUND });
    const params = { id, step: 'contract', title: 'Joiner' };
    const { approvalId } = await heldAndRequested(t, org, 'books.onboardingAdvance', params);
    await decide(t, org, approvalId, true);
    await ok('books.onboardingAdvance', { ...params, approvalId });
    return id;
  };

  const cases: readonly [string, string, () => Record<string, unknown> | Promise<Record<string, unknown>>][] = [
    ['invoiceDraft', 'books.invoiceDraft', () => ({ payeeName: 'Replay Cafe', description: 'Catering', totalCents: 5_500, dueDays: 7 })],
    ['invoiceSend', 'books.invoiceSend', async () => ({ id: await draftId() })],
    ['invoiceChaseStep, step 1', 'books.invoiceChaseStep', async () => ({ id: await sentId(), step: 1, early: true })],
    [
      'invoiceChaseStep, step 2 completed with a proof',
      'books.invoiceChaseStep',
      async () => {
        const id = await sentId();
        await ok('books.invoiceChaseStep', { id, step: 1, early: true });
        const { approvalId } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id, step: 2 });
        await decide(t, org, approvalId, true);
        return { id, step: 2, approvalId };
      },
    ],
    ['invoiceRecordPayment', 'books.invoiceRecordPayment', async () => ({ id: await sentId(), amountCents: 40_000, reference: 'EFT 1' })],
    ['invoiceCreditNote', 'books.invoiceCreditNote', async () => ({ id: await sentId(), amountCents: 1_100, reason: 'damaged' })],
    ['invoiceVoid', 'books.invoiceVoid', async () => ({ id: await draftId(), reason: 'raised twice' })],
    ['invoiceWriteOff', 'books.invoiceWriteOff', async () => ({ id: await sentId(), reason: 'customer wound up' })],
    // Contact credits: a prepayment, its allocation and refund; a supplier's adjustment note.
    [
      'creditPrepayment',
      'books.creditPrepayment',
      async () => {
        const c = await ok('books.contactCreate', { name: unique('Customer'), kind: 'customer' });
        return { contactId: c.id, side: 'customer', amountCents: 5_000, reference: 'DEPOSIT' };
      },
    ],
    [
      'creditAllocate',
      'books.creditAllocate',
      async () => {
        const id = await sentId();
        const inv = await ok('books.invoice', { id });
        const credit = await ok('books.creditPrepayment', { contactId: inv.contactId, side: 'customer', amountCents: 5_000 });
        return { creditId: credit.id, documentId: id };
      },
    ],
    [
      'creditRefund',
      'books.creditRefund',
      async () => {
        const c = await ok('books.contactCreate', { name: unique('Supplier'), kind: 'supplier' });
        const credit = await ok('books.creditPrepayment', { contactId: c.id, side: 'supplier', amountCents: 5_000 });
        return { creditId: credit.id, reference: 'BACK 1' };
      },
    ],
    [
      'billCreditNote',
      'books.billCreditNote',
      async () => {
        const bill = await approvedBill(t, org, { payeeName: unique('Supplier'), description: 'x', totalCents: 2_200 });
        return { id: bill.id, amountCents: 1_100, reason: 'short delivery' };
      },
    ],
    // A foreign bill's payment: its currency's amount at a rate given.
    [
      'billRecordPayment',
      'books.billRecordPayment',
      async () => {
        const bill = await approvedBill(t, org, {
          payeeName: unique('Supplier'),
          description: 'x',
          totalCents: 2_200,
          currency: 'USD',
          exchangeRate: '1.5',
        });
        return { id: bill.id, amountCents: 1_100, exchangeRate: '1.52' };
      },
    ],
    // The organisation's own chart: each case its own account code.
    ['accountCreate', 'books.accountCreate', () => ({ code: '6951', name: 'Software subscriptions', type: 'expense' })],
    [
      'accountUpdate',
      'books.accountUpdate',
      async () => {
        await ok('books.accountCreate', { code: '6952', name: 'Subscriptions', type: 'expense' });
        return { code: '6952', name: 'Software and data subscriptions' };
      },
    ],
    [
      'accountArchive',
      'books.accountArchive',
      async () => {
        await ok('books.accountCreate', { code: '6953', name: 'Unused', type: 'expense' });
        return { code: '6953' };
      },
    ],
    // Budgets: a year no other case budgets.
    [
      'budgetSet',
      'books.budgetSet',
      () => ({ financialYearStart: '2024-07-01', lines: [{ accountCode: '4000', monthlyCents: Array(12).fill(100_000) }] }),
    ],
    // Exchange rates: a currency no other case sets.
    ['exchangeRateSet', 'books.exchangeRateSet', () => ({ rates: [{ currency: 'JPY', date: '2026-01-05', rate: '0.010123' }] })],
    // A revaluation: the one open KRW invoice at today's table rate (no other case revalues).
    [
      'currencyRevalue',
      'books.currencyRevalue',
      async () => {
        // Every currency open in this organisation needs a rate on the date (the foreign bill's is USD).
        await ok('books.exchangeRateSet', {
          rates: [
            { currency: 'KRW', date: today(), rate: '0.0011' },
            { currency: 'USD', date: today(), rate: '1.51' },
          ],
        });
        const d = await ok('books.invoiceDraft', {
          payeeName: unique('Seoul'),
          description: 'Export',
          totalCents: 1_000_000,
          dueDays: 30,
          taxCode: 'EXPORT',
          currency: 'KRW',
          exchangeRate: '0.001',
        });
        await ok('books.invoiceSend', { id: d.id });
        return { date: today() };
      },
    ],
    // Tracking: the organisation's first category (it has room for two).
    ['trackingSet', 'books.trackingSet', () => ({ category: 'Division', options: [{ name: 'Cafe' }, { name: 'Catering' }] })],
    // Repeating: a schedule of its own payee (the same one again would be a no-op).
    [
      'repeatingSet',
      'books.repeatingSet',
      () => ({
        kind: 'bill',
        action: 'capture',
        template: { payeeName: 'Idempotent Landlord', description: 'Rent', totalCents: 220_000, dueDays: 7 },
        frequency: 'monthly',
        startDate: today(),
      }),
    ],
    // Quotes: each case its own quote (a second send or decision would be a no-op).
    [
      'quoteDraft',
      'books.quoteDraft',
      () => ({ payeeName: unique('Prospect'), lines: [{ description: 'Fit-out', amountCents: 110_000 }] }),
    ],
    ['quoteSend', 'books.quoteSend', async () => ({ id: await quoteId() })],
    ['quoteDecide, accepted', 'books.quoteDecide', async () => ({ id: await quoteId(), decision: 'accepted' })],
    ['quoteDecide, declined', 'books.quoteDecide', async () => ({ id: await quoteId(), decision: 'declined' })],
    ['invoicePromise (a new act each call)', 'books.invoicePromise', async () => ({ id: await sentId(), promisedOn: today() })],
    [
      'statementRun (a new act each call)',
      'books.statementRun',
      async () => {
        await sentId();
        return {};
      },
    ],
    ['billCapture', 'books.billCapture', () => ({ payeeName: unique('Supplier'), description: 'Timber', totalCents: 3_300, dueDays: 30 })],
    ['billApprove', 'books.billApprove', async () => ({ id: await knownPayeeBill() })],
    ['billHold', 'books.billHold', async () => ({ id: await knownPayeeBill(), reason: 'disputed' })],
    ['billReturn', 'books.billReturn', async () => ({ id: await knownPayeeBill(), reason: 'not ours' })],
    [
      'billScheduleRun, the hold frame',
      'books.billScheduleRun',
      async () => {
        const bill = await approvedBill(t, org, {
          payeeName: unique('Payee'),
          description: 'x',
          totalCents: 1_000,
          ...bank('062-703', '11223344', 'Payee Pty Ltd'),
        });
        return { billIds: [bill.id], paymentDate: today(), funding: FUNDING };
      },
    ],
    [
      'billScheduleRun, completed with a proof',
      'books.billScheduleRun',
      async () => {
        const bill = await approvedBill(t, org, {
          payeeName: unique('Payee'),
          description: 'x',
          totalCents: 1_000,
          ...bank('062-703', '11223344', 'Payee Pty Ltd'),
        });
        const params = { billIds: [bill.id], paymentDate: today(), funding: FUNDING };
        const { approvalId } = await heldAndRequested(t, org, 'books.billScheduleRun', params);
        await decide(t, org, approvalId, true);
        return { ...params, approvalId };
      },
    ],
    [
      'expenseClaim',
      'books.expenseClaim',
      () => ({ claimant: 'Sam Lee', description: 'Taxi', amountCents: 4_400, spentOn: today(), receiptRef: unique('rcpt') }),
    ],
    ['expenseApprove', 'books.expenseApprove', async () => ({ id: await submittedClaim() })],
    ['expenseReject', 'books.expenseReject', async () => ({ id: await submittedClaim(), reason: 'personal purchase' })],
    ['feedLines', 'books.feedLines', () => ({ lines: [{ date: today(), amountCents: 12_345, description: unique('DEPOSIT') }] })],
    [
      'matchAccept',
      'books.matchAccept',
      async () => {
        const id = await sentId(50_000);
        return { lineId: await lineOf(50_000), target: { kind: 'invoice', id } };
      },
    ],
    [
      'matchHoldResolve, completed with a proof',
      'books.matchHoldResolve',
      async () => {
        const id = await sentId(150_000);
        const params = { lineId: await lineOf(150_000), target: { kind: 'invoice', id } };
        const { approvalId } = await heldAndRequested(t, org, 'books.matchHoldResolve', params);
        await decide(t, org, approvalId, true);
        return { ...params, approvalId };
      },
    ],
    [
      'receiptsRegister',
      'books.receiptsRegister',
      () => ({
        contentBase64: Buffer.from(unique('receipt bytes')).toString('base64'),
        filename: 'receipt.pdf',
        mimeType: 'application/pdf',
      }),
    ],
    [
      'attachmentAdd',
      'books.attachmentAdd',
      async () => ({
        kind: 'invoice',
        id: await draftId(),
        attachment: {
          contentBase64: Buffer.from(unique('quote bytes')).toString('base64'),
          filename: 'quote.pdf',
          mimeType: 'application/pdf',
        },
      }),
    ],
    ['lineRecode (a new act each call)', 'books.lineRecode', async () => ({ lineId: await lineOf(-1_000), accountCode: '6300' })],
    // Tax: each case its own past month, so no BAS overlaps another.
    ['taxPrepare', 'books.taxPrepare', () => ({ periodStart: '2025-01-01', periodEnd: '2025-01-31' })],
    [
      'taxHold',
      'books.taxHold',
      async () => ({ id: (await ok('books.taxPrepare', { periodStart: '2025-02-01', periodEnd: '2025-02-28' })).id, reason: 'check' }),
    ],
    [
      'taxReturn (a new act each call)',
      'books.taxReturn',
      async () => ({ id: (await ok('books.taxPrepare', { periodStart: '2025-03-01', periodEnd: '2025-03-31' })).id, reason: 'recheck' }),
    ],
    [
      'taxSignLodge, the hold frame',
      'books.taxSignLodge',
      async () => ({ id: (await ok('books.taxPrepare', { periodStart: '2025-04-01', periodEnd: '2025-04-30' })).id }),
    ],
    [
      'taxSignLodge, completed with a proof',
      'books.taxSignLodge',
      async () => {
        const id = (await ok('books.taxPrepare', { periodStart: '2025-05-01', periodEnd: '2025-05-31' })).id as string;
        const { approvalId } = await heldAndRequested(t, org, 'books.taxSignLodge', { id });
        await decide(t, org, approvalId, true);
        return { id, approvalId };
      },
    ],
    [
      'journalPost (a new act each call)',
      'books.journalPost',
      () => ({
        date: today(),
        memo: 'Owner loan',
        lines: [
          { accountCode: '1000', debitCents: 10_000 },
          { accountCode: '3000', creditCents: 10_000 },
        ],
      }),
    ],
    // Fixed assets: an asset registered by a journal line on 1500.
    [
      'assetDepreciationRun',
      'books.assetDepreciationRun',
      async () => {
        const [y, m] = today().split('-').map(Number) as [number, number];
        await ok('books.journalPost', {
          date: new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 10),
          memo: 'Kiln',
          lines: [
            { accountCode: '1500', debitCents: 50_000, asset: { name: 'Kiln', effectiveLifeYears: 10, method: 'prime_cost' } },
            { accountCode: '3000', creditCents: 50_000 },
          ],
        });
        return { periodEnd: new Date(Date.UTC(y, m - 1, 0)).toISOString().slice(0, 10) };
      },
    ],
    [
      'assetDispose',
      'books.assetDispose',
      async () => {
        const j = await ok('books.journalPost', {
          date: today(),
          memo: 'Press',
          lines: [
            { accountCode: '1500', debitCents: 20_000, asset: { name: 'Press', effectiveLifeYears: 5, method: 'diminishing_value' } },
            { accountCode: '3000', creditCents: 20_000 },
          ],
        });
        return { id: j.assetIds[0], date: today(), proceedsCents: 11_000 };
      },
    ],
    [
      'assetRegister',
      'books.assetRegister',
      async () => {
        // A capital bill line without asset details puts a pending asset on the register.
        const bill = await approvedBill(t, org, {
          payeeName: unique('Machinery'),
          description: 'Lathe',
          issueDate: today(),
          lines: [{ description: 'Lathe', amountCents: 55_000, taxCode: 'GST_ON_CAPITAL' }],
        });
        const pending = (await ok('books.assets', { status: 'pending' })).assets as { id: string; source: { id: string } }[];
        const asset = pending.find((a) => a.source.id === bill.id);
        expect(asset).toBeDefined();
        return { id: asset?.id, name: 'Lathe', effectiveLifeYears: 10, method: 'prime_cost' };
      },
    ],
    // People: an employee through each onboarding step, then leave.
    ['onboardingStart', 'books.onboardingStart', () => ({ ...EMPLOYEE, name: unique('Employee') })],
    ['onboardingAdvance, tax_declaration', 'books.onboardingAdvance', async () => taxStep(await employeeId())],
    [
      'onboardingAdvance, contract completed with a proof',
      'books.onboardingAdvance',
      async () => {
        const id = await employeeId();
        await ok('books.onboardingAdvance', taxStep(id));
        await ok('books.onboardingAdvance', { id, step: 'super', ...FUND });
        const params = { id, step: 'contract', title: 'Joiner' };
        const { approvalId } = await heldAndRequested(t, org, 'books.onboardingAdvance', params);
        await decide(t, org, approvalId, true);
        return { ...params, approvalId };
      },
    ],
    [
      'employeeUpdate',
      'books.employeeUpdate',
      async () => ({ id: await activeEmployeeId(), effectiveFrom: '2026-09-01', hoursPerWeek: 30 }),
    ],
    [
      'employeeTerminate',
      'books.employeeTerminate',
      async () => ({ employeeId: await activeEmployeeId(), terminationDate: today(), reason: 'voluntary' }),
    ],
    ['leaveRequest', 'books.leaveRequest', async () => ({ employeeId: await activeEmployeeId(), ...LEAVE })],
    [
      'leaveApprove',
      'books.leaveApprove',
      async () => ({
        id: (await ok('books.leaveRequest', { employeeId: await activeEmployeeId(), ...LEAVE })).id,
      }),
    ],
    // Pay runs: each case pays its own new employee, so the runs never overlap.
    ['payrollDraft', 'books.payrollDraft', async () => ({ ...PAY_RUN, employeeIds: [await activeEmployeeId()] })],
    [
      'payrollSign completed with a proof',
      'books.payrollSign',
      async () => {
        const { id } = await ok('books.payrollDraft', { ...PAY_RUN, employeeIds: [await activeEmployeeId()] });
        const { approvalId } = await heldAndRequested(t, org, 'books.payrollSign', { id });
        await decide(t, org, approvalId, true);
        return { id, approvalId };
      },
    ],
    [
      // A signed run accrues annual leave, so the provision at today has a liability to post.
      'leaveProvision',
      'books.leaveProvision',
      async () => {
        const { id } = await ok('books.payrollDraft', { ...PAY_RUN, employeeIds: [await activeEmployeeId()] });
        const { approvalId } = await heldAndRequested(t, org, 'books.payrollSign', { id });
        await decide(t, org, approvalId, true);
        await ok('books.payrollSign', { id, approvalId });
        return { asAt: today() };
      },
    ],
    [
      'payrollRecall',
      'books.payrollRecall',
      async () => ({
        id: (await ok('books.payrollDraft', { ...PAY_RUN, employeeIds: [await activeEmployeeId()] })).id,
        reason: 'drafted twice',
      }),
    ],
    [
      'stpResubmit (a new act each call)',
      'books.stpResubmit',
      async () => {
        const { id } = await ok('books.payrollDraft', { ...PAY_RUN, employeeIds: [await activeEmployeeId()] });
        const { approvalId } = await heldAndRequested(t, org, 'books.payrollSign', { id });
        await decide(t, org, approvalId, true);
        await ok('books.payrollSign', { id, approvalId });
        return { payRunId: id, reason: 'ATO asked for it again' };
      },
    ],
    [
      'stpFinalise completed with a proof',
      'books.stpFinalise',
      async () => {
        const employee = await activeEmployeeId();
        const { id } = await ok('books.payrollDraft', { ...PAY_RUN, employeeIds: [employee] });
        const sign = await heldAndRequested(t, org, 'books.payrollSign', { id });
        await decide(t, org, sign.approvalId, true);
        await ok('books.payrollSign', { id, approvalId: sign.approvalId });
        const params = { financialYear: '2026-27', employeeIds: [employee] };
        const { approvalId } = await heldAndRequested(t, org, 'books.stpFinalise', params);
        await decide(t, org, approvalId, true);
        return { ...params, approvalId };
      },
    ],
    [
      'superPay completed with a proof',
      'books.superPay',
      async () => {
        const { id } = await ok('books.payrollDraft', { ...PAY_RUN, employeeIds: [await activeEmployeeId()] });
        const sign = await heldAndRequested(t, org, 'books.payrollSign', { id });
        await decide(t, org, sign.approvalId, true);
        await ok('books.payrollSign', { id, approvalId: sign.approvalId });
        const s = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
        const r = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'bank', name: unique('Super') });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        const fundingAccountId = (r.body as { result: { account: { id: string } } }).result.account.id;
        const params = { payRunIds: [id], paymentDate: today(), fundingAccountId };
        const { approvalId } = await heldAndRequested(t, org, 'books.superPay', params);
        await decide(t, org, approvalId, true);
        return { ...params, approvalId };
      },
    ],
    // Contacts: a document by contactId, a new contact, a contact's changes.
    [
      'invoiceDraft by contactId',
      'books.invoiceDraft',
      async () => ({
        contactId: (await ok('books.contactCreate', { name: unique('Customer'), kind: 'customer' })).id,
        description: 'Catering',
        totalCents: 5_500,
        dueDays: 7,
      }),
    ],
    ['contactCreate', 'books.contactCreate', () => ({ name: unique('Contact'), kind: 'supplier', abn: '51 824 753 556' })],
    [
      'contactUpdate',
      'books.contactUpdate',
      async () => ({
        id: (await ok('books.contactCreate', { name: unique('Contact'), kind: 'customer' })).id,
        email: 'accounts@contact.example',
      }),
    ],
    // Corrections: each undoes something the case sets up first.
    [
      'lineUnmatch',
      'books.lineUnmatch',
      async () => {
        const id = await sentId(50_000);
        const lineId = await lineOf(50_000);
        await ok('books.matchAccept', { lineId, target: { kind: 'invoice', id } });
        return { lineId, reason: 'matched to the wrong invoice' };
      },
    ],
    [
      'invoicePaymentDishonour',
      'books.invoicePaymentDishonour',
      async () => {
        const id = await sentId();
        const paid = await ok('books.invoiceRecordPayment', { id, amountCents: 40_000, reference: unique('EFT') });
        return { id, paymentId: paid.paymentId, reason: 'cheque bounced' };
      },
    ],
    [
      'billPaymentReturn',
      'books.billPaymentReturn',
      async () => {
        const bill = await approvedBill(t, org, { payeeName: unique('Payee'), description: 'x', totalCents: 2_000 });
        const lineId = await lineOf(-2_000);
        const m = await ok('books.matchAccept', { lineId, target: { kind: 'bill', id: bill.id } });
        return { id: bill.id, paymentId: m.match.id, reason: 'INVALID ACCT' };
      },
    ],
    [
      'journalReverse',
      'books.journalReverse',
      async () => {
        const j = await ok('books.journalPost', {
          date: today(),
          memo: 'Accrual',
          lines: [
            { accountCode: '6000', debitCents: 1_000 },
            { accountCode: '3000', creditCents: 1_000 },
          ],
        });
        return { journalId: j.journalId, reason: 'posted to the wrong period' };
      },
    ],
    // Bank accounts: a transfer to a second account an owner added; a split line.
    [
      'transferMatch',
      'books.transferMatch',
      async () => {
        const saver = await secondAccount();
        const fromLineId = await lineOf(-3_000);
        const toLineId = (
          await ok('books.feedLines', {
            accountCode: saver,
            lines: [{ date: today(), amountCents: 3_000, description: unique('TRANSFER IN') }],
          })
        ).lineIds[0];
        return { fromLineId, toLineId };
      },
    ],
    [
      'lineSplit (a new act each call)',
      'books.lineSplit',
      async () => {
        const id = await sentId(20_000);
        const lineId = await lineOf(25_000);
        return {
          lineId,
          parts: [
            { target: { kind: 'invoice', id }, amountCents: 20_000 },
            { accountCode: '4200', amountCents: 5_000 },
          ],
        };
      },
    ],
    // Last: a conversion comes before trading, so it runs in an organisation of its own (the
    // remaining calls of this case use it).
    [
      'openingBalances',
      'books.openingBalances',
      async () => {
        org = await t.org();
        return {
          conversionDate: '2000-01-31',
          accounts: [
            { accountCode: '1000', debitCents: 1_000 },
            { accountCode: '3000', creditCents: 1_000 },
          ],
        };
      },
    ],
  ];

  it('covers every books write that is deployed', async () => {
    const { methodRegistry } = await import('../src/registry.js');
    const writes = [...methodRegistry.values()]
      .filter((m) => m.spec.name.startsWith('books.') && m.spec.scope === 'books.write')
      .map((m) => m.spec.name);
    expect([...new Set(cases.map((c) => c[1]))].sort()).toEqual(writes.sort());
  });

  it.each(cases)('%s', async (_label, method, setup) => {
    const params = await setup();
    const key = freshKey();
    const before = await seq();
    const first = await agent(method, params, { 'x-idempotency-key': key });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.code).toBeUndefined();
    expect(first.body.result.noop).toBeUndefined(); // it executed: not a no-op on a row already in its target state
    expect(await callEvents(before)).toBe(1); // exactly one event
    const replay = await agent(method, { params }, { 'x-idempotency-key': key }); // the wrapped form is the same params
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ ok: true, code: 'IDEMPOTENT_REPLAY', result: first.body.result });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await callEvents(before)).toBe(1);
  });
});
