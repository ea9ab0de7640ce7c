/**
 * Paying super (books.superPay) through HTTP on both engines: signed runs' super is paid to each
 * employee's fund by a human's signature (hold → approval → retry with the proof), one journal
 * Dr 2300 / Cr the bank account record's chart account, one contribution file per fund (its
 * exact bytes), and books.taxObligations shows each run paid by it, with Payday Super's 7-day
 * deadline (overdue, paid late). Runs by list or through a date; bad input names the field;
 * CONFLICTs; idempotency by key and by state; scope; another organisation's ids NOT_FOUND; other
 * payments to 2300 settle the oldest runs a super payment did not pay.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalFacts } from '../src/governance/approval-facts.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleGet, consoleJson, consoleSignIn } from './console-helpers.js';
import { agentCalls, checkOrgEvents, engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf, inDays, journalLines, today } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

const AROHA = { name: 'Aroha Ngata', annualSalaryCents: 7_280_000 };
const CHLOE = { name: 'Chloe Park', annualSalaryCents: 3_770_000 };
const HOSTPLUS = { fundName: 'Hostplus', fundAbn: '68 657 495 890', memberNumber: 'HP-99' };
const FORTNIGHT = { payFrequency: 'fortnightly' };
const RUNS = [
  { periodStart: '2026-07-03', periodEnd: '2026-07-16', paymentDate: '2026-07-16', ...FORTNIGHT },
  { periodStart: '2026-07-17', periodEnd: '2026-07-30', paymentDate: '2026-07-30', ...FORTNIGHT },
  { periodStart: '2026-07-31', periodEnd: '2026-08-13', paymentDate: '2026-08-13', ...FORTNIGHT },
];
const HEADER =
  'Line ID,Employer ABN,Employer Name,Payment Period Start Date,Payment Period End Date,Payroll Number Identifier,Member Name,' +
  'Date of Birth,Fund Member ID,Fund ABN,Fund USI,Fund Name,Superannuation Guarantee Amount,Salary Sacrificed Amount,Payment Reference';

describe.each(engines)('super payments (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-super-pay-'));
    t = await startTestServer(engine, { paymentsOutboxDir: dir });
  });
  afterAll(async () => t.close());

  const { post, ok } = agentCalls(() => t);
  const signed = async (o: CreatedOrg, params: Record<string, unknown>) => {
    const run = await ok(o, 'books.payrollDraft', params);
    return (await signPayRun(t, o, run.id as string)).result as { id: string; totals: { superCents: number } };
  };
  const account = async (
    o: CreatedOrg,
    input: Record<string, unknown> = { kind: 'bank', name: 'Super account', bsb: '062-000', accountNumber: '12345678' },
  ) => {
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const r = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', input);
    expect(r.status, r.text).toBe(200);
    return r.body.result.account as { id: string; accountCode: string };
  };
  /** Held, approved by the owner, retried with the proof. */
  async function pay(o: CreatedOrg, params: Record<string, unknown>, key = freshKey()) {
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.superPay', params);
    await decide(t, o, approvalId, true);
    const done = await post(o, 'books.superPay', { ...params, approvalId }, { 'x-idempotency-key': key });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    return { hold, approvalId, result: done.body.result, key };
  }
  const supers = async (o: CreatedOrg) => {
    const r = await t.post(o.keys.reader, 'books.taxObligations', {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body.result.obligations as any[]).filter((x) => x.kind === 'super_guarantee');
  };
  const balance2300 = async (o: CreatedOrg, docId?: string) => {
    const r = await t.db.reader.get<{ n: number | string | null }>(
      `SELECT SUM(credit_cents) - SUM(debit_cents) AS n FROM journal_lines WHERE org_id = ? AND account_code = '2300'${docId ? ' AND doc_id = ?' : ''}`,
      docId ? [o.orgId, docId] : [o.orgId],
    );
    return Number(r?.n ?? 0);
  };
  /** Events the organisation's acts appended (the lodgement channel confirms STP pay events in the background: not counted). */
  const acts = async (o: CreatedOrg) => (await eventsOf(t, o)).filter((e) => e.kind !== 'books.stp.lodged').length;
  async function fileBytes(name: string): Promise<Buffer> {
    for (let i = 0; i < 100; i += 1) {
      await t.server.outbox.kick();
      if (existsSync(join(dir, name))) return readFileSync(join(dir, name));
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`payment file ${name} was not written`);
  }

  it('pays held for a human: one journal on 2300, one file per fund, obligations show it paid; through a date; repeats', async () => {
    const o = await t.org();
    const acct = await account(o);
    const aroha = await activeEmployee(t, o, AROHA);
    const chloe = await activeEmployee(t, o, CHLOE);
    await ok(o, 'books.employeeUpdate', { id: chloe, effectiveFrom: '2026-07-01', ...HOSTPLUS });
    const r1 = await signed(o, RUNS[0]!);
    const r2 = await signed(o, RUNS[1]!);
    expect(r1.totals.superCents).toBe(33_600 + 17_400);

    // Payday Super: each run due 7 days after its payment date, overdue today, paid by nothing yet.
    expect(await supers(o)).toEqual([
      expect.objectContaining({ id: r1.id, status: 'due', dueOn: '2026-07-23', overdue: true, outstandingCents: 51_000, paidBy: null }),
      expect.objectContaining({ id: r2.id, status: 'due', dueOn: '2026-08-06', overdue: true, outstandingCents: 51_000, paidBy: null }),
    ]);

    // Held: each fund with its amount and employees, the run (late), the total and the account.
    const params = { payRunIds: [r1.id], paymentDate: today(), fundingAccountId: acct.id };
    const { hold, approvalId, result, key } = await pay(o, params);
    const summary = hold.approval.subject.summary as string;
    expect(hold.approval.actionClass).toBe('books.payroll_sign');
    expect(hold.subjectId).toMatch(/^suppay_[0-9a-f]{16}$/);
    expect(summary).toContain(
      `Pay $510.00 of super guarantee on ${today()} from bank account "Super account" BSB 062-000 account 12345678 (ledger account ${acct.accountCode}) to 2 funds`,
    );
    expect(summary).toContain('1. $336.00 to "AustralianSuper" (ABN 65714394898) for "Aroha Ngata" $336.00');
    expect(summary).toContain('2. $174.00 to "Hostplus" (ABN 68657495890) for "Chloe Park" $174.00');
    expect(summary).toContain(`${r1.id} (2026-07-03 to 2026-07-16, paid 2026-07-16, super $510.00, due 2026-07-23, paid late)`);
    const facts = await approvalFacts(
      t.db.reader,
      o.orgId,
      { actionClass: 'books.payroll_sign', subjectId: hold.subjectId, params },
      today(),
    );
    expect(facts).toMatchObject({
      amount: { cents: 51_000, label: 'super guarantee of 1 pay run' },
      toWhom: '"AustralianSuper" $336.00, "Hostplus" $174.00',
      fromAccount: `BSB 062-000 account 12345678 ("Super account"), ledger account ${acct.accountCode}`,
      paymentDate: today(),
    });

    const id = result.superPaymentId as string;
    expect(id).toMatch(/^sup_/);
    expect(result).toEqual({
      superPaymentId: id,
      paymentDate: today(),
      fundingAccountId: acct.id,
      accountCode: acct.accountCode,
      totalCents: 51_000,
      payRuns: [{ payRunId: r1.id, paymentDate: '2026-07-16', superCents: 51_000 }],
      funds: [
        { fundAbn: '65714394898', fundName: 'AustralianSuper', amountCents: 33_600, employeeCount: 1, fileName: `${id}-65714394898.csv` },
        { fundAbn: '68657495890', fundName: 'Hostplus', amountCents: 17_400, employeeCount: 1, fileName: `${id}-68657495890.csv` },
      ],
      journalId: expect.stringMatching(/^jnl_/),
      ledgerId: expect.any(String),
    });

    // One journal dated paymentDate: Dr 2300 per run (its doc) / Cr the record's chart account; the run's 2300 is settled.
    expect(await journalLines(t, o.orgId, result.journalId)).toEqual([
      expect.objectContaining({ account_code: '2300', debit_cents: 51_000, credit_cents: 0, doc_id: r1.id }),
      expect.objectContaining({ account_code: acct.accountCode, debit_cents: 0, credit_cents: 51_000 }),
    ]);
    expect(await balance2300(o, r1.id)).toBe(0);
    expect(await balance2300(o)).toBe(51_000);

    // Its one event: the runs, each fund's amount and file, the account, the journal, the proof.
    const ev = (await eventsOf(t, o)).filter((e) => e.kind === 'books.super.pay');
    expect(ev).toHaveLength(1);
    expect(ev[0].payload).toMatchObject({
      superPaymentId: id,
      paymentDate: today(),
      payRunIds: [r1.id],
      totalCents: 51_000,
      funds: [
        { fundAbn: '65714394898', amountCents: 33_600, fileName: `${id}-65714394898.csv` },
        { fundAbn: '68657495890', amountCents: 17_400, fileName: `${id}-68657495890.csv` },
      ],
      fundingAccountId: acct.id,
      journalId: result.journalId,
      approvalId,
    });

    // The files' exact bytes: a header of the SuperStream alternative file format's columns, a row per employee per run, CR LF, no TFN.
    const org = await t.db.reader.get<{ name: string; abn: string | null }>('SELECT name, abn FROM organisations WHERE id = ?', [o.orgId]);
    const employer = `${org?.abn ?? ''},${org?.name ?? ''}`;
    const row = (emp: string, name: string, member: string, abn: string, fund: string, cents: string) =>
      `1,${employer},2026-07-03,2026-07-16,${emp},${name},,${member},${abn},,${fund},${cents},0.00,${id}\r\n`;
    expect((await fileBytes(`${id}-65714394898.csv`)).toString('utf8')).toBe(
      `${HEADER}\r\n${row(aroha, 'Aroha Ngata', 'M-123456', '65714394898', 'AustralianSuper', '336.00')}`,
    );
    expect((await fileBytes(`${id}-68657495890.csv`)).toString('utf8')).toBe(
      `${HEADER}\r\n${row(chloe, 'Chloe Park', 'HP-99', '68657495890', 'Hostplus', '174.00')}`,
    );
    const files = await t.get(o.keys.reader, 'books.files?kind=super_contribution');
    expect(files.status, JSON.stringify(files.body)).toBe(200);
    expect((files.body.files as any[]).map((f) => [f.filename, f.kind, f.source, f.contentType]).sort()).toEqual([
      [`${id}-65714394898.csv`, 'super_contribution', id, 'text/csv; charset=utf-8'],
      [`${id}-68657495890.csv`, 'super_contribution', id, 'text/csv; charset=utf-8'],
    ]);

    // The obligations read: the run paid by this payment (late: after its due date); the other still overdue.
    expect(await supers(o)).toEqual([
      expect.objectContaining({
        id: r1.id,
        status: 'paid',
        overdue: false,
        outstandingCents: 0,
        paidBy: { superPaymentId: id, paymentDate: today(), late: true },
      }),
      expect.objectContaining({ id: r2.id, status: 'due', overdue: true, outstandingCents: 51_000, paidBy: null }),
    ]);

    // Idempotency: the same key replays; the same runs, date and account again is a no-op (no hold, no event).
    const replay = await post(o, 'books.superPay', { ...params, approvalId }, { 'x-idempotency-key': key });
    expect(replay.body.result).toEqual(result);
    const seq = await acts(o);
    expect(await ok(o, 'books.superPay', params)).toEqual({ ...result, noop: true });
    expect(await acts(o)).toBe(seq);
    // A run already paid, named with another: CONFLICT naming the payment.
    const twice = await post(o, 'books.superPay', { ...params, payRunIds: [r1.id, r2.id] });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toContain(`already paid by super payment ${id}`);

    // Through today: every signed run still wholly owed (r2), the paid one left out.
    const through = { through: today(), paymentDate: today(), fundingAccountId: acct.id };
    const second = (await pay(o, through)).result;
    expect(second.payRuns).toEqual([{ payRunId: r2.id, paymentDate: '2026-07-30', superCents: 51_000 }]);
    expect(second.totalCents).toBe(51_000);
    // The same through again: nothing more owed, a no-op answering it; another date: nothing is owed.
    expect(await ok(o, 'books.superPay', through)).toEqual({ ...second, noop: true });
    const none = await post(o, 'books.superPay', { ...through, paymentDate: inDays(1) });
    expect(none.status).toBe(409);
    expect(none.body.error.message).toContain('nothing is owed');

    // Every run paid: 2300 is nothing, as the read's outstanding.
    expect(await balance2300(o)).toBe(0);
    expect((await supers(o)).map((x) => [x.status, x.outstandingCents, x.paidBy?.superPaymentId])).toEqual([
      ['paid', 0, id],
      ['paid', 0, second.superPaymentId],
    ]);
    await checkOrgEvents(t.db, o.orgId);
  });

  it('refusals: bad input names the field; draft, recalled and nothing owed are CONFLICT; a reader key refused; another org’s ids NOT_FOUND', async () => {
    const o = await t.org();
    const acct = await account(o);
    await activeEmployee(t, o, AROHA);
    const r1 = await signed(o, RUNS[0]!);
    const draft = await ok(o, 'books.payrollDraft', RUNS[1]!);
    const base = { paymentDate: today(), fundingAccountId: acct.id };
    const seq = await acts(o);
    const field = async (params: Record<string, unknown>, name: string, text?: string) => {
      const r = await post(o, 'books.superPay', params);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.field).toBe(name);
      if (text) expect(r.body.error.message).toContain(text);
    };
    await field(base, 'payRunIds', 'exactly one of payRunIds and through');
    await field({ ...base, payRunIds: [r1.id], through: today() }, 'payRunIds', 'exactly one');
    await field({ ...base, payRunIds: [r1.id, r1.id] }, 'payRunIds', 'twice');
    await field({ ...base, payRunIds: [r1.id], paymentDate: inDays(-1) }, 'paymentDate', 'today');
    await field({ payRunIds: [r1.id], paymentDate: today() }, 'fundingAccountId');
    await field({ ...base, through: '2026-13-01' }, 'through');

    const conflict = async (params: Record<string, unknown>, text: string) => {
      const r = await post(o, 'books.superPay', { ...base, ...params });
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.error.message).toContain(text);
    };
    await conflict({ payRunIds: [draft.id] }, `pay run ${draft.id} is a draft`);
    await conflict({ through: '2026-07-01' }, 'nothing is owed');
    await ok(o, 'books.payrollRecall', { id: draft.id, reason: 'wrong period' });
    const seq2 = await acts(o);
    await conflict({ payRunIds: [r1.id, draft.id] }, `pay run ${draft.id} is recalled`);
    expect(await acts(o)).toBe(seq2);
    // A run whose wages are paid later (it can still be recalled): its super waits for its payment date.
    const ahead = await signed(o, { periodStart: inDays(-10), periodEnd: inDays(3), paymentDate: inDays(3), ...FORTNIGHT });
    const seq3 = await acts(o);
    await conflict({ payRunIds: [ahead.id] }, `pay run ${ahead.id} pays its wages on ${inDays(3)}`);
    expect(await acts(o)).toBe(seq3);

    // A reader key cannot pay.
    const reader = await t.post(o.keys.reader, 'books.superPay', { ...base, payRunIds: [r1.id] });
    expect(reader.status).toBe(403);
    expect(reader.body.error.code).toBe('FORBIDDEN_SCOPE');

    // Another organisation's run and bank account are NOT_FOUND here.
    const other = await t.org();
    const theirs = await account(other);
    await activeEmployee(t, other, CHLOE);
    const theirRun = await signed(other, RUNS[0]!);
    const run404 = await post(o, 'books.superPay', { ...base, payRunIds: [theirRun.id] });
    expect(run404.status).toBe(404);
    expect(run404.body.error.message).toContain(theirRun.id);
    const acct404 = await post(o, 'books.superPay', { ...base, payRunIds: [r1.id], fundingAccountId: theirs.id });
    expect(acct404.status).toBe(404);
    // Held and requested: the owner's console card names the act, each fund and amount, and the paying account.
    await heldAndRequested(t, o, 'books.superPay', { ...base, payRunIds: [r1.id] });
    const inbox = await consoleGet(t, await consoleSignIn(t, o.slug, o.owner.email, o.owner.password), '/console');
    expect(inbox.text).toContain('Pay super guarantee to the employees&#39; funds');
    expect(inbox.text).toContain('&quot;AustralianSuper&quot; $336.00');
    expect(inbox.text).toContain('BSB 062-000 account 12345678');
    // Nothing paid by any refusal: 2300 still holds both signed runs' super.
    expect(await balance2300(o)).toBe(33_600 + ahead.totals.superCents);
    expect(seq).toBeGreaterThan(0);
  });

  it('other payments to 2300 settle the oldest runs no super payment paid; a run they reached is not paid again', async () => {
    const o = await t.org();
    const acct = await account(o);
    await activeEmployee(t, o, AROHA);
    const [r1, r2, r3] = [await signed(o, RUNS[0]!), await signed(o, RUNS[1]!), await signed(o, RUNS[2]!)];
    // A recoded bank payment of $500.00 to 2300: r1 in full, $164.00 of r2.
    await ok(o, 'books.journalPost', {
      date: today(),
      memo: 'Super paid by bank transfer',
      lines: [
        { accountCode: '2300', debitCents: 50_000 },
        { accountCode: '1000', creditCents: 50_000 },
      ],
    });
    const base = { paymentDate: today(), fundingAccountId: acct.id };
    const full = await post(o, 'books.superPay', { ...base, payRunIds: [r1.id] });
    expect(full.status).toBe(409);
    expect(full.body.error.message).toContain('already settled in full by payments to 2300');
    const part = await post(o, 'books.superPay', { ...base, payRunIds: [r2.id] });
    expect(part.status).toBe(409);
    expect(part.body.error.message).toContain('already settled in part ($164.00)');
    // Through today pays only the run no payment reached.
    const { result } = await pay(o, { ...base, through: today() });
    expect(result.payRuns.map((r: any) => r.payRunId)).toEqual([r3.id]);
    const read = await supers(o);
    expect(read.map((x) => [x.id, x.status, x.outstandingCents, x.paidBy?.superPaymentId ?? null])).toEqual([
      [r1.id, 'paid', 0, null],
      [r2.id, 'due', 17_200, null],
      [r3.id, 'paid', 0, result.superPaymentId],
    ]);
    // What the read leaves owing is 2300's balance.
    expect(await balance2300(o)).toBe(17_200);
  });
});
