/** `?, ?, ?` for an `IN (…)` list of n values, in the portable placeholder form (storage/types.ts). */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}
