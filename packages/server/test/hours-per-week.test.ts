/**
 * An employee's ordinary hours a week to the hundredth (22.8: three 7.6-hour days), through HTTP on
 * every engine: onboarding and books.employeeUpdate take them, the record keeps them exactly
 * (milli-hours), and every figure built on them is exact and rounded half up once: ordinary hours
 * and the hourly gross on them, the salaried base hourly rate for overtime, leave accrual and the
 * leave_balances values. Migration 45 scales the whole hours already recorded. Figures by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, openTestDatabase, startTestServer, type TestServer } from './harness.js';
import { eventsOf } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';

/** Salaried part-time, $52,000 a year for 22.8 hours a week: an hour is 5 200 000 ÷ 52 ÷ 22.8 = 4 385.96… cents. */
const MERE = { name: 'Mere Tipene', employmentBasis: 'part_time', annualSalaryCents: 5_200_000, hoursPerWeek: 22.8 };
/** Hourly part-time, $33.30 for 22.85 hours a week, paid weekly: 3 330 × 22.85 = 76 090.5 → 76 091 cents, half up. */
const TOA = { name: 'Toa Fale', employmentBasis: 'part_time', hourlyRateCents: 3_330, hoursPerWeek: 22.85, payFrequency: 'weekly' };
const FORTNIGHTLY = { payFrequency: 'fortnightly' };
const R1 = { periodStart: '2026-07-01', periodEnd: '2026-07-14', paymentDate: '2026-07-15', ...FORTNIGHTLY };
const R2 = { periodStart: '2026-07-15', periodEnd: '2026-07-28', paymentDate: '2026-07-29', ...FORTNIGHTLY };
const W1 = { periodStart: '2026-07-01', periodEnd: '2026-07-07', paymentDate: '2026-07-08', payFrequency: 'weekly' };
const DECIMALS = 'hoursPerWeek: must be a number from 1 to 80 with at most 2 decimal places';

describe.each(engines)('hours per week to the hundredth (%s)', (engine) => {
  let t: TestServer;
  let o: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    o = await t.org();
  });
  afterAll(async () => t.close());

  const post = (method: string, params: Record<string, unknown>) => t.post(o.keys.agent, method, params);
  const ok = async (method: string, params: Record<string, unknown>) => {
    const r = await post(method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const stored = async (id: string) =>
    Number(
      (
        await t.db.reader.get<{ m: number | string }>('SELECT milli_hours_per_week AS m FROM employees WHERE org_id = ? AND id = ?', [
          o.orgId,
          id,
        ])
      )?.m,
    );
  const accrued = async (id: string) =>
    (
      await t.db.reader.all<{ leave_type: string; s: number | string }>(
        `SELECT leave_type, SUM(milli_hours) AS s FROM leave_ledger WHERE org_id = ? AND employee_id = ? AND kind = 'accrual'
         GROUP BY leave_type ORDER BY leave_type`,
        [o.orgId, id],
      )
    ).map((r) => [r.leave_type, Number(r.s)]);

  it('onboarding refuses more than 2 decimal places or under an hour, naming hoursPerWeek, and records nothing', async () => {
    const before = (await eventsOf(t, o)).length;
    for (const hoursPerWeek of [22.805, 0.5, 80.01]) {
      const r = await post('books.onboardingStart', {
        ...MERE,
        email: 'mere@example.com',
        startDate: '2026-07-01',
        payFrequency: 'fortnightly',
        hoursPerWeek,
      });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toBe(DECIMALS);
    }
    expect((await eventsOf(t, o)).length).toBe(before);
  });

  it('salaried at 22.8 hours: overtime at the exact base rate, leave accrued on 45.6 hours, leave_balances valued half up once', async () => {
    const mere = await activeEmployee(t, o, MERE);
    expect(await stored(mere)).toBe(22_800);
    const read = ((await t.post(o.keys.reader, 'books.employees', {})).body.result.employees as any[]).find((e) => e.id === mere);
    expect(read).toMatchObject({ hoursPerWeek: 22.8, annualSalaryCents: 5_200_000 });
    const started = (await eventsOf(t, o)).find((e) => e.kind === 'books.employee.onboarding_start' && e.entity_id === mere);
    expect(started.payload).toMatchObject({ milliHoursPerWeek: 22_800 });
    expect(started.payload.hoursPerWeek).toBeUndefined();

    const d = await ok('books.payrollDraft', {
      ...R1,
      employeeIds: [mere],
      earnings: [{ employeeId: mere, type: 'overtime', hours: 2, multiplier: 1.5 }],
    });
    // 5 200 000 ÷ 26 = 200 000; overtime 5 200 000 × 2 × 1.5 ÷ (52 × 22.8) = 13 157.89 → 13 158.
    expect(d.lines[0]).toMatchObject({ grossCents: 213_158 });
    expect(d.lines[0].earnings).toEqual([{ type: 'overtime', category: null, hours: 2, multiplier: 1.5, amountCents: 13_158 }]);
    await signPayRun(t, o, d.id);
    // 2 × 22.8 = 45.6 ordinary hours: annual ⌊45 600 × 4 ÷ 52⌋ = 3 507, personal ⌊45 600 × 2 ÷ 52⌋ = 1 753 milli-hours.
    expect(await accrued(mere)).toEqual([
      ['annual', 3_507],
      ['personal', 1_753],
    ]);
    const r = (await t.post(o.keys.reader, 'books.reports', { type: 'leave_balances', asOf: '2026-07-20' })).body.result;
    // 5 200 000 × 3 507 ÷ (22 800 × 52) = 15 381.58 → 15 382; × 1 753 → 7 688.6 → 7 689.
    expect(r.employees.find((e: { employeeId: string }) => e.employeeId === mere)).toMatchObject({
      hoursPerWeek: 22.8,
      annual: { milliHours: 3_507, valueCents: 15_382 },
      personal: { milliHours: 1_753, valueCents: 7_689 },
      valueCents: 23_071,
    });

    // books.employeeUpdate takes decimal hours too, and refuses a third decimal naming the field, changing nothing.
    const bad = await post('books.employeeUpdate', { id: mere, effectiveFrom: '2026-07-15', hoursPerWeek: 30.405 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe(DECIMALS);
    expect(await stored(mere)).toBe(22_800);
    const changed = await ok('books.employeeUpdate', { id: mere, effectiveFrom: '2026-07-15', hoursPerWeek: 30.4 });
    expect(changed).toMatchObject({ hoursPerWeek: 30.4, change: { changed: ['hoursPerWeek'] } });
    expect(await stored(mere)).toBe(30_400);
    const ev = (await eventsOf(t, o)).filter((e) => e.kind === 'books.employee.update').at(-1);
    expect(ev.payload).toMatchObject({ milliHoursPerWeek: 30_400, changed: ['hoursPerWeek'] });
    const again = await ok('books.employeeUpdate', { id: mere, effectiveFrom: '2026-07-15', hoursPerWeek: 30.4 });
    expect(again.noop).toBe(true);

    const d2 = await ok('books.payrollDraft', {
      ...R2,
      employeeIds: [mere],
      earnings: [{ employeeId: mere, type: 'overtime', hours: 2, multiplier: 1.5 }],
    });
    // 5 200 000 × 3 ÷ (52 × 30.4) = 9 868.42 → 9 868.
    expect(d2.lines[0].earnings[0].amountCents).toBe(9_868);
    expect(d2.lines[0].grossCents).toBe(209_868);
  });

  it('hourly at 22.85 hours, paid weekly: ordinary gross 76 090.5 → 76 091 cents, accrual on 22.85 hours', async () => {
    const toa = await activeEmployee(t, o, TOA);
    expect(await stored(toa)).toBe(22_850);
    const d = await ok('books.payrollDraft', { ...W1, employeeIds: [toa] });
    expect(d.lines[0]).toMatchObject({ grossCents: 76_091, hours: null });
    await signPayRun(t, o, d.id);
    // ⌊22 850 × 4 ÷ 52⌋ = 1 757, ⌊22 850 × 2 ÷ 52⌋ = 878.
    expect(await accrued(toa)).toEqual([
      ['annual', 1_757],
      ['personal', 878],
    ]);
    const r = (await t.post(o.keys.reader, 'books.reports', { type: 'leave_balances', asOf: '2026-07-10' })).body.result;
    // At $33.30: 1 757 × 3 330 ÷ 1000 = 5 850.81 → 5 851; 878 → 2 923.74 → 2 924.
    expect(r.employees.find((e: { employeeId: string }) => e.employeeId === toa)).toMatchObject({
      hoursPerWeek: 22.85,
      annual: { milliHours: 1_757, valueCents: 5_851 },
      personal: { milliHours: 878, valueCents: 2_924 },
    });
  });
});

describe.each(engines)('migration 45: whole hours a week become milli-hours (%s)', (engine) => {
  it('scales the hours already recorded by 1000 under the new column name', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate({ throughId: 44 });
      await db.write((tx) =>
        tx.run(
          `INSERT INTO employees (org_id, id, status, name, email, start_date, employment_basis, pay_frequency, hourly_rate_cents,
             hours_per_week, created_at, updated_at, ledger_id)
           VALUES ('org_a', 'emp_1', 'active', 'N', 'n@example.com', '2026-07-01', 'part_time', 'weekly', 3000, 20,
             '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '1')`,
        ),
      );
      await db.migrate();
      const row = await db.reader.get<{ m: number | string }>("SELECT milli_hours_per_week AS m FROM employees WHERE id = 'emp_1'");
      expect(Number(row?.m)).toBe(20_000);
    } finally {
      await db.close();
      await drop();
    }
  });
});
