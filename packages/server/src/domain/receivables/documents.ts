import { TAX_CODES, type TaxCode } from '@finance-desk/protocol';
import type { EmailAttachment } from '../../adapters/email.js';
import { attachmentName } from '../../adapters/email.js';
import {
  renderDocumentPdf,
  titleOf,
  type AdjustmentPdfInput,
  type InvoicePdfInput,
  type PaymentAccount,
  type QuotePdfInput,
} from '../../adapters/invoice-pdf.js';
import { invariant } from '../../errors.js';
import { loadProfile, type OrgProfile } from '../../org/profile.js';
import type { Queryable } from '../../storage/types.js';
import type { SaleLine } from './invoice-lines.js';

/**
 * The documents a customer receives as PDF: the tax invoice attached to the
 * invoiceSend email (and to reminders), the adjustment note attached to a credit note's email.
 * Built from the rows inside the unit of work that sends them; the bytes go only into the outbox
 * row (adapters/outbox.ts), never into an event.
 */
const TAX_WORDS: Readonly<Record<TaxCode, string>> = {
  GST: 'GST',
  EXPORT: 'export, GST-free',
  GST_FREE: 'GST-free',
  INPUT_TAXED: 'input taxed',
  GST_ON_CAPITAL: 'GST',
  GST_ON_EXPENSES: 'GST',
  GST_FREE_EXPENSES: 'GST-free',
  INPUT_TAXED_EXPENSE: 'input taxed',
  BAS_EXCLUDED: 'no GST',
  BAS_EXCLUDED_WAGES: 'no GST',
  BAS_EXCLUDED_PAYGW: 'no GST',
};

/** The number a customer sees: invoices.number (migration 30), else the id (not yet numbered). */
export async function invoiceNumberOf(q: Queryable, orgId: string, invoiceId: string): Promise<string> {
  const row = await q.get<{ number: string | null }>('SELECT number FROM invoices WHERE org_id = ? AND id = ?', [orgId, invoiceId]);
  return row?.number ?? invoiceId;
}

function paymentAccount(p: OrgProfile): PaymentAccount | null {
  if (!p.paymentBsb || !p.paymentAccountNumber) return null;
  return { accountName: p.paymentAccountName, bsb: p.paymentBsb, accountNumber: p.paymentAccountNumber };
}

function supplier(p: OrgProfile) {
  return { name: p.name, legalName: p.legalName, abn: p.abn };
}

function pdfFile(title: string, number: string, bytes: Uint8Array): EmailAttachment {
  return { filename: attachmentName(`${title} ${number}.pdf`), contentType: 'application/pdf', content: bytes };
}

export interface InvoiceForPdf {
  readonly id: string;
  readonly payee_name: string;
  readonly description: string;
  readonly total_cents: number;
  readonly gst_cents: number;
}

/** The invoice as a PDF attachment, as issued on `issuedOn` and due on `dueOn`. */
export async function invoicePdf(
  q: Queryable,
  orgId: string,
  row: InvoiceForPdf,
  lines: readonly SaleLine[],
  dates: { issuedOn: string; dueOn: string },
): Promise<EmailAttachment> {
  invariant(lines.length > 0, 'an invoice has lines');
  const profile = await loadProfile(q, orgId);
  const number = await invoiceNumberOf(q, orgId, row.id);
  const input: InvoicePdfInput = {
    kind: 'invoice',
    gstRegistered: profile.gstRegistered,
    taxable: lines.some((l) => TAX_CODES[l.taxCode].gst),
    supplier: supplier(profile),
    customerName: row.payee_name,
    number,
    issueDate: dates.issuedOn,
    dueDate: dates.dueOn,
    description: row.description,
    lines: lines.map((l) => ({
      description: l.description,
      amountCents: l.amountCents,
      gstCents: l.gstCents,
      taxLabel: TAX_WORDS[l.taxCode],
    })),
    totalCents: Number(row.total_cents),
    gstCents: Number(row.gst_cents),
    payment: paymentAccount(profile),
  };
  return pdfFile(titleOf(input), number, await renderDocumentPdf(input));
}

/** A quote as a PDF: its lines and totals as the invoice would carry them, valid until its expiry date. */
export async function quotePdf(
  q: Queryable,
  orgId: string,
  quote: {
    number: string;
    payeeName: string;
    description: string;
    date: string;
    expiryDate: string;
    totalCents: number;
    gstCents: number;
    reference: string | null;
    terms: string | null;
  },
  lines: readonly SaleLine[],
): Promise<EmailAttachment> {
  const profile = await loadProfile(q, orgId);
  const input: QuotePdfInput = {
    kind: 'quote',
    gstRegistered: profile.gstRegistered,
    supplier: supplier(profile),
    customerName: quote.payeeName,
    number: quote.number,
    issueDate: quote.date,
    expiryDate: quote.expiryDate,
    description: quote.description,
    lines: lines.map((l) => ({
      description: l.description,
      amountCents: l.amountCents,
      gstCents: l.gstCents,
      taxLabel: TAX_WORDS[l.taxCode],
    })),
    totalCents: quote.totalCents,
    gstCents: quote.gstCents,
    reference: quote.reference,
    terms: quote.terms,
  };
  return pdfFile(titleOf(input), quote.number, await renderDocumentPdf(input));
}

/** A credit note as an adjustment note PDF (GST Act s 29-75), numbered by its id. */
export async function adjustmentNotePdf(
  q: Queryable,
  orgId: string,
  note: {
    id: string;
    invoiceId: string;
    invoiceIssuedOn: string | null;
    payeeName: string;
    issuedOn: string;
    amountCents: number;
    gstCents: number;
    reason: string;
    outstandingCents: number;
  },
): Promise<EmailAttachment> {
  const profile = await loadProfile(q, orgId);
  const input: AdjustmentPdfInput = {
    kind: 'adjustment',
    gstRegistered: profile.gstRegistered,
    supplier: supplier(profile),
    customerName: note.payeeName,
    number: note.id,
    issueDate: note.issuedOn,
    invoiceNumber: await invoiceNumberOf(q, orgId, note.invoiceId),
    invoiceIssueDate: note.invoiceIssuedOn,
    reason: note.reason,
    totalCents: note.amountCents,
    gstCents: note.gstCents,
    outstandingCents: note.outstandingCents,
  };
  return pdfFile(titleOf(input), note.id, await renderDocumentPdf(input));
}
