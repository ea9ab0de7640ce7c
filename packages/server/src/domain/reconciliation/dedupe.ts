import { canonicalJson, sha256Hex } from '@finance-desk/protocol';
import type { ParsedLine } from './bank-text.js';

/**
 * De-duplication of bank lines, a separate and visible step after parsing (parsers return every
 * row). Two questions, two answers:
 *
 * 1. Was this line imported before? A line's fingerprint is SHA-256 of its account, date, amount,
 *    normalised description, reference and its occurrence among identical lines of the same
 *    import: a re-import (or an overlapping statement) finds the same fingerprints, while two
 *    genuine identical coffees on one day are occurrences 0 and 1 and both stay.
 * 2. Is a repeated row of one file an export artefact? Only with evidence: the same running
 *    balance (a real second transaction would have moved it), the same bank reference (an OFX
 *    FITID, a cheque serial), or a day's closing balance that only adds up without the copy
 *    (Westpac COL). Identical rows without evidence are kept and reported as possible duplicates.
 */
export type SkipReason = 'export_duplicate' | 'zero_amount';

export interface PlannedLine {
  readonly index: number;
  readonly line: ParsedLine;
  readonly occurrence: number;
}

export interface ImportPlan {
  readonly keep: readonly PlannedLine[];
  readonly skipped: readonly { index: number; reason: SkipReason; duplicateOf: number | null }[];
  readonly possibleDuplicates: readonly { index: number; sameAs: number }[];
}

/** Case, outer and repeated inner whitespace do not make two descriptions different. */
export function normaliseDescription(s: string): string {
  return s.trim().replace(/\s+/g, ' ').toUpperCase();
}

const identity = (l: ParsedLine) =>
  canonicalJson([l.date, l.amountCents, normaliseDescription(l.description), l.reference ?? '', l.balanceCents ?? null]);

const transaction = (l: ParsedLine) => [l.date, l.amountCents, normaliseDescription(l.description), l.reference ?? ''];

const sameTransaction = (l: ParsedLine) => canonicalJson(transaction(l));

export function fingerprint(accountCode: string, l: ParsedLine, occurrence: number): string {
  return sha256Hex(canonicalJson([accountCode, ...transaction(l), occurrence]));
}

/**
 * Westpac COL: a day's closing balance minus the previous day's must equal the day's lines. When
 * it is off by exactly the extra copies of one group of identical lines, those copies are export
 * artefacts. The first day has no previous balance and cannot be checked.
 */
function closingBalanceArtefacts(
  lines: readonly ParsedLine[],
  groups: ReadonlyMap<string, number[]>,
  closing: ReadonlyMap<string, number>,
): Map<number, number> {
  const out = new Map<number, number>();
  const dates = [...closing.keys()].sort();
  const sumByDate = new Map<string, number>();
  for (const i of [...groups.values()].flat()) {
    const l = lines[i];
    if (l) sumByDate.set(l.date, (sumByDate.get(l.date) ?? 0) + l.amountCents);
  }
  for (let k = 1; k < dates.length; k += 1) {
    const [prev, day] = [dates[k - 1] ?? '', dates[k] ?? ''];
    const delta = (closing.get(day) ?? 0) - (closing.get(prev) ?? 0);
    const excess = (sumByDate.get(day) ?? 0) - delta;
    if (excess === 0) continue;
    const fits = [...groups.values()].filter((g) => {
      const l = lines[g[0] ?? -1];
      if (!l || l.date !== day || g.length < 2 || excess % l.amountCents !== 0) return false;
      const copies = excess / l.amountCents;
      return copies >= 1 && copies < g.length;
    });
    const [group] = fits;
    if (fits.length !== 1 || !group) continue;
    const copies = excess / (lines[group[0] ?? -1]?.amountCents ?? 1);
    for (const i of group.slice(group.length - copies)) out.set(i, group[0] ?? i);
  }
  return out;
}

export function planImport(lines: readonly ParsedLine[], closing?: ReadonlyMap<string, number>): ImportPlan {
  const skipped: { index: number; reason: SkipReason; duplicateOf: number | null }[] = [];
  const groups = new Map<string, number[]>();
  lines.forEach((l, index) => {
    if (l.amountCents === 0) {
      skipped.push({ index, reason: 'zero_amount', duplicateOf: null });
      return;
    }
    const key = identity(l);
    const group = groups.get(key);
    const first = group?.[0];
    if (group && first !== undefined && (l.reference !== undefined || l.balanceCents !== undefined)) {
      skipped.push({ index, reason: 'export_duplicate', duplicateOf: first });
      return;
    }
    if (group) group.push(index);
    else groups.set(key, [index]);
  });
  const byClosing = closing ? closingBalanceArtefacts(lines, groups, closing) : new Map<number, number>();
  for (const [index, first] of byClosing) skipped.push({ index, reason: 'export_duplicate', duplicateOf: first });
  const possibleDuplicates: { index: number; sameAs: number }[] = [];
  for (const group of groups.values()) {
    const [first, ...rest] = group.filter((i) => !byClosing.has(i));
    if (first === undefined) continue;
    for (const index of rest) possibleDuplicates.push({ index, sameAs: first });
  }
  const skip = new Set(skipped.map((s) => s.index));
  const seen = new Map<string, number>();
  const keep: PlannedLine[] = [];
  lines.forEach((line, index) => {
    if (skip.has(index)) return;
    const key = sameTransaction(line);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    keep.push({ index, line, occurrence });
  });
  skipped.sort((a, b) => a.index - b.index);
  possibleDuplicates.sort((a, b) => a.index - b.index);
  return { keep, skipped, possibleDuplicates };
}
