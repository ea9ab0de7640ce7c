import { limits, type people } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { orgToday } from '../../clock.js';
import { badRequest } from '../../errors.js';
import { employeeToday, loadChanges } from './employee-terms.js';
import { EMPLOYEE_COLUMNS, type EmployeeRow } from './employees.js';
import { leaveBalances } from './leave-ledger.js';

/**
 * books.employees: employees oldest first (ids are time-ordered), paged by id, each with its leave
 * balances and the terms in force today (employee-terms.ts). The TFN and bank account number are
 * masked (employees.ts toEmployee).
 */
type Params = z.infer<typeof people.employees.params>;

export async function listEmployees(p: Params, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  const q = ctx.db.reader;
  if (p.cursor !== undefined && !(await q.get('SELECT id FROM employees WHERE org_id = ? AND id = ?', [orgId, p.cursor]))) {
    throw badRequest(`cursor: no employee ${p.cursor} in this organisation; pass the nextCursor of a previous page`);
  }
  const limit = p.limit ?? limits.pageRowsDefault;
  const where = ['org_id = ?'];
  const args: string[] = [orgId];
  if (p.status !== undefined) {
    where.push('status = ?');
    args.push(p.status);
  }
  if (p.cursor !== undefined) {
    where.push('id > ?');
    args.push(p.cursor);
  }
  const rows = await q.all<EmployeeRow>(
    `SELECT ${EMPLOYEE_COLUMNS} FROM employees WHERE ${where.join(' AND ')} ORDER BY id LIMIT ${limit + 1}`,
    args,
  );
  const page = rows.slice(0, limit);
  const ids = page.map((r) => r.id);
  const [today, balances, changes] = await Promise.all([orgToday(ctx.db, orgId), leaveBalances(q, orgId, ids), loadChanges(q, orgId, ids)]);
  const zero = { balanceMilliHours: 0, approvedMilliHours: 0, requestedMilliHours: 0, availableMilliHours: 0 };
  return {
    employees: page.map((r) => ({
      ...employeeToday(r, changes.get(r.id) ?? [], today),
      leave: balances.get(r.id) ?? { annual: zero, personal: zero },
    })),
    nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
  };
}
