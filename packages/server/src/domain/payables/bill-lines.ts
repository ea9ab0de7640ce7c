import { gstOfInclusive, TAX_CODES, type TaxCode } from '@finance-desk/protocol';
import { badRequest, invariant } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { batchCached, readsByKey, type Read, type Uow } from '../../write-path.js';
import { checkEachAccountOnce, trackingFields, type LineTracking, type PostingLine } from '../gl/post.js';
import { resolveLineTracking, trackingNamer } from '../tracking/store.js';
import { assetLineProblems, type AssetDetails } from '../assets/register.js';

/**
 * Lines of a purchase document (a bill, an expense claim): GST-inclusive amounts with a purchase
 * tax code and the account they are charged to, and how they post.
 */
export interface PurchaseLine {
  readonly description: string;
  readonly amountCents: number;
  readonly taxCode: TaxCode;
  readonly accountCode: string;
  /** This line's share of the document's GST (the shares sum to the document's GST). */
  readonly gstCents: number;
  /** The line's tracking by category name (books.trackingSet), as the API shows it. */
  readonly tracking?: Readonly<Record<string, string>>;
  /** The same as option ids by slot, as stored and posted; never shown (toBill drops it). */
  readonly trackingIds?: LineTracking;
}

export const DEFAULT_EXPENSE_ACCOUNT = '6000';
export const DEFAULT_CAPITAL_ACCOUNT = '1500';

/** GST_ON_CAPITAL is a capital purchase (BAS G10): plant and equipment unless told otherwise. */
export function defaultAccountFor(taxCode: TaxCode): string {
  return taxCode === 'GST_ON_CAPITAL' ? DEFAULT_CAPITAL_ACCOUNT : DEFAULT_EXPENSE_ACCOUNT;
}

/** Asset accounts a purchase may be charged to: not the bank, receivables, GST or clearing. */
const CONTROL_KEYS = new Set(['bank', 'receivables', 'gst_paid', 'clearing', 'accumulated_depreciation']);

/** Kept by a batch of units of work: the chart changes only through units, which forget it. */
const PURCHASE_ACCOUNT = batchCached('SELECT type, system_key, archived_at FROM accounts WHERE org_id = ? AND code = ?', ['accounts']);

/** The account reads resolveLines will make for these lines (readsByKey). */
export function purchaseAccountReads(orgId: string, inputs: readonly LineInput[], defaultTax: TaxCode): Read[] {
  return readsByKey(
    PURCHASE_ACCOUNT,
    orgId,
    inputs.map((l) => l.accountCode ?? defaultAccountFor(l.taxCode ?? defaultTax)),
  );
}

/** BAD_REQUEST naming `field` unless `code` is an expense account, or an asset that is not a control account. */
export async function checkPurchaseAccount(q: Queryable, orgId: string, code: string, field: string): Promise<void> {
  const row = await q.get<{ type: string; system_key: string | null; archived_at: string | null }>(PURCHASE_ACCOUNT, [orgId, code]);
  if (!row) throw badRequest(`${field}: account ${code} does not exist`);
  // books.accountArchive: an archived account takes no new postings.
  if (row.archived_at !== null) throw badRequest(`${field}: account ${code} is archived; use another account`);
  const ok = row.type === 'expense' || (row.type === 'asset' && !CONTROL_KEYS.has(row.system_key ?? ''));
  if (!ok) throw badRequest(`${field}: account ${code} is not an expense or asset account a purchase can be charged to`);
}

/**
 * GST of a document is 1/11 of its taxable lines' sum, rounded half up once (GST Act s 9-90),
 * and shared among the taxable lines by largest remainder, so the line tags sum to it exactly.
 */
export function allocateGst(lines: readonly { amountCents: number; taxCode: TaxCode }[]): number[] {
  const taxable = lines.flatMap((l, i) => (TAX_CODES[l.taxCode].gst ? [{ i, a: l.amountCents }] : []));
  const shares = lines.map(() => 0);
  const total = gstOfInclusive(taxable.reduce((s, x) => s + x.a, 0));
  let given = 0;
  for (const x of taxable) {
    shares[x.i] = Math.floor(x.a / 11);
    given += Math.floor(x.a / 11);
  }
  // The biggest remainders (then the biggest lines, then the first) take the rounding cents.
  const order = [...taxable].sort((p, q) => (q.a % 11) - (p.a % 11) || q.a - p.a || p.i - q.i);
  for (let k = 0; given < total; k += 1) {
    const x = order[k % order.length];
    invariant(x, 'a document with GST has a taxable line');
    shares[x.i] = (shares[x.i] ?? 0) + 1;
    given += 1;
  }
  return shares;
}

export interface LineInput {
  readonly description: string;
  readonly amountCents: number;
  readonly taxCode?: TaxCode | undefined;
  readonly accountCode?: string | undefined;
  /** A bill line on 1500 may carry its fixed asset's details (domain/assets); pending without. */
  readonly asset?: AssetDetails | undefined;
  readonly tracking?: Readonly<Record<string, string>> | undefined;
}

/**
 * Apply defaults, check every account (errors name `lines[i].accountCode`), share the GST.
 * Fixed assets: only a line on 1500 may carry asset details, named by `assetField`; a line on
 * 1500 without them (or a document that cannot carry them, an expense claim: no `assetField`)
 * registers a pending asset when it is posted.
 */
export async function resolveLines(
  uow: Uow,
  inputs: readonly LineInput[],
  defaultTax: TaxCode,
  field: (i: number) => string,
  assetField?: (i: number) => string,
) {
  const withCodes = inputs.map((l) => {
    const taxCode = l.taxCode ?? defaultTax;
    return { ...l, taxCode, accountCode: l.accountCode ?? defaultAccountFor(taxCode) };
  });
  await checkEachAccountOnce(withCodes, (code, i) => checkPurchaseAccount(uow.tx, uow.orgId, code, field(i)));
  const assetProblems = assetField ? assetLineProblems(withCodes, assetField, false) : [];
  if (assetProblems.length > 0) throw badRequest(assetProblems.join('; '));
  // Tracking is named on lines (`lines[i].tracking`): a document without lines has none.
  const tracked = await resolveLineTracking(
    uow.tx,
    uow.orgId,
    inputs.map((l) => l.tracking),
    (i) => `lines[${i}].tracking`,
  );
  const gst = allocateGst(withCodes);
  return withCodes.map((l, i): PurchaseLine => {
    const t = tracked[i];
    return {
      description: l.description,
      amountCents: l.amountCents,
      taxCode: l.taxCode,
      accountCode: l.accountCode,
      gstCents: gst[i] ?? 0,
      ...(t ? { tracking: t.names, trackingIds: t.ids } : {}),
    };
  });
}

/**
 * The accrual posting of a purchase document: Dr each line's account with its net amount
 * (tagged with tax code, GST-inclusive base and GST for the BAS), Dr 1200 GST paid with the
 * document's GST, Cr the control account (2000 or 2500) with the total, docId = the document.
 * `sign` -1 gives the reversal (sides swapped, tags negated).
 */
export function purchasePosting(
  doc: { readonly id: string; readonly control: { readonly key: string } },
  lines: readonly PurchaseLine[],
  sign: 1 | -1 = 1,
): PostingLine[] {
  const side = (cents: number, debit: boolean) => ((debit ? sign === 1 : sign === -1) ? { debitCents: cents } : { creditCents: cents });
  const total = lines.reduce((s, l) => s + l.amountCents, 0);
  const gst = lines.reduce((s, l) => s + l.gstCents, 0);
  return [
    ...lines.map((l) => ({
      account: l.accountCode,
      ...side(l.amountCents - l.gstCents, true),
      taxCode: l.taxCode,
      taxBaseCents: sign * l.amountCents,
      gstCents: sign * l.gstCents,
      description: l.description,
      ...trackingFields(l.trackingIds),
    })),
    { account: { key: 'gst_paid' }, ...side(gst, true), description: `GST on ${doc.id}` },
    { account: doc.control, ...side(total, false), docId: doc.id },
  ];
}

interface LineRow {
  bill_id: string;
  description: string;
  amount_cents: number;
  tax_code: TaxCode;
  account_code: string;
  tracking1: string | null;
  tracking2: string | null;
}

export async function insertBillLines(uow: Uow, billId: string, lines: readonly PurchaseLine[]): Promise<void> {
  for (const [i, l] of lines.entries()) {
    await uow.tx.later(
      `INSERT INTO bill_lines (org_id, bill_id, line_no, description, amount_cents, tax_code, account_code, tracking1, tracking2)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        uow.orgId,
        billId,
        i + 1,
        l.description,
        l.amountCents,
        l.taxCode,
        l.accountCode,
        l.trackingIds?.tracking1 ?? null,
        l.trackingIds?.tracking2 ?? null,
      ],
    );
  }
}

/**
 * Lines of many bills at once, in line order, with their GST shares recomputed (the same pure
 * function as at capture).
 */
export async function loadBillLines(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, PurchaseLine[]>> {
  const out = new Map<string, PurchaseLine[]>();
  if (ids.length === 0) return out;
  const rows = await q.all<LineRow>(
    `SELECT bill_id, description, amount_cents, tax_code, account_code, tracking1, tracking2 FROM bill_lines
     WHERE org_id = ? AND bill_id IN (${ids.map(() => '?').join(', ')}) ORDER BY bill_id, line_no`,
    [orgId, ...ids],
  );
  const named = await trackingNamer(q, orgId, rows);
  const base = new Map<string, Omit<PurchaseLine, 'gstCents'>[]>();
  for (const r of rows) {
    const list = base.get(r.bill_id) ?? [];
    const tracking = named(r);
    list.push({
      description: r.description,
      amountCents: Number(r.amount_cents),
      taxCode: r.tax_code,
      accountCode: r.account_code,
      ...(tracking ? { tracking, trackingIds: trackingFields(r) } : {}),
    });
    base.set(r.bill_id, list);
  }
  for (const [id, list] of base) {
    const gst = allocateGst(list);
    out.set(
      id,
      list.map((l, i) => ({ ...l, gstCents: gst[i] ?? 0 })),
    );
  }
  return out;
}
