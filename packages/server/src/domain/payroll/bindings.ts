import { payroll } from '@finance-desk/protocol';
import { bind, bindQuery, bindSignature, type MethodBinding } from '../../binding.js';
import { payrollDraft } from './draft.js';
import { leaveProvision } from './leave-provision.js';
import { payrollRecall } from './recall.js';
import { payrollSign } from './sign.js';
import { stpResubmit } from './stp.js';
import { stpFinalise } from './stp-finalise.js';
import { listStpSubmissions } from './stp-read.js';
import { superPay } from './super-pay.js';

/** Methods of this area (pay runs: draft, the signature act, recall; STP resubmission, finalisation, submissions; super payments), bound once (registry.ts). */
export const payrollBindings: readonly MethodBinding[] = [
  bind(payroll.payrollDraft, payrollDraft),
  bindSignature(payrollSign),
  bind(payroll.payrollRecall, payrollRecall),
  bind(payroll.stpResubmit, stpResubmit),
  bindSignature(stpFinalise),
  bindQuery(payroll.stpSubmissions, listStpSubmissions),
  bindSignature(superPay),
  bind(payroll.leaveProvision, leaveProvision),
];
