import { conflict, notFound } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { byThenId, documentBalances, rowsOfDocuments } from '../gl/post.js';
import type { OpenItem } from '../gl/open-items.js';
import { postDocumentPayment } from '../payables/settle.js';

/**
 * What other areas use of expense claims. Like the payables API, these never emit an event: the
 * caller applies the payment before its one event (which binds the journal) and records it with
 * the event's ledgerId.
 */
export const CLAIMS_ACCOUNT = '2500';

/** Statuses a reimbursement may be applied to: approved (posted, not yet paid in full). */
export const PAYABLE_CLAIM_STATUSES: readonly string[] = ['approved'];

interface OpenClaimRow {
  id: string;
  claimant: string;
  receipt_ref: string;
  spent_on: string;
  approved_at: string;
  amount_cents: number;
  posted_on: string;
}

/**
 * Claims owed to staff as at `asOf`: every approved (posted) claim whose lines on 2500 Expense
 * claims payable dated on or before `asOf` leave something owed. A claim is due when approved.
 */
export async function openClaimsAsOf(q: Queryable, orgId: string, asOf: string): Promise<OpenItem[]> {
  return openClaimsOf(q, orgId, await documentBalances(q, orgId, CLAIMS_ACCOUNT, asOf));
}

/** The same items for documents whose balances (debit-positive, as documentBalances gives them) are known: match suggestions look up only some. */
export async function openClaimsOf(q: Queryable, orgId: string, balances: ReadonlyMap<string, number>): Promise<OpenItem[]> {
  if (balances.size === 0) return [];
  const rows = await rowsOfDocuments<OpenClaimRow>(
    q,
    (list) => `SELECT c.id AS id, c.claimant AS claimant, c.receipt_ref AS receipt_ref, c.spent_on AS spent_on,
       c.approved_at AS approved_at, c.amount_cents AS amount_cents, j.date AS posted_on
     FROM expense_claims c JOIN journals j ON j.org_id = c.org_id AND j.id = c.journal_id
     WHERE c.org_id = ? AND c.id IN (${list})`,
    [orgId],
    balances.keys(),
  );
  rows.sort(byThenId((r) => r.approved_at));
  const out: OpenItem[] = [];
  for (const r of rows) {
    const owed = -(balances.get(r.id) ?? 0);
    if (owed <= 0) continue;
    out.push({
      id: r.id,
      kind: 'claim',
      party: r.claimant,
      reference: r.receipt_ref,
      issuedOn: r.spent_on,
      postedOn: r.posted_on,
      dueOn: r.posted_on, // approved (and posted) on, the organisation's local date
      totalCents: Number(r.amount_cents),
      outstandingCents: owed,
    });
  }
  return out;
}

/**
 * Reimburse a claim (in full or in part): Dr 2500 Expense claims payable (docId = claim id) /
 * Cr bank (1000 unless `bankAccount`). The claim becomes `paid` when nothing is left owing. Called
 * before the caller's event, which binds the journal: `record` keeps the rest with its ledgerId.
 * CONFLICT when the claim is not approved (naming its state), BAD_REQUEST naming amountCents when
 * it would overpay (with what is outstanding), NOT_FOUND when it is not this organisation's.
 */
export async function applyClaimPayment(
  uow: Uow,
  p: {
    claimId: string;
    amountCents: number;
    date: string;
    reference: string;
    journalId: string;
    bankAccount?: string;
  },
): Promise<{ status: string; outstandingCents: number; record: (ledgerId: string) => Promise<void> }> {
  const claim = await uow.tx.get<{ id: string; status: string; claimant: string }>(
    `SELECT id, status, claimant FROM expense_claims WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, p.claimId],
  );
  if (!claim) throw notFound('expense claim', p.claimId);
  if (!PAYABLE_CLAIM_STATUSES.includes(claim.status)) {
    throw conflict(`expense claim ${claim.id} is ${claim.status}; only an approved claim can be paid`);
  }
  const left = await postDocumentPayment(
    uow,
    { kind: 'expense claim', id: claim.id, party: claim.claimant, accountCode: CLAIMS_ACCOUNT },
    p,
  );
  if (left > 0) return { status: claim.status, outstandingCents: left, record: () => Promise.resolve() };
  const record = async (ledgerId: string) => {
    await uow.tx.run('UPDATE expense_claims SET status = ?, paid_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [
      'paid',
      uow.now,
      ledgerId,
      uow.orgId,
      claim.id,
    ]);
  };
  return { status: 'paid', outstandingCents: 0, record };
}
