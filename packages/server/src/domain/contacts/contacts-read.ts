import { readSpecs } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { badRequest } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import { containsPattern } from '../paging.js';
import { PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { OPEN_STATUSES, RECEIVABLES_ACCOUNT } from '../receivables/ledger-api.js';
import { searchKey } from '../search-key.js';
import { CONTACT_COLUMNS, toContact, type ContactRow } from './contacts.js';

/**
 * GET contacts.list (issue 10 item 1): contacts in name-key order, paged by the last contact's
 * id, each with its balances. The page is read through UNIQUE (org_id, name_key); `q` matches
 * anywhere in the key (LIKE, wildcards escaped, at most 100 characters), so a page reads the
 * organisation's keys in order until it has `limit + 1` matches — the books.invoices payee filter
 * does the same. Balances are two grouped statements over the page's contact ids (at most 200).
 */
type Query = z.infer<typeof readSpecs.contactsList.query>;

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * What each contact is owed per open invoice, summed per contact (issue 10). The same rule as
 * books.invoices' outstandingCents (invoices.ts outstandingOffLedger, then the ledger): an open
 * invoice (sent, part_paid) sent before invoices were posted owes its total, a posted one its
 * balance on 1100; drafts, void, paid and credited invoices owe nothing, so they are not read.
 * Invoices come from invoices_contact, their lines from journal_lines_account_doc by document.
 */
export const receivablesByContactSql = (n: number) => `SELECT d.contact_id AS contact_id, SUM(d.owed) AS cents, COUNT(*) AS n FROM (
  SELECT i.contact_id AS contact_id, i.id AS id,
    CASE WHEN i.journal_id IS NULL THEN i.total_cents
      ELSE COALESCE(SUM(l.debit_cents), 0) - COALESCE(SUM(l.credit_cents), 0) END AS owed
  FROM invoices i LEFT JOIN journal_lines l ON l.org_id = i.org_id AND l.account_code = ? AND l.doc_id = i.id
  WHERE i.org_id = ? AND i.status IN (${placeholders(OPEN_STATUSES.length)}) AND i.contact_id IN (${placeholders(n)})
  GROUP BY i.contact_id, i.id, i.journal_id, i.total_cents
) d WHERE d.owed > 0 GROUP BY d.contact_id`;

/**
 * What is still to pay per contact on its posted bills (approved, or approved then put on hold):
 * books.bills' outstandingCents of a posted bill, the balance on 2000. Paid and returned bills
 * owe nothing; bills awaiting approval are not owed yet (nothing is posted: D8, accrual on approval).
 */
export const payablesByContactSql = (n: number) => `SELECT d.contact_id AS contact_id, SUM(d.owed) AS cents, COUNT(*) AS n FROM (
  SELECT b.contact_id AS contact_id, b.id AS id, SUM(l.credit_cents) - SUM(l.debit_cents) AS owed
  FROM bills b JOIN journal_lines l ON l.org_id = b.org_id AND l.account_code = ? AND l.doc_id = b.id
  WHERE b.org_id = ? AND b.status IN ('approved', 'on_hold') AND b.journal_id IS NOT NULL AND b.contact_id IN (${placeholders(n)})
  GROUP BY b.contact_id, b.id
) d WHERE d.owed > 0 GROUP BY d.contact_id`;

interface Balance {
  readonly cents: number;
  readonly count: number;
}

async function balances(q: Queryable, sql: string, params: readonly string[]): Promise<Map<string, Balance>> {
  const rows = await q.all<{ contact_id: string; cents: number | string; n: number | string }>(sql, params);
  return new Map(rows.map((r) => [r.contact_id, { cents: Number(r.cents), count: Number(r.n) }]));
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
    const [owedToUs, owedByUs] = ids.length === 0
      ? [new Map<string, Balance>(), new Map<string, Balance>()]
      : await Promise.all([
          balances(q, receivablesByContactSql(ids.length), [RECEIVABLES_ACCOUNT, orgId, ...OPEN_STATUSES, ...ids]),
          balances(q, payablesByContactSql(ids.length), [PAYABLES_ACCOUNT, orgId, ...ids]),
        ]);
    const contacts = rows.map((r) => {
      const rec = owedToUs.get(r.id);
      const pay = owedByUs.get(r.id);
      return {
        ...toContact(r),
        receivableCents: rec?.cents ?? 0,
        openInvoices: rec?.count ?? 0,
        payableCents: pay?.cents ?? 0,
        openBills: pay?.count ?? 0,
      };
    });
    return { contacts, nextCursor };
  });
}
