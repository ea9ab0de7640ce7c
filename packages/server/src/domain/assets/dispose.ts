import { events, gstOfInclusive, TAX_CODES, type assets } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, DomainError, invariant } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { daysInclusive, depreciationCents, periodStart } from './depreciation.js';
import { depreciationLines } from './runs.js';
import { loadAsset, recordDepreciation, type AssetRow } from './store.js';

/**
 * books.assetDispose: active → disposed, one journal dated the disposal date —
 * depreciation from the last run (or the start) to that date (Dr 6400 / Cr 1510), then the asset
 * leaves the books (Dr 1510 all its accumulated depreciation / Cr 1500 its cost), the proceeds go
 * to 1000 Business bank account (GST-inclusive, tagged with the sale's tax code for the BAS: G1,
 * and its GST 1A), GST to 2100, and the GST-exclusive proceeds less the book value is a gain
 * (Cr 4300) or a loss (Dr 7100). Default tax code GST: a registered business's sale of plant is a
 * taxable supply. Disposing of a disposed asset is a no-op
 * (idempotent by state: it answers with the disposal, no new event).
 */
type Params = z.infer<typeof assets.assetDispose.params>;

function disposalResult(row: AssetRow) {
  invariant(row.closed_on !== null && row.disposal_journal_id !== null, `disposed asset ${row.id} has its disposal`);
  return {
    id: row.id,
    status: 'disposed' as const,
    date: row.closed_on,
    proceedsCents: row.proceeds_cents ?? 0,
    taxCode: row.tax_code ?? 'GST',
    gstCents: row.gst_cents ?? 0,
    depreciationCents: row.depreciation_cents ?? 0,
    bookValueCents: row.cost_cents - row.accumulated_cents,
    gainCents: row.gain_cents ?? 0,
    lossCents: row.loss_cents ?? 0,
    journalId: row.disposal_journal_id,
    ledgerId: row.ledger_id,
  };
}

/** A disposal's date against the asset and today; `field` names the date (an invoice's issue date). */
export function checkDisposalDate(row: AssetRow, date: string, today: string, field = 'date'): void {
  if (date > today) throw badRequest(`${field}: ${date} is in the future (today is ${today})`);
  if (date < row.start_date) throw badRequest(`${field}: ${date} is before asset ${row.id} started (${row.start_date})`);
  if (row.depreciated_to !== null && date < row.depreciated_to) {
    throw new DomainError('CONFLICT', `asset ${row.id} is depreciated to ${row.depreciated_to}; a disposal cannot be dated before that`, {
      field,
    });
  }
}

/** What the asset is sold for: GST-inclusive proceeds, the sale's tax code and its GST. */
export interface Sale {
  readonly date: string;
  readonly proceedsCents: number;
  readonly taxCode: keyof typeof TAX_CODES;
  readonly gstCents: number;
}

export interface Disposal {
  readonly depreciationCents: number;
  readonly accumulatedCents: number;
  readonly gstCents: number;
  readonly gainCents: number;
  readonly lossCents: number;
  readonly taxCode: keyof typeof TAX_CODES;
}

export function disposalFigures(row: AssetRow, p: Sale): Disposal & { from: string; days: number } {
  const from = periodStart(row.start_date, row.depreciated_to);
  const days = daysInclusive(from, p.date);
  const dep = depreciationCents({
    method: row.method,
    costCents: row.cost_cents,
    lifeYears: row.life_years,
    accumulatedCents: row.accumulated_cents,
    days,
  });
  const { taxCode, gstCents } = p;
  const accumulatedCents = row.accumulated_cents + dep;
  const difference = p.proceedsCents - gstCents - (row.cost_cents - accumulatedCents);
  return {
    from,
    days,
    depreciationCents: dep,
    accumulatedCents,
    gstCents,
    gainCents: Math.max(difference, 0),
    lossCents: Math.max(-difference, 0),
    taxCode,
  };
}

/**
 * The asset leaves the books: depreciation to the date, then Dr 1510 all of it / Cr 1500 its cost;
 * then (gainLossLines) the gain (Cr 4300) or loss (Dr 7100). The proceeds and their GST are the
 * caller's lines, between the two.
 */
export function assetLeavesLines(row: AssetRow, d: Disposal): PostingLine[] {
  const description = `Disposal: ${row.name} (${row.id})`;
  return [
    ...depreciationLines(row, d.depreciationCents, 'Depreciation to disposal'),
    { account: { key: 'accumulated_depreciation' }, debitCents: d.accumulatedCents, description, docId: row.id },
    { account: { key: 'fixed_assets' }, creditCents: row.cost_cents, description, docId: row.id },
  ];
}

export function gainLossLines(row: AssetRow, d: Disposal): PostingLine[] {
  const description = `Disposal: ${row.name} (${row.id})`;
  return [
    { account: { key: 'asset_disposal_gain' }, creditCents: d.gainCents, description },
    { account: { key: 'asset_disposal_loss' }, debitCents: d.lossCents, description },
  ];
}

function disposalLines(row: AssetRow, d: Disposal, proceedsCents: number): PostingLine[] {
  return [
    ...assetLeavesLines(row, d),
    {
      account: { key: 'bank' },
      debitCents: proceedsCents,
      description: `Proceeds: ${row.name} (${row.id})`,
      ...(proceedsCents > 0 ? { taxCode: d.taxCode, taxBaseCents: proceedsCents, gstCents: d.gstCents } : {}),
    },
    { account: { key: 'gst_collected' }, creditCents: d.gstCents, description: `GST on disposal of ${row.id}` },
    ...gainLossLines(row, d),
  ];
}

export async function assetDispose(p: Params, uow: Uow) {
  const row = await loadAsset(uow, p.id);
  if (row.status === 'disposed') return { ...disposalResult(row), noop: true };
  if (row.status === 'pending') {
    throw conflict(
      `asset ${row.id} is pending: register it with books.assetRegister (name, effective life, method) before disposing of it`,
    );
  }
  checkDisposalDate(row, p.date, uow.today);
  const taxCode = p.taxCode ?? 'GST';
  const sale: Sale = {
    date: p.date,
    proceedsCents: p.proceedsCents,
    taxCode,
    gstCents: TAX_CODES[taxCode].gst ? gstOfInclusive(p.proceedsCents) : 0,
  };
  const d = disposalFigures(row, sale);
  const journalId = newJournalId();
  await postJournal(uow, {
    id: journalId,
    date: p.date,
    memo: `Disposal of ${row.name} (${row.id})`,
    source: { kind: 'asset_disposal', id: row.id },
    lines: disposalLines(row, d, p.proceedsCents),
  });
  const event = await uow.emit(events.assetDispose, {
    entityId: row.id,
    payload: {
      assetId: row.id,
      date: p.date,
      proceedsCents: p.proceedsCents,
      taxCode: d.taxCode,
      gstCents: d.gstCents,
      depreciationCents: d.depreciationCents,
      gainCents: d.gainCents,
      lossCents: d.lossCents,
      journalId,
    },
  });
  return disposalResult(await recordDisposal(uow, row, d, sale, { journalId, ledgerId: event.ledgerId, invoiceId: null }));
}

/** After the act's event: the depreciation to the date, and the asset disposed of (exactly once). */
export async function recordDisposal(
  uow: Uow,
  row: AssetRow,
  d: Disposal & { from: string; days: number },
  sale: Sale,
  by: { readonly journalId: string; readonly ledgerId: string; readonly invoiceId: string | null },
): Promise<AssetRow> {
  if (d.depreciationCents > 0) {
    await recordDepreciation(uow, {
      assetId: row.id,
      date: sale.date,
      runId: null,
      from: d.from,
      days: d.days,
      amountCents: d.depreciationCents,
      journalId: by.journalId,
    });
  }
  const next: AssetRow = {
    ...row,
    status: 'disposed',
    accumulated_cents: d.accumulatedCents,
    depreciated_to: sale.date,
    closed_on: sale.date,
    proceeds_cents: sale.proceedsCents,
    tax_code: d.taxCode,
    gst_cents: d.gstCents,
    depreciation_cents: d.depreciationCents,
    gain_cents: d.gainCents,
    loss_cents: d.lossCents,
    disposal_journal_id: by.journalId,
    disposal_invoice_id: by.invoiceId,
    ledger_id: by.ledgerId,
  };
  const moved = await uow.tx.run(
    `UPDATE assets SET status = 'disposed', accumulated_cents = ?, depreciated_to = ?, closed_on = ?, proceeds_cents = ?,
       tax_code = ?, gst_cents = ?, depreciation_cents = ?, gain_cents = ?, loss_cents = ?, disposal_journal_id = ?,
       disposal_invoice_id = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND status = 'active'`,
    [
      next.accumulated_cents,
      sale.date,
      sale.date,
      sale.proceedsCents,
      d.taxCode,
      d.gstCents,
      d.depreciationCents,
      d.gainCents,
      d.lossCents,
      by.journalId,
      by.invoiceId,
      by.ledgerId,
      uow.orgId,
      row.id,
    ],
  );
  invariant(moved.changes === 1, `asset ${row.id} is disposed of exactly once`);
  return next;
}
