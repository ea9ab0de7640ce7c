import { ACTION_CLASSES, canonicalJson, limits, type ActionClass, type UserRole } from '@finance-desk/protocol';
import { invariant } from '../errors.js';
import type { Queryable } from '../storage/types.js';
import { batchCached, type Read } from '../write-path.js';

export { ACTION_CLASSES, type ActionClass };

/**
 * Organisation policy: approval floors, approval expiry, decision rights. Decision rights list,
 * per action class, who may decide: user ids (`usr_…`) and roles (`role:approver`). An empty or
 * missing list means no human can approve that class, so its acts are refused with
 * GOVERNANCE_NOT_READY.
 */
export interface Policy {
  readonly billApprovalFloorCents: number;
  readonly materialityFloorCents: number;
  readonly approvalExpiryMs: number;
  readonly decisionRights: Readonly<Partial<Record<ActionClass, readonly string[]>>>;
}

export function defaultPolicy(deciders: readonly string[]): Policy {
  const rights: Partial<Record<ActionClass, readonly string[]>> = {};
  if (deciders.length > 0) for (const c of ACTION_CLASSES) rights[c] = [...deciders];
  return {
    billApprovalFloorCents: 500_000,
    materialityFloorCents: 100_000,
    approvalExpiryMs: limits.approvalExpiryMsDefault,
    decisionRights: rights,
  };
}

/** Kept by a batch of units of work: the policy changes only through units (setPolicy). */
const POLICY_BODY = batchCached('SELECT body FROM policies WHERE org_id = ?', ['policies']);

/** loadPolicy's read, for Uow.readTogether. */
export const policyRead = (orgId: string): Read => [POLICY_BODY, [orgId]];

/**
 * Parsed policies by their stored text: billCapture reads the policy on every bill, and most
 * organisations' policy text never changes, so it is parsed once. Frozen, since one parse serves
 * every caller; a changed policy is a new text. Bounded: past the cap it starts again.
 */
const parsedPolicies = new Map<string, Policy>();
const PARSED_POLICIES_MAX = 1024;

function parsedPolicy(body: string): Policy {
  let policy = parsedPolicies.get(body);
  if (policy === undefined) {
    const parsed = JSON.parse(body) as Policy;
    for (const list of Object.values(parsed.decisionRights)) Object.freeze(list);
    Object.freeze(parsed.decisionRights);
    policy = Object.freeze(parsed);
    if (parsedPolicies.size >= PARSED_POLICIES_MAX) parsedPolicies.clear();
    parsedPolicies.set(body, policy);
  }
  return policy;
}

export async function loadPolicy(q: Queryable, orgId: string): Promise<Policy> {
  const row = await q.get<{ body: string }>(POLICY_BODY, [orgId]);
  invariant(row, `organisation ${orgId} has a policy`);
  return parsedPolicy(row.body);
}

export function serialisePolicy(policy: Policy): string {
  return canonicalJson(policy);
}

export function hasDecisionRights(policy: Policy, actionClass: ActionClass): boolean {
  return (policy.decisionRights[actionClass] ?? []).length > 0;
}

export function mayDecide(policy: Policy, actionClass: ActionClass, user: { readonly id: string; readonly role: UserRole }): boolean {
  const list = policy.decisionRights[actionClass] ?? [];
  return list.includes(user.id) || list.includes(`role:${user.role}`);
}
