import { events, TAX_CODES, type receivables } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, DomainError, invariant } from '../../errors.js';
import { mulDivHalfUp } from '../../money.js';
import { quoted } from '../../governance/quote.js';
import type { Uow } from '../../write-path.js';
import { issueDateOf } from '../gl/periods.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { loadSaleLines } from './invoice-lines.js';
import { invoiceView, loadInvoice, type InvoiceRow } from './invoices.js';
import { refuseForeign } from './foreign.js';
import { OPEN_STATUSES, RECEIVABLES_ACCOUNT, outstandingOn } from './ledger-api.js';

/**
 * books.invoiceWriteOff: what is still owed on a sent or part_paid invoice is written off as a bad
 * debt (GST Act Div 21: a decreasing adjustment for the GST on the part written off). The GST is
 * the outstanding amount's share of the invoice's GST, half up once, so a $1,100 invoice with $100
 * GST and $660 unpaid gives $60. The GST-bearing share of the write-off is tagged GST with negative
 * base and GST, as a credit note's revenue line, so the BAS reports it the way it reports credit
 * notes (G18 and 1B when the invoice was issued in an earlier period). Supplies that carry no GST
 * change nothing on the BAS and stay untagged.
 * The invoice becomes written_off; payments and credit notes then refuse it by its state (CONFLICT
 * naming written_off): money later received on a written-off debt is income the bookkeeper
 * records as such, not a payment of a closed invoice.
 * A plain write, not a signature act: no money leaves the business, only a receivable it will not
 * collect leaves the books.
 */
type Params = z.infer<typeof receivables.invoiceWriteOff.params>;

interface WriteOffRow {
  written_off_on: string | null;
  write_off_reason: string | null;
  write_off_cents: unknown;
  write_off_gst_cents: unknown;
  write_off_journal_id: string | null;
}

async function writeOffView(uow: Uow, row: InvoiceRow, w: WriteOffRow) {
  invariant(w.written_off_on !== null && w.write_off_journal_id !== null, 'a written-off invoice keeps its write-off');
  return {
    ...(await invoiceView(uow, row)),
    writeOff: {
      date: w.written_off_on,
      reason: w.write_off_reason ?? '',
      amountCents: Number(w.write_off_cents ?? 0),
      gstCents: Number(w.write_off_gst_cents ?? 0),
      journalId: w.write_off_journal_id,
    },
  };
}

async function loadWriteOff(uow: Uow, id: string): Promise<WriteOffRow> {
  const w = await uow.tx.get<WriteOffRow>(
    `SELECT written_off_on, write_off_reason, write_off_cents, write_off_gst_cents, write_off_journal_id
     FROM invoices WHERE org_id = ? AND id = ?`,
    [uow.orgId, id],
  );
  invariant(w !== undefined, 'the invoice was loaded');
  return w;
}

/** The GST-inclusive part of `owed` that was supplied under GST-bearing codes (half up, once). */
async function gstBearingPart(uow: Uow, row: InvoiceRow, owed: number): Promise<number> {
  const lines = (await loadSaleLines(uow.tx, uow.orgId, [row.id])).get(row.id) ?? [];
  const bearing = lines.filter((l) => TAX_CODES[l.taxCode].gst).reduce((s, l) => s + l.amountCents, 0);
  const total = Number(row.total_cents);
  return total > 0 ? Math.min(owed, mulDivHalfUp(owed, bearing, total)) : 0;
}

export async function invoiceWriteOff(p: Params, uow: Uow) {
  const row = await loadInvoice(uow, p.id);
  if (row.status === 'written_off') return { ...(await writeOffView(uow, row, await loadWriteOff(uow, row.id))), noop: true };
  refuseForeign('invoice', row, 'a write-off', 'it stays open until paid, or is voided while it has no payments');
  if (!OPEN_STATUSES.includes(row.status)) {
    throw conflict(`invoice ${row.id} is ${row.status}; only a sent or part_paid invoice with an amount outstanding can be written off`);
  }
  if (row.journal_id === null || row.issued_on === null) {
    throw conflict(`invoice ${row.id} was sent before invoices were posted to the ledger; void it instead`);
  }
  const date = issueDateOf(uow, p.date, 'date');
  if (date < row.issued_on) {
    throw new DomainError('BAD_REQUEST', `date ${date} is before invoice ${row.id} was issued (${row.issued_on})`, { field: 'date' });
  }
  const owed = await outstandingOn(uow.tx, uow.orgId, row.id);
  if (owed <= 0) throw conflict(`invoice ${row.id} has nothing outstanding to write off`);
  const total = Number(row.total_cents);
  const gst = Math.min(mulDivHalfUp(owed, Number(row.gst_cents), total), owed);
  const bearing = gst > 0 ? await gstBearingPart(uow, row, owed) : 0;
  const journalId = newJournalId();
  const memo = `Bad debt written off on invoice ${row.id} to ${quoted(row.payee_name)}: ${quoted(p.reason)}`;
  const lines: PostingLine[] = [];
  if (bearing > 0) {
    lines.push({
      account: { key: 'bad_debts' },
      debitCents: bearing - gst,
      taxCode: 'GST',
      taxBaseCents: -bearing,
      gstCents: -gst,
      description: memo,
    });
  }
  if (owed - bearing > 0) lines.push({ account: { key: 'bad_debts' }, debitCents: owed - bearing, description: memo });
  if (gst > 0) lines.push({ account: { key: 'gst_collected' }, debitCents: gst, description: `GST on bad debt of invoice ${row.id}` });
  lines.push({ account: RECEIVABLES_ACCOUNT, creditCents: owed, docId: row.id, description: memo });
  await postJournal(uow, { id: journalId, date, dateField: 'date', memo, source: { kind: 'bad_debt', id: row.id }, lines });
  const event = await uow.emit(events.invoiceWriteOff, {
    entityId: row.id,
    payload: { payee: row.payee_name, amountCents: owed, gstCents: gst, date, reason: p.reason, journalId, from: row.status },
  });
  const moved = await uow.tx.run(
    `UPDATE invoices SET status = 'written_off', written_off_on = ?, write_off_reason = ?, write_off_cents = ?,
       write_off_gst_cents = ?, write_off_journal_id = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND status = ?`,
    [date, p.reason, owed, gst, journalId, event.ledgerId, uow.orgId, row.id, row.status],
  );
  invariant(moved.changes === 1, 'an invoice is written off once');
  return writeOffView(
    uow,
    { ...row, status: 'written_off', ledger_id: event.ledgerId },
    {
      written_off_on: date,
      write_off_reason: p.reason,
      write_off_cents: owed,
      write_off_gst_cents: gst,
      write_off_journal_id: journalId,
    },
  );
}
