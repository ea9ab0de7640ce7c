// Tax scenario for docs/methods.md: the BAS of the last quarter that has ended, prepared from two
// manual journals dated in it, held, returned, signed by a human and lodged through the
// lodgement adapter; then the obligations. docs/books.md "Tax (BAS)" explains the postings.
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
/** The last BAS quarter (Jul–Sep, Oct–Dec, Jan–Mar, Apr–Jun) that ended before today. */
function lastQuarter() {
  const [y, m] = today().split('-').map(Number);
  const startMonth = Math.floor((m - 1) / 3) * 3 + 1 - 3;
  const sy = startMonth < 1 ? y - 1 : y;
  const sm = startMonth < 1 ? startMonth + 12 : startMonth;
  const end = new Date(Date.UTC(sy, sm + 2, 0)).toISOString().slice(0, 10);
  return { periodStart: `${sy}-${String(sm).padStart(2, '0')}-01`, periodEnd: end };
}

export async function run({ post, decide }) {
  const q = lastQuarter();
  const mid = `${q.periodStart.slice(0, 8)}15`;
  await post(
    'books.journalPost',
    {
      date: mid,
      memo: 'Catering sales banked',
      lines: [
        { accountCode: '1000', debitCents: 1_237_550 },
        { accountCode: '4000', creditCents: 1_237_550, taxCode: 'GST' },
      ],
    },
    'A GST sale in the last quarter (for the BAS below)',
  );
  await post(
    'books.journalPost',
    {
      date: mid,
      memo: 'Coffee machine',
      lines: [
        { accountCode: '1500', debitCents: 275_000, taxCode: 'GST_ON_CAPITAL' },
        { accountCode: '1000', creditCents: 275_000 },
      ],
    },
    'A capital purchase in the last quarter',
  );
  const bas = await post('books.taxPrepare', q, 'Prepare the BAS of the last quarter from the ledger');
  await post('books.taxPrepare', q, 'Again: a no-op returning it');
  await post(
    'books.taxPrepare',
    { periodStart: q.periodStart, periodEnd: `${q.periodStart.slice(0, 8)}20` },
    'A period that is not whole months: BAD_REQUEST',
  );
  await post('books.taxPrepare', { ...q, basis: 'cash' }, 'The same period on the cash basis while the accrual BAS is prepared: CONFLICT');
  const id = bas.result.id;
  await post('books.taxHold', { id, reason: 'Check the coffee machine is a capital purchase' }, 'Hold it');
  await post('books.taxSignLodge', { id }, 'A held BAS cannot be signed: CONFLICT');
  await post('books.taxReturn', { id, reason: 'Checked: capital' }, 'Back to prepared, labels recomputed (a new act every call)');
  const held = await post('books.taxSignLodge', { id }, 'Sign and lodge: held for a human, who reads every label and the net');
  const a = held.result.approval;
  const req = await post(
    'approval.request',
    { actionClass: a.actionClass, payloadHash: a.payloadHash, subject: { kind: 'books.signature', subjectId: id } },
    'File the hold for a human',
  );
  await decide(req.result.approvalId);
  await post(
    'books.taxSignLodge',
    { id, approvalId: req.result.approvalId },
    'With the proof: settlement posted, lodging until the adapter confirms',
  );
  await post('books.taxObligations', {}, 'Obligations: each BAS with its due date, status and signed amount');
}
