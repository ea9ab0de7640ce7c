import { limits, type payroll } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { badRequest } from '../../errors.js';
import { placeholders } from '../../storage/sql.js';
import { currentFigures, figuresOf, FINAL_PAYEE_COLUMNS, lastFinalised, sameFigures, type FinalRow } from './stp-finalise.js';
import type { StpKind } from './stp.js';
import { financialYearNamed } from './stp-year.js';

/**
 * books.stpSubmissions: every STP submission newest first (ids are time-ordered), keyset-paged on
 * the id like decision.list. The rows hold no TFN (stp_submissions never has one). A finalisation
 * or amendment that is an employee's newest for its year names that employee in amendmentNeeded
 * when their YTD, its totals or its split by earnings type, has changed since it was reported (a run signed or recalled later): the owner
 * then amends with books.stpFinalise.
 */
type Params = z.infer<typeof payroll.stpSubmissions.params>;

interface SubmissionRow {
  id: string;
  kind: StpKind;
  status: 'queued' | 'lodged';
  pay_run_id: string | null;
  financial_year: string;
  employee_count: number | string;
  reason: string | null;
  created_at: string;
  lodged_at: string | null;
  receipt_file: string | null;
  receipt_sha256: string | null;
}

const COLUMNS = 'id, kind, status, pay_run_id, financial_year, employee_count, reason, created_at, lodged_at, receipt_file, receipt_sha256';

/** For each finalisation or amendment of the page: the employees it reported whose YTD has changed since, when it is their newest. */
async function amendmentsNeeded(ctx: ReadContext, orgId: string, rows: readonly SubmissionRow[]): Promise<Map<string, string[]>> {
  const finals = rows.filter((r) => r.kind === 'finalisation' || r.kind === 'amendment');
  const needed = new Map<string, string[]>();
  if (finals.length === 0) return needed;
  const q = ctx.db.reader;
  const reported = await q.all<FinalRow>(
    `SELECT ${FINAL_PAYEE_COLUMNS} FROM stp_final_payees p WHERE p.org_id = ? AND p.submission_id IN (${placeholders(finals.length)})
     ORDER BY p.submission_id, p.employee_id`,
    [orgId, ...finals.map((r) => r.id)],
  );
  const years = [...new Set(reported.map((r) => r.financial_year))];
  const employees = [...new Set(reported.map((r) => r.employee_id))];
  const newest = await lastFinalised(q, orgId, years, employees);
  const current = new Map<string, Awaited<ReturnType<typeof currentFigures>>>();
  for (const year of years) current.set(year, await currentFigures(q, orgId, employees, financialYearNamed(year)));
  for (const r of reported) {
    if (newest.get(`${r.financial_year} ${r.employee_id}`)?.submission_id !== r.submission_id) continue;
    const now = current.get(r.financial_year)?.get(r.employee_id);
    // The totals or the split by earnings type (stp-finalise.ts sameFigures): either changed needs an amendment.
    if (!now || !sameFigures(figuresOf(r), now.figures))
      needed.set(r.submission_id, [...(needed.get(r.submission_id) ?? []), r.employee_id]);
  }
  return needed;
}

export async function listStpSubmissions(p: Params, ctx: ReadContext): Promise<z.infer<typeof payroll.stpSubmissions.result>> {
  const orgId = ctx.principal.orgId;
  const q = ctx.db.reader;
  if (p.cursor !== undefined && !(await q.get('SELECT id FROM stp_submissions WHERE org_id = ? AND id = ?', [orgId, p.cursor]))) {
    throw badRequest(`cursor: no STP submission ${p.cursor} in this organisation; pass the nextCursor of a previous page`);
  }
  const limit = p.limit ?? limits.pageRowsDefault;
  const where = ['org_id = ?'];
  const args: string[] = [orgId];
  for (const [sql, value] of [
    ['kind = ?', p.kind],
    ['financial_year = ?', p.financialYear],
    ['id < ?', p.cursor],
  ] as const) {
    if (value === undefined) continue;
    where.push(sql);
    args.push(value);
  }
  const rows = await q.all<SubmissionRow>(
    `SELECT ${COLUMNS} FROM stp_submissions WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${limit + 1}`,
    args,
  );
  const page = rows.slice(0, limit);
  const needed = await amendmentsNeeded(ctx, orgId, page);
  return {
    submissions: page.map((r) => ({
      id: r.id,
      kind: r.kind,
      status: r.status,
      payRunId: r.pay_run_id,
      financialYear: r.financial_year,
      employeeCount: Number(r.employee_count),
      reason: r.reason,
      amendmentNeeded: needed.get(r.id) ?? [],
      createdAt: r.created_at,
      lodgedAt: r.lodged_at,
      receipt: r.receipt_file !== null && r.receipt_sha256 !== null ? { fileName: r.receipt_file, sha256: r.receipt_sha256 } : null,
    })),
    nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
  };
}
