import type { Scope, Tier } from '@finance-desk/protocol';

/** Who is calling, resolved from the credential. Never carries the secret. */
export interface Principal {
  readonly orgId: string;
  readonly orgSlug: string;
  readonly credentialId: string;
  readonly tier: Tier;
  readonly scopes: readonly Scope[];
  /** Event actor: the paired agent's id when the key belongs to one, else the key's id. */
  readonly actor: string;
  /** The agent the key belongs to; `pairedAt` is null for agents named by `key issue --agent`. */
  readonly agent: { readonly id: string; readonly name: string; readonly pairedAt: string | null } | null;
}
