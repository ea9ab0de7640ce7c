// Contact credits scenario for docs/methods.md: an overpayment kept as a customer credit and
// allocated to the next invoice, a credit note on a paid invoice refunded, a supplier prepayment
// allocated to a bill, a supplier's adjustment note. The figures are those of
// docs/examples/credits.md.
async function approve(post, decide, billId) {
  const first = await post('books.billApprove', { id: billId }, 'Approve the bill (held for a human when the rule says so)');
  if (first.ok) return first;
  const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.error.message)?.[1];
  const req = await post(
    'approval.request',
    { actionClass: 'books.bill_approve', payloadHash, subject: { kind: 'books.signature', subjectId: billId } },
    'File the bill-approval hold for a human',
  );
  await decide(req.result.approvalId);
  return post('books.billApprove', { id: billId, approvalId: req.result.approvalId }, 'Approved with the proof: the bill posts');
}

export async function run({ post, get, decide }) {
  const inv = await post(
    'books.invoiceDraft',
    { payeeName: 'Bayside Bakery', description: 'Catering', totalCents: 110_000, dueDays: 30 },
    'An invoice of $1,100 ($100 GST)',
  );
  await post('books.invoiceSend', { id: inv.result.id }, 'Send it');
  await post(
    'books.invoiceRecordPayment',
    { id: inv.result.id, amountCents: 120_000, reference: 'EFT 881' },
    'The customer paid $1,200: more than is outstanding is refused, naming excess',
  );
  const pay = await post(
    'books.invoiceRecordPayment',
    { id: inv.result.id, amountCents: 120_000, reference: 'EFT 881', excess: 'credit' },
    "With excess 'credit': Dr 1000 120,000 / Cr 1100 invoice 110,000 / Cr 1100 credit 10,000; the invoice is paid",
  );
  const next = await post(
    'books.invoiceDraft',
    { payeeName: 'Bayside Bakery', description: 'Catering, second week', totalCents: 55_000, dueDays: 30 },
    'The next invoice, $550',
  );
  await post('books.invoiceSend', { id: next.result.id }, 'Send it');
  await get('contacts.list', { q: 'bayside' }, "The customer's open credits: the creditId to allocate or refund");
  await post(
    'books.creditAllocate',
    { creditId: pay.result.creditId, documentId: next.result.id },
    'Apply the $100 credit to it: Dr 1100 credit / Cr 1100 invoice; it owes $450',
  );
  await post('books.creditAllocate', { creditId: pay.result.creditId, documentId: next.result.id }, 'The same allocation again: a no-op');
  const cn = await post(
    'books.invoiceCreditNote',
    { id: inv.result.id, amountCents: 33_000, reason: 'Short delivery' },
    'A $330 credit note on the paid invoice: all of it a customer credit (GST $30 adjusted)',
  );
  await post(
    'books.creditRefund',
    { creditId: cn.result.creditId, reference: 'REFUND 12' },
    'Paid back to the customer: Dr 1100 credit / Cr 1000 (money that already left)',
  );
  await post('books.creditRefund', { creditId: 'crd_unknown' }, 'An unknown credit: NOT_FOUND naming creditId');

  const supplier = await post('books.contactCreate', { name: 'Ridge Timber Co', kind: 'supplier' }, 'A supplier before its first bill');
  const pre = await post(
    'books.creditPrepayment',
    { contactId: supplier.result.id, side: 'supplier', amountCents: 50_000, reference: 'DEPOSIT 1' },
    'A $500 deposit paid before the bill: Dr 2000 credit / Cr 1000',
  );
  const bill = await post(
    'books.billCapture',
    { contactId: supplier.result.id, description: 'Timber', totalCents: 77_000, dueDays: 30 },
    'The bill, $770 ($70 GST)',
  );
  await approve(post, decide, bill.result.id);
  await post(
    'books.creditAllocate',
    { creditId: pre.result.id, documentId: bill.result.id },
    'The deposit settles $500 of it: Dr 2000 bill / Cr 2000 credit; $270 is left to pay',
  );
  await post(
    'books.billCreditNote',
    { id: bill.result.id, amountCents: 11_000, reason: 'Two boards split' },
    "The supplier's adjustment note for $110: Dr 2000 11,000 / Cr 6000 10,000 / Cr 1200 1,000",
  );
  await post(
    'books.billCreditNote',
    { id: bill.result.id, amountCents: 11_000, reason: 'Two boards split' },
    'The same note again: a no-op',
  );
}
