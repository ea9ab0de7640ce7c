import { daysBetween } from '../../clock.js';
import { invariant } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import type { OpenItem } from '../gl/open-items.js';
import { accountBalanceCents } from '../gl/post.js';
import { openCreditsAsOf, type AgedCredit } from '../credits/ledger.js';
import { openBillsAsOf, PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { openInvoicesAsOf, RECEIVABLES_ACCOUNT } from '../receivables/ledger-api.js';
import { readConsistently } from './ledger-totals.js';

/**
 * Aged receivables and payables as at a date: every open invoice (or bill) in the bucket of its
 * days overdue, grouped per party. The documents come from the ledger's control-account lines
 * (openInvoicesAsOf / openBillsAsOf) with the contacts' open credits as negative items
 * (openCreditsAsOf), and their sum must equal the control account's balance:
 * a difference means a posting to 1100 or 2000 that belongs to no document (or a document owed
 * the other way), a broken invariant to be investigated, never papered over.
 */
type Kind = 'aged_receivables' | 'aged_payables';

interface Source {
  readonly code: string;
  readonly open: (q: Queryable, orgId: string, asOf: string) => Promise<(OpenItem | AgedCredit)[]>;
  readonly sign: 1 | -1;
}

/** The open documents, then the contacts' unallocated credits (negative items: credits/ledger.ts). */
const withCredits =
  (open: (q: Queryable, orgId: string, asOf: string) => Promise<OpenItem[]>, side: 'customer' | 'supplier') =>
  async (q: Queryable, orgId: string, asOf: string) => [...(await open(q, orgId, asOf)), ...(await openCreditsAsOf(q, orgId, side, asOf))];

const SOURCES: Record<Kind, Source> = {
  aged_receivables: { code: RECEIVABLES_ACCOUNT, open: withCredits(openInvoicesAsOf, 'customer'), sign: 1 },
  // 2000 is credit-normal: what we owe is credit − debit.
  aged_payables: { code: PAYABLES_ACCOUNT, open: withCredits(openBillsAsOf, 'supplier'), sign: -1 },
};

export type Bucket = 'current' | '1-30' | '31-60' | '61-90' | '90+';

export interface Amounts {
  currentCents: number;
  days1to30Cents: number;
  days31to60Cents: number;
  days61to90Cents: number;
  over90Cents: number;
  totalCents: number;
}

export interface AgedItem {
  readonly id: string;
  readonly reference: string;
  readonly issuedOn: string;
  readonly dueOn: string;
  readonly daysOverdue: number;
  readonly bucket: Bucket;
  readonly totalCents: number;
  readonly outstandingCents: number;
}

const FIELD: Record<Bucket, keyof Amounts> = {
  current: 'currentCents',
  '1-30': 'days1to30Cents',
  '31-60': 'days31to60Cents',
  '61-90': 'days61to90Cents',
  '90+': 'over90Cents',
};

/** Due today or later is current (not yet overdue); then 1–30, 31–60, 61–90, more than 90 days. */
export function bucketOf(daysOverdue: number): Bucket {
  if (daysOverdue <= 0) return 'current';
  if (daysOverdue <= 30) return '1-30';
  if (daysOverdue <= 60) return '31-60';
  if (daysOverdue <= 90) return '61-90';
  return '90+';
}

const zero = (): Amounts => ({
  currentCents: 0,
  days1to30Cents: 0,
  days31to60Cents: 0,
  days61to90Cents: 0,
  over90Cents: 0,
  totalCents: 0,
});

function addTo(a: Amounts, bucket: Bucket, cents: number): void {
  a[FIELD[bucket]] += cents;
  a.totalCents += cents;
}

/** One party's key: names that differ only in case or spacing are the same party. */
const partyKey = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();

export async function agedReport(q: Queryable, orgId: string, type: Kind, asOf: string) {
  const source = SOURCES[type];
  const { items, control, name } = await readConsistently(q, orgId, async (q) => {
    const [open, balance, account] = await Promise.all([
      source.open(q, orgId, asOf),
      accountBalanceCents(q, orgId, source.code, asOf),
      q.get<{ name: string }>('SELECT name FROM accounts WHERE org_id = ? AND code = ?', [orgId, source.code]),
    ]);
    return { items: open, control: source.sign * balance, name: account?.name ?? source.code };
  });
  const totals = zero();
  const parties = new Map<string, { key: string; party: string; amounts: Amounts; items: AgedItem[] }>();
  // Many documents share a due date and a party name: each worked out once per report.
  const overdue = new Map<string, number>();
  const keys = new Map<string, string>();
  for (const item of items) {
    let daysOverdue = overdue.get(item.dueOn);
    if (daysOverdue === undefined) overdue.set(item.dueOn, (daysOverdue = daysBetween(item.dueOn, asOf)));
    const bucket = bucketOf(daysOverdue);
    let key = keys.get(item.party);
    if (key === undefined) keys.set(item.party, (key = partyKey(item.party)));
    let party = parties.get(key);
    if (party === undefined) parties.set(key, (party = { key, party: item.party, amounts: zero(), items: [] }));
    addTo(party.amounts, bucket, item.outstandingCents);
    addTo(totals, bucket, item.outstandingCents);
    party.items.push({
      id: item.id,
      reference: item.reference,
      issuedOn: item.issuedOn,
      dueOn: item.dueOn,
      daysOverdue,
      bucket,
      totalCents: item.totalCents,
      outstandingCents: item.outstandingCents,
    });
  }
  invariant(
    totals.totalCents === control,
    `${type} as at ${asOf}: open documents total ${totals.totalCents} but control account ${source.code} is ${control}`,
  );
  const rows = [...parties.values()]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((p) => ({ party: p.party, ...p.amounts, items: p.items }));
  return {
    type,
    asOf,
    controlAccount: { code: source.code, name, balanceCents: control },
    parties: rows,
    totals,
  };
}
