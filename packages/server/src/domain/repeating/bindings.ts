import { repeating } from '@finance-desk/protocol';
import { bind, bindQuery, type MethodBinding } from '../../binding.js';
import { repeatingList, repeatingSet } from './schedules.js';

export const repeatingBindings: readonly MethodBinding[] = [
  bind(repeating.repeatingSet, repeatingSet),
  bindQuery(repeating.repeating, repeatingList),
];
