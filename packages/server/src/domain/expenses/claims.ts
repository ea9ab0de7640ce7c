import type { payables, TaxCode } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, DomainError, invariant, notFound } from '../../errors.js';
import { issueDateOf } from '../gl/periods.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { resolveLines, purchasePosting, type PurchaseLine } from '../payables/bill-lines.js';
import { plannedClaimAsset, registerAssets } from '../assets/register.js';
import { claimWords, indexDocumentWords } from '../reconciliation/document-words.js';

/**
 * Staff expense claims. States: submitted → approved (posts: Dr expense net + Dr 1200 GST paid /
 * Cr 2500 Expense claims payable, docId = claim id) → paid (reimbursed through the expenses
 * ledger API); submitted → rejected (final, nothing posted). A claim on 1500 Plant and equipment
 * (a GST_ON_CAPITAL claim's default) puts a pending fixed asset on the register when it is posted.
 */
type ClaimStatus = z.infer<typeof payables.claimStatus>;

interface ClaimRow {
  id: string;
  status: ClaimStatus;
  claimant: string;
  description: string;
  amount_cents: number;
  gst_cents: number;
  tax_code: TaxCode;
  account_code: string;
  spent_on: string;
  /** The claim's date (null for claims submitted before migration 31: they post on approval day). */
  issued_on: string | null;
  receipt_ref: string;
  note: string | null;
  journal_id: string | null;
  ledger_id: string;
}

const COLUMNS =
  'id, status, claimant, description, amount_cents, gst_cents, tax_code, account_code, spent_on, issued_on, receipt_ref, note, journal_id, ledger_id';

function toClaim(row: ClaimRow) {
  return {
    id: row.id,
    status: row.status,
    claimant: row.claimant,
    description: row.description,
    amountCents: Number(row.amount_cents),
    gstCents: Number(row.gst_cents),
    taxCode: row.tax_code,
    accountCode: row.account_code,
    spentOn: row.spent_on,
    issuedOn: row.issued_on,
    receiptRef: row.receipt_ref,
    note: row.note,
    journalId: row.journal_id,
    ledgerId: row.ledger_id,
  };
}

function eventPayload<X extends object>(row: ClaimRow, extra: X) {
  return { claimant: row.claimant, amountCents: Number(row.amount_cents), gstCents: Number(row.gst_cents), ...extra };
}

function lineOf(row: ClaimRow): PurchaseLine {
  return {
    description: row.description,
    amountCents: Number(row.amount_cents),
    taxCode: row.tax_code,
    accountCode: row.account_code,
    gstCents: Number(row.gst_cents),
  };
}

async function load(uow: Uow, id: string): Promise<ClaimRow> {
  const row = await uow.tx.get<ClaimRow>(`SELECT ${COLUMNS} FROM expense_claims WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    id,
  ]);
  if (!row) throw notFound('expense claim', id);
  return row;
}

export async function expenseClaim(params: z.infer<typeof payables.expenseClaim.params>, uow: Uow) {
  const today = uow.today;
  if (params.spentOn > today) throw badRequest(`spentOn: must not be after today (${today})`);
  // The claim's date (default today), which its approval posts on; not before the spend.
  const issuedOn = issueDateOf(uow, params.issueDate);
  if (issuedOn < params.spentOn) {
    throw new DomainError('BAD_REQUEST', `issueDate ${issuedOn} is before spentOn ${params.spentOn}`, { field: 'issueDate' });
  }
  const taxCode: TaxCode = params.taxCode ?? 'GST_ON_EXPENSES';
  const [line] = await resolveLines(
    uow,
    [{ description: params.description, amountCents: params.amountCents, taxCode, accountCode: params.accountCode }],
    taxCode,
    () => (params.accountCode === undefined ? 'taxCode' : 'accountCode'),
  );
  invariant(line, 'a claim has one line');
  const row: ClaimRow = {
    id: newId('clm'),
    status: 'submitted',
    claimant: params.claimant,
    description: params.description,
    amount_cents: line.amountCents,
    gst_cents: line.gstCents,
    tax_code: line.taxCode,
    account_code: line.accountCode,
    spent_on: params.spentOn,
    issued_on: issuedOn,
    receipt_ref: params.receiptRef,
    note: null,
    journal_id: null,
    ledger_id: '',
  };
  const event = await uow.emit(events.expenseClaim, {
    entityId: row.id,
    payload: eventPayload(row, {
      description: row.description,
      taxCode: row.tax_code,
      spentOn: row.spent_on,
      receiptRef: row.receipt_ref,
      issuedOn,
    }),
  });
  // Queued (Tx.later): goes out with the batch's write-out on PostgreSQL.
  await uow.tx.later(
    `INSERT INTO expense_claims (org_id, ${COLUMNS}, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uow.orgId,
      row.id,
      row.status,
      row.claimant,
      row.description,
      row.amount_cents,
      row.gst_cents,
      row.tax_code,
      row.account_code,
      row.spent_on,
      row.issued_on,
      row.receipt_ref,
      null,
      null,
      event.ledgerId,
      uow.now,
    ],
  );
  return toClaim({ ...row, ledger_id: event.ledgerId });
}

export async function expenseApprove(params: z.infer<typeof payables.expenseApprove.params>, uow: Uow) {
  const row = await load(uow, params.id);
  if (row.status === 'approved') return { ...toClaim(row), noop: true };
  if (row.status !== 'submitted') throw conflict(`expense claim ${row.id} is ${row.status}; only a submitted claim can be approved`);
  const journalId = newJournalId();
  // Dated the claim's issue date (approval day for older claims); refused, naming
  // id, when the lock date has moved over it since it was submitted.
  const postOn = row.issued_on ?? uow.today;
  if (row.issued_on !== null && uow.lockDate !== null && row.issued_on <= uow.lockDate) {
    throw new DomainError(
      'BAD_REQUEST',
      `id: expense claim ${row.id} is dated ${row.issued_on}, on or before the lock date ${uow.lockDate}: the books are locked up to and including it (an owner can move the lock date)`,
      { field: 'id' },
    );
  }
  const line = lineOf(row);
  const assets = plannedClaimAsset(line);
  await postJournal(uow, {
    id: journalId,
    date: postOn,
    dateField: row.issued_on === null ? 'date' : 'id',
    memo: `Expense claim ${row.id} by ${row.claimant}: ${row.description}`,
    source: { kind: 'expense_claim', id: row.id },
    lines: purchasePosting({ id: row.id, control: { key: 'claims_payable' } }, [line]),
  });
  const event = await uow.emit(events.expenseApprove, {
    entityId: row.id,
    payload: eventPayload(row, { journalId, ...(assets.length > 0 ? { assetIds: assets.map((a) => a.id) } : {}) }),
  });
  await registerAssets(uow, assets, { kind: 'expense_claim', id: row.id, date: postOn, journalId, ledgerId: event.ledgerId });
  const moved = await uow.tx.run(
    `UPDATE expense_claims SET status = ?, journal_id = ?, approved_at = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND status = ?`,
    ['approved', journalId, uow.now, event.ledgerId, uow.orgId, row.id, 'submitted'],
  );
  invariant(moved.changes === 1, `claim ${row.id} moves from submitted exactly once`);
  await indexDocumentWords(uow.tx, uow.orgId, claimWords({ ...row, posted_on: postOn }));
  return toClaim({ ...row, status: 'approved', journal_id: journalId, ledger_id: event.ledgerId });
}

export async function expenseReject(params: z.infer<typeof payables.expenseReject.params>, uow: Uow) {
  const row = await load(uow, params.id);
  if (row.status === 'rejected') return { ...toClaim(row), noop: true };
  if (row.status !== 'submitted') throw conflict(`expense claim ${row.id} is ${row.status}; only a submitted claim can be rejected`);
  const event = await uow.emit(events.expenseReject, {
    entityId: row.id,
    payload: eventPayload(row, { reason: params.reason }),
  });
  const moved = await uow.tx.run(
    'UPDATE expense_claims SET status = ?, note = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND status = ?',
    ['rejected', params.reason, event.ledgerId, uow.orgId, row.id, 'submitted'],
  );
  invariant(moved.changes === 1, `claim ${row.id} moves from submitted exactly once`);
  return toClaim({ ...row, status: 'rejected', note: params.reason, ledger_id: event.ledgerId });
}
