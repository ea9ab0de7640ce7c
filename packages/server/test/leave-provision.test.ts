/**
 * books.leaveProvision through HTTP on both engines: the annual leave liability as the
 * leave_balances report values it, posted as the difference from 2350's balance as at the date
 * (Dr 6150 / Cr 2350, the reverse when it shrank), worked by hand; the same date again is a no-op;
 * a later accrual then a second provision posts only the difference; the report, the journal and
 * the account agree; bad input names the field; a provision behind a later one is CONFLICT; a
 * reader is refused; another organisation provides for nothing of this one's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleJson, consoleSignIn } from './console-helpers.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf, inDays, journalLines } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';

/** As payroll-reports.test.ts: Aroha salaried $72,800 at 38 hours, Ben $35.00 an hour for 20 hours, paid fortnightly from 1 July 2026. */
const AROHA = { name: 'Aroha Ngata', annualSalaryCents: 7_280_000 };
const BEN = { name: 'Ben Hollis', employmentBasis: 'part_time', hourlyRateCents: 3_500, hoursPerWeek: 20 };
const FORTNIGHTLY = { payFrequency: 'fortnightly' };
const R1 = { periodStart: '2026-07-01', periodEnd: '2026-07-14', paymentDate: '2026-07-15', ...FORTNIGHTLY };
const R2 = { periodStart: '2026-07-15', periodEnd: '2026-07-28', paymentDate: '2026-07-29', ...FORTNIGHTLY };
const R3 = { periodStart: '2026-07-29', periodEnd: '2026-08-11', paymentDate: '2026-08-12', ...FORTNIGHTLY };

describe.each(engines)('leave provision (%s)', (engine) => {
  let t: TestServer;
  let o: CreatedOrg;
  let other: CreatedOrg;
  let aroha: string;
  let ben: string;
  const journals: Record<string, string> = {};

  const ok = async (method: string, params: Record<string, unknown>, org = o) => {
    const r = await t.post(org.keys.agent, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const signed = async (params: Record<string, unknown>) => {
    const run = await ok('books.payrollDraft', params);
    await signPayRun(t, o, run.id as string);
  };
  const provisionAt = async (asOf: string) => {
    const { accounts } = await ok('books.accounts', { asOf });
    return accounts.find((a: { code: string }) => a.code === '2350').balanceCents as number;
  };
  const lines = async (journalId: string) =>
    (await journalLines(t, o.orgId, journalId)).map((l) => [l.account_code, l.debit_cents, l.credit_cents]);

  beforeAll(async () => {
    t = await startTestServer(engine);
    o = await t.org();
    other = await t.org();
    aroha = await activeEmployee(t, o, AROHA);
    ben = await activeEmployee(t, o, BEN);
    await signed(R1);
    const lv = await ok('books.leaveRequest', {
      employeeId: aroha,
      leaveType: 'annual',
      startDate: '2026-07-20',
      endDate: '2026-07-21',
      hours: 16,
    });
    await ok('books.leaveApprove', { id: lv.id });
    await signed(R2);
  }, 180_000);
  afterAll(async () => t?.close());

  it('every organisation has 2350 Provision for annual leave and 6150 Annual leave expense', async () => {
    for (const org of [o, other]) {
      const { accounts } = await ok('books.accounts', {}, org);
      expect(accounts.filter((a: { code: string }) => ['2350', '6150'].includes(a.code))).toMatchObject([
        { code: '2350', name: 'Provision for annual leave', type: 'liability', balanceCents: 0 },
        { code: '6150', name: 'Annual leave expense', type: 'expense', balanceCents: 0 },
      ]);
    }
  });

  it('posts the liability as at a date, worked by hand; the same date again is a no-op', async () => {
    const before = (await eventsOf(t, o)).length;
    // As at 20 July only R1 (period to 14 July) has accrued: Aroha 76 h × 4/52 = 5 846 milli-hours at
    // $72,800 ÷ (38 × 52) an hour = 21 537.89 → 21 538 cents; Ben 40 h × 4/52 = 3 076 at $35.00 = 10 766.
    const r = await ok('books.leaveProvision', { asAt: '2026-07-20' });
    expect(r).toMatchObject({
      asAt: '2026-07-20',
      employees: [
        {
          employeeId: aroha,
          name: 'Aroha Ngata',
          milliHours: 5_846,
          annualSalaryCents: 7_280_000,
          hourlyRateCents: null,
          hoursPerWeek: 38,
          amountCents: 21_538,
        },
        {
          employeeId: ben,
          name: 'Ben Hollis',
          milliHours: 3_076,
          annualSalaryCents: null,
          hourlyRateCents: 3_500,
          hoursPerWeek: 20,
          amountCents: 10_766,
        },
      ],
      totalCents: 32_304,
      balanceBeforeCents: 0,
      differenceCents: 32_304,
    });
    expect(r.noop).toBeUndefined();
    journals.first = r.journalId;
    expect(await lines(r.journalId)).toEqual([
      ['6150', 32_304, 0],
      ['2350', 0, 32_304],
    ]);
    expect(await provisionAt('2026-07-20')).toBe(32_304);
    const after = await eventsOf(t, o);
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)).toMatchObject({
      kind: 'books.leave.provision',
      payload: {
        asAt: '2026-07-20',
        totalCents: 32_304,
        balanceBeforeCents: 0,
        differenceCents: 32_304,
        employeeCount: 2,
        journalId: r.journalId,
      },
    });

    // Again, with a new idempotency key: nothing to post, no event, the journal that made it so.
    const again = await ok('books.leaveProvision', { asAt: '2026-07-20' });
    expect(again).toMatchObject({
      totalCents: 32_304,
      balanceBeforeCents: 32_304,
      differenceCents: 0,
      journalId: r.journalId,
      ledgerId: r.ledgerId,
      noop: true,
    });
    expect((await eventsOf(t, o)).length).toBe(before + 1);
  });

  it('a later accrual then a second provision posts only the difference; the report, the journal and 2350 agree', async () => {
    await signed(R3);
    // As at 31 August (payroll-reports.test.ts): Aroha 17 538 − 16 000 taken = 1 538 milli-hours, 5 666 cents;
    // Ben 9 230, 32 305 cents: 37 971 in all, 5 667 more than the 32 304 provided on 20 July.
    const r = await ok('books.leaveProvision', { asAt: '2026-08-31' });
    expect(r).toMatchObject({ totalCents: 37_971, balanceBeforeCents: 32_304, differenceCents: 5_667 });
    expect(r.employees.map((e: { milliHours: number; amountCents: number }) => [e.milliHours, e.amountCents])).toEqual([
      [1_538, 5_666],
      [9_230, 32_305],
    ]);
    journals.second = r.journalId;
    expect(await lines(r.journalId)).toEqual([
      ['6150', 5_667, 0],
      ['2350', 0, 5_667],
    ]);
    const report = await ok('books.reports', { type: 'leave_balances', asOf: '2026-08-31' });
    expect(report.totals.annual.valueCents).toBe(r.totalCents);
    expect(
      report.employees.map((e: { employeeId: string; annual: { valueCents: number } }) => [e.employeeId, e.annual.valueCents]),
    ).toEqual(r.employees.map((e: { employeeId: string; amountCents: number }) => [e.employeeId, e.amountCents]));
    expect(await provisionAt('2026-08-31')).toBe(report.totals.annual.valueCents);
    // The 20 July provision is unchanged as at its date.
    expect(await provisionAt('2026-07-20')).toBe(32_304);
  });

  it('a provision above the liability is brought down: the reverse entries', async () => {
    // Someone provided $100.00 by hand on 1 September.
    await ok('books.journalPost', {
      date: '2026-09-01',
      memo: 'Leave provision top-up',
      lines: [
        { accountCode: '6150', debitCents: 10_000 },
        { accountCode: '2350', creditCents: 10_000 },
      ],
    });
    const r = await ok('books.leaveProvision', { asAt: '2026-09-02' });
    expect(r).toMatchObject({ totalCents: 37_971, balanceBeforeCents: 47_971, differenceCents: -10_000 });
    expect(await lines(r.journalId)).toEqual([
      ['6150', 0, 10_000],
      ['2350', 10_000, 0],
    ]);
    expect(await provisionAt('2026-09-02')).toBe(37_971);
    expect(await ok('books.leaveProvision', { asAt: '2026-09-02' })).toMatchObject({
      noop: true,
      journalId: r.journalId,
      differenceCents: 0,
    });
  });

  it('bad input names the field and changes nothing; behind a later provision is CONFLICT; a reader is refused', async () => {
    const before = (await eventsOf(t, o)).length;
    const bad = async (params: Record<string, unknown>, field: string, words: string) => {
      const r = await t.post(o.keys.agent, 'books.leaveProvision', params);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.message).toContain(field);
      expect(r.body.error.message).toContain(words);
    };
    await bad({}, 'asAt', '');
    await bad({ asAt: '2026-02-30' }, 'asAt', 'calendar date');
    await bad({ asAt: inDays(1) }, 'asAt', 'future');
    await bad({ asAt: '2026-09-03', accountCode: '2300' }, 'accountCode', '');
    const behind = await t.post(o.keys.agent, 'books.leaveProvision', { asAt: '2026-08-15' });
    expect(behind.status).toBe(409);
    expect(behind.body.error.message).toContain('2026-09-02');
    // The lock date: nothing is posted on or before it.
    const owner = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    expect((await consoleJson(t, owner, 'PUT', '/console/api/org/profile', { lockDate: '2026-09-05' })).status).toBe(200);
    await bad({ asAt: '2026-09-04' }, 'asAt', 'lock date');
    expect((await consoleJson(t, owner, 'PUT', '/console/api/org/profile', { lockDate: null })).status).toBe(200);
    expect((await t.post(o.keys.reader, 'books.leaveProvision', { asAt: '2026-09-03' })).status).toBe(403);
    expect((await t.post(o.keys.observer, 'books.leaveProvision', { asAt: '2026-09-03' })).status).toBe(403);
    expect((await eventsOf(t, o)).filter((e) => e.kind !== 'org.profile.update').length).toBe(before);
  });

  it("another organisation provides for none of this one's employees", async () => {
    const r = await ok('books.leaveProvision', { asAt: '2026-08-31' }, other);
    expect(r).toEqual({
      asAt: '2026-08-31',
      employees: [],
      totalCents: 0,
      balanceBeforeCents: 0,
      differenceCents: 0,
      journalId: null,
      ledgerId: null,
      noop: true,
    });
    expect(await provisionAt('2026-08-31')).toBe(37_971);
  });
});
