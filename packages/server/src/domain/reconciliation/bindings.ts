import { reconciliation } from '@finance-desk/protocol';
import { bind, bindSignature, bindQuery, type MethodBinding } from '../../binding.js';
import { feedLines } from './feed-import.js';
import { feedLinesList } from './feed-read.js';
import { journalPost } from './journal-post.js';
import { matchAccept, matchHoldResolve } from './match.js';
import { receiptsRegister } from './receipts.js';
import { lineRecode } from './recode.js';

/** Methods of this area, bound once (see registry.ts). */
export const reconciliationBindings: readonly MethodBinding[] = [
  bind(reconciliation.feedLines, feedLines),
  bindQuery(reconciliation.feedLinesList, feedLinesList),
  bind(reconciliation.matchAccept, matchAccept),
  bindSignature(matchHoldResolve),
  bind(reconciliation.receiptsRegister, receiptsRegister),
  bind(reconciliation.lineRecode, lineRecode),
  bind(reconciliation.journalPost, journalPost),
];
