import { books, type ApprovalStatus } from '@finance-desk/protocol';
import { bankChangeOf, type BankChange } from '../domain/payables/bills.js';
import { APPROVAL_COLUMNS, approvalById, listDecisions, toApproval, type ApprovalRow } from '../governance/approvals.js';
import { loadPolicy, mayDecide, type Policy } from '../governance/policy.js';
import { verifyIncrementally } from '../ledger/verify.js';
import { approvalFacts, type ApprovalFacts } from '../governance/approval-facts.js';
import { localDate, orgTimeZone } from '../clock.js';
import type { Database, Queryable } from '../storage/types.js';
import type { HumanSession } from './sessions.js';
import { actionClassOf } from '../governance/signature.js';
import { actorNames } from '../governance/actor-name.js';

const BILL_APPROVE = actionClassOf(books.billApprove);

/** What the console reads: approvals with names a person recognises, the policy, the chain. */
export type Approval = ReturnType<typeof toApproval>;

export interface ConsoleApproval extends Approval {
  /** "agent Ledger Bot", a key's label, a person's name (else their email): actorNames. */
  readonly requestedByName: string;
  readonly decidedByName: string | null;
  /** Whether the signed-in user holds decision rights for this approval's class. */
  readonly mayDecide: boolean;
  /** A pending bill approval whose payee bank details changed: old and new. */
  readonly bankChange: BankChange | null;
  /** How much, to whom, from which account, when due: what the card leads with. */
  readonly facts: ApprovalFacts;
}

export interface ChainStatus {
  readonly head: { readonly seq: number; readonly rowHash: string };
  readonly verified: boolean;
  readonly brokenAt: { readonly seq: number; readonly reason: string } | null;
  /** Rows after this seq were checked on this view; earlier ones at an earlier view. */
  readonly verifiedFrom: number;
}

/** Display names of actors (governance/actor-name.ts actorNames: one bounded query per kind of actor). */
export async function namesOf(q: Queryable, orgId: string, ids: Iterable<string>): Promise<Map<string, string>> {
  return actorNames(q, orgId, ids);
}

async function withNames(q: Queryable, session: HumanSession, approvals: readonly Approval[], today?: string): Promise<ConsoleApproval[]> {
  const policy = await loadPolicy(q, session.orgId);
  const ids = approvals.flatMap((a) => (a.decidedBy ? [a.requestedBy, a.decidedBy] : [a.requestedBy]));
  const names = await namesOf(q, session.orgId, ids);
  const changes = new Map<string, BankChange | null>();
  for (const a of approvals) {
    if (a.actionClass === BILL_APPROVE && a.status === 'pending') {
      changes.set(a.approvalId, await bankChangeOf(q, session.orgId, a.subjectId));
    }
  }
  const day = today ?? localDate(new Date().toISOString(), await orgTimeZone(q, session.orgId));
  const facts = new Map<string, ApprovalFacts>();
  for (const a of approvals) {
    facts.set(
      a.approvalId,
      await approvalFacts(q, session.orgId, { actionClass: a.actionClass, subjectId: a.subjectId, params: a.payload.params }, day),
    );
  }
  return approvals.map((a) => ({
    ...a,
    facts: facts.get(a.approvalId) as ApprovalFacts,
    bankChange: changes.get(a.approvalId) ?? null,
    requestedByName: names.get(a.requestedBy) ?? a.requestedBy,
    decidedByName: a.decidedBy ? (names.get(a.decidedBy) ?? a.decidedBy) : null,
    mayDecide: mayDecide(policy, a.actionClass, { id: session.userId, role: session.role }),
  }));
}

export interface ApprovalQuery {
  readonly status?: ApprovalStatus;
  readonly cursor?: string;
  readonly limit: number;
}

/** Approvals newest first (ids are time-ordered), optionally of one status. */
/**
 * `now`: the server's clock (expiry is judged by it); `today`: the organisation's local date by the
 * same clock (orgToday; due and overdue on the cards); unset, by the wall clock.
 */
export async function consoleApprovals(q: Queryable, session: HumanSession, f: ApprovalQuery, now: string, today?: string) {
  const page = await listDecisions(q, session.orgId, f, now);
  return { approvals: await withNames(q, session, page.decisions, today), nextCursor: page.nextCursor };
}

/** One approval's card (the link in an approval email): any status; another organisation's is NOT_FOUND. */
export async function consoleApproval(
  q: Queryable,
  session: HumanSession,
  approvalId: string,
  now: string,
  today?: string,
): Promise<ConsoleApproval> {
  const row = await approvalById(q, session.orgId, approvalId);
  const [one] = await withNames(q, session, [toApproval(row, now)], today);
  return one as ConsoleApproval;
}

/**
 * Decision history: everything no longer pending (approved, denied, or expired undecided),
 * most recently settled first.
 */
export async function decisionHistory(q: Queryable, session: HumanSession, limit: number, now: string) {
  const rows = await q.all<ApprovalRow>(
    `SELECT ${APPROVAL_COLUMNS} FROM approvals
     WHERE org_id = ? AND (status <> 'pending' OR expires_at < ?)
     ORDER BY COALESCE(decided_at, expires_at) DESC, id DESC LIMIT ?`,
    [session.orgId, now, limit],
  );
  return {
    decisions: await withNames(
      q,
      session,
      rows.map((r) => toApproval(r, now)),
    ),
  };
}

/**
 * The chain head and its verification from the last verified head: each view
 * checks only the rows appended since, in one read snapshot, and moves the stored head forward.
 * Tampering with rows before the stored head is the full `finance-desk verify`'s to find.
 */
export async function chainStatus(db: Database, orgId: string): Promise<ChainStatus> {
  const { verdict, head, from } = await verifyIncrementally(db, orgId);
  return {
    head,
    verified: verdict.ok,
    brokenAt: verdict.ok ? null : { seq: verdict.seq, reason: verdict.reason },
    verifiedFrom: from,
  };
}

export interface PolicyView {
  readonly policy: Policy;
  readonly users: readonly { readonly id: string; readonly email: string; readonly role: string; readonly name: string | null }[];
}

/** The policy with the organisation's users, so decision rights can be shown as names. */
export async function policyView(q: Queryable, orgId: string): Promise<PolicyView> {
  const policy = await loadPolicy(q, orgId);
  const users = await q.all<{ id: string; email: string; role: string; name: string | null }>(
    'SELECT id, email, role, name FROM users WHERE org_id = ? ORDER BY email',
    [orgId],
  );
  return { policy, users };
}
