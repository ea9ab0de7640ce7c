// People scenario for docs/methods.md: onboard an employee through the tax
// declaration, super fund and the contract (a signature act: hold, approval.request, a human's
// decision, retry with the proof), change her terms from a date (a new bank account is held for a
// human), request and approve leave, and read the employees with their leave balances. 876543210
// is a sample TFN that passes the ATO check digit; every answer and event carries it masked.
export async function run({ post, decide }) {
  const emp = await post(
    'books.onboardingStart',
    {
      name: 'Aroha Ngata',
      email: 'aroha@harbour-cafe.example',
      startDate: '2026-07-01',
      employmentBasis: 'full_time',
      payFrequency: 'fortnightly',
      annualSalaryCents: 7_280_000,
      bsb: '062-703',
      accountNumber: '11223344',
      accountName: 'Aroha Ngata',
    },
    'A salaried full-time employee, paid fortnightly, with bank details',
  );
  await post(
    'books.onboardingStart',
    {
      name: 'Ben Castellano',
      email: 'ben@harbour-cafe.example',
      startDate: '2026-07-01',
      employmentBasis: 'full_time',
      payFrequency: 'weekly',
      annualSalaryCents: 6_000_000,
      hourlyRateCents: 3_250,
    },
    'Both salary and hourly rate: refused, naming the field',
  );
  const id = emp.result.id;
  await post(
    'books.onboardingAdvance',
    { id, step: 'super', fundName: 'AustralianSuper', fundAbn: '65 714 394 898', memberNumber: 'M-123456' },
    'Out of order: CONFLICT names the next step',
  );
  await post(
    'books.onboardingAdvance',
    { id, step: 'tax_declaration', taxFileNumber: '876543211', residency: 'resident', claimsTaxFreeThreshold: true },
    'A TFN failing the check digit: refused, the number not repeated',
  );
  await post(
    'books.onboardingAdvance',
    { id, step: 'tax_declaration', taxFileNumber: '876543210', residency: 'resident', claimsTaxFreeThreshold: true },
    'The tax declaration: the TFN is stored, answered masked; Scale 2',
  );
  await post(
    'books.onboardingAdvance',
    { id, step: 'super', fundName: 'AustralianSuper', fundAbn: '65 714 394 898', memberNumber: 'M-123456' },
    'The super fund (ABN checked)',
  );
  const contract = { id, step: 'contract', title: 'Head barista' };
  const held = await post('books.onboardingAdvance', contract, 'The contract: a signature act, held for a human');
  const a = held.result.approval;
  const req = await post(
    'approval.request',
    { actionClass: a.actionClass, payloadHash: a.payloadHash, subject: { kind: 'books.signature', subjectId: a.subject.subjectId } },
    'File the contract for a human decision',
  );
  await decide(req.result.approvalId);
  await post('books.onboardingAdvance', { ...contract, approvalId: req.result.approvalId }, 'Retry with the proof: the employee is active');
  await post('books.onboardingAdvance', contract, 'The same step again: a no-op');
  await post('books.employeeUpdate', { id, annualSalaryCents: 7_800_000 }, 'A pay rise without effectiveFrom: refused, naming the field');
  await post(
    'books.employeeUpdate',
    { id, effectiveFrom: '2027-07-01', annualSalaryCents: 7_800_000, title: 'Cafe manager' },
    "A pay rise and a new title from 1 July: recorded, pending until then (the terms shown are today's)",
  );
  await post(
    'books.employeeUpdate',
    { id, bsb: '033-001', accountNumber: '99887766', accountName: 'Aroha Ngata' },
    'A new net pay bank account: held for a human, the account that was and the one that is now in full',
  );
  const leave = await post(
    'books.leaveRequest',
    { employeeId: id, leaveType: 'annual', startDate: '2026-12-21', endDate: '2026-12-24', hours: 30 },
    'Leave above the balance: accepted with a warning',
  );
  await post('books.leaveApprove', { id: leave.result.id }, 'Approve the leave');
  await post('books.employees', { status: 'active' }, 'Employees with masked TFN, tax scale and leave balances');
}
