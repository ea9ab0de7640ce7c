import type { booksReads } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { orgToday } from '../../clock.js';
import { invariant } from '../../errors.js';
import { agedReport } from './aged.js';
import { gstSummary } from './gst.js';
import { leaveBalancesReport, payrollActivity } from './payroll.js';
import { balanceSheet, profitAndLoss, trialBalance } from './statements.js';

type Params = z.infer<typeof booksReads.reports.params>;

/** The period of a from..to report; the params schema already requires both. */
function period(p: Params): { from: string; to: string } {
  invariant(p.from !== undefined && p.to !== undefined, `${p.type} has from and to (schema)`);
  return { from: p.from, to: p.to };
}

/** books.reports: one report from the ledger, chosen by type (see books-reads.ts). */
export async function runReport(p: Params, ctx: ReadContext) {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const asOf = p.asOf ?? (await orgToday(ctx.db, orgId));
  switch (p.type) {
    case 'trial_balance':
      return trialBalance(q, orgId, asOf);
    case 'balance_sheet':
      return balanceSheet(q, orgId, asOf);
    case 'aged_receivables':
    case 'aged_payables':
      return agedReport(q, orgId, p.type, asOf);
    case 'profit_and_loss': {
      const { from, to } = period(p);
      return profitAndLoss(q, orgId, from, to);
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
  }
}
