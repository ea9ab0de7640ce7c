// Attachments scenario for docs/methods.md: the supplier's PDF kept with a bill as it is captured
// and downloaded byte for byte, a signed quote with an invoice, a purchase order added later (and
// the same bytes again, a no-op), a journal's workings and a lease added to it, and refusals. The
// same files (so the same SHA-256s) are in docs/examples/attachments.md and
// packages/server/test/attachments.test.ts. Last, so no other scenario's figures move.
// The organisation's today: its time zone is the default, Australia/Sydney (clock.ts).
import { createHash } from 'node:crypto';

const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const upload = (text, filename, mimeType = 'application/pdf') => ({
  contentBase64: Buffer.from(text).toString('base64'),
  filename,
  mimeType,
});
const sha256 = (text) => createHash('sha256').update(Buffer.from(text)).digest('hex');

const SUPPLIER_PDF = '%PDF-1.4\nNorthside Hardware tax invoice NH-1042: fixings $785.00 incl GST $71.36\n%%EOF\n';
const QUOTE_PDF = '%PDF-1.4\nSigned quote Q-77: joinery for Baker St Dental, $1,100.00 incl GST\n%%EOF\n';
const ORDER_PDF = '%PDF-1.4\nBaker St Dental purchase order PO-3318\n%%EOF\n';
const WORKINGS = 'date,payee,amount\n2026-03-01,Harbour Realty,1200.00\n';
const LEASE_PDF = '%PDF-1.4\nLease: Shop 3, 12 Harbour St, $1,200.00 a month\n%%EOF\n';

export async function run({ post }) {
  const bill = await post(
    'books.billCapture',
    {
      payeeName: 'Northside Hardware',
      description: 'Fixings',
      totalCents: 78_500,
      dueDays: 30,
      attachments: [upload(SUPPLIER_PDF, 'NH-1042.pdf')],
    },
    "A bill with the supplier's tax invoice PDF: its SHA-256, name, type and size go into the capture event",
  );
  await post(
    'books.attachment',
    { kind: 'bill', id: bill.result.id, sha256: sha256(SUPPLIER_PDF) },
    'Download it: the exact bytes, base64',
  );
  await post(
    'books.attachment',
    { kind: 'bill', id: bill.result.id, sha256: sha256(LEASE_PDF) },
    'A file the bill does not keep: NOT_FOUND naming sha256',
  );
  const invoice = await post(
    'books.invoiceDraft',
    {
      payeeName: 'Baker St Dental',
      description: 'Joinery',
      totalCents: 110_000,
      dueDays: 14,
      attachments: [upload(QUOTE_PDF, 'quote-Q-77.pdf')],
    },
    'An invoice drafted with the signed quote kept with it',
  );
  const order = { kind: 'invoice', id: invoice.result.id, attachment: upload(ORDER_PDF, 'PO-3318.pdf') };
  await post('books.attachmentAdd', order, "Add the customer's purchase order later: one event of its own");
  await post(
    'books.attachmentAdd',
    { ...order, attachment: { ...order.attachment, filename: 'po-copy.pdf' } },
    'The same bytes again (under another name): a no-op answering the file as first kept',
  );
  await post(
    'books.attachmentAdd',
    { ...order, attachment: { ...order.attachment, mimeType: 'PDF' } },
    'Not a media type: BAD_REQUEST naming attachment.mimeType',
  );
  await post('books.attachmentAdd', { ...order, kind: 'bill', id: 'bill_missing' }, 'An unknown document: NOT_FOUND');
  const journal = await post(
    'books.journalPost',
    {
      date: today(),
      memo: 'Rent paid by the owner personally',
      lines: [
        { accountCode: '6500', debitCents: 120_000 },
        { accountCode: '3000', creditCents: 120_000 },
      ],
      attachments: [upload(WORKINGS, 'owner-payments.csv', 'text/csv')],
    },
    'A manual journal with its workings kept with it',
  );
  await post(
    'books.attachmentAdd',
    { kind: 'journal', id: journal.result.journalId, attachment: upload(LEASE_PDF, 'lease.pdf') },
    'The lease added to the journal later',
  );
}
