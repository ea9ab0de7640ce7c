import { TAX_CODES, type TaxCode } from '@finance-desk/protocol';
import { badRequest } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { batchCached, readsByKey, type Read } from '../../write-path.js';
import type { PostingLine } from '../gl/post.js';
import { allocateGst } from '../payables/bill-lines.js';

/**
 * Postings with tax codes, for the acts of this area that code money straight to accounts (a
 * recoded bank line, a manual journal). An amount on a GST-coded line is GST-inclusive: the
 * account takes the net and the GST goes to 1200 GST paid (purchase codes) or 2100 GST collected
 * (sale codes) on the same side. GST is 1/11, rounded half up once per group of lines that share
 * a GST account and a side (GST Act s 9-90: sum, then round), shared back by largest remainder.
 *
 * BAS tags: taxBaseCents is the GST-inclusive amount, positive on the code's natural side
 * (purchases and wages: debit; sales and withholding: credit) and negative on the other (a refund,
 * an adjustment), so the BAS labels net out; gstCents carries the same sign.
 */
export interface TaxedLine {
  readonly accountCode: string;
  readonly debitCents?: number | undefined;
  readonly creditCents?: number | undefined;
  readonly taxCode?: TaxCode | undefined;
  readonly description?: string | undefined;
}

const CREDIT_NATURAL: ReadonlySet<TaxCode> = new Set(['BAS_EXCLUDED_PAYGW']);

function naturalSideIsDebit(code: TaxCode): boolean {
  const side = TAX_CODES[code].side;
  if (side === 'sale') return false;
  return !CREDIT_NATURAL.has(code);
}

export function gstAccountFor(code: TaxCode): 'gst_paid' | 'gst_collected' | null {
  if (!TAX_CODES[code].gst) return null;
  return TAX_CODES[code].side === 'sale' ? 'gst_collected' : 'gst_paid';
}

/** Accounts no direct posting may touch: their balances are the sum of their documents. */
export const CONTROL_KEYS: Readonly<Record<string, string>> = {
  receivables: 'match money in to the invoice with books.matchAccept, or credit the invoice',
  payables: 'match money out to the bill with books.matchAccept',
  claims_payable: 'match money out to the expense claim with books.matchAccept',
  // The fixed asset register equals 1500 − 1510, so only its acts move them.
  fixed_assets: 'a fixed asset is registered from a bill line, an expense claim or a journal line with asset details',
  accumulated_depreciation: 'it moves only by books.assetDepreciationRun and books.assetDispose',
};

const GST_KEYS = new Set(['gst_paid', 'gst_collected']);

/** Kept by a batch of units of work: the chart changes only through units, which forget it. */
const POSTING_ACCOUNT = batchCached('SELECT name, system_key, archived_at FROM accounts WHERE org_id = ? AND code = ?', ['accounts']);

/** The account reads directPostingProblem will make for these codes (readsByKey). */
export function directPostingReads(orgId: string, codes: readonly string[]): Read[] {
  return readsByKey(POSTING_ACCOUNT, orgId, codes);
}

/**
 * The problem with posting `code` (and `taxCode`) directly, or null: BAD_REQUEST text naming
 * `field`. Control accounts are refused; a GST account takes only BAS_EXCLUDED.
 */
export async function directPostingProblem(
  q: Queryable,
  orgId: string,
  code: string,
  taxCode: TaxCode | undefined,
  field: string,
): Promise<string | null> {
  const row = await q.get<{ name: string; system_key: string | null; archived_at: string | null }>(POSTING_ACCOUNT, [orgId, code]);
  if (!row) return `${field}: account ${code} does not exist`;
  // books.accountArchive: an archived account keeps its history and takes nothing new.
  if (row.archived_at !== null) return `${field}: account ${code} (${row.name}) is archived; post to another account`;
  const hint = row.system_key === null ? undefined : CONTROL_KEYS[row.system_key];
  if (hint) return `${field}: account ${code} (${row.name}) is a control account; ${hint}`;
  if (row.system_key !== null && GST_KEYS.has(row.system_key) && taxCode !== undefined && taxCode !== 'BAS_EXCLUDED') {
    return `${field}: account ${code} (${row.name}) is a GST account; post to it only with taxCode BAS_EXCLUDED`;
  }
  return null;
}

export async function checkDirectPosting(q: Queryable, orgId: string, code: string, taxCode: TaxCode | undefined, field: string) {
  const problem = await directPostingProblem(q, orgId, code, taxCode, field);
  if (problem) throw badRequest(problem);
}

/** Posting lines for `lines`, GST split out and tagged; debits still equal credits. */
export function taxedPosting(lines: readonly TaxedLine[], memo: string): PostingLine[] {
  const amounts = lines.map((l) => l.debitCents ?? l.creditCents ?? 0);
  const groups = new Map<string, number[]>();
  lines.forEach((l, i) => {
    const gstKey = l.taxCode === undefined ? null : gstAccountFor(l.taxCode);
    if (gstKey === null) return;
    const key = `${gstKey}|${l.debitCents !== undefined ? 'debit' : 'credit'}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const gst = lines.map(() => 0);
  for (const members of groups.values()) {
    const shares = allocateGst(members.map((i) => ({ amountCents: amounts[i] ?? 0, taxCode: 'GST' })));
    members.forEach((i, k) => (gst[i] = shares[k] ?? 0));
  }
  const out: PostingLine[] = lines.map((l, i) => {
    const amount = amounts[i] ?? 0;
    const share = gst[i] ?? 0;
    const debit = l.debitCents !== undefined;
    const sign = l.taxCode === undefined ? 0 : debit === naturalSideIsDebit(l.taxCode) ? 1 : -1;
    return {
      account: l.accountCode,
      ...(debit ? { debitCents: amount - share } : { creditCents: amount - share }),
      taxCode: l.taxCode ?? null,
      taxBaseCents: sign * amount,
      gstCents: sign * share,
      description: l.description ?? memo,
    };
  });
  for (const [key, members] of groups) {
    const [gstKey, side] = key.split('|');
    const total = members.reduce((s, i) => s + (gst[i] ?? 0), 0);
    const account = { key: gstKey ?? '' };
    out.push({
      account,
      ...(side === 'debit' ? { debitCents: total } : { creditCents: total }),
      description: `GST: ${memo}`,
    });
  }
  return out;
}
