/**
 * The words bank lines are matched to documents and journals by (suggest.ts scores them; the
 * kept lookup tables of document-words.ts and bank-journal-words.ts store them). Apart, with no
 * imports, so that posting a journal (gl/post.ts) can compute them without loading the
 * matching code.
 */

// Words of company names and of journal memos ("Payment of bill … to …") that say nothing about who.
const STOP = new Set([
  'PTY',
  'LTD',
  'LIMITED',
  'THE',
  'AND',
  'INC',
  'TRUST',
  'TRUSTEE',
  'FOR',
  'PAYMENT',
  'BILL',
  'INVOICE',
  'FROM',
  'RUN',
  'ABA',
  'EXPENSE',
  'CLAIM',
  'PAY',
  'INV',
]);

/** Upper case, anything but letters and digits a space, single spaces, padded for whole-word search. */
export const words = (s: string) =>
  ` ${s
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim()} `;

/** What a document is known by: the fields its words come from. */
export interface Named {
  readonly id: string;
  readonly party: string;
  readonly reference: string;
  /** Other words a line may quote for it (an invoice's number, a document's own reference). */
  readonly quoted: readonly string[];
}

export function refsAndTokens(t: Named): { refs: string[]; tokens: string[] } {
  // Names are words; tokens with digits are ids and numbers (a journal memo names inv_…, pay_…).
  const tokens = [...new Set(words(t.party).trim().split(' '))].filter((w) => w.length >= 3 && !STOP.has(w) && !/\d/.test(w));
  // And what a payer quotes for it (INV-0042, its reference), as words, so INV-0042
  // matches "inv 0042" but not INV-00421; and run together (INV0042), as payers often write it.
  const compact = t.quoted.map((w) => w.replace(/[^A-Za-z0-9]+/g, ''));
  const refs = [...new Set([t.id, t.reference, ...t.quoted, ...compact].map(words))].filter((r) => r.trim().length >= 3);
  return { refs, tokens };
}

/**
 * The words a line must contain for score() to find a reference or payee in it: the payee's
 * words, and each reference's longest word (every line quoting the reference has that word, and
 * it is rarer than a first word such as INV, which every invoice number and id shares). The keys
 * of the in-memory index and of the stored one (document-words.ts).
 */
export function lookupWords(t: Named): string[] {
  const { refs, tokens } = refsAndTokens(t);
  return keysOf(refs, tokens);
}

export function keysOf(refs: readonly string[], tokens: readonly string[]): string[] {
  return [
    ...new Set([
      ...tokens,
      ...refs.map((r) =>
        r
          .trim()
          .split(' ')
          .reduce((a, b) => (b.length > a.length ? b : a), ''),
      ),
    ]),
  ];
}
