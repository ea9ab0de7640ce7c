import { hash, timingSafeEqual } from 'node:crypto';
import { TIER_SCOPES, type Tier } from '@finance-desk/protocol';
import { newId, secret } from '../ids.js';
import type { Principal } from '../principal.js';
import type { Queryable, Tx } from '../storage/types.js';

/**
 * API keys: `fdk_<key id body>_<secret>`. Only SHA-256 of the secret is stored: the secret
 * has 256 bits of entropy, so a slow hash adds nothing. The key id locates the row; the hashes
 * are compared in constant time; an unknown id still costs one comparison.
 */
const KEY_PATTERN = /^fdk_([0-9a-z]{26})_([A-Za-z0-9_-]{43})$/;
const DUMMY_HASH = Buffer.alloc(32);

/**
 * What a secret hashes to, stored and presented alike (compared in constant time). One-shot
 * `hash` (Node ≥ 20.12): half the cost of a Hash object, on every request.
 */
export function hashSecret(secretText: string): Buffer {
  return hash('sha256', secretText, 'buffer');
}

export interface IssuedKey {
  readonly keyId: string;
  readonly key: string;
  readonly tier: Tier;
}

/** `label`: what the console and emails call a key issued without pairing (migration 58); null for none. */
export async function issueKey(
  tx: Tx,
  orgId: string,
  tier: Tier,
  agentId: string | null,
  now: string,
  label: string | null = null,
): Promise<IssuedKey> {
  const keyId = newId('key');
  const secretText = secret(32);
  await tx.run('INSERT INTO credentials (id, org_id, tier, agent_id, secret_hash, created_at, label) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    keyId,
    orgId,
    tier,
    agentId,
    hashSecret(secretText).toString('hex'),
    now,
    label,
  ]);
  return { keyId, key: `fdk_${keyId.slice(4)}_${secretText}`, tier };
}

interface CredentialRow {
  id: string;
  org_id: string;
  slug: string;
  tier: Tier;
  secret_hash: string;
  revoked_at: string | null;
  agent_id: string | null;
  agent_name: string | null;
  agent_paired_at: string | null;
  agent_revoked_at: string | null;
}

/** The key id and secret of a token of the `fdk_` form, or null when it is not one. */
export function parseKey(token: string): { readonly keyId: string; readonly secretText: string } | null {
  const match = KEY_PATTERN.exec(token);
  if (!match) return null;
  const [, idBody = '', secretText = ''] = match;
  return { keyId: `key_${idBody}`, secretText };
}

/** A principal as read, with what a cache must keep to recognise it again (org/principal-cache.ts). */
export interface Authenticated {
  readonly principal: Principal;
  /** SHA-256 of the secret, as stored: a remembered key is recognised by comparing it again. */
  readonly secretHash: Buffer;
  /** The organisation's credential epoch read with the row (migration 35, write-path.ts). */
  readonly epoch: number;
}

/**
 * Resolve a bearer token to its principal, or null for missing, malformed, unknown or revoked;
 * with the organisation's credential epoch read in the same statement (so from the same snapshot
 * as the credential row): a principal remembered with it is known to be as valid as it was while
 * the epoch has not moved.
 */
export async function authenticate(q: Queryable, token: string): Promise<Authenticated | null> {
  const parsed = parseKey(token);
  if (!parsed) return null;
  const row = await q.get<CredentialRow & { auth_epoch: number | string }>(
    `SELECT c.id, c.org_id, o.slug, c.tier, c.secret_hash, c.revoked_at, c.agent_id, a.name AS agent_name,
            a.paired_at AS agent_paired_at, a.revoked_at AS agent_revoked_at, COALESCE(h.auth_epoch, 0) AS auth_epoch
     FROM credentials c JOIN organisations o ON o.id = c.org_id
     LEFT JOIN org_heads h ON h.org_id = c.org_id
     LEFT JOIN agents a ON a.id = c.agent_id
     WHERE c.id = ?`,
    [parsed.keyId],
  );
  const presented = hashSecret(parsed.secretText);
  const stored = row ? Buffer.from(row.secret_hash, 'hex') : DUMMY_HASH;
  const equal = stored.length === presented.length && timingSafeEqual(stored, presented);
  // A revoked agent's keys are revoked with it (pairing.ts); its own mark is checked as well.
  if (!row || !equal || row.revoked_at !== null || row.agent_revoked_at !== null) return null;
  const agent = row.agent_id && row.agent_name ? { id: row.agent_id, name: row.agent_name, pairedAt: row.agent_paired_at } : null;
  const principal: Principal = {
    orgId: row.org_id,
    orgSlug: row.slug,
    credentialId: row.id,
    tier: row.tier,
    scopes: TIER_SCOPES[row.tier],
    actor: agent ? agent.id : row.id,
    agent,
  };
  return { principal, secretHash: stored, epoch: Number(row.auth_epoch) };
}

/**
 * Whether a credential still stands (exists, not revoked, its agent not revoked), read in the
 * caller's transaction: the write path's check of a remembered principal whose organisation's
 * credential epoch moved (write-path.ts).
 */
export async function credentialStands(q: Queryable, credentialId: string): Promise<boolean> {
  const row = await q.get<{ revoked_at: string | null; agent_revoked_at: string | null }>(
    `SELECT c.revoked_at, a.revoked_at AS agent_revoked_at
     FROM credentials c LEFT JOIN agents a ON a.id = c.agent_id WHERE c.id = ?`,
    [credentialId],
  );
  return row !== undefined && row.revoked_at === null && row.agent_revoked_at === null;
}
