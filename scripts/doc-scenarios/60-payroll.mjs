// Payroll scenario for docs/methods.md: the active fortnightly employee of
// the people scenario (with 30 hours of approved annual leave from 21 December) is paid by a pay
// run: drafted (nothing posted), signed by a human (hold, approval.request, decision, retry with
// the proof: the journal posts, leave accrues and the approved leave is taken), then recalled
// before its payment date (the journal reversed, the leave restored); the year is finalised for STP
// before the recall, which then shows as an amendment needed; then she resigns, and the fortnight
// drafted again is her final pay (books.employeeTerminate); last, a fortnight already paid is
// signed and its super paid to the fund (books.superPay). Dates are relative to the
// organisation's today (Australia/Sydney) so the payment date is always ahead.
import { createBankAccount } from '../../packages/server/dist/domain/banking/accounts.js';

const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const inDays = (n) => {
  const d = new Date(`${today()}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

export async function run({ post, decide, db, org }) {
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
    'books.leaveProvision',
    { asAt: today() },
    "The annual leave provision as at today: 2350 brought to the employees' annual leave liability, the difference posted Dr 6150 / Cr 2350",
  );
  await post('books.leaveProvision', { asAt: today() }, 'The same date again: nothing to post, a no-op');
  await post('books.leaveProvision', { asAt: inDays(1) }, 'A date in the future: refused, naming the field');
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
  // Her last day falls in the recalled fortnight: recorded, that fortnight drafted again is her final pay.
  const employeeId = draft.result.lines[0].employeeId;
  const last = inDays(33);
  await post(
    'books.employeeTerminate',
    { employeeId, terminationDate: last, reason: 'redundancy', employmentTerminationPaymentCents: 1_000_000 },
    'A redundancy with a severance payment: refused, naming the field (employment termination payments are not modelled)',
  );
  await post(
    'books.employeeTerminate',
    { employeeId, terminationDate: last, reason: 'voluntary', leaveLoadingPercent: 17.5 },
    'A resignation with her last day in the fortnight: recorded, nothing paid until the final pay run is signed',
  );
  await post(
    'books.payrollDraft',
    run,
    'The fortnight drafted again is her final pay: ordinary pay to her last day, the unused annual leave and 17.5% loading, PAYG on it, no super on it',
  );
  // Super: a fortnight whose wages are already paid, its super then paid to the fund from a bank
  // account record an owner added (console or `finance-desk bank-account add`).
  const paid = { periodStart: inDays(-20), periodEnd: inDays(-7), paymentDate: inDays(-7), payFrequency: 'fortnightly' };
  const past = await post('books.payrollDraft', paid, 'A fortnight already paid, drafted to be signed');
  const pastHeld = await post('books.payrollSign', { id: past.result.id }, 'Sign it: held for a human');
  const ps = pastHeld.result.approval;
  const psReq = await post(
    'approval.request',
    { actionClass: ps.actionClass, payloadHash: ps.payloadHash, subject: { kind: 'books.signature', subjectId: ps.subject.subjectId } },
    'File the pay run for a human decision',
  );
  await decide(psReq.result.approvalId);
  await post('books.payrollSign', { id: past.result.id, approvalId: psReq.result.approvalId }, 'Retry with the proof: signed');
  const superAccount = await createBankAccount(db, {
    orgId: org.orgId,
    actor: '',
    input: { kind: 'bank', name: 'Super payments', bsb: '062-000', accountNumber: '12345678' },
  });
  const pay = { payRunIds: [past.result.id], paymentDate: today(), fundingAccountId: superAccount.account.id };
  await post('books.superPay', { ...pay, through: today() }, 'Both payRunIds and through: refused, naming the field');
  const superHeld = await post(
    'books.superPay',
    pay,
    "Pay the run's super: held for a human who reads each fund with its amount and employees, and the paying account",
  );
  const sp = superHeld.result.approval;
  const spReq = await post(
    'approval.request',
    { actionClass: sp.actionClass, payloadHash: sp.payloadHash, subject: { kind: 'books.signature', subjectId: sp.subject.subjectId } },
    'File the super payment for a human decision',
  );
  await decide(spReq.result.approvalId);
  await post(
    'books.superPay',
    { ...pay, approvalId: spReq.result.approvalId },
    'Retry with the proof: Dr 2300 / Cr the bank account, one contribution file per fund',
  );
  await post('books.superPay', pay, 'The same runs, date and account again: a no-op answering the payment');
  await post(
    'books.superPay',
    { ...pay, payRunIds: undefined, through: today() },
    'Through today: every other signed run whose super is still wholly owed; CONFLICT when nothing is',
  );
  await post('books.taxObligations', { from: paid.paymentDate, to: paid.paymentDate }, 'The run reads paid, by the super payment');
}
