// Receivables scenario for docs/methods.md: an invoice with mixed tax codes, its posting, a part
// payment, a credit note, a promise to pay, statements, void and the invoices read. The figures
// are those of docs/examples/receivables.md.
// The organisation's today: its time zone is the default, Australia/Sydney (clock.ts).
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const inDays = (n) => {
  const d = new Date(`${today()}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

export async function run({ post }) {
  const inv = await post(
    'books.invoiceDraft',
    {
      payeeName: 'Seaside Events Pty Ltd',
      payeeEmail: 'accounts@seaside-events.example',
      description: 'Wedding, 14 November',
      totalCents: 144_462,
      dueDays: 14,
      lines: [
        { description: 'Catering for 40', amountCents: 110_000 },
        { description: 'Fresh fruit boxes', amountCents: 33_000, taxCode: 'GST_FREE' },
        { description: 'Residential room hire, 1 night', amountCents: 1_462, taxCode: 'INPUT_TAXED', accountCode: '4200' },
      ],
    },
    'Draft with lines of mixed tax codes (GST once: 110,000 / 11 = 10,000)',
  );
  await post(
    'books.invoiceDraft',
    {
      payeeName: 'Seaside Events Pty Ltd',
      description: 'x',
      totalCents: 100,
      dueDays: 14,
      lines: [{ description: 'x', amountCents: 99, accountCode: '6000' }],
    },
    'Bad input names the field: lines must sum to totalCents',
  );
  const id = inv.result.id;
  await post('books.invoiceSend', { id }, 'Send: posts Dr 1100 / Cr 4000, 4200 (net, tagged) / Cr 2100 and emails it');
  await post(
    'books.invoiceRecordPayment',
    { id, amountCents: 50_000, reference: 'EFT 20391' },
    'A part payment: Dr 1000 / Cr 1100; status part_paid',
  );
  await post('books.invoiceRecordPayment', { id, amountCents: 50_000, reference: 'EFT 20391' }, 'The same reference again: a no-op');
  await post('books.invoiceRecordPayment', { id, amountCents: 100_000 }, 'More than is outstanding: BAD_REQUEST naming amountCents');
  await post(
    'books.invoiceCreditNote',
    { id, amountCents: 22_000, reason: '8 guests cancelled' },
    'Credit 8 meals (GST, the dominant code): Dr 4000 20,000 / Dr 2100 2,000 / Cr 1100 22,000',
  );
  await post(
    'books.invoicePromise',
    { id, promisedOn: inDays(7), note: 'Paying the rest after their event deposit clears' },
    'The customer promises the rest in a week (a new act each call)',
  );
  await post('books.invoiceVoid', { id, reason: 'Raised twice' }, 'Void after a payment: CONFLICT naming why');
  const other = await post(
    'books.invoiceDraft',
    { payeeName: 'Bay Books', description: 'Catering, book launch', totalCents: 22_000, dueDays: 7 },
    'A one-line invoice (GST, account 4000)',
  );
  await post('books.invoiceSend', { id: other.result.id }, 'Send it (no payeeEmail: not emailed)');
  await post('books.statementRun', {}, 'Statements for every customer with open invoices; emailed where an address is known');
  await post(
    'books.invoiceVoid',
    { id: other.result.id, reason: 'Wrong customer' },
    'Void an untouched sent invoice: a reversing journal dated today',
  );
  await post('books.invoiceVoid', { id: other.result.id, reason: 'Wrong customer' }, 'Void again: a no-op');
  const unpaid = await post(
    'books.invoiceDraft',
    { payeeName: 'Harbour Florist', description: 'Catering, shop opening', totalCents: 110_000, dueDays: 14 },
    'An invoice the customer will never pay',
  );
  await post('books.invoiceSend', { id: unpaid.result.id }, 'Send it');
  await post('books.invoiceRecordPayment', { id: unpaid.result.id, amountCents: 44_000 }, 'A part payment before the customer closed');
  await post(
    'books.invoiceWriteOff',
    { id: unpaid.result.id, reason: 'Customer closed; liquidator confirms nothing for unsecured creditors' },
    'Write off the 66,000 outstanding: Dr 7000 60,000 / Dr 2100 6,000 (the GST on it) / Cr 1100 66,000; status written_off',
  );
  await post(
    'books.invoiceWriteOff',
    { id: unpaid.result.id, reason: 'Customer closed; liquidator confirms nothing for unsecured creditors' },
    'The same write-off again: a no-op',
  );
  await post('books.invoices', { payeeName: 'seaside', limit: 10 }, 'Invoices with lines and what is still owed');
}
