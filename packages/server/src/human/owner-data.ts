import { booksReads, payables, quotes, reconciliation, receivables, validate } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../binding.js';
import { orgToday } from '../clock.js';
import { DomainError, badRequest, notFound } from '../errors.js';
import { accountBalanceCents } from '../domain/gl/post.js';
import { listBills } from '../domain/payables/bills-read.js';
import { PAYABLES_ACCOUNT } from '../domain/payables/ledger-api.js';
import { DEFAULT_BANK_ACCOUNT } from '../domain/reconciliation/feed-import.js';
import { bankAccountsRead, listedBankAccounts } from '../domain/banking/accounts.js';
import { feedLinesList } from '../domain/reconciliation/feed-read.js';
import { loadSaleLines } from '../domain/receivables/invoice-lines.js';
import { INVOICE_COLUMNS, audOutstandingOf, outstandingOf, toInvoice, type InvoiceRow } from '../domain/receivables/invoices.js';
import { listInvoices } from '../domain/receivables/invoices-read.js';
import { listQuotes } from '../domain/quotes/quotes.js';
import { RECEIVABLES_ACCOUNT } from '../domain/receivables/ledger-api.js';
import { runReport } from '../domain/reports/reports.js';
import { basFigures, type Figures } from '../domain/tax/figures.js';
import { loadProfile } from '../org/profile.js';
import { moreReports } from './owner-reports-more.js';
import type { Principal } from '../principal.js';
import { placeholders } from '../storage/sql.js';
import type { Database, Queryable } from '../storage/types.js';
import { overviewCharts } from './owner-charts.js';
import { activityOf } from './activity.js';
import { OWNER_VIEW_ROLES, mayViewBooks } from './owner-access.js';
import type { HumanSession } from './sessions.js';

/**
 * The owner's read-only view of the books. Every figure comes from the same
 * domain function the API's read uses (books.invoices, books.bills, books.feedLinesList,
 * books.reports, the BAS figures), called with a read-only principal of the signed-in person's
 * organisation, so the page and the API can never disagree; the few queries of this file are
 * bounded (LIMIT) and always filtered by the session's organisation.
 */

export function requireBooksViewer(s: HumanSession): void {
  if (!mayViewBooks(s.role)) {
    throw new DomainError(
      'FORBIDDEN_SCOPE',
      `user ${s.userId} is a ${s.role}; the owner's view of the books is for ${OWNER_VIEW_ROLES.map((r) => `${r}s`).join(' and ')}`,
    );
  }
}

/** Rows per page of every list in the owner's view (the API's own page bound is 200). */
export const OWNER_PAGE_ROWS = 50;
/** Events on the overview, and per page of the activity list. */
export const ACTIVITY_OVERVIEW = 15;
export const ACTIVITY_PAGE = 50;
/**
 * Accounts that took feed lines without a record (an asset account used as a bank account before
 * bank account records existed): listed after the register, at most this many.
 */
const FEED_ONLY_ACCOUNTS_MAX = 20;

/**
 * The read context the API reads take: a principal of the session's organisation with only
 * books.read (observer tier), acting as the signed-in person. Reads never emit events.
 */
export function readContextOf(db: Database, s: HumanSession): ReadContext {
  const principal: Principal = {
    orgId: s.orgId,
    orgSlug: s.orgSlug,
    credentialId: s.userId,
    tier: 'observer',
    scopes: ['books.read'],
    actor: s.userId,
    agent: null,
  };
  return { db, principal };
}

/** The query string as text fields: a repeated field is refused, an empty one is absent. */
export type Query = Readonly<Record<string, unknown>> | undefined;

export function queryField(query: Query, name: string): string | undefined {
  const value = query?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`${name}: give it once, as text`);
  return value === '' ? undefined : value;
}

function parsedOr400<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const out = validate(schema, data);
  if (!out.ok) throw badRequest(out.message);
  return out.value;
}

// ---- invoices and bills ----

export type InvoiceStatusFilter = z.infer<typeof receivables.invoices.params>['status'];

export interface OwnerInvoice {
  readonly id: string;
  /** The human number (INV-0001) when the invoice has one, else null (show the id). */
  readonly number: string | null;
  readonly customer: string;
  readonly status: string;
  readonly issuedOn: string | null;
  readonly dueOn: string | null;
  readonly totalCents: number;
  readonly outstandingCents: number;
  readonly overdue: boolean;
  /** The document's currency when not AUD (its amounts are in it), else null. */
  readonly currency: string | null;
}

/** The fields a document read carries when its currency is not AUD (books.ts's foreign fields). */
export interface ForeignFields {
  readonly currency?: string;
  readonly exchangeRate?: string;
  readonly audTotalCents?: number;
  readonly audOutstandingCents?: number;
}
export const foreignOf = (d: object): ForeignFields => d;

/** Unpaid and past its due date, as at the organisation's today. */
export function isOverdue(d: { dueOn: string | null; outstandingCents: number; status: string }, today: string): boolean {
  return d.dueOn !== null && d.dueOn < today && d.outstandingCents > 0 && d.status !== 'draft' && d.status !== 'void';
}

/** Human numbers of a page of invoices (migration 30's invoices.number), one bounded query. */
async function invoiceNumbers(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await q.all<{ id: string; number: string | null }>(
    `SELECT id, number FROM invoices WHERE org_id = ? AND id IN (${placeholders(ids.length)})`,
    [orgId, ...ids],
  );
  return new Map(rows.map((r) => [r.id, r.number]));
}

export async function ownerInvoices(db: Database, s: HumanSession, query: Query) {
  const p = parsedOr400(receivables.invoices.params, {
    ...optional('status', queryField(query, 'status')),
    ...optional('cursor', queryField(query, 'cursor')),
    limit: OWNER_PAGE_ROWS,
  });
  const ctx = readContextOf(db, s);
  const [{ invoices, nextCursor }, today] = await Promise.all([listInvoices(p, ctx), orgToday(db, s.orgId)]);
  const numbers = await invoiceNumbers(
    db.reader,
    s.orgId,
    invoices.map((i) => i.id),
  );
  const rows: OwnerInvoice[] = invoices.map((i) => ({
    id: i.id,
    number: numbers.get(i.id) ?? null,
    customer: i.payeeName,
    status: i.status,
    issuedOn: i.issuedOn,
    dueOn: i.dueOn,
    totalCents: i.totalCents,
    outstandingCents: i.outstandingCents,
    overdue: isOverdue(i, today),
    currency: foreignOf(i).currency ?? null,
  }));
  return { rows, nextCursor, status: p.status ?? null, cursor: p.cursor ?? null, today };
}

/** Quotes as books.quotes lists them (read-only, a page at a time), filtered by status. */
export async function ownerQuotes(db: Database, s: HumanSession, query: Query) {
  const p = parsedOr400(quotes.quotes.params, {
    ...optional('status', queryField(query, 'status')),
    ...optional('cursor', queryField(query, 'cursor')),
    limit: OWNER_PAGE_ROWS,
  });
  const { quotes: rows, nextCursor } = await listQuotes(p, readContextOf(db, s));
  return { rows, nextCursor, status: p.status ?? null, cursor: p.cursor ?? null };
}

/** One invoice of this organisation with its lines and its ledger history; another's is 404. */
export async function ownerInvoice(db: Database, s: HumanSession, id: string) {
  const q = db.reader;
  const row = await q.get<InvoiceRow & { number: string | null }>(
    `SELECT ${INVOICE_COLUMNS}, number FROM invoices WHERE org_id = ? AND id = ?`,
    [s.orgId, id],
  );
  if (!row) throw notFound('invoice', id);
  const [lines, outstanding, audOutstanding, today] = await Promise.all([
    loadSaleLines(q, s.orgId, [row.id]),
    outstandingOf(q, s.orgId, row),
    audOutstandingOf(q, s.orgId, row),
    orgToday(db, s.orgId),
  ]);
  const invoice = toInvoice(row, lines.get(row.id) ?? [], outstanding, audOutstanding);
  const history = await activityOf(q, s.orgId, { entityId: row.id, limit: ACTIVITY_PAGE, viewerId: s.userId, today });
  return { invoice, number: row.number, overdue: isOverdue(invoice, today), history };
}

export interface OwnerBill {
  readonly id: string;
  readonly supplier: string;
  readonly status: string;
  readonly dueOn: string | null;
  readonly totalCents: number;
  readonly outstandingCents: number;
  readonly overdue: boolean;
  /** The document's currency when not AUD (its amounts are in it), else null. */
  readonly currency: string | null;
}

export async function ownerBills(db: Database, s: HumanSession, query: Query) {
  const p = parsedOr400(payables.bills.params, {
    ...optional('status', queryField(query, 'status')),
    ...optional('cursor', queryField(query, 'cursor')),
    limit: OWNER_PAGE_ROWS,
  });
  const ctx = readContextOf(db, s);
  const [{ bills, nextCursor }, today] = await Promise.all([listBills(p, ctx), orgToday(db, s.orgId)]);
  const rows: OwnerBill[] = bills.map((b) => ({
    id: b.id,
    supplier: b.payeeName,
    status: b.status,
    dueOn: b.dueOn,
    totalCents: b.totalCents,
    outstandingCents: b.outstandingCents,
    overdue: isOverdue(b, today),
    currency: foreignOf(b).currency ?? null,
  }));
  return { rows, nextCursor, status: p.status ?? null, cursor: p.cursor ?? null, today };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

// ---- bank feeds ----

export interface BankAccount {
  readonly code: string;
  readonly name: string;
  /** bank, credit_card or loan (an account that only took feed lines: bank). */
  readonly kind: string;
}

/**
 * Codes that took feed lines but have no record in the register (not in `known`), named from the
 * chart, at most FEED_ONLY_ACCOUNTS_MAX.
 */
async function feedOnlyAccounts(q: Queryable, orgId: string, known: ReadonlySet<string>): Promise<BankAccount[]> {
  const codes = await q.all<{ account_code: string }>(
    `SELECT DISTINCT account_code FROM bank_feed_lines WHERE org_id = ? ORDER BY account_code LIMIT ${FEED_ONLY_ACCOUNTS_MAX + known.size}`,
    [orgId],
  );
  const extra = codes
    .map((c) => c.account_code)
    .filter((c) => !known.has(c))
    .slice(0, FEED_ONLY_ACCOUNTS_MAX);
  if (extra.length === 0) return [];
  const names = await q.all<{ code: string; name: string }>(
    `SELECT code, name FROM accounts WHERE org_id = ? AND code IN (${placeholders(extra.length)})`,
    [orgId, ...extra],
  );
  const byCode = new Map(names.map((n) => [n.code, n.name]));
  return extra.map((code) => ({ code, name: byCode.get(code) ?? code, kind: 'bank' }));
}

/**
 * The organisation's bank accounts: the register books.bankAccounts lists (1000 first, then the
 * records owners added, by code; capped as the register is), then any account that took feed
 * lines without a record. A savings account an owner added is listed before it has a feed line.
 */
export async function bankAccounts(q: Queryable, orgId: string): Promise<BankAccount[]> {
  const register = (await listedBankAccounts(q, orgId)).map((a) => ({ code: a.accountCode, name: a.name, kind: a.kind }));
  const listed = register.some((a) => a.code === DEFAULT_BANK_ACCOUNT)
    ? register
    : [{ code: DEFAULT_BANK_ACCOUNT, name: DEFAULT_BANK_ACCOUNT, kind: 'bank' }, ...register];
  return [...listed, ...(await feedOnlyAccounts(q, orgId, new Set(listed.map((a) => a.code))))];
}

/**
 * Each bank account's summary: the ledger balance beside what is not yet reconciled. The
 * register's figures are books.bankAccounts' own (one read for all of them); an account that only
 * took feed lines has books.feedLinesList's summary.
 */
export async function bankSummaries(db: Database, s: HumanSession) {
  const ctx = readContextOf(db, s);
  const { accounts: register } = await bankAccountsRead({}, ctx);
  const out: { account: BankAccount; summary: { ledgerBalanceCents: number; unreconciledLines: number; unreconciledCents: number } }[] =
    register.map((a) => ({
      account: { code: a.accountCode, name: a.name, kind: a.kind },
      summary: { ledgerBalanceCents: a.ledgerBalanceCents, unreconciledLines: a.unreconciledLines, unreconciledCents: a.unreconciledCents },
    }));
  for (const a of await feedOnlyAccounts(db.reader, s.orgId, new Set(register.map((r) => r.accountCode)))) {
    const { summary } = await feedLinesList({ accountCode: a.code, limit: 1, suggestions: false }, ctx);
    out.push({ account: a, summary });
  }
  return out;
}

export async function ownerBank(db: Database, s: HumanSession, query: Query) {
  const accounts = await bankAccounts(db.reader, s.orgId);
  const code = queryField(query, 'account') ?? accounts[0]?.code ?? DEFAULT_BANK_ACCOUNT;
  const account = accounts.find((a) => a.code === code);
  if (!account) throw notFound('bank account', code);
  const p = parsedOr400(reconciliation.feedLinesList.params, {
    accountCode: code,
    status: queryField(query, 'status') ?? 'all',
    ...optional('cursor', queryField(query, 'cursor')),
    limit: OWNER_PAGE_ROWS,
    suggestions: false,
  });
  const { lines, nextCursor, summary } = await feedLinesList(p, readContextOf(db, s));
  return { accounts, account, lines, nextCursor, summary, status: p.status ?? 'all', cursor: p.cursor ?? null };
}

// ---- reports ----

/** The first day of the financial year `date` falls in, for a year starting in `startMonth`. */
export function yearStartOf(date: string, startMonth: number): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const y = month >= startMonth ? year : year - 1;
  return `${String(y).padStart(4, '0')}-${String(startMonth).padStart(2, '0')}-01`;
}

/**
 * P&L, BAS and payroll activity for from..to, balance sheet and leave balances as at `to`.
 * Default: this financial year (the profile's start month) to date. The period is checked by
 * books.reports' own params schema, so the page refuses exactly what the API refuses, naming the field.
 */
export async function ownerReports(db: Database, s: HumanSession, query: Query) {
  const [profile, today] = await Promise.all([loadProfile(db.reader, s.orgId), orgToday(db, s.orgId)]);
  const from = queryField(query, 'from') ?? yearStartOf(today, profile.financialYearStartMonth);
  const to = queryField(query, 'to') ?? today;
  const period = { from, to };
  // The comparison the picker chose ("none" or empty: none), checked by the same schema.
  const chosen = queryField(query, 'compare');
  const compare = chosen === 'none' ? undefined : chosen;
  const pl = parsedOr400(booksReads.reports.params, { type: 'profit_and_loss', from, to, ...optional('compare', compare) });
  const bs = parsedOr400(booksReads.reports.params, { type: 'balance_sheet', asOf: to, ...optional('compare', compare) });
  const ctx = readContextOf(db, s);
  const profitAndLoss = await runReport(pl, ctx);
  const balanceSheet = await runReport(bs, ctx);
  const payroll = await runReport(parsedOr400(booksReads.reports.params, { type: 'payroll_activity', from, to }), ctx);
  const leave = await runReport(parsedOr400(booksReads.reports.params, { type: 'leave_balances', asOf: to }), ctx);
  // Cash flow and budget against actual for the same period (owner-reports-more.ts).
  const more = await moreReports(ctx, from, to);
  const basis = profile.gstBasis;
  const bas: Figures = await basFigures(db.reader, s.orgId, from, to, basis);
  return {
    period,
    compare: pl.compare ?? null,
    // The declared results: with compare, every line carries its comparison and difference.
    profitAndLoss: profitAndLoss as z.infer<typeof booksReads.profitAndLoss>,
    balanceSheet: balanceSheet as z.infer<typeof booksReads.balanceSheet>,
    payroll: payroll as Extract<typeof payroll, { type: 'payroll_activity' }>,
    leave: leave as Extract<typeof leave, { type: 'leave_balances' }>,
    bas,
    basis,
    gstRegistered: profile.gstRegistered,
    cashFlow: more.cashFlow,
    budget: more.budget,
    depreciation: more.depreciation,
  };
}

// ---- chain and activity ----

export interface ChainFacts {
  readonly verifiedSeq: number | null;
  readonly verifiedAt: string | null;
  readonly checkpoint: { readonly seq: number; readonly createdAt: string; readonly keyName: string } | null;
}

/**
 * What is stored about the chain: the head the console last verified (ledger/migration.ts's
 * chain_verified, moved forward incrementally by every console page's header) and the newest
 * signed checkpoint. Nothing here re-reads the chain.
 */
export async function chainFacts(q: Queryable, orgId: string): Promise<ChainFacts> {
  const [v, c] = await Promise.all([
    q.get<{ seq: number; verified_at: string }>('SELECT seq, verified_at FROM chain_verified WHERE org_id = ?', [orgId]),
    q.get<{ seq: number; created_at: string; key_name: string }>(
      'SELECT seq, created_at, key_name FROM checkpoints WHERE org_id = ? ORDER BY seq DESC, key_name LIMIT 1',
      [orgId],
    ),
  ]);
  return {
    verifiedSeq: v ? Number(v.seq) : null,
    verifiedAt: v?.verified_at ?? null,
    checkpoint: c ? { seq: Number(c.seq), createdAt: c.created_at, keyName: c.key_name } : null,
  };
}

export { activityOf, type Activity } from './activity.js';

/** `before` of the activity page: a positive whole number (a seq), else BAD_REQUEST naming it. */
export function beforeSeqOf(query: Query): number | undefined {
  const before = queryField(query, 'before');
  if (before === undefined) return undefined;
  if (!/^[1-9]\d{0,14}$/.test(before)) throw badRequest('before: must be a positive whole number (an event seq)');
  return Number(before);
}

/** The overview's figures: receivables and payables from their control accounts, the bank. */
export async function ownerOverview(db: Database, s: HumanSession) {
  const q = db.reader;
  const today = await orgToday(db, s.orgId);
  const [receivable, payable, bank, chain, activity] = await Promise.all([
    accountBalanceCents(q, s.orgId, RECEIVABLES_ACCOUNT),
    accountBalanceCents(q, s.orgId, PAYABLES_ACCOUNT),
    bankSummaries(db, s),
    chainFacts(q, s.orgId),
    activityOf(q, s.orgId, { limit: ACTIVITY_OVERVIEW, viewerId: s.userId, today }),
  ]);
  const overdue = await q.get<{ invoices: number; bills: number }>(
    `SELECT (SELECT COUNT(*) FROM invoices WHERE org_id = ? AND status IN ('sent', 'part_paid') AND due_on < ?) AS invoices,
            (SELECT COUNT(*) FROM bills WHERE org_id = ? AND status IN ('approved', 'held', 'on_hold', 'captured') AND due_on < ?) AS bills`,
    [s.orgId, today, s.orgId, today],
  );
  // The pictures read after the bank list, which names the accounts they draw.
  const charts = await overviewCharts(
    readContextOf(db, s),
    today,
    bank.map((b) => b.account),
  );
  return {
    today,
    receivableCents: receivable,
    // 2000 is a liability: its normal balance is a credit, shown positive.
    payableCents: -payable,
    overdueInvoices: Number(overdue?.invoices ?? 0),
    overdueBills: Number(overdue?.bills ?? 0),
    bank,
    chain,
    activity: activity.items,
    charts,
  };
}
