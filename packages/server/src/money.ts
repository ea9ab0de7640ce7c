/** Integer cents to "$1,234.56" for summaries people read; no floating point is involved. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}

/** An amount in a document's currency: dollars for AUD (or none), "NZD 1,000.00" for another. */
export function formatCentsIn(cents: number, currency: string | null | undefined): string {
  return currency && currency !== 'AUD' ? `${currency} ${formatCents(cents).replace('$', '')}` : formatCents(cents);
}

/** round(a × b / c) half up, in integers (a, b ≥ 0; c > 0): a share of cents in proportion, exact. */
export function mulDivHalfUp(a: number, b: number, c: number): number {
  if (c <= 0) throw new Error('mulDivHalfUp: dividing by a positive whole');
  return Number((2n * BigInt(a) * BigInt(b) + BigInt(c)) / (2n * BigInt(c)));
}
