import type { assets } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { orgToday } from '../../clock.js';
import { ASSET_COLUMNS, decodeAsset, depreciationTo, type AssetRow } from './store.js';

/**
 * books.assets: the register as at a date. An asset is listed from its start date (its
 * registering posting's date); it is disposed as at asOf when its disposal is dated on or before
 * it. A returned bill's asset is listed only before the return (its reversal's date). Held assets'
 * cost and accumulated depreciation are exactly 1500 and 1510 as at asOf (the totals); pending
 * assets are held (on 1500 at cost, never depreciated) and also counted apart. A pending asset
 * registered since is listed with its details, as at any date (registration posts nothing).
 */
type Params = z.infer<typeof assets.assets.params>;

function statusAt(r: AssetRow, asOf: string): 'pending' | 'active' | 'disposed' {
  if (r.status === 'pending') return 'pending';
  return r.status === 'disposed' && r.closed_on !== null && r.closed_on <= asOf ? 'disposed' : 'active';
}

export function assetEntry(r: AssetRow, accumulated: number, asOf: string) {
  const status = statusAt(r, asOf);
  const disposed = status === 'disposed';
  const pending = status === 'pending';
  return {
    id: r.id,
    name: r.name,
    method: pending ? null : r.method,
    effectiveLifeYears: pending ? null : r.life_years,
    startDate: r.start_date,
    costCents: r.cost_cents,
    accumulatedDepreciationCents: accumulated,
    bookValueCents: disposed ? 0 : r.cost_cents - accumulated,
    status,
    taxTreatment: r.tax_treatment,
    acquiredDate: r.acquired_on ?? r.start_date,
    source: { kind: r.source_kind, id: r.source_id, lineNo: r.source_line_no, journalId: r.journal_id },
    disposal:
      disposed && r.closed_on !== null && r.disposal_journal_id !== null
        ? {
            date: r.closed_on,
            proceedsCents: r.proceeds_cents ?? 0,
            taxCode: r.tax_code ?? 'GST',
            gstCents: r.gst_cents ?? 0,
            gainCents: r.gain_cents ?? 0,
            lossCents: r.loss_cents ?? 0,
            journalId: r.disposal_journal_id,
            ...(r.disposal_invoice_id !== null ? { invoiceId: r.disposal_invoice_id } : {}),
          }
        : null,
    ledgerId: r.ledger_id,
  };
}

export async function listAssets(p: Params, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  const asOf = p.asOf ?? (await orgToday(ctx.db, orgId));
  const rows = await ctx.db.reader.all<AssetRow>(
    `SELECT ${ASSET_COLUMNS} FROM assets WHERE org_id = ? AND start_date <= ?
       AND (status <> 'returned' OR closed_on > ?) ORDER BY start_date, id`,
    [orgId, asOf, asOf],
  );
  const accumulated = await depreciationTo(ctx.db.reader, orgId, asOf);
  const list = rows.map(decodeAsset).map((r) => assetEntry(r, accumulated.get(r.id) ?? 0, asOf));
  const held = list.filter((a) => a.status !== 'disposed');
  const pending = list.filter((a) => a.status === 'pending');
  const cost = held.reduce((s, a) => s + a.costCents, 0);
  const acc = held.reduce((s, a) => s + a.accumulatedDepreciationCents, 0);
  return {
    asOf,
    assets: p.status === undefined ? list : list.filter((a) => a.status === p.status),
    totals: { costCents: cost, accumulatedDepreciationCents: acc, bookValueCents: cost - acc },
    pending: { count: pending.length, costCents: pending.reduce((s, a) => s + a.costCents, 0) },
  };
}
