import { limits, type booksReads } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import type { Queryable } from '../../storage/types.js';
import { orgToday } from '../../clock.js';
import { invariant } from '../../errors.js';
import { accountTransactions } from './account-transactions.js';
import { agedReport } from './aged.js';
import { depreciationSchedule } from '../assets/schedule-read.js';
import { budgetVsActual } from './budget-report.js';
import { cashFlow } from './cash-flow.js';
import { compareSections, comparisonDate, comparisonPeriod } from './compare.js';
import { gstSummary } from './gst.js';
import { leaveBalancesReport, payrollActivity } from './payroll.js';
import { readConsistently } from './ledger-totals.js';
import { balanceSheet, profitAndLoss, trialBalance, type TrackedFilter } from './statements.js';
import { reportTrackingFilter } from '../tracking/store.js';

type Params = z.infer<typeof booksReads.reports.params>;

/** The period of a from..to report; the params schema already requires both. */
function period(p: Params): { from: string; to: string } {
  invariant(p.from !== undefined && p.to !== undefined, `${p.type} has from and to (schema)`);
  return { from: p.from, to: p.to };
}

/** The profit and loss of from..to, with the comparison period's figures when compare is given. */
async function comparedProfitAndLoss(
  q: Queryable,
  orgId: string,
  from: string,
  to: string,
  compare: Params['compare'],
  filter: TrackedFilter | undefined,
) {
  if (compare === undefined) return profitAndLoss(q, orgId, from, to, filter);
  const other = comparisonPeriod(compare, from, to);
  const [current, previous] = await readConsistently(q, orgId, (q) =>
    Promise.all([profitAndLoss(q, orgId, from, to, filter), profitAndLoss(q, orgId, other.from, other.to, filter)]),
  );
  return {
    ...current,
    revenue: compareSections(current.revenue, previous.revenue),
    expenses: compareSections(current.expenses, previous.expenses),
    comparison: {
      compare,
      ...other,
      netProfitCents: previous.netProfitCents,
      differenceCents: current.netProfitCents - previous.netProfitCents,
    },
  };
}

/** The balance sheet as at asOf, with the figures as at the comparison date when compare is given. */
async function comparedBalanceSheet(
  q: Queryable,
  orgId: string,
  asOf: string,
  compare: Params['compare'],
  filter: TrackedFilter | undefined,
) {
  if (compare === undefined) return balanceSheet(q, orgId, asOf, filter);
  const otherAsOf = comparisonDate(compare, asOf);
  const [current, previous] = await readConsistently(q, orgId, (q) =>
    Promise.all([balanceSheet(q, orgId, asOf, filter), balanceSheet(q, orgId, otherAsOf, filter)]),
  );
  return {
    ...current,
    assets: compareSections(current.assets, previous.assets),
    liabilities: compareSections(current.liabilities, previous.liabilities),
    equity: compareSections(current.equity, previous.equity),
    comparison: { compare, asOf: otherAsOf, financialYearStart: previous.financialYearStart },
  };
}

/** books.reports: one report from the ledger, chosen by type (see books-reads.ts). */
export async function runReport(p: Params, ctx: ReadContext) {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const asOf = p.asOf ?? (await orgToday(ctx.db, orgId));
  // The schema lets only the reports of lines take it (protocol TRACKED_REPORTS).
  const filter = await reportTrackingFilter(q, orgId, p.tracking);
  switch (p.type) {
    case 'trial_balance':
      return trialBalance(q, orgId, asOf, filter);
    case 'balance_sheet':
      return comparedBalanceSheet(q, orgId, asOf, p.compare, filter);
    case 'aged_receivables':
    case 'aged_payables':
      return agedReport(q, orgId, p.type, asOf, { cursor: p.cursor, limit: p.limit ?? limits.pageRowsDefault });
    case 'profit_and_loss': {
      const { from, to } = period(p);
      return comparedProfitAndLoss(q, orgId, from, to, p.compare, filter);
    }
    case 'gst_summary': {
      const { from, to } = period(p);
      return gstSummary(q, orgId, from, to, p.gstMethod ?? 'accounts');
    }
    case 'payroll_activity': {
      const { from, to } = period(p);
      return payrollActivity(q, orgId, from, to);
    }
    case 'leave_balances':
      return leaveBalancesReport(q, orgId, asOf);
    case 'account_transactions': {
      const { from, to } = period(p);
      invariant(p.accountCode !== undefined, 'account_transactions has accountCode (schema)');
      return accountTransactions(q, orgId, { accountCode: p.accountCode, from, to, cursor: p.cursor, limit: p.limit }, filter);
    }
    case 'depreciation_schedule': {
      const { from, to } = period(p);
      return depreciationSchedule(q, orgId, from, to);
    }
    case 'budget_vs_actual': {
      const { from, to } = period(p);
      return budgetVsActual(q, orgId, from, to, filter);
    }
    case 'cash_flow': {
      const { from, to } = period(p);
      return cashFlow(q, orgId, from, to);
    }
  }
}
