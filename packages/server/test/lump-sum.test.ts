/**
 * PAYG on a payment spread over the year (lump-sum.ts): the ATO's own worked example for Method A,
 * then the edges the method names (nil when negative, the top marginal rate as a ceiling, Scale 4).
 */
import { describe, expect, it } from 'vitest';
import { lumpSumWithholding } from '../src/domain/payroll/lump-sum.js';
import { withholding } from '../src/domain/payroll/withholding.js';

const base = { period: 'weekly', paymentDate: '2024-08-01', scale: 2, residency: 'resident' } as const;

describe('lumpSumWithholding', () => {
  it("matches the ATO's worked example: $900 bonus on $1,400 a week withholds $260 ($277 − $272, × 52)", () => {
    expect(withholding({ ...base, grossCents: 140_000 }).paygCents).toBe(27_200);
    expect(withholding({ ...base, grossCents: 141_700 }).paygCents).toBe(27_700);
    expect(lumpSumWithholding({ ...base, normalGrossCents: 140_000, additionalCents: 90_000 })).toBe(26_000);
  });

  it('ignores cents in normal earnings and in the spread share', () => {
    // $1,400.99 is taxed as $1,400; $900.99 ÷ 52 = $17.32…, taken as $17.
    expect(lumpSumWithholding({ ...base, normalGrossCents: 140_099, additionalCents: 90_099 })).toBe(26_000);
  });

  it('is nil for no payment, and never more than 47% of the payment', () => {
    expect(lumpSumWithholding({ ...base, normalGrossCents: 140_000, additionalCents: 0 })).toBe(0);
    // A $100 payment on a low wage: the spread ($1) may cross a rounding step; the ceiling is $47.
    for (let normal = 0; normal <= 400_000; normal += 7_300) {
      const w = lumpSumWithholding({ ...base, normalGrossCents: normal, additionalCents: 10_000 });
      expect(w).toBeGreaterThanOrEqual(0);
      expect(w).toBeLessThanOrEqual(4_700);
      expect(w % 100).toBe(0);
    }
  });

  it('spreads over the periods of the pay frequency', () => {
    const fortnightly = lumpSumWithholding({ ...base, period: 'fortnightly', normalGrossCents: 280_000, additionalCents: 90_000 });
    const onNormal = withholding({ ...base, period: 'fortnightly', grossCents: 280_000 }).paygCents;
    const onBoth = withholding({ ...base, period: 'fortnightly', grossCents: 280_000 + 3_400 }).paygCents; // $900 ÷ 26 = $34
    expect(fortnightly).toBe((onBoth - onNormal) * 26);
  });

  it('takes Scale 4 (no TFN) at its flat rate on the payment itself', () => {
    expect(lumpSumWithholding({ ...base, scale: 4, normalGrossCents: 140_000, additionalCents: 90_000 })).toBe(
      withholding({ ...base, scale: 4, grossCents: 90_000 }).paygCents,
    );
  });
});
