import { z } from 'zod';
import { limits } from '../limits.js';
import { ACTION_CLASSES, APPROVAL_STATUSES } from '../signature.js';
import { id, queryInt, read, text } from './index-fields.js';
import { orgAgents, orgKeys, orgMembers, orgProfile } from './org.js';

export { orgAgents, orgKeys, orgMembers, orgProfile };

/** GET reads (seed §4.2). Query values arrive as strings; schemas parse them strictly. */
export const events = read({
  name: 'events',
  scope: 'org.read',
  summary: 'Page the ledger forward from a cursor (the last seq already held).',
  query: z.strictObject({
    cursor: queryInt(0, Number.MAX_SAFE_INTEGER).default(0),
    limit: queryInt(1, limits.eventsPageRowsMax).default(limits.eventsPageRowsDefault),
  }),
});

export const snapshot = read({
  name: 'snapshot',
  scope: 'org.read',
  summary: 'The chain head of the organisation.',
  query: z.strictObject({}),
});

export const boardReady = read({
  name: 'board.ready',
  scope: 'org.read',
  summary: 'Unclaimed board items, most urgent first, then oldest first.',
  query: z.strictObject({
    limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault),
  }),
});

export const boardContext = read({
  name: 'board.context',
  scope: 'org.read',
  summary: 'One board item with its history of ledger events.',
  query: z.strictObject({ id: id() }),
});

export const whoami = read({
  name: 'org/whoami',
  scope: 'org.read',
  summary: "The caller's own identity; `slug` must be the caller's organisation (D4).",
  query: z.strictObject({ slug: text(limits.idCharsMax) }),
});

export const orgSelf = read({
  name: 'org/self',
  scope: 'org.read',
  summary: "The caller's organisation: id, slug, name, creation time.",
  query: z.strictObject({}),
});

export const approvalWait = read({
  name: 'approval.wait',
  scope: 'org.read',
  summary:
    'Long-poll an approval until a human decides or timeoutMs passes (at most 30 000). Returns the status and, once approved, the signatureToken.',
  query: z.strictObject({
    approvalId: id(),
    timeoutMs: queryInt(0, limits.approvalWaitMsMax).default(0),
  }),
});

export const decisionList = read({
  name: 'decision.list',
  scope: 'org.read',
  summary: 'Approvals of the organisation, newest first, with filters; page with cursor.',
  query: z.strictObject({
    status: z.enum(APPROVAL_STATUSES).optional(),
    actionClass: z.enum(ACTION_CLASSES).optional(),
    subjectId: id().optional(),
    cursor: id().optional(),
    limit: queryInt(1, limits.pageRowsMax).default(limits.pageRowsDefault),
  }),
});

export const policy = read({
  name: 'policy',
  scope: 'org.read',
  summary: 'The organisation’s governance policy: floors, approval expiry, decision rights (D8).',
  query: z.strictObject({}),
});

export const directory = read({
  name: 'directory',
  scope: 'org.read',
  summary: 'Who acts in the organisation: people (id, email, role), agents, and API keys (id, tier, agent, revoked) — never secrets.',
  query: z.strictObject({}),
});

export const ops = read({
  name: 'ops',
  scope: 'org.read',
  summary: 'Operational state of the organisation: chain head, pending approvals, open holds, and the outbox (queued: still to be tried; undeliverable: attempts spent or refused by the adapter — `finance-desk outbox retry` re-queues them).',
  query: z.strictObject({}),
});

/**
 * Reads the seed names whose payloads belong to later parts of the road (organisation hierarchy,
 * AI gateway costs, contacts, meetings). They answer NOT_FOUND "not deployed" (seed §7) until then.
 */
export const NOT_DEPLOYED_READS = ['hierarchy', 'cost.rollup', 'contacts.list', 'meetings.list'] as const;

export const reads = [
  directory,
  ops,
  events,
  snapshot,
  boardReady,
  boardContext,
  whoami,
  orgSelf,
  approvalWait,
  decisionList,
  policy,
  orgProfile,
  orgMembers,
  orgAgents,
  orgKeys,
] as const;
