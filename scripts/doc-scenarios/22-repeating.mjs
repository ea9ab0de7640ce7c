// Repeating invoices and bills scenario for docs/methods.md: a monthly rent bill and a monthly
// retainer invoice set, repeated (a no-op), a template refused by billCapture's own schema, paused,
// and listed. The server's sweep makes the documents on their dates (docs/examples/repeating.md).
// The organisation's today: its time zone is the default, Australia/Sydney (clock.ts).
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
/** The first day of next month: nothing is due while the scenario runs. */
const nextMonth = () => {
  const [y, m] = today().split('-').map(Number);
  return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10);
};

const RENT = {
  payeeName: 'Harbour Properties',
  description: 'Office rent',
  totalCents: 220_000,
  dueDays: 7,
  payeeBsb: '062-000',
  payeeAccountNumber: '12345678',
  payeeAccountName: 'Harbour Properties',
};

export async function run({ post }) {
  const rent = await post(
    'books.repeatingSet',
    { kind: 'bill', action: 'approve', template: RENT, frequency: 'monthly', dayOfMonth: 1, startDate: nextMonth() },
    'Rent on the 1st of each month, approved unless the bill-approval rule holds it (one event)',
  );
  await post(
    'books.repeatingSet',
    { kind: 'bill', action: 'approve', template: RENT, frequency: 'monthly', dayOfMonth: 1, startDate: nextMonth() },
    'The same schedule again: a no-op answering it',
  );
  await post(
    'books.repeatingSet',
    {
      kind: 'invoice',
      action: 'send',
      template: {
        payeeName: 'Bondi Dental',
        payeeEmail: 'accounts@bondi.example',
        description: 'Monthly retainer',
        totalCents: 110_000,
        dueDays: 14,
      },
      frequency: 'monthly',
      dayOfMonth: 31,
      startDate: nextMonth(),
      count: 12,
    },
    'A retainer invoice sent on the last day of each month (31: a shorter month its last day), twelve times',
  );
  await post(
    'books.repeatingSet',
    { kind: 'bill', action: 'capture', template: { ...RENT, totalCents: -1 }, frequency: 'monthly', startDate: nextMonth() },
    "A template billCapture's own schema refuses: BAD_REQUEST naming template.totalCents",
  );
  await post(
    'books.repeatingSet',
    { id: rent.result.id, status: 'paused' },
    'Pause it: no documents until resumed (missed dates are skipped)',
  );
  await post('books.repeating', {}, 'The schedules with their next due date, last run and last error');
}
