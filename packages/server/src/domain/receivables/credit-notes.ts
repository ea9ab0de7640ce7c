import { events, gstOfInclusive, TAX_CODES, type receivables, type TaxCode } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { EmailAttachment } from '../../adapters/email.js';
import { enqueueEmail } from '../../adapters/outbox.js';
import { badRequest, conflict, DomainError, invariant } from '../../errors.js';
import { issueDateOf } from '../gl/periods.js';
import { formatCents, mulDivHalfUp } from '../../money.js';
import { adjustmentNotePdf } from './documents.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { creditFromSource, keepCredit, newCreditId } from '../credits/ledger.js';
import { shareOverAccounts, splitParts, type NotePart } from '../credits/split.js';
import { loadSaleLines, type SaleLine } from './invoice-lines.js';
import { receivables as receivablesSpec } from '@finance-desk/protocol';
import { loadInvoice, type InvoiceRow, type InvoiceStatus } from './invoices.js';
import { refuseForeign } from './foreign.js';
import { OPEN_STATUSES, RECEIVABLES_ACCOUNT, outstandingOn } from './ledger-api.js';

/**
 * books.invoiceCreditNote: an adjustment note reducing what a customer owes on one invoice. It
 * credits one tax code of the invoice: GST is 1/11 of the credit (half up, once per note), never
 * more than is left of that code's GST, and the note that clears a code takes exactly what is
 * left, so an invoice's GST collected is never over-reversed by rounding across many notes.
 * It reverses the revenue of the lines it credits: the amount is shared over the revenue
 * accounts of that code's lines in proportion to what is left to credit on each (largest
 * remainder, integer cents), its GST over those shares the same way; the note that clears the
 * code takes exactly what is left on each account. accountCode is the account with the largest
 * share.
 * A credit note is identified by invoice, amount, tax code and reason: the same again is a no-op.
 * A paid invoice can be credited too, and beyond what is outstanding (never beyond what is left
 * to credit of the code): the part beyond becomes a customer credit (credits/ledger.ts). That
 * part is a journal of its own, Cr 1100 under the credit's id, with its share of each account
 * and of the GST, so no journal names two documents on 1100 (the cash basis reads a journal's
 * tags as its document's) and the invoice never owes less than nothing.
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

function result(
  inv: InvoiceRow,
  c: CreditRow,
  status: InvoiceStatus,
  outstandingCents: number,
  credit: { id: string; cents: number } | null,
) {
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
    creditId: credit?.id ?? null,
    creditCents: credit?.cents ?? 0,
  };
}

/** Statuses a credit note may credit: posted and not void, written off or wholly credited. */
const CREDITABLE: readonly string[] = [...OPEN_STATUSES, 'paid'];

/**
 * What is left to credit of one code, per revenue account: the code's lines less the debits of
 * earlier credit notes on this invoice (their journal lines carry the code and the account).
 */
async function leftOfCode(uow: Uow, inv: InvoiceRow, code: TaxCode, lines: readonly SaleLine[]) {
  const ofCode = lines.filter((l) => l.taxCode === code);
  if (ofCode.length === 0) {
    const codes = [...new Set(lines.map((l) => l.taxCode))].join(', ');
    throw badRequest(`taxCode: invoice ${inv.id} has no ${code} line; credit one of its codes (${codes})`);
  }
  const byAccount = new Map<string, { amountCents: number; gstCents: number }>();
  for (const l of ofCode) {
    const a = byAccount.get(l.accountCode) ?? { amountCents: 0, gstCents: 0 };
    byAccount.set(l.accountCode, { amountCents: a.amountCents + l.amountCents, gstCents: a.gstCents + l.gstCents });
  }
  // From the document's journals (journals_source) to their lines: CROSS JOIN fixes that order in
  // SQLite, which otherwise read every line of the organisation (0.25 s at 100 000 documents).
  const prior = await uow.tx.all<{ account: string; a: unknown; g: unknown }>(
    `SELECT l.account_code AS account, SUM(l.tax_base_cents) AS a, SUM(l.gst_cents) AS g
     FROM journals j CROSS JOIN journal_lines l
     WHERE l.org_id = j.org_id AND l.journal_id = j.id
       AND j.org_id = ? AND j.source_kind = 'credit_note' AND j.source_id = ? AND l.tax_code = ?
     GROUP BY l.account_code`,
    [uow.orgId, inv.id, code],
  );
  for (const r of prior) {
    const a = byAccount.get(r.account) ?? { amountCents: 0, gstCents: 0 };
    // Credit-note tags are negative: adding them takes off what was credited.
    byAccount.set(r.account, { amountCents: a.amountCents + Number(r.a ?? 0), gstCents: a.gstCents + Number(r.g ?? 0) });
  }
  const accounts = [...byAccount].map(([accountCode, a]) => ({ accountCode, ...a }));
  return {
    amountCents: accounts.reduce((s, a) => s + a.amountCents, 0),
    gstCents: accounts.reduce((s, a) => s + a.gstCents, 0),
    accounts,
  };
}

/** Refusals in the order of checks for a books write: state, then amounts (each naming its field). */
async function checkCredit(uow: Uow, inv: InvoiceRow, p: Params, code: TaxCode, lines: readonly SaleLine[]) {
  if (!CREDITABLE.includes(inv.status)) {
    throw conflict(`invoice ${inv.id} is ${inv.status}; only a sent, part_paid or paid invoice can be credited`);
  }
  if (inv.journal_id === null) {
    throw conflict(`invoice ${inv.id} was sent before invoices were posted to the ledger; void it instead`);
  }
  const left = await leftOfCode(uow, inv, code, lines);
  const owed = await outstandingOn(uow.tx, uow.orgId, inv.id);
  if (p.amountCents > left.amountCents) {
    throw badRequest(
      `amountCents: ${p.amountCents} is more than the ${left.amountCents} cents of ${code} supplies left to credit on invoice ${inv.id}`,
    );
  }
  const gst = !TAX_CODES[code].gst
    ? 0
    : p.amountCents === left.amountCents
      ? left.gstCents
      : Math.min(gstOfInclusive(p.amountCents), left.gstCents);
  const parts = shareOverAccounts(left, p.amountCents, gst);
  invariant(parts.length > 0, 'a credit note debits at least one revenue account');
  const largest = parts.reduce((m, x) => (x.amountCents > m.amountCents ? x : m));
  return { owed, gst, parts, accountCode: largest.accountCode };
}

/**
 * Post one journal of the credit note (dated its issue date), before its event: the event binds
 * the journal's lines. `journal.docId` is the 1100 line's document: the invoice, or the credit made of
 * the part beyond what was owed.
 */
async function postCredit(
  uow: Uow,
  inv: InvoiceRow,
  c: Omit<CreditRow, 'ledger_id'>,
  parts: readonly NotePart[],
  journal: { readonly id: string; readonly docId: string },
): Promise<void> {
  const amount = parts.reduce((s, x) => s + x.amountCents, 0);
  const gst = parts.reduce((s, x) => s + x.gstCents, 0);
  const beyond = journal.docId !== inv.id ? ` (beyond what was owed: kept as credit ${journal.docId})` : '';
  const memo = `Credit note ${c.id} on invoice ${inv.id} to ${inv.payee_name}: ${c.reason}${beyond}`;
  await postJournal(uow, {
    id: journal.id,
    date: c.issued_on,
    dateField: 'issueDate',
    memo,
    source: { kind: 'credit_note', id: inv.id },
    lines: [
      // Each credited account's revenue is reversed; the supply's tags go negative (the BAS
      // nets the credit against its period's sales, or reports it as an adjustment later).
      ...parts.map((part) => ({
        account: part.accountCode,
        debitCents: part.amountCents - part.gstCents,
        taxCode: c.tax_code,
        taxBaseCents: -part.amountCents,
        gstCents: -part.gstCents,
        description: memo,
      })),
      { account: { key: 'gst_collected' }, debitCents: gst, description: `GST on credit note ${c.id}` },
      { account: RECEIVABLES_ACCOUNT, creditCents: amount, docId: journal.docId, description: memo },
    ],
  });
}

/** Keep the credit note's row, with its event's ledgerId. */
async function keepNote(uow: Uow, inv: InvoiceRow, c: CreditRow): Promise<void> {
  const amount = Number(c.amount_cents);
  const gst = Number(c.gst_cents);
  await uow.tx.run(
    `INSERT INTO invoice_credit_notes (org_id, invoice_id, created_at, ${CREDIT_COLUMNS})
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, inv.id, uow.now, c.id, amount, gst, c.tax_code, c.account_code, c.reason, c.issued_on, c.journal_id, c.ledger_id],
  );
}

export async function invoiceCreditNote(p: Params, uow: Uow) {
  const inv = await loadInvoice(uow, p.id);
  refuseForeign(
    'invoice',
    inv,
    'a credit note',
    `record what the customer pays with ${receivablesSpec.invoiceRecordPayment.name}, or void it while it has no payments`,
  );
  const lines = (await loadSaleLines(uow.tx, uow.orgId, [inv.id])).get(inv.id) ?? [];
  const code = p.taxCode ?? dominantCode(lines);
  const same = await uow.tx.get<CreditRow>(
    `SELECT ${CREDIT_COLUMNS} FROM invoice_credit_notes
     WHERE org_id = ? AND invoice_id = ? AND amount_cents = ? AND tax_code = ? AND reason = ?`,
    [uow.orgId, inv.id, p.amountCents, code, p.reason],
  );
  if (same) {
    const made = await creditFromSource(uow.tx, uow.orgId, same.id);
    const credit = made ? { id: made.id, cents: Number(made.amount_cents) } : null;
    return { ...result(inv, same, inv.status, await outstandingOn(uow.tx, uow.orgId, inv.id), credit), noop: true };
  }
  const { owed, gst, parts, accountCode } = await checkCredit(uow, inv, p, code, lines);
  const left = Math.max(owed - p.amountCents, 0);
  const excess = p.amountCents - (owed - left);
  const paid =
    excess > 0 ||
    (await uow.tx.get('SELECT id FROM invoice_payments WHERE org_id = ? AND invoice_id = ?', [uow.orgId, inv.id])) !== undefined ||
    (await uow.tx.get('SELECT id FROM credit_applications WHERE org_id = ? AND document_id = ?', [uow.orgId, inv.id])) !== undefined;
  // Cleared by credit alone → credited; cleared after money was received (or a credit applied) → paid (see the docs).
  const status = left > 0 ? inv.status : paid ? 'paid' : 'credited';
  const id = newId('cn');
  const journalId = newJournalId();
  const creditId = excess > 0 ? newCreditId() : null;
  invariant(creditId === null || inv.contact_id !== null, `invoice ${inv.id} has a contact`);
  // The adjustment note's date (default today), never before the invoice's own.
  const issuedOn = issueDateOf(uow, p.issueDate);
  if (inv.issued_on !== null && issuedOn < inv.issued_on) {
    throw new DomainError('BAD_REQUEST', `issueDate ${issuedOn} is before invoice ${inv.id} was issued (${inv.issued_on})`, {
      field: 'issueDate',
    });
  }
  // The customer receives the adjustment note (GST Act s 29-75) when we have an address.
  const pdf = inv.payee_email
    ? await adjustmentNotePdf(uow.tx, uow.orgId, {
        id,
        invoiceId: inv.id,
        invoiceIssuedOn: inv.issued_on,
        payeeName: inv.payee_name,
        issuedOn,
        amountCents: p.amountCents,
        gstCents: gst,
        reason: p.reason,
        outstandingCents: left,
      })
    : null;
  const credit: Omit<CreditRow, 'ledger_id'> = {
    id,
    amount_cents: p.amountCents,
    gst_cents: gst,
    tax_code: code,
    account_code: accountCode,
    reason: p.reason,
    issued_on: issuedOn,
    journal_id: journalId,
  };
  // Within what was owed on the invoice, and beyond it (the customer's credit): a journal each.
  const excessGst = excess === 0 ? 0 : excess === p.amountCents ? gst : mulDivHalfUp(gst, excess, p.amountCents);
  const [within, beyond] = excess === 0 ? [parts, []] : splitParts(parts, excess, excessGst);
  const creditJournalId = creditId !== null && within.length > 0 ? newJournalId() : journalId;
  if (within.length > 0) await postCredit(uow, inv, credit, within, { id: journalId, docId: inv.id });
  if (creditId !== null) await postCredit(uow, inv, credit, beyond, { id: creditJournalId, docId: creditId });
  const event = await uow.emit(events.invoiceCredit, {
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
      issuedOn,
      // Redacted by design, as invoiceSend: the channel and how many recipients, never the body.
      channel: pdf ? 'email' : null,
      recipients: pdf ? 1 : 0,
      ...(creditId !== null ? { creditId, creditCents: excess } : {}),
    },
  });
  const row: CreditRow = { ...credit, ledger_id: event.ledgerId };
  await keepNote(uow, inv, row);
  if (creditId !== null && inv.contact_id !== null) {
    await keepCredit(uow, {
      id: creditId,
      contact_id: inv.contact_id,
      side: 'customer',
      source_kind: 'credit_note',
      source_id: id,
      document_id: inv.id,
      amount_cents: excess,
      dated: issuedOn,
      reference: '',
      account_code: null,
      journal_id: creditJournalId,
      ledger_id: event.ledgerId,
    });
  }
  if (status !== inv.status) {
    await uow.tx.run('UPDATE invoices SET status = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [
      status,
      event.ledgerId,
      uow.orgId,
      inv.id,
    ]);
  }
  if (pdf && inv.payee_email) {
    await enqueueEmail(uow.tx, uow.orgId, uow.now, adjustmentMessage(inv, row, left, pdf, excess));
  }
  return result(inv, row, status, left, creditId !== null ? { id: creditId, cents: excess } : null);
}

/** The email an adjustment note travels in; the PDF is the document, the text a covering note. */
function adjustmentMessage(inv: InvoiceRow, c: CreditRow, left: number, pdf: EmailAttachment, excess: number) {
  const title = pdf.filename.startsWith('Adjustment') ? 'Adjustment note' : 'Credit note';
  return {
    to: inv.payee_email,
    subject: `${title} ${c.id} on invoice ${inv.number ?? inv.id}: ${formatCents(Number(c.amount_cents))} credited`,
    text: [
      `Dear ${inv.payee_name},`,
      '',
      `We have credited ${formatCents(Number(c.amount_cents))} to invoice ${inv.number ?? inv.id} (${c.reason}).`,
      left > 0 ? `${formatCents(left)} remains outstanding on that invoice.` : 'Nothing remains outstanding on that invoice.',
      ...(excess > 0 ? [`${formatCents(excess)} is held as a credit on your account.`] : []),
      '',
      `The ${title.toLowerCase()} is attached (${pdf.filename}).`,
      '',
      'Kind regards,',
      'Accounts receivable',
    ].join('\n'),
    attachments: [pdf],
  };
}
