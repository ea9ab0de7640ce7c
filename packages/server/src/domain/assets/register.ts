import { FIXED_ASSET_ACCOUNT, type AssetMethod } from '@finance-desk/protocol';
import { conflict } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';

/**
 * Registration (D11): a bill line or a manual journal line coded to 1500 Plant and equipment
 * carries `asset` details and becomes an asset of the register when its posting is made — the
 * bill's approval, the journal's post — in that act's transaction, named in that act's event
 * (`assetIds`). Cost is the line's GST-exclusive amount (what 1500 is debited with), and
 * depreciation starts on the posting's date. So that the register always equals 1500 − 1510,
 * nothing else moves those accounts: a 1500 line without details is refused, as is an
 * expense claim or bank recode to 1500 (docs/decisions.md "Fixed assets").
 */
export interface AssetDetails {
  readonly name: string;
  readonly effectiveLifeYears: number;
  readonly method: AssetMethod;
}

/** A 1500 line about to be posted: the asset it registers. */
export interface PlannedAsset {
  readonly id: string;
  readonly lineNo: number;
  readonly costCents: number;
  readonly details: AssetDetails;
}

export interface LineWithAsset {
  readonly accountCode: string;
  readonly asset?: AssetDetails | undefined;
}

/**
 * Problems of lines with respect to 1500 (BAD_REQUEST text): a 1500 line needs `asset`, and only
 * a 1500 line may carry one. `assetField(i)` names line i's asset field (for a document without
 * lines, the field that put it on 1500).
 */
export function assetLineProblems(lines: readonly LineWithAsset[], assetField: (i: number) => string): string[] {
  const problems: string[] = [];
  for (const [i, l] of lines.entries()) {
    if (l.accountCode === FIXED_ASSET_ACCOUNT && l.asset === undefined) {
      problems.push(
        `${assetField(i)}: is required on a line coded to ${FIXED_ASSET_ACCOUNT} Plant and equipment ` +
          '(a fixed asset: give asset {name, effectiveLifeYears, method})',
      );
    } else if (l.accountCode !== FIXED_ASSET_ACCOUNT && l.asset !== undefined) {
      problems.push(`${assetField(i)}: only a line coded to ${FIXED_ASSET_ACCOUNT} Plant and equipment registers an asset`);
    }
  }
  return problems;
}

/**
 * A manual journal line on 1500 or carrying `asset` (D11): a debit on 1500 with details. 1500 is
 * never credited by hand: an asset leaves the books by books.assetDispose (or its bill's return).
 */
export function journalAssetLineProblems(
  l: LineWithAsset & { readonly debitCents?: number | undefined },
  i: number,
): string[] {
  if (l.accountCode === FIXED_ASSET_ACCOUNT && l.debitCents === undefined) {
    return [`lines[${i}].creditCents: account ${FIXED_ASSET_ACCOUNT} Plant and equipment is credited only by books.assetDispose`];
  }
  return assetLineProblems([l], () => `lines[${i}].asset`);
}

/** For a document that cannot carry asset details (an expense claim, a recoded bank line). */
export function noAssetHere(field: string): string {
  return `${field}: account ${FIXED_ASSET_ACCOUNT} Plant and equipment is for fixed assets, registered from a bill line or a journal line with asset details (D11)`;
}

/** Keep a captured bill's asset details until it is approved (line numbers from 1). */
export async function saveAssetDetails(
  uow: Uow,
  sourceId: string,
  lines: readonly { readonly asset?: AssetDetails | undefined }[],
): Promise<void> {
  for (const [i, l] of lines.entries()) {
    if (l.asset === undefined) continue;
    await uow.tx.later(
      'INSERT INTO asset_details (org_id, source_id, line_no, name, method, life_years) VALUES (?, ?, ?, ?, ?, ?)',
      [uow.orgId, sourceId, i + 1, l.asset.name, l.asset.method, l.asset.effectiveLifeYears],
    );
  }
}

/** The assets a bill's 1500 lines register on approval (ids reserved for the event). */
export async function plannedBillAssets(
  uow: Uow,
  billId: string,
  lines: readonly { readonly accountCode: string; readonly amountCents: number; readonly gstCents: number }[],
): Promise<PlannedAsset[]> {
  const rows = await uow.tx.all<{ line_no: number; name: string; method: AssetMethod; life_years: number }>(
    'SELECT line_no, name, method, life_years FROM asset_details WHERE org_id = ? AND source_id = ?',
    [uow.orgId, billId],
  );
  const byLine = new Map(rows.map((r) => [Number(r.line_no), r]));
  const out: PlannedAsset[] = [];
  for (const [i, l] of lines.entries()) {
    if (l.accountCode !== FIXED_ASSET_ACCOUNT) continue;
    const d = byLine.get(i + 1);
    // Only a bill captured before registration existed (migration 22) lacks them.
    if (!d) throw conflict(`bill ${billId} line ${i + 1} is on ${FIXED_ASSET_ACCOUNT} without asset details; return it and capture it again with lines[].asset`);
    out.push({
      id: newId('ast'),
      lineNo: i + 1,
      costCents: l.amountCents - l.gstCents,
      details: { name: d.name, method: d.method, effectiveLifeYears: Number(d.life_years) },
    });
  }
  return out;
}

/** A journal's 1500 lines: cost is the net debit the posting gives each (GST split out). */
export function plannedJournalAssets(
  lines: readonly LineWithAsset[],
  netDebits: readonly number[],
): PlannedAsset[] {
  return lines.flatMap((l, i) =>
    l.asset === undefined
      ? []
      : [{ id: newId('ast'), lineNo: i + 1, costCents: netDebits[i] ?? 0, details: l.asset }],
  );
}

/** Register planned assets, after the act's event and posting. */
export async function registerAssets(
  uow: Uow,
  planned: readonly PlannedAsset[],
  source: { readonly kind: 'bill' | 'journal'; readonly id: string; readonly date: string; readonly journalId: string; readonly ledgerId: string },
): Promise<void> {
  for (const a of planned) {
    await uow.tx.run(
      `INSERT INTO assets (org_id, id, name, method, life_years, start_date, cost_cents, source_kind, source_id,
         source_line_no, journal_id, status, accumulated_cents, ledger_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', 0, ?, ?)`,
      [uow.orgId, a.id, a.details.name, a.details.method, a.details.effectiveLifeYears, source.date, a.costCents,
        source.kind, source.id, a.lineNo, source.journalId, source.ledgerId, uow.now],
    );
  }
}

/**
 * A returned bill's reversal takes its assets off 1500 (dated today): they leave the register that
 * day, status `returned` (never listed from then). One already depreciated or disposed of cannot
 * go back that way: CONFLICT, naming it.
 */
export async function returnBillAssets(uow: Uow, billId: string): Promise<string[]> {
  const rows = await uow.tx.all<{ id: string; status: string; accumulated_cents: number }>(
    `SELECT id, status, accumulated_cents FROM assets WHERE org_id = ? AND source_id = ?${uow.caps.forUpdate}`,
    [uow.orgId, billId],
  );
  for (const r of rows) {
    if (r.status !== 'active' || Number(r.accumulated_cents) !== 0) {
      throw conflict(`bill ${billId} registered asset ${r.id}, which is ${r.status === 'active' ? 'depreciated' : r.status}; dispose of the asset with books.assetDispose instead`);
    }
  }
  await uow.tx.run(
    "UPDATE assets SET status = 'returned', closed_on = ? WHERE org_id = ? AND source_id = ? AND status = 'active'",
    [uow.today, uow.orgId, billId],
  );
  return rows.map((r) => r.id);
}
