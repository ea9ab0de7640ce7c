import { DomainError } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { checkPostable } from '../gl/periods.js';

/**
 * What the credit acts share: the date of money that moved or of an allocation, checked as a
 * payment's is (a date, not in the future, not before what it follows, not in a locked period).
 */
export function creditDate(uow: Uow, date: string | undefined, notBefore: { readonly date: string; readonly what: string } | null): string {
  const d = date ?? uow.today;
  if (d > uow.today) throw new DomainError('BAD_REQUEST', `date: ${d} is in the future (today is ${uow.today})`, { field: 'date' });
  if (notBefore !== null && d < notBefore.date) {
    throw new DomainError('BAD_REQUEST', `date: ${d} is before ${notBefore.what} (${notBefore.date})`, { field: 'date' });
  }
  checkPostable(uow, d, 'date');
  return d;
}

/** A refusal naming `field` with a NOT_FOUND or BAD_REQUEST code. */
export const fieldError = (code: 'NOT_FOUND' | 'BAD_REQUEST', field: string, message: string) =>
  new DomainError(code, `${field}: ${message}`, { field });
