import type { Migration } from '../../storage/migration-types.js';
import { textList, type NearestRead } from '../../storage/sql.js';
import type { Capabilities, Queryable, Writer } from '../../storage/types.js';
import { lookupWords } from './words.js';

/**
 * The bank postings a bank line can be matched to, kept for looking up (`bank_journal_words`):
 * a line's suggestions read the postings of its amount and of its words nearest its date, instead
 * of every posting on the bank account within 60 days of the page's lines (at 100 000 documents
 * that window held thousands of payments, each summed from its lines on every request).
 *
 * Rows per journal and bank account it moves (net not zero): one keyed by the amount moved
 * (`=<cents>`, unsigned) and one per lookup word of the journal as suggest.ts scores it (party:
 * its memo, reference: its id). A journal does not change once posted; what changes is how much
 * of it bank lines account for, kept in `state`: 1 no line does (what is left is the amount), 2
 * lines account for part of it (what is left is not the amount: the few such rows in the window
 * are read apart), 0 all of it (no longer a candidate). Written by postJournal for every
 * journal on a bank account (as checkBankAccount decides: the bank system account, an account
 * with a bank record, an asset account with no role); `state` is set again wherever a match on a
 * journal is made or reversed (refreshBankJournal). Whether a recode journal counts on an account
 * depends on its line and is decided when the candidates are read (documents.ts).
 */

/** Words stored per journal and account, as for documents: a memo longer than this is not a name. */
export const JOURNAL_WORDS_MAX = 24;

/** The key of the amount row: what the journal moved on the account, unsigned (never a word: words have no `=`). */
export const amountKey = (cents: number): string => `=${Math.abs(cents)}`;

/** A journal's lookup words, as journalTarget (documents.ts) names it for scoring. */
export const journalWords = (id: string, memo: string): string[] =>
  lookupWords({ id, party: memo, reference: id, quoted: [] }).slice(0, JOURNAL_WORDS_MAX);

/** checkBankAccount (banking/accounts.ts) over the row `a` of accounts. */
const IS_BANK_ACCOUNT = `(a.system_key = 'bank' OR (a.type = 'asset' AND a.system_key IS NULL)
  OR EXISTS (SELECT 1 FROM bank_accounts r WHERE r.org_id = a.org_id AND r.account_code = a.code))`;

/**
 * `state` from the journal's live matches (as matchedOnJournals sums them) against its `net`.
 * Parameters: orgId, journal id, orgId, journal id.
 */
const stateOf = (net: string) => `CASE
  WHEN NOT EXISTS (SELECT 1 FROM bank_feed_matches m WHERE m.org_id = ? AND m.journal_id = ? AND m.reversed_at IS NULL) THEN 1
  WHEN (SELECT SUM(ABS(m.amount_cents)) FROM bank_feed_matches m WHERE m.org_id = ? AND m.journal_id = ? AND m.reversed_at IS NULL) < ABS(${net}) THEN 2
  ELSE 0 END`;

/**
 * A journal's rows: `count` (account, net, key) triples, a null key skipped (the backfill pads to
 * a fixed count); only accounts that are bank accounts get rows. Whichever of this and a match on
 * the journal is written first, `state` ends right (this reads the matches; refreshBankJournal
 * runs after a match).
 */
function insertSql(count: number): string {
  return `INSERT INTO bank_journal_words (org_id, account_code, word, direction, on_day, journal_id, net_cents, state)
    SELECT a.org_id, a.code, v.column3, CASE WHEN v.column2 > 0 THEN 'in' ELSE 'out' END, ?, ?, v.column2, ${stateOf('v.column2')}
    FROM (VALUES ${Array.from({ length: count }, () => '(CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT))').join(', ')}) v
    JOIN accounts a ON a.org_id = ? AND a.code = v.column1
    WHERE v.column3 IS NOT NULL AND ${IS_BANK_ACCOUNT}
    ON CONFLICT (org_id, account_code, word, journal_id) DO NOTHING`;
}

type Triple = readonly [string, number, string | null];

function triplesOf(id: string, memo: string, nets: ReadonlyMap<string, number>): Triple[] {
  const words = journalWords(id, memo);
  return [...nets]
    .filter(([, net]) => net !== 0)
    .flatMap(([account, net]): Triple[] => [[account, net, amountKey(net)], ...words.map((w): Triple => [account, net, w])]);
}

function insertParams(orgId: string, id: string, date: string, triples: readonly Triple[]): (string | number | null)[] {
  return [date, id, orgId, id, orgId, id, ...triples.flat(), orgId];
}

/** Net (debit-positive) per account of a journal's lines. */
function netsOf(lines: readonly { accountCode: string; debitCents: number; creditCents: number }[]): Map<string, number> {
  const nets = new Map<string, number>();
  for (const l of lines) nets.set(l.accountCode, (nets.get(l.accountCode) ?? 0) + l.debitCents - l.creditCents);
  return nets;
}

/** A posted journal's rows, queued with its lines (postJournal): one statement per journal. */
export async function indexBankJournal(
  w: Pick<Writer, 'later'>,
  orgId: string,
  journal: { id: string; date: string; memo: string },
  lines: readonly { accountCode: string; debitCents: number; creditCents: number }[],
): Promise<void> {
  const triples = triplesOf(journal.id, journal.memo, netsOf(lines));
  if (triples.length === 0) return;
  await w.later(insertSql(triples.length), insertParams(orgId, journal.id, journal.date, triples));
}

const REFRESH_SQL = `UPDATE bank_journal_words SET state = ${stateOf('net_cents')} WHERE org_id = ? AND journal_id = ?`;

/** Set a journal's `state` again after a match on it was made or reversed (no rows: not a bank posting). */
export async function refreshBankJournal(q: Pick<Queryable, 'run'>, orgId: string, journalId: string | null): Promise<void> {
  if (journalId === null) return;
  await q.run(REFRESH_SQL, [orgId, journalId, orgId, journalId, orgId, journalId]);
}

/** Each journal's net on each bank account it moves; `scope` narrows (one organisation). */
const BANK_POSTINGS = (scope: string) => `SELECT j.org_id AS org_id, j.id AS id, j.date AS date, j.memo AS memo,
    l.account_code AS account_code, SUM(l.debit_cents) - SUM(l.credit_cents) AS net
  FROM journals j JOIN journal_lines l ON l.org_id = j.org_id AND l.journal_id = j.id
  JOIN accounts a ON a.org_id = l.org_id AND a.code = l.account_code
  WHERE ${IS_BANK_ACCOUNT} ${scope}
  GROUP BY j.org_id, j.id, j.date, j.memo, l.account_code
  HAVING SUM(l.debit_cents) - SUM(l.credit_cents) <> 0`;

type Row = Readonly<Record<string, unknown>>;

/** A backfill row's statement params, padded to the fixed count of the migration's statement. */
function backfillParams(r: Row): (string | number | null)[] {
  const id = String(r.id);
  const triples = triplesOf(id, String(r.memo), new Map([[String(r.account_code), Number(r.net)]]));
  while (triples.length < JOURNAL_WORDS_MAX + 1) triples.push([String(r.account_code), Number(r.net), null]);
  return insertParams(String(r.org_id), id, String(r.date), triples);
}

/**
 * Migration 66: the table; the lookup index (a key's open postings of one direction by date,
 * covering); the postings lines account for part of, by date; and a journal's rows, for
 * refreshBankJournal. Backfilled from every journal's bank postings.
 */
export const migration: Migration = {
  id: 66,
  name: 'bank journal words for match suggestions',
  statements: [
    `CREATE TABLE bank_journal_words (
      org_id TEXT NOT NULL,
      account_code TEXT NOT NULL,
      word TEXT NOT NULL,
      direction TEXT NOT NULL,
      on_day TEXT NOT NULL,
      journal_id TEXT NOT NULL,
      net_cents BIGINT NOT NULL,
      state BIGINT NOT NULL,
      PRIMARY KEY (org_id, account_code, word, journal_id)
    )`,
    'CREATE INDEX bank_journal_words_lookup ON bank_journal_words (org_id, account_code, word, direction, on_day, journal_id) WHERE state = 1',
    'CREATE INDEX bank_journal_words_part ON bank_journal_words (org_id, account_code, on_day, journal_id) WHERE state = 2',
    'CREATE INDEX bank_journal_words_journal ON bank_journal_words (org_id, journal_id)',
  ],
  backfill: { select: BANK_POSTINGS(''), update: insertSql(JOURNAL_WORDS_MAX + 1), params: backfillParams },
};

/** Replace an organisation's rows with those of its journals (seeding that writes journals directly; tests). */
export async function rebuildBankJournalWords(q: Queryable, orgId: string): Promise<void> {
  await q.run('DELETE FROM bank_journal_words WHERE org_id = ?', [orgId]);
  for (const r of await q.all<Row>(BANK_POSTINGS('AND j.org_id = ?'), [orgId])) {
    const id = String(r.id);
    const triples = triplesOf(id, String(r.memo), new Map([[String(r.account_code), Number(r.net)]]));
    await q.run(insertSql(triples.length), insertParams(orgId, id, String(r.date), triples));
  }
}

/** The kept rows, sorted, beside the rows the journals and matches give (equal when the table is right). */
export async function bankJournalWordsCheck(q: Queryable, orgId: string): Promise<{ kept: string[]; expected: string[] }> {
  const matched = new Map<string, number>();
  for (const m of await q.all<{ journal_id: string; matched: unknown }>(
    `SELECT journal_id, SUM(ABS(amount_cents)) AS matched FROM bank_feed_matches
     WHERE org_id = ? AND journal_id IS NOT NULL AND reversed_at IS NULL GROUP BY journal_id`,
    [orgId],
  )) {
    matched.set(m.journal_id, Number(m.matched));
  }
  const expected = (await q.all<Row>(BANK_POSTINGS('AND j.org_id = ?'), [orgId])).flatMap((r) => {
    const id = String(r.id);
    const net = Number(r.net);
    const m = matched.get(id);
    const state = m === undefined ? 1 : m < Math.abs(net) ? 2 : 0;
    return triplesOf(id, String(r.memo), new Map([[String(r.account_code), net]])).map(
      ([account, , word]) => `${account} ${word} ${id} ${net > 0 ? 'in' : 'out'} ${String(r.date)} ${net} ${state}`,
    );
  });
  const kept = (
    await q.all<Row>(
      'SELECT account_code, word, journal_id, direction, on_day, net_cents, state FROM bank_journal_words WHERE org_id = ?',
      [orgId],
    )
  ).map(
    (r) =>
      `${String(r.account_code)} ${String(r.word)} ${String(r.journal_id)} ${String(r.direction)} ${String(r.on_day)} ${Number(r.net_cents)} ${Number(r.state)}`,
  );
  return { kept: kept.sort(), expected: expected.sort() };
}

/**
 * Nearest-by-date reads of open postings (state 1) of a key, within a window, for many lookups
 * at once (storage/sql.ts readNearest): those on or after the line's date up to the window's end,
 * ascending, and those before it down to its start, descending, ties cut in index order
 * (bank_journal_words_lookup). Parameters: orgId, account; after, the window's end; before, its start.
 */
export const JOURNAL_READ: NearestRead = {
  table: 'bank_journal_words',
  row: `on_day || ' ' || net_cents || ' ' || journal_id`,
  where: 'org_id = ? AND account_code = ? AND state = 1',
  keys: [
    ['word', 'text'],
    ['direction', 'text'],
  ],
  day: 'on_day',
  order: ['journal_id'],
  after: 'on_day <= ?',
  before: 'on_day >= ?',
};

/** Postings lines account for part of, within a window (few: every one is a candidate). */
export const PART_MATCHED_SQL = `SELECT DISTINCT journal_id FROM bank_journal_words
  WHERE org_id = ? AND account_code = ? AND state = 2 AND on_day >= ? AND on_day <= ?`;

/** Of the keys (textList), those the account has rows for. Parameters: the keys, orgId, account. */
export const knownKeysSql = (engine: Capabilities['engine']) => `SELECT k.value AS word FROM ${textList(engine)}
  WHERE EXISTS (SELECT 1 FROM bank_journal_words w WHERE w.org_id = ? AND w.account_code = ? AND w.word = k.value)`;
