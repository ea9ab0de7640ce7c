// Payables and expenses scenario for docs/methods.md: bills with lines and bank details, the bill-approval rule,
// a payment run held for a human and executed with the proof, the bills read, expense claims.
// The organisation's today: its time zone is the default, Australia/Sydney (clock.ts).
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const inDays = (n) => {
  const d = new Date(`${today()}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

async function approve(post, decide, billId, note) {
  const refused = await post('books.billApprove', { id: billId }, note);
  if (refused.ok) return refused;
  const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(refused.error.message)?.[1];
  const req = await post(
    'approval.request',
    { actionClass: 'books.bill_approve', payloadHash, subject: { kind: 'books.signature', subjectId: billId } },
    'File the bill-approval hold for a human',
  );
  await decide(req.result.approvalId);
  return post('books.billApprove', { id: billId, approvalId: req.result.approvalId }, 'Approved with the proof: the bill posts (accrual)');
}

export async function run({ post, decide }) {
  const timber = await post(
    'books.billCapture',
    {
      payeeName: 'Coastal Timber Supplies',
      description: 'Hardwood for the Bay St fit-out',
      dueDays: 14,
      lines: [
        { description: 'Spotted gum decking', amountCents: 1_034_567, accountCode: '5000' },
        {
          description: 'Drop saw',
          amountCents: 200_000,
          taxCode: 'GST_ON_CAPITAL',
          asset: { name: 'Drop saw', effectiveLifeYears: 5, method: 'diminishing_value' },
        },
      ],
      payeeBsb: '062-703',
      payeeAccountNumber: '11223344',
      payeeAccountName: 'Coastal Timber Supplies Pty Ltd',
      payeeReference: 'CTS-89012',
    },
    "A bill with lines and the payee's bank details (held: above the floor)",
  );
  await approve(post, decide, timber.result.id, 'Held by the bill-approval rule: a human must approve');
  const hardware = await post(
    'books.billCapture',
    {
      payeeName: 'Northside Hardware',
      description: 'Fixings',
      totalCents: 123_450,
      dueDays: 7,
      payeeBsb: '083-047',
      payeeAccountNumber: '587412369',
      payeeAccountName: 'Northside Hardware Pty Ltd',
      payeeReference: 'NH-2230',
    },
    'One line from totalCents (GST on expenses, account 6000)',
  );
  await approve(post, decide, hardware.result.id, 'A new payee: held');
  await post(
    'books.billCapture',
    {
      payeeName: 'Northside Hardware',
      description: 'Bad',
      lines: [{ description: 'x', amountCents: 100, accountCode: '1000' }],
      payeeBsb: '083047',
    },
    'Bad input names every field',
  );
  const params = {
    billIds: [timber.result.id, hardware.result.id],
    paymentDate: inDays(2),
    funding: {
      bsb: '034-702',
      accountNumber: '458921',
      bankCode: 'WBC',
      userName: 'Harbour Cafe',
      apcaUserId: '512734',
      remitterName: 'Harbour Cafe',
    },
  };
  const hold = await post('books.billScheduleRun', params, 'A payment run is always held for a human');
  const a = hold.result.approval;
  const req = await post(
    'approval.request',
    { actionClass: a.actionClass, payloadHash: a.payloadHash, subject: { kind: 'books.signature', subjectId: a.subject.subjectId } },
    'File the run for a human decision',
  );
  await decide(req.result.approvalId);
  await post(
    'books.billScheduleRun',
    { ...params, approvalId: req.result.approvalId },
    'Retry with the proof: bills paid, journal posted, <runId>.aba written after commit',
  );
  await post('books.billScheduleRun', params, 'The same call again: a no-op answering with the run');
  await post('books.billScheduleRun', { ...params, billIds: undefined, dueOnOrBefore: inDays(30) }, 'Nothing approved is due any more');
  await post('books.bills', { payeeName: 'timber', limit: 10 }, 'Bills with what is still to pay');
  const claim = await post(
    'books.expenseClaim',
    {
      claimant: 'Mia Chen',
      description: 'Officeworks stationery',
      amountCents: 8_745,
      accountCode: '6600',
      spentOn: today(),
      receiptRef: 'rcpt_demo',
    },
    'Submit a staff expense claim',
  );
  await post(
    'books.expenseClaim',
    { claimant: 'Mia Chen', description: 'Taxi', amountCents: 0, spentOn: inDays(1), receiptRef: 'x' },
    'Bad input names every field',
  );
  await post('books.expenseApprove', { id: claim.result.id }, 'Approve: posts Dr 6600 + Dr 1200 / Cr 2500');
  await post('books.expenseApprove', { id: claim.result.id }, 'Approving again is a no-op');
  const other = await post(
    'books.expenseClaim',
    { claimant: 'Sam Lee', description: 'Lunch', amountCents: 2_400, spentOn: today(), receiptRef: 'photo 12' },
    'Another claim',
  );
  await post('books.expenseReject', { id: other.result.id, reason: 'Personal expense' }, 'Reject a claim');
}
