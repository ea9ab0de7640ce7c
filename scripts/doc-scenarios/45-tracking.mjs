// Tracking scenario for docs/methods.md: a tracking category (Division: Cafe, Catering), an
// invoice and a journal whose lines name its options, and the profit and loss filtered by an
// option and by the lines without one. The hand-checked figures are in docs/examples/tracking.md.
// The organisation's today: its time zone is the default, Australia/Sydney (clock.ts).
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());

export async function run({ post }) {
  const division = { category: 'Division', options: [{ name: 'Cafe' }, { name: 'Catering' }] };
  await post('books.trackingSet', division, 'A tracking category with two options (one event)');
  await post('books.trackingSet', division, 'The same again: a no-op answering the event that made it');
  await post(
    'books.trackingSet',
    {
      category: 'Division',
      options: [
        { name: 'Cafe', newName: 'Café' },
        { name: 'Events', archived: true },
      ],
    },
    'Rename an option, add one already archived (kept for reports, refused on new lines)',
  );
  await post('books.trackingSet', { category: 'Region', newName: 'Area' }, 'Renaming a category that does not exist: BAD_REQUEST');
  const draft = await post(
    'books.invoiceDraft',
    {
      payeeName: 'Harbour Events',
      description: 'Wedding catering and cafe vouchers',
      totalCents: 44_000,
      dueDays: 14,
      lines: [
        { description: 'Wedding catering', amountCents: 33_000, tracking: { Division: 'Catering' } },
        { description: 'Cafe vouchers', amountCents: 11_000, tracking: { Division: 'Café' } },
      ],
    },
    'An invoice whose lines name an option each; stored on the posted revenue lines when sent',
  );
  await post('books.invoiceSend', { id: draft.result.id }, 'Send it: Cr 4000 30 000 Catering and 10 000 Café');
  await post(
    'books.journalPost',
    {
      date: today(),
      memo: 'Kitchen rent',
      lines: [
        { accountCode: '6500', debitCents: 6_000, tracking: { Division: 'Catering' } },
        { accountCode: '6500', debitCents: 4_000, tracking: { Division: 'Café' } },
        { accountCode: '1000', creditCents: 10_000 },
      ],
    },
    'A journal sharing rent between the options',
  );
  await post(
    'books.journalPost',
    {
      date: today(),
      memo: 'Stall',
      lines: [
        { accountCode: '6000', debitCents: 1_000, tracking: { Division: 'Events' } },
        { accountCode: '1000', creditCents: 1_000 },
      ],
    },
    'An archived option on a new line: BAD_REQUEST naming lines[0].tracking',
  );
  await post(
    'books.reports',
    { type: 'profit_and_loss', from: today(), to: today(), tracking: { Division: 'Catering' } },
    "Today's profit and loss of Catering's lines only",
  );
  await post(
    'books.reports',
    { type: 'profit_and_loss', from: today(), to: today(), tracking: { Division: null } },
    "Today's profit and loss of the lines with no Division (unassigned): with each option's, it sums to the whole",
  );
  await post(
    'books.reports',
    { type: 'gst_summary', from: today(), to: today(), tracking: { Division: 'Catering' } },
    'A report of tax figures takes no tracking filter: BAD_REQUEST naming it',
  );
}
