// Reconciliation scenario for docs/methods.md: a statement imported (JSON lines and a bank CSV),
// suggestions, a part payment, a bill paid, a bank fee recoded, a line above the materiality floor
// held and matched with a human's approval, a receipt, manual journals. The same statement is
// worked by hand in docs/examples/reconciliation.md.
// The organisation's today: its time zone is the default, Australia/Sydney (clock.ts).
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const ddmmyyyy = (iso) => iso.split('-').reverse().join('/');

async function sent(post, payeeName, totalCents, description) {
  const draft = await post('books.invoiceDraft', { payeeName, description, totalCents, dueDays: 14 }, `Invoice ${payeeName}`);
  await post('books.invoiceSend', { id: draft.result.id }, 'Send it (posts Dr 1100 / Cr 4000 / Cr 2100)');
  return draft.result.id;
}

async function approvedBill(post, decide, params) {
  const bill = await post('books.billCapture', params, 'A bill to pay from the bank');
  const first = await post('books.billApprove', { id: bill.result.id }, 'Approve it (a new payee may be held for a human)');
  if (first.ok) return bill.result.id;
  const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.error.message)?.[1];
  const req = await post(
    'approval.request',
    { actionClass: 'books.bill_approve', payloadHash, subject: { kind: 'books.signature', subjectId: bill.result.id } },
    'File the bill-approval hold',
  );
  await decide(req.result.approvalId);
  await post('books.billApprove', { id: bill.result.id, approvalId: req.result.approvalId }, 'Approved with the proof');
  return bill.result.id;
}

export async function run({ post, decide }) {
  await post(
    'books.journalPost',
    {
      date: today(),
      memo: 'Owner tops up the business account',
      lines: [
        { accountCode: '1000', debitCents: 1_000_000 },
        { accountCode: '3000', creditCents: 1_000_000 },
      ],
    },
    'A manual journal: Dr 1000 / Cr 3000',
  );
  await post(
    'books.journalPost',
    {
      date: today(),
      memo: "Printer bought on the owner's card",
      lines: [
        { accountCode: '6600', debitCents: 33_000, taxCode: 'GST_ON_EXPENSES', description: 'Laser printer' },
        { accountCode: '3000', creditCents: 33_000 },
      ],
    },
    'A GST-coded line is GST-inclusive: net to 6600, GST to 1200',
  );
  await post(
    'books.journalPost',
    {
      date: today(),
      memo: 'Oops',
      lines: [
        { accountCode: '6000', debitCents: 100 },
        { accountCode: '3000', creditCents: 90 },
      ],
    },
    'Debits must equal credits',
  );

  const baker = await sent(post, 'Baker St Dental', 88_000, 'Reception joinery');
  const coastal = await sent(post, 'Coastal Cafe Group', 374_000, 'Cafe fit-out');
  const bill = await approvedBill(post, decide, {
    payeeName: 'Northside Hardware',
    description: 'Hinges and fixings',
    totalCents: 78_500,
    dueDays: 14,
    payeeReference: 'NH-2101',
  });

  const statement = await post(
    'books.feedLines',
    {
      lines: [
        { date: today(), amountCents: 50_000, description: 'DIRECT CREDIT 062118 BAKER ST DENTAL PART PAYMENT', balanceCents: 1_050_000 },
        { date: today(), amountCents: -78_500, description: 'INTERNET TRANSFER NORTHSIDE HARDWARE NH-2101', balanceCents: 971_500 },
        { date: today(), amountCents: -1_000, description: 'ACCOUNT KEEPING FEE', balanceCents: 970_500 },
        { date: today(), amountCents: 374_000, description: 'DEPOSIT ONLINE COASTAL CAFE GROUP', balanceCents: 1_344_500 },
      ],
    },
    'Import a statement: four unmatched lines, with suggestions',
  );
  const [part, hardware, fee, big] = statement.result.lineIds;
  await post(
    'books.feedLines',
    {
      lines: [
        { date: today(), amountCents: 50_000, description: 'DIRECT CREDIT 062118 BAKER ST DENTAL PART PAYMENT', balanceCents: 1_050_000 },
      ],
    },
    'The same line again: a duplicate, a no-op',
  );
  const csv = [
    `${ddmmyyyy(today())},"-64.90","Card xx4471 OFFICEWORKS 0612 BROOKVALE NS AUS Value Date: ${ddmmyyyy(today())}","+13445.00"`,
    `${ddmmyyyy(today())},"-64.90","Card xx4471 OFFICEWORKS 0612 BROOKVALE NS AUS Value Date: ${ddmmyyyy(today())}","+13445.00"`,
    `${ddmmyyyy(today())},"+1.37","Credit Interest","+13509.90"`,
  ].join('\r\n');
  await post(
    'books.feedLines',
    { file: { format: 'csv', content: csv } },
    'A CommBank CSV (layout detected); the repeated row with the same balance is an export duplicate',
  );
  await post('books.feedLines', { lines: [{ date: today(), amountCents: 0, description: '' }] }, 'Bad input names every field');
  await post('books.feedLinesList', { limit: 3 }, 'Unreconciled lines with ranked suggestions');

  await post(
    'books.matchAccept',
    { lineId: part, target: { kind: 'invoice', id: baker } },
    'Match a line smaller than the invoice: a part payment',
  );
  await post('books.matchAccept', { lineId: part, target: { kind: 'invoice', id: baker } }, 'The same match again is a no-op');
  await post('books.matchAccept', { lineId: hardware, target: { kind: 'invoice', id: baker } }, 'Money out cannot pay an invoice');
  await post('books.matchAccept', { lineId: hardware, target: { kind: 'bill', id: bill } }, 'Pay a bill: Dr 2000 / Cr 1000');
  await post('books.lineRecode', { lineId: fee, accountCode: '6000' }, 'Code a bank fee to an account');
  await post('books.lineRecode', { lineId: fee, accountCode: '6300' }, 'Recode it: the first coding is reversed (a new act)');
  await post(
    'books.matchAccept',
    { lineId: big, target: { kind: 'invoice', id: coastal } },
    'Above the materiality floor: held, not matched',
  );

  const params = { lineId: big, target: { kind: 'invoice', id: coastal } };
  const hold = await post('books.matchHoldResolve', params, 'The signature act without proof: the hold frame');
  const a = hold.result.approval;
  const req = await post(
    'approval.request',
    { actionClass: a.actionClass, payloadHash: a.payloadHash, subject: { kind: 'books.signature', subjectId: a.subject.subjectId } },
    'File the held match for a human',
  );
  await decide(req.result.approvalId);
  await post('books.matchHoldResolve', { ...params, approvalId: req.result.approvalId }, 'Retry with the proof: matched, the invoice paid');
  await post('books.feedLinesList', { status: 'all', limit: 4, suggestions: false }, 'The statement, reconciled');

  const receipt = Buffer.from('%PDF-1.4 Northside Hardware tax invoice NH-2101, $785.00 incl GST').toString('base64');
  await post(
    'books.receiptsRegister',
    { contentBase64: receipt, filename: 'NH-2101.pdf', mimeType: 'application/pdf', lineId: hardware },
    'Keep the receipt with the line',
  );
  await post(
    'books.receiptsRegister',
    { contentBase64: receipt, filename: 'NH-2101 (1).pdf', mimeType: 'application/pdf' },
    'The same bytes again: the same receipt',
  );
}
