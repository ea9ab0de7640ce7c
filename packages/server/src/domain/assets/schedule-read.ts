import type { Queryable } from '../../storage/types.js';
import { ASSET_COLUMNS, decodeAsset, type AssetRow } from './store.js';
import { incomeYearLabel, incomeYearOf, poolFor, taxMethodOf, thresholdCents, type PooledAsset, type TaxMethod } from './tax-schedule.js';

/**
 * books.reports depreciation_schedule for the income year from..to (1 July to 30 June, checked by
 * the params schema). Book figures per asset from the register's 1510 amounts: opening written-down
 * value (cost less depreciation before from; 0 when started in the year), additions (the cost of
 * one started in the year, less the depreciation carried in at a conversion), the year's
 * depreciation (runs and disposals; not the amount carried in), the written-down value leaving on
 * disposal, and closing = opening + additions − depreciation − disposals. Tax figures beside them
 * (tax-schedule.ts). Assets of a returned bill never were assets: left out.
 */

export interface Roll {
  openingCents: number;
  additionsCents: number;
  disposalsCents: number;
  closingCents: number;
}

async function sums(q: Queryable, orgId: string, where: string, params: readonly string[]): Promise<Map<string, number>> {
  const rows = await q.all<{ asset_id: string; total: unknown }>(
    `SELECT asset_id, SUM(amount_cents) AS total FROM asset_depreciation WHERE org_id = ? AND ${where} GROUP BY asset_id`,
    [orgId, ...params],
  );
  return new Map(rows.map((r) => [r.asset_id, Number(r.total ?? 0)]));
}

const terminationValue = (r: AssetRow) => (r.proceeds_cents ?? 0) - (r.gst_cents ?? 0);
const firstUsed = (r: AssetRow) => r.acquired_on ?? r.start_date;

export async function depreciationSchedule(q: Queryable, orgId: string, from: string, to: string) {
  const year = incomeYearOf(from);
  const rows = (
    await q.all<AssetRow>(
      `SELECT ${ASSET_COLUMNS} FROM assets WHERE org_id = ? AND status <> 'returned' AND start_date <= ? ORDER BY start_date, id`,
      [orgId, to],
    )
  ).map(decodeAsset);
  const before = await sums(q, orgId, 'date < ?', [from]);
  const during = await sums(q, orgId, 'date >= ? AND date <= ?', [from, to]);
  const disposedIn = (r: AssetRow) => r.status === 'disposed' && r.closed_on !== null && r.closed_on >= from && r.closed_on <= to;
  const methodOf = (r: AssetRow): TaxMethod => taxMethodOf(r.tax_treatment, r.cost_cents, incomeYearOf(firstUsed(r)));

  const pooled: PooledAsset[] = rows
    .filter((r) => methodOf(r) === 'pool')
    .map((r) => ({
      firstUsedYear: incomeYearOf(firstUsed(r)),
      costCents: r.cost_cents,
      disposal:
        r.status === 'disposed' && r.closed_on !== null
          ? { year: incomeYearOf(r.closed_on), terminationValueCents: terminationValue(r) }
          : null,
    }));
  const pool = poolFor(year, pooled);

  const listed = rows.filter((r) => !(r.status === 'disposed' && r.closed_on !== null && r.closed_on < from));
  const assets = listed.map((r) => {
    const startedBefore = r.start_date < from;
    const carriedIn = startedBefore ? 0 : r.opening_accumulated_cents;
    const depreciationCents = (during.get(r.id) ?? 0) - carriedIn;
    const openingCents = startedBefore ? r.cost_cents - (before.get(r.id) ?? 0) : 0;
    const additionsCents = startedBefore ? 0 : r.cost_cents - carriedIn;
    const sold = disposedIn(r);
    const disposalsCents = sold ? r.cost_cents - r.accumulated_cents : 0;
    const book = {
      openingCents,
      additionsCents,
      depreciationCents,
      disposalsCents,
      closingCents: openingCents + additionsCents - depreciationCents - disposalsCents,
    };
    const taxMethod = methodOf(r);
    let tax: (Roll & { deductionCents: number }) | null = null;
    if (taxMethod === 'book') {
      tax = { openingCents, additionsCents, deductionCents: depreciationCents, disposalsCents, closingCents: book.closingCents };
    } else if (taxMethod === 'instant_write_off') {
      const added = incomeYearOf(firstUsed(r)) === year ? r.cost_cents : 0;
      tax = { openingCents: 0, additionsCents: added, deductionCents: added, disposalsCents: 0, closingCents: 0 };
    }
    const status: 'pending' | 'active' | 'disposed' =
      r.status === 'pending' ? 'pending' : r.status === 'disposed' && r.closed_on !== null && r.closed_on <= to ? 'disposed' : 'active';
    return {
      assetId: r.id,
      name: r.name,
      status,
      acquiredDate: firstUsed(r),
      costCents: r.cost_cents,
      taxTreatment: r.tax_treatment,
      taxMethod,
      book,
      tax,
      disposal:
        sold && r.closed_on !== null
          ? {
              date: r.closed_on,
              terminationValueCents: terminationValue(r),
              taxBalancingCents: tax === null ? null : terminationValue(r) - tax.disposalsCents,
            }
          : null,
    };
  });
  return {
    type: 'depreciation_schedule' as const,
    from,
    to,
    incomeYear: incomeYearLabel(year),
    thresholdCents: thresholdCents(year),
    assets,
    pool,
    totals: {
      bookDepreciationCents: assets.reduce((s, a) => s + a.book.depreciationCents, 0),
      taxDeductionCents: assets.reduce((s, a) => s + (a.tax?.deductionCents ?? 0), 0) + pool.deductionCents,
    },
  };
}
