import { gstOfInclusive, TAX_CODES, type TaxCode } from '@finance-desk/protocol';
import { badRequest, invariant } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { batchCached, readsByKey, type Read, type Uow } from '../../write-path.js';
import { checkEachAccountOnce, trackingFields, type LineTracking, type PostingLine } from '../gl/post.js';
import { resolveLineTracking, trackingNamer } from '../tracking/store.js';

/**
 * Lines of a sale document (an invoice): GST-inclusive amounts with a sale tax code and the
 * revenue account they are earned in, and how they post.
 */
export interface SaleLine {
  readonly description: string;
  readonly amountCents: number;
  readonly taxCode: TaxCode;
  readonly accountCode: string;
  /** This line's share of the document's GST (the shares sum to the document's GST). */
  readonly gstCents: number;
  /** A fixed asset the line sells (accountCode 4300): disposed of when the invoice is sent. */
  readonly assetId?: string;
  /** The line's tracking by category name (books.trackingSet), as the API shows it. */
  readonly tracking?: Readonly<Record<string, string>>;
  /** The same as option ids by slot, as stored and posted; never shown (toInvoice drops it). */
  readonly trackingIds?: LineTracking;
}

export const DEFAULT_REVENUE_ACCOUNT = '4000';

/**
 * GST of a document is 1/11 of its GST-coded lines' sum, rounded half up once (GST Act s 9-90).
 * Each GST line gets its own rounded 1/11 and the largest GST line (the first of equals) takes
 * the rounding difference, so the line tags sum to the document's GST exactly and a one-line
 * invoice's tag is simply its GST. Only with many cent-sized lines could that push the largest
 * line's share below 0 or above its amount; the next largest then takes what it cannot.
 */
export function allocateSaleGst(lines: readonly { amountCents: number; taxCode: TaxCode }[]): number[] {
  const shares = lines.map((l) => (TAX_CODES[l.taxCode].gst ? gstOfInclusive(l.amountCents) : 0));
  const taxable = lines.flatMap((l, i) => (TAX_CODES[l.taxCode].gst ? [{ i, a: l.amountCents }] : []));
  let diff = gstOfInclusive(taxable.reduce((s, x) => s + x.a, 0)) - shares.reduce((s, g) => s + g, 0);
  const order = [...taxable].sort((p, q) => q.a - p.a || p.i - q.i);
  for (const x of order) {
    if (diff === 0) break;
    const share = shares[x.i] ?? 0;
    const take = Math.max(-share, Math.min(x.a - share, diff));
    shares[x.i] = share + take;
    diff -= take;
  }
  invariant(diff === 0, 'the GST shares sum to the document GST');
  return shares;
}

/** Kept by a batch of units of work: the chart changes only through units, which forget it. */
const ACCOUNT_TYPE = batchCached('SELECT type, archived_at FROM accounts WHERE org_id = ? AND code = ?', ['accounts']);

/** The account reads resolveSaleLines will make for these lines (readsByKey). */
export function saleAccountReads(orgId: string, inputs: readonly SaleLineInput[]): Read[] {
  return readsByKey(
    ACCOUNT_TYPE,
    orgId,
    inputs.map((l) => l.accountCode ?? DEFAULT_REVENUE_ACCOUNT),
  );
}

/** BAD_REQUEST naming `field` unless `code` is a revenue account of the organisation's chart. */
export async function checkRevenueAccount(q: Queryable, orgId: string, code: string, field: string): Promise<void> {
  const row = await q.get<{ type: string; archived_at: string | null }>(ACCOUNT_TYPE, [orgId, code]);
  if (!row) throw badRequest(`${field}: account ${code} does not exist`);
  // books.accountArchive: an archived account takes no new postings.
  if (row.archived_at !== null) throw badRequest(`${field}: account ${code} is archived; use another account`);
  if (row.type !== 'revenue') {
    const article = /^[aeiou]/.test(row.type) ? 'an' : 'a';
    throw badRequest(`${field}: account ${code} is ${article} ${row.type} account, not a revenue account`);
  }
}

export interface SaleLineInput {
  readonly description: string;
  readonly amountCents: number;
  readonly taxCode?: TaxCode | undefined;
  readonly accountCode?: string | undefined;
  readonly assetId?: string | undefined;
  readonly tracking?: Readonly<Record<string, string>> | undefined;
}

/**
 * Apply defaults, check every account (errors name `lines[i].accountCode`) and tracking
 * (`lines[i].tracking`), share the GST.
 */
export async function resolveSaleLines(
  uow: Uow,
  inputs: readonly SaleLineInput[],
  defaultTax: TaxCode,
  field: (i: number) => string,
): Promise<SaleLine[]> {
  const withCodes = inputs.map((l) => ({
    description: l.description,
    amountCents: l.amountCents,
    taxCode: l.taxCode ?? defaultTax,
    accountCode: l.accountCode ?? DEFAULT_REVENUE_ACCOUNT,
    ...(l.assetId !== undefined ? { assetId: l.assetId } : {}),
  }));
  await checkEachAccountOnce(withCodes, (code, i) => checkRevenueAccount(uow.tx, uow.orgId, code, field(i)));
  const tracked = await resolveLineTracking(
    uow.tx,
    uow.orgId,
    inputs.map((l) => l.tracking),
    (i) => `lines[${i}].tracking`,
  );
  const gst = allocateSaleGst(withCodes);
  return withCodes.map((l, i) => {
    const t = tracked[i];
    return { ...l, gstCents: gst[i] ?? 0, ...(t ? { tracking: t.names, trackingIds: t.ids } : {}) };
  });
}

/**
 * The issue posting of an invoice: Dr 1100 Accounts receivable with the total (docId = the
 * invoice), Cr each line's revenue account with its net amount (tagged with tax code,
 * GST-inclusive base and GST share for the BAS), Cr 2100 GST collected with the invoice's GST.
 * `sign` -1 gives the reversal (sides swapped, tags negated), for a void.
 */
export function salePosting(docId: string, lines: readonly SaleLine[], sign: 1 | -1 = 1): PostingLine[] {
  const side = (cents: number, credit: boolean) => ((credit ? sign === 1 : sign === -1) ? { creditCents: cents } : { debitCents: cents });
  const total = lines.reduce((s, l) => s + l.amountCents, 0);
  const gst = lines.reduce((s, l) => s + l.gstCents, 0);
  return [
    { account: { key: 'receivables' }, ...side(total, false), docId, description: `Invoice ${docId}` },
    ...lines.map((l) => ({
      account: l.accountCode,
      ...side(l.amountCents - l.gstCents, true),
      taxCode: l.taxCode,
      taxBaseCents: sign * l.amountCents,
      gstCents: sign * l.gstCents,
      description: l.description,
      ...trackingFields(l.trackingIds),
    })),
    { account: { key: 'gst_collected' }, ...side(gst, true), description: `GST on ${docId}` },
  ];
}

export async function insertSaleLines(uow: Uow, invoiceId: string, lines: readonly SaleLine[]): Promise<void> {
  for (const [i, l] of lines.entries()) {
    // Nobody reads the row count; on PostgreSQL the lines go out with the next statement.
    await uow.tx.later(
      `INSERT INTO invoice_lines (org_id, invoice_id, line_no, description, amount_cents, tax_code, account_code, gst_cents, asset_id,
         tracking1, tracking2)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        uow.orgId,
        invoiceId,
        i + 1,
        l.description,
        l.amountCents,
        l.taxCode,
        l.accountCode,
        l.gstCents,
        l.assetId ?? null,
        l.trackingIds?.tracking1 ?? null,
        l.trackingIds?.tracking2 ?? null,
      ],
    );
  }
}

interface LineRow {
  invoice_id: string;
  description: string;
  amount_cents: number;
  tax_code: TaxCode;
  account_code: string;
  gst_cents: number;
  asset_id: string | null;
  tracking1: string | null;
  tracking2: string | null;
}

/** Lines of many invoices at once, in line order (reads and views). */
export async function loadSaleLines(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, SaleLine[]>> {
  const out = new Map<string, SaleLine[]>();
  if (ids.length === 0) return out;
  const rows = await q.all<LineRow>(
    `SELECT invoice_id, description, amount_cents, tax_code, account_code, gst_cents, asset_id, tracking1, tracking2 FROM invoice_lines
     WHERE org_id = ? AND invoice_id IN (${ids.map(() => '?').join(', ')}) ORDER BY invoice_id, line_no`,
    [orgId, ...ids],
  );
  const named = await trackingNamer(q, orgId, rows);
  for (const r of rows) {
    const tracking = named(r);
    const list = out.get(r.invoice_id) ?? [];
    list.push({
      description: r.description,
      amountCents: Number(r.amount_cents),
      taxCode: r.tax_code,
      accountCode: r.account_code,
      gstCents: Number(r.gst_cents),
      ...(r.asset_id !== null ? { assetId: r.asset_id } : {}),
      ...(tracking ? { tracking, trackingIds: trackingFields(r) } : {}),
    });
    out.set(r.invoice_id, list);
  }
  return out;
}

/**
 * Share `total` cents in proportion to `weights` (each ≥ 0, not all 0) by largest remainder:
 * every share is ⌊total × w ÷ Σw⌋, and the cents left go one each to the largest remainders
 * (then the largest weight, then the first). BigInt keeps total × w exact. A credit note shares
 * its amount over the revenue accounts it reverses this way, and its GST over those shares.
 */
export function shareByLargestRemainder(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  invariant(sum > 0 && weights.every((w) => w >= 0), 'shares need non-negative weights with a positive sum');
  const big = BigInt(sum);
  const exact = weights.map((w) => BigInt(total) * BigInt(w));
  const shares = exact.map((e) => Number(e / big));
  let left = total - shares.reduce((s, x) => s + x, 0);
  const order = weights
    .map((w, i) => ({ i, w, r: (exact[i] ?? 0n) % big }))
    .sort((a, b) => (a.r === b.r ? b.w - a.w || a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of order) {
    if (left === 0) break;
    shares[i] = (shares[i] ?? 0) + 1;
    left -= 1;
  }
  return shares;
}
