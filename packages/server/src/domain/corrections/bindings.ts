import { corrections } from '@finance-desk/protocol';
import { bind, type MethodBinding } from '../../binding.js';
import { billPaymentReturn } from './bill-return.js';
import { invoicePaymentDishonour } from './dishonour.js';
import { journalReverse } from './journal-reverse.js';
import { openingBalances } from './opening-balances.js';
import { lineUnmatch } from './unmatch.js';

/** Opening balances and corrections, bound once. */
export const correctionsBindings: readonly MethodBinding[] = [
  bind(corrections.openingBalances, openingBalances),
  bind(corrections.lineUnmatch, lineUnmatch),
  bind(corrections.invoicePaymentDishonour, invoicePaymentDishonour),
  bind(corrections.billPaymentReturn, billPaymentReturn),
  bind(corrections.journalReverse, journalReverse),
];
