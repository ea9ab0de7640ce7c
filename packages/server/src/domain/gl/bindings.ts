import { chart } from '@finance-desk/protocol';
import { bind, type MethodBinding } from '../../binding.js';
import { accountArchive, accountCreate, accountUpdate } from './accounts.js';
import { budgetSet } from '../reports/budgets.js';
import { trackingSet } from '../tracking/set.js';

/** The organisation's own chart (accounts.ts), bound once (see registry.ts); books.accounts lists it. */
export const chartBindings: readonly MethodBinding[] = [
  bind(chart.accountCreate, accountCreate),
  bind(chart.accountUpdate, accountUpdate),
  bind(chart.accountArchive, accountArchive),
  bind(chart.budgetSet, budgetSet),
  bind(chart.trackingSet, trackingSet),
];
