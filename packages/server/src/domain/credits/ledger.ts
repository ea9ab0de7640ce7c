import { DomainError, invariant } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Queryable } from '../../storage/types.js';
import { placeholders } from '../../storage/sql.js';
import type { Uow } from '../../write-path.js';
import { byThenId, openDocumentRowsAsOf, owedOnDocuments, type PostingLine } from '../gl/post.js';

/**
 * Contact credits in the ledger (migration 49). A credit lives in its side's control account
 * under its own id (crd_…), as every document of the sub-ledger does: a customer credit is a
 * credit balance on 1100, a supplier credit a debit balance on 2000. What is left of a credit is
 * that balance, so the contacts' credits are their part of the control accounts by construction.
 * These functions never emit: the act that makes, allocates or refunds a credit posts before its
 * one event and keeps the rows after it, with the event's ledgerId.
 */
export type CreditSide = 'customer' | 'supplier';
export type CreditSource = 'overpayment' | 'prepayment' | 'credit_note' | 'adjustment_note';

export const CREDIT_ACCOUNT: Readonly<Record<CreditSide, string>> = { customer: '1100', supplier: '2000' };

export interface CreditRow {
  id: string;
  contact_id: string;
  side: CreditSide;
  source_kind: CreditSource;
  source_id: string | null;
  document_id: string | null;
  amount_cents: number;
  dated: string;
  reference: string;
  account_code: string | null;
  journal_id: string;
  ledger_id: string;
}

export const CREDIT_COLUMNS =
  'id, contact_id, side, source_kind, source_id, document_id, amount_cents, dated, reference, account_code, journal_id, ledger_id';

export const newCreditId = () => newId('crd');

/**
 * The control-account line that holds a credit: Cr 1100 (customer) or Dr 2000 (supplier) under
 * its id. An allocation or refund takes it down with the opposite line (`sign` −1).
 */
export function creditLine(side: CreditSide, creditId: string, cents: number, description: string, sign: 1 | -1 = 1): PostingLine {
  const holds = side === 'customer' ? sign === 1 : sign === -1;
  return holds
    ? { account: CREDIT_ACCOUNT[side], creditCents: cents, docId: creditId, description }
    : { account: CREDIT_ACCOUNT[side], debitCents: cents, docId: creditId, description };
}

/** What is left of each credit (positive while it is open), from the ledger. */
export async function remainingOf(q: Queryable, orgId: string, side: CreditSide, ids: readonly string[]): Promise<Map<string, number>> {
  return owedOnDocuments(q, orgId, CREDIT_ACCOUNT[side], side === 'customer' ? 'credit' : 'debit', ids);
}

export async function remainingOne(q: Queryable, orgId: string, row: Pick<CreditRow, 'id' | 'side'>): Promise<number> {
  return (await remainingOf(q, orgId, row.side, [row.id])).get(row.id) ?? 0;
}

/** The credit `id` of this organisation, or NOT_FOUND naming creditId. */
export async function loadCredit(uow: Uow, id: string): Promise<CreditRow> {
  const row = await uow.tx.get<CreditRow>(
    `SELECT ${CREDIT_COLUMNS} FROM contact_credits WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, id],
  );
  if (!row) {
    throw new DomainError('NOT_FOUND', `creditId: no credit ${id} in this organisation (contacts.list lists each contact's credits)`, {
      field: 'creditId',
    });
  }
  return row;
}

/** A credit as the credit methods answer it. */
export function toCredit(row: CreditRow, remainingCents: number) {
  return {
    id: row.id,
    contactId: row.contact_id,
    side: row.side,
    source: row.source_kind,
    sourceId: row.source_id,
    documentId: row.document_id,
    amountCents: Number(row.amount_cents),
    remainingCents,
    date: row.dated,
    journalId: row.journal_id,
    ledgerId: row.ledger_id,
  };
}

/** Keep a credit's row once its event has a ledgerId. */
export async function keepCredit(uow: Uow, row: CreditRow): Promise<void> {
  invariant(Number.isSafeInteger(Number(row.amount_cents)) && Number(row.amount_cents) > 0, 'a credit is a positive amount');
  await uow.tx.run(
    `INSERT INTO contact_credits (org_id, ${CREDIT_COLUMNS}, created_at) VALUES (?, ${CREDIT_COLUMNS.split(',')
      .map(() => '?')
      .join(', ')}, ?)`,
    [
      uow.orgId,
      row.id,
      row.contact_id,
      row.side,
      row.source_kind,
      row.source_id,
      row.document_id,
      row.amount_cents,
      row.dated,
      row.reference,
      row.account_code,
      row.journal_id,
      row.ledger_id,
      uow.now,
    ],
  );
}

/** The credit made from a payment or note (by its source id), or undefined. */
export async function creditFromSource(q: Queryable, orgId: string, sourceId: string): Promise<CreditRow | undefined> {
  return q.get<CreditRow>(`SELECT ${CREDIT_COLUMNS} FROM contact_credits WHERE org_id = ? AND source_id = ?`, [orgId, sourceId]);
}

/** At most this many open credits are listed per contact (contacts.list); the totals count them all. */
export const CREDITS_LISTED_MAX = 20;

export interface ContactCredits {
  customerCents: number;
  supplierCents: number;
  open: ReturnType<typeof listed>[];
}

const listed = (r: CreditRow, remaining: number) => ({
  id: r.id,
  side: r.side,
  source: r.source_kind,
  documentId: r.document_id,
  date: r.dated,
  amountCents: Number(r.amount_cents),
  remainingCents: remaining,
});

/**
 * The credits of a page of contacts (at most 200 ids): what is left of each from the ledger,
 * totals per side, and the open ones oldest first (at most CREDITS_LISTED_MAX per contact).
 */
export async function creditsOfContacts(q: Queryable, orgId: string, contactIds: readonly string[]): Promise<Map<string, ContactCredits>> {
  const out = new Map<string, ContactCredits>();
  if (contactIds.length === 0) return out;
  const rows = await q.all<CreditRow>(
    `SELECT ${CREDIT_COLUMNS} FROM contact_credits WHERE org_id = ? AND contact_id IN (${placeholders(contactIds.length)})
     ORDER BY dated, id`,
    [orgId, ...contactIds],
  );
  const remaining = new Map<string, number>();
  for (const side of ['customer', 'supplier'] as const) {
    const ids = rows.filter((r) => r.side === side).map((r) => r.id);
    for (let i = 0; i < ids.length; i += 500) {
      for (const [id, left] of await remainingOf(q, orgId, side, ids.slice(i, i + 500))) remaining.set(id, left);
    }
  }
  for (const r of rows) {
    const left = remaining.get(r.id) ?? 0;
    if (left === 0) continue;
    const c = out.get(r.contact_id) ?? { customerCents: 0, supplierCents: 0, open: [] };
    if (r.side === 'customer') c.customerCents += left;
    else c.supplierCents += left;
    if (c.open.length < CREDITS_LISTED_MAX) c.open.push(listed(r, left));
    out.set(r.contact_id, c);
  }
  return out;
}

/** A credit as an aged report lists it: negative, what the contact is owed back. */
export interface AgedCredit {
  readonly id: string;
  readonly party: string;
  readonly reference: string;
  readonly issuedOn: string;
  readonly dueOn: string;
  readonly totalCents: number;
  readonly outstandingCents: number;
}

const SOURCE_WORDS: Readonly<Record<CreditSource, string>> = {
  overpayment: 'Overpayment',
  prepayment: 'Prepayment',
  credit_note: 'Credit note',
  adjustment_note: 'Adjustment note',
};

/**
 * The credits of one side open as at `asOf`, from the control account's lines under their ids
 * dated on or before it, as aged reports list them: negative items of their contact (a customer
 * credit is money the business holds for the customer), so the documents and credits together
 * total the control account. Aged by the credit's date.
 */
export async function openCreditsAsOf(q: Queryable, orgId: string, side: CreditSide, asOf: string): Promise<AgedCredit[]> {
  // From the open balances without a party key to the credits: the control account's open
  // documents (mostly invoices or bills) are not read.
  const open = await openDocumentRowsAsOf<{
    id: string;
    source_kind: CreditSource;
    document_id: string | null;
    dated: string;
    amount_cents: number;
    name: string;
  }>(q, orgId, CREDIT_ACCOUNT[side], asOf, {
    from: 'contact_credits d JOIN contacts k ON k.org_id = d.org_id AND k.id = d.contact_id',
    columns:
      'd.id AS id, d.source_kind AS source_kind, d.document_id AS document_id, d.dated AS dated, d.amount_cents AS amount_cents, k.name AS name',
    where: 'd.side = ? AND d.dated <= ?',
    // A credit's balance row has no party key (a posted document's has): one range of an index.
    balances: 'b.party_key IS NULL',
    params: [side, asOf],
  });
  const balances = new Map(open.map((o) => [o.row.id, o.balance]));
  const rows = open.map((o) => o.row);
  rows.sort(byThenId((r) => r.dated));
  const out: AgedCredit[] = [];
  for (const r of rows) {
    const balance = balances.get(r.id) ?? 0;
    if (balance === 0) continue;
    // Owed to us (1100) is debit-positive; owed by us (2000) credit-positive: a credit is negative on both.
    const owed = side === 'customer' ? balance : -balance;
    out.push({
      id: r.id,
      party: r.name,
      reference: `${SOURCE_WORDS[r.source_kind]}${r.document_id ? ` on ${r.document_id}` : ''}`,
      issuedOn: r.dated,
      dueOn: r.dated,
      totalCents: -Number(r.amount_cents),
      outstandingCents: owed,
    });
  }
  return out;
}
