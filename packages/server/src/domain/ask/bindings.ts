import { ask } from '@finance-desk/protocol';
import { bindPrepared, type MethodBinding } from '../../binding.js';
import { prepareAnswer, recordAnswer } from './ask.js';

/** books.ask: answered outside the transaction, audited inside it (binding.ts bindPrepared). */
export const askBindings: readonly MethodBinding[] = [bindPrepared(ask.ask, prepareAnswer, recordAnswer)];
