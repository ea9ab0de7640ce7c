/** Scopes, and the key tiers that hold them. */
export const SCOPES = ['org.read', 'books.read', 'books.write', 'board.write'] as const;
export type Scope = (typeof SCOPES)[number];

export const TIERS = ['observer', 'reader', 'agent'] as const;
export type Tier = (typeof TIERS)[number];

export const TIER_SCOPES: Readonly<Record<Tier, readonly Scope[]>> = {
  observer: ['org.read'],
  reader: ['org.read', 'books.read'],
  agent: ['org.read', 'books.read', 'books.write', 'board.write'],
};

export function tierHolds(tier: Tier, scope: Scope): boolean {
  return TIER_SCOPES[tier].includes(scope);
}

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}
