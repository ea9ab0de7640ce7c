import { timingSafeEqual } from 'node:crypto';
import type { Principal } from '../principal.js';
import { parseKey, hashSecret, type Authenticated } from './credentials.js';
import { PRINCIPAL_CACHE_MAX_ENTRIES } from '../config.js';

export { PRINCIPAL_CACHE_MAX_ENTRIES };

/**
 * Principals the API remembers between requests: authenticating a key is a database
 * read per request — on PostgreSQL a round trip, most of what a write in a busy batch costs the
 * server besides its share of the batch. A remembered key is still proved on every request (its
 * secret hashed and compared in constant time with the stored hash), and is only ever used for
 * writes that run entirely inside a unit of work: there, under the organisation's head lock, the
 * write path compares the epoch remembered here with the organisation's credential epoch, which
 * every change of a credential or agent moves in its own transaction (migration 35,
 * write-path.ts). If it moved, the credential is read again in that transaction. So a revoked key
 * is refused from the moment its revocation commits, by whichever process committed it; an
 * answer given before a unit (a refused scope, invalid params) is confirmed against the database
 * first (http/app.ts).
 *
 * Bounded by configuration (PRINCIPAL_CACHE_MAX), not by the number of organisations or keys:
 * entries are added only for keys that authenticated, at most `maxEntries`, least recently used
 * first out (a hit moves its entry to the back), and each is forgotten after TTL_MS, so no field of
 * a principal (an agent's name) is older than that. An evicted key costs one credential read on
 * its next request, nothing else: it is proved and remembered again.
 */
export const PRINCIPAL_CACHE_TTL_MS = 60_000;

interface Entry {
  readonly secretHash: Buffer;
  readonly principal: Principal;
  epoch: number;
  readonly until: number;
}

export interface Remembered {
  readonly principal: Principal;
  /** The organisation's credential epoch at which the principal was last known valid. */
  readonly epoch: number;
}

export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries = PRINCIPAL_CACHE_MAX_ENTRIES,
    private readonly ttlMs = PRINCIPAL_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The remembered principal of this token when its secret proves it; else null. */
  get(token: string): Remembered | null {
    const parsed = parseKey(token);
    if (!parsed) return null;
    const entry = this.entries.get(parsed.keyId);
    if (!entry) return null;
    if (this.now() >= entry.until) {
      this.entries.delete(parsed.keyId);
      return null;
    }
    const presented = hashSecret(parsed.secretText);
    if (presented.length !== entry.secretHash.length || !timingSafeEqual(presented, entry.secretHash)) return null;
    // Least recently used goes first: a Map iterates in insertion order, so a hit re-inserts.
    this.entries.delete(parsed.keyId);
    this.entries.set(parsed.keyId, entry);
    return { principal: entry.principal, epoch: entry.epoch };
  }

  remember(found: Authenticated): void {
    const id = found.principal.credentialId;
    this.entries.delete(id);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(id, { secretHash: found.secretHash, principal: found.principal, epoch: found.epoch, until: this.now() + this.ttlMs });
  }

  /** The write path found the credential standing at a later epoch: remember that one. */
  confirmed(credentialId: string, epoch: number): void {
    const entry = this.entries.get(credentialId);
    if (entry && epoch > entry.epoch) entry.epoch = epoch;
  }

  forget(credentialId: string): void {
    this.entries.delete(credentialId);
  }
}
