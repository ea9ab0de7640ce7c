import type { books, HeldReason } from '@finance-desk/protocol';
import type { z } from 'zod';
import { addDays, isoDate } from '../../clock.js';
import { conflict, invariant, notFound } from '../../errors.js';
import type { OpenHold } from '../../governance/approvals.js';
import { payloadHashOf } from '../../governance/approvals.js';
import { loadPolicy } from '../../governance/policy.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import type { Uow } from '../../write-path.js';

/**
 * Bills (payables). States: captured → approved; held (PB-B1, D8) → approved only with a human
 * proof; on_hold (parked by billHold) → approved; any open state → returned (final).
 * Scheduling and payment come with the payment run.
 */
type BillStatus = z.infer<typeof books.billStatus>;

interface BillRow {
  id: string;
  status: BillStatus;
  payee_name: string;
  payee_key: string;
  description: string;
  total_cents: number;
  due_days: number;
  due_on: string;
  held_reason: HeldReason | null;
  note: string | null;
  run_id: string | null;
  ledger_id: string;
}

const COLUMNS = 'id, status, payee_name, payee_key, description, total_cents, due_days, due_on, held_reason, note, run_id, ledger_id';

/** Payee identity for NEW_PAYEE: case and spacing do not make a new supplier. */
export function payeeKey(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, ' ');
}

function toBill(row: BillRow) {
  return {
    id: row.id,
    status: row.status,
    payeeName: row.payee_name,
    description: row.description,
    totalCents: Number(row.total_cents),
    dueDays: Number(row.due_days),
    dueOn: row.due_on,
    heldReason: row.held_reason,
    note: row.note,
    runId: row.run_id,
    ledgerId: row.ledger_id,
  };
}

function eventPayload(row: BillRow, extra: Record<string, string | null> = {}) {
  return {
    payee: row.payee_name,
    totalCents: Number(row.total_cents),
    heldReason: row.held_reason,
    runId: row.run_id,
    ...extra,
  };
}

async function load(uow: Uow, id: string): Promise<BillRow> {
  const row = await uow.tx.get<BillRow>(`SELECT ${COLUMNS} FROM bills WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    id,
  ]);
  if (!row) throw notFound('bill', id);
  return row;
}

async function transition(uow: Uow, row: BillRow, to: BillStatus, verb: string, note: string | null) {
  const next: BillRow = { ...row, status: to, note: note ?? row.note };
  const event = await uow.emit({
    family: 'books',
    kind: `books.bill.${verb}`,
    entityId: row.id,
    payload: eventPayload(next, note !== null ? { reason: note } : {}),
  });
  const moved = await uow.tx.run(
    `UPDATE bills SET status = ?, note = ?, ledger_id = ?${to === 'approved' ? ', approved_at = ?' : ''}
     WHERE org_id = ? AND id = ? AND status = ?`,
    to === 'approved'
      ? [to, next.note, event.ledgerId, uow.now, uow.orgId, row.id, row.status]
      : [to, next.note, event.ledgerId, uow.orgId, row.id, row.status],
  );
  invariant(moved.changes === 1, `bill ${row.id} moves from ${row.status} exactly once`);
  return toBill({ ...next, ledger_id: event.ledgerId });
}

/** PB-B1 (D8): ABOVE_FLOOR beats NEW_PAYEE; neither → null. */
async function heldReasonFor(uow: Uow, key: string, totalCents: number): Promise<HeldReason | null> {
  const policy = await loadPolicy(uow.tx, uow.orgId);
  if (totalCents > policy.billApprovalFloorCents) return 'ABOVE_FLOOR';
  const known = await uow.tx.get('SELECT id FROM bills WHERE org_id = ? AND payee_key = ? AND approved_at IS NOT NULL LIMIT 1', [
    uow.orgId,
    key,
  ]);
  return known ? null : 'NEW_PAYEE';
}

export async function billCapture(params: z.infer<typeof books.billCapture.params>, uow: Uow) {
  const key = payeeKey(params.payeeName);
  const heldReason = await heldReasonFor(uow, key, params.totalCents);
  const row: BillRow = {
    id: newId('bill'),
    status: heldReason ? 'held' : 'captured',
    payee_name: params.payeeName,
    payee_key: key,
    description: params.description,
    total_cents: params.totalCents,
    due_days: params.dueDays,
    due_on: addDays(isoDate(uow.now), params.dueDays),
    held_reason: heldReason,
    note: null,
    run_id: null,
    ledger_id: '',
  };
  const event = await uow.emit({
    family: 'books',
    kind: 'books.bill.capture',
    entityId: row.id,
    payload: eventPayload(row, { description: row.description, dueOn: row.due_on }),
  });
  await uow.tx.run(
    `INSERT INTO bills (org_id, ${COLUMNS}, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, row.id, row.status, row.payee_name, key, row.description, row.total_cents, row.due_days, row.due_on, heldReason, null, null, event.ledgerId, uow.now],
  );
  return toBill({ ...row, ledger_id: event.ledgerId });
}

const OPEN: readonly BillStatus[] = ['captured', 'held', 'on_hold'];

function billSummary(row: BillRow): string {
  const held = row.held_reason ? ` (held: ${row.held_reason === 'ABOVE_FLOOR' ? 'above the approval floor' : 'new payee'})` : '';
  return `Approve bill ${row.id} from ${row.payee_name} for ${formatCents(Number(row.total_cents))}${held}, due ${row.due_on}`;
}

export const billApproveAct: SignatureAct<{ id: string }, BillRow> = {
  method: 'books.billApprove',
  actionClass: 'books.bill_approve',
  refuseWithoutProof: true,
  load: (params, uow) => load(uow, params.id),
  subjectId: (row) => row.id,
  needsProof: (_params, row) => row.held_reason !== null,
  summary: (_params, row) => billSummary(row),
  state(_params, row) {
    if (row.status === 'approved') return { ...toBill(row), noop: true };
    if (!OPEN.includes(row.status)) throw conflict(`bill ${row.id} is ${row.status}; only a captured, held or on-hold bill can be approved`);
    return null;
  },
  execute: (_params, row, uow) => transition(uow, row, 'approved', 'approve', null),
};

export const billApprove = signatureHandler<z.infer<typeof books.billApprove.params>, BillRow>(billApproveAct);

export async function billHold(params: z.infer<typeof books.billHold.params>, uow: Uow) {
  const row = await load(uow, params.id);
  if (row.status === 'on_hold') return { ...toBill(row), noop: true };
  if (!['captured', 'held', 'approved'].includes(row.status)) {
    throw conflict(`bill ${row.id} is ${row.status}; only a captured, held or approved bill can be put on hold`);
  }
  return transition(uow, row, 'on_hold', 'hold', params.reason);
}

export async function billReturn(params: z.infer<typeof books.billReturn.params>, uow: Uow) {
  const row = await load(uow, params.id);
  if (row.status === 'returned') return { ...toBill(row), noop: true };
  if (!['captured', 'held', 'on_hold', 'approved'].includes(row.status)) {
    throw conflict(`bill ${row.id} is ${row.status}; it can no longer be returned`);
  }
  return transition(uow, row, 'returned', 'return', params.reason);
}

/** approval.request for books.bill_approve matches a bill still held under PB-B1 (D7). */
export async function pbB1Hold(uow: Uow, subjectId: string, payloadHash: string): Promise<OpenHold | null> {
  const row = await uow.tx.get<BillRow>(`SELECT ${COLUMNS} FROM bills WHERE org_id = ? AND id = ?`, [uow.orgId, subjectId]);
  if (!row || row.held_reason === null || !OPEN.includes(row.status)) return null;
  const params = { id: row.id };
  if (payloadHashOf('books.bill_approve', row.id, params) !== payloadHash) return null;
  return { method: 'books.billApprove', params, summary: billSummary(row) };
}
