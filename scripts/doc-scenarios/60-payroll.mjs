// Payroll scenario for docs/methods.md: the active fortnightly employee of
// the people scenario (with 30 hours of approved annual leave from 21 December) is paid by a pay
// run: drafted (nothing posted), signed by a human (hold, approval.request, decision, retry with
// the proof: the journal posts, leave accrues and the approved leave is taken), then recalled
// before its payment date (the journal reversed, the leave restored); the year is finalised for STP
// before the recall, which then shows as an amendment needed. Dates are relative to the
// organisation's today (Australia/Sydney) so the payment date is always ahead.
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const inDays = (n) => {
  const d = new Date(`${today()}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

export async function run({ post, decide }) {
  const end = inDays(40) > '2026-12-21' ? inDays(40) : '2026-12-25';
  const run = { periodStart: inDays(27), periodEnd: end, paymentDate: end, payFrequency: 'fortnightly' };
  await post('books.payrollDraft', { ...run, periodEnd: inDays(20) }, 'A period ending before it starts: refused, naming the field');
  const draft = await post(
    'books.payrollDraft',
    run,
    'Draft the fortnight: gross, PAYG by Schedule 1, super and net per employee; the approved leave is paid',
  );
  await post('books.payrollDraft', run, 'The same draft again: a no-op answering the draft');
  const id = draft.result.id;
  const held = await post('books.payrollSign', { id }, 'Sign: a signature act, held for a human who reads every line');
  const a = held.result.approval;
  const req = await post(
    'approval.request',
    { actionClass: a.actionClass, payloadHash: a.payloadHash, subject: { kind: 'books.signature', subjectId: a.subject.subjectId } },
    'File the pay run for a human decision',
  );
  await decide(req.result.approvalId);
  await post(
    'books.payrollSign',
    { id, approvalId: req.result.approvalId },
    'Retry with the proof: posted, leave accrued and taken, `signed`',
  );
  await post(
    'books.reports',
    { type: 'payroll_activity', from: run.periodStart, to: end },
    'Payroll activity by payment date: gross by earnings type, PAYG, super, net and leave taken, per employee and in total',
  );
  await post(
    'books.reports',
    { type: 'leave_balances', asOf: end },
    "Leave balances as at the payment date, valued at each employee's hourly-equivalent rate",
  );
  await post(
    'books.stpResubmit',
    { payRunId: id, reason: 'The ATO did not acknowledge the pay event' },
    "Send the run's STP pay event again: a new submission, `queued` until the lodgement adapter delivers it",
  );
  // The financial year of the payment date, as the ATO writes it (2026-27).
  const y = Number(end.slice(0, 4)) - (Number(end.slice(5, 7)) >= 7 ? 0 : 1);
  const financialYear = `${y}-${String((y + 1) % 100).padStart(2, '0')}`;
  const fin = await post(
    'books.stpFinalise',
    { financialYear },
    "Finalise STP for the year: held for a human who reads each employee's year-to-date figures",
  );
  if (fin.result?.approval) {
    const f = fin.result.approval;
    const freq = await post(
      'approval.request',
      { actionClass: f.actionClass, payloadHash: f.payloadHash, subject: { kind: 'books.signature', subjectId: f.subject.subjectId } },
      'File the finalisation for a human decision',
    );
    await decide(freq.result.approvalId);
    await post(
      'books.stpFinalise',
      { financialYear, approvalId: freq.result.approvalId },
      'Retry with the proof: the finalisation event queued, the income statements tax ready once lodged',
    );
  }
  await post(
    'books.payrollRecall',
    { id, reason: 'Hours to be corrected before payday' },
    'Recall before the payment date: the journal reversed, leave restored',
  );
  await post('books.stpFinalise', { financialYear }, 'Finalise again after the recall: an amendment, so a reason is required');
  await post('books.stpSubmissions', { limit: 3 }, 'STP submissions, newest first: the finalisation names the employee to amend');
}
