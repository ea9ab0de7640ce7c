/**
 * Pay items and decimal hours through HTTP, on every engine: a week with 7.6-hour days, overtime
 * ×1.5, a public holiday shift ×2.5, a tools allowance, a bonus and salary sacrifice, every figure
 * worked by hand below from ATO Schedule 1 (2026-07-01 coefficients, Scale 2, weekly) and the
 * ATO's method for additional payments — not recomputed with the code under test.
 *
 * Kai (hourly $32.50, 38 h a week), paid 2 July 2026 for the week to 2 July:
 *   ordinary 22.8 h worked + 7.6 h annual leave = 30.4 h × $32.50        =   $988.00 (leave $247.00)
 *   penalty  7.6 h × $32.50 × 2.5 (public holiday)                       =   $617.50
 *   overtime 3.25 h × $32.50 × 1.5 = $158.4375, half up                  =   $158.44
 *   allowance TD (tools)                                                  =    $15.00
 *   bonus                                                                 = $2,000.00
 *   gross                                                                 = $3,778.94
 *   salary sacrifice                                                      =   $100.00
 *   normal earnings = 3,778.94 − 2,000 − 100 = $1,678.94: x = 1,678.99, y = 0.32x − 181.7319
 *     = 355.5449 → $356
 *   bonus: 2,000 ÷ 52 = $38 (cents ignored); 1,678 + 38 = 1,716: x = 1,716.99,
 *     y = 0.32x − 181.7319 = 367.7049 → $368; (368 − 356) × 52 = $624 < 47% × 2,000 = $940 → $624
 *   PAYG $356 + $624                                                      =   $980.00
 *   OTE (not overtime) 3,778.94 − 158.44 = $3,620.50 × 12%                =   $434.46 super
 *   net 3,778.94 − 100 − 980                                              = $2,698.94
 * Noa (salaried $78,000, 38 h a week): ordinary 78,000 ÷ 52 = $1,500; overtime 2 h × 1.5 at
 *   78,000 ÷ 52 ÷ 38 an hour = 7,800,000 × 3 ÷ 1,976 cents = 11,842.1 → $118.42; gross $1,618.42;
 *   x = 1,618.99, y = 0.32x − 181.7319 = 336.3449 → PAYG $336; super 12% × $1,500 = $180;
 *   net $1,282.42.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { eventsOf, journalLines } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';

const WEEK = { periodStart: '2026-06-26', periodEnd: '2026-07-02', paymentDate: '2026-07-02', payFrequency: 'weekly' };
const KAI = { name: 'Kai Tane', payFrequency: 'weekly', hourlyRateCents: 3_250, hoursPerWeek: 38 };
const NOA = { name: 'Noa Reid', payFrequency: 'weekly', annualSalaryCents: 7_800_000 };

describe.each(engines)('pay items and decimal hours (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-pay-items-'));
    t = await startTestServer(engine, { lodgementOutboxDir: dir });
  });
  afterAll(async () => t.close());

  const post = (o: CreatedOrg, method: string, params: Record<string, unknown>) => t.post(o.keys.agent, method, params);
  const ok = async (o: CreatedOrg, method: string, params: Record<string, unknown>) => {
    const r = await post(o, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };

  async function setUp(o: CreatedOrg) {
    const kai = await activeEmployee(t, o, KAI);
    const noa = await activeEmployee(t, o, NOA);
    const lv = await ok(o, 'books.leaveRequest', {
      employeeId: kai,
      leaveType: 'annual',
      startDate: '2026-07-01',
      endDate: '2026-07-01',
      hours: 7.6,
    });
    expect(lv).toMatchObject({ hours: 7.6, availableAfterMilliHours: -7_600 });
    expect(lv.warning).toContain('7.6 hours exceed the available annual leave of 0 hours by 7.6 hours');
    await ok(o, 'books.leaveApprove', { id: lv.id });
    const earnings = [
      { employeeId: kai, type: 'penalty', hours: 7.6, multiplier: 2.5 },
      { employeeId: kai, type: 'overtime', hours: 3.25, multiplier: 1.5 },
      { employeeId: kai, type: 'allowance', amountCents: 1_500, category: 'TD' },
      { employeeId: kai, type: 'bonus', amountCents: 200_000 },
      { employeeId: kai, type: 'salary_sacrifice', amountCents: 10_000 },
      { employeeId: noa, type: 'overtime', hours: 2, multiplier: 1.5 },
    ];
    const params = { ...WEEK, hours: [{ employeeId: kai, hours: 22.8 }], earnings };
    return { kai, noa, lv, params };
  }

  it('a week of 7.6-hour days with overtime, a public holiday, an allowance, a bonus and salary sacrifice: every figure by hand', async () => {
    const o = await t.org();
    const { kai, noa, lv, params } = await setUp(o);
    const d = await ok(o, 'books.payrollDraft', params);
    const byId = (id: string) => d.lines.find((l: { employeeId: string }) => l.employeeId === id);
    expect(byId(kai)).toMatchObject({
      grossCents: 377_894,
      paygCents: 98_000,
      superCents: 43_446,
      netCents: 269_894,
      salarySacrificeCents: 10_000,
      hours: 30.4,
      leaveHours: 7.6,
      leaveCents: 24_700,
      leaveIds: [lv.id],
    });
    expect(byId(kai).earnings).toEqual([
      { type: 'penalty', category: null, hours: 7.6, multiplier: 2.5, amountCents: 61_750 },
      { type: 'overtime', category: null, hours: 3.25, multiplier: 1.5, amountCents: 15_844 },
      { type: 'allowance', category: 'TD', hours: null, multiplier: null, amountCents: 1_500 },
      { type: 'bonus', category: null, hours: null, multiplier: null, amountCents: 200_000 },
      { type: 'salary_sacrifice', category: null, hours: null, multiplier: null, amountCents: 10_000 },
    ]);
    expect(byId(noa)).toMatchObject({ grossCents: 161_842, paygCents: 33_600, superCents: 18_000, netCents: 128_242, hours: null });
    expect(byId(noa).earnings).toEqual([{ type: 'overtime', category: null, hours: 2, multiplier: 1.5, amountCents: 11_842 }]);
    expect(d.totals).toEqual({
      grossCents: 539_736,
      paygCents: 131_600,
      superCents: 61_446,
      netCents: 398_136,
      salarySacrificeCents: 10_000,
    });
    // The same draft again is a no-op answering it, earnings included.
    const again = await ok(o, 'books.payrollDraft', params);
    expect(again).toMatchObject({ id: d.id, noop: true });
    expect(again.lines).toEqual(d.lines);

    const { hold, result } = await signPayRun(t, o, d.id);
    expect(hold.approval.subject.summary).toContain(
      '"Kai Tane" gross $3,778.94 (incl. 7.6 h leave $247.00) with penalty 7.6 h × 2.5 $617.50, overtime 3.25 h × 1.5 $158.44, allowance TD $15.00, bonus $2,000.00, tax $980.00, super $434.46, salary sacrificed to super $100.00, net $2,698.94',
    );
    // Gross wages include the sacrifice; 2300 is credited with the guarantee and the sacrifice; W1 leaves the sacrifice out.
    expect(
      (await journalLines(t, o.orgId, result.journalId)).map((l) => [l.account_code, l.debit_cents, l.credit_cents, l.tax_base_cents]),
    ).toEqual([
      ['6100', 539_736, 0, 529_736],
      ['6200', 61_446, 0, 0],
      ['2200', 0, 131_600, 131_600],
      ['2300', 0, 71_446, 0],
      ['2400', 0, 398_136, 0],
    ]);
    // Leave accrues on ordinary hours: 30.4 paid and 7.6 at the penalty rate, 38 h (not the overtime).
    const accrued = await t.db.reader.all<{ milli_hours: number | string }>(
      `SELECT milli_hours FROM leave_ledger WHERE org_id = ? AND employee_id = ? AND kind = 'accrual' AND leave_type = 'annual'`,
      [o.orgId, kai],
    );
    expect(accrued.map((r) => Number(r.milli_hours))).toEqual([2_923]);

    // payroll_activity: gross by type adds up to gross.
    const report = (await t.post(o.keys.reader, 'books.reports', { type: 'payroll_activity', from: '2026-07-01', to: '2026-07-31' })).body
      .result;
    const kaiRow = report.employees.find((e: { employeeId: string }) => e.employeeId === kai);
    expect(kaiRow).toMatchObject({
      earnings: {
        salaryWagesCents: 135_850,
        paidLeaveCents: 24_700,
        overtimeCents: 15_844,
        bonusesCommissionsCents: 200_000,
        allowancesCents: 1_500,
      },
      grossCents: 377_894,
      salarySacrificeCents: 10_000,
      paygWithheldCents: 98_000,
      superCents: 43_446,
      netCents: 269_894,
    });
    expect(report.totals).toMatchObject({
      earnings: { salaryWagesCents: 285_850, paidLeaveCents: 24_700, overtimeCents: 27_686, bonusesCommissionsCents: 200_000 },
      grossCents: 539_736,
      salarySacrificeCents: 10_000,
      netCents: 398_136,
    });

    // STP: the Phase 2 split of the year to date.
    const sub = await t.db.reader.get<{ id: string }>('SELECT id FROM stp_submissions WHERE org_id = ? AND pay_run_id = ?', [
      o.orgId,
      d.id,
    ]);
    let doc: any;
    for (let i = 0; i < 100 && doc === undefined; i += 1) {
      await t.server.outbox.kick();
      try {
        doc = JSON.parse(readFileSync(join(dir, `${sub!.id}.json`), 'utf8'));
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const ytd = (id: string) => doc.stp_pay_event.payees.find((p: { employeeId: string }) => p.employeeId === id).ytd;
    expect(ytd(kai)).toEqual({
      salaryWagesCents: 135_850,
      paidLeaveCents: 24_700,
      allowancesCents: 1_500,
      overtimeCents: 15_844,
      bonusesCommissionsCents: 200_000,
      allowances: [{ type: 'TD', amountCents: 1_500 }],
      salarySacrifice: [{ type: 'S', amountCents: 10_000 }],
      grossCents: 377_894,
      paygWithheldCents: 98_000,
      superLiabilityCents: 43_446,
    });
    expect(ytd(noa)).toEqual({
      salaryWagesCents: 150_000,
      paidLeaveCents: 0,
      allowancesCents: 0,
      overtimeCents: 11_842,
      grossCents: 161_842,
      paygWithheldCents: 33_600,
      superLiabilityCents: 18_000,
    });
  });

  it('bad input names the field and changes nothing', async () => {
    const o = await t.org();
    const { kai, noa, params } = await setUp(o);
    const before = (await eventsOf(t, o)).length;
    const e0 = (patch: Record<string, unknown>) => ({ ...params, earnings: [{ employeeId: kai, ...patch }] });
    const cases: [Record<string, unknown>, string][] = [
      [e0({ type: 'overtime', hours: 2 }), 'earnings[0].multiplier: is required for type overtime'],
      [e0({ type: 'penalty', multiplier: 2 }), 'earnings[0].hours: is required for type penalty'],
      [
        e0({ type: 'overtime', hours: 2, multiplier: 1.2345 }),
        'earnings[0].multiplier: must be a number greater than 0 and at most 5 with at most 3 decimal places',
      ],
      [
        e0({ type: 'overtime', hours: 2.125, multiplier: 1.5 }),
        'earnings[0].hours: must be a number greater than 0 and at most 744 with at most 2 decimal places',
      ],
      [e0({ type: 'allowance', amountCents: 500 }), 'earnings[0].category: is required for type allowance'],
      [
        e0({ type: 'allowance', amountCents: 500, category: 'XX' }),
        'earnings[0].category: must be one of CD, AD, LD, MD, RD, TD, KN, QN, OD',
      ],
      [e0({ type: 'bonus', amountCents: -5 }), 'earnings[0].amountCents: must be an integer greater than 0'],
      [e0({ type: 'bonus' }), 'earnings[0].amountCents: is required for type bonus'],
      [e0({ type: 'bonus', amountCents: 100, hours: 1 }), 'earnings[0].hours: is not used for type bonus'],
      [
        e0({ type: 'tip', amountCents: 100 }),
        'earnings[0].type: must be one of overtime, penalty, allowance, bonus, back_pay, salary_sacrifice',
      ],
      [
        { ...params, earnings: [{ employeeId: 'emp_nobody', type: 'bonus', amountCents: 100 }] },
        'earnings[0].employeeId: employee emp_nobody is not in this pay run',
      ],
      [
        { ...params, earnings: [{ employeeId: noa, type: 'salary_sacrifice', amountCents: 200_000 }] },
        `earnings: employee ${noa} (Noa Reid): salary_sacrifice of 200000 cents is more than the gross of 150000 cents it comes from`,
      ],
      [
        { ...params, hours: [{ employeeId: kai, hours: 22.805 }] },
        'hours[0].hours: must be a number from 0 to 744 with at most 2 decimal places',
      ],
    ];
    for (const [p, message] of cases) {
      const r = await post(o, 'books.payrollDraft', p);
      expect([r.status, r.body.error?.message], JSON.stringify(p.earnings)).toEqual([400, expect.stringContaining(message)]);
    }
    expect((await eventsOf(t, o)).length).toBe(before);
    expect(await t.db.reader.all('SELECT id FROM pay_runs WHERE org_id = ?', [o.orgId])).toEqual([]);
  });
});
