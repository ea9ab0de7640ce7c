import type { booksReads } from '@finance-desk/protocol';
import { addDays, daysBetween } from '../../clock.js';
import type { Line, Section } from './statements.js';

type CompareKind = booksReads.CompareKind;

/**
 * Comparative figures for the profit and loss and the balance sheet: the comparison period,
 * computed on calendar dates (no time zones, no month lengths guessed), and the merge of two
 * statements' sections line by line.
 */

function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function ymd(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The same date a year earlier; 29 February becomes 28 February. */
export function yearEarlier(date: string): string {
  const year = Number(date.slice(0, 4)) - 1;
  const month = Number(date.slice(5, 7));
  const day = Math.min(Number(date.slice(8, 10)), lastDayOfMonth(year, month));
  return ymd(year, month, day);
}

/**
 * The same day a month earlier, clamped to that month's end; a month's last day maps to the
 * previous month's last day (31 March and 30 April both compare with the end of the month before).
 */
export function monthEarlier(date: string): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  const [py, pm] = month === 1 ? [year - 1, 12] : [year, month - 1];
  const last = lastDayOfMonth(py, pm);
  return ymd(py, pm, day === lastDayOfMonth(year, month) ? last : Math.min(day, last));
}

/** previous_period: as many days as from..to, ending the day before from; previous_year: a year earlier. */
export function comparisonPeriod(kind: CompareKind, from: string, to: string): { from: string; to: string } {
  if (kind === 'previous_year') return { from: yearEarlier(from), to: yearEarlier(to) };
  const days = daysBetween(from, to) + 1;
  return { from: addDays(from, -days), to: addDays(from, -1) };
}

/** The date a balance sheet as at asOf is compared with. */
export function comparisonDate(kind: CompareKind, asOf: string): string {
  return kind === 'previous_year' ? yearEarlier(asOf) : monthEarlier(asOf);
}

/**
 * Lines match by account code; the unclosed earnings lines (no code) by their name before the
 * parenthesis, whose dates differ between the two statements.
 */
const keyOf = (l: Line): string => l.code ?? `~${l.name.split(' (')[0] ?? l.name}`;

/** The section with each line's comparison and difference; a line in only one side shows 0 on the other. */
export function compareSections(current: Section, previous: Section): Section {
  const prev = new Map(previous.accounts.map((l) => [keyOf(l), l]));
  const seen = new Set<string>();
  const accounts: Line[] = current.accounts.map((l) => {
    const key = keyOf(l);
    seen.add(key);
    const comparisonCents = prev.get(key)?.amountCents ?? 0;
    return { ...l, comparisonCents, differenceCents: l.amountCents - comparisonCents };
  });
  for (const l of previous.accounts) {
    if (seen.has(keyOf(l))) continue;
    accounts.push({ code: l.code, name: l.name, amountCents: 0, comparisonCents: l.amountCents, differenceCents: -l.amountCents });
  }
  // Accounts in code order, the unclosed earnings lines (no code) last, as the statements list them.
  accounts.sort((a, b) => (a.code === null ? 1 : 0) - (b.code === null ? 1 : 0) || (a.code ?? '').localeCompare(b.code ?? ''));
  return {
    accounts,
    totalCents: current.totalCents,
    comparisonTotalCents: previous.totalCents,
    differenceCents: current.totalCents - previous.totalCents,
  };
}
