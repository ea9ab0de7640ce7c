// Core scenario for docs/methods.md: invoices, dunning with a human approval, bills, board, reads.
export async function run({ post, get, decide }) {
  const inv = await post(
    'books.invoiceDraft',
    { payeeName: 'Bob Smith', payeeEmail: 'bob@example.com', description: 'October catering', totalCents: 110000, dueDays: 14 },
    'Draft an invoice',
  );
  await post('books.invoiceSend', { id: inv.result.id }, 'Send it');
  await post(
    'books.invoiceChaseStep',
    { id: inv.result.id, step: 1, early: true },
    'Step 1 runs at once (early: true, the invoice is not yet due)',
  );
  const hold = await post('books.invoiceChaseStep', { id: inv.result.id, step: 2 }, 'Step 2 without proof: the hold frame');
  const a = hold.result.approval;
  const req = await post(
    'approval.request',
    { actionClass: a.actionClass, payloadHash: a.payloadHash, subject: { kind: 'books.signature', subjectId: a.subject.subjectId } },
    'File the held act for a human decision',
  );
  await get('approval.wait', { approvalId: req.result.approvalId, timeoutMs: '0' }, 'Still pending');
  await decide(req.result.approvalId);
  await get('approval.wait', { approvalId: req.result.approvalId, timeoutMs: '30000' }, 'After a human approved');
  await post('books.invoiceChaseStep', { id: inv.result.id, step: 2, approvalId: req.result.approvalId }, 'Retry with the proof');
  const bill = await post(
    'books.billCapture',
    { payeeName: 'Paper Co', description: 'Till rolls', totalCents: 12650, dueDays: 30 },
    'A first bill from a new payee is held for a human',
  );
  await post('books.billApprove', { id: bill.result.id }, 'Held by the bill-approval rule: a human must approve');
  await post('books.billHold', { id: bill.result.id, reason: 'Quantity disputed' }, 'Park a bill');
  await post('books.billReturn', { id: bill.result.id, reason: 'Billed to the wrong entity' }, 'Return a bill');
  await post(
    'books.billCapture',
    { payeeName: 'Paper Co', description: 'Bad', totalCents: -5, dueDays: 30, currency: 'AUD' },
    'Bad input names every field',
  );
  const task = await post('board.createTask', { title: 'Reconcile October', priority: 'high' }, 'Put a task on the board');
  await post('board.claim', { id: task.result.id }, 'Claim it');
  await post('board.claim', { id: task.result.id }, 'A second claim loses');
  await get('board.ready', {}, 'Unclaimed tasks');
  await get('board.context', { id: task.result.id }, 'One task and its history');
  await get('decision.list', { limit: '5' }, 'Decisions, newest first');
  await get('policy', {}, 'Governance policy');
  await get('snapshot', {}, 'Chain head');
  await get('events', { cursor: '0', limit: '2' }, 'The first page of the ledger');
  await get('org/whoami', { slug: 'harbour-cafe' }, 'Who am I');
  await get('org/self', {}, 'My organisation');
  await get('directory', {}, 'People, agents and keys (no secrets)');
  await get('ops', {}, 'Operational state');
}
