import type { Queryable } from './storage/types.js';

/** Instants are ISO 8601 UTC with milliseconds; dates are YYYY-MM-DD. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** The UTC date of an instant. Not "today" for an organisation: use `localDate` / `orgToday`. */
export function isoDate(instant: string): string {
  return instant.slice(0, 10);
}

/**
 * Each organisation keeps its books in one IANA time zone (organisations.time_zone, migration
 * 15): "today" — the date a document is issued on, the limit of "in the future" — is the local
 * date there, never the UTC date (at 09:30 on 1 October in Sydney it is still 30 September in UTC).
 */
export const DEFAULT_TIME_ZONE = 'Australia/Sydney';

/** The canonical IANA name of `name` (Intl decides), or null when it is not a time zone. */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * Per time zone: its formatter, and the last answer with the UTC second it holds for. Every
 * offset in the time zone database is a whole number of seconds, so a local date can only change
 * on a whole UTC second: within one second the answer is the same. Every write asks for "today"
 * (write-path.ts), and formatToParts cost microseconds a request.
 */
interface Zone {
  readonly format: Intl.DateTimeFormat;
  second: number;
  date: string;
}
const zones = new Map<string, Zone>();

/** The calendar date (YYYY-MM-DD) of `instant` in `timeZone`: the one place "today" is computed. */
export function localDate(instant: string, timeZone: string): string {
  let zone = zones.get(timeZone);
  if (!zone) {
    const format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    zone = { format, second: Number.NaN, date: '' };
    zones.set(timeZone, zone);
  }
  const at = new Date(instant);
  const second = Math.floor(at.getTime() / 1000);
  if (second === zone.second) return zone.date;
  // An invalid instant throws here (RangeError), as it always did; NaN is never remembered.
  const parts = zone.format.formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const date = `${part('year')}-${part('month')}-${part('day')}`;
  zone.second = second;
  zone.date = date;
  return date;
}

/**
 * The clock a server runs on, per database handle: the system clock unless the server was
 * started with a fixed one (Config.now), so a test can run the whole server at a given instant
 * without rewriting rows. The write path and the reads both ask here.
 */
const clocks = new WeakMap<object, () => string>();

export function setClock(db: object, now: () => string): void {
  clocks.set(db, now);
}

export function clockOf(db: object): () => string {
  return clocks.get(db) ?? nowIso;
}

/** An organisation's time zone (the default when the row predates it or is not there yet). */
export async function orgTimeZone(q: Queryable, orgId: string): Promise<string> {
  const row = await q.get<{ time_zone: string | null }>('SELECT time_zone FROM organisations WHERE id = ?', [orgId]);
  return row?.time_zone ?? DEFAULT_TIME_ZONE;
}

/** Today in the organisation's time zone by the server's clock (reads; writes use `uow.today`). */
export async function orgToday(db: { readonly reader: Queryable }, orgId: string): Promise<string> {
  return localDate(clockOf(db)(), await orgTimeZone(db.reader, orgId));
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (dates, UTC), negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/**
 * The first instant (ISO, UTC, milliseconds) whose local date in `timeZone` is `date` or later:
 * where that local day begins (e.g. an approval's expiry instant placed on a local
 * date). Local dates never run backwards as instants advance, so a binary search over the 28 hours
 * around UTC midnight (offsets run from −12 to +14 hours) finds it to the millisecond.
 */
export function startOfLocalDay(date: string, timeZone: string): string {
  const midnight = Date.parse(`${date}T00:00:00.000Z`);
  let lo = midnight - 15 * 3_600_000; // local date still before `date` everywhere
  let hi = midnight + 15 * 3_600_000; // local date already `date` or later everywhere
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localDate(new Date(mid).toISOString(), timeZone) >= date) hi = mid;
    else lo = mid;
  }
  return new Date(hi).toISOString();
}

/**
 * startOfLocalDay for each date from `first` to `last` inclusive. A day is 24 hours except where
 * the offset changes, so each start is guessed from the previous one and searched only when the
 * guess is wrong (two formatter calls a day instead of ~27).
 */
export function localDayStarts(first: string, last: string, timeZone: string): Map<string, string> {
  const out = new Map<string, string>();
  let start = startOfLocalDay(first, timeZone);
  out.set(first, start);
  for (let d = addDays(first, 1); d <= last; d = addDays(d, 1)) {
    const guess = Date.parse(start) + 86_400_000;
    const ok = localDate(new Date(guess).toISOString(), timeZone) >= d && localDate(new Date(guess - 1).toISOString(), timeZone) < d;
    start = ok ? new Date(guess).toISOString() : startOfLocalDay(d, timeZone);
    out.set(d, start);
  }
  return out;
}
