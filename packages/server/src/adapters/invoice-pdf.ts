import PDFDocument from 'pdfkit';
import { formatCents } from '../money.js';

/**
 * Tax invoices and adjustment notes as PDF, rendered with pdfkit from what the
 * receivables domain decided (domain/receivables/documents.ts builds the input). Pure: the same
 * input gives the same bytes (the creation date is the document's date, the file id derives from
 * it, and only the standard Helvetica fonts are used, so nothing random is embedded).
 *
 * What a valid Australian tax invoice shows (GST Act s 29-70; ATO "Tax invoices"): the words
 * "Tax invoice"; the supplier's identity and ABN; the date of issue; the buyer's identity; each
 * item with its price and the GST in it (so the extent each is taxable is plain); the GST
 * payable and the total including GST. A business not registered for GST issues an "Invoice"
 * with no GST shown. An adjustment note (s 29-75) names the original invoice, the amount of the
 * adjustment and the GST in it.
 */
export interface PdfParty {
  readonly name: string;
  readonly legalName: string | null;
  readonly abn: string | null;
}

export interface PdfLine {
  readonly description: string;
  readonly amountCents: number;
  readonly gstCents: number;
  /** Words for the tax treatment: "GST", "GST-free", "Input taxed", … */
  readonly taxLabel: string;
}

export interface PaymentAccount {
  readonly accountName: string | null;
  readonly bsb: string;
  readonly accountNumber: string;
}

interface Common {
  readonly gstRegistered: boolean;
  readonly supplier: PdfParty;
  readonly customerName: string;
  readonly number: string;
  /** YYYY-MM-DD: the date of issue (and the PDF's creation date). */
  readonly issueDate: string;
  readonly totalCents: number;
  readonly gstCents: number;
}

export interface InvoicePdfInput extends Common {
  readonly kind: 'invoice';
  /** Some line carries GST: with gstRegistered, the document is a tax invoice. */
  readonly taxable: boolean;
  readonly dueDate: string;
  readonly description: string;
  readonly lines: readonly PdfLine[];
  readonly payment: PaymentAccount | null;
}

export interface AdjustmentPdfInput extends Common {
  readonly kind: 'adjustment';
  readonly invoiceNumber: string;
  readonly invoiceIssueDate: string | null;
  readonly reason: string;
  /** What the customer still owes on the invoice after this note. */
  readonly outstandingCents: number;
}

/** A quote: an offer priced in invoice lines, valid until its expiry date; no payment details. */
export interface QuotePdfInput extends Common {
  readonly kind: 'quote';
  readonly expiryDate: string;
  readonly description: string;
  readonly lines: readonly PdfLine[];
  readonly reference: string | null;
  readonly terms: string | null;
}

export type DocumentPdfInput = InvoicePdfInput | AdjustmentPdfInput | QuotePdfInput;

/** `51 824 753 556`. */
function abnGroups(abn: string): string {
  return `${abn.slice(0, 2)} ${abn.slice(2, 5)} ${abn.slice(5, 8)} ${abn.slice(8, 11)}`;
}

/** `25 November 2026` from `2026-11-25` (no time zone arithmetic: it is a calendar date). */
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export function longDate(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${Number(d)} ${MONTHS[Number(m) - 1] ?? m} ${y}`;
}

/**
 * The standard PDF fonts speak WinAnsi: anything else (an emoji, CJK) becomes "?" rather than a
 * wrong glyph. Control characters become spaces.
 */
const WIN_ANSI_EXTRA = '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ';
export function pdfText(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || (c >= 0x7f && c < 0xa0)) out += ' ';
    else if (c <= 0xff || WIN_ANSI_EXTRA.includes(ch)) out += ch;
    else out += '?';
  }
  return out;
}

export function titleOf(input: DocumentPdfInput): string {
  if (input.kind === 'adjustment') return input.gstRegistered ? 'Adjustment note' : 'Credit note';
  if (input.kind === 'quote') return 'Quote';
  return input.gstRegistered && input.taxable ? 'Tax invoice' : 'Invoice';
}

export function supplierName(p: PdfParty): string {
  return p.legalName && p.legalName !== p.name ? `${p.legalName} trading as ${p.name}` : p.name;
}

const LEFT = 50;
const RIGHT = 545;
const QTY_X = 300;
const QTY_W = 50;
const GST_X = 370;
const AMOUNT_X = 460;
const COL_W = 85;

/** Render the document; resolves with the PDF's bytes. */
export function renderDocumentPdf(input: DocumentPdfInput): Promise<Uint8Array> {
  const created = new Date(`${input.issueDate}T00:00:00Z`);
  const title = titleOf(input);
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: {
      Title: pdfText(`${title} ${input.number}`),
      Author: pdfText(supplierName(input.supplier)),
      Producer: 'Finance Desk',
      Creator: 'Finance Desk',
      CreationDate: created,
      ModDate: created,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on('error', reject);
  });
  draw(doc, input, title);
  doc.end();
  return done;
}

type Doc = InstanceType<typeof PDFDocument>;

function line(doc: Doc, label: string, value: string): void {
  doc.font('Helvetica-Bold').text(`${label} `, LEFT, doc.y, { continued: true }).font('Helvetica').text(pdfText(value));
}

/** Room for `h` points more on this page, else a new page. */
function room(doc: Doc, h: number): void {
  if (doc.y + h > doc.page.height - doc.page.margins.bottom) doc.addPage();
}

function draw(doc: Doc, input: DocumentPdfInput, title: string): void {
  doc.font('Helvetica-Bold').fontSize(22).text(title, LEFT, 50);
  doc.moveDown(0.5);
  doc.fontSize(12).text(pdfText(supplierName(input.supplier)));
  doc.font('Helvetica').fontSize(10);
  if (input.supplier.abn) doc.text(`ABN ${abnGroups(input.supplier.abn)}`);
  doc.moveDown();
  const numberLabel = input.kind === 'invoice' ? 'Invoice number:' : `${title} number:`;
  line(doc, numberLabel, input.number);
  line(doc, 'Date of issue:', longDate(input.issueDate));
  if (input.kind === 'invoice') line(doc, 'Due date:', longDate(input.dueDate));
  if (input.kind === 'quote') line(doc, 'Valid until:', longDate(input.expiryDate));
  line(doc, input.kind === 'invoice' ? 'Bill to:' : 'Customer:', input.customerName);
  if (input.kind === 'quote' && input.reference) line(doc, 'Reference:', input.reference);
  if (input.kind === 'adjustment') {
    const of = input.invoiceIssueDate ? ` issued ${longDate(input.invoiceIssueDate)}` : '';
    line(doc, 'Adjusts invoice:', `${input.invoiceNumber}${of}`);
    line(doc, 'Reason:', input.reason);
  } else {
    line(doc, 'For:', input.description);
  }
  doc.moveDown();
  if (input.kind === 'adjustment') drawAdjustment(doc, input);
  else drawLines(doc, input);
  drawTotals(doc, input);
  if (input.kind === 'invoice') drawHowToPay(doc, input);
  if (input.kind === 'quote') drawTerms(doc, input);
}

function header(doc: Doc, gst: boolean, qty: boolean): void {
  const y = doc.y;
  doc.font('Helvetica-Bold');
  doc.text('Description', LEFT, y, { width: QTY_X - LEFT - 10 });
  if (qty) doc.text('Qty', QTY_X, y, { width: QTY_W, align: 'right' });
  if (gst) doc.text('GST', GST_X, y, { width: COL_W, align: 'right' });
  doc.text(gst ? 'Amount incl. GST' : 'Amount', AMOUNT_X, y, { width: COL_W, align: 'right' });
  doc
    .moveTo(LEFT, doc.y + 2)
    .lineTo(RIGHT, doc.y + 2)
    .stroke();
  doc.moveDown(0.5);
  doc.font('Helvetica');
}

function drawLines(doc: Doc, input: InvoicePdfInput | QuotePdfInput): void {
  const gst = input.gstRegistered;
  header(doc, gst, true);
  // A sale line is one supply at its price (invoice lines carry no unit price): quantity 1.
  const width = QTY_X - LEFT - 10;
  for (const l of input.lines) {
    const words = pdfText(l.description);
    const h = doc.heightOfString(words, { width });
    room(doc, h + 6);
    const y = doc.y;
    doc.text(words, LEFT, y, { width });
    doc.text('1', QTY_X, y, { width: QTY_W, align: 'right' });
    if (gst) {
      const tax = l.gstCents === 0 ? `${formatCents(0)} (${l.taxLabel})` : formatCents(l.gstCents);
      doc.text(tax, GST_X, y, { width: COL_W, align: 'right' });
    }
    doc.text(formatCents(l.amountCents), AMOUNT_X, y, { width: COL_W, align: 'right' });
    doc.y = y + Math.max(h, doc.currentLineHeight()) + 4;
  }
}

function drawAdjustment(doc: Doc, input: AdjustmentPdfInput): void {
  const gst = input.gstRegistered;
  header(doc, gst, false);
  const y = doc.y;
  doc.text(pdfText(`Adjustment to invoice ${input.invoiceNumber}: ${input.reason}`), LEFT, y, { width: GST_X - LEFT - 10 });
  const after = doc.y;
  if (gst) doc.text(formatCents(-input.gstCents), GST_X, y, { width: COL_W, align: 'right' });
  doc.text(formatCents(-input.totalCents), AMOUNT_X, y, { width: COL_W, align: 'right' });
  doc.y = Math.max(after, doc.y) + 4;
}

function total(doc: Doc, label: string, value: string, bold = false): void {
  room(doc, 16);
  const y = doc.y;
  doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
  doc.text(label, LEFT, y, { width: AMOUNT_X - LEFT - 10, align: 'right' });
  doc.text(value, AMOUNT_X, y, { width: COL_W, align: 'right' });
  doc.font('Helvetica');
}

function drawTotals(doc: Doc, input: DocumentPdfInput): void {
  doc.moveTo(LEFT, doc.y).lineTo(RIGHT, doc.y).stroke();
  doc.moveDown(0.5);
  if (input.kind !== 'adjustment') {
    if (input.gstRegistered) {
      total(doc, 'Total GST', formatCents(input.gstCents));
      total(doc, 'Total incl. GST', formatCents(input.totalCents), true);
    } else {
      total(doc, 'Total', formatCents(input.totalCents), true);
      doc.moveDown(0.5);
      doc.text('No GST is charged: the supplier is not registered for GST.', LEFT, doc.y);
    }
    return;
  }
  if (input.gstRegistered) {
    total(doc, 'GST adjustment', formatCents(-input.gstCents));
    total(doc, 'Total adjustment incl. GST', formatCents(-input.totalCents), true);
  } else {
    total(doc, 'Total credit', formatCents(-input.totalCents), true);
  }
  total(doc, `Still owing on invoice ${pdfText(input.invoiceNumber)}`, formatCents(input.outstandingCents));
}

function drawHowToPay(doc: Doc, input: InvoicePdfInput): void {
  doc.moveDown(1.5);
  room(doc, 80);
  doc.font('Helvetica-Bold').fontSize(12).text('How to pay', LEFT, doc.y);
  doc.font('Helvetica').fontSize(10);
  const p = input.payment;
  if (p) {
    doc.text(`Pay by bank transfer (EFT) by ${longDate(input.dueDate)} to:`);
    if (p.accountName) line(doc, 'Account name:', p.accountName);
    line(doc, 'BSB:', p.bsb);
    line(doc, 'Account number:', p.accountNumber);
  } else {
    doc.text(`Please pay by ${longDate(input.dueDate)}; contact us for payment details.`);
  }
  line(doc, 'Payment reference:', input.number);
}

/** A quote's terms as given, or a plain line on how to accept it. */
function drawTerms(doc: Doc, input: QuotePdfInput): void {
  doc.moveDown(1.5);
  room(doc, 60);
  doc.font('Helvetica-Bold').fontSize(12).text('Terms', LEFT, doc.y);
  doc.font('Helvetica').fontSize(10);
  if (input.terms) doc.text(pdfText(input.terms), LEFT, doc.y, { width: RIGHT - LEFT });
  doc.text(`This quote is valid until ${longDate(input.expiryDate)}. To accept it, reply to this email quoting ${pdfText(input.number)}.`);
}
