/**
 * Converting payroll mid-year (books.openingBalances `payroll`) through HTTP on both engines: a
 * business converts on 31 January with its employees' year-to-date figures and leave balances;
 * the first run's STP pay event reports year to date as carried-in plus the run, naming the
 * previous software's part; the year's finalisation totals include them; leave balances (the
 * employees read, leave requests' checks, the leave_balances report, the leave provision) start
 * from the carried-in hours. Bad input names the field and records nothing; another
 * organisation's employee is NOT_FOUND; a reader is refused; the same params again are a no-op.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

const CONVERSION = '2026-01-31';
/** Aroha: salaried full time, $72,800 a year (38 hours). Ben: part time, $35.00 an hour for 20 hours. Both claim the threshold. */
const AROHA = { name: 'Aroha Ngata', annualSalaryCents: 7_280_000, startDate: '2025-03-03' };
const BEN = { name: 'Ben Hollis', employmentBasis: 'part_time', hourlyRateCents: 3_500, hoursPerWeek: 20, startDate: '2025-08-04' };
/** The first fortnight after the conversion, paid in February 2026 (Schedule 1 from 1 July 2024, SG 12%). */
const RUN = { periodStart: '2026-02-01', periodEnd: '2026-02-14', paymentDate: '2026-02-18', payFrequency: 'fortnightly' };
const BALANCES = [
  { accountCode: '1000', debitCents: 2_000_000 },
  { accountCode: '2200', creditCents: 108_800 },
  { accountCode: '2300', creditCents: 100_800 },
  { accountCode: '3000', creditCents: 1_790_400 },
];

describe.each(engines)('payroll conversion (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let o: CreatedOrg;
  let aroha: string;
  let ben: string;
  let runId: string;

  const ok = async (method: string, params: Record<string, unknown>, org = o) => {
    const r = await t.post(org.keys.agent, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const carried = () => ({
    previousBmsId: 'OLDPAY-7731',
    employees: [
      {
        employeeId: aroha,
        previousPayrollId: 'E001',
        grossCents: 1_680_000,
        paidLeaveCents: 120_000,
        paygWithheldCents: 326_400,
        superGuaranteeCents: 201_600,
        annualLeaveHours: 85.5,
        personalLeaveHours: 40.25,
      },
      {
        employeeId: ben,
        grossCents: 560_000,
        paygWithheldCents: 54_400,
        superGuaranteeCents: 67_200,
        annualLeaveHours: 30.4,
        personalLeaveHours: 12,
      },
    ],
  });
  const conversion = () => ({ conversionDate: CONVERSION, accounts: BALANCES, payroll: carried() });

  /** The delivered STP document of a submission (the file the lodgement sink got). */
  async function lodged(id: string) {
    for (let i = 0; i < 100; i += 1) {
      await t.server.outbox.kick();
      const row = await t.db.reader.get<{ status: string }>('SELECT status FROM stp_submissions WHERE org_id = ? AND id = ?', [
        o.orgId,
        id,
      ]);
      if (row?.status === 'lodged') return JSON.parse(readFileSync(join(dir, 'lodged', `${id}.json`), 'utf8')).stp_pay_event;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`submission ${id} was not lodged`);
  }
  const leaveOf = async (employeeId: string) => {
    const { employees } = await ok('books.employees', {});
    return employees.find((e: { id: string }) => e.id === employeeId).leave;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-payroll-conversion-'));
    t = await startTestServer(engine, { lodgementOutboxDir: join(dir, 'lodged') });
    o = await t.org();
    aroha = await activeEmployee(t, o, AROHA);
    ben = await activeEmployee(t, o, BEN);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the employees as at the conversion date: nothing posted for them, leave balances from the hours', async () => {
    const before = (await eventsOf(t, o)).length;
    const r = await ok('books.openingBalances', conversion());
    expect(r.payroll).toEqual({ employeeIds: [aroha, ben], financialYear: '2025-26' });
    expect(r.debitCents).toBe(2_000_000);
    const events = await eventsOf(t, o);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)).toMatchObject({ kind: 'books.opening_balances.record', payload: { payrollEmployeeCount: 2 } });
    // Hours to the hundredth, held as milli-hours.
    expect(await leaveOf(aroha)).toMatchObject({ annual: { balanceMilliHours: 85_500 }, personal: { balanceMilliHours: 40_250 } });
    expect(await leaveOf(ben)).toMatchObject({ annual: { balanceMilliHours: 30_400 }, personal: { balanceMilliHours: 12_000 } });
    // The same params again: a no-op answering the conversion.
    const again = await ok('books.openingBalances', conversion());
    expect(again).toEqual({ ...r, noop: true });
    expect((await eventsOf(t, o)).length).toBe(before + 1);
  });

  it('leave balances as at a date start from the carried-in hours', async () => {
    const at = async (asOf: string) => (await ok('books.reports', { type: 'leave_balances', asOf })).employees;
    expect((await at(CONVERSION)).map((e: any) => [e.employeeId, e.annual.milliHours, e.personal.milliHours])).toEqual([
      [aroha, 85_500, 40_250],
      [ben, 30_400, 12_000],
    ]);
    // The day before, the ledger has nothing yet.
    expect((await at('2026-01-30')).map((e: any) => [e.annual.milliHours, e.personal.milliHours])).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });

  it("the first run's STP pay event: year to date is carried-in plus the run, the previous software's part named", async () => {
    // Ben asks for 8 hours of personal leave: within the 12 carried in, so no warning.
    const lv = await ok('books.leaveRequest', {
      employeeId: ben,
      leaveType: 'personal',
      startDate: '2026-02-05',
      endDate: '2026-02-05',
      hours: 8,
    });
    expect(lv).toMatchObject({ warning: null, availableAfterMilliHours: 4_000 });
    await ok('books.leaveApprove', { id: lv.id });
    const draft = await ok('books.payrollDraft', RUN);
    runId = draft.id;
    const { result } = await signPayRun(t, o, runId);
    // Aroha: $2,800.00; PAYG weekly x = 1400.99: 0.3200x − 176.5769 = 271.74 → $272, $544 a fortnight; super 12% $336.00.
    // Ben: 40 hours × $35.00 = $1,400.00 of which 8 hours' leave $280.00; x = 700.99: 0.1800x − 57.8462 = 68.33 → $68, $136; super $168.00.
    const line = (id: string) => result.lines.find((l: { employeeId: string }) => l.employeeId === id);
    expect(line(aroha)).toMatchObject({ grossCents: 280_000, paygCents: 54_400, superCents: 33_600, leaveCents: 0 });
    expect(line(ben)).toMatchObject({ grossCents: 140_000, paygCents: 13_600, superCents: 16_800, leaveCents: 28_000 });

    const sub = await t.db.reader.get<{ id: string }>(
      "SELECT id FROM stp_submissions WHERE org_id = ? AND pay_run_id = ? AND kind = 'pay'",
      [o.orgId, runId],
    );
    const doc = await lodged(sub!.id);
    expect(doc.financialYear).toEqual({ start: '2025-07-01', end: '2026-06-30' });
    const payee = (id: string) => doc.payees.find((p: { employeeId: string }) => p.employeeId === id);
    expect(payee(aroha).ytd).toMatchObject({
      salaryWagesCents: 1_840_000,
      paidLeaveCents: 120_000,
      grossCents: 1_960_000,
      paygWithheldCents: 380_800,
      superLiabilityCents: 235_200,
    });
    expect(payee(aroha).carriedIn).toEqual({
      reportedBy: 'previous_software',
      asAt: CONVERSION,
      previousBmsId: 'OLDPAY-7731',
      previousPayrollId: 'E001',
      ytd: {
        salaryWagesCents: 1_560_000,
        paidLeaveCents: 120_000,
        allowancesCents: 0,
        grossCents: 1_680_000,
        paygWithheldCents: 326_400,
        superLiabilityCents: 201_600,
      },
    });
    expect(payee(ben).ytd).toMatchObject({
      salaryWagesCents: 672_000,
      paidLeaveCents: 28_000,
      grossCents: 700_000,
      paygWithheldCents: 68_000,
      superLiabilityCents: 84_000,
    });
    expect(payee(ben).carriedIn).toMatchObject({ previousBmsId: 'OLDPAY-7731', previousPayrollId: null, ytd: { grossCents: 560_000 } });
  });

  it('leave after the run: carried-in + accrual − taken, in every read and in the provision', async () => {
    // Aroha 76 ordinary hours: annual ⌊76 000 × 4/52⌋ = 5 846, personal 2 923. Ben 40 hours: 3 076 and 1 538, less the 8 hours taken.
    expect(await leaveOf(aroha)).toMatchObject({ annual: { balanceMilliHours: 91_346 }, personal: { balanceMilliHours: 43_173 } });
    expect(await leaveOf(ben)).toMatchObject({
      annual: { balanceMilliHours: 33_476, availableMilliHours: 33_476 },
      personal: { balanceMilliHours: 5_538, availableMilliHours: 5_538 },
    });
    const report = await ok('books.reports', { type: 'leave_balances', asOf: RUN.periodEnd });
    expect(report.employees.map((e: any) => [e.annual.milliHours, e.personal.milliHours])).toEqual([
      [91_346, 43_173],
      [33_476, 5_538],
    ]);
    // Valued: Aroha 7 280 000 × 91 346 ÷ 1 976 000 = 336 537.89 → 336 538 cents; Ben 3 500 × 33 476 ÷ 1 000 = 117 166.
    expect(report.totals.annual.valueCents).toBe(336_538 + 117_166);
    const provision = await ok('books.leaveProvision', { asAt: RUN.periodEnd });
    expect(provision).toMatchObject({ totalCents: 453_704, balanceBeforeCents: 0, differenceCents: 453_704 });
  });

  it("the year's finalisation reports carried-in plus the runs signed here", async () => {
    const params = { financialYear: '2025-26' };
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.stpFinalise', params);
    expect(hold.approval.subject.summary).toContain('YTD gross $19,600.00');
    await decide(t, o, approvalId, true);
    const done = await t.post(o.keys.agent, 'books.stpFinalise', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.result.employees).toEqual(
      [
        { employeeId: aroha, name: 'Aroha Ngata', grossCents: 1_960_000, paygWithheldCents: 380_800, superLiabilityCents: 235_200 },
        { employeeId: ben, name: 'Ben Hollis', grossCents: 700_000, paygWithheldCents: 68_000, superLiabilityCents: 84_000 },
      ].sort((a, b) => (a.employeeId < b.employeeId ? -1 : 1)),
    );
    const doc = await lodged(done.body.result.submissionId);
    expect(doc.payees.every((p: { finalEvent: boolean; carriedIn?: unknown }) => p.finalEvent && p.carriedIn !== undefined)).toBe(true);
  });

  it('bad input names the field and records nothing; another organisation’s employee is NOT_FOUND; a reader is refused', async () => {
    const x = await t.org();
    const other = await t.org();
    const mine = await activeEmployee(t, x, { name: 'Cara Moana', annualSalaryCents: 6_500_000, startDate: '2025-09-01' });
    const casual = await activeEmployee(t, x, {
      name: 'Dev Rao',
      employmentBasis: 'casual',
      hourlyRateCents: 4_000,
      hoursPerWeek: 10,
      startDate: '2025-09-01',
    });
    const late = await activeEmployee(t, x, { name: 'Eli Stone', annualSalaryCents: 6_000_000, startDate: '2026-02-02' });
    const theirs = await activeEmployee(t, other, { name: 'Fay Lin', annualSalaryCents: 6_000_000, startDate: '2025-09-01' });
    const fig = { grossCents: 100_000, paygWithheldCents: 10_000, superGuaranteeCents: 12_000 };
    const withEmployees = (employees: Record<string, unknown>[]) => ({
      conversionDate: CONVERSION,
      accounts: BALANCES,
      payroll: { employees },
    });
    const before = (await eventsOf(t, x)).length;
    const bad = async (employees: Record<string, unknown>[], field: string, words: string) => {
      const r = await t.post(x.keys.agent, 'books.openingBalances', withEmployees(employees));
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.message).toContain(field);
      expect(r.body.error.message).toContain(words);
    };
    const e0 = 'payroll.employees[0]';
    await bad([{ employeeId: mine, ...fig, annualLeaveHours: 7.125 }], `${e0}.annualLeaveHours`, 'at most 2 decimal places');
    await bad([{ employeeId: mine, ...fig, personalLeaveHours: -1 }], `${e0}.personalLeaveHours`, 'at least 0');
    await bad([{ employeeId: mine, ...fig, grossCents: -1 }], `${e0}.grossCents`, 'at least 0');
    await bad([{ employeeId: mine, ...fig, superGuaranteeCents: 10.5 }], `${e0}.superGuaranteeCents`, 'integer number of cents');
    await bad([{ employeeId: mine, grossCents: 100_000, superGuaranteeCents: 12_000 }], `${e0}.paygWithheldCents`, '');
    await bad([{ employeeId: mine, ...fig, paidLeaveCents: 100_001 }], `${e0}.paidLeaveCents`, 'not be more than grossCents');
    await bad(
      [
        { employeeId: mine, ...fig },
        { employeeId: mine, ...fig },
      ],
      'payroll.employees[1].employeeId',
      'employees[0]',
    );
    await bad([], 'payroll.employees', 'at least 1');
    await bad([{ employeeId: late, ...fig }], `${e0}.employeeId`, 'starts on 2026-02-02');
    await bad([{ employeeId: casual, ...fig, annualLeaveHours: 4 }], `${e0}.annualLeaveHours`, 'casual');
    const foreign = await t.post(x.keys.agent, 'books.openingBalances', withEmployees([{ employeeId: theirs, ...fig }]));
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    expect((await t.post(x.keys.reader, 'books.openingBalances', withEmployees([{ employeeId: mine, ...fig }]))).status).toBe(403);
    expect((await eventsOf(t, x)).length).toBe(before);
    expect(await t.db.reader.get('SELECT 1 AS n FROM payroll_opening WHERE org_id = ?', [x.orgId])).toBeUndefined();
    expect(await t.db.reader.get('SELECT 1 AS n FROM opening_balances WHERE org_id = ?', [x.orgId])).toBeUndefined();
    // A casual's year to date without leave is fine; the organisation converts once, as given.
    const r = await ok(
      'books.openingBalances',
      withEmployees([
        { employeeId: mine, ...fig, annualLeaveHours: 7.6 },
        { employeeId: casual, ...fig },
      ]),
      x,
    );
    expect(r.payroll.employeeIds).toEqual([mine, casual]);
    const leave = (await ok('books.employees', {}, x)).employees.find((e: { id: string }) => e.id === mine).leave;
    expect(leave.annual.balanceMilliHours).toBe(7_600);
  });
});
