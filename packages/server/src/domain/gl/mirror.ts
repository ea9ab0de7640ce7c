import type { TaxCode } from '@finance-desk/protocol';
import { invariant } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { trackingFields, type PostingLine } from './post.js';

interface JournalLineRow {
  account_code: string;
  debit_cents: number;
  credit_cents: number;
  tax_code: TaxCode | null;
  tax_base_cents: number;
  gst_cents: number;
  description: string;
  doc_id: string | null;
  tracking1: string | null;
  tracking2: string | null;
}

/**
 * A journal's lines, sides swapped and GST tags negated (so the BAS nets it out), docIds and
 * tracking kept (so a report filtered by an option nets it out too).
 */
export async function mirrorOf(uow: Uow, journalId: string): Promise<PostingLine[]> {
  const rows = await uow.tx.all<JournalLineRow>(
    `SELECT account_code, debit_cents, credit_cents, tax_code, tax_base_cents, gst_cents, description, doc_id, tracking1, tracking2
     FROM journal_lines
     WHERE org_id = ? AND journal_id = ? ORDER BY line_no`,
    [uow.orgId, journalId],
  );
  invariant(rows.length >= 2, `journal ${journalId} has its lines`);
  return rows.map((r) => ({
    account: r.account_code,
    ...(Number(r.debit_cents) > 0 ? { creditCents: Number(r.debit_cents) } : { debitCents: Number(r.credit_cents) }),
    taxCode: r.tax_code,
    taxBaseCents: -Number(r.tax_base_cents),
    gstCents: -Number(r.gst_cents),
    description: `Reversal: ${r.description}`.slice(0, 500),
    docId: r.doc_id,
    ...trackingFields(r),
  }));
}
