import { ACTION_CLASS, type ActionClass } from '@finance-desk/protocol';
import { formatCents } from '../money.js';
import { placeholders } from '../storage/sql.js';
import type { Queryable } from '../storage/types.js';
import { quoted } from './quote.js';

/**
 * What a person deciding an approval needs first: how much, to whom, from which
 * account, and when, read by the server from the approval's subject and its recorded params, the
 * same for the approval email and the console card. Names an agent typed (payees, customers) are
 * quoted, so they never pass for the server's words. A fact this class of act does not have is
 * null, and the card says so rather than guessing.
 *
 * Reads tables directly (never the areas' modules): governance is imported by every area, so it
 * must not import them back.
 */
export interface ApprovalFacts {
  /** "$5,500.00" with what the amount is ("bill total", "still owed", "net pay"). */
  readonly amount: { readonly cents: number; readonly label: string } | null;
  readonly toWhom: string | null;
  /** The account money leaves from (funding account), or the payee's account a bill pays into. */
  readonly fromAccount: string | null;
  readonly payeeAccount: string | null;
  /** When the money moves (payment date of a run or pay run). */
  readonly paymentDate: string | null;
  /** A document's due date and its state today: "overdue by 3 days", "not due until …", "due today". */
  readonly due: { readonly on: string; readonly words: string; readonly overdue: boolean } | null;
  /** Text an agent wrote on the subject (a bill's description and note, an invoice's description), unquoted. */
  readonly agentText: readonly { readonly label: string; readonly text: string }[];
}

export interface ApprovalSubject {
  readonly actionClass: ActionClass;
  readonly subjectId: string;
  readonly params: unknown;
}

/**
 * The subject id prefix of an STP finalisation or amendment (books.stpFinalise, class
 * books.payroll_sign): its subject is a financial year's figures, not a pay run.
 */
export const STP_FINALISATION_SUBJECT = 'stpfy_';

/**
 * The subject id prefix of a super payment (books.superPay, class books.payroll_sign): its subject
 * is the runs, funds and account the human reads, not a pay run.
 */
export const SUPER_PAYMENT_SUBJECT = 'suppay_';

const NONE: ApprovalFacts = {
  amount: null,
  toWhom: null,
  fromAccount: null,
  payeeAccount: null,
  paymentDate: null,
  due: null,
  agentText: [],
};

const said = (label: string, text: string | null) => (text ? [{ label, text: text.slice(0, 500) }] : []);

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** A due date in words relative to `today` (the organisation's local date). */
export function dueWords(dueOn: string, today: string): { on: string; words: string; overdue: boolean } {
  const late = daysBetween(dueOn, today);
  if (late > 0) return { on: dueOn, words: `overdue by ${late} day${late === 1 ? '' : 's'}`, overdue: true };
  if (late === 0) return { on: dueOn, words: 'due today', overdue: false };
  const ahead = -late;
  return { on: dueOn, words: `not due until ${dueOn} (in ${ahead} day${ahead === 1 ? '' : 's'})`, overdue: false };
}

interface Funding {
  readonly bsb?: string;
  readonly accountNumber?: string;
  readonly bankCode?: string;
  readonly userName?: string;
  readonly accountName?: string;
}

/** A funding account in words: bank, BSB, number and the account's name (the agent's words, quoted). */
export function fundingWords(f: Funding | null | undefined): string | null {
  if (!f || typeof f.bsb !== 'string' || typeof f.accountNumber !== 'string') return null;
  const name = f.accountName ?? f.userName;
  return `${f.bankCode ? `${f.bankCode} ` : ''}BSB ${f.bsb} account ${f.accountNumber}${name ? ` (${quoted(name)})` : ''}`;
}

function bankWords(bsb: string | null, number: string | null, name: string | null): string | null {
  if (!bsb || !number) return null;
  return `BSB ${bsb} account ${number}${name ? ` (${quoted(name)})` : ''}`;
}

async function owed(q: Queryable, orgId: string, account: string, docId: string, side: 'debit' | 'credit'): Promise<number | null> {
  const r = await q.get<{ dr: number | string | null; cr: number | string | null }>(
    'SELECT SUM(debit_cents) AS dr, SUM(credit_cents) AS cr FROM journal_lines WHERE org_id = ? AND account_code = ? AND doc_id = ?',
    [orgId, account, docId],
  );
  if (!r || (r.dr === null && r.cr === null)) return null;
  const dr = Number(r.dr ?? 0);
  const cr = Number(r.cr ?? 0);
  return side === 'debit' ? dr - cr : cr - dr;
}

type BillRow = {
  payee_name: string;
  description: string;
  note: string | null;
  total_cents: number | string;
  due_on: string;
  payee_bsb: string | null;
  payee_account_number: string | null;
  payee_account_name: string | null;
};

async function billFacts(q: Queryable, orgId: string, id: string, today: string): Promise<ApprovalFacts> {
  const b = await q.get<BillRow>(
    'SELECT payee_name, description, note, total_cents, due_on, payee_bsb, payee_account_number, payee_account_name FROM bills WHERE org_id = ? AND id = ?',
    [orgId, id],
  );
  if (!b) return NONE;
  return {
    ...NONE,
    amount: { cents: Number(b.total_cents), label: 'bill total' },
    toWhom: quoted(b.payee_name),
    payeeAccount: bankWords(b.payee_bsb, b.payee_account_number, b.payee_account_name) ?? 'no bank details on the bill',
    due: dueWords(b.due_on, today),
    agentText: [...said('bill description', b.description), ...said('bill note', b.note)],
  };
}

async function invoiceFacts(q: Queryable, orgId: string, id: string, today: string): Promise<ApprovalFacts> {
  const inv = await q.get<{
    payee_name: string;
    payee_email: string | null;
    description: string;
    total_cents: number | string;
    due_on: string | null;
  }>('SELECT payee_name, payee_email, description, total_cents, due_on FROM invoices WHERE org_id = ? AND id = ?', [orgId, id]);
  if (!inv) return NONE;
  // 1100 accounts receivable: what is still owed on the invoice (D-numbers: control accounts carry docId).
  const left = await owed(q, orgId, '1100', id, 'debit');
  return {
    ...NONE,
    amount: left === null ? { cents: Number(inv.total_cents), label: 'invoice total' } : { cents: left, label: 'still owed' },
    toWhom: `${quoted(inv.payee_name)}${inv.payee_email ? ` <${inv.payee_email}>` : ''}`,
    due: inv.due_on ? dueWords(inv.due_on, today) : null,
    agentText: said('invoice description', inv.description),
  };
}

async function runFacts(q: Queryable, orgId: string, params: Record<string, unknown>): Promise<ApprovalFacts> {
  const ids = Array.isArray(params.billIds) ? params.billIds.filter((x): x is string => typeof x === 'string') : null;
  const bills = ids
    ? await q.all<{ id: string; payee_name: string; total_cents: number | string }>(
        `SELECT id, payee_name, total_cents FROM bills WHERE org_id = ? AND id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`,
        [orgId, ...ids],
      )
    : typeof params.dueOnOrBefore === 'string'
      ? await q.all<{ id: string; payee_name: string; total_cents: number | string }>(
          "SELECT id, payee_name, total_cents FROM bills WHERE org_id = ? AND status = 'approved' AND due_on <= ? ORDER BY id LIMIT 201",
          [orgId, params.dueOnOrBefore],
        )
      : [];
  let total = 0;
  for (const b of bills) total += (await owed(q, orgId, '2000', b.id, 'credit')) ?? Number(b.total_cents);
  const payees = [...new Set(bills.map((b) => quoted(b.payee_name)))];
  const shown = payees.slice(0, 3).join(', ') + (payees.length > 3 ? ` and ${payees.length - 3} more` : '');
  return {
    ...NONE,
    amount: bills.length ? { cents: total, label: `${bills.length} bill${bills.length === 1 ? '' : 's'}` } : null,
    toWhom: bills.length ? shown : null,
    fromAccount: fundingWords(params.funding as Funding | undefined),
    paymentDate: typeof params.paymentDate === 'string' ? params.paymentDate : null,
  };
}

async function payRunFacts(q: Queryable, orgId: string, id: string): Promise<ApprovalFacts> {
  const run = await q.get<{ net_cents: number | string; funding: string | null; payment_date: string }>(
    'SELECT net_cents, funding, payment_date FROM pay_runs WHERE org_id = ? AND id = ?',
    [orgId, id],
  );
  if (!run) return NONE;
  const n = Number(
    (await q.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM pay_run_lines WHERE org_id = ? AND pay_run_id = ?', [orgId, id]))?.n ??
      0,
  );
  return {
    ...NONE,
    amount: { cents: Number(run.net_cents), label: 'net pay' },
    toWhom: `${n} employee${n === 1 ? '' : 's'}`,
    fromAccount: run.funding
      ? fundingWords(JSON.parse(run.funding) as Funding)
      : 'no funding account (net wages are owed, not paid by file)',
    paymentDate: run.payment_date,
  };
}

/**
 * The fund each line's super goes to: the employee's fund in force on the run's payment date, as
 * pay runs read it (the employees row overlaid by their dated changes: the start row always, a
 * change once effective). Read here from the tables, as governance never imports an area.
 */
async function fundsOnDates(
  q: Queryable,
  orgId: string,
  lines: readonly { employee_id: string; payment_date: string }[],
): Promise<(string | null)[]> {
  const ids = [...new Set(lines.map((l) => l.employee_id))];
  if (ids.length === 0) return [];
  const marks = placeholders(ids.length);
  const rows = await q.all<{ id: string; super_fund_name: string | null }>(
    `SELECT id, super_fund_name FROM employees WHERE org_id = ? AND id IN (${marks})`,
    [orgId, ...ids],
  );
  const changes = await q.all<{ employee_id: string; kind: string; effective_from: string; fields: string }>(
    `SELECT employee_id, kind, effective_from, fields FROM employee_changes WHERE org_id = ? AND employee_id IN (${marks})
     ORDER BY employee_id, effective_from, seq`,
    [orgId, ...ids],
  );
  const current = new Map(rows.map((r) => [r.id, r.super_fund_name]));
  return lines.map((l) => {
    let fund = current.get(l.employee_id) ?? null;
    for (const c of changes) {
      if (c.employee_id !== l.employee_id || (c.kind !== 'start' && c.effective_from > l.payment_date)) continue;
      const set = JSON.parse(c.fields) as { superFund?: { fundName: string } | null };
      if (set.superFund !== undefined) fund = set.superFund?.fundName ?? null;
    }
    return fund;
  });
}

/**
 * A super payment's facts from its params: the runs named, or the signed runs paid by `through`
 * no super payment has paid; each fund by name with its amount; the paying bank account record.
 */
async function superPaymentFacts(q: Queryable, orgId: string, params: Record<string, unknown>): Promise<ApprovalFacts> {
  const named = Array.isArray(params.payRunIds) ? params.payRunIds.filter((x): x is string => typeof x === 'string') : null;
  const runs = named
    ? named.length === 0
      ? []
      : await q.all<{ id: string }>(`SELECT id FROM pay_runs WHERE org_id = ? AND id IN (${placeholders(named.length)})`, [orgId, ...named])
    : typeof params.through === 'string'
      ? await q.all<{ id: string }>(
          `SELECT id FROM pay_runs r WHERE org_id = ? AND status = 'signed' AND payment_date <= ? AND super_cents + salary_sacrifice_cents > 0
           AND NOT EXISTS (SELECT 1 FROM super_payment_runs s WHERE s.org_id = r.org_id AND s.pay_run_id = r.id) LIMIT 201`,
          [orgId, params.through],
        )
      : [];
  const lines =
    runs.length === 0
      ? []
      : await q.all<{ employee_id: string; payment_date: string; cents: number | string }>(
          // Super guarantee and salary sacrificed to super: what a super payment pays of each line.
          `SELECT l.employee_id, r.payment_date, l.super_cents + l.salary_sacrifice_cents AS cents
           FROM pay_run_lines l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
           WHERE l.org_id = ? AND l.pay_run_id IN (${placeholders(runs.length)}) AND l.super_cents + l.salary_sacrifice_cents > 0
           ORDER BY r.payment_date, r.id, l.line_no`,
          [orgId, ...runs.map((r) => r.id)],
        );
  const names = await fundsOnDates(q, orgId, lines);
  const byFund = new Map<string, number>();
  let total = 0;
  lines.forEach((l, i) => {
    const name = names[i] ?? 'no fund recorded';
    byFund.set(name, (byFund.get(name) ?? 0) + Number(l.cents));
    total += Number(l.cents);
  });
  const account =
    typeof params.fundingAccountId === 'string'
      ? await q.get<{ name: string; bsb: string | null; account_number: string | null; account_code: string }>(
          'SELECT name, bsb, account_number, account_code FROM bank_accounts WHERE org_id = ? AND id = ?',
          [orgId, params.fundingAccountId],
        )
      : undefined;
  const funds = [...byFund.entries()].sort(([a], [b]) => a.localeCompare(b));
  return {
    ...NONE,
    amount: lines.length ? { cents: total, label: `super guarantee of ${runs.length} pay run${runs.length === 1 ? '' : 's'}` } : null,
    toWhom: funds.length ? funds.map(([name, cents]) => `${quoted(name)} ${formatCents(cents)}`).join(', ') : null,
    fromAccount: account
      ? `${bankWords(account.bsb, account.account_number, account.name) ?? quoted(account.name)}, ledger account ${account.account_code}`
      : null,
    paymentDate: typeof params.paymentDate === 'string' ? params.paymentDate : null,
  };
}

/** The facts of one approval (or open hold); never throws for a subject that has since gone. */
export async function approvalFacts(q: Queryable, orgId: string, a: ApprovalSubject, today: string): Promise<ApprovalFacts> {
  const params = (a.params && typeof a.params === 'object' ? a.params : {}) as Record<string, unknown>;
  switch (a.actionClass) {
    case ACTION_CLASS.billApprove:
      return billFacts(q, orgId, a.subjectId, today);
    case ACTION_CLASS.invoiceChaseStep:
      return invoiceFacts(q, orgId, a.subjectId, today);
    case ACTION_CLASS.billScheduleRun:
      return runFacts(q, orgId, params);
    case ACTION_CLASS.payrollSign:
      // The class also holds a year's STP finalisation (no money moves, its summary carries the
      // figures) and super payments (money to the funds).
      if (a.subjectId.startsWith(SUPER_PAYMENT_SUBJECT)) return superPaymentFacts(q, orgId, params);
      return a.subjectId.startsWith(STP_FINALISATION_SUBJECT) ? NONE : payRunFacts(q, orgId, a.subjectId);
    default:
      // BAS lodgement, held matches, contracts: their server-written summary carries the figures.
      return NONE;
  }
}

/** One line per fact, for the email (and anything else that is plain text). */
export function factLines(f: ApprovalFacts): string[] {
  const lines: string[] = [];
  if (f.amount) lines.push(`How much:   ${formatCents(f.amount.cents)} (${f.amount.label})`);
  if (f.toWhom) lines.push(`To whom:    ${f.toWhom}`);
  if (f.payeeAccount) lines.push(`Paid into:  ${f.payeeAccount}`);
  if (f.fromAccount) lines.push(`From:       ${f.fromAccount}`);
  if (f.paymentDate) lines.push(`Paid on:    ${f.paymentDate}`);
  if (f.due) lines.push(`Due:        ${f.due.overdue ? `${f.due.on} (${f.due.words})` : f.due.words}`);
  return lines;
}
