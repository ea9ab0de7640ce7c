import { createHash, timingSafeEqual } from 'node:crypto';
import { events, pairingLimits, type PairingCodeCreate, type Tier } from '@finance-desk/protocol';
import { clockOf } from '../clock.js';
import { DomainError, conflict, invariant, notFound } from '../errors.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { newId, secret } from '../ids.js';
import type { Database, Queryable, Tx } from '../storage/types.js';
import { inUnitOfWork } from '../write-path.js';
import { issueKey } from './credentials.js';
import { secretStrength } from './secret-strength.js';

/**
 * Agent pairing (docs/decisions.md, "Organisation profile, org/* reads and agent pairing"). An
 * owner creates a one-time code for a named agent with a tier (console or CLI); the agent exchanges it once at
 * `POST /api/v1/org/pair`, with no key, for its own API key. Codes are
 * `fdp_<code id>_<secret>`: the id locates the row, only a hash of the secret is stored, and the
 * hashes are compared in constant time (a generated secret: SHA-256 of 256 random bits; a
 * person-chosen one, checked for strength first: scrypt, because a person's secret is guessable
 * offline where 256 bits are not). Codes expire, are single-use, and burn after
 * `failedAttemptsMax` wrong secrets. Create, pair and revoke are one event each.
 */
const CODE = /^fdp_([0-9a-z]{26})_([\x21-\x7e]{1,128})$/;
const DUMMY_HASH = Buffer.alloc(32);
const REFUSED = 'invalid, expired or already used pairing code';

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export interface CreatedCode {
  readonly codeId: string;
  /** Shown once; never stored, logged or put in an event. */
  readonly code: string;
  readonly agentName: string;
  readonly tier: Tier;
  readonly expiresAt: string;
  readonly chosen: boolean;
  readonly ledgerId: string;
}

interface CodeRow {
  id: string;
  org_id: string;
  agent_name: string;
  tier: Tier;
  secret_hash: string;
  chosen: number | string;
  expires_at: string;
  used_at: string | null;
  failed_attempts: number | string;
}

/** WEAK_SECRET (HTTP 401) naming every weakness found, never the secret. */
export async function checkChosenSecret(q: Queryable, orgId: string, agentName: string, chosen: string): Promise<void> {
  const org = await q.get<{ name: string; slug: string }>('SELECT name, slug FROM organisations WHERE id = ?', [orgId]);
  if (!org) throw notFound('organisation', orgId);
  const verdict = secretStrength(chosen, { orgName: org.name, orgSlug: org.slug, agentName });
  if (!verdict.ok) throw new DomainError('WEAK_SECRET', `secret: too weak (${verdict.reasons.join('; ')})`);
}

async function refuseTakenName(tx: Tx, orgId: string, name: string, now: string): Promise<void> {
  const agent = await tx.get<{ id: string; revoked_at: string | null }>('SELECT id, revoked_at FROM agents WHERE org_id = ? AND name = ?', [
    orgId,
    name,
  ]);
  if (agent?.revoked_at) {
    throw conflict(`agent "${name}" (${agent.id}) was revoked; a revoked agent's name is not reused: choose another name`);
  }
  if (agent) throw conflict(`agent "${name}" (${agent.id}) already exists; revoke it first or choose another name`);
  const open = await tx.get<{ id: string }>(
    `SELECT id FROM pairing_codes WHERE org_id = ? AND agent_name = ? AND used_at IS NULL AND expires_at > ? AND failed_attempts < ?`,
    [orgId, name, now, pairingLimits.failedAttemptsMax],
  );
  if (open) throw conflict(`pairing code ${open.id} for agent "${name}" is still open; use it or let it expire`);
}

/**
 * Create a code (console owner, actor = user id; CLI, actor ""). Event `org` / `org.pairing.create`
 * with the code id, agent name, tier, expiry and whether a person chose the secret — never it.
 */
export async function createPairingCode(
  db: Database,
  input: { orgId: string; actor: string; request: PairingCodeCreate },
): Promise<CreatedCode> {
  const { agentName, tier, ttlMinutes } = input.request;
  const chosen = input.request.secret;
  if (chosen !== undefined) await checkChosenSecret(db.reader, input.orgId, agentName, chosen);
  const secretText = chosen ?? secret(32);
  const stored = chosen !== undefined ? await hashPassword(chosen) : sha256(secretText).toString('hex');
  const codeId = newId('pcd');
  return inUnitOfWork(db, input.orgId, input.actor, async (uow) => {
    await refuseTakenName(uow.tx, uow.orgId, agentName, uow.now);
    const open = await uow.tx.get<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM pairing_codes WHERE org_id = ? AND used_at IS NULL AND expires_at > ? AND failed_attempts < ?',
      [uow.orgId, uow.now, pairingLimits.failedAttemptsMax],
    );
    if (Number(open?.n ?? 0) >= pairingLimits.openCodesMax) {
      throw conflict(`this organisation already has ${pairingLimits.openCodesMax} open pairing codes; use them or let them expire`);
    }
    const expiresAt = new Date(Date.parse(uow.now) + ttlMinutes * 60_000).toISOString();
    const event = await uow.emit(events.orgPairingCreate, {
      entityId: codeId,
      payload: { codeId, agentName, tier, expiresAt, chosen: chosen !== undefined },
    });
    await uow.tx.run(
      `INSERT INTO pairing_codes (id, org_id, agent_name, tier, secret_hash, chosen, created_by, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [codeId, uow.orgId, agentName, tier, stored, chosen !== undefined ? 1 : 0, uow.actor, uow.now, expiresAt],
    );
    const code = `fdp_${codeId.slice(4)}_${secretText}`;
    return { codeId, code, agentName, tier, expiresAt, chosen: chosen !== undefined, ledgerId: event.ledgerId };
  });
}

/** Constant-time check of a presented secret; an unknown code id still costs one comparison. */
async function secretMatches(row: CodeRow | undefined, presented: string): Promise<boolean> {
  if (row && Number(row.chosen) === 1) return verifyPassword(presented, row.secret_hash);
  const stored = row ? Buffer.from(row.secret_hash, 'hex') : DUMMY_HASH;
  const given = sha256(presented);
  return stored.length === given.length && timingSafeEqual(stored, given) && row !== undefined;
}

export interface Paired {
  readonly agentId: string;
  readonly keyId: string;
  readonly key: string;
  readonly tier: Tier;
  readonly orgId: string;
  readonly slug: string;
}

/**
 * Exchange a code for the agent's key (POST /api/v1/org/pair). Unknown, wrong, expired, used and
 * burnt codes are one answer, UNAUTHORIZED (nothing about the code leaks). Single use under
 * concurrency: the code is marked used by a conditional UPDATE inside the organisation's unit of
 * work (its head lock serialises the two), so of two racing exchanges exactly one wins.
 */
export async function exchangePairingCode(db: Database, code: string): Promise<Paired> {
  const match = CODE.exec(code);
  if (!match) throw new DomainError('UNAUTHORIZED', REFUSED);
  const [, idBody = '', presented = ''] = match;
  const codeId = `pcd_${idBody}`;
  const row = await db.reader.get<CodeRow>(
    'SELECT id, org_id, agent_name, tier, secret_hash, chosen, expires_at, used_at, failed_attempts FROM pairing_codes WHERE id = ?',
    [codeId],
  );
  if (!(await secretMatches(row, presented))) {
    if (row && row.used_at === null) {
      await db.write(async (tx) => {
        await tx.run('UPDATE pairing_codes SET failed_attempts = failed_attempts + 1 WHERE id = ? AND used_at IS NULL', [codeId]);
      });
    }
    throw new DomainError('UNAUTHORIZED', REFUSED);
  }
  invariant(row !== undefined, 'a matching secret has a row');
  const agentId = newId('agt');
  const paired = await inUnitOfWork(db, row.org_id, agentId, async (uow) => {
    const used = await uow.tx.run(
      'UPDATE pairing_codes SET used_at = ?, agent_id = ? WHERE id = ? AND used_at IS NULL AND expires_at > ? AND failed_attempts < ?',
      [uow.now, agentId, codeId, uow.now, pairingLimits.failedAttemptsMax],
    );
    if (used.changes !== 1) throw new DomainError('UNAUTHORIZED', REFUSED);
    const taken = await uow.tx.get<{ id: string }>('SELECT id FROM agents WHERE org_id = ? AND name = ?', [uow.orgId, row.agent_name]);
    if (taken) throw conflict(`agent "${row.agent_name}" already exists in this organisation; ask an owner for a new code`);
    await uow.tx.run('INSERT INTO agents (id, org_id, name, created_at, tier, paired_at) VALUES (?, ?, ?, ?, ?, ?)', [
      agentId,
      uow.orgId,
      row.agent_name,
      uow.now,
      row.tier,
      uow.now,
    ]);
    const key = await issueKey(uow.tx, uow.orgId, row.tier, agentId, uow.now);
    await uow.emit(events.orgAgentPair, {
      entityId: agentId,
      payload: { agentId, name: row.agent_name, tier: row.tier, keyId: key.keyId, codeId },
    });
    return { agentId, keyId: key.keyId, key: key.key, tier: row.tier };
  });
  const org = await db.reader.get<{ slug: string }>('SELECT slug FROM organisations WHERE id = ?', [row.org_id]);
  invariant(org !== undefined, `organisation ${row.org_id} exists`);
  return { ...paired, orgId: row.org_id, slug: org.slug };
}

/**
 * Revoke an agent and every key it holds, in one transaction with one event, `org` /
 * `org.agent.revoke` (actor: the owner, or "" for the CLI). Its keys answer UNAUTHORIZED from the
 * commit on. Revoking again is a no-op. Another organisation's agent is NOT_FOUND: existence
 * does not leak.
 */
export async function revokeAgent(
  db: Database,
  input: { orgId: string; agentId: string; actor: string },
): Promise<{ agentId: string; name: string; revokedAt: string; keyIds: string[]; noop: boolean; ledgerId: string | null }> {
  return inUnitOfWork(db, input.orgId, input.actor, async (uow) => {
    const agent = await uow.tx.get<{ id: string; name: string; revoked_at: string | null }>(
      `SELECT id, name, revoked_at FROM agents WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
      [uow.orgId, input.agentId],
    );
    if (!agent) throw notFound('agent', input.agentId);
    if (agent.revoked_at !== null) {
      return { agentId: agent.id, name: agent.name, revokedAt: agent.revoked_at, keyIds: [], noop: true, ledgerId: null };
    }
    const keys = await uow.tx.all<{ id: string }>(
      'SELECT id FROM credentials WHERE org_id = ? AND agent_id = ? AND revoked_at IS NULL ORDER BY id',
      [uow.orgId, agent.id],
    );
    const keyIds = keys.map((k) => k.id);
    const event = await uow.emit(events.orgAgentRevoke, {
      entityId: agent.id,
      // Bounded: an agent named by `key issue --agent` may hold many keys; the count is exact.
      payload: { agentId: agent.id, name: agent.name, keyIds: keyIds.slice(0, 100), keyCount: keyIds.length },
    });
    await uow.tx.run('UPDATE credentials SET revoked_at = ? WHERE org_id = ? AND agent_id = ? AND revoked_at IS NULL', [
      uow.now,
      uow.orgId,
      agent.id,
    ]);
    await uow.tx.run('UPDATE agents SET revoked_at = ?, revoked_by = ? WHERE org_id = ? AND id = ?', [
      uow.now,
      uow.actor,
      uow.orgId,
      agent.id,
    ]);
    return { agentId: agent.id, name: agent.name, revokedAt: uow.now, keyIds, noop: false, ledgerId: event.ledgerId };
  });
}

export interface OpenCode {
  readonly codeId: string;
  readonly agentName: string;
  readonly tier: Tier;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly chosen: boolean;
}

/** Open codes (unused, unexpired, not burnt), newest first; at most `openCodesMax` exist. */
export async function openCodes(db: Database, orgId: string): Promise<OpenCode[]> {
  const now = clockOf(db)();
  const rows = await db.reader.all<{
    id: string;
    agent_name: string;
    tier: Tier;
    created_by: string;
    created_at: string;
    expires_at: string;
    chosen: number | string;
  }>(
    `SELECT id, agent_name, tier, created_by, created_at, expires_at, chosen FROM pairing_codes
     WHERE org_id = ? AND used_at IS NULL AND expires_at > ? AND failed_attempts < ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    [orgId, now, pairingLimits.failedAttemptsMax, pairingLimits.openCodesMax],
  );
  return rows.map((r) => ({
    codeId: r.id,
    agentName: r.agent_name,
    tier: r.tier,
    createdBy: r.created_by,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    chosen: Number(r.chosen) === 1,
  }));
}
