import { reconciliation as spec } from '@finance-desk/protocol';
import type { z } from 'zod';
import { addDays, daysBetween } from '../../clock.js';
import type { Queryable } from '../../storage/types.js';
import { openClaimsAsOf } from '../expenses/ledger-api.js';
import type { OpenItem } from '../gl/open-items.js';
import { openBillsAsOf } from '../payables/ledger-api.js';
import { openInvoicesAsOf } from '../receivables/ledger-api.js';
import { unreconciledJournals, type Target } from './documents.js';
import { keysOf, lookupWords, refsAndTokens, words, type Named } from './words.js';

export { lookupWords, type Named };

/**
 * Ranked match suggestions for a bank line. A score out of 100, so an agent can set its own bar:
 * - amount: what is left of the line equals what the document owes: 60; the line is a part of
 *   what is owed (a part payment): 20; the document is a part of the line (one payment of several
 *   invoices): 10;
 * - reference: the document's id or reference, or an invoice's number or a document's
 *   own reference, appears in the description as whole words (INV-1054, not INV-10541): 25;
 * - payee: the share of the payee's name words (3+ letters, not Pty/Ltd/…) in the description: up
 *   to 15.
 * Only candidates with an exact amount, a reference or a payee word are suggested; nearer dates
 * (line date to due date) break ties. Invoices issued after the line's date cannot be what it
 * pays and are left out.
 *
 * The import and feedLinesList do not score every open document: document-words.ts looks up, per
 * line, the documents of its amount and of its words, at most DOCUMENTS_PER_AMOUNT and
 * DOCUMENTS_PER_WORD (50) each, nearest by due date, and the bank journals of its amount and words
 * nearest by date (bank-journal-words.ts), and rankAmong scores those. candidates() is every open
 * document and bank journal in the window, for checking that lookup against scoring all.
 */
export type Suggestion = z.infer<typeof spec.suggestion>;

export interface SuggestLine {
  readonly date: string;
  readonly amountCents: number;
  /** Unsigned, what is still to match. */
  readonly remainingCents: number;
  readonly description: string;
  /** The bank's reference for the line, when it has one: searched like the description. */
  readonly reference?: string | null;
}

/** What a line says: its description and its reference, as padded words. */
const lineWords = (line: SuggestLine) => words(`${line.description} ${line.reference ?? ''}`);

function amountScore(remaining: number, owed: number): { points: number; reason: Suggestion['reasons'][number] | null } {
  if (remaining === owed) return { points: 60, reason: 'amount' };
  return { points: remaining < owed ? 20 : 10, reason: 'partial_amount' };
}

interface TargetWords {
  /** The id and reference as padded words, 3+ characters. */
  readonly refs: readonly string[];
  /** The party's name words (3+ letters, not Pty/Ltd/…, no digits). */
  readonly tokens: readonly string[];
  /** lookupWords of the target. */
  readonly keys: readonly string[];
  /** Epoch day of the date a line is measured against (due, else issued), null when neither. */
  readonly day: number | null;
}

const epochDay = (date: string) => daysBetween('1970-01-01', date);

/**
 * A target's words, computed once per target rather than once per line and target: an import
 * ranks up to 200 lines against every open document, and redoing the regexes for each pair took
 * seconds at a few thousand open documents. Keyed by the target object, so the
 * cache lives as long as the candidate list.
 */
const targetWords = new WeakMap<Target, TargetWords>();

/**
 * And across requests, by what they are computed from: each request reads its candidates afresh
 * (new objects), but a posted document's or journal's name and references do not change, and the
 * same few thousand recur from one page or import to the next. Bounded: cleared when full.
 */
const wordsByContent = new Map<string, TargetWords>();
const WORDS_CACHED_MAX = 100_000;

function wordsOf(t: Target): TargetWords {
  const cached = targetWords.get(t);
  if (cached) return cached;
  const on = t.dueOn ?? t.issuedOn;
  const content = [t.id, t.party, t.reference, on ?? '', ...t.quoted].join('\u0000');
  let computed = wordsByContent.get(content);
  if (!computed) {
    const { refs, tokens } = refsAndTokens(t);
    computed = { refs, tokens, keys: keysOf(refs, tokens), day: on === null ? null : epochDay(on) };
    if (wordsByContent.size >= WORDS_CACHED_MAX) wordsByContent.clear();
    wordsByContent.set(content, computed);
  }
  targetWords.set(t, computed);
  return computed;
}

/** A line's words, as lookupWords keys are compared with them. */
export const wordsOfLine = (line: SuggestLine): string[] => [...new Set(lineWords(line).trim().split(' '))].filter((w) => w !== '');

function payeePoints(desc: string, tokens: readonly string[]): number {
  if (tokens.length === 0) return 0;
  const found = tokens.filter((w) => desc.includes(` ${w} `)).length;
  return Math.floor((15 * found) / tokens.length);
}

export function score(line: SuggestLine, t: Target): Suggestion | null {
  return scoreWords(line, lineWords(line), epochDay(line.date), t);
}

/** score() with the line's description in words and its date as an epoch day, once per line (rank). */
function scoreWords(line: SuggestLine, desc: string, lineDay: number, t: Target): Suggestion | null {
  if ((line.amountCents > 0 ? 'in' : 'out') !== t.direction || t.outstandingCents <= 0) return null;
  if (t.postedOn !== null && t.postedOn > line.date) return null;
  const { refs, tokens, day } = wordsOf(t);
  const amount = amountScore(line.remainingCents, t.outstandingCents);
  const reference = refs.some((r) => desc.includes(r));
  const payee = payeePoints(desc, tokens);
  if (amount.reason !== 'amount' && !reference && payee === 0) return null;
  const reasons: Suggestion['reasons'] = [];
  if (amount.reason) reasons.push(amount.reason);
  if (reference) reasons.push('reference');
  if (payee > 0) reasons.push('payee');
  return {
    kind: t.kind,
    id: t.id,
    party: t.party,
    reference: t.reference,
    outstandingCents: t.outstandingCents,
    dueOn: t.dueOn,
    score: amount.points + (reference ? 25 : 0) + payee,
    reasons,
    daysApart: day === null ? 0 : Math.abs(day - lineDay),
  };
}

interface TargetIndex {
  readonly byAmount: ReadonlyMap<number, readonly Target[]>;
  readonly byWord: ReadonlyMap<string, readonly Target[]>;
}

const indexes = new WeakMap<readonly Target[], TargetIndex>();

function push<K>(map: Map<K, Target[]>, key: K, t: Target): void {
  const list = map.get(key);
  if (list) list.push(t);
  else map.set(key, [t]);
}

/**
 * Where a line's suggestions can come from: score() keeps only a target whose outstanding amount
 * equals what is left of the line, or one of whose payee words or reference's first word is a
 * word of the description. Indexed once per candidate list, each line looks up only those
 * targets instead of scoring every open document (an import ranks 200 lines).
 */
function indexOf(targets: readonly Target[]): TargetIndex {
  const cached = indexes.get(targets);
  if (cached) return cached;
  const byAmount = new Map<number, Target[]>();
  const byWord = new Map<string, Target[]>();
  for (const t of targets) {
    push(byAmount, t.outstandingCents, t);
    for (const w of wordsOf(t).keys) push(byWord, w, t);
  }
  const index = { byAmount, byWord };
  indexes.set(targets, index);
  return index;
}

function possibleTargets(pools: readonly (readonly Target[])[], line: SuggestLine, desc: string): Target[] {
  const found = new Set<Target>();
  for (const targets of pools) {
    const index = indexOf(targets);
    for (const t of index.byAmount.get(line.remainingCents) ?? []) found.add(t);
    for (const w of new Set(desc.trim().split(' '))) for (const t of index.byWord.get(w) ?? []) found.add(t);
  }
  return [...found];
}

/** The best few candidates for a line, leaving out documents the line is already applied to. */
export function rank(line: SuggestLine, targets: readonly Target[], exclude: ReadonlySet<string> = new Set()): Suggestion[] {
  return rankAmong(line, [targets], exclude);
}

/**
 * rank() over several lists of targets, each indexed once (a list shared by
 * every line, and the documents looked up for this line alone); a target in two lists counts once.
 */
export function rankAmong(
  line: SuggestLine,
  pools: readonly (readonly Target[])[],
  exclude: ReadonlySet<string> = new Set(),
): Suggestion[] {
  const desc = lineWords(line);
  const lineDay = epochDay(line.date);
  return possibleTargets(pools, line, desc)
    .filter((t) => !exclude.has(`${t.kind}:${t.id}`))
    .flatMap((t) => scoreWords(line, desc, lineDay, t) ?? [])
    .sort(bestFirst)
    .slice(0, spec.feedLimits.suggestionsPerLineMax);
}

const bestFirst = (a: Suggestion, b: Suggestion) => b.score - a.score || a.daysApart - b.daysApart || a.id.localeCompare(b.id);

/**
 * rank() over targets looked up for this line alone (document-words.ts lookupTargets): each was
 * found by the line's amount or one of its words, so each is scored as it is, without indexing
 * them first (what the index would leave out, score() turns down anyway: it keeps only a target
 * with the exact amount, a reference or a payee word, each of which puts a key of the target in
 * the line).
 */
export function rankFound(line: SuggestLine, targets: readonly Target[], exclude: ReadonlySet<string> = new Set()): Suggestion[] {
  const desc = lineWords(line);
  const lineDay = epochDay(line.date);
  const out: Suggestion[] = [];
  for (const t of targets) {
    if (exclude.has(`${t.kind}:${t.id}`)) continue;
    const s = scoreWords(line, desc, lineDay, t);
    if (s) out.push(s);
  }
  return out.sort(bestFirst).slice(0, spec.feedLimits.suggestionsPerLineMax);
}

export const fromOpenItem = (o: OpenItem): Target => ({
  kind: o.kind,
  id: o.id,
  party: o.party,
  reference: o.reference,
  quoted: o.quoted ?? [],
  status: 'open',
  outstandingCents: o.outstandingCents,
  issuedOn: o.issuedOn,
  postedOn: o.postedOn,
  dueOn: o.dueOn,
  direction: o.kind === 'invoice' ? 'in' : 'out',
  payableStatuses: ['open'],
});

/**
 * Everything lines dated between `from` and `to` could match: documents open today and bank
 * postings within 60 days of those dates that no line accounts for yet.
 */
export async function candidates(
  q: Queryable,
  orgId: string,
  bankAccount: string,
  today: string,
  from: string,
  to: string,
): Promise<Target[]> {
  // One after another: inside a write `q` is the transaction's single connection, on which
  // PostgreSQL runs one query at a time (pg deprecates queueing concurrent ones).
  const invoices = await openInvoicesAsOf(q, orgId, today);
  const bills = await openBillsAsOf(q, orgId, today);
  const claims = await openClaimsAsOf(q, orgId, today);
  const journals = await unreconciledJournals(q, orgId, bankAccount, addDays(from, -60), addDays(to, 60));
  return [...invoices, ...bills, ...claims].map(fromOpenItem).concat(journals);
}
