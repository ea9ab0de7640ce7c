import { localDate, orgTimeZone } from '../../clock.js';
import { conflict, notFound } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { byThenId, openDocumentRowsAsOf, rowsOfDocuments } from '../gl/post.js';
import type { OpenItem } from '../gl/open-items.js';
import { postDocumentPayment } from './settle.js';
import { refuseForeign } from '../receivables/foreign.js';
import { payables } from '@finance-desk/protocol';

/**
 * What other areas (reconciliation, reports) use of payables. These functions never emit an
 * event: the caller's act reserves a journal id, applies the payment before its one event (write
 * path; the event binds the journal's lines), then records it with the event's ledgerId, so the
 * payment journal points at the caller's event.
 */
export const PAYABLES_ACCOUNT = '2000';

interface OpenBillRow {
  id: string;
  payee_name: string;
  payee_reference: string | null;
  reference: string | null;
  description: string;
  created_at: string;
  issued_on: string | null;
  due_on: string;
  total_cents: number;
  posted_on: string;
}

/**
 * Bills owed as at `asOf` (aged payables, match suggestions): every posted bill whose lines on
 * 2000 Accounts payable dated on or before `asOf` leave something owed, oldest due first. The
 * ledger decides, not the bill's status, so a bill paid after `asOf` is still open as at `asOf`.
 */
export async function openBillsAsOf(q: Queryable, orgId: string, asOf: string): Promise<OpenItem[]> {
  return billItems(q, orgId, await openDocumentRowsAsOf<OpenBillRow>(q, orgId, PAYABLES_ACCOUNT, asOf, BILL_DOCUMENTS));
}

/** Posted bills (with their journal's date), for openDocumentRowsAsOf. */
const BILL_DOCUMENTS = {
  from: 'bills d JOIN journals j ON j.org_id = d.org_id AND j.id = d.journal_id',
  columns: `d.id AS id, d.payee_name AS payee_name, d.payee_reference AS payee_reference, d.reference AS reference,
       d.description AS description, d.created_at AS created_at, d.issued_on AS issued_on, d.due_on AS due_on,
       d.total_cents AS total_cents, j.date AS posted_on`,
  where: 'd.journal_id IS NOT NULL',
  params: [],
};

/** The same items for documents whose balances (debit-positive, as documentBalances gives them) are known: match suggestions look up only some. */
export async function openBillsOf(q: Queryable, orgId: string, balances: ReadonlyMap<string, number>): Promise<OpenItem[]> {
  if (balances.size === 0) return [];
  const rows = await rowsOfDocuments<OpenBillRow>(
    q,
    (list) => `SELECT b.id AS id, b.payee_name AS payee_name, b.payee_reference AS payee_reference, b.reference AS reference,
       b.description AS description, b.created_at AS created_at, b.issued_on AS issued_on, b.due_on AS due_on,
       b.total_cents AS total_cents, j.date AS posted_on
     FROM bills b JOIN journals j ON j.org_id = b.org_id AND j.id = b.journal_id
     WHERE b.org_id = ? AND b.id IN (${list})`,
    [orgId],
    balances.keys(),
  );
  return billItems(
    q,
    orgId,
    rows.map((row) => ({ row, balance: balances.get(row.id) ?? 0 })),
  );
}

/** Open items of bill rows with their balances (debit-positive: owed is the credit), oldest due first. */
async function billItems(q: Queryable, orgId: string, rows: readonly { row: OpenBillRow; balance: number }[]): Promise<OpenItem[]> {
  const out: OpenItem[] = [];
  // Only bills captured before bills had a date need the time zone.
  const zone = rows.some((r) => r.row.issued_on === null) ? await orgTimeZone(q, orgId) : '';
  for (const { row: r, balance } of [...rows].sort((a, b) => byDueThenId(a.row, b.row))) {
    const owed = -balance;
    if (owed <= 0) continue;
    out.push({
      id: r.id,
      kind: 'bill',
      party: r.payee_name,
      reference: r.payee_reference ?? r.description,
      quoted: r.reference === null ? [] : [r.reference],
      // The bill's date; older bills: captured on, in the organisation's time zone.
      issuedOn: r.issued_on ?? localDate(r.created_at, zone),
      postedOn: r.posted_on,
      dueOn: r.due_on,
      totalCents: Number(r.total_cents),
      outstandingCents: owed,
    });
  }
  return out;
}

const byDueThenId = byThenId<OpenBillRow>((r) => r.due_on);

/** Statuses a payment may be applied to: approved (posted, unpaid or partly paid). */
export const PAYABLE_BILL_STATUSES: readonly string[] = ['approved'];

/**
 * Pay a bill (in full or in part) from the bank: Dr 2000 Accounts payable (docId = bill id) /
 * Cr bank (1000 unless `bankAccount`). The bill becomes `paid` when nothing is left owing; its
 * ledgerId is then the caller's event. Called before that event, which binds the journal: `record`
 * keeps the rest once the event has its ledgerId. CONFLICT when the bill is not approved (naming its state),
 * BAD_REQUEST naming amountCents when it would overpay (with what is outstanding), NOT_FOUND when
 * it is not this organisation's.
 */
export async function applyBillPayment(
  uow: Uow,
  p: {
    billId: string;
    amountCents: number;
    date: string;
    reference: string;
    journalId: string;
    bankAccount?: string;
  },
): Promise<{ status: string; outstandingCents: number; record: (ledgerId: string) => Promise<void> }> {
  const bill = await uow.tx.get<{ id: string; status: string; payee_name: string; journal_id: string | null; currency: string | null }>(
    `SELECT id, status, payee_name, journal_id, currency FROM bills WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, p.billId],
  );
  if (!bill) throw notFound('bill', p.billId);
  // A bank line is AUD: matching it would settle foreign cents with AUD ones.
  refuseForeign(
    'bill',
    bill,
    'matching a bank line',
    `record its payment with ${payables.billRecordPayment.name} (amountCents in its currency)`,
  );
  if (!PAYABLE_BILL_STATUSES.includes(bill.status)) {
    throw conflict(`bill ${bill.id} is ${bill.status}; only an approved bill can be paid`);
  }
  if (bill.journal_id === null) {
    throw conflict(`bill ${bill.id} was approved before bills were posted to the ledger; it has nothing owing to pay`);
  }
  const left = await postDocumentPayment(uow, { kind: 'bill', id: bill.id, party: bill.payee_name, accountCode: PAYABLES_ACCOUNT }, p);
  if (left > 0) return { status: bill.status, outstandingCents: left, record: () => Promise.resolve() };
  const record = async (ledgerId: string) => {
    await uow.tx.run('UPDATE bills SET status = ?, paid_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [
      'paid',
      uow.now,
      ledgerId,
      uow.orgId,
      bill.id,
    ]);
  };
  return { status: 'paid', outstandingCents: 0, record };
}
