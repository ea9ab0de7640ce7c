import { credits } from '@finance-desk/protocol';
import { bind, type MethodBinding } from '../../binding.js';
import { creditAllocate } from './allocate.js';
import { billCreditNote } from './bill-credit-note.js';
import { creditPrepayment } from './prepayment.js';
import { creditRefund } from './refund.js';

/** Methods of this area, bound once (see registry.ts); contacts.list lists the credits. */
export const creditsBindings: readonly MethodBinding[] = [
  bind(credits.billCreditNote, billCreditNote),
  bind(credits.creditPrepayment, creditPrepayment),
  bind(credits.creditAllocate, creditAllocate),
  bind(credits.creditRefund, creditRefund),
];
