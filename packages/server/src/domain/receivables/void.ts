import type { receivables } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, invariant } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { loadSaleLines } from './invoice-lines.js';
import { issuePosting } from './foreign.js';
import { invoiceView, loadInvoice, type InvoiceRow } from './invoices.js';

/**
 * books.invoiceVoid: a draft is voided with nothing to undo; a sent invoice nobody has paid or
 * credited is voided by a journal reversing its issue posting, dated the void date (not the issue
 * date, so a BAS already lodged for the issue period is never changed behind its back). Once
 * money or a credit note touched it, the history must stay: credit the rest instead.
 */
type Params = z.infer<typeof receivables.invoiceVoid.params>;

async function voidView(uow: Uow, row: InvoiceRow) {
  return { ...(await invoiceView(uow, row)), voidReason: row.void_reason, voidJournalId: row.void_journal_id };
}

/** CONFLICT naming why a sent invoice cannot be voided, if it cannot. */
async function refuseTouched(uow: Uow, row: InvoiceRow): Promise<void> {
  if (row.status !== 'sent') {
    throw conflict(`invoice ${row.id} is ${row.status}; only a draft or a sent invoice with no payments or credit notes can be voided`);
  }
  const sum = async (table: string) =>
    Number(
      (
        await uow.tx.get<{ s: number | null }>(`SELECT SUM(amount_cents) AS s FROM ${table} WHERE org_id = ? AND invoice_id = ?`, [
          uow.orgId,
          row.id,
        ])
      )?.s ?? 0,
    );
  const paid = await sum('invoice_payments');
  if (paid > 0) throw conflict(`invoice ${row.id} has payments of ${paid} cents; credit the rest instead of voiding it`);
  const credited = await sum('invoice_credit_notes');
  if (credited > 0) throw conflict(`invoice ${row.id} has credit notes of ${credited} cents; credit the rest instead of voiding it`);
  // The sale disposed of the asset: reinstating it would undo depreciation and runs since. Refused.
  const sold = (await loadSaleLines(uow.tx, uow.orgId, [row.id])).get(row.id)?.find((l) => l.assetId !== undefined);
  if (sold) {
    throw conflict(
      `invoice ${row.id} sold asset ${sold.assetId ?? ''}, disposed of when it was sent; it cannot be voided (credit the customer with books.invoiceCreditNote instead)`,
    );
  }
}

export async function invoiceVoid(p: Params, uow: Uow) {
  const row = await loadInvoice(uow, p.id);
  if (row.status === 'void') return { ...(await voidView(uow, row)), noop: true };
  if (row.status !== 'draft') await refuseTouched(uow, row);
  // An invoice sent before invoices were posted has no journal, so nothing to reverse.
  const journalId = row.journal_id === null ? null : newJournalId();
  if (journalId !== null) {
    const lines = (await loadSaleLines(uow.tx, uow.orgId, [row.id])).get(row.id) ?? [];
    await postJournal(uow, {
      id: journalId,
      date: uow.today,
      memo: `Void of invoice ${row.id} to ${row.payee_name}: ${p.reason}`,
      source: { kind: 'invoice_void', id: row.id },
      lines: issuePosting(row, row.id, lines, -1),
    });
  }
  const event = await uow.emit(events.invoiceVoid, {
    entityId: row.id,
    payload: { payee: row.payee_name, totalCents: Number(row.total_cents), from: row.status, reason: p.reason, journalId },
  });
  const moved = await uow.tx.run(
    `UPDATE invoices SET status = 'void', void_reason = ?, void_journal_id = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND status = ?`,
    [p.reason, journalId, event.ledgerId, uow.orgId, row.id, row.status],
  );
  invariant(moved.changes === 1, 'an invoice is voided once');
  return voidView(uow, { ...row, status: 'void', void_reason: p.reason, void_journal_id: journalId, ledger_id: event.ledgerId });
}
