import { addDays, daysBetween } from '../../clock.js';
import { readNearest, textList, textListParam, type NearestRead } from '../../storage/sql.js';
import type { Migration } from '../../storage/migration-types.js';
import type { Capabilities, Queryable, Writer } from '../../storage/types.js';
import { CLAIMS_ACCOUNT, openClaimsOf } from '../expenses/ledger-api.js';
import { IS_OPEN } from '../gl/document-balances.js';
import { partyKey } from '../gl/open-items.js';
import { DOCUMENT_MOVES_AFTER_SQL, owedOnDocuments } from '../gl/post.js';
import { openBillsOf, PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { openInvoicesOf, quotedOf, RECEIVABLES_ACCOUNT } from '../receivables/ledger-api.js';
import { amountKey, JOURNAL_READ, knownKeysSql, PART_MATCHED_SQL } from './bank-journal-words.js';
import { openJournalsOf, unreconciledJournalsOf, type Target } from './documents.js';
import { fromOpenItem, lookupWords, wordsOfLine, type Named, type SuggestLine } from './suggest.js';

type Engine = Capabilities['engine'];

/**
 * The words of posted invoices, bills and claims that a bank line can be matched by
 * (`document_words`), so that a line's suggestions come from looking up its own words and amount
 * instead of loading every open document of the organisation and indexing them per request.
 *
 * A row per document and lookup word (suggest.ts lookupWords: the payee's name words and each
 * reference's longest word), with the document's direction (money in for an invoice, out for a
 * bill or claim), the date a line's distance is measured to (due date; a claim's approval) and
 * whether the document is open. Written when a document is posted (invoiceSend, a bill's
 * approval, expenseApprove, a conversion's carried-in invoices and bills); a document's name and
 * references do not change once posted. `is_open` follows the document's balance: postJournal
 * sets it from document_balances with every movement on a control account (gl/document-balances.ts),
 * so the lookup index holds only documents that owe something and a payee's paid history costs
 * nothing.
 */

/** The control account of each kind of document. */
const WORD_ACCOUNTS: Readonly<Record<'invoice' | 'bill' | 'claim', string>> = {
  invoice: RECEIVABLES_ACCOUNT,
  bill: PAYABLES_ACCOUNT,
  claim: CLAIMS_ACCOUNT,
};

/**
 * At most this many words are stored per document: a party name of more words than this is not
 * a name; the words past it are not looked up (scoring still sees them once a document is found).
 */
export const WORDS_PER_DOCUMENT_MAX = 24;

/**
 * Per line, per word and side of the line's date, the documents nearest by due date that are read
 * (so at most twice this many per word, of which the nearest this many are kept): a payee with
 * thousands of open invoices costs a line this many, not thousands. A reference's word names one
 * document or a few, so the bound only ever cuts a payee's (or a common word's) list.
 */
export const DOCUMENTS_PER_WORD = 50;

/**
 * Likewise for the documents owing exactly what is left of a line, nearest by due date: many
 * open invoices of one amount (a monthly fee) cost a line this many. A document of that amount
 * beyond it still scores if a word of the line names it (its reference, its payee's nearest).
 */
export const DOCUMENTS_PER_AMOUNT = 50;

/** A document as its words come from it. */
export interface WordDocument extends Named {
  readonly kind: 'invoice' | 'bill' | 'claim';
  /** Due date (a claim: its posting date), what daysApart is measured to. */
  readonly day: string;
}

const direction = (kind: WordDocument['kind']) => (kind === 'invoice' ? 'in' : 'out');

/** The stored words of a document: lookupWords, capped. */
export const wordsOfDocument = (d: WordDocument): string[] => lookupWords(d).slice(0, WORDS_PER_DOCUMENT_MAX);

/** A document's words, each row with whether it is open now (its balance row, if already written). */
function insertSql(count: number): string {
  return `INSERT INTO document_words (org_id, word, direction, on_day, kind, doc_id, account_code, is_open)
    SELECT ?, v.column1, ?, ?, ?, ?, ?, ${IS_OPEN}
    FROM (VALUES ${Array.from({ length: count }, () => '(?)').join(', ')}) v WHERE v.column1 IS NOT NULL
    ON CONFLICT (org_id, word, kind, doc_id) DO NOTHING`;
}

function insertParams(orgId: string, d: WordDocument, words: readonly (string | null)[]): (string | null)[] {
  const account = WORD_ACCOUNTS[d.kind];
  return [orgId, direction(d.kind), d.day, d.kind, d.id, account, orgId, account, d.id, ...words];
}

/**
 * Store a posted document's words, queued with its unit: whichever of this and the journal's
 * balance row is written first, `is_open` ends right (the insert reads the balance row; the
 * balance upsert's SET_OPEN_SQL updates the words).
 */
export async function indexDocumentWords(w: Pick<Writer, 'later'>, orgId: string, d: WordDocument): Promise<void> {
  await w.later(SET_DAY_SQL, dayParams(orgId, d));
  const words = wordsOfDocument(d);
  if (words.length === 0) return;
  await w.later(insertSql(words.length), insertParams(orgId, d, words));
}

/**
 * The document's due date and its party's key on its balance row (document_balances.on_day,
 * party_key), for the amount lookup and the aged reports. An upsert: the journal's own upsert may
 * come before or after it in the unit (a row at zero until the lines' amounts are added is what
 * the journal's upsert then adds to).
 */
const SET_DAY_SQL = `INSERT INTO document_balances (org_id, account_code, doc_id, debit_cents, credit_cents, balance_cents, on_day, party_key)
  VALUES (?, ?, ?, 0, 0, 0, ?, ?)
  ON CONFLICT (org_id, account_code, doc_id) DO UPDATE SET on_day = excluded.on_day, party_key = excluded.party_key`;

const dayParams = (orgId: string, d: WordDocument) => [orgId, WORD_ACCOUNTS[d.kind], d.id, d.day, partyKey(d.party)];

/** SET_DAY_SQL as migration 61 ran it, before balance rows had a party key (migration 67). */
const SET_DAY_ONLY_SQL = `INSERT INTO document_balances (org_id, account_code, doc_id, debit_cents, credit_cents, balance_cents, on_day)
  VALUES (?, ?, ?, 0, 0, 0, ?)
  ON CONFLICT (org_id, account_code, doc_id) DO UPDATE SET on_day = excluded.on_day`;

export const invoiceWords = (r: {
  id: string;
  payee_name: string;
  number: string | null;
  reference: string | null;
  due_on: string;
}): WordDocument => ({
  kind: 'invoice',
  id: r.id,
  party: r.payee_name,
  reference: r.id,
  quoted: quotedOf(r.number, r.reference),
  day: r.due_on,
});

export const billWords = (r: {
  id: string;
  payee_name: string;
  payee_reference: string | null;
  description: string;
  reference: string | null;
  due_on: string;
}): WordDocument => ({
  kind: 'bill',
  id: r.id,
  party: r.payee_name,
  reference: r.payee_reference ?? r.description,
  quoted: r.reference === null ? [] : [r.reference],
  day: r.due_on,
});

export const claimWords = (r: { id: string; claimant: string; receipt_ref: string; posted_on: string }): WordDocument => ({
  kind: 'claim',
  id: r.id,
  party: r.claimant,
  reference: r.receipt_ref,
  quoted: [],
  day: r.posted_on,
});

/** Every posted document of each kind, with what its words come from; `scope` narrows (one organisation). */
const POSTED = (scope: string) => ({
  invoice: `SELECT org_id, id, payee_name, number, reference, due_on FROM invoices WHERE journal_id IS NOT NULL ${scope}`,
  bill: `SELECT org_id, id, payee_name, payee_reference, description, reference, due_on FROM bills WHERE journal_id IS NOT NULL ${scope}`,
  claim: `SELECT c.org_id AS org_id, c.id AS id, c.claimant AS claimant, c.receipt_ref AS receipt_ref, j.date AS posted_on
    FROM expense_claims c JOIN journals j ON j.org_id = c.org_id AND j.id = c.journal_id WHERE c.journal_id IS NOT NULL ${scope.replaceAll('org_id', 'c.org_id')}`,
});

type Row = Readonly<Record<string, unknown>>;
/** Text columns as read (a number only where a driver gives one for a numeric-looking value). */
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const documentOf: Record<WordDocument['kind'], (r: Row) => WordDocument> = {
  invoice: (r) =>
    invoiceWords({
      id: String(r.id),
      payee_name: String(r.payee_name),
      number: str(r.number),
      reference: str(r.reference),
      due_on: String(r.due_on),
    }),
  bill: (r) =>
    billWords({
      id: String(r.id),
      payee_name: String(r.payee_name),
      payee_reference: str(r.payee_reference),
      description: String(r.description),
      reference: str(r.reference),
      due_on: String(r.due_on),
    }),
  claim: (r) =>
    claimWords({ id: String(r.id), claimant: String(r.claimant), receipt_ref: String(r.receipt_ref), posted_on: String(r.posted_on) }),
};

/** One statement per document with room for every word (the backfill runs one per row). */
const fixedWords = (d: WordDocument) => {
  const words: (string | null)[] = wordsOfDocument(d);
  while (words.length < WORDS_PER_DOCUMENT_MAX) words.push(null);
  return words;
};

/**
 * Migration 67: each posted document's party key on its balance row, and the index the aged
 * reports read an account's open documents by, party by party, oldest due first (covering: the
 * balance is in it). A credit's row has none (its party is its contact's name, which can change),
 * so the open rows without a key are the open credits: one range of the same index.
 */
export const partyKeyMigration: Migration = {
  id: 67,
  name: 'party keys of documents for aged reports',
  statements: [
    'ALTER TABLE document_balances ADD COLUMN party_key TEXT',
    `CREATE INDEX document_balances_party ON document_balances (org_id, account_code, party_key, on_day, doc_id, balance_cents)
      WHERE balance_cents <> 0`,
  ],
  backfill: (['invoice', 'bill', 'claim'] as const).map((kind) => ({
    select: POSTED('')[kind],
    update: SET_DAY_SQL,
    params: (row: Row) => dayParams(String(row.org_id), documentOf[kind](row)),
  })),
};

/**
 * Migration 61: the table, its lookup index (open documents only, a word's documents of one
 * direction in due-date order, covering) and the index postJournal's `is_open` update finds a
 * document's words by; backfilled from every posted document after document_balances (60).
 */
export const migration: Migration = {
  id: 61,
  name: 'document words for match suggestions',
  statements: [
    `CREATE TABLE document_words (
      org_id TEXT NOT NULL,
      word TEXT NOT NULL,
      direction TEXT NOT NULL,
      on_day TEXT NOT NULL,
      kind TEXT NOT NULL,
      doc_id TEXT NOT NULL,
      account_code TEXT NOT NULL,
      is_open BIGINT NOT NULL,
      PRIMARY KEY (org_id, word, kind, doc_id)
    )`,
    'CREATE INDEX document_words_lookup ON document_words (org_id, word, direction, on_day, kind, doc_id) WHERE is_open = 1',
    'CREATE INDEX document_words_doc ON document_words (org_id, account_code, doc_id)',
  ],
  backfill: (['invoice', 'bill', 'claim'] as const).flatMap((kind) => [
    {
      select: POSTED('')[kind],
      update: insertSql(WORDS_PER_DOCUMENT_MAX),
      params: (row: Row) => insertParams(String(row.org_id), documentOf[kind](row), fixedWords(documentOf[kind](row))),
    },
    {
      select: POSTED('')[kind],
      update: SET_DAY_ONLY_SQL,
      params: (row: Row) => dayParams(String(row.org_id), documentOf[kind](row)).slice(0, 4),
    },
  ]),
};

/** Every posted document of an organisation as WordDocument. */
async function postedDocuments(q: Queryable, orgId: string): Promise<WordDocument[]> {
  const out: WordDocument[] = [];
  for (const kind of ['invoice', 'bill', 'claim'] as const) {
    for (const r of await q.all<Row>(POSTED('AND org_id = ?')[kind], [orgId])) out.push(documentOf[kind](r));
  }
  return out;
}

/**
 * Replace an organisation's rows with those of its posted documents, and set their due dates on
 * their balance rows (seeding that writes documents directly, after rebuilding the balances; tests).
 */
export async function rebuildDocumentWords(q: Queryable, orgId: string): Promise<void> {
  await q.run('DELETE FROM document_words WHERE org_id = ?', [orgId]);
  for (const d of await postedDocuments(q, orgId)) {
    await q.run(SET_DAY_SQL, dayParams(orgId, d));
    const words = wordsOfDocument(d);
    if (words.length > 0) await q.run(insertSql(words.length), insertParams(orgId, d, words));
  }
}

/** The kept rows, sorted, beside the rows its documents and balances give (equal when the table is right). */
export async function documentWordsCheck(q: Queryable, orgId: string): Promise<{ kept: string[]; expected: string[] }> {
  const open = new Set(
    (
      await q.all<{ account_code: string; doc_id: string }>(
        'SELECT account_code, doc_id FROM document_balances WHERE org_id = ? AND balance_cents <> 0',
        [orgId],
      )
    ).map((r) => `${r.account_code}:${r.doc_id}`),
  );
  const expected = (await postedDocuments(q, orgId)).flatMap((d) =>
    wordsOfDocument(d).map(
      (w) => `${w} ${d.kind} ${d.id} ${direction(d.kind)} ${d.day} ${open.has(`${WORD_ACCOUNTS[d.kind]}:${d.id}`) ? 1 : 0}`,
    ),
  );
  const days = await q.all<{ account_code: string; doc_id: string; on_day: string; party_key: string | null }>(
    'SELECT account_code, doc_id, on_day, party_key FROM document_balances WHERE org_id = ? AND on_day IS NOT NULL',
    [orgId],
  );
  const posted = await postedDocuments(q, orgId);
  expected.push(...posted.map((d) => `@${WORD_ACCOUNTS[d.kind]} ${d.id} ${d.day} ${partyKey(d.party)}`));
  const kept = (
    await q.all<{ word: string; kind: string; doc_id: string; direction: string; on_day: string; is_open: unknown }>(
      'SELECT word, kind, doc_id, direction, on_day, is_open FROM document_words WHERE org_id = ?',
      [orgId],
    )
  )
    .map((r) => `${r.word} ${r.kind} ${r.doc_id} ${r.direction} ${r.on_day} ${Number(r.is_open)}`)
    .concat(days.map((r) => `@${r.account_code} ${r.doc_id} ${r.on_day} ${r.party_key}`));
  return { kept: kept.sort(), expected: [...new Set(expected)].sort() };
}

/**
 * The nearest-by-date reads of a request's lookups, each one statement of a fixed text for all of
 * them (storage/sql.ts readNearest): by word, a word's open documents of one direction by due date
 * (document_words_lookup); by amount, a control account's open documents owing exactly that
 * (document_balances_open). Ties on a day are cut in index order, as a read of one lookup's halves
 * ordered by the day alone was.
 */
export const WORD_READ: NearestRead = {
  table: 'document_words',
  row: `on_day || ' ' || kind || ':' || doc_id`,
  where: 'org_id = ? AND is_open = 1',
  keys: [
    ['word', 'text'],
    ['direction', 'text'],
  ],
  day: 'on_day',
  order: ['kind', 'doc_id'],
};
export const AMOUNT_READ: NearestRead = {
  table: 'document_balances',
  row: `on_day || ' ' || doc_id`,
  where: 'org_id = ? AND balance_cents <> 0',
  keys: [
    ['account_code', 'text'],
    ['balance_cents', 'bigint'],
  ],
  day: 'on_day',
  order: ['doc_id'],
};

/** Of the lines' words, those any document has: one statement of a fixed text. */
async function knownWords(q: Queryable, engine: Engine, orgId: string, words: readonly string[]): Promise<Set<string>> {
  if (words.length === 0) return new Set();
  const rows = await q.all<{ value: string }>(
    `SELECT k.value AS value FROM ${textList(engine)} WHERE EXISTS (SELECT 1 FROM document_words d WHERE d.org_id = ? AND d.word = k.value)`,
    [textListParam(engine, words), orgId],
  );
  return new Set(rows.map((r) => r.value));
}

/** Days since 1970 of an ISO date, remembered: the same few hundred dates recur across a request's lines. */
const dayNumbers = new Map<string, number>();
function dayNumber(date: string): number {
  let n = dayNumbers.get(date);
  if (n === undefined) {
    n = daysBetween('1970-01-01', date);
    if (dayNumbers.size > 100_000) dayNumbers.clear();
    dayNumbers.set(date, n);
  }
  return n;
}

/** The `count` nearest to `date` by day (then by key, so a tie is cut the same way every time). */
function nearest(rows: readonly { k: string; on_day: string }[], date: string, count: number): string[] {
  const apart = rows.map((r) => ({ k: r.k, days: Math.abs(dayNumber(r.on_day) - dayNumber(date)) }));
  apart.sort((a, b) => a.days - b.days || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return [...new Set(apart.map((r) => r.k))].slice(0, count);
}

const KINDS_OF: Record<'in' | 'out', readonly WordDocument['kind'][]> = { in: ['invoice'], out: ['bill', 'claim'] };
/** Debit-positive sign of what a document of the kind owes. */
const SIGN: Record<WordDocument['kind'], number> = { invoice: 1, bill: -1, claim: -1 };

/**
 * What each line can match, each line answered as if asked alone (the request's lookups are read
 * together, a statement per table, but bounded and kept per line): the documents open today that it can score
 * against — those owing exactly what is left of it (at most DOCUMENTS_PER_AMOUNT, nearest by due
 * date), those with one of its words (at most DOCUMENTS_PER_WORD per word, likewise), and those
 * whose balance moved after today (their balance as at today is not the stored one, so neither
 * lookup sees it reliably; usually none) — and the bank postings within 60 days of the lines'
 * dates that no line accounts for yet, looked up likewise (journalsNear). Feed to
 * rankAmong(line, [documents[i]]). `engine` picks the text of the batched reads (storage/sql.ts readNearest).
 */
export async function lookupTargets(
  q: Queryable,
  engine: Engine,
  orgId: string,
  bankAccount: string,
  today: string,
  lines: readonly SuggestLine[],
): Promise<{ documents: Target[][] }> {
  // One after another: inside a write `q` is the transaction's single connection.
  const key = (kind: string, id: string) => `${kind}:${id}`;
  // What moved after today per document (debit-positive), so balances are as at today.
  const later = new Map<string, number>();
  const movedLater: Record<'in' | 'out', string[]> = { in: [], out: [] };
  for (const kind of ['invoice', 'bill', 'claim'] as const) {
    for (const r of await q.all<{ doc_id: string | null; dr: unknown; cr: unknown }>(DOCUMENT_MOVES_AFTER_SQL, [
      orgId,
      orgId,
      today,
      WORD_ACCOUNTS[kind],
    ])) {
      if (r.doc_id === null) continue;
      const k = key(kind, r.doc_id);
      if (!later.has(k)) movedLater[direction(kind)].push(k);
      later.set(k, (later.get(k) ?? 0) + Number(r.dr) - Number(r.cr));
    }
  }
  // Of the lines' words, those any document has (most of a line's words are no document's: one
  // probe for all of them, instead of a nearest-by-date read per line each). EXISTS stops at a
  // word's first row, where DISTINCT would walk all of a payee's documents.
  const known = await knownWords(q, engine, orgId, [...new Set(lines.flatMap(wordsOfLine))]);
  // Lines of one direction, date and amount share the amount lookup; of one direction, date and
  // word the word lookup: each is read once per request.
  const wantedOf: string[][] = [];
  const words: { src: string; date: string; row: [string, string, string] }[] = [];
  const amounts: { src: string; date: string; cents: number; kinds: readonly WordDocument['kind'][] }[] = [];
  const asked = new Set<string>();
  for (const line of lines) {
    const dir = line.amountCents > 0 ? 'in' : 'out';
    const srcs: string[] = [];
    if (line.remainingCents > 0) {
      const src = `= ${dir} ${line.date} ${line.remainingCents}`;
      srcs.push(src);
      if (!asked.has(src)) amounts.push({ src, date: line.date, cents: line.remainingCents, kinds: KINDS_OF[dir] });
      asked.add(src);
    }
    for (const word of wordsOfLine(line)) {
      if (!known.has(word)) continue;
      const src = `w ${dir} ${line.date} ${word}`;
      srcs.push(src);
      if (!asked.has(src)) words.push({ src, date: line.date, row: [word, dir, line.date] });
      asked.add(src);
    }
    wantedOf.push(srcs);
  }
  // Every lookup of the request in two statements of fixed texts (prepared once), whatever the
  // lines: a statement per lookup cost about a millisecond per line on SQLite, and a line's
  // lookups joined into one statement were a new text to prepare for nearly every line.
  const answered = new Map<string, string[]>();
  // The stored balance of each document found by its amount (debit-positive).
  const stored = new Map<string, number>();
  const byWord = await readNearest(
    q,
    engine,
    WORD_READ,
    words.map((w) => w.row),
    DOCUMENTS_PER_WORD,
    { where: [orgId] },
  );
  words.forEach((w, i) => {
    const near = (byWord[i] ?? []).map(([on_day, k]) => ({ k, on_day }));
    answered.set(w.src, nearest(near, w.date, DOCUMENTS_PER_WORD));
  });
  // By amount, a lookup per kind of document of the line's direction (its control account).
  const perKind = amounts.flatMap((a) => a.kinds.map((kind) => ({ a, kind, row: [WORD_ACCOUNTS[kind], SIGN[kind] * a.cents, a.date] })));
  const byAmount = await readNearest(
    q,
    engine,
    AMOUNT_READ,
    perKind.map((l) => l.row),
    DOCUMENTS_PER_AMOUNT,
    { where: [orgId] },
  );
  const near = new Map<string, { k: string; on_day: string }[]>();
  perKind.forEach(({ a, kind }, i) => {
    const rows = near.get(a.src) ?? [];
    near.set(a.src, rows);
    for (const [on_day, id] of byAmount[i] ?? []) {
      rows.push({ k: key(kind, id), on_day });
      // Found by its amount: its stored balance is that amount, so it is not read again below.
      stored.set(key(kind, id), SIGN[kind] * a.cents);
    }
  });
  for (const a of amounts) answered.set(a.src, nearest(near.get(a.src) ?? [], a.date, DOCUMENTS_PER_AMOUNT));
  const perLine: string[][] = lines.map((line, i) => {
    const found = new Set<string>(movedLater[line.amountCents > 0 ? 'in' : 'out']);
    for (const src of wantedOf[i] ?? []) for (const d of answered.get(src) ?? []) found.add(d);
    return [...found];
  });
  // The found documents' balances as at today, then their open items, once each.
  const wanted = new Set<string>();
  for (const ks of perLine) for (const k of ks) wanted.add(k);
  const targets = new Map<string, Target>();
  for (const kind of ['invoice', 'bill', 'claim'] as const) {
    const ids = [...wanted].filter((k) => k.startsWith(`${kind}:`)).map((k) => k.slice(kind.length + 1));
    if (ids.length === 0) continue;
    const balances = new Map<string, number>();
    const unread: string[] = [];
    for (const id of ids) {
      const known = stored.get(key(kind, id));
      if (known === undefined) unread.push(id);
      else balances.set(id, known);
    }
    // Debit-positive, as the stored balance is.
    for (const [id, balance] of await owedOnDocuments(q, orgId, WORD_ACCOUNTS[kind], 'debit', unread)) balances.set(id, balance);
    for (const id of ids) {
      const balance = (balances.get(id) ?? 0) - (later.get(key(kind, id)) ?? 0);
      if (balance === 0) balances.delete(id);
      else balances.set(id, balance);
    }
    const items =
      kind === 'invoice'
        ? await openInvoicesOf(q, orgId, balances)
        : kind === 'bill'
          ? await openBillsOf(q, orgId, balances)
          : await openClaimsOf(q, orgId, balances);
    for (const o of items) targets.set(key(kind, o.id), fromOpenItem(o));
  }
  const journals = await journalsNear(q, engine, orgId, bankAccount, today, lines);
  // Loops, not flatMap: a 200-line request has tens of thousands of (line, target) pairs.
  const documents = perLine.map((ks, i) => {
    const out: Target[] = [];
    for (const k of ks) {
      const target = targets.get(k);
      if (target) out.push(target);
    }
    for (const target of journals[i] ?? []) out.push(target);
    return out;
  });
  return { documents };
}

/**
 * Per line, the bank postings within 60 days of the lines' dates that no line accounts for yet and
 * that it can score against (bank-journal-words.ts): those of what is left of it (unsigned, its
 * direction) and those with one of its words, at most DOCUMENTS_PER_AMOUNT and DOCUMENTS_PER_WORD
 * nearest by date each, and the few postings lines account for part of (what is left of those is
 * not their amount). Read through unreconciledJournalsOf, which applies what the kept rows do
 * not say (a recode journal counts only on the other account).
 */
async function journalsNear(
  q: Queryable,
  engine: Engine,
  orgId: string,
  bankAccount: string,
  today: string,
  lines: readonly SuggestLine[],
): Promise<Target[][]> {
  if (lines.length === 0) return [];
  const dates = lines.map((l) => l.date).sort();
  const from = addDays(dates[0] ?? today, -60);
  const to = addDays(dates.at(-1) ?? today, 60);
  const asked = [...new Set(lines.flatMap(wordsOfLine))];
  const known = new Set(
    asked.length === 0
      ? []
      : (await q.all<{ word: string }>(knownKeysSql(engine), [textListParam(engine, asked), orgId, bankAccount])).map((r) => r.word),
  );
  const part = (await q.all<{ journal_id: string }>(PART_MATCHED_SQL, [orgId, bankAccount, from, to])).map((r) => r.journal_id);
  // Each line's lookups (what is left of it, its known words), each distinct one read once, all
  // in one statement per bound (storage/sql.ts readNearest) instead of one per lookup.
  const keysOf: string[][] = [];
  const lookups = new Map<string, { date: string; row: [string, string, string]; amount: boolean }>();
  for (const line of lines) {
    const dir = line.amountCents > 0 ? 'in' : 'out';
    const keys = [...(line.remainingCents > 0 ? [amountKey(line.remainingCents)] : []), ...wordsOfLine(line).filter((w) => known.has(w))];
    const srcs = keys.map((k) => `${dir} ${line.date} ${k}`);
    keys.forEach((k, i) => {
      const src = srcs[i] ?? '';
      if (!lookups.has(src)) lookups.set(src, { date: line.date, row: [k, dir, line.date], amount: k.startsWith('=') });
    });
    keysOf.push(srcs);
  }
  const answered = new Map<string, string[]>();
  // What the kept rows say of each open journal found: its date and net on the account.
  const open = new Map<string, { date: string; net: number }>();
  for (const amount of [true, false]) {
    const bound = amount ? DOCUMENTS_PER_AMOUNT : DOCUMENTS_PER_WORD;
    const these = [...lookups].filter(([, l]) => l.amount === amount);
    const read = await readNearest(
      q,
      engine,
      JOURNAL_READ,
      these.map(([, l]) => l.row),
      bound,
      { where: [orgId, bankAccount], after: [to], before: [from] },
    );
    const near = read.map((rows) =>
      rows.map(([on_day, rest]) => {
        const space = rest.indexOf(' ');
        const id = rest.slice(space + 1);
        open.set(id, { date: on_day, net: Number(rest.slice(0, space)) });
        return { k: id, on_day };
      }),
    );
    these.forEach(([src, l], i) => answered.set(src, nearest(near[i] ?? [], l.date, bound)));
  }
  const perLine = keysOf.map((srcs) => {
    const found = new Set<string>(part);
    for (const src of srcs) for (const id of answered.get(src) ?? []) found.add(id);
    return [...found];
  });
  // Those lines account for part of are read in full (what is left is not the net); the others
  // by primary key, their net being what is left.
  const wanted = new Set<string>();
  for (const ks of perLine) for (const k of ks) wanted.add(k);
  const partly = new Set(part);
  const targets = await unreconciledJournalsOf(q, orgId, bankAccount, part);
  const whole = new Map([...open].filter(([id]) => wanted.has(id) && !partly.has(id)));
  for (const [id, target] of await openJournalsOf(q, orgId, bankAccount, whole)) targets.set(id, target);
  return perLine.map((ids) => {
    const out: Target[] = [];
    for (const id of ids) {
      const target = targets.get(id);
      if (target) out.push(target);
    }
    return out;
  });
}
