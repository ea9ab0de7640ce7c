import { events, ACTION_CLASSES, type ActionClass, type HoldResult, type MethodSpec } from '@finance-desk/protocol';
import { DomainError, conflict } from '../errors.js';
import { newId } from '../ids.js';
import type { ResultOf, Uow, WriteResult } from '../write-path.js';
import { approvalById, effectiveStatus, payloadHashOf, type ApprovalRow } from './approvals.js';
import { hasDecisionRights, loadPolicy, type Policy } from './policy.js';
import { readToken, signingKey } from './tokens.js';

/**
 * The signature-act engine: a signature act never completes without a human's approval. A
 * method declares itself a signature act by describing its subject, when it needs proof and how
 * to summarise it; the engine does the rest in this order: subject exists → proof (if given) →
 * decision rights → state → no-op → hold or execute, consuming the proof in the same transaction
 * as the act and its one event.
 */
export interface SignatureAct<P extends object, Row, S extends MethodSpec = MethodSpec> {
  /**
   * The method's declaration: its name and action class come from here, never
   * from literals; it must be declared `kind: 'signature'` with an action class. Its result types
   * `state` and `execute`, so an act answering another shape does not compile.
   */
  readonly spec: S;
  /** Load the subject row in this organisation, or throw NOT_FOUND. */
  load(params: P, uow: Uow): Promise<Row>;
  subjectId(row: Row): string;
  /** Whether this call needs a human proof (e.g. chase step ≥ 2, a bill held for approval). */
  needsProof(params: P, row: Row, policy: Policy): boolean;
  /** What the human reads: written by the server from the row, never by the caller: a human never approves an agent's wording. */
  summary(params: P, row: Row): string;
  /** State preconditions: throw CONFLICT naming the state, or return the no-op result (already done). */
  state(params: P, row: Row): ResultOf<S> | null;
  execute(params: P, row: Row, uow: Uow): Promise<ResultOf<S>>;
  /** The bill-approval rule: refuse with GOVERNANCE_NOT_READY instead of returning a hold frame. */
  readonly refuseWithoutProof?: boolean;
}

interface Proof {
  readonly approvalId?: string | undefined;
  readonly signatureToken?: string | undefined;
}

interface Binding {
  readonly actionClass: ActionClass;
  readonly subjectId: string;
  readonly payloadHash: string;
}

function stripProof<P extends Proof>(params: P): Omit<P, 'approvalId' | 'signatureToken'> {
  const { approvalId: _a, signatureToken: _s, ...rest } = params;
  return rest;
}

function checkBinding(kind: string, b: Binding, actual: { c: string; s: string; h: string }): void {
  if (actual.c !== b.actionClass) {
    throw conflict(`${kind} is bound to action class ${actual.c}, not ${b.actionClass}`);
  }
  if (actual.s !== b.subjectId) throw conflict(`${kind} is bound to subject ${actual.s}, not ${b.subjectId}`);
  if (actual.h !== b.payloadHash) {
    throw conflict(`${kind} is bound to another payload (payloadHash ${actual.h}), not ${b.payloadHash}`);
  }
}

/** Proof checks in order: unknown/other org → NOT_FOUND; binding → CONFLICT; used → CONFLICT; not approved → 423. */
async function checkProof(uow: Uow, proof: Proof, binding: Binding): Promise<ApprovalRow> {
  let approvalId = proof.approvalId;
  let kind = `approval ${approvalId ?? ''}`;
  if (proof.signatureToken !== undefined) {
    const claims = readToken(await signingKey(uow.tx), proof.signatureToken);
    if (!claims || claims.o !== uow.orgId) throw new DomainError('NOT_FOUND', 'signatureToken not found');
    kind = 'signatureToken';
    checkBinding(kind, binding, claims);
    approvalId = claims.a;
  }
  if (approvalId === undefined) throw new Error('checkProof called without a proof');
  const row = await approvalById(uow.tx, uow.orgId, approvalId, uow.caps.forUpdate);
  checkBinding(kind, binding, { c: row.action_class, s: row.subject_id, h: row.payload_hash });
  if (row.used_at !== null) {
    throw conflict(`approval ${row.id} was already used (ledger #${row.used_ledger_id ?? ''}); proofs are single-use`);
  }
  const status = effectiveStatus(row, uow.now);
  if (status === 'pending') throw new DomainError('GOVERNANCE_NOT_READY', `approval ${row.id} is still pending a human decision`);
  if (status === 'denied') throw new DomainError('GOVERNANCE_NOT_READY', `approval ${row.id} was denied; it can never complete this act`);
  if (status === 'expired') throw new DomainError('GOVERNANCE_NOT_READY', `approval ${row.id} expired at ${row.expires_at}`);
  return row;
}

function instructions(b: Binding): string {
  return (
    `file approval.request with actionClass ${b.actionClass}, payloadHash ${b.payloadHash} and subject ` +
    `{kind: books.signature, subjectId: ${b.subjectId}}, wait for a human decision (GET approval.wait), ` +
    'then retry this call with approvalId or signatureToken and a fresh x-idempotency-key'
  );
}

async function hold(uow: Uow, method: string, b: Binding, params: unknown, summary: string, policy: Policy) {
  const open = await uow.tx.get<{ id: string }>(
    `SELECT id FROM holds WHERE org_id = ? AND action_class = ? AND subject_id = ? AND payload_hash = ?
     AND released_at IS NULL`,
    [uow.orgId, b.actionClass, b.subjectId, b.payloadHash],
  );
  const holdId = open?.id ?? newId('hold');
  if (!open) {
    await uow.tx.run(
      `INSERT INTO holds (org_id, id, action_class, subject_id, payload_hash, method, params, summary, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [uow.orgId, holdId, b.actionClass, b.subjectId, b.payloadHash, method, JSON.stringify(params), summary, uow.now],
    );
  }
  // Held acts are audited too, so attempted but unexecuted acts show in the ledger: every unproven
  // attempt appends its event.
  const event = await uow.emit(events.signatureHold, {
    entityId: b.subjectId,
    payload: { holdId, method, actionClass: b.actionClass, subjectId: b.subjectId, payloadHash: b.payloadHash, summary },
  });
  const frame: HoldResult & { ledgerId: string } = {
    status: 'approval_required',
    approval: {
      actionClass: b.actionClass,
      payloadHash: b.payloadHash,
      subject: { kind: 'books.signature', subjectId: b.subjectId, summary },
      expiresInMs: policy.approvalExpiryMs,
    },
    subjectId: b.subjectId,
    message: `Held for a human decision (ledger #${event.ledgerId}): ${instructions(b)}.`,
    ledgerId: event.ledgerId,
  };
  return frame;
}

/** Execute with the proof consumed in the same transaction; the event payload names the proof. */
async function executeWithProof<P extends object, Row, S extends MethodSpec>(
  act: SignatureAct<P, Row, S>,
  params: P,
  row: Row,
  uow: Uow,
  proof: ApprovalRow,
  b: Binding,
) {
  let ledgerId = '';
  const proved: Uow = {
    ...uow,
    emit: async (event, body) => {
      // Every event a signature act executes declares the optional approvalId (protocol events.ts).
      const payload = { ...(body.payload as Record<string, unknown>), approvalId: proof.id };
      const appended = await uow.emit(event, { entityId: body.entityId, payload: payload as never });
      ledgerId = appended.ledgerId;
      return appended;
    },
  };
  const result = await act.execute(params, row, proved);
  const used = await uow.tx.run('UPDATE approvals SET used_at = ?, used_ledger_id = ? WHERE org_id = ? AND id = ? AND used_at IS NULL', [
    uow.now,
    ledgerId,
    uow.orgId,
    proof.id,
  ]);
  if (used.changes !== 1) throw conflict(`approval ${proof.id} was already used; proofs are single-use`);
  await uow.tx.run(
    `UPDATE holds SET released_at = ? WHERE org_id = ? AND action_class = ? AND subject_id = ? AND payload_hash = ?
     AND released_at IS NULL`,
    [uow.now, uow.orgId, b.actionClass, b.subjectId, b.payloadHash],
  );
  return result;
}

/** A signature act ready to bind (binding.ts bindSignature): its declaration and its handler. */
export interface SignatureHandler {
  readonly spec: MethodSpec;
  readonly run: (params: never, uow: Uow) => Promise<WriteResult>;
}

/** The declared identity of a signature act; a declaration that is not one is a startup error. */
function identityOf(spec: MethodSpec): { method: string; actionClass: ActionClass } {
  const actionClass = spec.actionClass;
  if (spec.kind !== 'signature' || actionClass === undefined || !(ACTION_CLASSES as readonly string[]).includes(actionClass)) {
    throw new Error(`${spec.name} is not declared as a signature act with an action class`);
  }
  return { method: spec.name, actionClass: actionClass as ActionClass };
}

/** The action class a signature act's declaration names (for queries about its holds). */
export const actionClassOf = (spec: MethodSpec): ActionClass => identityOf(spec).actionClass;

export function signatureHandler<P extends Proof & object, Row, S extends MethodSpec>(
  act: SignatureAct<Omit<P, 'approvalId' | 'signatureToken'>, Row, S>,
): SignatureHandler & { readonly run: (params: P, uow: Uow) => Promise<ResultOf<S> | HoldResult> } {
  const { method, actionClass } = identityOf(act.spec);
  const run = async (params: P, uow: Uow): Promise<ResultOf<S> | HoldResult> => {
    const actParams = stripProof(params);
    const row = await act.load(actParams, uow);
    const subjectId = act.subjectId(row);
    const b: Binding = { actionClass, subjectId, payloadHash: payloadHashOf(actionClass, subjectId, actParams) };
    const given = params.approvalId !== undefined || params.signatureToken !== undefined;
    const proof = given ? await checkProof(uow, params, b) : null;
    const policy = await loadPolicy(uow.tx, uow.orgId);
    const needs = act.needsProof(actParams, row, policy);
    if ((needs || proof) && !hasDecisionRights(policy, actionClass)) {
      throw new DomainError('GOVERNANCE_NOT_READY', `no decision rights are declared for ${actionClass}: no human could approve this act`);
    }
    const noop = act.state(actParams, row);
    if (noop) return noop;
    if (proof) return executeWithProof(act, actParams, row, uow, proof, b);
    if (!needs) return act.execute(actParams, row, uow);
    const summary = act.summary(actParams, row);
    if (act.refuseWithoutProof) {
      // The approval to file travels structured, so no client parses this prose.
      throw new DomainError('GOVERNANCE_NOT_READY', `${summary}: a human must approve this; ${instructions(b)}`, {
        approval: {
          actionClass: b.actionClass,
          payloadHash: b.payloadHash,
          subject: { kind: 'books.signature', subjectId: b.subjectId, summary },
        },
      });
    }
    return hold(uow, method, b, actParams, summary, policy);
  };
  return { spec: act.spec, run };
}

/** Find an open hold for approval.request: a `books.signature.hold` not yet released. */
export async function openHold(uow: Uow, actionClass: ActionClass, subjectId: string, payloadHash: string) {
  const row = await uow.tx.get<{ method: string; params: string; summary: string }>(
    `SELECT method, params, summary FROM holds WHERE org_id = ? AND action_class = ? AND subject_id = ?
     AND payload_hash = ? AND released_at IS NULL ORDER BY created_at DESC LIMIT 1`,
    [uow.orgId, actionClass, subjectId, payloadHash],
  );
  return row ? { method: row.method, params: JSON.parse(row.params) as unknown, summary: row.summary } : null;
}
