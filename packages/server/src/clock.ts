/** Instants are ISO 8601 UTC with milliseconds (D5, D9); dates are YYYY-MM-DD. */
export function nowIso(): string {
  return new Date().toISOString();
}

export function isoDate(instant: string): string {
  return instant.slice(0, 10);
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
