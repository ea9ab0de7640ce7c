import { FIXED_ASSET_ACCOUNT, type AssetMethod, type TaxTreatment } from '@finance-desk/protocol';
import { conflict } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';

/**
 * Registration: a bill line or a manual journal line coded to 1500 Plant and equipment
 * carries `asset` details and becomes an asset of the register when its posting is made — the
 * bill's approval, the journal's post — in that act's transaction, named in that act's event
 * (`assetIds`). Cost is the line's GST-exclusive amount (what 1500 is debited with), and
 * depreciation starts on the posting's date. So that the register always equals 1500 − 1510,
 * nothing else moves those accounts: a journal line on 1500 without details is refused, as is a
 * bank recode to 1500 (docs/decisions.md "Fixed assets"). A bill line or an expense claim on 1500
 * without details (the supplier's invoice does not say the effective life) registers a *pending*
 * asset: on the register and 1500 at cost, not depreciated, until books.assetRegister gives its
 * name, life and method (docs/decisions.md "Pending fixed assets").
 */
export interface AssetDetails {
  readonly name: string;
  readonly effectiveLifeYears: number;
  readonly method: AssetMethod;
  /** Default same_as_book. */
  readonly taxTreatment?: TaxTreatment | undefined;
}

/** A 1500 line about to be posted: the asset it registers (pending, named by its line, without details). */
export interface PlannedAsset {
  readonly id: string;
  readonly lineNo: number;
  readonly costCents: number;
  readonly details: AssetDetails | { readonly pendingName: string };
}

/**
 * What a pending asset holds in the register's NOT NULL columns until it is registered: no method
 * and a life of 0 years, never read as such (books.assets answers null; runs and disposals take
 * only active assets).
 */
export const PENDING_METHOD = '';
export const PENDING_LIFE_YEARS = 0;

export interface LineWithAsset {
  readonly accountCode: string;
  readonly asset?: AssetDetails | undefined;
}

/**
 * Problems of lines with respect to 1500 (BAD_REQUEST text): only a 1500 line may carry `asset`,
 * and, when `detailsRequired` (a manual journal), a 1500 line needs it. `assetField(i)` names line
 * i's asset field.
 */
export function assetLineProblems(lines: readonly LineWithAsset[], assetField: (i: number) => string, detailsRequired: boolean): string[] {
  const problems: string[] = [];
  for (const [i, l] of lines.entries()) {
    if (l.accountCode === FIXED_ASSET_ACCOUNT && l.asset === undefined && detailsRequired) {
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
 * A manual journal line on 1500 or carrying `asset`: a debit on 1500 with details. 1500 is
 * never credited by hand: an asset leaves the books by books.assetDispose (or its bill's return).
 */
export function journalAssetLineProblems(l: LineWithAsset & { readonly debitCents?: number | undefined }, i: number): string[] {
  if (l.accountCode === FIXED_ASSET_ACCOUNT && l.debitCents === undefined) {
    return [`lines[${i}].creditCents: account ${FIXED_ASSET_ACCOUNT} Plant and equipment is credited only by books.assetDispose`];
  }
  return assetLineProblems([l], () => `lines[${i}].asset`, true);
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
      'INSERT INTO asset_details (org_id, source_id, line_no, name, method, life_years, tax_treatment) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [uow.orgId, sourceId, i + 1, l.asset.name, l.asset.method, l.asset.effectiveLifeYears, l.asset.taxTreatment ?? null],
    );
  }
}

/** The asset an expense claim on 1500 registers on approval: pending (a claim carries no details). */
export function plannedClaimAsset(line: {
  readonly accountCode: string;
  readonly amountCents: number;
  readonly gstCents: number;
  readonly description: string;
}): PlannedAsset[] {
  if (line.accountCode !== FIXED_ASSET_ACCOUNT) return [];
  return [{ id: newId('ast'), lineNo: 1, costCents: line.amountCents - line.gstCents, details: { pendingName: line.description } }];
}

/**
 * The assets a bill's 1500 lines register on approval (ids reserved for the event): active with
 * the details captured with the line, pending (named by the line's description) without.
 */
export async function plannedBillAssets(
  uow: Uow,
  billId: string,
  lines: readonly { readonly accountCode: string; readonly amountCents: number; readonly gstCents: number; readonly description: string }[],
): Promise<PlannedAsset[]> {
  const rows = await uow.tx.all<{
    line_no: number;
    name: string;
    method: AssetMethod;
    life_years: number;
    tax_treatment: TaxTreatment | null;
  }>('SELECT line_no, name, method, life_years, tax_treatment FROM asset_details WHERE org_id = ? AND source_id = ?', [uow.orgId, billId]);
  const byLine = new Map(rows.map((r) => [Number(r.line_no), r]));
  const out: PlannedAsset[] = [];
  for (const [i, l] of lines.entries()) {
    if (l.accountCode !== FIXED_ASSET_ACCOUNT) continue;
    const d = byLine.get(i + 1);
    out.push({
      id: newId('ast'),
      lineNo: i + 1,
      costCents: l.amountCents - l.gstCents,
      details: d
        ? { name: d.name, method: d.method, effectiveLifeYears: Number(d.life_years), taxTreatment: d.tax_treatment ?? undefined }
        : { pendingName: l.description },
    });
  }
  return out;
}

/** A journal's 1500 lines: cost is the net debit the posting gives each (GST split out). */
export function plannedJournalAssets(lines: readonly LineWithAsset[], netDebits: readonly number[]): PlannedAsset[] {
  return lines.flatMap((l, i) =>
    l.asset === undefined ? [] : [{ id: newId('ast'), lineNo: i + 1, costCents: netDebits[i] ?? 0, details: l.asset }],
  );
}

/** Register planned assets, after the act's event and posting. */
export async function registerAssets(
  uow: Uow,
  planned: readonly PlannedAsset[],
  source: {
    readonly kind: 'bill' | 'journal' | 'expense_claim';
    readonly id: string;
    readonly date: string;
    readonly journalId: string;
    readonly ledgerId: string;
  },
): Promise<void> {
  for (const a of planned) {
    const d = a.details;
    const [name, method, life, status] =
      'pendingName' in d
        ? [d.pendingName, PENDING_METHOD, PENDING_LIFE_YEARS, 'pending']
        : [d.name, d.method, d.effectiveLifeYears, 'active'];
    const treatment = 'pendingName' in d ? 'same_as_book' : (d.taxTreatment ?? 'same_as_book');
    await uow.tx.run(
      `INSERT INTO assets (org_id, id, name, method, life_years, start_date, cost_cents, source_kind, source_id,
         source_line_no, journal_id, status, accumulated_cents, ledger_id, created_at, tax_treatment)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
      [
        uow.orgId,
        a.id,
        name,
        method,
        life,
        source.date,
        a.costCents,
        source.kind,
        source.id,
        a.lineNo,
        source.journalId,
        status,
        source.ledgerId,
        uow.now,
        treatment,
      ],
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
    // A pending asset was never depreciated: it goes back with its bill.
    if ((r.status !== 'active' && r.status !== 'pending') || Number(r.accumulated_cents) !== 0) {
      throw conflict(
        `bill ${billId} registered asset ${r.id}, which is ${r.status === 'active' ? 'depreciated' : r.status}; dispose of the asset with books.assetDispose instead`,
      );
    }
  }
  await uow.tx.run(
    "UPDATE assets SET status = 'returned', closed_on = ? WHERE org_id = ? AND source_id = ? AND status IN ('active', 'pending')",
    [uow.today, uow.orgId, billId],
  );
  return rows.map((r) => r.id);
}
