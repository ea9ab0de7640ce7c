/**
 * ATO Schedule 1 withholding, super guarantee, gross and leave accrual, table-driven
 * over schedule1.json (docs/reference/payg-withholding.md): every ATO worked example, every
 * computed example and all 576 sample rows, to the dollar. Pure functions: no server, no engine.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCHEDULE1 } from '../src/domain/payroll/schedule1-data.js';
import type { PayPeriod } from '../src/domain/payroll/schedule1-types.js';
import {
  bandOf,
  coefficientSetOn,
  offsetReductionDollars,
  periodDollars,
  scaleRows,
  weeklyEarningsCents,
  weeklyMicroDollars,
  withholding,
  type TaxScale,
} from '../src/domain/payroll/withholding.js';
import { financialYearOf, mcbOn, superGuarantee, superRateOn } from '../src/domain/payroll/super.js';
import { annualEquivalentCents, grossForPeriod } from '../src/domain/payroll/gross.js';
import { accrualForPay, entitlementMilliHours, ordinaryMilliHours } from '../src/domain/payroll/leave-accrual.js';
import { divHalfUp, floorDiv, scaled } from '../src/domain/payroll/decimal.js';
import { payLine } from '../src/domain/payroll/pay-line.js';
import { stpTaxTreatmentCode, taxScaleFor } from '../src/domain/people/tax-treatment.js';

interface Data {
  atoWorkedExamples: {
    coefficientSet?: string;
    scale?: number;
    period?: PayPeriod;
    input: Record<string, string>;
    expected: Record<string, string | number>;
  }[];
  computedExamples: { cases: { coefficientSet: string; scale: 1 | 2; period: PayPeriod; earnings: string; withholding: number }[] };
  sampleData: Record<string, Record<string, Record<string, [string, number][]>>>;
  superannuationGuarantee: { rateByPaymentDate: { from: string; to: string | null; rate: string }[] };
}

const data = JSON.parse(readFileSync(new URL('../src/domain/payroll/schedule1.json', import.meta.url), 'utf8')) as Data;

/** "1103.45" → 110345 cents, exactly. */
const cents = (dollars: string) => Number(scaled(dollars, 2));
/** A payment date on which a set is in force. */
const dateIn = (setId: string) => ({ '2020-10-13': '2022-04-20', '2024-07-01': '2025-03-01', '2026-07-01': '2026-07-02' })[setId] ?? setId;

describe('the committed data module matches the committed JSON (scripts/gen-schedule1.mjs)', () => {
  it("every coefficient set, scale 4 rate and SG rate is the JSON's, as decimal strings", () => {
    const raw = JSON.parse(readFileSync(new URL('../src/domain/payroll/schedule1.json', import.meta.url), 'utf8'));
    expect(SCHEDULE1.coefficientSets.map((s) => s.id)).toEqual(raw.coefficientSets.map((s: { id: string }) => s.id));
    for (const set of raw.coefficientSets) {
      const mine = SCHEDULE1.coefficientSets.find((s) => s.id === set.id)!;
      expect(mine.scales['1']).toEqual(
        set.scale1_noTaxFreeThreshold.map((r: any) => ({ lessThan: r.weeklyEarningsLessThan, a: r.a, b: r.b })),
      );
      expect(mine.scales['2']).toEqual(
        set.scale2_taxFreeThresholdClaimed.map((r: any) => ({ lessThan: r.weeklyEarningsLessThan, a: r.a, b: r.b })),
      );
      expect(mine.confirmed).toBe(set.id !== '2026-07-01');
    }
    expect(SCHEDULE1.scale4).toEqual({ resident: raw.scale4.residentRate, foreign: raw.scale4.foreignResidentRate });
    expect(SCHEDULE1.superGuaranteeRates).toEqual(
      raw.superannuationGuarantee.rateByPaymentDate.map((r: any) => ({ from: r.from, to: r.to, rate: r.rate })),
    );
  });
});

describe('ATO worked examples (published, 2020-10-13 coefficients)', () => {
  it('weekly earnings: $467.59 + $9.50 allowance → x = $477.99 (cents dropped, 99 cents added)', () => {
    const ex = data.atoWorkedExamples[0]!;
    const gross = cents(ex.input.weeklyIncome!) + cents(ex.input.allowanceSubjectToWithholding!);
    expect(weeklyEarningsCents(gross, 'weekly')).toBe(BigInt(cents(String(ex.expected.x))));
  });

  it.each(data.atoWorkedExamples.slice(1).map((ex, i) => [i + 1, ex] as const))(
    'example %i: x, a, b, unrounded y and every amount',
    (_n, ex) => {
      const period = ex.period!;
      const date = dateIn(ex.coefficientSet!);
      const gross = cents(ex.input.earnings!);
      const x = weeklyEarningsCents(gross, period);
      expect(x).toBe(BigInt(cents(String(ex.expected.x))));
      const { set, rows } = scaleRows(date, ex.scale as 1 | 2 | 3 | 5 | 6);
      expect(set.id).toBe(ex.coefficientSet);
      const band = bandOf(rows, x);
      expect([band.a, band.b]).toEqual([ex.expected.a, ex.expected.b]);
      // y to the 4 decimal places the ATO prints: 10^6·y rounded half up to 10^2.
      const micro = weeklyMicroDollars(band, x);
      expect(divHalfUp(micro, 100n)).toBe(scaled(String(ex.expected.yUnrounded), 4));
      const offsets = ex.input.taxOffsetsClaimedAnnual === undefined ? undefined : cents(ex.input.taxOffsetsClaimedAnnual);
      const w = withholding({
        grossCents: gross,
        period,
        paymentDate: date,
        scale: ex.scale as TaxScale,
        ...(offsets ? { taxOffsetsAnnualCents: offsets } : {}),
      });
      expect(w.weeklyDollars).toBe(ex.expected.weeklyWithholding);
      if (ex.expected.fortnightlyWithholding !== undefined) {
        expect(Number(periodDollars(BigInt(w.weeklyDollars!), 'fortnightly'))).toBe(ex.expected.fortnightlyWithholding);
      }
      if (ex.expected.offsetReduction !== undefined) {
        expect(w.offsetReductionDollars).toBe(ex.expected.offsetReduction);
        expect(w.paygCents).toBe(Number(ex.expected.netFortnightlyWithholding) * 100);
      } else {
        // Example 1's $20 Medicare levy adjustment (→ $178) needs the WLA formulas, which the data
        // marks out of scope (docs/books.md): the Schedule 1 amount is the $198 before it.
        expect(w.paygCents).toBe(Number(ex.expected.weeklyWithholding) * 100);
      }
    },
  );
});

describe('computed examples (2024-07-01 and 2026-07-01, weekly to quarterly)', () => {
  it.each(data.computedExamples.cases.map((c) => [c.coefficientSet, c.scale, c.period, c.earnings, c.withholding] as const))(
    '%s Scale %i %s $%s → $%i',
    (set, scale, period, earnings, expected) => {
      const w = withholding({ grossCents: cents(earnings), period, paymentDate: dateIn(set), scale });
      expect(w.coefficientSet).toBe(set);
      expect(w.paygCents).toBe(expected * 100);
    },
  );
});

describe('ATO sample data: all 576 rows to the dollar', () => {
  const rows: [string, 1 | 2, PayPeriod, string, number][] = [];
  for (const [set, scales] of Object.entries(data.sampleData)) {
    if (set === 'note') continue;
    for (const [scale, periods] of Object.entries(scales)) {
      for (const [period, list] of Object.entries(periods)) {
        for (const [earnings, expected] of list) rows.push([set, Number(scale) as 1 | 2, period as PayPeriod, earnings, expected]);
      }
    }
  }
  it('has 576 rows', () => expect(rows).toHaveLength(576));
  it.each(rows)('%s Scale %i %s $%s → $%i', (set, scale, period, earnings, expected) => {
    const w = withholding({ grossCents: cents(earnings), period, paymentDate: dateIn(set), scale });
    expect(w.coefficientSet).toBe(set);
    expect(w.paygCents).toBe(expected * 100);
  });
});

describe('coefficient sets by payment date (the date paid, not the period)', () => {
  it.each([
    ['2020-10-13', '2020-10-13'],
    ['2024-06-30', '2020-10-13'],
    ['2024-07-01', '2024-07-01'],
    ['2026-06-30', '2024-07-01'],
    ['2026-07-01', '2026-07-01'],
    ['2027-06-30', '2026-07-01'],
  ])('a payment on %s uses %s', (date, set) => expect(coefficientSetOn(date).id).toBe(set));

  it('refuses a payment from 1 July 2027, when Schedule 1 changes again (the 14% step)', () => {
    expect(() => coefficientSetOn('2027-07-01')).toThrow(/the data ends on 2027-06-30/);
  });

  it('refuses a payment before the earliest set', () => expect(() => coefficientSetOn('2020-10-12')).toThrow(/no Schedule 1 coefficients/));

  it('the 2026-07-01 set is marked unconfirmed on every result', () => {
    expect(withholding({ grossCents: 125_000, period: 'weekly', paymentDate: '2026-07-02', scale: 2 }).confirmed).toBe(false);
    expect(withholding({ grossCents: 125_000, period: 'weekly', paymentDate: '2026-06-30', scale: 2 }).confirmed).toBe(true);
  });

  it('Scale 3 (foreign resident) from 1 July 2026 carries the 2024 coefficients forward, flagged unconfirmed', () => {
    const w = withholding({ grossCents: 300_000, period: 'weekly', paymentDate: '2026-08-01', scale: 3 });
    // x = 3000.99 → 0.3700 × 3000.99 − 181.7308 = 928.6355 → $929
    expect(w).toMatchObject({ coefficientSet: '2024-07-01', confirmed: false, paygCents: 92_900 });
    expect(() => withholding({ grossCents: 100_000, period: 'weekly', paymentDate: '2026-08-01', scale: 5 })).toThrow(/no Scale 5/);
  });
});

describe('rules of Schedule 1 in integer arithmetic', () => {
  it.each([
    // [gross cents, period, x cents]
    [47_709, 'weekly', 47_799],
    [0, 'weekly', 99],
    [250_000, 'fortnightly', 125_099],
    [250_099, 'fortnightly', 125_099],
    [650_033, 'monthly', 150_099],
    [650_034, 'monthly', 150_099],
    [1_800_000, 'quarterly', 138_499],
  ] as const)('weekly earnings of %i cents %s → x %i', (gross, period, x) => expect(weeklyEarningsCents(gross, period)).toBe(BigInt(x)));

  it('rounds y half up from the unrounded value: exactly 50 cents goes up, 49.99 down', () => {
    const row = { lessThan: null, a: '1.0000', b: '0.4900' };
    // y = 1 × 10.99 − 0.49 = 10.50 → 11
    expect(divHalfUp(weeklyMicroDollars(row, 1_099n), 1_000_000n)).toBe(11n);
    const below = { lessThan: null, a: '1.0000', b: '0.4901' };
    expect(divHalfUp(weeklyMicroDollars(below, 1_099n), 1_000_000n)).toBe(10n);
  });

  it('a negative y is nothing withheld (2024 Scale 1 second band has b < 0 on purpose)', () => {
    expect(withholding({ grossCents: 0, period: 'weekly', paymentDate: '2025-01-01', scale: 2 }).paygCents).toBe(0);
    expect(scaled('-0.6702', 4)).toBe(-6702n);
  });

  it('monthly: rounded weekly amount × 13 ÷ 3, half up to the dollar', () => {
    expect(periodDollars(304n, 'monthly')).toBe(1_317n); // 1,317.33
    expect(periodDollars(305n, 'monthly')).toBe(1_322n); // 1,321.67
    expect(periodDollars(303n, 'quarterly')).toBe(3_939n);
  });

  it('tax offsets: 3.8% × $1,645 = $62.51 → $63 a fortnight; only on scales 2, 5, 6', () => {
    expect(offsetReductionDollars(164_500, 'fortnightly')).toBe(63n);
    expect(offsetReductionDollars(164_500, 'weekly')).toBe(31n); // 1.9% = 31.255
    expect(() =>
      withholding({ grossCents: 100_000, period: 'weekly', paymentDate: '2025-01-01', scale: 1, taxOffsetsAnnualCents: 100 }),
    ).toThrow(/scales 2, 5 and 6/);
  });

  it('Scale 4 (no TFN): 47% resident / 45% foreign of the earnings with cents ignored, result cents dropped', () => {
    expect(withholding({ grossCents: 123_499, period: 'fortnightly', paymentDate: '2026-07-02', scale: 4 }).paygCents).toBe(57_900); // 1234 × 0.47 = 579.98
    expect(
      withholding({ grossCents: 123_499, period: 'monthly', paymentDate: '2026-07-02', scale: 4, residency: 'foreign' }).paygCents,
    ).toBe(55_500); // 555.30
  });

  it('refuses negative or unsafe earnings', () => {
    expect(() => withholding({ grossCents: -1, period: 'weekly', paymentDate: '2025-01-01', scale: 2 })).toThrow();
    expect(() => withholding({ grossCents: 0.5, period: 'weekly', paymentDate: '2025-01-01', scale: 2 })).toThrow();
  });

  it('decimal helpers are exact and floor toward −∞', () => {
    expect(scaled('0.115', 6)).toBe(115_000n);
    expect(() => scaled('0.12345', 4)).toThrow(/more than 4/);
    expect(floorDiv(-1n, 2n)).toBe(-1n);
    expect(divHalfUp(5n, 10n)).toBe(1n);
    expect(divHalfUp(-5n, 10n)).toBe(0n);
  });
});

describe('the fixtures payroll (docs/reference/payg-withholding.md, Harbourside Joinery)', () => {
  it.each([
    [280_000, 2, '2026-07-02', 53_400],
    [230_000, 2, '2026-07-02', 37_200],
    [145_000, 1, '2026-07-02', 32_000],
    [280_000, 2, '2026-06-18', 54_400],
    [230_000, 2, '2026-06-18', 38_200],
    [145_000, 1, '2026-06-18', 33_200],
  ] as const)('fortnightly $%i cents, Scale %i, paid %s → %i cents', (gross, scale, date, payg) => {
    expect(withholding({ grossCents: gross, period: 'fortnightly', paymentDate: date, scale }).paygCents).toBe(payg);
  });
  it('super at 12% on $6,550 is $786', () =>
    expect(superGuarantee({ grossCents: 655_000, paymentDate: '2026-07-02' }).superCents).toBe(78_600));

  it('pay lines from annual salaries: totals $6,550 gross, $1,226 PAYG, $786 super, net $5,324 (paid 2 July 2026)', () => {
    const staff = [
      { annualSalaryCents: 7_280_000, scale: 2 }, // $2,800 a fortnight
      { annualSalaryCents: 5_980_000, scale: 2 }, // $2,300
      { annualSalaryCents: 3_770_000, scale: 1 }, // $1,450
    ] as const;
    const lines = staff.map((s) =>
      payLine({
        basis: { annualSalaryCents: s.annualSalaryCents },
        frequency: 'fortnightly',
        paymentDate: '2026-07-02',
        scale: s.scale,
        residency: 'resident',
      }),
    );
    expect(lines.map((l) => [l.grossCents, l.paygCents, l.superCents, l.netCents])).toEqual([
      [280_000, 53_400, 33_600, 226_600],
      [230_000, 37_200, 27_600, 192_800],
      [145_000, 32_000, 17_400, 113_000],
    ]);
    const total = (k: 'grossCents' | 'paygCents' | 'superCents' | 'netCents') => lines.reduce((a, l) => a + l[k], 0);
    expect([total('grossCents'), total('paygCents'), total('superCents'), total('netCents')]).toEqual([655_000, 122_600, 78_600, 532_400]);
    // 2026-07-01 coefficients and the 2026-27 MCB are unconfirmed: every line says so.
    expect(lines.every((l) => l.coefficientSet === '2026-07-01' && !l.confirmed)).toBe(true);
    // Before 1 July 2026: $1,258 PAYG, net $5,292.
    const june = staff.map((s) =>
      payLine({
        basis: { annualSalaryCents: s.annualSalaryCents },
        frequency: 'fortnightly',
        paymentDate: '2026-06-18',
        scale: s.scale,
        residency: 'resident',
      }),
    );
    expect(june.reduce((a, l) => a + l.paygCents, 0)).toBe(125_800);
    expect(june.reduce((a, l) => a + l.netCents, 0)).toBe(529_200);
    expect(june.every((l) => l.confirmed)).toBe(true);
  });

  it('an hourly casual with hours given; no TFN → Scale 4', () => {
    const l = payLine({
      basis: { hourlyRateCents: 4_000, hoursPerWeek: 20 },
      frequency: 'weekly',
      paymentDate: '2026-07-02',
      scale: 4,
      residency: 'resident',
      hours: 25,
    });
    expect(l).toMatchObject({ grossCents: 100_000, paygCents: 47_000, superCents: 12_000, netCents: 53_000, coefficientSet: null });
  });
});

describe('super guarantee by payment date', () => {
  const rateRows: [string, string][] = data.superannuationGuarantee.rateByPaymentDate.flatMap((r): [string, string][] => [
    [r.from, r.rate],
    ...(r.to ? [[r.to, r.rate] as [string, string]] : []),
  ]);
  it.each(rateRows)('paid on %s: rate %s', (date, rate) => expect(superRateOn(date)).toBe(rate));

  it('the rate follows the date paid: wages for June 2025 paid on 1 July 2025 attract 12%', () => {
    expect(superGuarantee({ grossCents: 100_000, paymentDate: '2025-06-30' }).superCents).toBe(11_500);
    expect(superGuarantee({ grossCents: 100_000, paymentDate: '2025-07-01' }).superCents).toBe(12_000);
  });

  it('half up to a cent: 11.5% of $123.45 = $14.19675 → $14.20; 11% of $0.05 = 0.55c → 1c', () => {
    expect(superGuarantee({ grossCents: 12_345, paymentDate: '2024-09-01' }).superCents).toBe(1_420);
    expect(superGuarantee({ grossCents: 5, paymentDate: '2024-01-01' }).superCents).toBe(1);
  });

  it('no rate before 1 July 2023 in the data: refused', () => expect(() => superRateOn('2023-06-30')).toThrow(/no super guarantee rate/));

  it('maximum contribution base: quarterly to June 2026, annual (unconfirmed) from July 2026', () => {
    expect(mcbOn('2025-08-15')).toEqual({ period: 'quarter', from: '2025-07-01', to: '2025-09-30', maxCents: 6_250_000, confirmed: true });
    expect(mcbOn('2025-02-15')).toMatchObject({ period: 'quarter', from: '2025-01-01', to: '2025-03-31', maxCents: 6_507_000 });
    expect(mcbOn('2026-07-02')).toEqual({ period: 'year', from: '2026-07-01', to: '2027-06-30', maxCents: 27_083_000, confirmed: false });
    // $60,000 already paid this quarter, $5,000 more: SG on the $2,500 still under $62,500.
    const sg = superGuarantee({ grossCents: 500_000, paymentDate: '2025-08-15', earningsBeforeCents: 6_000_000 });
    expect(sg).toMatchObject({ baseCents: 250_000, superCents: 30_000 });
    expect(superGuarantee({ grossCents: 500_000, paymentDate: '2025-08-15', earningsBeforeCents: 7_000_000 }).superCents).toBe(0);
    expect(financialYearOf('2026-06-30')).toBe('2025-26');
    expect(financialYearOf('2026-07-01')).toBe('2026-27');
  });
});

describe('gross per period (salary ÷ 52, 26 or 12, half up; hourly rate × hours)', () => {
  it.each([
    [{ annualSalaryCents: 8_500_000 }, 'weekly', 163_462], // 163,461.538…
    [{ annualSalaryCents: 8_500_000 }, 'fortnightly', 326_923], // 326,923.077
    [{ annualSalaryCents: 8_500_000 }, 'monthly', 708_333], // 708,333.33
    [{ annualSalaryCents: 26 }, 'weekly', 1], // 0.5 → 1, half up
    [{ hourlyRateCents: 3_250, hoursPerWeek: 38 }, 'weekly', 123_500],
    [{ hourlyRateCents: 3_250, hoursPerWeek: 38 }, 'fortnightly', 247_000],
    [{ hourlyRateCents: 3_250, hoursPerWeek: 38 }, 'monthly', 535_167], // 3250 × 38 × 52 / 12 = 535,166.67
    [{ hourlyRateCents: 3_333, hoursPerWeek: 1 }, 'monthly', 14_443], // 3333 × 52 / 12 = 14,443
    [{ hourlyRateCents: 1, hoursPerWeek: 3 }, 'monthly', 13], // 156 / 12 = 13
    [{ hourlyRateCents: 1, hoursPerWeek: 1 }, 'monthly', 4], // 52 / 12 = 4.33 → 4
  ] as const)('%o %s → %i cents', (basis, freq, gross) => expect(grossForPeriod(basis, freq)).toBe(gross));

  it('hours given replace the ordinary hours for hourly staff', () => {
    expect(grossForPeriod({ hourlyRateCents: 3_250, hoursPerWeek: 38 }, 'fortnightly', 70)).toBe(227_500);
    expect(annualEquivalentCents({ hourlyRateCents: 3_250, hoursPerWeek: 38 })).toBe(6_422_000);
  });
});

describe('leave accrual rules (NES: annual 4 weeks, personal 10 days a year, pro rata; none for casuals)', () => {
  it('a year of 38-hour weeks accrues 152 hours annual and 76 hours personal', () => {
    expect(entitlementMilliHours('annual', 52 * 38_000)).toBe(152_000);
    expect(entitlementMilliHours('personal', 52 * 38_000)).toBe(76_000);
  });

  it('weekly accruals sum to the yearly entitlement exactly (no rounding drift)', () => {
    let before = 0;
    let annual = 0;
    let personal = 0;
    for (let week = 0; week < 52; week += 1) {
      const a = accrualForPay('full_time', before, ordinaryMilliHours(38, 'weekly'));
      before += ordinaryMilliHours(38, 'weekly');
      annual += a.annualMilliHours;
      personal += a.personalMilliHours;
    }
    expect([annual, personal]).toEqual([152_000, 76_000]);
    // One week: 38 × 4/52 = 2.923… hours, floored to the milli-hour.
    expect(accrualForPay('full_time', 0, 38_000)).toEqual({ annualMilliHours: 2_923, personalMilliHours: 1_461 });
  });

  it('part-time pro rata: 20 hours a week, fortnightly, a year → 80 h annual, 40 h personal', () => {
    let before = 0;
    let annual = 0;
    for (let f = 0; f < 26; f += 1) {
      annual += accrualForPay('part_time', before, ordinaryMilliHours(20, 'fortnightly')).annualMilliHours;
      before += ordinaryMilliHours(20, 'fortnightly');
    }
    expect(annual).toBe(80_000);
    expect(entitlementMilliHours('personal', before)).toBe(40_000);
  });

  it('monthly ordinary hours are hoursPerWeek × 52 ÷ 12 (floored to the milli-hour)', () => {
    expect(ordinaryMilliHours(38, 'monthly')).toBe(164_666);
    expect(ordinaryMilliHours(38, 'fortnightly')).toBe(76_000);
  });

  it('casuals accrue nothing', () => expect(accrualForPay('casual', 0, 38_000)).toEqual({ annualMilliHours: 0, personalMilliHours: 0 }));
});

describe('tax scale for an employee (residency, threshold claim, TFN quoted) and the ATO not-quoted codes', () => {
  const d = (tfn: string, residency: 'resident' | 'foreign', claimsTaxFreeThreshold: boolean) => ({
    tfn,
    residency,
    claimsTaxFreeThreshold,
    declaredOn: '2026-07-01',
  });
  it.each([
    ['876543210', 'resident', true, 2],
    ['876543210', 'resident', false, 1],
    ['876543210', 'foreign', false, 3],
    ['000000000', 'resident', true, 4],
    ['987654321', 'resident', true, 4],
    ['333333333', 'resident', true, 2],
    ['444444444', 'resident', false, 1],
  ] as const)('TFN %s, %s, claims threshold %s → Scale %i', (tfn, residency, claims, scale) => {
    expect(taxScaleFor(d(tfn, residency, claims), '2026-07-15')).toBe(scale);
  });
  it.each([
    ['876543210', 'resident', true, 'RTXXXX'],
    ['876543210', 'resident', false, 'RNXXXX'],
    ['876543210', 'foreign', false, 'FFXXXX'],
    ['000000000', 'resident', true, 'NAXXXX'],
    ['000000000', 'foreign', false, 'NFXXXX'],
  ] as const)('STP tax treatment: TFN %s, %s, claims %s → %s', (tfn, residency, claims, code) => {
    expect(stpTaxTreatmentCode(d(tfn, residency, claims), '2026-07-15')).toBe(code);
  });

  it('111111111 (TFN applied for): the ordinary scale for 28 days from the declaration, then Scale 4', () => {
    expect(taxScaleFor(d('111111111', 'resident', true), '2026-07-29')).toBe(2);
    expect(taxScaleFor(d('111111111', 'resident', true), '2026-07-30')).toBe(4);
  });
});
