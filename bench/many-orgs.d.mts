/** Types for many-orgs.mjs (the bench-many-orgs test imports it from TypeScript). */
export interface SeededOrg {
  slug: string;
  orgId: string;
  agent: string;
}

export function smallSlug(i: number): string;
export function largeSlug(i: number): string;

export function seedManyOrgs(
  root: string,
  databaseUrl: string,
  options: {
    orgs: number;
    events: number;
    largeOrgs: number;
    largeEvents: number;
    orgsPerTransaction?: number;
    log?: (...args: unknown[]) => void;
  },
): Promise<{ orgs: SeededOrg[]; seconds: number; totalEvents: number }>;

export function verifyAll(
  root: string,
  databaseUrl: string,
  orgs: readonly SeededOrg[],
  options?: { parallel?: number },
): Promise<({ ok: true; rows: number; head: { seq: number; rowHash: string } } | { ok: false; seq: number; reason: string })[]>;
