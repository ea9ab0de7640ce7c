// Currencies scenario for docs/methods.md: the owner's exchange rates, an NZD export invoice posted
// in AUD at its rate and paid at another, the difference realised on 4400. The hand-checked
// figures are in docs/examples/currencies.md.
// The organisation's today: its time zone is the default, Australia/Sydney (clock.ts).
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const inDays = (n) => {
  const d = new Date(`${today()}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

export async function run({ post }) {
  const rates = [
    { currency: 'NZD', date: inDays(-3), rate: '0.91' },
    { currency: 'NZD', date: today(), rate: '0.925' },
  ];
  await post('books.exchangeRateSet', { rates }, 'AUD per one NZD on two days, kept exactly as millionths (one event)');
  await post('books.exchangeRateSet', { rates }, 'The same rates again: a no-op');
  await post(
    'books.exchangeRateSet',
    { rates: [{ currency: 'AUD', date: today(), rate: '1' }] },
    "AUD is the books' own currency: BAD_REQUEST naming rates[0].currency",
  );
  await post('books.exchangeRates', { currency: 'NZD', from: inDays(-30) }, 'The NZD rates of the last 30 days, newest first');
  const draft = await post(
    'books.invoiceDraft',
    {
      payeeName: 'Wellington Traders Ltd',
      description: 'Export order 118',
      totalCents: 100_000,
      dueDays: 30,
      taxCode: 'EXPORT',
      currency: 'NZD',
      issueDate: inDays(-3),
    },
    'An NZD 1,000.00 export invoice: the rate of its date, 0.910000, makes it AUD 910.00',
  );
  await post(
    'books.invoiceDraft',
    {
      payeeName: 'Wellington Traders Ltd',
      description: 'Export order 119',
      totalCents: 5_000,
      dueDays: 30,
      currency: 'NZD',
      issueDate: inDays(-20),
    },
    'A date with no NZD rate in the 7 days before it: BAD_REQUEST naming exchangeRate',
  );
  await post('books.invoiceSend', { id: draft.result.id }, 'Send it: Dr 1100 91 000 / Cr 4000 91 000 (EXPORT: G1 and G2 in AUD)');
  await post(
    'books.invoiceRecordPayment',
    { id: draft.result.id, amountCents: 100_000, reference: 'NZ-118' },
    'Paid in full today at 0.925000: Dr 1000 92 500 / Cr 1100 91 000 / Cr 4400 1 500, the gain realised',
  );
  await post('books.invoice', { id: draft.result.id }, 'The invoice: NZD amounts, its rate, AUD figures, the payment with its own rate');
}
