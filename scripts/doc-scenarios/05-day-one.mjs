// Day-one scenario for docs/methods.md: the conversion (opening balances with an
// invoice and a bill carried in), bank accounts, a transfer matched on both sides, a split line,
// and each correction: unmatch, a dishonoured receipt, a returned supplier payment, a reversed
// journal. The core scenario's organisation already trades, so its conversion is refused; a
// business joining converts in an organisation of its own, before it trades.
import { createOrg } from '@finance-desk/server';
import { createBankAccount } from '../../packages/server/dist/domain/banking/accounts.js';
import { decideApproval } from '../../packages/server/dist/governance/approvals.js';

const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());

export async function run({ post, org, db }) {
  const conversion = {
    conversionDate: '2020-06-30',
    accounts: [
      { accountCode: '1000', debitCents: 1_000_000 },
      { accountCode: '3000', creditCents: 1_042_350 },
    ],
    invoices: [
      {
        number: 'OLD-950',
        issueDate: '2020-06-10',
        dueDate: '2020-07-10',
        payeeName: 'Bay Books',
        description: 'Catering, June',
        totalCents: 55_000,
        outstandingCents: 55_000,
      },
    ],
    bills: [
      {
        payeeName: 'Paper Co',
        reference: 'PC-881',
        issueDate: '2020-06-20',
        dueDate: '2020-07-20',
        description: 'Till rolls',
        totalCents: 12_650,
        outstandingCents: 12_650,
      },
    ],
  };
  await post(
    'books.openingBalances',
    conversion,
    'An organisation that already trades here: CONFLICT, nothing changes (a conversion comes before trading)',
  );
  const joining = await createOrg(db, { name: 'Bay Kitchen', slug: 'bay-kitchen', decisionRights: true });
  const asJoining = (method, params, note) => post(method, params, note, joining.keys.agent);
  const opening = await asJoining(
    'books.openingBalances',
    conversion,
    'The conversion of a business joining: balances as at 30 June 2020, an open invoice and an open bill carried in with their own numbers and dates (one journal); the bill is held, as billCapture would hold it (a new payee)',
  );
  await asJoining(
    'books.openingBalances',
    {
      conversionDate: '2020-06-30',
      accounts: [
        { accountCode: '1000', debitCents: 500 },
        { accountCode: '3000', creditCents: 400 },
      ],
    },
    'Another conversion with other figures: CONFLICT (recorded once per organisation)',
  );
  const [carriedInvoice] = opening.result.invoiceIds;
  const [carriedBill] = opening.result.billIds;

  // A receipt matched to the wrong invoice, then unmatched.
  const receipt = await asJoining(
    'books.feedLines',
    { lines: [{ date: today(), amountCents: 55_000, description: 'DIRECT CREDIT BAY BOOKS OLD-950' }] },
    'A receipt quoting the carried-in invoice number',
  );
  const lineId = receipt.result.lineIds[0];
  await asJoining('books.matchAccept', { lineId, target: { kind: 'invoice', id: carriedInvoice } }, 'Matched to the carried-in invoice');
  await asJoining(
    'books.lineUnmatch',
    { lineId, reason: 'The payment was for another invoice' },
    'Unmatch: the payment journal reversed, the invoice owed again, the line unmatched',
  );

  // A customer's payment bounces.
  const inv = await post(
    'books.invoiceDraft',
    { payeeName: 'Hills Cafe', description: 'Shelving', totalCents: 33_000, dueDays: 14 },
    'An invoice to be paid by cheque',
  );
  await post('books.invoiceSend', { id: inv.result.id }, 'Send it');
  const paid = await post(
    'books.invoiceRecordPayment',
    { id: inv.result.id, amountCents: 33_000, reference: 'CHQ 100412' },
    'Paid by cheque',
  );
  await post(
    'books.invoicePaymentDishonour',
    { id: inv.result.id, paymentId: paid.result.paymentId, reason: 'Cheque dishonoured: refer to drawer' },
    'The cheque bounced: Dr 1100 / Cr 1000, the invoice is owed again',
  );
  // A payment matched from a bank line bounces: named by the match that recorded it.
  const inv2 = await post(
    'books.invoiceDraft',
    { payeeName: 'Hills Cafe', description: 'Benches', totalCents: 22_000, dueDays: 14 },
    'An invoice paid into the bank',
  );
  await post('books.invoiceSend', { id: inv2.result.id }, 'Send it');
  const credit = await post(
    'books.feedLines',
    { lines: [{ date: today(), amountCents: 22_000, description: 'DIRECT CREDIT HILLS CAFE' }] },
    'The payment on the statement',
  );
  const matched = await post(
    'books.matchAccept',
    { lineId: credit.result.lineIds[0], target: { kind: 'invoice', id: inv2.result.id } },
    'Matched to the invoice',
  );
  await post(
    'books.invoicePaymentDishonour',
    { id: inv2.result.id, paymentId: matched.result.match.id, reason: 'Dishonoured by the payer bank' },
    'It bounced: dishonoured by its match id (mat_…), posted as by its payment id',
  );
  await post(
    'books.invoice',
    { id: inv2.result.id },
    'The invoice with its payments: each payment id, date and amount, the bank match that recorded it, and what was undone',
  );

  // The carried-in bill is approved by a human, as any held bill; then a supplier payment comes back.
  const held = await asJoining(
    'books.billApprove',
    { id: carriedBill },
    'The carried-in bill is held (NEW_PAYEE): approving it needs a human',
  );
  const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(held.error.message)?.[1];
  const request = await asJoining(
    'approval.request',
    { actionClass: 'books.bill_approve', payloadHash, subject: { kind: 'books.signature', subjectId: carriedBill } },
    'Ask a human to approve the carried-in bill',
  );
  await decideApproval(db, {
    orgId: joining.orgId,
    approvalId: request.result.approvalId,
    user: { id: joining.owner.userId, role: 'owner' },
    approve: true,
  });
  await asJoining(
    'books.billApprove',
    { id: carriedBill, approvalId: request.result.approvalId },
    'With the proof: approved (the conversion already posted it, so nothing posts again)',
  );
  const out = await asJoining(
    'books.feedLines',
    { lines: [{ date: today(), amountCents: -12_650, description: 'TRANSFER TO PAPER CO PC-881' }] },
    'Paying the carried-in bill',
  );
  const paidBill = await asJoining(
    'books.matchAccept',
    { lineId: out.result.lineIds[0], target: { kind: 'bill', id: carriedBill } },
    'Matched to the bill',
  );
  await asJoining(
    'books.billPaymentReturn',
    { id: carriedBill, paymentId: paidBill.result.match.id, reason: 'INVALID ACCT' },
    'The bank returned it: Dr 1000 / Cr 2000, the bill is payable again',
  );

  // A manual journal posted in error, reversed.
  const j = await post(
    'books.journalPost',
    {
      date: today(),
      memo: 'Accrue cleaning',
      lines: [
        { accountCode: '6000', debitCents: 4_400 },
        { accountCode: '3000', creditCents: 4_400 },
      ],
    },
    'A manual journal',
  );
  await post(
    'books.journalReverse',
    { journalId: j.result.journalId, reason: 'Posted to the wrong account' },
    'Reversed by its mirror journal',
  );
  await post('books.journalReverse', { journalId: j.result.journalId, reason: 'Posted to the wrong account' }, 'Reversing again: a no-op');

  // Bank accounts: an owner adds a credit card (console or `finance-desk bank-account add`).
  const card = await createBankAccount(db, { orgId: org.orgId, actor: '', input: { kind: 'credit_card', name: 'Business Visa' } });
  await post('books.bankAccounts', {}, 'The bank, card and loan accounts with their balances and unreconciled lines');
  const code = card.account.accountCode;
  const from = await post(
    'books.feedLines',
    { lines: [{ date: today(), amountCents: -20_000, description: 'TRANSFER TO VISA' }] },
    'The bank side of a card repayment',
  );
  const into = await post(
    'books.feedLines',
    { accountCode: code, lines: [{ date: today(), amountCents: 20_000, description: 'PAYMENT THANK YOU' }] },
    'The card side, imported into the card account',
  );
  await post(
    'books.transferMatch',
    { fromLineId: from.result.lineIds[0], toLineId: into.result.lineIds[0] },
    'A transfer matched on both sides (through 1300 Bank clearing)',
  );

  // One payout paying an invoice less a fee.
  const sale = await post(
    'books.invoiceDraft',
    { payeeName: 'Bay Books', description: 'Catering, launch', totalCents: 11_000, dueDays: 7 },
    'An invoice paid through a card processor',
  );
  await post('books.invoiceSend', { id: sale.result.id }, 'Send it');
  const payout = await post(
    'books.feedLines',
    { lines: [{ date: today(), amountCents: 10_500, description: 'STRIPE PAYOUT' }] },
    'The payout, net of the fee',
  );
  await post(
    'books.lineSplit',
    {
      lineId: payout.result.lineIds[0],
      parts: [
        { target: { kind: 'invoice', id: sale.result.id }, amountCents: 11_000 },
        { accountCode: '6300', amountCents: -500, description: 'Stripe fee' },
      ],
    },
    'Split: the invoice paid in full, the fee to 6300 Bank fees, in one event',
  );
}
