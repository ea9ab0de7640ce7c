import { ACTION_CLASS, type ActionClass } from '@finance-desk/protocol';

/** What each class of act does, in the words an owner would use. */
export const ACT_TITLES: Readonly<Record<ActionClass, string>> = {
  [ACTION_CLASS.payrollSign]: 'Sign a pay run',
  [ACTION_CLASS.taxSignLodge]: 'Sign and lodge a business activity statement (BAS)',
  [ACTION_CLASS.billScheduleRun]: 'Release a scheduled payment run',
  [ACTION_CLASS.invoiceChaseStep]: 'Escalate dunning on an unpaid invoice',
  [ACTION_CLASS.onboardingAdvance]: 'Issue an employment contract',
  [ACTION_CLASS.matchHoldResolve]: 'Resolve a held bank-feed match',
  [ACTION_CLASS.billApprove]: 'Approve a held bill for payment',
};
