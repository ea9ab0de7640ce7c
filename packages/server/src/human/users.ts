import { events, USER_ROLES, type UserRole } from '@finance-desk/protocol';
import { DomainError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Database, Queryable } from '../storage/types.js';
import { inUnitOfWork } from '../write-path.js';
import { generatePassword, hashPassword } from '../org/passwords.js';
import { isEmail } from '../org/email-address.js';
import { displayNameProblem } from '../governance/actor-name.js';

/** People on the human lane: owner, approver, bookkeeper. Passwords are scrypt hashes. */
export interface UserRow {
  id: string;
  org_id: string;
  email: string;
  role: UserRole;
  password_hash: string;
}

export async function userByEmail(q: Queryable, orgId: string, email: string): Promise<UserRow | undefined> {
  return q.get<UserRow>('SELECT id, org_id, email, role, password_hash FROM users WHERE org_id = ? AND email = ?', [
    orgId,
    email.trim().toLowerCase(),
  ]);
}

export async function userById(q: Queryable, orgId: string, id: string): Promise<UserRow> {
  const row = await q.get<UserRow>('SELECT id, org_id, email, role, password_hash FROM users WHERE org_id = ? AND id = ?', [orgId, id]);
  if (!row) throw notFound('user', id);
  return row;
}

/** Add a user (CLI `user add`), with the name the console shows for them; event `org` / `user.added` (never the password). */
export async function addUser(
  db: Database,
  input: { orgId: string; email: string; role: string; password?: string; name?: string },
): Promise<{ userId: string; email: string; role: UserRole; password: string; name: string | null }> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) throw new DomainError('BAD_REQUEST', 'email: must be an email address');
  const nameProblem = input.name === undefined ? null : displayNameProblem('name', input.name);
  if (nameProblem) throw new DomainError('BAD_REQUEST', nameProblem);
  const name = input.name === undefined ? null : input.name.trim();
  if (!(USER_ROLES as readonly string[]).includes(input.role)) {
    throw new DomainError('BAD_REQUEST', `role: must be one of ${USER_ROLES.join(', ')}`);
  }
  const password = input.password ?? generatePassword();
  if (password.length < 12) throw new DomainError('WEAK_SECRET', 'password: must be at least 12 characters');
  const hash = await hashPassword(password);
  const userId = newId('usr');
  await inUnitOfWork(db, input.orgId, '', async (uow) => {
    if (await userByEmail(uow.tx, uow.orgId, email)) throw new DomainError('CONFLICT', `user ${email} already exists`);
    await uow.tx.run('INSERT INTO users (id, org_id, email, role, password_hash, created_at, name) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      userId,
      uow.orgId,
      email,
      input.role,
      hash,
      uow.now,
      name,
    ]);
    await uow.emit(events.userAdded, {
      entityId: userId,
      payload: { userId, email, role: input.role as UserRole, ...(name === null ? {} : { name }) },
    });
    return {};
  });
  return { userId, email, role: input.role as UserRole, password, name };
}
