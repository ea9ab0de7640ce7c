import { invariant } from '../../errors.js';
import { shareByLargestRemainder } from '../receivables/invoice-lines.js';

/**
 * How a note (an invoice's credit note, a bill's adjustment note) is shared: over the accounts of
 * its tax code's lines in proportion to what is left to credit on each, and, when it goes beyond
 * what the document owes, into the part that settles the document and the part that becomes the
 * contact's credit. Integer cents by largest remainder throughout.
 */

/** A share of a note: the account it reverses, its GST-inclusive amount and GST. */
export interface NotePart {
  readonly accountCode: string;
  readonly amountCents: number;
  readonly gstCents: number;
}

/** What is left to credit of one code: in all, and per account. */
export interface LeftToCredit {
  readonly amountCents: number;
  readonly gstCents: number;
  readonly accounts: readonly NotePart[];
}

/**
 * Share a note over the accounts with something left; the note that clears the code takes
 * exactly what is left on each account.
 */
export function shareOverAccounts(left: LeftToCredit, amountCents: number, gstCents: number): NotePart[] {
  const open = left.accounts.filter((a) => a.amountCents > 0);
  const exact = amountCents === left.amountCents && left.accounts.every((a) => a.amountCents >= 0 && a.gstCents >= 0);
  if (exact && gstCents === left.gstCents) return open;
  const amounts = shareByLargestRemainder(
    amountCents,
    open.map((a) => a.amountCents),
  );
  const gsts = gstCents === 0 ? amounts.map(() => 0) : shareByLargestRemainder(gstCents, amounts);
  return open
    .map((a, i) => ({ accountCode: a.accountCode, amountCents: amounts[i] ?? 0, gstCents: gsts[i] ?? 0 }))
    .filter((x) => x.amountCents > 0);
}

/**
 * Split a note's parts into what settles the document and what goes beyond it (`excess` cents
 * carrying `excessGst`), each account's share by largest remainder; parts of zero are dropped.
 */
export function splitParts(parts: readonly NotePart[], excess: number, excessGst: number): [NotePart[], NotePart[]] {
  const amounts = shareByLargestRemainder(
    excess,
    parts.map((x) => x.amountCents),
  );
  // The GST goes where the amounts go, never more on an account than that account's part carries.
  const gsts = excessGst === 0 ? parts.map(() => 0) : shareByLargestRemainder(excessGst, amounts);
  let over = 0;
  parts.forEach((x, i) => {
    const extra = Math.max((gsts[i] ?? 0) - x.gstCents, 0);
    gsts[i] = (gsts[i] ?? 0) - extra;
    over += extra;
  });
  parts.forEach((x, i) => {
    const room = Math.min(x.gstCents - (gsts[i] ?? 0), (amounts[i] ?? 0) - (gsts[i] ?? 0), over);
    if (room > 0) {
      gsts[i] = (gsts[i] ?? 0) + room;
      over -= room;
    }
  });
  invariant(over === 0, 'the GST beyond what was owed fits the parts that carry it');
  const beyond = parts.map((x, i) => ({ accountCode: x.accountCode, amountCents: amounts[i] ?? 0, gstCents: gsts[i] ?? 0 }));
  const within = parts.map((x, i) => ({
    accountCode: x.accountCode,
    amountCents: x.amountCents - (beyond[i]?.amountCents ?? 0),
    gstCents: x.gstCents - (beyond[i]?.gstCents ?? 0),
  }));
  return [within.filter((x) => x.amountCents > 0), beyond.filter((x) => x.amountCents > 0)];
}
