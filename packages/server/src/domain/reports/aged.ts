import { addDays, daysBetween } from '../../clock.js';
import { badRequest, invariant } from '../../errors.js';
import { placeholders, readInParts } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';
import { openCreditsAsOf, type AgedCredit } from '../credits/ledger.js';
import { partyKey, type OpenItem } from '../gl/open-items.js';
import { accountBalanceCents, byThenId, DOCUMENT_MOVES_AFTER_SQL } from '../gl/post.js';
import { openBillsAsOf, openBillsOf, PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { openInvoicesAsOf, openInvoicesOf, RECEIVABLES_ACCOUNT } from '../receivables/ledger-api.js';
import { readConsistently } from './ledger-totals.js';

/**
 * Aged receivables and payables as at a date: every open invoice (or bill) in the bucket of its
 * days overdue, grouped per party, with the contacts' open credits as negative items
 * (openCreditsAsOf). Their sum must equal the control account's balance: a difference means a
 * posting to 1100 or 2000 that belongs to no document (or a document owed the other way), a
 * broken invariant to be investigated, never papered over.
 *
 * Read a page at a time, at a cost in proportion to the page and the parties, not to the open
 * documents: each posted document's balance row carries its party's key and due date
 * (document_balances.party_key, on_day, kept when the document is posted), so
 * - the amounts of every party per bucket are one grouped read of that index (a few rows per
 *   party), summed by the database;
 * - a page's items are read party by party in (due date, id) order from where the cursor left,
 *   then their documents by id.
 * The stored balances are today's. As at an earlier date, the documents whose balance moved after
 * it (payments since, documents posted since) are read one by one and corrected: a report as at
 * long ago costs the postings since. Credits are read whole (openCreditsAsOf): they are few, and
 * their party is their contact's current name, which no kept key could follow.
 */
type Kind = 'aged_receivables' | 'aged_payables';

interface Source {
  readonly code: string;
  readonly side: 'customer' | 'supplier';
  /** What a document owes in the report's direction, from its debit-positive balance. */
  readonly sign: 1 | -1;
  readonly items: (q: Queryable, orgId: string, balances: ReadonlyMap<string, number>) => Promise<OpenItem[]>;
}

const SOURCES: Record<Kind, Source> = {
  aged_receivables: { code: RECEIVABLES_ACCOUNT, side: 'customer', sign: 1, items: openInvoicesOf },
  // 2000 is credit-normal: what we owe is credit − debit.
  aged_payables: { code: PAYABLES_ACCOUNT, side: 'supplier', sign: -1, items: openBillsOf },
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

const BUCKETS: readonly Bucket[] = ['current', '1-30', '31-60', '61-90', '90+'];

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

/**
 * A bucket's number from a due date, in SQL, as bucketOf gives it from the days overdue: the
 * parameters are the first due dates of buckets 0 to 3 (asOf, asOf − 30, − 60, − 90 days).
 */
const BUCKET_SQL = 'CASE WHEN on_day >= ? THEN 0 WHEN on_day >= ? THEN 1 WHEN on_day >= ? THEN 2 WHEN on_day >= ? THEN 3 ELSE 4 END';
const bucketStarts = (asOf: string) => [asOf, addDays(asOf, -30), addDays(asOf, -60), addDays(asOf, -90)];

/**
 * The open documents of an account (its organisation, code and the report's sign as parameters)
 * owing in the report's direction: an overpaid one lists nothing. The sign is a product, not a
 * range on balance_cents, so that the planner reads the party index rather than the open-balance
 * index, whose range would then need every row's party key looked up.
 */
const OWING = 'org_id = ? AND account_code = ? AND balance_cents <> 0 AND balance_cents * ? > 0 AND party_key IS NOT NULL';

/** Every party's amount and number of documents per bucket, summed by the database. */
export const GROUPS_SQL = `SELECT party_key, ${BUCKET_SQL} AS bucket, SUM(balance_cents) AS cents, COUNT(*) AS n
   FROM document_balances WHERE ${OWING} GROUP BY 1, 2`;

/** One party's documents after a (due date, id) position, in that order. */
export const PARTY_PAGE_SQL = `SELECT doc_id, on_day, balance_cents FROM document_balances
   WHERE ${OWING} AND party_key = ? AND (on_day > ? OR (on_day = ? AND doc_id > ?))
   ORDER BY on_day, doc_id LIMIT ?`;

/** An item's place in the report: its party's key, then due date, then id. */
interface Place {
  readonly key: string;
  readonly dueOn: string;
  readonly id: string;
}

const START: Omit<Place, 'key'> = { dueOn: '', id: '' };
const after = (a: Omit<Place, 'key'>, b: Omit<Place, 'key'>) => a.dueOn > b.dueOn || (a.dueOn === b.dueOn && a.id > b.id);

interface Party {
  readonly key: string;
  readonly amounts: Amounts;
  /** Items over all pages. */
  count: number;
  /** Its documents whose stored balance is not what they owed as at asOf: what they owed then. */
  readonly corrected: Map<string, number>;
  /** Items the index does not list: credits, and documents settled since asOf. */
  readonly extra: { id: string; dueOn: string; owed: number; credit: AgedCredit | null }[];
}

export interface AgedPageOptions {
  /** The id of the last item of the previous page. */
  readonly cursor?: string | undefined;
  /** Items per page; `all` for every item (the owner's overview, the digest, books.ask). */
  readonly limit: number | 'all';
}

export async function agedReport(q: Queryable, orgId: string, type: Kind, asOf: string, page: AgedPageOptions = { limit: 'all' }) {
  const source = SOURCES[type];
  const read = await readConsistently(q, orgId, async (q) => {
    const items =
      page.limit === 'all' && page.cursor === undefined
        ? await readWhole(q, orgId, type, asOf)
        : await readPage(q, orgId, type, asOf, page);
    return { ...items, ...(await controlAccountOf(q, orgId, source, asOf)) };
  });
  const totals = zero();
  for (const p of read.amounts) for (const b of BUCKETS) addTo(totals, b, p[FIELD[b]]);
  invariant(
    totals.totalCents === read.control,
    `${type} as at ${asOf}: open documents total ${totals.totalCents} but control account ${source.code} is ${read.control}`,
  );
  return {
    type,
    asOf,
    controlAccount: { code: source.code, name: read.name, balanceCents: read.control },
    parties: read.page,
    totals,
    nextCursor: read.nextCursor,
  };
}

type PartyRow = { party: string; items: AgedItem[] } & Amounts;

/** The control account's name and balance as at asOf in the report's direction (0, never −0, when nothing is owed). */
async function controlAccountOf(q: Queryable, orgId: string, source: Source, asOf: string) {
  const balance = await accountBalanceCents(q, orgId, source.code, asOf);
  const account = await q.get<{ name: string }>('SELECT name FROM accounts WHERE org_id = ? AND code = ?', [orgId, source.code]);
  return { control: balance === 0 ? 0 : source.sign * balance, name: account?.name ?? source.code };
}

/**
 * Every item in one read, for those who need them all (the owner's overview, the digest,
 * books.ask): the open documents joined to their rows in one statement each (openInvoicesAsOf,
 * openBillsAsOf), cheaper per item than the page's reads party by party. The paged read must give
 * the same parties and items; the tests hold them to it.
 */
async function readWhole(q: Queryable, orgId: string, type: Kind, asOf: string) {
  const source = SOURCES[type];
  const open = type === 'aged_receivables' ? await openInvoicesAsOf(q, orgId, asOf) : await openBillsAsOf(q, orgId, asOf);
  const items: (OpenItem | AgedCredit)[] = [...open, ...(await openCreditsAsOf(q, orgId, source.side, asOf))];
  const parties = new Map<string, PartyRow & { key: string }>();
  // Many documents share a due date and a party name: each worked out once per report.
  const overdue = new Map<string, number>();
  const keys = new Map<string, string>();
  for (const item of items.sort(byThenId((i) => i.dueOn))) {
    let daysOverdue = overdue.get(item.dueOn);
    if (daysOverdue === undefined) overdue.set(item.dueOn, (daysOverdue = daysBetween(item.dueOn, asOf)));
    const bucket = bucketOf(daysOverdue);
    let key = keys.get(item.party);
    if (key === undefined) keys.set(item.party, (key = partyKey(item.party)));
    let party = parties.get(key);
    if (party === undefined) parties.set(key, (party = { key, party: item.party, ...zero(), items: [] }));
    addTo(party, bucket, item.outstandingCents);
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
  const page = [...parties.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(({ key: _, ...row }) => row);
  return { amounts: page, page, nextCursor: null };
}

async function readPage(q: Queryable, orgId: string, type: Kind, asOf: string, page: AgedPageOptions) {
  const source = SOURCES[type];
  const starts = bucketStarts(asOf);
  // One after another: `q` may be a snapshot's single connection.
  const groups = await q.all<{ party_key: string; bucket: number | string; cents: number | string; n: number | string }>(GROUPS_SQL, [
    ...starts,
    orgId,
    source.code,
    source.sign,
  ]);
  const parties = new Map<string, Party>();
  const partyOf = (key: string) => {
    let p = parties.get(key);
    if (!p) parties.set(key, (p = { key, amounts: zero(), count: 0, corrected: new Map(), extra: [] }));
    return p;
  };
  const bucketOn = (dueOn: string) => bucketOf(daysBetween(dueOn, asOf));
  for (const g of groups) {
    const p = partyOf(g.party_key);
    addTo(p.amounts, BUCKETS[Number(g.bucket)] ?? '90+', source.sign * Number(g.cents));
    p.count += Number(g.n);
  }
  await correctToAsOf(q, orgId, source, asOf, partyOf, bucketOn);
  const credits = await openCreditsAsOf(q, orgId, source.side, asOf);
  for (const c of credits) {
    const p = partyOf(partyKey(c.party));
    addTo(p.amounts, bucketOn(c.dueOn), c.outstandingCents);
    p.count += 1;
    p.extra.push({ id: c.id, dueOn: c.dueOn, owed: c.outstandingCents, credit: c });
  }
  for (const [key, p] of parties) if (p.count === 0) parties.delete(key);
  const from = page.cursor === undefined ? null : await placeOf(q, orgId, type, source, page.cursor, credits);
  const { taken, nextCursor } = await itemsFrom(q, orgId, source, parties, from, page.limit);
  return {
    amounts: [...parties.values()].map((p) => p.amounts),
    page: await pageOf(q, orgId, source, asOf, taken),
    nextCursor,
  };
}

/**
 * The documents whose balance moved after asOf: their stored row counted what they owe today;
 * count what they owed then instead. One settled since has no open row and becomes an extra item.
 */
async function correctToAsOf(
  q: Queryable,
  orgId: string,
  source: Source,
  asOf: string,
  partyOf: (key: string) => Party,
  bucketOn: (dueOn: string) => Bucket,
): Promise<void> {
  const later = new Map<string, number>();
  for (const r of await q.all<{ doc_id: string | null; dr: unknown; cr: unknown }>(DOCUMENT_MOVES_AFTER_SQL, [
    orgId,
    orgId,
    asOf,
    source.code,
  ])) {
    if (r.doc_id !== null) later.set(r.doc_id, (later.get(r.doc_id) ?? 0) + Number(r.dr) - Number(r.cr));
  }
  if (later.size === 0) return;
  const rows = await readInParts([...later.keys()], (part) =>
    q.all<{ doc_id: string; party_key: string | null; on_day: string | null; balance_cents: unknown }>(
      `SELECT doc_id, party_key, on_day, balance_cents FROM document_balances
       WHERE org_id = ? AND account_code = ? AND doc_id IN (${placeholders(part.length)})`,
      [orgId, source.code, ...part],
    ),
  );
  for (const r of rows) {
    // A credit's row (no party key) is corrected by openCreditsAsOf.
    if (r.party_key === null || r.on_day === null) continue;
    const moved = later.get(r.doc_id) ?? 0;
    if (moved === 0) continue;
    const stored = Number(r.balance_cents);
    const owingNow = source.sign * stored > 0 ? source.sign * stored : 0;
    const then = source.sign * (stored - moved);
    const owed = then > 0 ? then : 0;
    if (owingNow === owed) continue;
    const p = partyOf(r.party_key);
    const bucket = bucketOn(r.on_day);
    if (owingNow !== 0) {
      addTo(p.amounts, bucket, -owingNow);
      p.count -= 1;
    }
    if (owed !== 0) {
      addTo(p.amounts, bucket, owed);
      p.count += 1;
    }
    if (owingNow !== 0) p.corrected.set(r.doc_id, owed);
    else p.extra.push({ id: r.doc_id, dueOn: r.on_day, owed, credit: null });
  }
}

/** Where the item `cursor` sits: a document's kept key and due date, or a credit's. */
async function placeOf(q: Queryable, orgId: string, type: Kind, source: Source, cursor: string, credits: readonly AgedCredit[]) {
  const credit = credits.find((c) => c.id === cursor);
  if (credit) return { key: partyKey(credit.party), dueOn: credit.dueOn, id: credit.id };
  // A credit used up since the previous page: its contact and date still place it.
  const used = await q.get<{ dated: string; name: string }>(
    `SELECT d.dated AS dated, k.name AS name FROM contact_credits d JOIN contacts k ON k.org_id = d.org_id AND k.id = d.contact_id
     WHERE d.org_id = ? AND d.id = ? AND d.side = ?`,
    [orgId, cursor, source.side],
  );
  if (used) return { key: partyKey(used.name), dueOn: used.dated, id: cursor };
  const row = await q.get<{ party_key: string; on_day: string }>(
    'SELECT party_key, on_day FROM document_balances WHERE org_id = ? AND account_code = ? AND doc_id = ? AND party_key IS NOT NULL',
    [orgId, source.code, cursor],
  );
  // A document paid since the previous page still has its row: the next page goes on after it.
  if (!row) throw badRequest(`cursor: ${cursor} is not an item of ${type}; pass the nextCursor of the previous page`);
  return { key: row.party_key, dueOn: row.on_day, id: cursor };
}

interface Taken {
  readonly party: Party;
  readonly id: string;
  readonly owed: number;
  readonly credit: AgedCredit | null;
}

/**
 * The page's items from `from` (exclusive) on, party by party in key order and within a party by
 * due date and id, with one more than the page when there is one (so nextCursor is exact).
 */
async function itemsFrom(
  q: Queryable,
  orgId: string,
  source: Source,
  parties: ReadonlyMap<string, Party>,
  from: Place | null,
  limit: number | 'all',
): Promise<{ taken: Taken[]; nextCursor: string | null }> {
  const keys = [...parties.keys()].sort();
  const wanted = limit === 'all' ? Number.POSITIVE_INFINITY : limit + 1;
  const taken: Taken[] = [];
  for (const key of keys) {
    if (taken.length >= wanted) break;
    if (from && key < from.key) continue;
    const party = parties.get(key);
    if (!party) continue;
    const start = from && key === from.key ? from : START;
    const need = Math.min(wanted - taken.length, party.count);
    for (const item of await partyItems(q, orgId, source, party, start, need)) taken.push(item);
  }
  if (limit === 'all' || taken.length <= limit) return { taken, nextCursor: null };
  const page = taken.slice(0, limit);
  return { taken: page, nextCursor: page.at(-1)?.id ?? null };
}

/** Up to `need` items of one party after `start`, as at asOf. */
async function partyItems(q: Queryable, orgId: string, source: Source, party: Party, start: Omit<Place, 'key'>, need: number) {
  if (need <= 0) return [];
  // Corrected documents may drop out (nothing owed then): read as many more.
  const limit = need + party.corrected.size;
  const rows = await q.all<{ doc_id: string; on_day: string; balance_cents: unknown }>(PARTY_PAGE_SQL, [
    orgId,
    source.code,
    source.sign,
    party.key,
    start.dueOn,
    start.dueOn,
    start.id,
    limit,
  ]);
  const found: (Taken & { dueOn: string })[] = [];
  for (const r of rows) {
    const owed = party.corrected.get(r.doc_id) ?? source.sign * Number(r.balance_cents);
    if (owed !== 0) found.push({ party, id: r.doc_id, dueOn: r.on_day, owed, credit: null });
  }
  // When the index read stopped short, at least `need` of its rows are kept (only corrected ones
  // drop out), so an extra item past its last row is cut off below, not put before unread rows.
  for (const e of party.extra) if (after(e, start)) found.push({ party, id: e.id, dueOn: e.dueOn, owed: e.owed, credit: e.credit });
  return found.sort(byThenId((t) => t.dueOn)).slice(0, need);
}

/** The page's parties in order, each with its amounts over all items and this page's items. */
async function pageOf(q: Queryable, orgId: string, source: Source, asOf: string, taken: readonly Taken[]) {
  const balances = new Map<string, number>();
  // Debit-positive, as the documents' item readers take them.
  for (const t of taken) if (t.credit === null) balances.set(t.id, source.sign * t.owed);
  const documents = new Map((await source.items(q, orgId, balances)).map((o) => [o.id, o]));
  const rows: PartyRow[] = [];
  let current: PartyRow | undefined;
  let currentKey: string | undefined;
  for (const t of taken) {
    const item = t.credit ?? documents.get(t.id);
    invariant(item !== undefined, `aged item ${t.id} has no posted document`);
    if (currentKey !== t.party.key || !current) {
      current = { party: item.party, ...t.party.amounts, items: [] };
      currentKey = t.party.key;
      rows.push(current);
    }
    const daysOverdue = daysBetween(item.dueOn, asOf);
    current.items.push({
      id: item.id,
      reference: item.reference,
      issuedOn: item.issuedOn,
      dueOn: item.dueOn,
      daysOverdue,
      bucket: bucketOf(daysOverdue),
      totalCents: item.totalCents,
      outstandingCents: item.outstandingCents,
    });
  }
  return rows;
}
