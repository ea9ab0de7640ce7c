import { DomainError } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { accountOf, trackingFields, type PostingLine } from '../gl/post.js';
import { salePosting, type SaleLine, type SaleLineInput } from '../receivables/invoice-lines.js';
import { assetLeavesLines, checkDisposalDate, disposalFigures, gainLossLines, recordDisposal, type Sale } from './dispose.js';
import { ASSET_COLUMNS, decodeAsset, loadAsset, type AssetRow } from './store.js';

/**
 * Selling a fixed asset to a customer by invoice: a line names the asset (assetId) instead of a
 * revenue account. Invoice lines must be revenue accounts (checkRevenueAccount), so 1500 itself
 * cannot be a line's account; the line's account is 4300 Gain on disposal, where a credit note
 * on it goes (a price reduction reduces the gain). When the invoice is sent the asset is disposed
 * of on its issue date exactly as books.assetDispose does (dispose.ts): depreciation to that
 * date, cost and accumulated depreciation off 1500 and 1510, the gain to 4300 or the loss to 7100
 * — except that the proceeds are owed by the customer: Dr 1100 (docId = the invoice) with the
 * line's amount, tagged with its tax code, GST-inclusive base and GST share (so the BAS counts
 * the sale, at G1 and 1A under GST, on the accruals basis when issued and on the cash basis when
 * paid), and Cr 2100 with that GST. One journal, one event (the send's, naming the assets).
 */

const DISPOSAL_GAIN = { key: 'asset_disposal_gain' } as const;

const lineField = (i: number) => `lines[${i}].assetId`;

function problem(code: 'BAD_REQUEST' | 'CONFLICT' | 'NOT_FOUND', field: string, message: string): DomainError {
  return new DomainError(code, `${field}: ${message}`, { field });
}

/** CONFLICT naming the line when the asset cannot be sold (pending or disposed of). */
function refuseUnsellable(row: AssetRow, field: string): void {
  if (row.status === 'disposed') {
    throw problem('CONFLICT', field, `asset ${row.id} was disposed of on ${row.closed_on ?? ''}; it cannot be sold again`);
  }
  if (row.status === 'pending') {
    throw problem('CONFLICT', field, `asset ${row.id} is pending: register it with books.assetRegister before selling it`);
  }
}

/**
 * At draft: lines naming an asset name one of this organisation's active assets, each once, with
 * no accountCode of their own; they get 4300 as their account. Other lines pass unchanged.
 */
export async function assetSaleInputs<T extends SaleLineInput>(uow: Uow, inputs: readonly T[]): Promise<T[]> {
  const seen = new Map<string, number>();
  const out: T[] = [];
  for (const [i, l] of inputs.entries()) {
    if (l.assetId === undefined) {
      out.push(l);
      continue;
    }
    const field = lineField(i);
    if (l.accountCode !== undefined) {
      throw problem('BAD_REQUEST', `lines[${i}].accountCode`, 'is not given with assetId (a line selling an asset posts to 4300)');
    }
    const prior = seen.get(l.assetId);
    if (prior !== undefined) throw problem('BAD_REQUEST', field, `asset ${l.assetId} is also sold by lines[${prior}]`);
    seen.set(l.assetId, i);
    const row = await uow.tx.get<AssetRow>(`SELECT ${ASSET_COLUMNS} FROM assets WHERE org_id = ? AND id = ?`, [uow.orgId, l.assetId]);
    if (!row || row.status === 'returned') throw problem('NOT_FOUND', field, `asset ${l.assetId} not found`);
    refuseUnsellable(decodeAsset(row), field);
    out.push({ ...l, accountCode: accountOf(DISPOSAL_GAIN) });
  }
  return out;
}

export interface AssetSales {
  readonly lines: readonly PostingLine[];
  readonly assetIds: readonly string[];
  /** After the send's event: the assets disposed of, naming the invoice. */
  readonly record: (journalId: string, ledgerId: string) => Promise<void>;
}

/**
 * At send: the issue posting of an invoice with asset lines (null without any: salePosting as
 * ever). The assets are locked and checked again: sold since the draft, or depreciated past the
 * issue date, is CONFLICT naming the line.
 */
export async function assetSales(uow: Uow, invoiceId: string, lines: readonly SaleLine[], issuedOn: string): Promise<AssetSales | null> {
  if (!lines.some((l) => l.assetId !== undefined)) return null;
  const plain = lines.filter((l) => l.assetId === undefined);
  const posting: PostingLine[] = [...salePosting(invoiceId, plain)];
  const sold: { row: AssetRow; sale: Sale; d: ReturnType<typeof disposalFigures> }[] = [];
  for (const [i, l] of lines.entries()) {
    if (l.assetId === undefined) continue;
    const row = await loadAsset(uow, l.assetId);
    refuseUnsellable(row, lineField(i));
    checkDisposalDate(row, issuedOn, uow.today, 'issueDate');
    const sale: Sale = { date: issuedOn, proceedsCents: l.amountCents, taxCode: l.taxCode, gstCents: l.gstCents };
    const d = disposalFigures(row, sale);
    posting.push(
      {
        account: { key: 'receivables' },
        debitCents: l.amountCents,
        docId: invoiceId,
        description: `Invoice ${invoiceId}: proceeds of ${row.name} (${row.id})`,
        taxCode: l.taxCode,
        taxBaseCents: l.amountCents,
        gstCents: l.gstCents,
      },
      ...assetLeavesLines(row, d),
      { account: { key: 'gst_collected' }, creditCents: l.gstCents, description: `GST on disposal of ${row.id}` },
      // The line's tracking goes with the gain or loss, its profit and loss part.
      ...gainLossLines(row, d).map((g) => ({ ...g, ...trackingFields(l.trackingIds) })),
    );
    sold.push({ row, sale, d });
  }
  return {
    lines: posting,
    assetIds: sold.map((s) => s.row.id),
    record: async (journalId, ledgerId) => {
      for (const s of sold) await recordDisposal(uow, s.row, s.d, s.sale, { journalId, ledgerId, invoiceId });
    },
  };
}
