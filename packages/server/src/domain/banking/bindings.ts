import { bankAccounts } from '@finance-desk/protocol';
import { bind, bindQuery, type MethodBinding } from '../../binding.js';
import { bankAccountsRead } from './accounts.js';
import { lineSplit } from './split.js';
import { transferMatch } from './transfer.js';

/** Methods of this area (bank account records, transfers, split lines), bound once (see registry.ts). */
export const bankingBindings: readonly MethodBinding[] = [
  bindQuery(bankAccounts.bankAccounts, bankAccountsRead),
  bind(bankAccounts.transferMatch, transferMatch),
  bind(bankAccounts.lineSplit, lineSplit),
];
