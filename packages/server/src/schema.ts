/**
 * The ordered list of every migration, collected here where the server is assembled: storage
 * owns the machinery and its own core tables, each area owns its tables, and only this layer
 * sees them all. Whatever opens a database (server.ts, the CLI, tests, benchmarks) passes this
 * list to storage, which migrates, checks schemas and backups, and answers readiness from it.
 * Ids and names are what installations record in schema_migrations: never change or reorder them.
 */
import { migration as aiCalls } from './domain/ask/migration.js';
import { migration as assets } from './domain/assets/migration.js';
import { migration as pendingAssets } from './domain/assets/migration-pending.js';
import { migration as bankAccounts } from './domain/banking/migration.js';
import { migration as directEntry } from './domain/banking/migration-direct-entry.js';
import { migration as contacts } from './domain/contacts/migration.js';
import { migration as corrections } from './domain/corrections/migration.js';
import { migration as generalLedger } from './domain/gl/migration.js';
import { migration as dayOne, migrationIssueDates } from './domain/gl/migration-day-one.js';
import { migration as payables } from './domain/payables/migration.js';
import { migration as payablesBankDetails } from './domain/payables/migration-bank-details.js';
import { migration as payRuns } from './domain/payroll/migration.js';
import { migration as stp } from './domain/payroll/migration-stp.js';
import { migration as stpFinalise } from './domain/payroll/migration-stp-finalise.js';
import { migration as payrollConversion } from './domain/payroll/migration-conversion.js';
import { migration as payItems } from './domain/payroll/migration-pay-items.js';
import { migration as superPayments } from './domain/payroll/migration-super-pay.js';
import { migration as people } from './domain/people/migration.js';
import { migration as employeeChanges } from './domain/people/migration-changes.js';
import { migration as terminations } from './domain/people/migration-termination.js';
import { migration as hoursPerWeek } from './domain/people/migration-hours.js';
import { migration as stpReported } from './domain/payroll/migration-stp-reported.js';
import { migration as chartAccounts } from './domain/gl/migration-chart.js';
import { migration as dayTotals } from './domain/gl/day-totals.js';
import { migration as cashFlowDays } from './domain/reports/cash-flow-days.js';
import { migration as gstDays } from './domain/reports/gst-days.js';
import { migration as bankJournalWords } from './domain/reconciliation/bank-journal-words.js';
import { migration as receivables } from './domain/receivables/migration.js';
import { migration as reconciliation } from './domain/reconciliation/migration.js';
import { migration as reports } from './domain/reports/migration.js';
import { migration as tax } from './domain/tax/migration.js';
import { migration as calendar } from './calendar/migration.js';
import { migration as chainVerified } from './ledger/migration.js';
import { migration as checkpoints } from './ledger/migration-checkpoints.js';
import { migration as orgTimeZone } from './org/migration.js';
import { migration as authEpoch } from './org/migration-auth-epoch.js';
import { migration as oauth } from './org/migration-oauth.js';
import { migration as paymentAccount } from './org/migration-payment-account.js';
import { migration as orgProfile } from './org/migration-profile.js';
import { migration as searchKeys } from './storage/migration-search.js';
import { migration as writeOff } from './domain/receivables/migration-write-off.js';
import { migration as contactCredits } from './domain/credits/migration.js';
import { migration as budgets } from './domain/reports/migration-budgets.js';
import { migration as repeating } from './domain/repeating/migration.js';
import { migration as weeklyDigest } from './human/migration-digest.js';
import { migration as quotes } from './domain/quotes/migration.js';
import { migration as assetsAccountant } from './domain/assets/migration-tax.js';
import { migration as tracking } from './domain/tracking/migration.js';
import { migration as attachments } from './domain/attachments/migration.js';
import { migration as actorNames } from './org/migration-names.js';
import { migration as currencies } from './domain/currencies/migration.js';
import { migration as billFxPayments } from './domain/payables/migration-fx.js';
import { migration as documentBalances } from './domain/gl/migration-document-balances.js';
import { migration as documentWords, partyKeyMigration } from './domain/reconciliation/document-words.js';
import { coreMigrations, loginAttemptsSweep, type Migration } from './storage/migrations.js';

export type { Migration } from './storage/migrations.js';

/** Every migration, applied in this order: ids ascend (both engines refuse a list that does not). */
export const migrations: readonly Migration[] = [
  // The core tables (1) and the signature law, approvals, bills, outbox and human lane (2).
  ...coreMigrations,
  // The general ledger, 3.
  generalLedger,
  // Area schemas: receivables 4, payables and expenses 5, reconciliation 6.
  receivables,
  payables,
  reconciliation,
  // Verified chain heads for the console badge, 10.
  chainVerified,
  // Report indexes, 11.
  reports,
  // Search keys computed in TypeScript, 12.
  searchKeys,
  // The sign-in throttling sweep index, 13.
  loginAttemptsSweep,
  // Bills held for changed bank details, 14.
  payablesBankDetails,
  // The organisation's time zone, 15.
  orgTimeZone,
  // People: employees, leave requests, leave accrual ledger, 20.
  people,
  // Tax: BAS returns and 2150, 21.
  tax,
  // Fixed assets, 22.
  assets,
  // Pay runs and their lines, 23.
  payRuns,
  // Single Touch Payroll submissions, 24.
  stp,
  // Contacts: customers and suppliers as records, 25.
  contacts,
  // Organisation profile, agent revocation, pairing codes, 26.
  orgProfile,
  // The AI gateway's audit (books.ask) that cost.rollup sums, 27.
  aiCalls,
  // Date indexes of the calendar (meetings.list), 28.
  calendar,
  // Signed checkpoints of each chain head, 29.
  checkpoints,
  // Invoice numbers and references, lock date, conversion date, 30.
  dayOne,
  // Bill and expense claim issue dates, 31.
  migrationIssueDates,
  // Opening balances and corrections, 32.
  corrections,
  // Bank, credit-card and loan accounts as records, 33.
  bankAccounts,
  // The payment account printed on tax invoices, 34.
  paymentAccount,
  // The credential epoch on each organisation head, 35 (principals kept in memory by the API).
  authEpoch,
  // Pending fixed assets: what each depreciation run skipped, 36.
  pendingAssets,
  // Direct-entry details on bank account records; the funding record of each run, 37.
  directEntry,
  // OAuth clients and grants for remote MCP connectors, 38.
  oauth,
  // STP finalisation and amendment; submissions carry their financial year, 39.
  stpFinalise,
  // Dated changes to employees (books.employeeUpdate), 40.
  employeeChanges,
  // Super payments and the pay runs each settled (books.superPay), 41.
  superPayments,
  // The leave provision's accounts; payroll year to date and leave carried in by a conversion, 42.
  payrollConversion,
  // Pay items (overtime, penalties, allowances, bonuses, salary sacrifice) and hours to the hundredth, 43.
  payItems,
  // Terminations and the final pay each line keeps (books.employeeTerminate), 44.
  terminations,
  // An employee's hours a week to the hundredth, 45.
  hoursPerWeek,
  // STP finalisations keep the year-to-date split they reported, 46.
  stpReported,
  // The organisation's own chart: default tax code, reconcilable, archived, 47.
  chartAccounts,
  // Invoices written off as bad debts (books.invoiceWriteOff), 48.
  writeOff,
  // Contact credits, their allocations and refunds, supplier adjustment notes, 49.
  contactCredits,
  // Assets: tax treatment, carried in at conversion, sold by invoice, 50.
  assetsAccountant,
  // Budgets by account and month (books.budgetSet), 51.
  budgets,
  // Tracking categories and the options lines carry (books.trackingSet), 52.
  tracking,
  // Files kept with invoices, bills and journals (books.attachmentAdd), 53.
  attachments,
  // Repeating invoices and bills: schedules, one run per schedule and due date, 54.
  repeating,
  // Exchange rates, foreign invoices and bills, 4400 Foreign exchange gains and losses, 55.
  currencies,
  // Payments of bills in another currency (books.billRecordPayment), 56.
  billFxPayments,
  // Quotes, and the quote an invoice was drafted from, 57.
  quotes,
  // Key labels and people's names, shown wherever an actor is named, 58.
  actorNames,
  // The weekly digest: one row per organisation and week, each person's choice, 59.
  weeklyDigest,
  // Balances per document per account, kept by postJournal, 60.
  documentBalances,
  // The words of posted documents, looked up by bank lines for match suggestions, 61.
  documentWords,
  // Each account's totals per day, kept with every journal, so ledger reads do not sum every line, 62.
  dayTotals,
  // The statement of cash flows per day and line, kept with every journal, 63.
  cashFlowDays,
  // The GST summary per day and tax code, kept with every journal, 64.
  gstDays,
  // The bank postings bank lines can be matched to, by amount and words, for match suggestions, 66.
  bankJournalWords,
  // Each posted document's party key on its balance row, for the aged reports a page at a time, 67.
  partyKeyMigration,
];
