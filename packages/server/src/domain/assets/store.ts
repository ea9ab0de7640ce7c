import type { AssetMethod, TaxTreatment } from '@finance-desk/protocol';
import { notFound } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';

/** An asset as stored (migration 22). */
export interface AssetRow {
  id: string;
  name: string;
  method: AssetMethod;
  life_years: number;
  start_date: string;
  cost_cents: number;
  source_kind: 'bill' | 'journal' | 'expense_claim' | 'opening_balances';
  source_id: string;
  source_line_no: number;
  journal_id: string;
  /** pending: on 1500 at cost without method and life (register.ts PENDING_*), until books.assetRegister. */
  status: 'pending' | 'active' | 'disposed' | 'returned';
  accumulated_cents: number;
  depreciated_to: string | null;
  closed_on: string | null;
  proceeds_cents: number | null;
  tax_code: string | null;
  gst_cents: number | null;
  depreciation_cents: number | null;
  gain_cents: number | null;
  loss_cents: number | null;
  disposal_journal_id: string | null;
  ledger_id: string;
  /** Migration 50: how the tax schedule deducts it. */
  tax_treatment: TaxTreatment;
  /** First used, when before start_date (an asset carried in at conversion); NULL: start_date. */
  acquired_on: string | null;
  /** The depreciation the old books took, carried in at conversion (its first 1510 amount). */
  opening_accumulated_cents: number;
  /** The invoice that sold it (an invoice line's assetId). */
  disposal_invoice_id: string | null;
}

export const ASSET_COLUMNS =
  'id, name, method, life_years, start_date, cost_cents, source_kind, source_id, source_line_no, journal_id, ' +
  'status, accumulated_cents, depreciated_to, closed_on, proceeds_cents, tax_code, gst_cents, depreciation_cents, ' +
  'gain_cents, loss_cents, disposal_journal_id, ledger_id, tax_treatment, acquired_on, opening_accumulated_cents, disposal_invoice_id';

/** BIGINT columns arrive as numbers or strings depending on the engine: numbers here, once. */
export function decodeAsset(r: AssetRow): AssetRow {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    ...r,
    life_years: Number(r.life_years),
    cost_cents: Number(r.cost_cents),
    source_line_no: Number(r.source_line_no),
    accumulated_cents: Number(r.accumulated_cents),
    proceeds_cents: n(r.proceeds_cents),
    gst_cents: n(r.gst_cents),
    depreciation_cents: n(r.depreciation_cents),
    gain_cents: n(r.gain_cents),
    loss_cents: n(r.loss_cents),
    opening_accumulated_cents: Number(r.opening_accumulated_cents),
  };
}

/**
 * One asset of this organisation, locked for the act; another organisation's id is NOT_FOUND
 * (existence does not leak).
 */
export async function loadAsset(uow: Uow, id: string): Promise<AssetRow> {
  const row = await uow.tx.get<AssetRow>(`SELECT ${ASSET_COLUMNS} FROM assets WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    id,
  ]);
  // A returned bill's asset never was one: it is not found, as in the register.
  if (!row || row.status === 'returned') throw notFound('asset', id);
  return decodeAsset(row);
}

export async function activeAssets(uow: Uow, startedBy: string): Promise<AssetRow[]> {
  const rows = await uow.tx.all<AssetRow>(
    `SELECT ${ASSET_COLUMNS} FROM assets WHERE org_id = ? AND status = 'active' AND start_date <= ?
     ORDER BY start_date, id${uow.caps.forUpdate}`,
    [uow.orgId, startedBy],
  );
  return rows.map(decodeAsset);
}

/** Pending assets started by `startedBy`, which a run to that date skips (they await books.assetRegister). */
export async function pendingAssetCount(uow: Uow, startedBy: string): Promise<number> {
  const row = await uow.tx.get<{ n: unknown }>(
    "SELECT COUNT(*) AS n FROM assets WHERE org_id = ? AND status = 'pending' AND start_date <= ?",
    [uow.orgId, startedBy],
  );
  return Number(row?.n ?? 0);
}

/** Record an amount posted to 1510 for an asset (a run's or a disposal's), dated as its journal. */
export async function recordDepreciation(
  uow: Uow,
  row: { assetId: string; date: string; runId: string | null; from: string; days: number; amountCents: number; journalId: string },
): Promise<void> {
  await uow.tx.run(
    `INSERT INTO asset_depreciation (org_id, asset_id, date, run_id, period_from, days, amount_cents, journal_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, row.assetId, row.date, row.runId, row.from, row.days, row.amountCents, row.journalId],
  );
}

/** Depreciation posted per asset on or before `asOf`. */
export async function depreciationTo(q: Queryable, orgId: string, asOf: string): Promise<Map<string, number>> {
  const rows = await q.all<{ asset_id: string; total: unknown }>(
    `SELECT asset_id, SUM(amount_cents) AS total FROM asset_depreciation WHERE org_id = ? AND date <= ? GROUP BY asset_id`,
    [orgId, asOf],
  );
  return new Map(rows.map((r) => [r.asset_id, Number(r.total ?? 0)]));
}
