/**
 * The super maximum contribution base with converted figures, through HTTP on both engines: the
 * gross the previous software paid (books.openingBalances `payroll`) counts toward the base when
 * the year to date it covers (1 July to the conversion date) lies in the base's period, so an
 * employee near the base gets super only on the room left. Figures by hand: the 2025-26 base is
 * $62,500 a quarter, SG 12%; 2026-27's base is annual, $270,830.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';

/** Salaried $360,000 a year: $13,846.15 a fortnight (36 000 000 ÷ 26 = 1 384 615.38 → 1 384 615 cents). */
const RANGI = { name: 'Rangi Parata', annualSalaryCents: 36_000_000, startDate: '2025-03-03' };
const FORTNIGHT_GROSS = 1_384_615;
const BALANCES = [
  { accountCode: '1000', debitCents: 100_000 },
  { accountCode: '3000', creditCents: 100_000 },
];
const fortnight = (periodStart: string, periodEnd: string, paymentDate: string) => ({
  periodStart,
  periodEnd,
  paymentDate,
  payFrequency: 'fortnightly',
});

describe.each(engines)('maximum contribution base with converted figures (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  const ok = async (o: CreatedOrg, method: string, params: Record<string, unknown>) => {
    const r = await t.post(o.keys.agent, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  /** An organisation that converted on `conversionDate` with Rangi's year to date gross. */
  async function converted(conversionDate: string, grossCents: number) {
    const o = await t.org();
    const id = await activeEmployee(t, o, RANGI);
    await ok(o, 'books.openingBalances', {
      conversionDate,
      accounts: BALANCES,
      payroll: { employees: [{ employeeId: id, grossCents, paygWithheldCents: 0, superGuaranteeCents: 0 }] },
    });
    return { o, id };
  }

  it('a conversion in the first quarter: the carried-in gross fills the quarter, super only on the room left, then none', async () => {
    const { o, id } = await converted('2025-08-31', 6_000_000);
    // Room in July–September: 6 250 000 − 6 000 000 = 250 000 cents; 12% is 30 000.
    const first = await ok(o, 'books.payrollDraft', { ...fortnight('2025-09-01', '2025-09-14', '2025-09-17'), employeeIds: [id] });
    expect(first.lines[0]).toMatchObject({ grossCents: FORTNIGHT_GROSS, superCents: 30_000 });
    await signPayRun(t, o, first.id);
    // The next run in the same quarter: the base is used up.
    const second = await ok(o, 'books.payrollDraft', { ...fortnight('2025-09-15', '2025-09-28', '2025-09-30'), employeeIds: [id] });
    expect(second.lines[0]).toMatchObject({ grossCents: FORTNIGHT_GROSS, superCents: 0 });
    await signPayRun(t, o, second.id);
    // A new quarter starts afresh: 12% of the whole gross, 166 153.8 → 166 154.
    const october = await ok(o, 'books.payrollDraft', { ...fortnight('2025-09-29', '2025-10-12', '2025-10-15'), employeeIds: [id] });
    expect(october.lines[0]).toMatchObject({ superCents: 166_154 });
  });

  it('a conversion in a later quarter: the year to date spans earlier quarters, so it is not counted against this one', async () => {
    const { o, id } = await converted('2025-11-30', 6_000_000);
    const d = await ok(o, 'books.payrollDraft', { ...fortnight('2025-12-01', '2025-12-14', '2025-12-17'), employeeIds: [id] });
    expect(d.lines[0]).toMatchObject({ grossCents: FORTNIGHT_GROSS, superCents: 166_154 });
  });

  it('an annual base (2026-27): the year to date counts wherever the conversion falls in the year', async () => {
    const { o, id } = await converted('2026-08-31', 26_000_000);
    // Room: 27 083 000 − 26 000 000 = 1 083 000 cents; SG 12% is 129 960.
    const d = await ok(o, 'books.payrollDraft', { ...fortnight('2026-09-01', '2026-09-14', '2026-09-16'), employeeIds: [id] });
    expect(d.lines[0]).toMatchObject({ grossCents: FORTNIGHT_GROSS, superCents: 129_960 });
  });
});
