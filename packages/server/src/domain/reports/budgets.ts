import { events, type chart } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, invariant, notFound } from '../../errors.js';
import { placeholders, queueMany } from '../../storage/sql.js';
import type { Uow } from '../../write-path.js';
import { monthEnd, yearMonths } from './budget-report.js';

/**
 * books.budgetSet: one budget per organisation and financial year, twelve monthly figures per
 * revenue or expense account, stored by calendar month (migration-budgets.ts). A line replaces
 * the account's twelve months; accounts not named keep theirs. Balance-sheet accounts take no
 * budget: their actual is a balance, not a month's flow, so actual − budget would mean nothing
 * beside the profit and loss (a cash budget is another report). Budgets post nothing, so the
 * lock date does not bind them.
 */
type Params = z.infer<typeof chart.budgetSet.params>;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

interface AccountRow {
  code: string;
  name: string;
  type: string;
  archived_at: string | null;
}

interface StoredRow {
  code: string;
  month: string;
  cents: unknown;
  ledger_id: string;
  seq: unknown;
}

const isBudgetType = (type: string): type is 'revenue' | 'expense' => type === 'revenue' || type === 'expense';

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** Why `start` is not the first day of one of this organisation's financial years, or null. */
function yearStartProblem(start: string, startMonth: number): string | null {
  const month = Number(start.slice(5, 7));
  const example = `${start.slice(0, 4)}-${String(startMonth).padStart(2, '0')}-01`;
  if (!start.endsWith('-01') || month !== startMonth) {
    return `must be the first day of a financial year; this organisation's years start on 1 ${MONTHS[startMonth - 1] ?? ''} (${example})`;
  }
  // The year's twelve months must still be four-digit years.
  if (Number(start.slice(0, 4)) * 12 + month - 1 + 11 > 9999 * 12 + 11) return 'the year must end by December 9999';
  return null;
}

export async function budgetSet(p: Params, uow: Uow) {
  const org = await uow.tx.get<{ fy_start_month: unknown }>('SELECT fy_start_month FROM organisations WHERE id = ?', [uow.orgId]);
  if (!org) throw notFound('organisation', uow.orgId);
  const yearProblem = yearStartProblem(p.financialYearStart, Number(org.fy_start_month));
  if (yearProblem) throw badRequest(`financialYearStart: ${yearProblem}`);
  const months = yearMonths(p.financialYearStart);
  const first = months[0] ?? '';
  const last = months[11] ?? '';
  const codes = p.lines.map((l) => l.accountCode);

  const accounts = new Map(
    (
      await uow.tx.all<AccountRow>(
        `SELECT code, name, type, archived_at FROM accounts WHERE org_id = ? AND code IN (${placeholders(codes.length)})`,
        [uow.orgId, ...codes],
      )
    ).map((r) => [r.code, r]),
  );
  const problems: string[] = [];
  p.lines.forEach((l, i) => {
    const field = `lines[${i}].accountCode`;
    const a = accounts.get(l.accountCode);
    if (!a) problems.push(`${field}: account ${l.accountCode} does not exist`);
    else if (!isBudgetType(a.type)) {
      problems.push(`${field}: account ${a.code} (${a.name}) is ${article(a.type)} account; budgets are for revenue and expense accounts`);
    } else if (a.archived_at !== null && l.monthlyCents.some((c) => c !== 0)) {
      problems.push(`${field}: account ${a.code} (${a.name}) is archived; it takes only twelve zeros, which remove its budget`);
    }
  });
  if (problems.length > 0) throw badRequest(problems.join('; '));

  const stored = await uow.tx.all<StoredRow>(
    `SELECT account_code AS code, month, amount_cents AS cents, ledger_id, seq FROM budget_months
     WHERE org_id = ? AND month >= ? AND month <= ? AND account_code IN (${placeholders(codes.length)})`,
    [uow.orgId, first, last, ...codes],
  );
  const previous = new Map(codes.map((c) => [c, months.map(() => 0)]));
  let latest: { seq: number; ledgerId: string } | null = null;
  for (const r of stored) {
    const figures = previous.get(r.code);
    const at = months.indexOf(r.month);
    invariant(figures !== undefined && at >= 0, 'a stored budget row is of a named account and month');
    figures[at] = Number(r.cents);
    if (latest === null || Number(r.seq) > latest.seq) latest = { seq: Number(r.seq), ledgerId: r.ledger_id };
  }
  const isChanged = (l: Params['lines'][number]) => l.monthlyCents.some((c, i) => c !== previous.get(l.accountCode)?.[i]);
  const changed = p.lines.filter(isChanged);

  const answer = (ledgerId: string | null) => ({
    financialYearStart: p.financialYearStart,
    financialYearEnd: monthEnd(last),
    lines: p.lines.map((l) => {
      const a = accounts.get(l.accountCode);
      invariant(a !== undefined && isBudgetType(a.type), 'a checked line names a revenue or expense account');
      return {
        accountCode: a.code,
        name: a.name,
        type: a.type,
        monthlyCents: l.monthlyCents,
        totalCents: l.monthlyCents.reduce((s, c) => s + c, 0),
        changed: isChanged(l),
      };
    }),
    ledgerId,
  });
  if (changed.length === 0) return { ...answer(latest?.ledgerId ?? null), noop: true };

  const event = await uow.emit(events.budgetSet, {
    entityId: `budget-${p.financialYearStart}`,
    payload: {
      financialYearStart: p.financialYearStart,
      lines: changed.map((l) => ({
        accountCode: l.accountCode,
        monthlyCents: l.monthlyCents,
        previousMonthlyCents: previous.get(l.accountCode) ?? [],
      })),
    },
  });
  const changedCodes = changed.map((l) => l.accountCode);
  await uow.tx.later(
    `DELETE FROM budget_months WHERE org_id = ? AND month >= ? AND month <= ? AND account_code IN (${placeholders(changedCodes.length)})`,
    [uow.orgId, first, last, ...changedCodes],
  );
  // A zero month is no row: twelve zeros leave the account without a budget for the year.
  const rows = changed.flatMap((l) =>
    l.monthlyCents.flatMap((c, i) => (c === 0 ? [] : [[uow.orgId, l.accountCode, months[i] ?? '', c, event.ledgerId, event.seq] as const])),
  );
  await queueMany(
    uow.tx,
    uow.caps,
    'budget_months',
    [
      ['org_id', 'text'],
      ['account_code', 'text'],
      ['month', 'text'],
      ['amount_cents', 'bigint'],
      ['ledger_id', 'text'],
      ['seq', 'bigint'],
    ],
    rows,
  );
  return answer(event.ledgerId);
}
