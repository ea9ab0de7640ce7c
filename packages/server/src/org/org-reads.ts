import { ACTION_CLASSES, type ActionClass, type Tier, type UserRole } from '@finance-desk/protocol';
import { loadPolicy } from '../governance/policy.js';
import type { Queryable } from '../storage/types.js';
import { placeholders } from '../storage/sql.js';

/**
 * The `/api/v1/org/*` DTO reads: people, agents and keys of the caller's
 * organisation, each bounded (limit at most pageRowsMax, paged by the last id held; ids are
 * time-ordered, so id order is creation order). Never a secret, a key hash or a password hash.
 */
interface Page {
  readonly cursor?: string | undefined;
  readonly limit: number;
}

function paged<T extends { id: string }>(rows: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return { rows: kept, nextCursor: more ? (kept[kept.length - 1]?.id ?? null) : null };
}

/** The action classes a user may decide: named by id, or by role (`role:owner`), in the policy. */
function rightsOf(rights: Partial<Record<ActionClass, readonly string[]>>, user: { id: string; role: string }): ActionClass[] {
  return ACTION_CLASSES.filter((c) => {
    const who = rights[c] ?? [];
    return who.includes(user.id) || who.includes(`role:${user.role}`);
  });
}

export async function orgMembers(q: Queryable, orgId: string, p: Page) {
  const rows = await q.all<{ id: string; email: string; role: UserRole; created_at: string }>(
    `SELECT id, email, role, created_at FROM users WHERE org_id = ? AND id > ? ORDER BY id LIMIT ?`,
    [orgId, p.cursor ?? '', p.limit + 1],
  );
  const { decisionRights } = await loadPolicy(q, orgId);
  const page = paged(rows, p.limit);
  return {
    orgId,
    members: page.rows.map((u) => ({
      userId: u.id,
      email: u.email,
      role: u.role,
      createdAt: u.created_at,
      decisionRights: rightsOf(decisionRights, u),
    })),
    nextCursor: page.nextCursor,
  };
}

/** Key ids listed per agent: the newest, at most this many (keyCount is exact). */
const AGENT_KEY_IDS_MAX = 20;

export async function orgAgents(q: Queryable, orgId: string, p: Page & { status?: 'active' | 'revoked' | undefined }) {
  const status = p.status === 'active' ? ' AND revoked_at IS NULL' : p.status === 'revoked' ? ' AND revoked_at IS NOT NULL' : '';
  const rows = await q.all<{
    id: string;
    name: string;
    tier: Tier | null;
    created_at: string;
    paired_at: string | null;
    revoked_at: string | null;
    revoked_by: string | null;
  }>(
    `SELECT id, name, tier, created_at, paired_at, revoked_at, revoked_by FROM agents
     WHERE org_id = ? AND id > ?${status} ORDER BY id LIMIT ?`,
    [orgId, p.cursor ?? '', p.limit + 1],
  );
  const page = paged(rows, p.limit);
  const ids = page.rows.map((a) => a.id);
  const keys = ids.length
    ? await q.all<{ id: string; agent_id: string }>(
        `SELECT id, agent_id FROM credentials WHERE org_id = ? AND agent_id IN (${placeholders(ids.length)}) ORDER BY id DESC`,
        [orgId, ...ids],
      )
    : [];
  const byAgent = new Map<string, string[]>();
  for (const k of keys) byAgent.set(k.agent_id, [...(byAgent.get(k.agent_id) ?? []), k.id]);
  return {
    orgId,
    agents: page.rows.map((a) => {
      const keyIds = byAgent.get(a.id) ?? [];
      return {
        agentId: a.id,
        name: a.name,
        tier: a.tier,
        status: a.revoked_at === null ? ('active' as const) : ('revoked' as const),
        createdAt: a.created_at,
        pairedAt: a.paired_at,
        revokedAt: a.revoked_at,
        revokedBy: a.revoked_by,
        keyIds: keyIds.slice(0, AGENT_KEY_IDS_MAX),
        keyCount: keyIds.length,
      };
    }),
    nextCursor: page.nextCursor,
  };
}

export async function orgKeys(
  q: Queryable,
  orgId: string,
  p: Page & { status?: 'active' | 'revoked' | undefined; agentId?: string | undefined },
) {
  const args: (string | number)[] = [orgId, p.cursor ?? ''];
  let where = '';
  if (p.status === 'active') where += ' AND revoked_at IS NULL';
  if (p.status === 'revoked') where += ' AND revoked_at IS NOT NULL';
  if (p.agentId !== undefined) {
    where += ' AND agent_id = ?';
    args.push(p.agentId);
  }
  const rows = await q.all<{ id: string; tier: Tier; agent_id: string | null; created_at: string; revoked_at: string | null }>(
    `SELECT id, tier, agent_id, created_at, revoked_at FROM credentials WHERE org_id = ? AND id > ?${where} ORDER BY id LIMIT ?`,
    [...args, p.limit + 1],
  );
  const page = paged(rows, p.limit);
  return {
    orgId,
    keys: page.rows.map((k) => ({ keyId: k.id, tier: k.tier, agentId: k.agent_id, createdAt: k.created_at, revokedAt: k.revoked_at })),
    nextCursor: page.nextCursor,
  };
}
