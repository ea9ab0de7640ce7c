import type { RepeatingFrequency } from '@finance-desk/protocol';
import { addDays } from '../../clock.js';

/** A schedule's shape: what decides its due dates. */
export interface Cadence {
  readonly frequency: RepeatingFrequency;
  /** Monthly and longer: the day of the month (default the start date's). */
  readonly dayOfMonth: number | null;
  readonly startOn: string;
  readonly endOn: string | null;
  /** The most documents it makes (null: no limit but endOn). */
  readonly count: number | null;
}

const MONTHS: Partial<Record<RepeatingFrequency, number>> = { monthly: 1, quarterly: 3, yearly: 12 };

const pad = (n: number) => String(n).padStart(2, '0');

/** The last day of a month (1-12) of a year. */
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * The nth date of the cadence from its start month or week, ignoring start, end and count: weeks
 * are 7 or 14 days; months take dayOfMonth, or the month's last day when it is shorter (31 → 30
 * April, 28 or 29 February).
 */
function nthDate(c: Cadence, n: number): string {
  const step = MONTHS[c.frequency];
  if (step === undefined) return addDays(c.startOn, n * (c.frequency === 'weekly' ? 7 : 14));
  const [y, m, d] = c.startOn.split('-').map(Number) as [number, number, number];
  const months = m - 1 + n * step;
  const year = y + Math.floor(months / 12);
  const month = (months % 12) + 1;
  return `${year}-${pad(month)}-${pad(Math.min(c.dayOfMonth ?? d, lastDay(year, month)))}`;
}

/**
 * The due date of the schedule's document number `index` (0 is the first), or null when the
 * schedule makes no such document (past endOn or count). Monthly dates before startDate (a
 * dayOfMonth earlier than the start's day) are skipped: the first is on or after startDate.
 */
export function dueDate(c: Cadence, index: number): string | null {
  if (c.count !== null && index >= c.count) return null;
  const skip = nthDate(c, 0) < c.startOn ? 1 : 0;
  const date = nthDate(c, index + skip);
  return c.endOn !== null && date > c.endOn ? null : date;
}
