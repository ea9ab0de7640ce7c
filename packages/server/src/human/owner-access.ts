import type { UserRole } from '@finance-desk/protocol';

/**
 * Who may open the owner's read-only view of the books: owners and approvers,
 * the people who decide and so need to see the books they decide on. A bookkeeper is refused
 * (403): the view is oversight of what the agents do, not a working tool. Its own module so the
 * page chrome (html.ts) can show the nav entry only to them without importing the domain reads.
 */
export const OWNER_VIEW_ROLES: readonly UserRole[] = ['owner', 'approver'];

export function mayViewBooks(role: UserRole): boolean {
  return OWNER_VIEW_ROLES.includes(role);
}
