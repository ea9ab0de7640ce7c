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

async function approve(post, decide, billId) {
  const refused = await post('books.billApprove', { id: billId }, 'A foreign bill from a new payee: held like any other');
  if (refused.ok) return refused;
  const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(refused.error.message)?.[1];
  const req = await post(
    'approval.request',
    { actionClass: 'books.bill_approve', payloadHash, subject: { kind: 'books.signature', subjectId: billId } },
    'File the hold of the USD bill for a human',
  );
  await decide(req.result.approvalId);
  return post('books.billApprove', { id: billId, approvalId: req.result.approvalId }, 'Approved: Dr 6000 / Cr 2000 in AUD at its rate');
}

export async function run({ post, decide }) {
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
  await post('books.exchangeRateSet', { rates: [{ currency: 'USD', date: today(), rate: '1.523456' }] }, 'A USD rate for today');
  const bill = await post(
    'books.billCapture',
    {
      payeeName: 'Seattle Tools Inc',
      description: 'Tools',
      totalCents: 200_000,
      dueDays: 30,
      taxCode: 'GST_FREE_EXPENSES',
      currency: 'USD',
    },
    'A USD 2,000.00 bill: AUD 3,046.91 at 1.523456 (the approval floor compares the AUD)',
  );
  await approve(post, decide, bill.result.id);
  await post(
    'books.billRecordPayment',
    { id: bill.result.id, amountCents: 100_000, exchangeRate: '1.5', reference: 'WIRE-1' },
    'Half paid at 1.500000: Dr 2000 1 523.46 (at the rate of the bill) / Cr 1000 1 500.00 / Cr 4400 23.46, a gain',
  );
  await post('books.exchangeRateSet', { rates: [{ currency: 'USD', date: today(), rate: '1.55' }] }, 'The USD rate moves later in the day');
  await post(
    'books.currencyRevalue',
    { date: today() },
    'Revalue what is open: the USD 1,000.00 still owed is 1 550.00 at 1.550000 against 1 523.45 carried: Cr 2000 26.55 / Dr 4400 26.55 today, reversed tomorrow',
  );
  await post(
    'books.billScheduleRun',
    {
      billIds: [bill.result.id],
      paymentDate: today(),
      funding: {
        bsb: '034-702',
        accountNumber: '458921',
        bankCode: 'WBC',
        userName: 'Harbour Cafe',
        apcaUserId: '512734',
        remitterName: 'Harbour Cafe',
      },
    },
    'A payment run pays AUD by ABA file: a foreign bill is CONFLICT',
  );
}
