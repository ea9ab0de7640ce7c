import { ACTION_CLASS, payroll, people, type ActionClass } from '@finance-desk/protocol';

/**
 * What each class of act does, in the words an owner would use: the policy page grants decision
 * rights by class, so a class holding several methods' acts names them all.
 */
export const ACT_TITLES: Readonly<Record<ActionClass, string>> = {
  [ACTION_CLASS.payrollSign]: 'Sign a pay run, pay super or finalise Single Touch Payroll',
  [ACTION_CLASS.taxSignLodge]: 'Sign and lodge a business activity statement (BAS)',
  [ACTION_CLASS.billScheduleRun]: 'Release a scheduled payment run',
  [ACTION_CLASS.invoiceChaseStep]: 'Escalate dunning on an unpaid invoice',
  [ACTION_CLASS.onboardingAdvance]: "Issue an employment contract or change an employee's bank account",
  [ACTION_CLASS.matchHoldResolve]: 'Resolve a held bank-feed match',
  [ACTION_CLASS.billApprove]: 'Approve a held bill for payment',
};

/** The acts of a class that holds more than one method, each by its own title. */
const METHOD_TITLES: ReadonlyMap<string, string> = new Map([
  [payroll.payrollSign.name, 'Sign a pay run'],
  [payroll.stpFinalise.name, 'Finalise or amend Single Touch Payroll for a financial year'],
  [payroll.superPay.name, "Pay super guarantee to the employees' funds"],
  [people.onboardingAdvance.name, 'Issue an employment contract'],
  [people.employeeUpdate.name, "Change an employee's net pay bank account"],
]);

/** What one act (a card, an approval email) is titled: its method's own title, else its class's. */
export function actTitle(actionClass: ActionClass, method: string | null | undefined): string {
  return (method ? METHOD_TITLES.get(method) : undefined) ?? ACT_TITLES[actionClass];
}
