/**
 * Pay runs through HTTP, on every engine: payrollDraft, the signature act
 * payrollSign and payrollRecall. Expected figures are the fixture payroll of docs/reference/payg-withholding.md
 * (Harbourside Joinery, paid 2 July 2026: $6,550 gross, $1,226 PAYG, $786 super, $5,324 net) and a
 * Scale 4 hourly casual (47% flat), not recomputed with the code under test.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { parseAba } from './aba-parse.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf, FUNDING, inDays, journalLines, journalsOf } from './payables-helpers.js';
import { activeEmployee, BASE, signPayRun } from './payroll-helpers.js';
import { freshKey } from './signature-helpers.js';

/** The fixture payroll's three salaried staff (fortnightly $2,800, $2,300 and $1,450). */
const STAFF = [
  { name: 'Aroha Ngata', annualSalaryCents: 7_280_000, bsb: '062-703', accountNumber: '11223344', accountName: 'Aroha Ngata', tft: true },
  { name: 'Ben Carter', annualSalaryCents: 5_980_000, bsb: '033-001', accountNumber: '987654', accountName: 'Ben Carter', tft: true },
  { name: 'Chloe Park', annualSalaryCents: 3_770_000, bsb: '083-004', accountNumber: '55501234', accountName: 'Chloe Park', tft: false },
] as const;
const JULY = { periodStart: '2026-06-19', periodEnd: '2026-07-02', paymentDate: '2026-07-02', payFrequency: 'fortnightly' };

describe.each(engines)('payroll: pay runs (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-payroll-'));
    t = await startTestServer(engine, { paymentsOutboxDir: dir });
  });
  afterAll(async () => t.close());

  const { post, ok } = agentCalls(() => t);

  const employee = (o: CreatedOrg, start: Record<string, unknown>, tax: { tfn?: string; tft?: boolean } = {}) =>
    activeEmployee(t, o, start, tax);
  const staff = async (o: CreatedOrg) => {
    const ids: string[] = [];
    for (const { tft, ...s } of STAFF) ids.push(await employee(o, s, { tft }));
    return ids;
  };

  /** Hold → approval.request → the human approves → retry with the proof. */
  const sign = (o: CreatedOrg, id: string) => signPayRun(t, o, id);
  const ledger = (o: CreatedOrg, employeeId: string) =>
    t.db.reader.all<{ leave_type: string; kind: string; milli_hours: number | string }>(
      'SELECT leave_type, kind, milli_hours FROM leave_ledger WHERE org_id = ? AND employee_id = ? ORDER BY leave_type, kind',
      [o.orgId, employeeId],
    );
  const balance = async (o: CreatedOrg, employeeId: string) => {
    const r = await t.post(o.keys.reader, 'books.employees', {});
    return r.body.result.employees.find((e: { id: string }) => e.id === employeeId).leave;
  };

  it('payrollDraft: the fixture payroll line by line and in total; nothing posted; a repeat is a no-op', async () => {
    const o = await t.org();
    const ids = await staff(o);
    const before = (await eventsOf(t, o)).length;
    const d = await ok(o, 'books.payrollDraft', JULY);
    expect(d).toMatchObject({ id: expect.stringMatching(/^pay_/), status: 'draft', journalId: null, fileName: null, ...JULY });
    expect(d.lines.map((l: any) => [l.employeeId, l.grossCents, l.paygCents, l.superCents, l.netCents])).toEqual([
      [ids[0], 280_000, 53_400, 33_600, 226_600],
      [ids[1], 230_000, 37_200, 27_600, 192_800],
      [ids[2], 145_000, 32_000, 17_400, 113_000],
    ]);
    expect(d.totals).toEqual({ grossCents: 655_000, paygCents: 122_600, superCents: 78_600, netCents: 532_400 });
    expect((await eventsOf(t, o)).length).toBe(before + 1);
    expect(await t.db.reader.all('SELECT id FROM journals WHERE org_id = ?', [o.orgId])).toEqual([]);
    // The same period, frequency and employees again: a no-op with the draft, no second event.
    const again = await ok(o, 'books.payrollDraft', { ...JULY, employeeIds: [...ids].reverse() });
    expect(again).toMatchObject({ id: d.id, noop: true, ledgerId: d.ledgerId });
    expect((await eventsOf(t, o)).length).toBe(before + 1);
    // Other details for the same set: CONFLICT naming the draft; an overlapping period: CONFLICT naming it.
    const other = await post(o, 'books.payrollDraft', { ...JULY, paymentDate: '2026-07-03' });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toContain(`pay run ${d.id} is a draft`);
    const overlap = await post(o, 'books.payrollDraft', {
      ...JULY,
      periodStart: '2026-07-01',
      periodEnd: '2026-07-14',
      employeeIds: [ids[0]],
    });
    expect(overlap.status).toBe(409);
    expect(overlap.body.error.message).toContain(`already in pay run ${d.id} (draft`);
    // The same idempotency key replays the first answer.
    const key = freshKey();
    const p2 = { ...JULY, periodStart: '2026-07-03', periodEnd: '2026-07-16', paymentDate: '2026-07-16' };
    const a = await post(o, 'books.payrollDraft', p2, { 'x-idempotency-key': key });
    const b = await post(o, 'books.payrollDraft', p2, { 'x-idempotency-key': key });
    expect(b.body).toMatchObject({ code: 'IDEMPOTENT_REPLAY', result: { id: a.body.result.id } });
  });

  it('payrollDraft: an hourly casual with hours given, no TFN → Scale 4; hours only for hourly staff', async () => {
    const o = await t.org();
    const salaried = await employee(o, { name: 'Dana Salaried', annualSalaryCents: 5_200_000, payFrequency: 'weekly' });
    const casual = await employee(
      o,
      { name: 'Eli Casual', employmentBasis: 'casual', payFrequency: 'weekly', hourlyRateCents: 4_000, hoursPerWeek: 20 },
      { tfn: '000000000', tft: false },
    );
    const week = { periodStart: '2026-06-26', periodEnd: '2026-07-02', paymentDate: '2026-07-02', payFrequency: 'weekly' };
    const bad = await post(o, 'books.payrollDraft', { ...week, hours: [{ employeeId: salaried, hours: 38 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain(`hours: employee ${salaried} (Dana Salaried) is salaried`);
    const d = await ok(o, 'books.payrollDraft', { ...week, employeeIds: [casual], hours: [{ employeeId: casual, hours: 25 }] });
    expect(d.lines[0]).toMatchObject({
      grossCents: 100_000,
      paygCents: 47_000,
      superCents: 12_000,
      netCents: 53_000,
      hours: 25,
      taxScale: 4,
    });
    // Default hours: the ordinary 20 a week at $40.
    const s = await sign(
      o,
      (
        await ok(o, 'books.payrollDraft', {
          ...week,
          periodStart: '2026-07-03',
          periodEnd: '2026-07-09',
          paymentDate: '2026-07-09',
          employeeIds: [salaried],
        })
      ).id,
    );
    expect(s.result.lines[0].grossCents).toBe(100_000); // $52,000 ÷ 52
    // A casual accrues no leave.
    await sign(o, d.id);
    expect(await ledger(o, casual)).toEqual([]);
  });

  it('payrollSign: held for a human who reads each line; the proof posts the exact journal and leave', async () => {
    const o = await t.org();
    const ids = await staff(o);
    const lv = await ok(o, 'books.leaveRequest', {
      employeeId: ids[0],
      leaveType: 'annual',
      startDate: '2026-07-01',
      endDate: '2026-07-02',
      hours: 16,
    });
    await ok(o, 'books.leaveApprove', { id: lv.id });
    const d = await ok(o, 'books.payrollDraft', JULY);
    expect(d.lines[0]).toMatchObject({ grossCents: 280_000, leaveHours: 16, leaveCents: 58_947, leaveIds: [lv.id] }); // 280,000 × 16/76
    // A reader key cannot sign; another organisation's id is NOT_FOUND.
    expect((await t.post(o.keys.reader, 'books.payrollSign', { id: d.id })).status).toBe(403);
    const stranger = await t.org();
    expect((await post(stranger, 'books.payrollSign', { id: d.id })).status).toBe(404);
    const { hold, result } = await sign(o, d.id);
    const summary: string = hold.approval.subject.summary;
    expect(summary).toContain('"Aroha Ngata" gross $2,800.00 (incl. 16 h leave $589.47), tax $534.00, super $336.00, net $2,266.00');
    expect(summary).toContain('"Chloe Park" gross $1,450.00, tax $320.00, super $174.00, net $1,130.00');
    expect(summary).toContain('Totals: gross $6,550.00, tax withheld $1,226.00, super $786.00, net $5,324.00');
    expect(summary).toContain('on 2026-07-02');
    expect(summary).toContain('wages payable (2400)');
    expect(result).toMatchObject({ id: d.id, status: 'signed', journalId: expect.stringMatching(/^jnl_/), fileName: null });
    const j = await journalsOf(t, o.orgId, d.id);
    expect(j.map((x) => [x.date, x.source_kind])).toEqual([['2026-07-02', 'pay_run']]);
    expect(
      (await journalLines(t, o.orgId, result.journalId)).map((l) => [l.account_code, l.debit_cents, l.credit_cents, l.doc_id]),
    ).toEqual([
      ['6100', 655_000, 0, null],
      ['6200', 78_600, 0, null],
      ['2200', 0, 122_600, d.id],
      ['2300', 0, 78_600, d.id],
      ['2400', 0, 532_400, d.id],
    ]);
    // Leave: 76 ordinary hours accrue 76×4/52 annual and 76×2/52 personal (milli-hours, floored); 16 h taken.
    expect((await ledger(o, ids[0] ?? '')).map((r) => [r.leave_type, r.kind, Number(r.milli_hours)])).toEqual([
      ['annual', 'accrual', 5_846],
      ['annual', 'taken', -16_000],
      ['personal', 'accrual', 2_923],
    ]);
    expect((await balance(o, ids[0] ?? '')).annual).toMatchObject({ balanceMilliHours: 5_846 - 16_000, approvedMilliHours: 0 });
    // Signing a signed run is a no-op (idempotent by state); the spent proof is refused.
    const again = await post(o, 'books.payrollSign', { id: d.id });
    expect(again.body.result).toMatchObject({ id: d.id, status: 'signed', noop: true });
    // On or after the payment date a signed run cannot be recalled.
    const late = await post(o, 'books.payrollRecall', { id: d.id, reason: 'wrong hours' });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain('payment date 2026-07-02 has come');
  });

  it('payrollSign with funding: Cr 1000 bank and the net pay ABA file; no bank details → BAD_REQUEST naming them', async () => {
    const o = await t.org();
    const ids = await staff(o);
    const pay = inDays(7);
    const run = { periodStart: inDays(-6), periodEnd: pay, paymentDate: pay, payFrequency: 'fortnightly', funding: FUNDING };
    const noBank = await employee(o, { name: 'Fay Nobank', annualSalaryCents: 5_200_000 });
    const bad = await post(o, 'books.payrollDraft', run);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain(`funding: ${noBank} (Fay Nobank) has no bank details`);
    const d = await ok(o, 'books.payrollDraft', { ...run, employeeIds: ids });
    expect(d.fundingAccount).toBe('034-702 ***921');
    const { hold, result } = await sign(o, d.id);
    expect(hold.approval.subject.summary).toContain(`net pay by Direct Entry (ABA file ${d.id}.aba) from WBC account 034-702 458921`);
    expect(hold.approval.subject.summary).toContain('to BSB 062-703 account 11223344');
    expect(result.fileName).toBe(`${d.id}.aba`);
    const lines = await journalLines(t, o.orgId, result.journalId);
    expect(lines.at(-1)).toMatchObject({ account_code: '1000', credit_cents: d.totals.netCents });
    await t.server.outbox.kick();
    const f = parseAba(readFileSync(join(dir, result.fileName)).toString('latin1'));
    const ddmmyy = `${pay.slice(8, 10)}${pay.slice(5, 7)}${pay.slice(2, 4)}`;
    expect(
      f.details.map((x) => [
        x.bsb,
        x.accountNumber?.trim(),
        x.transactionCode,
        Number(x.amount),
        x.accountTitle?.trim(),
        x.lodgementReference?.trim(),
      ]),
    ).toEqual(
      d.lines.map((l: any, i: number) => [
        STAFF[i]?.bsb,
        STAFF[i]?.accountNumber,
        '53',
        l.netCents,
        STAFF[i]?.accountName.toUpperCase(),
        `SALARY ${ddmmyy}`,
      ]),
    );
    // A run with a bank file cannot be recalled here.
    const recall = await post(o, 'books.payrollRecall', { id: d.id, reason: 'mistake' });
    expect(recall.status).toBe(409);
    expect(recall.body.error.message).toContain(`bank file ${d.id}.aba was written`);
  });

  it('payrollRecall: a draft is discarded; a signed run before its payment date is reversed with its leave', async () => {
    const o = await t.org();
    const aroha = (await staff(o))[0] ?? '';
    const pay = inDays(7);
    const run = { periodStart: inDays(-6), periodEnd: pay, paymentDate: pay, payFrequency: 'fortnightly', employeeIds: [aroha] };
    const draft = await ok(o, 'books.payrollDraft', run);
    const discarded = await ok(o, 'books.payrollRecall', { id: draft.id, reason: 'drafted too early' });
    expect(discarded).toMatchObject({ id: draft.id, status: 'recalled', reversalJournalId: null });
    expect((await post(o, 'books.payrollRecall', { id: draft.id, reason: 'again' })).body.result).toMatchObject({
      status: 'recalled',
      noop: true,
    });
    const signRecalled = await post(o, 'books.payrollSign', { id: draft.id });
    expect(signRecalled.status).toBe(409);
    expect(signRecalled.body.error.message).toContain('is recalled');

    const lv = await ok(o, 'books.leaveRequest', {
      employeeId: aroha,
      leaveType: 'personal',
      startDate: inDays(-2),
      endDate: inDays(-2),
      hours: 8,
    });
    await ok(o, 'books.leaveApprove', { id: lv.id });
    const d = await ok(o, 'books.payrollDraft', run);
    const { result } = await sign(o, d.id);
    expect((await ledger(o, aroha)).length).toBe(3);
    // BAS W1/W2 come from signed pay runs paid in the period; the recall nets them out.
    const gst = async () => (await t.post(o.keys.reader, 'books.reports', { type: 'gst_summary', from: pay, to: pay })).body.result.front;
    expect(await gst()).toMatchObject({ W1: 2_800, W2: Math.floor(d.totals.paygCents / 100) });
    const r = await ok(o, 'books.payrollRecall', { id: d.id, reason: 'wrong period' });
    expect(await gst()).toMatchObject({ W1: 0, W2: 0 });
    expect(r).toMatchObject({ status: 'recalled', journalId: result.journalId, reversalJournalId: expect.stringMatching(/^jnl_/) });
    const rev = await journalLines(t, o.orgId, r.reversalJournalId);
    expect(rev.map((l) => [l.account_code, l.debit_cents, l.credit_cents])).toEqual([
      ['6100', 0, 280_000],
      ['6200', 0, 33_600],
      ['2200', d.totals.paygCents, 0],
      ['2300', 33_600, 0],
      ['2400', d.totals.netCents, 0],
    ]);
    expect((await journalsOf(t, o.orgId, d.id)).map((x) => x.date)).toEqual([pay, pay]);
    for (const code of ['2200', '2300', '2400', '6100', '6200']) {
      const s = await t.db.reader.get<{ s: number | string }>(
        'SELECT SUM(debit_cents) - SUM(credit_cents) AS s FROM journal_lines WHERE org_id = ? AND account_code = ?',
        [o.orgId, code],
      );
      expect(Number(s?.s), code).toBe(0);
    }
    expect(await ledger(o, aroha)).toEqual([]);
    expect((await balance(o, aroha)).personal).toMatchObject({ balanceMilliHours: 0, approvedMilliHours: 8_000 });
    // The leave is paid again by the next run.
    const next = await ok(o, 'books.payrollDraft', run);
    expect(next.lines[0].leaveIds).toEqual([lv.id]);
  });

  it('taxPrepare takes W1 and W2 from the signed pay runs paid in the quarter', async () => {
    const o = await t.org();
    const ids = await staff(o);
    const d = await ok(o, 'books.payrollDraft', { ...JULY, employeeIds: ids });
    await sign(o, d.id);
    const bas = await ok(o, 'books.taxPrepare', { periodStart: '2026-07-01', periodEnd: '2026-09-30' });
    expect(bas.labels).toMatchObject({ W1: 6_550, W2: 1_226 });
    expect(bas.summary['4']).toBe(1_226);
  });

  it("taxObligations lists each signed run's super guarantee, due 7 days after payday; payments to 2300 settle the oldest first", async () => {
    const o = await t.org();
    const ids = await staff(o);
    const july = await ok(o, 'books.payrollDraft', { ...JULY, employeeIds: ids });
    await sign(o, july.id);
    const next = {
      periodStart: '2026-07-03',
      periodEnd: '2026-07-16',
      paymentDate: '2026-07-16',
      payFrequency: 'fortnightly',
      employeeIds: ids,
    };
    const august = await ok(o, 'books.payrollDraft', next);
    await sign(o, august.id);
    const supers = async (asOf?: string) =>
      (await t.post(o.keys.reader, 'books.taxObligations', asOf ? { asOf } : {})).body.result.obligations.filter(
        (x: { kind: string }) => x.kind === 'super_guarantee',
      );
    expect(await supers()).toEqual([
      {
        kind: 'super_guarantee',
        id: july.id,
        status: 'due',
        periodStart: '2026-06-19',
        periodEnd: '2026-07-02',
        paymentDate: '2026-07-02',
        dueOn: '2026-07-09',
        overdue: true,
        amountCents: 78_600,
        outstandingCents: 78_600,
        paidBy: null,
      },
      expect.objectContaining({ id: august.id, dueOn: '2026-07-23', amountCents: 78_600, outstandingCents: 78_600, status: 'due' }),
    ]);
    // A super payment of $1,000 on 8 July: the first run is paid, $214 goes to the second.
    await ok(o, 'books.journalPost', {
      date: '2026-07-08',
      memo: 'Super to the clearing house',
      lines: [
        { accountCode: '2300', debitCents: 100_000 },
        { accountCode: '1000', creditCents: 100_000 },
      ],
    });
    const [first, second] = await supers();
    expect(first).toMatchObject({ id: july.id, status: 'paid', overdue: false, outstandingCents: 0 });
    expect(second).toMatchObject({ id: august.id, status: 'due', overdue: true, outstandingCents: 57_200 });
    // As at 7 July the payment had not been made, and the second run had not been paid out.
    expect(await supers('2026-07-07')).toEqual([expect.objectContaining({ id: july.id, outstandingCents: 78_600, overdue: false })]);
  });

  it('taxObligations: the super and PAYG carried in at a conversion are obligations of their own, first in line for payments', async () => {
    const o = await t.org();
    // Converted at 30 June: June's super ($2,280) and the quarter's PAYG withholding ($3,000) still owed.
    await ok(o, 'books.openingBalances', {
      conversionDate: '2026-06-30',
      accounts: [
        { accountCode: '1000', debitCents: 2_000_000 },
        { accountCode: '2300', creditCents: 228_000 },
        { accountCode: '2200', creditCents: 300_000 },
        { accountCode: '3000', creditCents: 1_472_000 },
      ],
    });
    const ids = await staff(o);
    const runs: string[] = [];
    for (const [start, end] of [
      ['2026-06-19', '2026-07-02'],
      ['2026-07-03', '2026-07-16'],
      ['2026-07-17', '2026-07-30'],
      ['2026-07-31', '2026-08-13'],
    ] as const) {
      const d = await ok(o, 'books.payrollDraft', {
        periodStart: start,
        periodEnd: end,
        paymentDate: end,
        payFrequency: 'fortnightly',
        employeeIds: ids,
      });
      await sign(o, d.id);
      runs.push(d.id);
    }
    const pay = (date: string, account: string, cents: number) =>
      ok(o, 'books.journalPost', {
        date,
        memo: `Paid ${account}`,
        lines: [
          { accountCode: account, debitCents: cents },
          { accountCode: '1000', creditCents: cents },
        ],
      });
    // 21 July: June's super and the June quarter's PAYG are paid.
    await pay('2026-07-21', '2300', 228_000);
    await pay('2026-07-21', '2200', 300_000);
    const read = async (asOf: string) => (await t.post(o.keys.reader, 'books.taxObligations', { asOf })).body.result.obligations as any[];
    const balance = async (asOf: string, code: string) =>
      ((await t.post(o.keys.reader, 'books.accounts', { asOf })).body.result.accounts as any[]).find((a) => a.code === code)
        .balanceCents as number;
    const superOwed = (xs: any[]) =>
      xs.filter((x) => x.kind === 'super_guarantee' || x.kind === 'super_carried_in').reduce((s, x) => s + x.outstandingCents, 0);

    const june = await read('2026-06-30');
    expect(june.find((x) => x.kind === 'super_carried_in')).toMatchObject({
      status: 'due',
      conversionDate: '2026-06-30',
      accountCode: '2300',
      dueOn: '2026-07-28',
      overdue: false,
      amountCents: 228_000,
      outstandingCents: 228_000,
    });
    expect(june.find((x) => x.kind === 'payg_carried_in')).toMatchObject({
      status: 'due',
      conversionDate: '2026-06-30',
      accountCode: '2200',
      dueOn: '2026-07-28',
      overdue: false,
      amountCents: 300_000,
      outstandingCents: 300_000,
    });
    // The 21 July payment was June's: every July-August run is still owed in full.
    const now = await read('2026-08-31');
    expect(now.find((x) => x.kind === 'super_carried_in')).toMatchObject({ status: 'paid', outstandingCents: 0, overdue: false });
    expect(now.find((x) => x.kind === 'payg_carried_in')).toMatchObject({ status: 'paid', outstandingCents: 0 });
    expect(now.filter((x) => x.kind === 'super_guarantee').map((x) => [x.id, x.status, x.outstandingCents])).toEqual(
      runs.map((id) => [id, 'due', 78_600]),
    );
    // What is owed is the account, at every date.
    for (const asOf of ['2026-06-30', '2026-07-02', '2026-07-20', '2026-07-21', '2026-08-13', '2026-08-31']) {
      expect(superOwed(await read(asOf)), asOf).toBe(await balance(asOf, '2300'));
    }
    // A later payment settles the oldest run; reversing it owes it again.
    const later = await pay('2026-08-20', '2300', 100_000);
    const after = (await read('2026-08-31')).filter((x) => x.kind === 'super_guarantee');
    expect(after.map((x) => x.outstandingCents)).toEqual([0, 57_200, 78_600, 78_600]);
    expect(superOwed(await read(inDays(0)))).toBe(await balance(inDays(0), '2300'));
    await ok(o, 'books.journalReverse', { journalId: later.journalId, reason: 'paid twice' });
    expect(superOwed(await read(inDays(0)))).toBe(await balance(inDays(0), '2300'));
    expect(superOwed(await read(inDays(0)))).toBe(4 * 78_600);
  });

  it('bad input names the field and changes nothing; unknown ids are NOT_FOUND; an onboarding employee is CONFLICT', async () => {
    const o = await t.org();
    const aroha = (await staff(o))[0] ?? '';
    const before = (await eventsOf(t, o)).length;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ periodEnd: '2026-06-01' }, 400, 'periodEnd: must not be before periodStart'],
      [{ payFrequency: 'daily' }, 400, 'payFrequency: must be one of weekly, fortnightly, monthly'],
      [{ paymentDate: '2026-02-30' }, 400, 'paymentDate: must be a real calendar date'],
      [
        { payFrequency: 'weekly', employeeIds: [aroha] },
        400,
        `employeeIds: employee ${aroha} (Aroha Ngata) is paid fortnightly, not weekly`,
      ],
      [{ periodEnd: '2026-06-30', periodStart: '2026-06-17' }, 400, 'periodEnd: employee'],
      [{ employeeIds: [aroha, aroha] }, 400, `employeeIds: names ${aroha} twice`],
      [{ hours: [{ employeeId: 'emp_nobody', hours: 3 }] }, 400, 'hours: employee emp_nobody is not in this pay run'],
      [
        { hours: [{ employeeId: aroha, hours: 1.555 }] },
        400,
        'hours[0].hours: must be a number from 0 to 744 with at most 2 decimal places',
      ],
      [{ funding: { ...FUNDING, bsb: '1' } }, 400, 'funding.bsb'],
      [{ funding: FUNDING }, 400, 'paymentDate: must be today'],
      [{ paymentDate: '2027-07-02', periodEnd: '2027-07-01', periodStart: '2027-06-18' }, 400, 'paymentDate: no Schedule 1 coefficients'],
      [{ employeeIds: ['emp_nobody'] }, 404, 'emp_nobody'],
      [{ payFrequency: 'monthly' }, 409, 'no active employee is paid monthly'],
    ];
    for (const [patch, status, message] of cases) {
      const r = await post(o, 'books.payrollDraft', { ...JULY, ...patch });
      expect(r.status, JSON.stringify(patch)).toBe(status);
      expect(r.body.error.message, JSON.stringify(patch)).toContain(message);
    }
    const joiner = await ok(o, 'books.onboardingStart', { ...BASE, name: 'Gus Joiner', annualSalaryCents: 5_000_000 });
    const notYet = await post(o, 'books.payrollDraft', { ...JULY, employeeIds: [joiner.id] });
    expect(notYet.status).toBe(409);
    expect(notYet.body.error.message).toContain('is onboarding (next step tax_declaration)');
    expect((await eventsOf(t, o)).length).toBe(before + 1); // only the onboardingStart
    expect((await post(o, 'books.payrollRecall', { id: 'pay_nothing', reason: 'x' })).status).toBe(404);
    expect((await post(o, 'books.payrollRecall', { id: 'pay_x' })).body.error.message).toContain('reason');
    expect((await t.post(o.keys.reader, 'books.payrollDraft', JULY)).status).toBe(403);
    const d = await ok(o, 'books.payrollDraft', JULY);
    const stranger = await t.org();
    expect((await post(stranger, 'books.payrollRecall', { id: d.id, reason: 'not mine' })).status).toBe(404);
    expect((await t.post(o.keys.reader, 'books.payrollRecall', { id: d.id, reason: 'reader' })).status).toBe(403);
  });
});
