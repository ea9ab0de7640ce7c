import { currencies } from '@finance-desk/protocol';
import { bind, bindQuery, type MethodBinding } from '../../binding.js';
import { exchangeRateSet, listExchangeRates } from './rates.js';
import { currencyRevalue } from './revalue.js';

/** Other currencies (rates.ts), bound once (see registry.ts); foreign documents live in their own areas. */
export const currenciesBindings: readonly MethodBinding[] = [
  bind(currencies.exchangeRateSet, exchangeRateSet),
  bindQuery(currencies.exchangeRates, listExchangeRates),
  bind(currencies.currencyRevalue, currencyRevalue),
];
