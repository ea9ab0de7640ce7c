import { books, payables } from '@finance-desk/protocol';
import { bind, bindSignature, bindQuery, type MethodBinding } from '../../binding.js';
import * as claims from '../expenses/claims.js';
import * as bills from './bills.js';
import { listBills } from './bills-read.js';
import { billScheduleRun } from './run.js';
import { billRecordPayment } from './fx-payment.js';

/** Methods of this area (payables and expenses), bound once (see registry.ts). */
export const payablesBindings: readonly MethodBinding[] = [
  bind(books.billCapture, bills.billCapture),
  bindSignature(bills.billApprove),
  bind(books.billHold, bills.billHold),
  bind(books.billReturn, bills.billReturn),
  bindSignature(billScheduleRun),
  bindQuery(payables.bills, listBills),
  bind(payables.billRecordPayment, billRecordPayment),
  bind(payables.expenseClaim, claims.expenseClaim),
  bind(payables.expenseApprove, claims.expenseApprove),
  bind(payables.expenseReject, claims.expenseReject),
];
