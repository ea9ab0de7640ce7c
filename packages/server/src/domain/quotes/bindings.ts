import { quotes } from '@finance-desk/protocol';
import { bind, bindQuery, type MethodBinding } from '../../binding.js';
import { listQuotes, quoteDecide, quoteDraft, quoteSend, readQuote } from './quotes.js';

/** Methods of this area, bound once (see registry.ts). */
export const quotesBindings: readonly MethodBinding[] = [
  bind(quotes.quoteDraft, quoteDraft),
  bind(quotes.quoteSend, quoteSend),
  bind(quotes.quoteDecide, quoteDecide),
  bindQuery(quotes.quotes, listQuotes),
  bindQuery(quotes.quoteRead, readQuote),
];
