// Reports scenario for docs/methods.md: the chart with balances, journals and every report, over
// the postings the earlier scenarios made today (invoices sent, paid and credited; bills approved
// and paid). The hand-checked figures, and the worked quarter's BAS, are in
// docs/examples/reports.md.
// The organisation's today: its time zone is the default, Australia/Sydney (clock.ts).
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const inDays = (n) => {
  const d = new Date(`${today()}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};
/** First day of the BAS quarter (Jul–Sep, Oct–Dec, Jan–Mar, Apr–Jun) and of the financial year. */
const quarterStart = () => {
  const [y, m] = today().split('-').map(Number);
  return `${y}-${String(Math.floor((m - 1) / 3) * 3 + 1).padStart(2, '0')}-01`;
};
const yearStart = () => {
  const [y, m] = today().split('-').map(Number);
  return `${m >= 7 ? y : y - 1}-07-01`;
};
/** The last day of the current month. */
const monthEnd = () => {
  const [y, m] = today().split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};

export async function run({ post }) {
  await post(
    'books.accountCreate',
    { code: '4500', name: 'Consulting income', type: 'revenue', taxCode: 'GST' },
    "An account of the business's own, with its default tax code (one event)",
  );
  await post('books.accountCreate', { code: '1100', name: 'Debtors', type: 'asset' }, "A system account's code: CONFLICT naming it");
  await post(
    'books.accountUpdate',
    { code: '4500', name: 'Consulting and advisory income' },
    'Rename it (its type may change only before anything is posted to it)',
  );
  await post('books.accountCreate', { code: '6955', name: 'Trade show stands', type: 'expense' }, 'An expense account, never used');
  await post('books.accountArchive', { code: '6955' }, 'Archive it: no balance, no open documents; new postings to it are refused');
  await post('books.accounts', { type: 'asset' }, 'Asset accounts with their debits, credits and balance as at today');
  const page = await post('books.journals', { limit: 2 }, 'The first two journals (by date, then id), each with its lines');
  await post('books.journals', { limit: 2, cursor: page.result.nextCursor }, 'The next page');
  await post('books.journals', { accountCode: '1100', limit: 3 }, 'Journals touching 1100 Accounts receivable');
  await post('books.journals', { accountCode: '9999' }, 'An account that is not in the chart: BAD_REQUEST naming accountCode');
  await post('books.reports', { type: 'trial_balance' }, 'Trial balance as at today');
  await post('books.reports', { type: 'profit_and_loss', from: yearStart(), to: today() }, 'Profit and loss, financial year to date');
  await post('books.reports', { type: 'balance_sheet' }, "Balance sheet: this year's earnings sit in equity");
  await post('books.reports', { type: 'aged_receivables', asOf: inDays(20) }, 'Aged receivables as at 20 days from now');
  await post('books.reports', { type: 'aged_payables', asOf: inDays(20) }, 'Aged payables as at 20 days from now');
  await post(
    'books.reports',
    { type: 'gst_summary', from: quarterStart(), to: inDays(0) },
    'GST summary (BAS labels) for the quarter so far',
  );
  const months = (cents) => Array.from({ length: 12 }, () => cents);
  const budget = {
    financialYearStart: yearStart(),
    lines: [
      { accountCode: '4000', monthlyCents: months(1_000_000) },
      { accountCode: '6500', monthlyCents: months(200_000) },
    ],
  };
  await post('books.budgetSet', budget, "This financial year's budget: sales $10,000 and rent $2,000 a month (one event)");
  await post('books.budgetSet', budget, 'The same figures again: a no-op answering the event that set them');
  await post(
    'books.budgetSet',
    {
      financialYearStart: yearStart(),
      lines: [
        { accountCode: '4999', monthlyCents: months(1) },
        { accountCode: '1000', monthlyCents: months(1) },
      ],
    },
    'An unknown account and a balance-sheet account: BAD_REQUEST naming each line',
  );
  await post(
    'books.reports',
    { type: 'budget_vs_actual', from: yearStart(), to: monthEnd() },
    'Budget against actual, financial year to the end of this month, per account and month',
  );
  await post('books.reports', { type: 'profit_and_loss', from: today() }, 'A period report without to: BAD_REQUEST naming the field');
  await post(
    'books.reports',
    { type: 'cash_flow', from: yearStart(), to: today() },
    'Statement of cash flows, financial year to date: the bank accounts by the direct method, reconciled to the balance sheet',
  );
  await post('books.reports', { type: 'cash_forecast' }, 'An unknown report type');
}
