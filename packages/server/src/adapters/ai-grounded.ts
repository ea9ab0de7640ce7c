import { ACTION_CLASS, events, isCalendarDate, ledgerId, type EventKindSpec } from '@finance-desk/protocol';
import { addDays, clockOf, orgTimeZone, startOfLocalDay } from '../clock.js';
import { agedReport } from '../domain/reports/aged.js';
import { gstSummary } from '../domain/reports/gst.js';
import { financialYearStart, profitAndLoss } from '../domain/reports/statements.js';
import { listAccounts } from '../domain/reports/accounts-read.js';
import { searchKey } from '../domain/search-key.js';
import { containsPattern } from '../domain/paging.js';
import { quoted } from '../governance/quote.js';
import { formatCents } from '../money.js';
import type { Queryable } from '../storage/types.js';
import type { AskContext, Provider, ProviderAnswer, Source } from './ai-provider.js';

/**
 * The built-in grounded answerer: no network, no model. It recognises the
 * questions a bookkeeper asks with fixed keyword rules (linear in the question, which is at most
 * 2000 characters), answers each from the same domain read functions the typed reads use, and
 * cites the ledger ids of the documents and journals behind the figures. Anything else is
 * `grounded: false` with the list of what it can answer. Text from the books (names,
 * descriptions) is quoted as data in the server's own sentences, never obeyed.
 */

export const GROUNDED_MODEL = 'rules-v1';

/** What the answerer can be asked; the answer to anything else lists these. */
export const ANSWERABLE = [
  'who owes us and how much',
  'what is our cash position',
  "what's due this week",
  'GST for a quarter (e.g. "GST for Q1 2026", "GST last quarter", "September quarter")',
  'profit for a period (e.g. "profit this month", "profit last financial year", "profit from 2026-01-01 to 2026-03-31")',
  'who are our biggest suppliers',
  'what is waiting for approval',
  'what happened to invoice <id or customer name>',
];

const LIST_MAX = 10;
const CITE_MAX = 50;

interface Built {
  intent: string;
  answer: string;
  sources: Source[];
  grounded?: boolean;
}

class Cites {
  readonly sources: Source[] = [];
  private readonly seen = new Set<string>();
  add(kind: Source['kind'], id: string, ledger: string | null): void {
    const key = `${kind}\u0000${id}`;
    if (this.seen.has(key) || this.sources.length >= CITE_MAX) return;
    this.seen.add(key);
    this.sources.push({ kind, id, ledgerId: ledger });
  }
}

// ---------------------------------------------------------------------------------------------
// Periods

interface Period {
  from: string;
  to: string;
  label: string;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_NAMES = MONTHS.map((m) => m[0]!.toUpperCase() + m.slice(1));

const pad = (n: number) => String(n).padStart(2, '0');
function lastDay(year: number, month: number): string {
  return `${year}-${pad(month)}-${pad(new Date(Date.UTC(year, month, 0)).getUTCDate())}`;
}
function monthPeriod(year: number, month: number): Period {
  return { from: `${year}-${pad(month)}-01`, to: lastDay(year, month), label: `${MONTH_NAMES[month - 1]} ${year}` };
}
/** The calendar quarter that starts with `startMonth` (1, 4, 7, 10). */
function quarterPeriod(year: number, startMonth: number): Period {
  const end = startMonth + 2;
  return {
    from: `${year}-${pad(startMonth)}-01`,
    to: lastDay(year, end),
    label: `the ${MONTH_NAMES[end - 1]} quarter ${year} (${MONTH_NAMES[startMonth - 1]}–${MONTH_NAMES[end - 1]})`,
  };
}
function quarterOf(date: string): { year: number; start: number } {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  return { year: y, start: Math.floor((m - 1) / 3) * 3 + 1 };
}
function previousQuarter(q: { year: number; start: number }): { year: number; start: number } {
  return q.start === 1 ? { year: q.year - 1, start: 10 } : { year: q.year, start: q.start - 3 };
}

/** A quarter named in the question, or null. "Q1 2026" is January–March 2026; "Q1 FY2026" the ATO's July–September 2025. */
function quarterIn(text: string, asOf: string): Period | null {
  const fy = /\bq([1-4])\s*(?:of\s*)?fy\s*(\d{4}|\d{2})\b/.exec(text);
  if (fy) {
    const n = Number(fy[1]);
    const fyEnd = fy[2]!.length === 2 ? 2000 + Number(fy[2]) : Number(fy[2]);
    // FY ending 30 June fyEnd: Q1 Jul–Sep (fyEnd − 1), Q2 Oct–Dec, Q3 Jan–Mar, Q4 Apr–Jun.
    const start = [7, 10, 1, 4][n - 1]!;
    return quarterPeriod(n <= 2 ? fyEnd - 1 : fyEnd, start);
  }
  const cal = /\bq([1-4])\s*(\d{4})\b/.exec(text) ?? /\b(?:quarter\s*)([1-4])\s*(?:of\s*)?(\d{4})\b/.exec(text);
  if (cal) return quarterPeriod(Number(cal[2]), (Number(cal[1]) - 1) * 3 + 1);
  const named = /\b(march|june|september|december)\s+quarter(?:\s+(?:of\s+)?(\d{4}))?/.exec(text);
  if (named) {
    const end = MONTHS.indexOf(named[1]!) + 1;
    const start = end - 2;
    if (named[2]) return quarterPeriod(Number(named[2]), start);
    // The latest such quarter that has begun by asOf.
    const y = Number(asOf.slice(0, 4));
    const candidate = quarterPeriod(y, start);
    return candidate.from <= asOf ? candidate : quarterPeriod(y - 1, start);
  }
  if (/\blast quarter\b|\bprevious quarter\b/.test(text)) {
    const q = previousQuarter(quarterOf(asOf));
    return quarterPeriod(q.year, q.start);
  }
  if (/\bthis quarter\b|\bcurrent quarter\b/.test(text)) {
    const q = quarterOf(asOf);
    return quarterPeriod(q.year, q.start);
  }
  return null;
}

/** A period named in the question (explicit dates, month, quarter, financial year), or null. */
function periodIn(text: string, asOf: string): Period | null {
  const dates = [...text.matchAll(/\b(\d{4}-\d{2}-\d{2})\b/g)].map((m) => m[1]!).filter(isCalendarDate);
  if (dates.length >= 2) {
    const [a, b] = [dates[0]!, dates[1]!].sort();
    return { from: a!, to: b!, label: `${a} to ${b}` };
  }
  const fyStart = financialYearStart(asOf);
  const fyStartYear = Number(fyStart.slice(0, 4));
  if (/\b(last|previous|prior) (financial year|fy)\b/.test(text)) {
    return {
      from: `${fyStartYear - 1}-07-01`,
      to: `${fyStartYear}-06-30`,
      label: `the financial year ${fyStartYear - 1}–${String(fyStartYear).slice(2)}`,
    };
  }
  if (/\b(this|current) (financial year|fy)\b|\byear to date\b|\bytd\b/.test(text)) {
    return { from: fyStart, to: asOf, label: `this financial year to ${asOf}` };
  }
  const y = Number(asOf.slice(0, 4));
  const m = Number(asOf.slice(5, 7));
  if (/\blast month\b|\bprevious month\b/.test(text)) return m === 1 ? monthPeriod(y - 1, 12) : monthPeriod(y, m - 1);
  if (/\bthis month\b|\bcurrent month\b|\bmonth to date\b/.test(text)) {
    return { from: `${y}-${pad(m)}-01`, to: asOf, label: `this month to ${asOf}` };
  }
  const quarter = quarterIn(text, asOf);
  if (quarter) return quarter;
  if (/\blast year\b/.test(text)) return { from: `${y - 1}-01-01`, to: `${y - 1}-12-31`, label: `calendar ${y - 1}` };
  if (/\bthis year\b/.test(text)) return { from: `${y}-01-01`, to: asOf, label: `calendar ${y} to ${asOf}` };
  const month = /\b(january|february|march|april|may|june|july|august|september|october|november|december)\s+(\d{4})\b/.exec(text);
  if (month) return monthPeriod(Number(month[2]), MONTHS.indexOf(month[1]!) + 1);
  return null;
}

// ---------------------------------------------------------------------------------------------
// Helpers reading ledger ids

async function ledgerIdsOf(q: Queryable, orgId: string, table: 'invoices' | 'bills', ids: readonly string[]) {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    if (chunk.length === 0) break;
    const rows = await q.all<{ id: string; ledger_id: string }>(
      `SELECT id, ledger_id FROM ${table} WHERE org_id = ? AND id IN (${chunk.map(() => '?').join(', ')})`,
      [orgId, ...chunk],
    );
    for (const r of rows) out.set(r.id, r.ledger_id);
  }
  return out;
}

/** Journals (latest first, at most `limit`) in from..to with a line on one of `accounts`. */
async function journalsOn(q: Queryable, orgId: string, accounts: string, from: string, to: string, limit = 20) {
  return q.all<{ id: string; ledger_id: string; date: string }>(
    `SELECT j.id, j.ledger_id, j.date FROM journals j
     WHERE j.org_id = ? AND j.date >= ? AND j.date <= ?
       AND EXISTS (SELECT 1 FROM journal_lines l WHERE l.org_id = j.org_id AND l.journal_id = j.id AND ${accounts})
     ORDER BY j.date DESC, j.id DESC LIMIT ${limit}`,
    [orgId, from, to],
  );
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------------------------------------
// Intents

async function receivables(ctx: AskContext): Promise<Built> {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const aged = await agedReport(q, orgId, 'aged_receivables', ctx.asOf);
  const cites = new Cites();
  cites.add('report', `aged_receivables@${ctx.asOf}`, null);
  if (aged.parties.length === 0) {
    return {
      intent: 'receivables',
      answer: `No customer owes anything as at ${ctx.asOf} (accounts receivable is ${formatCents(aged.totals.totalCents)}).`,
      sources: cites.sources,
    };
  }
  const parties = [...aged.parties].sort((a, b) => b.totalCents - a.totalCents || a.party.localeCompare(b.party));
  const shown = parties.slice(0, LIST_MAX);
  const ids = shown.flatMap((p) => p.items.map((i) => i.id));
  const ledger = await ledgerIdsOf(q, orgId, 'invoices', ids);
  for (const id of ids) cites.add('invoice', id, ledger.get(id) ?? null);
  const overdue = aged.totals.totalCents - aged.totals.currentCents;
  const lines = shown.map((p) => {
    const late = p.totalCents - p.currentCents;
    const count = p.items.length;
    return (
      `${quoted(p.party)} owes ${formatCents(p.totalCents)} on ${plural(count, 'invoice')}` +
      (late > 0 ? ` (${formatCents(late)} overdue)` : ' (none overdue)')
    );
  });
  const more = parties.length > shown.length ? ` …and ${plural(parties.length - shown.length, 'more customer')}.` : '';
  return {
    intent: 'receivables',
    answer:
      `As at ${ctx.asOf}, ${plural(parties.length, 'customer')} ${parties.length === 1 ? 'owes' : 'owe'} ${formatCents(aged.totals.totalCents)} in total, ` +
      `${formatCents(overdue)} of it overdue. ${lines.join('; ')}.${more}`,
    sources: cites.sources,
  };
}

async function cash(ctx: AskContext): Promise<Built> {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const { accounts } = await listAccounts({ asOf: ctx.asOf, type: 'asset' }, ctx);
  const bank = accounts.find((a) => a.code === '1000');
  const clearing = accounts.find((a) => a.code === '1300');
  const cites = new Cites();
  const journals = await journalsOn(q, orgId, "l.account_code IN ('1000', '1300')", '0000-01-01', ctx.asOf);
  for (const j of journals) cites.add('journal', j.id, j.ledger_id);
  const bankCents = bank?.balanceCents ?? 0;
  const clearingCents = clearing?.balanceCents ?? 0;
  let answer = `As at ${ctx.asOf}, the business bank account (1000) holds ${formatCents(bankCents)} by the ledger.`;
  if (clearingCents !== 0) answer += ` Another ${formatCents(clearingCents)} sits in bank clearing (1300, not yet reconciled).`;
  answer +=
    journals.length > 0
      ? ` Cited: the latest ${plural(journals.length, 'posting')} to those accounts.`
      : ' Nothing has been posted to the bank yet.';
  return { intent: 'cash', answer, sources: cites.sources };
}

async function dueThisWeek(ctx: AskContext): Promise<Built> {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const until = addDays(ctx.asOf, 7);
  const [ar, ap] = await Promise.all([agedReport(q, orgId, 'aged_receivables', ctx.asOf), agedReport(q, orgId, 'aged_payables', ctx.asOf)]);
  const pick = (r: typeof ar) =>
    r.parties
      .flatMap((p) => p.items.map((i) => ({ ...i, party: p.party })))
      .filter((i) => i.dueOn >= ctx.asOf && i.dueOn <= until)
      .sort((a, b) => a.dueOn.localeCompare(b.dueOn) || a.id.localeCompare(b.id));
  const inv = pick(ar);
  const bills = pick(ap);
  const cites = new Cites();
  const [invLedger, billLedger] = await Promise.all([
    ledgerIdsOf(
      q,
      orgId,
      'invoices',
      inv.slice(0, CITE_MAX).map((i) => i.id),
    ),
    ledgerIdsOf(
      q,
      orgId,
      'bills',
      bills.slice(0, CITE_MAX).map((i) => i.id),
    ),
  ]);
  for (const i of inv.slice(0, LIST_MAX)) cites.add('invoice', i.id, invLedger.get(i.id) ?? null);
  for (const b of bills.slice(0, LIST_MAX)) cites.add('bill', b.id, billLedger.get(b.id) ?? null);
  const sum = (xs: typeof inv) => xs.reduce((s, x) => s + x.outstandingCents, 0);
  const describe = (xs: typeof inv) =>
    xs
      .slice(0, LIST_MAX)
      .map((x) => `${x.id} ${quoted(x.party)} ${formatCents(x.outstandingCents)} due ${x.dueOn}`)
      .join('; ') + (xs.length > LIST_MAX ? `; …and ${xs.length - LIST_MAX} more` : '');
  const parts = [`From ${ctx.asOf} to ${until}:`];
  parts.push(
    inv.length === 0
      ? 'no invoice falls due.'
      : `${plural(inv.length, 'invoice')} ${inv.length === 1 ? 'falls' : 'fall'} due, ${formatCents(sum(inv))} to come in (${describe(inv)}).`,
  );
  parts.push(
    bills.length === 0
      ? 'No approved bill falls due.'
      : `${plural(bills.length, 'approved bill')} ${bills.length === 1 ? 'falls' : 'fall'} due, ${formatCents(sum(bills))} to pay (${describe(bills)}).`,
  );
  const overdueIn = ar.totals.totalCents - ar.totals.currentCents;
  const overdueOut = ap.totals.totalCents - ap.totals.currentCents;
  if (overdueIn > 0 || overdueOut > 0) {
    parts.push(`Already overdue: ${formatCents(overdueIn)} owed to us and ${formatCents(overdueOut)} we owe.`);
  }
  return { intent: 'due_this_week', answer: parts.join(' '), sources: cites.sources };
}

const BAS_WORDS: Record<string, string> = {
  prepared: 'prepared but not signed or lodged',
  held: 'held (not lodged)',
  lodging: 'signed and queued for lodgement — not lodged yet; lodgement completes only when the lodgement channel confirms delivery',
  lodged: 'lodged',
};

async function gst(ctx: AskContext, text: string): Promise<Built> {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const period =
    quarterIn(text, ctx.asOf) ??
    periodIn(text, ctx.asOf) ??
    (() => {
      const p = quarterOf(ctx.asOf);
      return quarterPeriod(p.year, p.start);
    })();
  const g = await gstSummary(q, orgId, period.from, period.to, 'accounts');
  const cites = new Cites();
  cites.add('report', `gst_summary@${period.from}..${period.to}`, null);
  // Exact cents (the BAS front drops cents): what a bookkeeper reconciles to.
  const oneA = g.exactCents['1A'] ?? 0;
  const oneB = g.exactCents['1B'] ?? 0;
  const w2 = g.exactCents.W2 ?? 0;
  const net = oneA - oneB;
  let answer =
    `GST for ${period.label}, ${period.from} to ${period.to} (accruals, from the ledger): ` +
    `GST on sales (1A) ${formatCents(oneA)}, GST credits (1B) ${formatCents(oneB)}, ` +
    (net > 0 ? `net ${formatCents(net)} payable to the ATO` : net < 0 ? `net ${formatCents(-net)} refundable by the ATO` : 'net nil') +
    (w2 !== 0 ? `; PAYG withheld (W2) ${formatCents(w2)}, paid with the BAS` : '') +
    '.';
  const bas = await q.all<{
    id: string;
    status: string;
    ledger_id: string;
    lodged_at: string | null;
    receipt_file: string | null;
    period_start: string;
    period_end: string;
  }>(
    `SELECT id, status, ledger_id, lodged_at, receipt_file, period_start, period_end FROM bas_returns
     WHERE org_id = ? AND period_start <= ? AND period_end >= ? ORDER BY period_start, id LIMIT 10`,
    [orgId, period.to, period.from],
  );
  if (bas.length === 0) {
    answer += ' No BAS has been prepared for this period, so nothing is lodged.';
  }
  for (const b of bas) {
    cites.add('bas', b.id, b.ledger_id);
    const held = await q.get<{ id: string; created_at: string }>(
      `SELECT id, created_at FROM holds WHERE org_id = ? AND action_class = ? AND subject_id = ? AND released_at IS NULL
       ORDER BY created_at DESC LIMIT 1`,
      [orgId, ACTION_CLASS.taxSignLodge, b.id],
    );
    let words = BAS_WORDS[b.status] ?? b.status;
    if (b.status === 'lodged' && b.lodged_at) words = `lodged on ${b.lodged_at.slice(0, 10)} (receipt ${b.receipt_file ?? 'on file'})`;
    if (held && b.status === 'prepared') {
      words = 'held for a human to sign (taxSignLodge is waiting for approval) — not lodged';
      const ev = await latestEventOf(q, orgId, b.id, events.signatureHold);
      if (ev) cites.add('hold', held.id, ev);
    }
    answer += ` BAS ${b.id} (${b.period_start} to ${b.period_end}) is ${words}.`;
  }
  const journals = await journalsOn(q, orgId, 'l.gst_cents <> 0', period.from, period.to);
  for (const j of journals) cites.add('journal', j.id, j.ledger_id);
  return { intent: 'gst', answer, sources: cites.sources };
}

async function latestEventOf(q: Queryable, orgId: string, entityId: string, event: EventKindSpec): Promise<string | null> {
  const row = await q.get<{ row_hash: string }>(
    'SELECT row_hash FROM events WHERE org_id = ? AND entity_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1',
    [orgId, entityId, event.kind],
  );
  return row ? ledgerId(row.row_hash) : null;
}

async function profit(ctx: AskContext, text: string): Promise<Built> {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const period = periodIn(text, ctx.asOf) ?? {
    from: financialYearStart(ctx.asOf),
    to: ctx.asOf,
    label: `this financial year to ${ctx.asOf}`,
  };
  const pl = await profitAndLoss(q, orgId, period.from, period.to);
  const cites = new Cites();
  cites.add('report', `profit_and_loss@${period.from}..${period.to}`, null);
  const journals = await journalsOn(
    q,
    orgId,
    "l.account_code IN (SELECT a.code FROM accounts a WHERE a.org_id = l.org_id AND a.type IN ('revenue', 'expense'))",
    period.from,
    period.to,
  );
  for (const j of journals) cites.add('journal', j.id, j.ledger_id);
  const net = pl.netProfitCents;
  const answer =
    `For ${period.label} (${period.from} to ${period.to}): revenue ${formatCents(pl.revenue.totalCents)}, ` +
    `expenses ${formatCents(pl.expenses.totalCents)}, ` +
    (net >= 0 ? `net profit ${formatCents(net)}.` : `net loss ${formatCents(-net)}.`);
  return { intent: 'profit', answer, sources: cites.sources };
}

async function suppliers(ctx: AskContext, text: string): Promise<Built> {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const period = periodIn(text, ctx.asOf) ?? {
    from: financialYearStart(ctx.asOf),
    to: ctx.asOf,
    label: `this financial year to ${ctx.asOf}`,
  };
  const tz = await orgTimeZone(q, orgId);
  const fromInstant = startOfLocalDay(period.from, tz);
  const toInstant = startOfLocalDay(addDays(period.to, 1), tz);
  const rows = await q.all<{ payee_key: string; payee: string; total: number | string; n: number | string }>(
    `SELECT payee_key, MIN(payee_name) AS payee, SUM(total_cents) AS total, COUNT(*) AS n FROM bills
     WHERE org_id = ? AND approved_at IS NOT NULL AND status <> 'returned' AND approved_at >= ? AND approved_at < ?
     GROUP BY payee_key ORDER BY SUM(total_cents) DESC, payee_key LIMIT 5`,
    [orgId, fromInstant, toInstant],
  );
  const cites = new Cites();
  if (rows.length === 0) {
    return {
      intent: 'suppliers',
      answer: `No bill was approved in ${period.label} (${period.from} to ${period.to}).`,
      sources: cites.sources,
    };
  }
  const keys = rows.map((r) => r.payee_key);
  const bills = await q.all<{ id: string; ledger_id: string }>(
    `SELECT id, ledger_id FROM bills WHERE org_id = ? AND approved_at IS NOT NULL AND status <> 'returned' AND approved_at >= ? AND approved_at < ?
     AND payee_key IN (${keys.map(() => '?').join(', ')}) ORDER BY approved_at DESC, id LIMIT ${CITE_MAX}`,
    [orgId, fromInstant, toInstant, ...keys],
  );
  for (const b of bills) cites.add('bill', b.id, b.ledger_id);
  const list = rows.map((r, i) => `${i + 1}. ${quoted(r.payee)} ${formatCents(Number(r.total))} on ${plural(Number(r.n), 'bill')}`);
  return {
    intent: 'suppliers',
    answer: `Biggest suppliers by approved bills (GST inclusive) in ${period.label} (${period.from} to ${period.to}): ${list.join('; ')}.`,
    sources: cites.sources,
  };
}

async function approvals(ctx: AskContext): Promise<Built> {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const now = clockOf(ctx.db)();
  const [pending, holds, pendingCount, holdCount] = await Promise.all([
    q.all<{ id: string; action_class: string; subject_id: string; expires_at: string; ledger_id: string }>(
      `SELECT id, action_class, subject_id, expires_at, ledger_id FROM approvals
       WHERE org_id = ? AND status = 'pending' AND expires_at >= ? ORDER BY requested_at, id LIMIT ${LIST_MAX}`,
      [orgId, now],
    ),
    q.all<{ id: string; action_class: string; subject_id: string; created_at: string }>(
      `SELECT id, action_class, subject_id, created_at FROM holds WHERE org_id = ? AND released_at IS NULL ORDER BY created_at, id LIMIT ${LIST_MAX}`,
      [orgId],
    ),
    q.get<{ n: number | string }>("SELECT COUNT(*) AS n FROM approvals WHERE org_id = ? AND status = 'pending' AND expires_at >= ?", [
      orgId,
      now,
    ]),
    q.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM holds WHERE org_id = ? AND released_at IS NULL', [orgId]),
  ]);
  const cites = new Cites();
  for (const a of pending) cites.add('approval', a.id, a.ledger_id);
  for (const h of holds) cites.add('hold', h.id, await latestEventOf(q, orgId, h.subject_id, events.signatureHold));
  const np = Number(pendingCount?.n ?? 0);
  const nh = Number(holdCount?.n ?? 0);
  const parts = [
    np === 0
      ? 'No approval is waiting for a human decision.'
      : `${plural(np, 'approval')} ${np === 1 ? 'is' : 'are'} waiting for a human decision: ` +
        pending.map((a) => `${a.id} (${a.action_class} on ${a.subject_id}, expires ${a.expires_at})`).join('; ') +
        '.',
    nh === 0
      ? 'No act is held.'
      : `${plural(nh, 'held act')} ${nh === 1 ? 'awaits' : 'await'} a human's signature: ` +
        holds.map((h) => `${h.action_class} on ${h.subject_id} since ${h.created_at.slice(0, 10)}`).join('; ') +
        '.',
  ];
  return { intent: 'approvals', answer: parts.join(' '), sources: cites.sources.filter((s) => s.ledgerId !== null || s.kind !== 'hold') };
}

const INVOICE_ID = /\b(inv_[a-z0-9_-]{1,60})\b/i;

async function invoiceHistory(ctx: AskContext, original: string, text: string): Promise<Built | null> {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  type Row = { id: string; payee_name: string; description: string; status: string; total_cents: number | string; ledger_id: string };
  const cols = 'id, payee_name, description, status, total_cents, ledger_id';
  let rows: Row[];
  const byId = INVOICE_ID.exec(original);
  if (byId) {
    rows = await q.all<Row>(`SELECT ${cols} FROM invoices WHERE org_id = ? AND id = ?`, [orgId, byId[1]!]);
    if (rows.length === 0) {
      return { intent: 'invoice_history', answer: `There is no invoice ${byId[1]} in these books.`, sources: [], grounded: false };
    }
  } else {
    const name = /\binvoices?\s+(?:to|for|from|of|sent to|billed to)\s+(.{1,100}?)\s*(?:[?.!]|$)/.exec(text);
    if (!name) return null;
    const key = searchKey(name[1]!.replace(/^the\s+/, ''));
    if (key === '') return null;
    rows = await q.all<Row>(`SELECT ${cols} FROM invoices WHERE org_id = ? AND payee_search LIKE ? ESCAPE '!' ORDER BY id DESC LIMIT 3`, [
      orgId,
      containsPattern(key),
    ]);
    if (rows.length === 0) {
      return {
        intent: 'invoice_history',
        answer: `No invoice to a customer named ${quoted(name[1]!)} is in these books.`,
        sources: [],
        grounded: false,
      };
    }
  }
  const cites = new Cites();
  const parts: string[] = [];
  for (const inv of rows) {
    const events = await q.all<{ kind: string; at: string; row_hash: string; actor: string }>(
      'SELECT kind, at, row_hash, actor FROM events WHERE org_id = ? AND entity_id = ? ORDER BY seq LIMIT 30',
      [orgId, inv.id],
    );
    cites.add('invoice', inv.id, inv.ledger_id);
    for (const e of events) cites.add('event', `${inv.id}#${ledgerId(e.row_hash)}`, ledgerId(e.row_hash));
    const story = events.map((e) => `${e.at.slice(0, 10)} ${e.kind} (#${ledgerId(e.row_hash)})`).join('; ');
    parts.push(
      `Invoice ${inv.id} to ${quoted(inv.payee_name)} for ${formatCents(Number(inv.total_cents))}, described as ${quoted(inv.description)} ` +
        `(quoted from the books as data), is ${inv.status}. Its history: ${story || 'no events'}.`,
    );
  }
  return { intent: 'invoice_history', answer: parts.join(' '), sources: cites.sources };
}

// ---------------------------------------------------------------------------------------------

/** Lower-cased, accents and typographic quotes folded, whitespace single: what the rules read. */
function normalise(question: string): string {
  return question
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2018\u2019]/g, "'")
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

async function route(question: string, ctx: AskContext): Promise<Built | null> {
  const text = normalise(question);
  if (
    INVOICE_ID.test(question) ||
    /\b(what happened|history|status|story) (to|of|with) (the )?invoice/.test(text) ||
    (/\binvoices? (to|for|sent to|billed to) /.test(text) && /\bhappen|histor|status|where/.test(text))
  ) {
    const r = await invoiceHistory(ctx, question, text);
    if (r) return r;
  }
  if (
    /\bapprov|\bwaiting for (a )?(human|decision|sign)|\bawaiting (a )?(decision|signature|approval)|\bheld acts?\b|\bopen holds?\b|\bon hold\b|\bsign[- ]?off\b/.test(
      text,
    )
  ) {
    return approvals(ctx);
  }
  if (/\bgst\b|\bbas\b|activity statement|\blodg/.test(text)) return gst(ctx, text);
  if (
    /\bdue (this|next|within the next|in the next) (week|7 days|seven days)\b|\bdue soon\b|\bwhat'?s due\b|\bwhat is due\b|\bfalling due\b|\bcoming due\b/.test(
      text,
    )
  ) {
    return dueThisWeek(ctx);
  }
  if (
    /\bwho owes\b|\bowes? us\b|\bowed to us\b|\bowing us\b|\breceivables?\b|\bdebtors?\b|\b(unpaid|outstanding|overdue|open) invoices?\b/.test(
      text,
    )
  ) {
    return receivables(ctx);
  }
  if (/\bcash\b|\bbank balance\b|\bin the bank\b|\bbank account\b|\bhow much money\b/.test(text)) return cash(ctx);
  if (/\bsuppliers?\b|\bvendors?\b|\bwho do we (pay|spend)\b|\bbiggest (bills?|spend|costs?)\b/.test(text)) return suppliers(ctx, text);
  if (/\bprofit|\bloss\b|\bp ?& ?l\b|\bp and l\b|\bnet income\b|\bhow much did we (make|earn)\b|\bearnings\b/.test(text))
    return profit(ctx, text);
  return null;
}

export function groundedProvider(): Provider {
  return {
    name: 'grounded',
    model: GROUNDED_MODEL,
    async answer(question: string, ctx: AskContext): Promise<ProviderAnswer> {
      const built = await route(question, ctx);
      const usage = { inputTokens: 0, outputTokens: 0 };
      if (!built) {
        return {
          answer: `I can't answer that from the books. I can answer: ${ANSWERABLE.join('; ')}.`,
          citations: [],
          sources: [],
          grounded: false,
          intent: null,
          usage,
        };
      }
      const citations = built.sources.map((s) => s.ledgerId).filter((l): l is string => l !== null);
      return { answer: built.answer, citations, sources: built.sources, grounded: built.grounded ?? true, intent: built.intent, usage };
    },
  };
}
