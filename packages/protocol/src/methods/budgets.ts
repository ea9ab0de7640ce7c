import { z } from 'zod';
import { accountCode } from './aba-fields.js';
import { isoDate, method } from './index-fields.js';

/**
 * Budgets (an extension beyond the core contract): one budget per organisation and financial
 * year, twelve monthly figures per revenue or expense account, set by books.budgetSet and
 * compared with the ledger by books.reports type budget_vs_actual. Worked example:
 * docs/examples/reports.md ("Budgets against actuals").
 */

/** Accounts one books.budgetSet names at most. */
export const BUDGET_LINES_MAX = 200;
/**
 * A month's budget is at most this many cents either way ($100 million): every sum the report
 * makes (each account over 36 months, across a chart of 4-digit codes) stays a safe integer.
 */
export const BUDGET_MONTH_CENTS_MAX = 10_000_000_000;
/** A budget_vs_actual report covers at most this many months (three financial years). */
export const BUDGET_REPORT_MONTHS_MAX = 36;
/** Budgets are for revenue and expense accounts: the profit and loss accounts. */
export const BUDGET_ACCOUNT_TYPES = ['revenue', 'expense'] as const;

const int = () => z.number().int();

const monthCents = () =>
  z
    .number({ error: 'must be an integer number of cents' })
    .int({ error: 'must be an integer number of cents' })
    .min(-BUDGET_MONTH_CENTS_MAX, { error: `must be at least -${BUDGET_MONTH_CENTS_MAX}` })
    .max(BUDGET_MONTH_CENTS_MAX, { error: `must be at most ${BUDGET_MONTH_CENTS_MAX}` });

const budgetLine = z.strictObject({
  accountCode: accountCode().describe('Revenue or expense account'),
  monthlyCents: z
    .array(monthCents())
    .length(12, { error: 'must be 12 amounts in cents, the months of the year in order' })
    .describe('12 months, cents'),
});

export const budgetSet = method({
  name: 'books.budgetSet',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Set the budget of revenue and expense accounts for one financial year (extension beyond the core contract): financialYearStart (the 1st of the month the organisation's profile starts its year in), lines (1–200) of accountCode and monthlyCents (12 integer cents, the year's months in order, in the account's normal direction; twelve zeros remove it). Each line replaces that account's budget for the year; the same figures again are a no-op. An unknown, archived or balance-sheet account is BAD_REQUEST naming lines[i].accountCode.",
  brief: "Set accounts' 12 monthly budgets (cents) for a financial year; the same figures: no-op.",
  params: z.strictObject({
    financialYearStart: isoDate().describe("Year's first day"),
    lines: z
      .array(budgetLine)
      .min(1, { error: 'must name at least one account' })
      .max(BUDGET_LINES_MAX, { error: `must name at most ${BUDGET_LINES_MAX} accounts` })
      .superRefine((lines, ctx) => {
        const first = new Map<string, number>();
        lines.forEach((l, i) => {
          const seen = first.get(l.accountCode);
          if (seen === undefined) first.set(l.accountCode, i);
          else ctx.addIssue({ code: 'custom', path: [i, 'accountCode'], message: `names account ${l.accountCode} again (lines[${seen}])` });
        });
      })
      .describe('1-200 accounts'),
  }),
  result: z.object({
    financialYearStart: z.string(),
    /** The year's last day. */
    financialYearEnd: z.string(),
    /** Each line as it now stands, in the order given. */
    lines: z.array(
      z.object({
        accountCode: z.string(),
        name: z.string(),
        type: z.enum(BUDGET_ACCOUNT_TYPES),
        monthlyCents: z.array(int()),
        totalCents: int(),
        /** This call replaced the account's figures (false: they were already these). */
        changed: z.boolean(),
      }),
    ),
    /** This call's event; on a no-op the event that last set one of the lines (null when none ever was). */
    ledgerId: z.string().nullable(),
    noop: z.boolean().optional(),
  }),
});

/**
 * Problems with a budget_vs_actual period, by field: budgets are monthly, so the period is whole
 * months (from the 1st, to a month's last day), at most BUDGET_REPORT_MONTHS_MAX of them.
 */
export function budgetPeriodProblems(from: string, to: string): { field: 'from' | 'to'; message: string }[] {
  const problems: { field: 'from' | 'to'; message: string }[] = [];
  if (!from.endsWith('-01')) problems.push({ field: 'from', message: 'must be the first day of a month for budget_vs_actual' });
  const [ty, tm, td] = to.split('-').map(Number) as [number, number, number];
  // Day 0 of the next month is this month's last day.
  if (td !== new Date(Date.UTC(ty, tm, 0)).getUTCDate()) {
    problems.push({ field: 'to', message: 'must be the last day of a month for budget_vs_actual' });
  }
  const months = (ty - Number(from.slice(0, 4))) * 12 + tm - Number(from.slice(5, 7)) + 1;
  if (months > BUDGET_REPORT_MONTHS_MAX) {
    problems.push({ field: 'to', message: `budget_vs_actual covers at most ${BUDGET_REPORT_MONTHS_MAX} months (${months} asked)` });
  }
  return problems;
}

/** Budget, actual and actual − budget: positive is above budget (more revenue, or more spent). */
const figures = { budgetCents: int(), actualCents: int(), varianceCents: int() };
const profitFigures = z.object({ revenue: z.object(figures), expenses: z.object(figures), netProfit: z.object(figures) });

export const budgetVsActual = z.object({
  type: z.literal('budget_vs_actual'),
  from: z.string(),
  to: z.string(),
  /**
   * Each revenue and expense account with a budget or a posting in the period, revenue first, by
   * code: its figures over the period. Actuals are the profit and loss's: revenue credit −
   * debit, expenses debit − credit.
   */
  accounts: z.array(z.object({ code: z.string(), name: z.string(), type: z.enum(BUDGET_ACCOUNT_TYPES), ...figures })),
  /** The same accounts month by month (YYYY-MM), every month of the period, in the order of accounts. */
  lines: z.array(z.object({ code: z.string(), month: z.string(), ...figures })),
  /** Revenue, expenses and net profit (revenue − expenses) per month. */
  months: z.array(z.object({ month: z.string() }).extend(profitFigures.shape)),
  /** Revenue, expenses and net profit over the period. */
  totals: profitFigures,
  /** With a tracking filter: the filter the actuals are of (budgets are not tracked). */
  tracking: z.record(z.string(), z.string().nullable()).optional(),
});
