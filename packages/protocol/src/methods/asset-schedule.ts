import { z } from 'zod';
import { TAX_TREATMENTS } from './assets.js';

/**
 * books.reports depreciation_schedule: for one income year (1 July to 30 June), each fixed asset's
 * book depreciation beside its tax deduction, and the small business pool. Book figures come from
 * the register's postings (runs and disposals); tax figures are computed from each asset's cost,
 * first-use date and tax treatment, and post nothing.
 */
const int = () => z.number().int();

/** A written-down value rolled over the year: opening + additions − depreciation − disposals = closing. */
const bookRoll = z.object({
  openingCents: int(),
  additionsCents: int(),
  depreciationCents: int(),
  disposalsCents: int(),
  closingCents: int(),
});
const taxRoll = z.object({ openingCents: int(), additionsCents: int(), deductionCents: int(), disposalsCents: int(), closingCents: int() });

export const depreciationScheduleReport = z.object({
  type: z.literal('depreciation_schedule'),
  from: z.string(),
  to: z.string(),
  /** The income year, e.g. 2025-26. */
  incomeYear: z.string(),
  /** The year's instant asset write-off and low pool balance threshold (costs below it), GST-exclusive. */
  thresholdCents: int(),
  assets: z.array(
    z.object({
      assetId: z.string(),
      name: z.string(),
      status: z.enum(['pending', 'active', 'disposed']),
      acquiredDate: z.string(),
      costCents: int(),
      taxTreatment: z.enum(TAX_TREATMENTS),
      /** How the tax schedule takes it: an instant write-off not below its year's threshold is pooled. */
      taxMethod: z.enum(['book', 'instant_write_off', 'pool']),
      book: bookRoll,
      /** Null when pooled: its deduction is the pool's. */
      tax: taxRoll.nullable(),
      /** Disposed of in the year: GST-exclusive proceeds and, unless pooled, proceeds − tax written-down value (assessable when positive). */
      disposal: z.object({ date: z.string(), terminationValueCents: int(), taxBalancingCents: int().nullable() }).nullable(),
    }),
  ),
  /** 15 % of the year's additions and 30 % of the opening balance; the whole balance when below the threshold. */
  pool: z.object({
    openingCents: int(),
    additionsCents: int(),
    disposalsCents: int(),
    deductionCents: int(),
    closingCents: int(),
    /** Termination values beyond the pool's balance: assessable income, the pool closing at 0. */
    assessableCents: int(),
    lowBalanceWriteOff: z.boolean(),
  }),
  totals: z.object({ bookDepreciationCents: int(), taxDeductionCents: int() }),
});
