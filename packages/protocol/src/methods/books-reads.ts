import { z } from 'zod';
import { accountCode } from './aba-fields.js';
import { attachmentsField } from './attachments.js';
import { budgetPeriodProblems, budgetVsActual } from './budgets.js';
import { depreciationScheduleReport } from './asset-schedule.js';
import { id, isCalendarDate, isoDate, method, pageLimit } from './index-fields.js';
import { EMPLOYMENT_BASES } from './people.js';
import type { MethodSpec } from './types.js';
import { lineTrackingOut, reportTracking, TRACKED_REPORTS, trackingCategory } from './tracking.js';

/**
 * The ledger reads: the chart with balances, journals, and the reports (trial balance, profit
 * and loss, balance sheet, aged receivables and payables, GST summary for the BAS). All are
 * computed from the general ledger (accounts, journals, journal_lines); every amount is integer
 * cents except the BAS figures, which are whole dollars as the ATO form takes them. Worked
 * examples: docs/examples/reports.md.
 */

export const ACCOUNT_TYPES = ['asset', 'liability', 'equity', 'revenue', 'expense'] as const;
const accountType = () => z.enum(ACCOUNT_TYPES, { error: `must be one of ${ACCOUNT_TYPES.join(', ')}` });

const int = () => z.number().int();

export const accountBalance = z.object({
  code: z.string(),
  name: z.string(),
  type: z.enum(ACCOUNT_TYPES),
  debitCents: int(),
  creditCents: int(),
  /** In the account's normal direction: debit − credit for assets and expenses, else credit − debit. */
  balanceCents: int(),
  /** Present (true) on an account archived by books.accountArchive: it refuses new postings. */
  archived: z.literal(true).optional(),
});

export const accounts = method({
  name: 'books.accounts',
  scope: 'books.read',
  kind: 'read',
  summary:
    "The chart of accounts, ordered by code, each with its debits, credits and balance over every journal dated on or before asOf (default today). balanceCents is in the account's normal direction: debit − credit for asset and expense accounts, credit − debit for liability, equity and revenue accounts (so a contra-asset such as 1510 Accumulated depreciation is negative). Filter by type. trackingCategories (extension): the tracking categories and their options (books.trackingSet).",
  brief: 'Chart of accounts with debits, credits and balances in cents (normal direction), and the tracking categories.',
  params: z.strictObject({
    asOf: isoDate().optional().describe('Default today'),
    type: accountType().optional().describe('Type'),
  }),
  result: z.object({
    asOf: z.string(),
    accounts: z.array(accountBalance),
    /** The organisation's tracking categories and their options (books.trackingSet), in the order created. */
    trackingCategories: z.array(trackingCategory),
  }),
});

export const journalLine = z.object({
  lineNo: int(),
  accountCode: z.string(),
  debitCents: int(),
  creditCents: int(),
  /** The supply's tax code on the line that carries it (BAS), else null. */
  taxCode: z.string().nullable(),
  /** GST-inclusive amount of that supply, signed (negative for a credit note or reversal). */
  taxBaseCents: int(),
  gstCents: int(),
  /** The invoice, bill or claim a control-account line belongs to. */
  docId: z.string().nullable(),
  description: z.string(),
  /** The line's tracking options by category (books.trackingSet), when it has any. */
  tracking: lineTrackingOut.optional(),
});

export const journal = z.object({
  id: z.string(),
  date: z.string(),
  memo: z.string(),
  source: z.object({ kind: z.string(), id: z.string() }),
  /** The ledger event that made this posting. */
  ledgerId: z.string(),
  /** The journal that reversed this one (books.journalReverse), or null. */
  reversedBy: z.string().nullable(),
  lines: z.array(journalLine),
  /** Files kept with it (attachments.ts), oldest first; absent when none. */
  attachments: attachmentsField(),
});

/** `to` must not be before `from` (shared by journals and the period reports). */
function checkPeriod(p: { from?: string | undefined; to?: string | undefined }, ctx: z.RefinementCtx): void {
  // A date already refused (isoDate names it) is not compared as well.
  if (p.from !== undefined && p.to !== undefined && isCalendarDate(p.from) && isCalendarDate(p.to) && p.to < p.from) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: `must be on or after from (${p.from})` });
  }
}

export const journals = method({
  name: 'books.journals',
  scope: 'books.read',
  kind: 'read',
  summary:
    'Journals (postings) ordered by date then id, each whole with its lines. Filters: from and to (dates, inclusive), accountCode (journals with a line on that account), sourceId (journals of one invoice, bill, claim or other source). Page with cursor (the nextCursor of the previous page: a journal id) and limit (1–200, default 50).',
  brief: 'Posted journals with lines, by date; filter to see how a document posted.',
  params: z
    .strictObject({
      from: isoDate().optional().describe('From'),
      to: isoDate().optional().describe('Up to'),
      accountCode: accountCode().optional().describe('Has a line on it'),
      sourceId: id().optional().describe('Source document id'),
      cursor: id().optional().describe('nextCursor'),
      limit: pageLimit().optional().describe('1-200 (50)'),
    })
    .superRefine(checkPeriod),
  result: z.object({ journals: z.array(journal), nextCursor: z.string().nullable() }),
});

export const REPORT_TYPES = [
  'trial_balance',
  'profit_and_loss',
  'balance_sheet',
  'aged_receivables',
  'aged_payables',
  'gst_summary',
  'payroll_activity',
  'leave_balances',
  'account_transactions',
  'budget_vs_actual',
  'depreciation_schedule',
  'cash_flow',
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** Reports as at one date; the others cover a period from..to. */
export const AS_OF_REPORTS: readonly ReportType[] = [
  'trial_balance',
  'balance_sheet',
  'aged_receivables',
  'aged_payables',
  'leave_balances',
];

/** Where 1A and 1B on the front of the BAS come from (ATO: accounts method or calculation worksheet). */
export const GST_METHODS = ['accounts', 'worksheet'] as const;

/** Reports that come a page at a time (cursor and limit). */
export const PAGED_REPORTS: readonly ReportType[] = ['account_transactions', 'aged_receivables', 'aged_payables'];

/**
 * The comparison a profit and loss or balance sheet can carry. previous_period: the same number
 * of days immediately before from..to (a balance sheet: as at the same day a month earlier, the
 * last day of that month when the day is past its end or asOf is a month's last day);
 * previous_year: the same dates a year earlier (29 February becomes 28 February).
 */
export const COMPARE_KINDS = ['previous_period', 'previous_year'] as const;
export type CompareKind = (typeof COMPARE_KINDS)[number];
const COMPARED_REPORTS: readonly ReportType[] = ['profit_and_loss', 'balance_sheet'];

const reportParams = z
  .strictObject({
    type: z
      .enum(REPORT_TYPES, {
        error: (issue) => (issue.input === undefined ? 'is required' : `must be one of ${REPORT_TYPES.join(', ')}`),
      })
      .describe('Which report'),
    asOf: isoDate().optional().describe('Default today'),
    from: isoDate().optional().describe('Period: first day'),
    to: isoDate().optional().describe('Period: last day'),
    gstMethod: z
      .enum(GST_METHODS, { error: `must be one of ${GST_METHODS.join(', ')}` })
      .optional()
      .describe('gst_summary; default accounts'),
    accountCode: accountCode().optional().describe('account_transactions: the account'),
    cursor: z
      .string()
      .regex(/^(\d{1,6}-)?[A-Za-z0-9_-]{1,200}$/, { error: 'must be the nextCursor of a previous page' })
      .optional()
      .describe('account_transactions, aged: nextCursor'),
    limit: pageLimit().optional().describe('account_transactions, aged: 1-200 (50)'),
    compare: z
      .enum(COMPARE_KINDS, { error: `must be one of ${COMPARE_KINDS.join(', ')}` })
      .optional()
      .describe('profit_and_loss, balance_sheet: comparison'),
    tracking: reportTracking().optional(),
  })
  .superRefine((p, ctx) => {
    const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
    if (AS_OF_REPORTS.includes(p.type)) {
      if (p.from !== undefined) issue('from', `is not used by ${p.type}, which is as at a date (give asOf)`);
      if (p.to !== undefined) issue('to', `is not used by ${p.type}, which is as at a date (give asOf)`);
    } else {
      if (p.asOf !== undefined) issue('asOf', `is not used by ${p.type}, which covers a period (give from and to)`);
      if (p.from === undefined) issue('from', `is required for ${p.type}`);
      if (p.to === undefined) issue('to', `is required for ${p.type}`);
      checkPeriod(p, ctx);
      if (p.type === 'budget_vs_actual' && p.from !== undefined && p.to !== undefined && isCalendarDate(p.from) && isCalendarDate(p.to)) {
        for (const b of budgetPeriodProblems(p.from, p.to)) issue(b.field, b.message);
      }
      if (p.type === 'depreciation_schedule' && p.from !== undefined && isCalendarDate(p.from)) {
        // One income year: 1 July to the next 30 June.
        const next = `${Number(p.from.slice(0, 4)) + 1}-06-30`;
        if (!p.from.endsWith('-07-01')) issue('from', 'must be 1 July (an income year starts then) for depreciation_schedule');
        else if (p.to !== undefined && p.to !== next) issue('to', `must be ${next}, the end of the income year from ${p.from}`);
      }
    }
    if (p.gstMethod !== undefined && p.type !== 'gst_summary') issue('gstMethod', 'is only used by gst_summary');
    if (p.type === 'account_transactions') {
      if (p.accountCode === undefined) issue('accountCode', 'is required for account_transactions');
      if (p.cursor !== undefined && !/^\d{1,6}-/.test(p.cursor)) issue('cursor', 'must be a nextCursor of account_transactions');
    } else {
      if (p.accountCode !== undefined) issue('accountCode', 'is only used by account_transactions');
      if (!PAGED_REPORTS.includes(p.type)) {
        for (const field of ['cursor', 'limit'] as const) {
          if (p[field] !== undefined) issue(field, `is only used by ${PAGED_REPORTS.join(', ')}`);
        }
      } else if (p.cursor !== undefined && /^\d{1,6}-/.test(p.cursor)) issue('cursor', `must be a nextCursor of ${p.type}`);
    }
    if (p.compare !== undefined && !COMPARED_REPORTS.includes(p.type))
      issue('compare', 'is only used by profit_and_loss and balance_sheet');
    if (p.tracking !== undefined && !(TRACKED_REPORTS as readonly string[]).includes(p.type))
      issue('tracking', `is only used by ${TRACKED_REPORTS.join(', ')}`);
  });

/** With a tracking filter: the filter the figures are of (category → option, null: no option). */
const trackedBy = { tracking: z.record(z.string(), z.string().nullable()).optional() };

/** With compare: the figure of the comparison period and amount − comparison (absent otherwise). */
const compared = { comparisonCents: int().optional(), differenceCents: int().optional() };
const statementLine = z.object({ code: z.string().nullable(), name: z.string(), amountCents: int(), ...compared });
const section = z.object({
  accounts: z.array(statementLine),
  totalCents: int(),
  comparisonTotalCents: int().optional(),
  differenceCents: int().optional(),
});

export const trialBalance = z.object({
  type: z.literal('trial_balance'),
  asOf: z.string(),
  /** Accounts with any posting to date; the balance sits in the debit or the credit column. */
  rows: z.array(z.object({ code: z.string(), name: z.string(), type: z.enum(ACCOUNT_TYPES), debitCents: int(), creditCents: int() })),
  totals: z.object({ debitCents: int(), creditCents: int() }),
  /** Always true unfiltered; with tracking, the lines of an option need not balance. */
  balanced: z.boolean(),
  ...trackedBy,
});

export const profitAndLoss = z.object({
  type: z.literal('profit_and_loss'),
  from: z.string(),
  to: z.string(),
  revenue: section,
  expenses: section,
  netProfitCents: int(),
  /** With compare: the comparison period and its net profit. */
  comparison: z
    .object({ compare: z.enum(COMPARE_KINDS), from: z.string(), to: z.string(), netProfitCents: int(), differenceCents: int() })
    .optional(),
  ...trackedBy,
});

export const balanceSheet = z.object({
  type: z.literal('balance_sheet'),
  asOf: z.string(),
  /** 1 July on or before asOf: the start of the Australian financial year. */
  financialYearStart: z.string(),
  assets: section,
  liabilities: section,
  /** Equity accounts plus earnings not yet closed: current year (from financialYearStart) and earlier years. */
  equity: section,
  currentYearEarningsCents: int(),
  priorYearsEarningsCents: int(),
  balanced: z.boolean(),
  /** With compare: the date compared with (each line carries its figure as at that date). */
  comparison: z.object({ compare: z.enum(COMPARE_KINDS), asOf: z.string(), financialYearStart: z.string() }).optional(),
  ...trackedBy,
});

/** General ledger detail of one account over from..to, a page of its posted lines. */
export const accountTransactions = z.object({
  type: z.literal('account_transactions'),
  from: z.string(),
  to: z.string(),
  account: z.object({ code: z.string(), name: z.string(), type: z.enum(ACCOUNT_TYPES) }),
  /** In the account's normal direction, over every journal dated before from. */
  openingBalanceCents: int(),
  /** Lines in date, journal id, line order; balanceCents is the running balance after the line. */
  lines: z.array(
    z.object({
      date: z.string(),
      journalId: z.string(),
      lineNo: int(),
      /** The document the journal posts (invoice, bill, payment, ...). */
      source: z.object({ kind: z.string(), id: z.string() }),
      memo: z.string(),
      description: z.string(),
      debitCents: int(),
      creditCents: int(),
      balanceCents: int(),
      tracking: lineTrackingOut.optional(),
    }),
  ),
  /** As at to (the whole period, whichever page this is). */
  closingBalanceCents: int(),
  totals: z.object({ debitCents: int(), creditCents: int() }),
  nextCursor: z.string().nullable(),
  ...trackedBy,
});

const agedAmounts = {
  currentCents: int(),
  days1to30Cents: int(),
  days31to60Cents: int(),
  days61to90Cents: int(),
  over90Cents: int(),
  totalCents: int(),
};

export const AGE_BUCKETS = ['current', '1-30', '31-60', '61-90', '90+'] as const;

export const agedReport = z.object({
  type: z.enum(['aged_receivables', 'aged_payables']),
  asOf: z.string(),
  /** The control account the documents are owed on (1100 or 2000) and its balance, equal to totals.totalCents. */
  controlAccount: z.object({ code: z.string(), name: z.string(), balanceCents: int() }),
  /**
   * The parties with items on this page, in party order: each with its amounts over all its open
   * items (not only this page's), and this page's items of it, oldest due first. A party whose
   * items run over a page boundary appears on both pages with the same amounts.
   */
  parties: z.array(
    z.object({
      party: z.string(),
      ...agedAmounts,
      items: z.array(
        z.object({
          id: z.string(),
          reference: z.string(),
          issuedOn: z.string(),
          dueOn: z.string(),
          /** Days past dueOn as at asOf; 0 or less is not yet overdue. */
          daysOverdue: int(),
          bucket: z.enum(AGE_BUCKETS),
          totalCents: int(),
          outstandingCents: int(),
        }),
      ),
    }),
  ),
  /** Over every party, whichever page this is. */
  totals: z.object(agedAmounts),
  /** The last item's id, to pass as cursor for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});

/** The statement of cash flows, direct method; every figure integer cents, money in positive. */
const cashFlowSection = z.object({
  /** Lines that moved, in statement order; line is a stable key (customers, suppliers, employees, super, ato, interest, other_operating, plant_and_equipment, other_assets, owner, borrowings). */
  lines: z.array(z.object({ line: z.string(), label: z.string(), amountCents: int() })),
  totalCents: int(),
});

export const cashFlow = z.object({
  type: z.literal('cash_flow'),
  from: z.string(),
  to: z.string(),
  /** The accounts that are cash, each as at the day before from and as at to (the balance sheet's figure). */
  cashAccounts: z.array(z.object({ code: z.string(), name: z.string(), openingCents: int(), closingCents: int() })),
  operating: cashFlowSection,
  investing: cashFlowSection,
  financing: cashFlowSection,
  /** Operating + investing + financing totals. */
  netChangeCents: int(),
  openingCashCents: int(),
  /** Cash the opening balances (books.openingBalances) brought in when dated in from..to: not a flow. */
  carriedInCents: int(),
  /** The balance sheet's cash as at to: the sum of cashAccounts' closingCents. */
  closingCashCents: int(),
  /** openingCashCents + netChangeCents + carriedInCents = closingCashCents. */
  reconciles: z.boolean(),
});

const dollars = z.record(z.string(), int());

export const gstSummary = z.object({
  type: z.literal('gst_summary'),
  from: z.string(),
  to: z.string(),
  /** Accruals: invoices count when issued, bills when approved (the ledger posts them then). */
  basis: z.literal('accruals'),
  gstMethod: z.enum(GST_METHODS),
  /** Label totals in exact cents: G1–G4, G10, G11, G13–G15, W1, W2, and 1A/1B by the accounts method. */
  exactCents: dollars,
  /** The BAS front in whole dollars (cents dropped, never negative): G1, G2, G3, G10, G11, 1A, 1B, W1, W2. */
  front: dollars,
  /** The GST calculation worksheet in whole dollars: G1–G20 (G9 = G8 ÷ 11, G20 = G19 ÷ 11, truncated). */
  worksheet: dollars,
  /** The same worksheet in exact cents; G9 and G20 are 1/11 rounded half up. */
  worksheetCents: dollars,
  /**
   * 1A and 1B as the sum of the GST recorded on each document plus adjustments of earlier
   * periods: 1A adds increasing adjustments (bills returned later), 1B decreasing ones (credit
   * notes on earlier sales).
   */
  accountsMethod: z.object({
    gstOnSalesCents: int(),
    gstOnPurchasesCents: int(),
    increasingAdjustmentsCents: int(),
    decreasingAdjustmentsCents: int(),
    '1A': int(),
    '1B': int(),
  }),
  /**
   * 4 = W2; 8A = 1A + 4; 8B = 1B; 9 = |8A − 8B|, payable to or refundable by the ATO. netGst =
   * 1A − 1B and net = 8A − 8B, signed: negative is a refund.
   */
  summary: z.object({
    '4': int(),
    '8A': int(),
    '8B': int(),
    '9': int(),
    position: z.enum(['payable', 'refundable', 'nil']),
    netGst: int(),
    net: int(),
  }),
  /** Per code: this period's supplies, and adjustments of earlier periods' supplies (G7/G18). */
  byTaxCode: z.array(
    z.object({
      taxCode: z.string(),
      lines: int(),
      baseCents: int(),
      gstCents: int(),
      adjustmentBaseCents: int(),
      adjustmentGstCents: int(),
      labels: z.array(z.string()),
    }),
  ),
});

/**
 * Gross by Single Touch Payroll earnings type: salary and wages (gross less paid leave) and paid
 * leave, the split the STP pay event reports. A type modelled later is a new key; they add up to gross.
 */
const earningsByType = z.object({
  salaryWagesCents: int(),
  paidLeaveCents: int(),
  /** Unused annual leave and its loading paid in a final pay (books.employeeTerminate); present only when some was paid. */
  unusedLeaveOnTerminationCents: int().optional(),
  /** Pay items (books.payrollDraft earnings), each present only when some was paid: overtime, bonuses and commissions, allowances. */
  overtimeCents: int().optional(),
  bonusesCommissionsCents: int().optional(),
  allowancesCents: int().optional(),
});

/** Milli-hours (1/1000 hour) per leave type. */
const milliHoursByLeaveType = z.object({ annual: int(), personal: int() });

const payrollFigures = {
  /** Signed runs counted; in totals the distinct runs, not the sum of each employee's. */
  runs: int(),
  earnings: earningsByType,
  grossCents: int(),
  /** Part of gross paid to super before tax (net = gross − this − PAYG); present only when some was sacrificed. */
  salarySacrificeCents: int().optional(),
  paygWithheldCents: int(),
  superCents: int(),
  netCents: int(),
  /** Approved leave the runs paid, by type. */
  leaveTakenMilliHours: milliHoursByLeaveType,
};

export const payrollActivity = z.object({
  type: z.literal('payroll_activity'),
  from: z.string(),
  to: z.string(),
  /** Each employee paid by a signed run whose payment date is in from..to (recalled runs excluded), by name. */
  employees: z.array(z.object({ employeeId: z.string(), name: z.string(), ...payrollFigures })),
  totals: z.object(payrollFigures),
});

/** A leave balance and its value at the employee's hourly-equivalent rate in force on asOf (integer cents, half up). */
const leaveBalance = z.object({ milliHours: int(), valueCents: int() });
const leaveBalancesByType = { annual: leaveBalance, personal: leaveBalance };

export const leaveBalancesReport = z.object({
  type: z.literal('leave_balances'),
  asOf: z.string(),
  /**
   * Each active employee started by asOf, by name: the leave ledger as at asOf (accruals less leave
   * taken). Valued at hourlyRateCents, or annualSalaryCents ÷ (hoursPerWeek × 52), the pay in force
   * on asOf (shown here); no leave loading.
   */
  employees: z.array(
    z.object({
      employeeId: z.string(),
      name: z.string(),
      employmentBasis: z.enum(EMPLOYMENT_BASES),
      annualSalaryCents: int().nullable(),
      hourlyRateCents: int().nullable(),
      /** To the hundredth (22.8). */
      hoursPerWeek: z.number(),
      ...leaveBalancesByType,
      valueCents: int(),
    }),
  ),
  totals: z.object({ ...leaveBalancesByType, valueCents: int() }),
});

export const reports = method({
  name: 'books.reports',
  scope: 'books.read',
  kind: 'read',
  summary:
    "A report from the general ledger, or from the signed pay runs and the leave ledger (the payroll reports). As at asOf (default today): trial_balance (every account with postings, balances in debit/credit columns, totals equal), balance_sheet (assets, liabilities, equity with current-year and earlier earnings; assets = liabilities + equity), aged_receivables and aged_payables (open invoices or bills, and contacts' unallocated credits as negative items, per party in buckets current (not yet due), 1-30, 31-60, 61-90 and 90+ days overdue; totals, over every party, equal the 1100 / 2000 control account; items in party order, then due date, paged by cursor (nextCursor, the last item's id) and limit (1–200 items, default 50); each party on a page carries its amounts over all its items, and appears again on the next page when its items run over), leave_balances (each active employee's annual and personal leave as at asOf from the leave ledger, accruals less leave taken, in milli-hours, valued at the hourly rate, or annual salary ÷ (hoursPerWeek × 52), in force on asOf, in cents half up; annual leave loading is not modelled). For the period from..to (both required, inclusive): profit_and_loss (revenue and expense accounts, net profit), gst_summary (the BAS labels G1–G20, 1A, 1B, W1, W2 and 4/8A/8B/9, in exact cents and whole dollars; credit notes and returns on documents of earlier periods are adjustments, G18 (so 1B) for sales and G7 (so 1A) for purchases; summary.net is signed, negative a refund; gstMethod accounts (default: 1A/1B from the GST on each document) or worksheet (G9/G20)) and payroll_activity (signed pay runs paid from..to by payment date, recalled runs excluded: per employee and in total the gross by earnings type (salaryWagesCents = gross − paid leave − unused leave on termination, paidLeaveCents, unusedLeaveOnTerminationCents when a final pay paid some; overtimeCents, bonusesCommissionsCents and allowancesCents from pay items, when paid, and are not salary and wages), salarySacrificeCents when sacrificed, PAYG withheld, super, net (gross − salary sacrifice − PAYG), leave taken in milli-hours by type and the number of runs; the figures Single Touch Payroll reports for those runs) and account_transactions (the general ledger of accountCode: opening balance before from, each posted line with its journal, source document, description, debit, credit and running balance in the account's normal direction, closing balance and period totals; paged by cursor (nextCursor) and limit (1–200, default 50)) and depreciation_schedule (extension; from 1 July to 30 June: each fixed asset's book depreciation and written-down value beside its tax deduction and tax written-down value by taxTreatment, and the small business pool) and budget_vs_actual (extension: whole months, at most 36; per revenue and expense account and month the books.budgetSet budget, the actual as in profit_and_loss and variance = actual − budget, with totals) and cash_flow (extension; direct method: receipts and payments of the cash accounts (1000, bank account records, reconcilable assets, 1300 clearing) in operating, investing and financing lines by each journal's other accounts, transfers between them left out; opening cash (before from) + netChange + carriedIn (the opening balances' cash) = closing cash, as the balance sheet shows it). tracking (extension; profit_and_loss, trial_balance, balance_sheet, account_transactions, budget_vs_actual's actuals): {category: option}, or null for lines with no option in it (unassigned); only those lines are counted, so a filtered trial balance or balance sheet need not balance. compare (profit_and_loss, balance_sheet): previous_period (the same number of days just before from; a balance sheet: a month earlier) or previous_year (the same dates a year earlier, 29 February as 28 February); every line, total and net profit then carries comparisonCents and differenceCents (amount − comparison).",
  brief:
    'Report; from..to for profit_and_loss, gst_summary, payroll_activity, account_transactions, budget_vs_actual, depreciation_schedule, cash_flow; asOf for the rest.',
  params: reportParams,
  result: z.union([
    trialBalance,
    profitAndLoss,
    balanceSheet,
    agedReport,
    gstSummary,
    payrollActivity,
    leaveBalancesReport,
    accountTransactions,
    budgetVsActual,
    depreciationScheduleReport,
    cashFlow,
  ]),
  extendedParams: ['accountCode', 'cursor', 'limit', 'compare', 'tracking'],
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const booksReadMethods = [accounts, journals, reports] as const satisfies readonly MethodSpec[];
