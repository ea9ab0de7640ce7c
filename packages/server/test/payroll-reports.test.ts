/**
 * The payroll reports of books.reports through HTTP on both engines: payroll_activity (signed pay
 * runs by payment date, recalled runs left out) and leave_balances (the leave ledger as at a date,
 * valued at each employee's current hourly-equivalent rate), with figures worked by hand; the
 * activity's year to date equals the STP pay event's YTD for the same runs; the owner's console
 * page and the CSV export show them; a reader key runs them, another organisation sees none of it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportOrganisation } from '../src/ops/export.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleGet, consoleSignIn } from './console-helpers.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf, inDays } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';

/**
 * Aroha: salaried full time, $72,800 a year, 38 hours a week: $2,800.00 a fortnight (÷ 26); PAYG
 * (Schedule 1 from 1 July 2026, scale 2, x = 1400.99): 0.3200x − 181.7319 = 266.58 → $267 a week,
 * $534 a fortnight; super 12% = $336.00; net $2,266.00. Ben: hourly part time, $35.00 × 20 hours a
 * week: $1,400.00 a fortnight; PAYG (x = 700.99) 0.1700x − 54.3473 = 64.82 → $65, $130 a fortnight;
 * super $168.00; net $1,270.00.
 */
const AROHA = { name: 'Aroha Ngata', annualSalaryCents: 7_280_000 };
const BEN = { name: 'Ben Hollis', employmentBasis: 'part_time', hourlyRateCents: 3_500, hoursPerWeek: 20 };
const FORTNIGHTLY = { payFrequency: 'fortnightly' };
const R1 = { periodStart: '2026-07-01', periodEnd: '2026-07-14', paymentDate: '2026-07-15', ...FORTNIGHTLY };
const R2 = { periodStart: '2026-07-15', periodEnd: '2026-07-28', paymentDate: '2026-07-29', ...FORTNIGHTLY };
const R3 = { periodStart: '2026-07-29', periodEnd: '2026-08-11', paymentDate: '2026-08-12', ...FORTNIGHTLY };
const FY = { from: '2026-07-01', to: '2027-06-30' };

interface Figures {
  runs: number;
  earnings: { salaryWagesCents: number; paidLeaveCents: number };
  grossCents: number;
  paygWithheldCents: number;
  superCents: number;
  netCents: number;
  leaveTakenMilliHours: { annual: number; personal: number };
}

/** `runs` fortnights of one employee, `leaveCents` of gross paid as leave. */
const fortnights = (
  runs: number,
  pay: { gross: number; payg: number; super: number },
  leaveCents: number,
  leave: { annual: number; personal: number },
): Figures => ({
  runs,
  earnings: { salaryWagesCents: runs * pay.gross - leaveCents, paidLeaveCents: leaveCents },
  grossCents: runs * pay.gross,
  paygWithheldCents: runs * pay.payg,
  superCents: runs * pay.super,
  netCents: runs * (pay.gross - pay.payg),
  leaveTakenMilliHours: leave,
});
const AROHA_PAY = { gross: 280_000, payg: 53_400, super: 33_600 };
const BEN_PAY = { gross: 140_000, payg: 13_000, super: 16_800 };
/** Aroha's 16 hours of annual leave in R2: $2,800.00 × 16 ÷ 76 ordinary hours = 589.4737 → $589.47. Ben's hour: $35.00. */
const AROHA_LEAVE_CENTS = 58_947;
const BEN_LEAVE_CENTS = 3_500;

describe.each(engines)('payroll reports (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let o: CreatedOrg;
  let other: CreatedOrg;
  let aroha: string;
  let ben: string;
  const runs: Record<string, string> = {};

  const ok = async (method: string, params: Record<string, unknown>) => {
    const r = await t.post(o.keys.agent, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const report = async (params: Record<string, unknown>, key = o.keys.reader) => {
    const r = await t.post(key, 'books.reports', params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const signed = async (params: Record<string, unknown>) => {
    const run = await ok('books.payrollDraft', params);
    await signPayRun(t, o, run.id as string);
    return run.id as string;
  };

  /** The delivered pay event of a submission (the file the lodgement sink got, checked against its receipt). */
  async function payEvent(submissionKind: string, runId: string) {
    for (let i = 0; i < 100; i += 1) {
      await t.server.outbox.kick();
      const row = await t.db.reader.get<{ id: string; status: string; receipt_sha256: string | null }>(
        'SELECT id, status, receipt_sha256 FROM stp_submissions WHERE org_id = ? AND pay_run_id = ? AND kind = ?',
        [o.orgId, runId, submissionKind],
      );
      if (row?.status === 'lodged') {
        const bytes = readFileSync(join(dir, 'lodged', `${row.id}.json`));
        expect(row.receipt_sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
        return JSON.parse(bytes.toString('utf8')).stp_pay_event;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the ${submissionKind} pay event of ${runId} was not lodged`);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-payroll-reports-'));
    t = await startTestServer(engine, { lodgementOutboxDir: join(dir, 'lodged') });
    o = await t.org();
    other = await t.org();
    aroha = await activeEmployee(t, o, AROHA);
    ben = await activeEmployee(t, o, BEN);
    runs.r1 = await signed(R1);
    // Leave paid by R2: Aroha 16 hours annual (ahead of accrual: accepted with a warning), Ben 1 hour personal.
    for (const [employeeId, leaveType, endDate, hours] of [
      [aroha, 'annual', '2026-07-21', 16],
      [ben, 'personal', '2026-07-20', 1],
    ] as const) {
      const lv = await ok('books.leaveRequest', { employeeId, leaveType, startDate: '2026-07-20', endDate, hours });
      await ok('books.leaveApprove', { id: lv.id });
    }
    runs.r2 = await signed(R2);
    runs.r3 = await signed(R3);
    // A fourth run, signed and recalled before its payment date: in no report.
    const pay = inDays(7);
    runs.r4 = await signed({ periodStart: inDays(-6), periodEnd: pay, paymentDate: pay, ...FORTNIGHTLY });
    await ok('books.payrollRecall', { id: runs.r4, reason: 'wrong hours' });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('payroll_activity: per employee and in total, by payment date, the recalled run left out', async () => {
    const r = await report({ type: 'payroll_activity', ...FY });
    const arohaFigures = fortnights(3, AROHA_PAY, AROHA_LEAVE_CENTS, { annual: 16_000, personal: 0 });
    const benFigures = fortnights(3, BEN_PAY, BEN_LEAVE_CENTS, { annual: 0, personal: 1_000 });
    expect(r).toEqual({
      type: 'payroll_activity',
      ...FY,
      employees: [
        { employeeId: aroha, name: 'Aroha Ngata', ...arohaFigures },
        { employeeId: ben, name: 'Ben Hollis', ...benFigures },
      ],
      totals: {
        runs: 3,
        earnings: { salaryWagesCents: 1_197_553, paidLeaveCents: 62_447 },
        grossCents: 1_260_000,
        paygWithheldCents: 199_200,
        superCents: 151_200,
        netCents: 1_060_800,
        leaveTakenMilliHours: { annual: 16_000, personal: 1_000 },
      },
    });
    expect(arohaFigures.earnings.salaryWagesCents).toBe(781_053);
    expect(arohaFigures.netCents).toBe(679_800);

    // The run with the leave alone: its payment date 29 July is the only one from the 16th to the 31st.
    const r2 = await report({ type: 'payroll_activity', from: '2026-07-16', to: '2026-07-31' });
    expect(r2.employees).toEqual([
      { employeeId: aroha, name: 'Aroha Ngata', ...fortnights(1, AROHA_PAY, AROHA_LEAVE_CENTS, { annual: 16_000, personal: 0 }) },
      { employeeId: ben, name: 'Ben Hollis', ...fortnights(1, BEN_PAY, BEN_LEAVE_CENTS, { annual: 0, personal: 1_000 }) },
    ]);
    expect(r2.totals.runs).toBe(1);
    // Payment date, not period: R1's period starts 1 July but it was paid on the 15th.
    expect((await report({ type: 'payroll_activity', from: '2026-07-01', to: '2026-07-14' })).employees).toEqual([]);
  });

  it("payroll_activity from 1 July equals each STP pay event's year to date: the last run's pay event, and the recall's correction", async () => {
    const ytd = (doc: { payees: { employeeId: string; ytd: Record<string, number> }[] }) =>
      doc.payees.map((p) => ({ employeeId: p.employeeId, ...p.ytd }));
    const fromReport = (r: { employees: (Figures & { employeeId: string })[] }) =>
      r.employees.map((e) => ({
        employeeId: e.employeeId,
        salaryWagesCents: e.earnings.salaryWagesCents,
        paidLeaveCents: e.earnings.paidLeaveCents,
        allowancesCents: 0,
        grossCents: e.grossCents,
        paygWithheldCents: e.paygWithheldCents,
        superLiabilityCents: e.superCents,
      }));
    const last = await payEvent('pay', runs.r3!);
    expect(last.financialYear.start).toBe('2026-07-01');
    const toR3 = await report({ type: 'payroll_activity', from: last.financialYear.start, to: R3.paymentDate });
    expect(ytd(last)).toEqual(fromReport(toR3));
    expect(ytd(last)[0]).toMatchObject({ grossCents: 840_000, paidLeaveCents: AROHA_LEAVE_CENTS });
    // The recall's correction is the latest word to the ATO: the year without the recalled run.
    const correction = await payEvent('correction', runs.r4!);
    expect(ytd(correction)).toEqual(fromReport(await report({ type: 'payroll_activity', ...FY })));
  });

  it('leave_balances: accrued less taken as at the date, valued at the hourly-equivalent rate, half up', async () => {
    const r = await report({ type: 'leave_balances', asOf: '2026-08-31' });
    // Aroha: 3 × 76 ordinary hours = 228 h → annual ⌊228 000 × 4/52⌋ = 17 538 less 16 000 taken, personal ⌊228 000 × 2/52⌋ = 8 769
    // milli-hours, at $72,800 ÷ (38 × 52) an hour: 5 666.32 → 5 666 and 32 306.84 → 32 307 cents.
    // Ben: 3 × 40 = 120 h → annual 9 230, personal 4 615 less 1 000 = 3 615 milli-hours at $35.00: 32 305 and 12 652.5 → 12 653 cents.
    const rate = { annualSalaryCents: 7_280_000, hourlyRateCents: null, hoursPerWeek: 38 };
    expect(r).toEqual({
      type: 'leave_balances',
      asOf: '2026-08-31',
      employees: [
        {
          employeeId: aroha,
          name: 'Aroha Ngata',
          employmentBasis: 'full_time',
          ...rate,
          annual: { milliHours: 1_538, valueCents: 5_666 },
          personal: { milliHours: 8_769, valueCents: 32_307 },
          valueCents: 37_973,
        },
        {
          employeeId: ben,
          name: 'Ben Hollis',
          employmentBasis: 'part_time',
          annualSalaryCents: null,
          hourlyRateCents: 3_500,
          hoursPerWeek: 20,
          annual: { milliHours: 9_230, valueCents: 32_305 },
          personal: { milliHours: 3_615, valueCents: 12_653 },
          valueCents: 44_958,
        },
      ],
      totals: {
        annual: { milliHours: 10_768, valueCents: 37_971 },
        personal: { milliHours: 12_384, valueCents: 44_960 },
        valueCents: 82_931,
      },
    });
    // As at 20 July only R1 (period end 14 July) has accrued, and no leave is taken yet.
    const early = await report({ type: 'leave_balances', asOf: '2026-07-20' });
    expect(early.employees.map((e: any) => [e.annual, e.personal])).toEqual([
      [
        { milliHours: 5_846, valueCents: 21_538 },
        { milliHours: 2_923, valueCents: 10_769 },
      ],
      [
        { milliHours: 3_076, valueCents: 10_766 },
        { milliHours: 1_538, valueCents: 5_383 },
      ],
    ]);
    // Before anyone started: nobody is listed.
    expect(await report({ type: 'leave_balances', asOf: '2026-06-30' })).toEqual({
      type: 'leave_balances',
      asOf: '2026-06-30',
      employees: [],
      totals: { annual: { milliHours: 0, valueCents: 0 }, personal: { milliHours: 0, valueCents: 0 }, valueCents: 0 },
    });
  });

  it('bad input names the field and changes nothing; a reader runs them, an observer is refused; no event is written', async () => {
    const before = (await eventsOf(t, o)).length;
    const bad = async (params: Record<string, unknown>, field: string, words: string) => {
      const r = await t.post(o.keys.reader, 'books.reports', params);
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.body.error.message).toContain(field);
      expect(r.body.error.message).toContain(words);
    };
    await bad({ type: 'payroll_activity', asOf: '2026-08-31' }, 'asOf', 'is not used by payroll_activity');
    await bad({ type: 'payroll_activity', from: '2026-07-01' }, 'to', 'is required for payroll_activity');
    await bad({ type: 'payroll_activity', from: '2026-08-01', to: '2026-07-01' }, 'to', 'must be on or after from');
    await bad({ type: 'payroll_activity', ...FY, gstMethod: 'accounts' }, 'gstMethod', 'only used by gst_summary');
    await bad({ type: 'leave_balances', from: '2026-07-01' }, 'from', 'is not used by leave_balances');
    await bad({ type: 'leave_balances', asOf: '2026-02-30' }, 'asOf', '');
    await bad({ type: 'leave_balance' }, 'type', 'leave_balances');
    expect((await t.post(o.keys.observer, 'books.reports', { type: 'leave_balances' })).status).toBe(403);
    expect((await t.post(o.keys.observer, 'books.reports', { type: 'payroll_activity', ...FY })).status).toBe(403);
    // A reader and an agent key see the same; leave_balances defaults to today.
    expect(await report({ type: 'payroll_activity', ...FY }, o.keys.agent)).toEqual(await report({ type: 'payroll_activity', ...FY }));
    expect((await report({ type: 'leave_balances' })).employees).toHaveLength(2);
    expect((await eventsOf(t, o)).length).toBe(before);
  });

  it('leave_balances values at the pay in force on asOf: a future-dated rise counts from its date', async () => {
    const from = inDays(30);
    const rise = await t.post(o.keys.agent, 'books.employeeUpdate', { id: ben, effectiveFrom: from, hourlyRateCents: 4_000 });
    expect(rise.status, JSON.stringify(rise.body)).toBe(200);
    const benOn = async (asOf: string) =>
      (await report({ type: 'leave_balances', asOf })).employees.find((e: { employeeId: string }) => e.employeeId === ben);
    // Nothing accrues after August (the later run was recalled): the same hours at $35.00, then at $40.00.
    expect(await benOn(inDays(29))).toMatchObject({
      hourlyRateCents: 3_500,
      annual: { milliHours: 9_230, valueCents: 32_305 },
      personal: { milliHours: 3_615, valueCents: 12_653 },
    });
    expect(await benOn(from)).toMatchObject({
      hourlyRateCents: 4_000,
      annual: { milliHours: 9_230, valueCents: 36_920 },
      personal: { milliHours: 3_615, valueCents: 14_460 },
      valueCents: 51_380,
    });
  });

  it("another organisation sees none of this organisation's pay or leave", async () => {
    const theirs = await report({ type: 'payroll_activity', ...FY }, other.keys.reader);
    expect(theirs.employees).toEqual([]);
    expect(theirs.totals).toMatchObject({ runs: 0, grossCents: 0, netCents: 0 });
    const leave = await report({ type: 'leave_balances', asOf: '2026-08-31' }, other.keys.reader);
    expect(leave.employees).toEqual([]);
    expect(leave.totals.valueCents).toBe(0);
  });

  it("the owner's reports page and the CSV export show both", async () => {
    const owner = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const page = await consoleGet(t, owner, '/console/books/reports?from=2026-07-01&to=2026-08-31');
    expect(page.status).toBe(200);
    const m = page.text.slice(page.text.indexOf('<main'), page.text.indexOf('</main>'));
    expect(m).toContain('Payroll activity, 2026-07-01 to 2026-08-31');
    expect(m).toContain('Leave balances as at 2026-08-31');
    expect(m).toContain('Annual leave loading is not included');
    // Ben's row: 3 runs, salary and wages, paid leave, gross, PAYG, super, net, leave hours taken.
    const ben = m.slice(m.indexOf('<th scope="row">Ben Hollis</th>'), m.indexOf('</tr>', m.indexOf('Ben Hollis')));
    expect(ben.match(/<td class="num">([^<]+)<\/td>/g)?.map((c) => c.replace(/<[^>]+>/g, ''))).toEqual([
      '3',
      '$4,165.00',
      '$35.00',
      '$4,200.00',
      '$390.00',
      '$504.00',
      '$3,810.00',
      '0',
      '1',
    ]);
    expect(/id="leave-value">([^<]+)</.exec(m)?.[1]).toBe('$829.31');
    // Aroha's annual leave balance in hours.
    expect(m).toContain('<td class="num">1.538</td>');

    const out = join(dir, 'export');
    await exportOrganisation(t.db, { orgId: o.orgId, orgSlug: o.slug, from: '2026-07-01', to: '2026-08-31', dir: out });
    const csv = (file: string) => {
      const [head, ...rows] = readFileSync(join(out, file), 'utf8').trimEnd().split('\r\n');
      const cols = (head as string).split(',');
      return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [cols[i], v])));
    };
    const activity = csv('payroll_activity.csv').filter((r) => r.path === 'employees');
    expect(activity.map((r) => [r.name, r['earnings.paidLeaveCents'], r.grossCents, r['leaveTakenMilliHours.annual']])).toEqual([
      ['Aroha Ngata', '58947', '840000', '16000'],
      ['Ben Hollis', '3500', '420000', '0'],
    ]);
    const leave = csv('leave_balances.csv');
    expect(leave.filter((r) => r.path === 'employees').map((r) => [r.name, r['annual.milliHours'], r['personal.valueCents']])).toEqual([
      ['Aroha Ngata', '1538', '32307'],
      ['Ben Hollis', '9230', '12653'],
    ]);
    expect(leave.find((r) => r.path === 'totals.valueCents')?.value).toBe('82931');
  });
});
