import {
  ACTION_CLASS,
  ACTION_CLASSES,
  methods,
  TIER_SCOPES,
  TIERS,
  type ActionClass,
  type Scope,
  type Tier,
  type UserRole,
} from '@finance-desk/protocol';
import { formatCents } from '../money.js';
import { hasDecisionRights, loadPolicy, mayDecide, type Policy } from '../governance/policy.js';
import type { Queryable } from '../storage/types.js';

/**
 * GET hierarchy: what an agent needs to know before it asks for approval —
 * who the people are and which action classes each may decide, which agents act and with
 * which scopes, and for every action class whether anyone can approve it at all (declared false
 * means its acts are refused with GOVERNANCE_NOT_READY) and when a human is needed (the
 * policy's floors).
 *
 * Kept apart from the directory read so that agent status (pairing, a later migration) can be
 * added to `agentsOf` alone. Never a secret or a password hash: only ids, emails, roles, tiers.
 */

/** People and agents are few; the lists still stop here and say so (`truncated`). */
export const HIERARCHY_ROWS_MAX = 500;

interface UserRow {
  id: string;
  email: string;
  role: UserRole;
}

interface AgentRow {
  id: string;
  name: string;
  revoked_at: string | null;
}

interface KeyCount {
  agent_id: string | null;
  tier: string;
  n: number | string;
}

/** When a human decision is needed for each class, with this policy's floors. */
function humanNeeded(c: ActionClass, p: Policy): string {
  const texts: Record<ActionClass, string> = {
    [ACTION_CLASS.payrollSign]: 'always: signing a drafted pay run',
    [ACTION_CLASS.taxSignLodge]: 'always: signing and lodging a prepared BAS',
    [ACTION_CLASS.billScheduleRun]: 'always: releasing a payment run',
    [ACTION_CLASS.invoiceChaseStep]: 'chase step 2 or more (dunning escalation); step 1 runs at once',
    [ACTION_CLASS.onboardingAdvance]: "the contract step of onboarding; a change of an employee's net pay bank account",
    [ACTION_CLASS.matchHoldResolve]: `a held bank-feed match above the materiality floor (${formatCents(p.materialityFloorCents)})`,
    [ACTION_CLASS.billApprove]: `a bill held for approval: BANK_DETAILS_CHANGED, ABOVE_FLOOR (total above ${formatCents(p.billApprovalFloorCents)}) or NEW_PAYEE`,
  };
  return texts[c];
}

function methodOf(c: ActionClass): string {
  return methods.find((m) => m.actionClass === c)?.name ?? '';
}

async function agentsOf(q: Queryable, orgId: string) {
  const [agents, counts] = await Promise.all([
    q.all<AgentRow>(`SELECT id, name, revoked_at FROM agents WHERE org_id = ? ORDER BY created_at, id LIMIT ${HIERARCHY_ROWS_MAX + 1}`, [
      orgId,
    ]),
    // Grouped: one row per (agent, tier), however many keys were issued.
    q.all<KeyCount>(
      `SELECT agent_id, tier, COUNT(*) AS n FROM credentials WHERE org_id = ? AND revoked_at IS NULL
       GROUP BY agent_id, tier`,
      [orgId],
    ),
  ]);
  const byAgent = new Map<string | null, Map<Tier, number>>();
  for (const c of counts) {
    if (!(TIERS as readonly string[]).includes(c.tier)) continue;
    const tiers = byAgent.get(c.agent_id) ?? new Map<Tier, number>();
    tiers.set(c.tier as Tier, Number(c.n));
    byAgent.set(c.agent_id, tiers);
  }
  const describe = (tiers: Map<Tier, number> | undefined) => {
    const held = TIERS.filter((t) => (tiers?.get(t) ?? 0) > 0);
    const scopes = new Set<Scope>(held.flatMap((t) => TIER_SCOPES[t]));
    return {
      tiers: held,
      scopes: [...scopes].sort(),
      activeKeys: held.reduce((sum, t) => sum + (tiers?.get(t) ?? 0), 0),
    };
  };
  return {
    agents: agents.slice(0, HIERARCHY_ROWS_MAX).map((a) => ({
      agentId: a.id,
      name: a.name,
      // Migration 26: a revoked agent keeps its row (and its events' actor id); its keys are revoked with it.
      status: a.revoked_at === null ? ('active' as const) : ('revoked' as const),
      ...describe(byAgent.get(a.id)),
    })),
    truncated: agents.length > HIERARCHY_ROWS_MAX,
    // Every tier is a key (TIERS.map), which fromEntries cannot express in its type.
    unpairedKeys: Object.fromEntries(TIERS.map((t) => [t, byAgent.get(null)?.get(t) ?? 0])) as Record<Tier, number>,
  };
}

export async function hierarchy(q: Queryable, orgId: string) {
  const [policy, users, agents] = await Promise.all([
    loadPolicy(q, orgId),
    q.all<UserRow>(`SELECT id, email, role FROM users WHERE org_id = ? ORDER BY created_at, id LIMIT ${HIERARCHY_ROWS_MAX + 1}`, [orgId]),
    agentsOf(q, orgId),
  ]);
  const people = users.slice(0, HIERARCHY_ROWS_MAX);
  return {
    orgId,
    people: people.map((u) => ({
      userId: u.id,
      email: u.email,
      role: u.role,
      decisionRights: ACTION_CLASSES.filter((c) => mayDecide(policy, c, u)),
    })),
    peopleTruncated: users.length > HIERARCHY_ROWS_MAX,
    agents: agents.agents,
    agentsTruncated: agents.truncated,
    unpairedKeys: agents.unpairedKeys,
    floors: {
      billApprovalFloorCents: policy.billApprovalFloorCents,
      materialityFloorCents: policy.materialityFloorCents,
      approvalExpiryMs: policy.approvalExpiryMs,
    },
    decisionRights: ACTION_CLASSES.map((c) => ({
      actionClass: c,
      method: methodOf(c),
      humanNeeded: humanNeeded(c, policy),
      declared: hasDecisionRights(policy, c),
      // The grants as the policy states them (user ids and `role:…`), and the people they reach.
      grants: [...(policy.decisionRights[c] ?? [])],
      holders: people.filter((u) => mayDecide(policy, c, u)).map((u) => ({ userId: u.id, email: u.email })),
    })),
    truncated: users.length > HIERARCHY_ROWS_MAX || agents.truncated,
  };
}
