// Quotes scenario for docs/methods.md: a quote in invoice lines (GST worked out as an invoice's),
// emailed with its PDF, accepted into an invoice draft with the same lines; another declined; an
// expiry before the quote's date refused; the quotes read (docs/books.md, Quotes).
// The organisation's today: its time zone is the default, Australia/Sydney (clock.ts).
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());

const LINES = [
  { description: 'Kitchen design', amountCents: 330_000 },
  { description: 'Council permit', amountCents: 20_000, taxCode: 'GST_FREE' },
];

export async function run({ post }) {
  const quote = await post(
    'books.quoteDraft',
    {
      payeeName: 'Bayside Cafe',
      payeeEmail: 'owner@bayside.example',
      description: 'New kitchen',
      lines: LINES,
      reference: 'JOB-42',
      terms: 'Half on acceptance, half on completion.',
    },
    'Draft a quote: GST 330,000 / 11 = 30,000 on the GST line; expires 30 days after today; posts nothing',
  );
  await post(
    'books.quoteDraft',
    { payeeName: 'Bayside Cafe', lines: LINES, date: today(), expiryDate: '2000-01-01' },
    'Bad input names the field: an expiry before the quote’s date',
  );
  await post('books.quoteSend', { id: quote.result.id }, 'Send it: emailed to payeeEmail with the quote PDF');
  await post(
    'books.quoteDecide',
    { id: quote.result.id, decision: 'accepted' },
    'The customer accepts: an invoice draft with the same lines and GST, naming the quote (one event: books.invoice.draft)',
  );
  await post('books.quoteDecide', { id: quote.result.id, decision: 'declined' }, 'A decided quote is not decided otherwise: CONFLICT');
  const other = await post(
    'books.quoteDraft',
    { payeeName: 'Tight Budget Pty Ltd', lines: [{ description: 'Shelving', amountCents: 11_000 }] },
    'Another quote (description defaults to the first line)',
  );
  await post('books.quoteDecide', { id: other.result.id, decision: 'declined' }, 'Declined: recorded, nothing else');
  await post('books.quotes', { status: 'accepted' }, 'Accepted quotes, each with the invoice it became');
  await post('books.quote', { id: other.result.id }, 'One quote');
}
