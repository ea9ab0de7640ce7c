/** Types for seed-books.mjs (the read-cost test imports it from TypeScript). */
export interface SeedTx {
  run(sql: string, params?: readonly (string | number | null)[]): Promise<unknown>;
}
export function seedBooks(
  tx: SeedTx,
  options: { orgId: string; ledgerId: string; documents: number; today: string; prefix?: string },
): Promise<void>;
export function partyName(i: number): string;
