import { badRequest, invariant } from '../../errors.js';
import { accountExists, owedOnDocuments, postJournal } from '../gl/post.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';

/**
 * Paying a document we owe (a bill on 2000 Accounts payable, an expense claim on 2500 Expense
 * claims payable): Dr the control account with the document's id / Cr the bank. Shared by the
 * payables and expenses ledger APIs, which check the document's own state first.
 */
export interface DocumentPayment {
  readonly amountCents: number;
  readonly date: string;
  readonly reference: string;
  readonly journalId: string;
  readonly bankAccount?: string | undefined;
}

/** What is still owed on a document we owe (credit-positive), over every posting to date. */
export async function owedOnDocument(q: Queryable, orgId: string, accountCode: string, docId: string): Promise<number> {
  return (await owedOnDocuments(q, orgId, accountCode, 'credit', [docId])).get(docId) ?? 0;
}

/**
 * Check the amount against what is owed and post the payment. Returns what is still owed after
 * it. The caller has reserved p.journalId and emits its event after (which binds the journal).
 */
export async function postDocumentPayment(
  uow: Uow,
  doc: { readonly kind: string; readonly id: string; readonly party: string; readonly accountCode: string },
  p: DocumentPayment,
): Promise<number> {
  if (!Number.isSafeInteger(p.amountCents) || p.amountCents <= 0) {
    throw badRequest('amountCents: must be an integer greater than 0');
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(p.date)) throw badRequest('date: must be a date YYYY-MM-DD');
  const bank = p.bankAccount ?? '1000';
  if (!(await accountExists(uow.tx, uow.orgId, bank))) throw badRequest(`bankAccount: account ${bank} does not exist`);
  const owed = await owedOnDocument(uow.tx, uow.orgId, doc.accountCode, doc.id);
  // An overpayment is a wrong request, not a wrong state: BAD_REQUEST naming amountCents and what
  // is outstanding, worded as invoiceRecordPayment, matchAccept and invoiceCreditNote word it.
  if (p.amountCents > owed) {
    throw badRequest(`amountCents: ${p.amountCents} is more than the ${owed} cents outstanding on ${doc.kind} ${doc.id}`);
  }
  const memo = `Payment of ${doc.kind} ${doc.id} to ${doc.party}${p.reference ? ` (${p.reference})` : ''}`;
  await postJournal(uow, {
    id: p.journalId,
    date: p.date,
    memo,
    source: { kind: `${doc.kind.replace(/ /g, '_')}_payment`, id: doc.id },
    lines: [
      { account: doc.accountCode, debitCents: p.amountCents, docId: doc.id, description: memo },
      { account: bank, creditCents: p.amountCents, description: memo },
    ],
  });
  const left = owed - p.amountCents;
  invariant(left >= 0, `${doc.kind} ${doc.id} is not overpaid`);
  return left;
}
