import { events, ACTION_CLASSES, USER_ROLES, limits, type ActionClass, type EventPayloadOf } from '@finance-desk/protocol';
import { z } from 'zod';
import { DomainError } from '../errors.js';
import type { Database } from '../storage/types.js';
import { inUnitOfWork } from '../write-path.js';
import { loadPolicy, serialisePolicy, type Policy } from './policy.js';

/**
 * Changing policy is a human act: only an owner may do it, on the human lane or the
 * CLI; it appends `policy` / `policy.changed` with the user as actor and the before/after values.
 */
const decider = z.string().regex(/^(usr_[0-9a-z]{26}|role:(owner|approver|bookkeeper))$/, {
  error: `must be a user id (usr_…) or a role (${USER_ROLES.map((r) => `role:${r}`).join(', ')})`,
});

export const policyPatchSchema = z.strictObject({
  billApprovalFloorCents: z.number().int().min(0).max(limits.centsMax).optional(),
  materialityFloorCents: z.number().int().min(0).max(limits.centsMax).optional(),
  approvalExpiryMs: z
    .number()
    .int()
    .min(60_000, { error: 'must be at least 60000 (one minute)' })
    .max(30 * 24 * 60 * 60 * 1000, { error: 'must be at most 30 days' })
    .optional(),
  decisionRights: z.partialRecord(z.enum(ACTION_CLASSES), z.array(decider).max(50)).optional(),
});
export type PolicyPatch = z.infer<typeof policyPatchSchema>;

/** A policy as the event logs it (a plain JSON copy). */
type Logged = EventPayloadOf<typeof events.policyChanged>['before'];

export async function setPolicy(
  db: Database,
  input: { orgId: string; user: { id: string; role: string }; patch: PolicyPatch },
): Promise<Policy & { ledgerId: string }> {
  if (input.user.role !== 'owner') {
    throw new DomainError('FORBIDDEN_SCOPE', `user ${input.user.id} is not an owner; only owners change policy`);
  }
  return inUnitOfWork(db, input.orgId, input.user.id, async (uow) => {
    const before = await loadPolicy(uow.tx, uow.orgId);
    const users = new Set((await uow.tx.all<{ id: string }>('SELECT id FROM users WHERE org_id = ?', [uow.orgId])).map((u) => u.id));
    for (const [cls, list] of Object.entries(input.patch.decisionRights ?? {})) {
      for (const who of list ?? []) {
        if (who.startsWith('usr_') && !users.has(who)) {
          throw new DomainError('BAD_REQUEST', `decisionRights.${cls}: user ${who} is not in this organisation`);
        }
      }
    }
    const rights: Partial<Record<ActionClass, readonly string[]>> = { ...before.decisionRights };
    for (const [cls, list] of Object.entries(input.patch.decisionRights ?? {})) {
      rights[cls as ActionClass] = [...new Set(list ?? [])];
    }
    const after: Policy = {
      billApprovalFloorCents: input.patch.billApprovalFloorCents ?? before.billApprovalFloorCents,
      materialityFloorCents: input.patch.materialityFloorCents ?? before.materialityFloorCents,
      approvalExpiryMs: input.patch.approvalExpiryMs ?? before.approvalExpiryMs,
      decisionRights: rights,
    };
    const event = await uow.emit(events.policyChanged, {
      entityId: uow.orgId,
      payload: { before: JSON.parse(serialisePolicy(before)) as Logged, after: JSON.parse(serialisePolicy(after)) as Logged },
    });
    await uow.tx.run('UPDATE policies SET body = ?, updated_at = ? WHERE org_id = ?', [serialisePolicy(after), uow.now, uow.orgId]);
    return { ...after, ledgerId: event.ledgerId };
  });
}
