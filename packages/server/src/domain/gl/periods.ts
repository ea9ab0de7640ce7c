import { DomainError } from '../../errors.js';
import type { Uow } from '../../write-path.js';

/**
 * Open and locked periods. An owner sets the organisation's lock date; nothing
 * posts on or before it: no document dated then, no journal, no recode, no match, no reversal.
 * Every entry point checks its own date with `checkPostable`, naming the field the caller gave;
 * `postJournal` checks again as the backstop, so no path can post into a locked period.
 */
export function lockedMessage(date: string, lockDate: string): string {
  return `is ${date}, on or before the lock date ${lockDate}: the books are locked up to and including it (an owner can move the lock date)`;
}

/**
 * Refuse `date` (the value of param `field`) when it falls on or before the lock date, or on or
 * before the conversion date (the opening balances are the books as at that day;
 * a posting dated then would change them behind the conversion's back).
 */
export function checkPostable(uow: Pick<Uow, 'lockDate'> & { readonly conversionDate?: string | null }, date: string, field: string): void {
  if (uow.lockDate !== null && date <= uow.lockDate) {
    throw new DomainError('BAD_REQUEST', `${field} ${lockedMessage(date, uow.lockDate)}`, { field });
  }
  const conversion = uow.conversionDate ?? null;
  if (conversion !== null && date <= conversion) {
    throw new DomainError(
      'BAD_REQUEST',
      `${field} is ${date}, on or before the conversion date ${conversion}: the opening balances carry the books up to and including it`,
      { field },
    );
  }
}

/**
 * A document's issue date: `issueDate` when given — not in the future, not on
 * or before the lock date — else today (which must itself be after the lock date).
 */
export function issueDateOf(
  uow: Pick<Uow, 'lockDate' | 'today'> & { readonly conversionDate?: string | null },
  issueDate: string | undefined,
  field = 'issueDate',
): string {
  const date = issueDate ?? uow.today;
  if (date > uow.today) {
    throw new DomainError('BAD_REQUEST', `${field} must not be in the future (today is ${uow.today})`, { field });
  }
  checkPostable(uow, date, field);
  return date;
}
