import { readSpecs } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { badRequest } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { owedOnDocuments } from '../gl/post.js';
import { containsPattern } from '../paging.js';
import { INVOICE_COLUMNS, outstandingOffLedger, type InvoiceRow } from '../receivables/invoices.js';
import { PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { OPEN_STATUSES, RECEIVABLES_ACCOUNT } from '../receivables/ledger-api.js';
import { searchKey } from '../search-key.js';
import { CONTACT_COLUMNS, toContact, type ContactRow } from './contacts.js';
import { creditsOfContacts, type ContactCredits } from '../credits/ledger.js';
import { placeholders } from '../../storage/sql.js';

/**
 * GET contacts.list: contacts in name-key order, paged by the last contact's
 * id, each with its balances. The page is read through UNIQUE (org_id, name_key); `q` matches
 * anywhere in the key (LIKE, wildcards escaped, at most 100 characters), so a page reads the
 * organisation's keys in order until it has `limit + 1` matches — the books.invoices payee filter
 * does the same. Balances: the open documents of the page's contacts (at most 200 ids, through
 * the contact indexes of migration 25), then their ledger balances grouped per document
 * (journal_lines_account_doc), as books.invoices and books.bills compute them.
 */
type Query = z.infer<typeof readSpecs.contactsList.query>;

/**
 * The open invoices of a page of contacts (sent or part_paid: drafts, void, paid and credited
 * invoices owe nothing), through invoices_contact (org_id, contact_id, status).
 */
export const openInvoicesOfContactsSql = (n: number) =>
  `SELECT ${INVOICE_COLUMNS} FROM invoices
   WHERE org_id = ? AND contact_id IN (${placeholders(n)}) AND status IN (${placeholders(OPEN_STATUSES.length)})`;

/**
 * The posted bills of a page of contacts that can still owe (approved, or approved then put on
 * hold; paid and returned bills owe nothing, and bills awaiting approval are not owed yet: a bill
 * accrues on approval — except a bill carried in by opening balances and held for approval, which
 * the conversion journal already put on 2000), through bills_contact (org_id, contact_id, status).
 */
export const postedBillsOfContactsSql = (n: number) =>
  `SELECT id, contact_id FROM bills
   WHERE org_id = ? AND contact_id IN (${placeholders(n)}) AND status IN ('approved', 'on_hold', 'held') AND journal_id IS NOT NULL`;

interface Balance {
  cents: number;
  count: number;
}

function addTo(totals: Map<string, Balance>, contactId: string, owed: number): void {
  if (owed <= 0) return;
  const b = totals.get(contactId) ?? { cents: 0, count: 0 };
  b.cents += owed;
  b.count += 1;
  totals.set(contactId, b);
}

/**
 * What each contact is owed on its open invoices, by the rule books.invoices' outstandingCents
 * follows (invoices.ts outstandingOffLedger, else the ledger's balance on 1100), with the same
 * functions: the two can never disagree.
 */
async function receivables(q: Queryable, orgId: string, contactIds: readonly string[]): Promise<Map<string, Balance>> {
  const rows = await q.all<InvoiceRow>(openInvoicesOfContactsSql(contactIds.length), [orgId, ...contactIds, ...OPEN_STATUSES]);
  const posted = rows.filter((r) => outstandingOffLedger(r) === null).map((r) => r.id);
  const owed = await owedOnDocuments(q, orgId, RECEIVABLES_ACCOUNT, 'debit', posted);
  const totals = new Map<string, Balance>();
  for (const r of rows) addTo(totals, String(r.contact_id), outstandingOffLedger(r) ?? owed.get(r.id) ?? 0);
  return totals;
}

/** What is still to pay per contact: books.bills' outstandingCents of a posted bill (balance on 2000). */
async function payables(q: Queryable, orgId: string, contactIds: readonly string[]): Promise<Map<string, Balance>> {
  const rows = await q.all<{ id: string; contact_id: string }>(postedBillsOfContactsSql(contactIds.length), [orgId, ...contactIds]);
  const owed = await owedOnDocuments(
    q,
    orgId,
    PAYABLES_ACCOUNT,
    'credit',
    rows.map((r) => r.id),
  );
  const totals = new Map<string, Balance>();
  for (const r of rows) addTo(totals, r.contact_id, owed.get(r.id) ?? 0);
  return totals;
}

/** One page of contacts in name-key order; the cursor must be a contact of this organisation. */
async function pageOfContacts(q: Queryable, orgId: string, p: Query): Promise<{ rows: ContactRow[]; nextCursor: string | null }> {
  const where = ['org_id = ?'];
  const args: string[] = [orgId];
  if (p.cursor !== undefined) {
    const at = await q.get<{ name_key: string }>('SELECT name_key FROM contacts WHERE org_id = ? AND id = ?', [orgId, p.cursor]);
    if (!at) throw badRequest(`cursor: no contact ${p.cursor} in this organisation; pass the nextCursor of a previous page`);
    where.push('name_key > ?');
    args.push(at.name_key);
  }
  if (p.kind !== undefined) where.push(p.kind === 'customer' ? 'is_customer = 1' : 'is_supplier = 1');
  if (p.q !== undefined) {
    where.push("name_key LIKE ? ESCAPE '!'");
    args.push(containsPattern(searchKey(p.q)));
  }
  const rows = await q.all<ContactRow>(
    `SELECT ${CONTACT_COLUMNS} FROM contacts WHERE ${where.join(' AND ')} ORDER BY name_key LIMIT ${p.limit + 1}`,
    args,
  );
  const kept = rows.slice(0, p.limit);
  return { rows: kept, nextCursor: rows.length > p.limit ? (kept.at(-1)?.id ?? null) : null };
}

export async function listContacts(p: Query, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  // One snapshot: the page and its balances are read as of one instant.
  return ctx.db.read(async (q) => {
    const { rows, nextCursor } = await pageOfContacts(q, orgId, p);
    const ids = rows.map((r) => r.id);
    const [owedToUs, owedByUs, credits] =
      ids.length === 0
        ? [new Map<string, Balance>(), new Map<string, Balance>(), new Map<string, ContactCredits>()]
        : await Promise.all([receivables(q, orgId, ids), payables(q, orgId, ids), creditsOfContacts(q, orgId, ids)]);
    const contacts = rows.map((r) => {
      const rec = owedToUs.get(r.id);
      const pay = owedByUs.get(r.id);
      return {
        ...toContact(r),
        receivableCents: rec?.cents ?? 0,
        openInvoices: rec?.count ?? 0,
        payableCents: pay?.cents ?? 0,
        openBills: pay?.count ?? 0,
        // What is left of its credits (the ledger under each credit's id), and the open ones.
        customerCreditCents: credits.get(r.id)?.customerCents ?? 0,
        supplierCreditCents: credits.get(r.id)?.supplierCents ?? 0,
        credits: credits.get(r.id)?.open ?? [],
      };
    });
    return { contacts, nextCursor };
  });
}
