import { gstOfInclusive, TAX_CODES, type receivables, type TaxCode } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, invariant } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { loadSaleLines, type SaleLine } from './invoice-lines.js';
import { loadInvoice, type InvoiceRow } from './invoices.js';
import { OPEN_STATUSES, RECEIVABLES_ACCOUNT, outstandingOn } from './ledger-api.js';

/**
 * books.invoiceCreditNote: an adjustment note reducing what a customer owes on one invoice. It
 * credits one tax code of the invoice: GST is 1/11 of the credit (half up, once per note), never
 * more than is left of that code's GST, and the note that clears a code takes exactly what is
 * left, so an invoice's GST collected is never over-reversed by rounding across many notes.
 * A credit note is identified by invoice, amount, tax code and reason: the same again is a no-op.
 */
type Params = z.infer<typeof receivables.invoiceCreditNote.params>;

interface CreditRow {
  id: string;
  amount_cents: number;
  gst_cents: number;
  tax_code: TaxCode;
  account_code: string;
  reason: string;
  issued_on: string;
  journal_id: string;
  ledger_id: string;
}

const CREDIT_COLUMNS = 'id, amount_cents, gst_cents, tax_code, account_code, reason, issued_on, journal_id, ledger_id';

/** The code with the largest amount on the invoice (the first line's on a tie). */
export function dominantCode(lines: readonly SaleLine[]): TaxCode {
  const sums = new Map<TaxCode, number>();
  for (const l of lines) sums.set(l.taxCode, (sums.get(l.taxCode) ?? 0) + l.amountCents);
  let best: TaxCode | null = null;
  for (const [code, sum] of sums) if (best === null || sum > (sums.get(best) ?? 0)) best = code;
  invariant(best !== null, 'an invoice has lines');
  return best;
}

function result(inv: InvoiceRow, c: CreditRow, status: string, outstandingCents: number) {
  return {
    id: inv.id,
    creditNoteId: c.id,
    amountCents: Number(c.amount_cents),
    gstCents: Number(c.gst_cents),
    taxCode: c.tax_code,
    accountCode: c.account_code,
    reason: c.reason,
    issuedOn: c.issued_on,
    status,
    outstandingCents,
    journalId: c.journal_id,
    ledgerId: c.ledger_id,
  };
}

/** What is left to credit of one code: amount and GST invoiced less earlier credit notes. */
async function leftOfCode(uow: Uow, inv: InvoiceRow, code: TaxCode, lines: readonly SaleLine[]) {
  const ofCode = lines.filter((l) => l.taxCode === code);
  if (ofCode.length === 0) {
    const codes = [...new Set(lines.map((l) => l.taxCode))].join(', ');
    throw badRequest(`taxCode: invoice ${inv.id} has no ${code} line; credit one of its codes (${codes})`);
  }
  const prior = await uow.tx.get<{ a: number | null; g: number | null }>(
    `SELECT SUM(amount_cents) AS a, SUM(gst_cents) AS g FROM invoice_credit_notes
     WHERE org_id = ? AND invoice_id = ? AND tax_code = ?`,
    [uow.orgId, inv.id, code],
  );
  const largest = ofCode.reduce((m, l) => (l.amountCents > m.amountCents ? l : m));
  return {
    amountCents: ofCode.reduce((s, l) => s + l.amountCents, 0) - Number(prior?.a ?? 0),
    gstCents: ofCode.reduce((s, l) => s + l.gstCents, 0) - Number(prior?.g ?? 0),
    accountCode: largest.accountCode,
  };
}

/** Refusals in the order D6 gives them: state, then amounts (each naming its field). */
async function checkCredit(uow: Uow, inv: InvoiceRow, p: Params, code: TaxCode, lines: readonly SaleLine[]) {
  if (!OPEN_STATUSES.includes(inv.status)) {
    throw conflict(`invoice ${inv.id} is ${inv.status}; only a sent or part_paid invoice can be credited`);
  }
  if (inv.journal_id === null) {
    throw conflict(`invoice ${inv.id} was sent before invoices were posted to the ledger; void it instead`);
  }
  const left = await leftOfCode(uow, inv, code, lines);
  const owed = await outstandingOn(uow.tx, uow.orgId, inv.id);
  if (p.amountCents > owed) {
    throw badRequest(`amountCents: ${p.amountCents} is more than the ${owed} cents outstanding on invoice ${inv.id}`);
  }
  if (p.amountCents > left.amountCents) {
    throw badRequest(`amountCents: ${p.amountCents} is more than the ${left.amountCents} cents of ${code} supplies left to credit on invoice ${inv.id}`);
  }
  const gst = !TAX_CODES[code].gst
    ? 0
    : p.amountCents === left.amountCents
      ? left.gstCents
      : Math.min(gstOfInclusive(p.amountCents), left.gstCents);
  return { owed, gst, accountCode: left.accountCode };
}

/** Post the credit note (dated its issue date) and keep its row. */
async function recordCredit(uow: Uow, inv: InvoiceRow, c: CreditRow): Promise<void> {
  const amount = Number(c.amount_cents);
  const gst = Number(c.gst_cents);
  const memo = `Credit note ${c.id} on invoice ${inv.id} to ${inv.payee_name}: ${c.reason}`;
  await postJournal(uow, {
    id: c.journal_id,
    date: c.issued_on,
    memo,
    source: { kind: 'credit_note', id: inv.id },
    ledgerId: c.ledger_id,
    lines: [
      // The supply's tags go negative: the BAS nets the credit against the period's sales.
      {
        account: c.account_code,
        debitCents: amount - gst,
        taxCode: c.tax_code,
        taxBaseCents: -amount,
        gstCents: -gst,
        description: memo,
      },
      { account: { key: 'gst_collected' }, debitCents: gst, description: `GST on credit note ${c.id}` },
      { account: RECEIVABLES_ACCOUNT, creditCents: amount, docId: inv.id, description: memo },
    ],
  });
  await uow.tx.run(
    `INSERT INTO invoice_credit_notes (org_id, invoice_id, created_at, ${CREDIT_COLUMNS})
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, inv.id, uow.now, c.id, amount, gst, c.tax_code, c.account_code, c.reason, c.issued_on, c.journal_id, c.ledger_id],
  );
}

export async function invoiceCreditNote(p: Params, uow: Uow) {
  const inv = await loadInvoice(uow, p.id);
  const lines = (await loadSaleLines(uow.tx, uow.orgId, [inv.id])).get(inv.id) ?? [];
  const code = p.taxCode ?? dominantCode(lines);
  const same = await uow.tx.get<CreditRow>(
    `SELECT ${CREDIT_COLUMNS} FROM invoice_credit_notes
     WHERE org_id = ? AND invoice_id = ? AND amount_cents = ? AND tax_code = ? AND reason = ?`,
    [uow.orgId, inv.id, p.amountCents, code, p.reason],
  );
  if (same) return { ...result(inv, same, inv.status, await outstandingOn(uow.tx, uow.orgId, inv.id)), noop: true };
  const { owed, gst, accountCode } = await checkCredit(uow, inv, p, code, lines);
  const left = owed - p.amountCents;
  const paid = await uow.tx.get('SELECT id FROM invoice_payments WHERE org_id = ? AND invoice_id = ?', [uow.orgId, inv.id]);
  // Cleared by credit alone → credited; cleared after money was received → paid (see the docs).
  const status = left > 0 ? inv.status : paid ? 'paid' : 'credited';
  const id = newId('cn');
  const journalId = newJournalId();
  const issuedOn = uow.today;
  const event = await uow.emit({
    family: 'books',
    kind: 'books.invoice.credit',
    entityId: inv.id,
    payload: {
      creditNoteId: id,
      payee: inv.payee_name,
      amountCents: p.amountCents,
      gstCents: gst,
      taxCode: code,
      reason: p.reason,
      journalId,
      status,
      outstandingCents: left,
    },
  });
  const row: CreditRow = {
    id,
    amount_cents: p.amountCents,
    gst_cents: gst,
    tax_code: code,
    account_code: accountCode,
    reason: p.reason,
    issued_on: issuedOn,
    journal_id: journalId,
    ledger_id: event.ledgerId,
  };
  await recordCredit(uow, inv, row);
  if (status !== inv.status) {
    await uow.tx.run('UPDATE invoices SET status = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [
      status,
      event.ledgerId,
      uow.orgId,
      inv.id,
    ]);
  }
  return result(inv, row, status, left);
}
