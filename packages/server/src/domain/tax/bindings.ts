import { tax } from '@finance-desk/protocol';
import { bind, bindSignature, bindQuery, type MethodBinding } from '../../binding.js';
import * as bas from './bas.js';
import { taxSignLodge } from './lodge.js';
import { taxObligations } from './obligations.js';

/** Methods of this area (tax: the BAS), bound once (see registry.ts). */
export const taxBindings: readonly MethodBinding[] = [
  bind(tax.taxPrepare, bas.taxPrepare),
  bind(tax.taxHold, bas.taxHold),
  bind(tax.taxReturn, bas.taxReturn),
  bindSignature(taxSignLodge),
  bindQuery(tax.taxObligations, taxObligations),
];
