import { canonicalJson, type ActionClass, type ApprovalStatus, type UserRole } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import { DomainError, conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { clockOf } from '../clock.js';
import type { Database, Queryable } from '../storage/types.js';
import { inUnitOfWork, type Uow } from '../write-path.js';
import { emailDeciders } from './approval-mail.js';
import { loadPolicy, mayDecide } from './policy.js';
import { mintToken, signingKey } from './tokens.js';

export const APPROVAL_CHANNEL = 'approval_decided';

/** The protocol package's payloadHash, the one function server and clients share. */
export { payloadHash as payloadHashOf } from '@finance-desk/protocol';

export interface ApprovalRow {
  id: string;
  action_class: ActionClass;
  subject_id: string;
  payload_hash: string;
  method: string;
  params: string;
  summary: string;
  status: 'pending' | 'approved' | 'denied';
  requested_by: string;
  requested_at: string;
  expires_at: string;
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
  used_at: string | null;
  used_ledger_id: string | null;
  ledger_id: string;
}

export const APPROVAL_COLUMNS =
  'id, action_class, subject_id, payload_hash, method, params, summary, status, requested_by, requested_at, expires_at, decided_by, decided_at, reason, used_at, used_ledger_id, ledger_id';

/** Pending or approved-but-unused past its expiry is expired (default 24 h; policy may change it). */
export function effectiveStatus(row: ApprovalRow, now: string): ApprovalStatus {
  if (row.status === 'denied') return 'denied';
  if (row.used_at !== null) return 'approved';
  if (row.expires_at < now) return 'expired';
  return row.status;
}

export function toApproval(row: ApprovalRow, now: string) {
  return {
    approvalId: row.id,
    actionClass: row.action_class,
    subjectId: row.subject_id,
    payloadHash: row.payload_hash,
    summary: row.summary,
    payload: { method: row.method, params: JSON.parse(row.params) as unknown },
    status: effectiveStatus(row, now),
    requestedBy: row.requested_by,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    reason: row.reason,
    usedAt: row.used_at,
    usedLedgerId: row.used_ledger_id,
    ledgerId: row.ledger_id,
  };
}

export async function approvalById(q: Queryable, orgId: string, id: string, lock = ''): Promise<ApprovalRow> {
  const row = await q.get<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE org_id = ? AND id = ?${lock}`, [orgId, id]);
  if (!row) throw notFound('approval', id);
  return row;
}

/** What a human is asked to decide: found from an open hold or a bill held for approval, never from the agent. */
export interface OpenHold {
  readonly method: string;
  readonly params: unknown;
  readonly summary: string;
}

export type HoldFinder = (uow: Uow, actionClass: ActionClass, subjectId: string, payloadHash: string) => Promise<OpenHold | null>;

/** `approval.request`: must match an open hold; event `approval` / `approval.requested`. */
export async function requestApproval(
  params: { actionClass: ActionClass; payloadHash: string; subject: { subjectId: string } },
  uow: Uow,
  findHold: HoldFinder,
) {
  const { actionClass, payloadHash } = params;
  const subjectId = params.subject.subjectId;
  const hold = await findHold(uow, actionClass, subjectId, payloadHash);
  if (!hold) {
    throw new DomainError('NOT_FOUND', `no open hold for actionClass ${actionClass}, subject ${subjectId} and payloadHash ${payloadHash}`);
  }
  const existing = await uow.tx.get<ApprovalRow>(
    `SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE org_id = ? AND action_class = ? AND subject_id = ?
     AND payload_hash = ? AND status = 'pending' AND expires_at >= ? ORDER BY requested_at DESC LIMIT 1`,
    [uow.orgId, actionClass, subjectId, payloadHash, uow.now],
  );
  if (existing) {
    return {
      approvalId: existing.id,
      status: 'pending' as const,
      expiresAt: existing.expires_at,
      summary: existing.summary,
      ledgerId: existing.ledger_id,
      noop: true,
    };
  }
  const policy = await loadPolicy(uow.tx, uow.orgId);
  const id = newId('apr');
  const expiresAt = new Date(Date.parse(uow.now) + policy.approvalExpiryMs).toISOString();
  const event = await uow.emit(events.approvalRequested, {
    entityId: id,
    payload: { actionClass, subjectId, payloadHash, method: hold.method, summary: hold.summary, expiresAt },
  });
  await uow.tx.run(
    `INSERT INTO approvals (org_id, id, action_class, subject_id, payload_hash, method, params, summary, status,
       requested_by, requested_at, expires_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)`,
    [
      uow.orgId,
      id,
      actionClass,
      subjectId,
      payloadHash,
      hold.method,
      canonicalJson(hold.params),
      hold.summary,
      uow.actor,
      uow.now,
      expiresAt,
      event.ledgerId,
    ],
  );
  // The one place an approval becomes pending, so the one place deciders are told
  // (after commit, through the outbox); the no-op above for a repeat request sends nothing.
  await emailDeciders(uow, {
    approvalId: id,
    actionClass,
    subjectId,
    method: hold.method,
    params: hold.params,
    summary: hold.summary,
    requestedAt: uow.now,
    expiresAt,
  });
  return { approvalId: id, status: 'pending' as const, expiresAt, summary: hold.summary, ledgerId: event.ledgerId };
}

export interface Decider {
  readonly id: string;
  readonly role: UserRole;
}

export type DecisionOutcome = {
  readonly approvalId: string;
  readonly status: 'approved' | 'denied';
  readonly signatureToken?: string;
  readonly ledgerId: string;
};

/**
 * A human decision, on the human lane or the CLI; never an API key. Only a user with
 * decision rights for the class may decide. Event `approval.approved` / `approval.denied`, the
 * user as actor; waiters in every process are woken after the commit.
 */
export async function decideApproval(
  db: Database,
  input: { orgId: string; approvalId: string; user: Decider; approve: boolean; reason?: string | null },
): Promise<DecisionOutcome> {
  return inUnitOfWork(db, input.orgId, input.user.id, async (uow): Promise<DecisionOutcome> => {
    const row = await approvalById(uow.tx, uow.orgId, input.approvalId, uow.caps.forUpdate);
    const policy = await loadPolicy(uow.tx, uow.orgId);
    if (!mayDecide(policy, row.action_class, input.user)) {
      throw new DomainError('FORBIDDEN_SCOPE', `user ${input.user.id} has no decision rights for ${row.action_class}`);
    }
    const status = effectiveStatus(row, uow.now);
    if (status !== 'pending') throw conflict(`approval ${row.id} is ${status}; only a pending approval can be decided`);
    const decided = input.approve ? 'approved' : 'denied';
    const reason = input.reason?.trim() || null;
    const event = await uow.emit(input.approve ? events.approvalApproved : events.approvalDenied, {
      entityId: row.id,
      payload: { actionClass: row.action_class, subjectId: row.subject_id, payloadHash: row.payload_hash, reason },
    });
    await uow.tx.run('UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, reason = ? WHERE org_id = ? AND id = ?', [
      decided,
      input.user.id,
      uow.now,
      reason,
      uow.orgId,
      row.id,
    ]);
    await uow.tx.notify(APPROVAL_CHANNEL, row.id);
    const result: DecisionOutcome = { approvalId: row.id, status: decided, ledgerId: event.ledgerId };
    if (!input.approve) return result;
    const token = mintToken(await signingKey(uow.tx), claimsOf(row, uow.orgId));
    return { ...result, signatureToken: token };
  });
}

function claimsOf(row: ApprovalRow, orgId: string) {
  return { a: row.id, o: orgId, c: row.action_class, s: row.subject_id, h: row.payload_hash, e: row.expires_at };
}

/** `approval.wait` payload for a row: the token only once approved. */
async function waitView(q: Queryable, orgId: string, row: ApprovalRow, now: string) {
  const status = effectiveStatus(row, now);
  return {
    approvalId: row.id,
    status,
    ...(row.decided_by ? { decidedBy: row.decided_by, decidedAt: row.decided_at } : {}),
    ...(status === 'approved' ? { signatureToken: mintToken(await signingKey(q), claimsOf(row, orgId)) } : {}),
    ...(row.reason ? { reason: row.reason } : {}),
  };
}

/** Safety net if a notification is lost (e.g. a reconnect): re-read this often while waiting. */
let RECHECK_MS = 2000;

/** Tests lengthen the safety net to prove that notifications, not re-reads, wake waiters. */
export function setApprovalRecheckMs(ms: number): void {
  RECHECK_MS = ms;
}

/**
 * Long-poll: answer at once unless pending; else wait for a decision notified by any process
 * (LISTEN/NOTIFY on PostgreSQL), the approval's expiry, or the timeout — whichever comes first.
 */
export async function waitForApproval(db: Database, orgId: string, approvalId: string, timeoutMs: number, signal?: AbortSignal) {
  // Expiry is judged by the server's clock (clockOf: the injectable one in tests), like every
  // other date; only how long to wait is wall time.
  const now = clockOf(db);
  const pending = (r: ApprovalRow) => effectiveStatus(r, now()) === 'pending';
  let row = await approvalById(db.reader, orgId, approvalId);
  if (!pending(row) || timeoutMs === 0) return waitView(db.reader, orgId, row, now());
  let signalled = false;
  let wake: () => void = () => undefined;
  // Subscribe, then re-read: a decision committed in between is seen by the read or the signal.
  const unsubscribe = await db.listen(APPROVAL_CHANNEL, (payload) => {
    if (payload !== approvalId) return;
    signalled = true;
    wake();
  });
  try {
    const deadline = Date.now() + timeoutMs;
    row = await approvalById(db.reader, orgId, approvalId);
    while (pending(row) && Date.now() < deadline && !signal?.aborted) {
      const untilExpiry = Date.parse(row.expires_at) - Date.parse(now()) + 1;
      const wait = Math.max(0, Math.min(deadline - Date.now(), untilExpiry, RECHECK_MS));
      if (!signalled) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, wait);
          function done() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          }
          wake = done;
          signal?.addEventListener('abort', done, { once: true });
        });
      }
      signalled = false;
      row = await approvalById(db.reader, orgId, approvalId);
    }
  } finally {
    unsubscribe();
  }
  return waitView(db.reader, orgId, row, now());
}

export interface DecisionFilters {
  readonly status?: ApprovalStatus;
  readonly actionClass?: ActionClass;
  readonly subjectId?: string;
  readonly cursor?: string;
  readonly limit: number;
}

/**
 * `decision.list`: newest first; `nextCursor` is the last id returned, null at the end. `now` is
 * the server's clock (clockOf), which decides what has expired.
 */
export async function listDecisions(q: Queryable, orgId: string, f: DecisionFilters, now: string) {
  const where: string[] = ['org_id = ?'];
  const args: (string | number)[] = [orgId];
  const statusSql: Record<ApprovalStatus, string> = {
    pending: "status = 'pending' AND expires_at >= ?",
    approved: "status = 'approved' AND (used_at IS NOT NULL OR expires_at >= ?)",
    denied: "status = 'denied' AND ? <> ''",
    expired: "status IN ('pending', 'approved') AND used_at IS NULL AND expires_at < ?",
  };
  if (f.status) {
    where.push(statusSql[f.status]);
    args.push(now);
  }
  if (f.actionClass) {
    where.push('action_class = ?');
    args.push(f.actionClass);
  }
  if (f.subjectId) {
    where.push('subject_id = ?');
    args.push(f.subjectId);
  }
  if (f.cursor) {
    where.push('id < ?');
    args.push(f.cursor);
  }
  args.push(f.limit + 1);
  const rows = await q.all<ApprovalRow>(
    `SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`,
    args,
  );
  const page = rows.slice(0, f.limit);
  const more = rows.length > f.limit;
  return { decisions: page.map((r) => toApproval(r, now)), nextCursor: more ? (page.at(-1)?.id ?? null) : null };
}
