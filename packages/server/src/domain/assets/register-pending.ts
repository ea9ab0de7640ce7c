import { events, type assets } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, invariant } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { assetEntry } from './register-read.js';
import { loadAsset } from './store.js';

/**
 * books.assetRegister: pending → active. A bill line or an expense claim on 1500 without asset
 * details put the asset on the register (and on 1500, at cost) when its document was posted; this
 * act gives it its name, effective life and method. Nothing is posted: the start date stays the
 * document's date, so the next depreciation run depreciates it from then (runs.ts). An asset
 * already registered is CONFLICT: its details are what its depreciation was computed from.
 */
type Params = z.infer<typeof assets.assetRegister.params>;

export async function assetRegister(p: Params, uow: Uow) {
  const row = await loadAsset(uow, p.id);
  if (row.status !== 'pending') {
    throw conflict(`asset ${row.id} is already registered (${row.status}); only a pending asset is registered`);
  }
  const event = await uow.emit(events.assetRegister, {
    entityId: row.id,
    payload: {
      assetId: row.id,
      name: p.name,
      effectiveLifeYears: p.effectiveLifeYears,
      method: p.method,
      startDate: row.start_date,
      costCents: row.cost_cents,
      ...(p.taxTreatment !== undefined ? { taxTreatment: p.taxTreatment } : {}),
    },
  });
  const taxTreatment = p.taxTreatment ?? 'same_as_book';
  const moved = await uow.tx.run(
    `UPDATE assets SET status = 'active', name = ?, method = ?, life_years = ?, tax_treatment = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND status = 'pending'`,
    [p.name, p.method, p.effectiveLifeYears, taxTreatment, event.ledgerId, uow.orgId, row.id],
  );
  invariant(moved.changes === 1, `asset ${row.id} is registered exactly once`);
  const next = {
    ...row,
    status: 'active' as const,
    name: p.name,
    method: p.method,
    life_years: p.effectiveLifeYears,
    tax_treatment: taxTreatment,
    ledger_id: event.ledgerId,
  };
  return assetEntry(next, 0, uow.today);
}
