import { canonicalJson, events, payroll, sha256Hex } from '@finance-desk/protocol';
import type { z } from 'zod';
import { enqueuePaymentFile } from '../../adapters/payments.js';
import { badRequest, conflict, invariant, notFound } from '../../errors.js';
import { SUPER_PAYMENT_SUBJECT } from '../../governance/approval-facts.js';
import { quoted } from '../../governance/quote.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import { placeholders } from '../../storage/sql.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { loadChanges, termsOn } from '../people/employee-terms.js';
import { EMPLOYEE_COLUMNS, type EmployeeRow } from '../people/employees.js';
import { SUPER_PAYMENT_SOURCE, superDueOn, superObligations } from '../tax/super-due.js';

/**
 * books.superPay — paying signed pay runs' super guarantee to the employees' funds, the signature
 * act of class books.payroll_sign (money leaving the business on a human's word, like the net pay
 * of the runs themselves), always held for a human. The human reads each fund with its amount and
 * the employees it is for, the runs, the total and the account it leaves; the subject id carries a
 * digest of exactly those, so a run signed between the approval and the retry (under `through`)
 * changes the subject: CONFLICT, file a new approval.
 *
 * With the proof, in one transaction with its one event: one journal dated paymentDate, Dr 2300
 * Superannuation payable per run (the run's id as doc_id, so each paid run's 2300 lines net to
 * nothing) / Cr the bank account record's chart account; the payment and the runs it settles
 * (super_payments, super_payment_runs: a run is paid once); one contribution file per fund on the
 * payment outbox (contributionCsv). The obligations read then shows the runs paid by it.
 *
 * Each run is paid in full. A run some other payment to 2300 (a recoded bank line, a journal)
 * already settles in part or in full, under the oldest-first rule of the obligations read, is
 * not paid again: `through` leaves it out, and naming it is CONFLICT. A run such a payment has
 * not reached is wholly unpaid; paying it moves no other payment's settlement (those payments
 * were used up by older runs), so the read stays equal to 2300's balance.
 */
type Params = Omit<z.infer<typeof payroll.superPay.params>, 'approvalId' | 'signatureToken'>;
type Result = Exclude<ResultOf<typeof payroll.superPay>, { status: 'approval_required' }>;

interface RunRow {
  id: string;
  status: 'draft' | 'signed' | 'recalled';
  period_start: string;
  period_end: string;
  payment_date: string;
  super_cents: number | string;
  salary_sacrifice_cents: number | string;
}

/** What a run credited to 2300 and a payment pays: its super guarantee and any salary sacrificed to super. */
const owedBy = (r: { super_cents: number | string; salary_sacrifice_cents: number | string }) =>
  Number(r.super_cents) + Number(r.salary_sacrifice_cents);

/** One employee's contribution from one run: a row of its fund's file. */
interface Contribution {
  readonly runId: string;
  readonly periodStart: string;
  readonly periodEnd: string;
  readonly employeeId: string;
  readonly name: string;
  readonly memberNumber: string;
  readonly superCents: number;
  readonly sacrificeCents: number;
}

interface Fund {
  readonly fundAbn: string;
  readonly fundName: string;
  readonly amountCents: number;
  readonly contributions: readonly Contribution[];
  readonly fileName: string;
}

interface Account {
  readonly id: string;
  readonly name: string;
  readonly accountCode: string;
  readonly bsb: string | null;
  readonly accountNumber: string | null;
}

interface Subject {
  readonly superPaymentId: string;
  readonly account: Account;
  readonly employer: { readonly name: string; readonly abn: string | null };
  /** The runs to pay, oldest first (empty when a repeat or nothing owed). */
  readonly runs: readonly RunRow[];
  readonly funds: readonly Fund[];
  readonly totalCents: number;
  /** Why the call cannot pay (CONFLICT), found while loading; thrown by `state` after the proof checks. */
  readonly refusal: string | null;
  /** The payment a repeat answers. */
  readonly same: Result | null;
  readonly subjectId: string;
}

interface PaymentRow {
  id: string;
  payment_date: string;
  funding_account_id: string;
  account_code: string;
  through: string | null;
  total_cents: number | string;
  funds: string;
  journal_id: string;
  ledger_id: string;
}

const PAYMENT_COLUMNS = 'id, payment_date, funding_account_id, account_code, through, total_cents, funds, journal_id, ledger_id';

/** A stored payment as its answer: the runs it settled, oldest first, and each fund's amount and file. */
async function paymentResult(uow: Uow, row: PaymentRow): Promise<Result> {
  const runs = await uow.tx.all<{ pay_run_id: string; payment_date: string; amount_cents: number | string }>(
    `SELECT s.pay_run_id, r.payment_date, s.amount_cents FROM super_payment_runs s
     JOIN pay_runs r ON r.org_id = s.org_id AND r.id = s.pay_run_id
     WHERE s.org_id = ? AND s.super_payment_id = ? ORDER BY r.payment_date, r.id`,
    [uow.orgId, row.id],
  );
  return {
    superPaymentId: row.id,
    paymentDate: row.payment_date,
    fundingAccountId: row.funding_account_id,
    accountCode: row.account_code,
    totalCents: Number(row.total_cents),
    payRuns: runs.map((r) => ({ payRunId: r.pay_run_id, paymentDate: r.payment_date, superCents: Number(r.amount_cents) })),
    funds: JSON.parse(row.funds) as Result['funds'],
    journalId: row.journal_id,
    ledgerId: row.ledger_id,
  };
}

async function loadAccount(uow: Uow, id: string): Promise<Account> {
  const r = await uow.tx.get<{
    id: string;
    kind: string;
    name: string;
    account_code: string;
    bsb: string | null;
    account_number: string | null;
  }>('SELECT id, kind, name, account_code, bsb, account_number FROM bank_accounts WHERE org_id = ? AND id = ?', [uow.orgId, id]);
  if (!r) throw notFound('bank account', id);
  if (r.kind !== 'bank')
    throw badRequest(`fundingAccountId: ${r.id} (${r.name}) is a ${r.kind} account; super is paid from a bank account`);
  return { id: r.id, name: r.name, accountCode: r.account_code, bsb: r.bsb, accountNumber: r.account_number };
}

/**
 * What other payments to 2300 have settled of each run (the obligations read's oldest-first rule,
 * over every payment recorded), by run id; runs a super payment paid are not in the map.
 */
async function settledElsewhere(uow: Uow): Promise<Map<string, number>> {
  const all = await superObligations(uow.tx, uow.orgId, '9999-12-31', { from: '0000-01-01', to: '9999-12-31' }, Number.MAX_SAFE_INTEGER);
  const out = new Map<string, number>();
  for (const o of all) if (o.kind === 'super_guarantee' && o.paidBy === null) out.set(o.id, o.amountCents - o.outstandingCents);
  return out;
}

/** The runs asked for: those named (each must be this organisation's), or every signed run paid by `through` still wholly unpaid. */
async function runsOf(p: Params, uow: Uow, settled: ReadonlyMap<string, number>): Promise<RunRow[]> {
  const cols = 'id, status, period_start, period_end, payment_date, super_cents, salary_sacrifice_cents';
  if (p.payRunIds !== undefined) {
    const ids = p.payRunIds;
    const rows = await uow.tx.all<RunRow>(
      `SELECT ${cols} FROM pay_runs WHERE org_id = ? AND id IN (${placeholders(ids.length)}) ORDER BY payment_date, id${uow.caps.forUpdate}`,
      [uow.orgId, ...ids],
    );
    const found = new Set(rows.map((r) => r.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw notFound('pay run', missing);
    return rows;
  }
  const rows = await uow.tx.all<RunRow>(
    `SELECT ${cols} FROM pay_runs r WHERE org_id = ? AND status = 'signed' AND payment_date <= ? AND super_cents + salary_sacrifice_cents > 0
     AND NOT EXISTS (SELECT 1 FROM super_payment_runs s WHERE s.org_id = r.org_id AND s.pay_run_id = r.id)
     ORDER BY payment_date, id${uow.caps.forUpdate}`,
    // Only wages already paid: a run paid later could still be recalled, taking back the super it owes.
    [uow.orgId, p.through !== undefined && p.through < uow.today ? p.through : uow.today],
  );
  return rows.filter((r) => (settled.get(r.id) ?? 0) === 0);
}

/** Why the named runs cannot be paid (CONFLICT), or null. */
function refusalOf(
  runs: readonly RunRow[],
  paidBy: ReadonlyMap<string, string>,
  settled: ReadonlyMap<string, number>,
  today: string,
): string | null {
  for (const r of runs) {
    const by = paidBy.get(r.id);
    if (by !== undefined) return `pay run ${r.id}'s super was already paid by super payment ${by}`;
    if (r.status === 'draft') return `pay run ${r.id} is a draft; sign it before paying its super`;
    if (r.status === 'recalled') return `pay run ${r.id} is recalled; it owes no super`;
    // Until its payment date a signed run can be recalled (books.payrollRecall), which would take
    // back the super this pays: its super is paid once its wages are.
    if (r.payment_date > today) return `pay run ${r.id} pays its wages on ${r.payment_date}; pay its super on or after that day`;
    if (owedBy(r) === 0) return `pay run ${r.id} owes no super: nothing is owed`;
    const part = settled.get(r.id) ?? 0;
    if (part > 0) {
      return (
        `pay run ${r.id}'s super is already settled ${part >= owedBy(r) ? 'in full' : `in part (${formatCents(part)})`} by ` +
        'payments to 2300 Superannuation payable made outside books.superPay; pay any rest the same way'
      );
    }
  }
  return null;
}

/** Each line's fund: the employee's super fund in force on the run's payment date (employee-terms.ts). */
async function fundsOf(uow: Uow, runs: readonly RunRow[], superPaymentId: string): Promise<Fund[]> {
  if (runs.length === 0) return [];
  const lines = await uow.tx.all<{
    pay_run_id: string;
    employee_id: string;
    name: string;
    super_cents: number | string;
    salary_sacrifice_cents: number | string;
  }>(
    `SELECT pay_run_id, employee_id, name, super_cents, salary_sacrifice_cents FROM pay_run_lines
     WHERE org_id = ? AND pay_run_id IN (${placeholders(runs.length)}) AND super_cents + salary_sacrifice_cents > 0
     ORDER BY pay_run_id, line_no`,
    [uow.orgId, ...runs.map((r) => r.id)],
  );
  const ids = [...new Set(lines.map((l) => l.employee_id))];
  const rows = await uow.tx.all<EmployeeRow>(
    `SELECT ${EMPLOYEE_COLUMNS} FROM employees WHERE org_id = ? AND id IN (${placeholders(ids.length)})`,
    [uow.orgId, ...ids],
  );
  const people = new Map(rows.map((r) => [r.id, r]));
  const changes = await loadChanges(uow.tx, uow.orgId, ids);
  const byAbn = new Map<string, { fundName: string; contributions: Contribution[] }>();
  // Runs oldest first, then each run's lines in their order: the file's row order.
  for (const run of runs) {
    for (const l of lines.filter((x) => x.pay_run_id === run.id)) {
      const row = people.get(l.employee_id);
      invariant(row !== undefined, `employee ${l.employee_id} exists`);
      const fund = termsOn(row, changes.get(l.employee_id) ?? [], run.payment_date).superFund;
      if (fund === null) {
        throw conflict(
          `employee ${l.employee_id} (${l.name}) had no super fund on ${run.payment_date}; record one (books.employeeUpdate) first`,
        );
      }
      const entry = byAbn.get(fund.fundAbn) ?? { fundName: fund.fundName, contributions: [] };
      entry.contributions.push({
        runId: run.id,
        periodStart: run.period_start,
        periodEnd: run.period_end,
        employeeId: l.employee_id,
        name: l.name,
        memberNumber: fund.memberNumber,
        superCents: Number(l.super_cents),
        sacrificeCents: Number(l.salary_sacrifice_cents),
      });
      byAbn.set(fund.fundAbn, entry);
    }
  }
  return [...byAbn.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([fundAbn, f]) => ({
      fundAbn,
      fundName: f.fundName,
      amountCents: f.contributions.reduce((n, c) => n + c.superCents + c.sacrificeCents, 0),
      contributions: f.contributions,
      fileName: `${superPaymentId}-${fundAbn}.csv`,
    }));
}

/** The payment a repeat answers: the same runs (or the same through, nothing more owed), date and account. */
async function samePayment(p: Params, uow: Uow, runs: readonly RunRow[], paidBy: ReadonlyMap<string, string>): Promise<Result | null> {
  let row: PaymentRow | undefined;
  if (p.payRunIds !== undefined) {
    const by = new Set(runs.map((r) => paidBy.get(r.id)));
    const [only] = [...by];
    if (by.size !== 1 || only === undefined) return null;
    const count = await uow.tx.get<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM super_payment_runs WHERE org_id = ? AND super_payment_id = ?',
      [uow.orgId, only],
    );
    if (Number(count?.n) !== runs.length) return null;
    row = await uow.tx.get<PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM super_payments WHERE org_id = ? AND id = ?`, [uow.orgId, only]);
  } else {
    if (runs.length > 0) return null;
    row = await uow.tx.get<PaymentRow>(
      `SELECT ${PAYMENT_COLUMNS} FROM super_payments WHERE org_id = ? AND through = ? ORDER BY created_at DESC, id DESC LIMIT 1`,
      [uow.orgId, p.through ?? ''],
    );
  }
  if (!row || row.payment_date !== p.paymentDate || row.funding_account_id !== p.fundingAccountId) return null;
  return paymentResult(uow, row);
}

async function loadSubject(p: Params, uow: Uow): Promise<Subject> {
  if (p.paymentDate < uow.today) {
    throw badRequest(`paymentDate: must be today (${uow.today}) or later; the contribution files are the payment`);
  }
  const account = await loadAccount(uow, p.fundingAccountId);
  const settled = await settledElsewhere(uow);
  const runs = await runsOf(p, uow, settled);
  const paid =
    runs.length === 0
      ? []
      : await uow.tx.all<{ pay_run_id: string; super_payment_id: string }>(
          `SELECT pay_run_id, super_payment_id FROM super_payment_runs WHERE org_id = ? AND pay_run_id IN (${placeholders(runs.length)})`,
          [uow.orgId, ...runs.map((r) => r.id)],
        );
  const paidBy = new Map(paid.map((r) => [r.pay_run_id, r.super_payment_id]));
  const same = await samePayment(p, uow, runs, paidBy);
  const org = await uow.tx.get<{ name: string; abn: string | null }>('SELECT name, abn FROM organisations WHERE id = ?', [uow.orgId]);
  invariant(org !== undefined, `organisation ${uow.orgId} exists`);
  const base = { account, employer: { name: org.name, abn: org.abn } };
  if (same) return { ...base, superPaymentId: same.superPaymentId, runs: [], funds: [], totalCents: 0, refusal: null, same, subjectId: '' };
  const refusal =
    runs.length === 0
      ? `no signed pay run paid on or before ${p.through ?? ''} (and by today) has super still owed: nothing is owed`
      : refusalOf(runs, paidBy, settled, uow.today);
  const superPaymentId = newId('sup');
  const funds = refusal === null ? await fundsOf(uow, runs, superPaymentId) : [];
  const totalCents = runs.reduce((n, r) => n + owedBy(r), 0);
  invariant(refusal !== null || funds.reduce((n, f) => n + f.amountCents, 0) === totalCents, "a run's super is the sum of its lines'");
  // What the human reads, bound into the subject: a proof covers exactly these runs, funds and account.
  const digest = sha256Hex(
    canonicalJson({
      runs: runs.map((r) => [r.id, owedBy(r)]),
      funds: funds.map((f) => [
        f.fundAbn,
        f.amountCents,
        f.contributions.map((c) => [c.runId, c.employeeId, c.memberNumber, c.superCents, c.sacrificeCents]),
      ]),
      account: [account.id, account.accountCode],
    }),
  ).slice(0, 16);
  return { ...base, superPaymentId, runs, funds, totalCents, refusal, same: null, subjectId: `${SUPER_PAYMENT_SUBJECT}${digest}` };
}

function accountWords(a: Account): string {
  const number = a.bsb && a.accountNumber ? ` BSB ${a.bsb} account ${a.accountNumber}` : '';
  return `bank account ${quoted(a.name)}${number} (ledger account ${a.accountCode})`;
}

/** What the human reads (the server's words): each fund with its amount and employees, the runs, the total, the account; names quoted. */
function paySummary(p: Params, s: Subject): string {
  const funds = s.funds.map((f, i) => {
    const people = new Map<string, { name: string; cents: number }>();
    for (const c of f.contributions) {
      const e = people.get(c.employeeId) ?? { name: c.name, cents: 0 };
      people.set(c.employeeId, { name: e.name, cents: e.cents + c.superCents + c.sacrificeCents });
    }
    const who = [...people.values()].map((e) => `${quoted(e.name)} ${formatCents(e.cents)}`).join(', ');
    return `${i + 1}. ${formatCents(f.amountCents)} to ${quoted(f.fundName)} (ABN ${f.fundAbn}) for ${who}`;
  });
  const runs = s.runs.map((r) => {
    const due = superDueOn(r.payment_date);
    const when = due < p.paymentDate ? `due ${due}, paid late` : `due ${due}`;
    const sacrifice = Number(r.salary_sacrifice_cents) > 0 ? ` and salary sacrifice ${formatCents(Number(r.salary_sacrifice_cents))}` : '';
    return `${r.id} (${r.period_start} to ${r.period_end}, paid ${r.payment_date}, super ${formatCents(Number(r.super_cents))}${sacrifice}, ${when})`;
  });
  const n = s.runs.length;
  return (
    `Pay ${formatCents(s.totalCents)} of super guarantee on ${p.paymentDate} from ${accountWords(s.account)} to ${s.funds.length} ` +
    `fund${s.funds.length === 1 ? '' : 's'}: ${funds.join('; ')}. It pays in full the super of ${n} pay run${n === 1 ? '' : 's'}: ` +
    `${runs.join('; ')}. One contribution file per fund is written for the clearing house; 2300 Superannuation payable is ` +
    `debited ${formatCents(s.totalCents)} and the bank account credited.`
  );
}

function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Cents as the file's dollars with two decimals, by integer arithmetic. */
function dollars(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** The columns of a contribution file, in order (docs/books.md "Paying super"). */
export const CONTRIBUTION_COLUMNS = [
  'Line ID',
  'Employer ABN',
  'Employer Name',
  'Payment Period Start Date',
  'Payment Period End Date',
  'Payroll Number Identifier',
  'Member Name',
  'Date of Birth',
  'Fund Member ID',
  'Fund ABN',
  'Fund USI',
  'Fund Name',
  'Superannuation Guarantee Amount',
  'Salary Sacrificed Amount',
  'Payment Reference',
] as const;

/**
 * A fund's contribution file: CSV (RFC 4180, CR LF) with the SuperStream alternative file format's
 * column names for the subset this service holds, one row per employee per run. No TFN: a clearing
 * house matches members by fund member id. Date of birth and fund USI are not held (empty); the
 * salary sacrificed to super is the line's (pay items), 0.00 when none. The payment reference is the super payment's id, the
 * reference quoted with the money.
 */
export function contributionCsv(s: Pick<Subject, 'employer' | 'superPaymentId'>, f: Fund): string {
  const rows = f.contributions.map((c, i) =>
    [
      String(i + 1),
      s.employer.abn ?? '',
      s.employer.name,
      c.periodStart,
      c.periodEnd,
      c.employeeId,
      c.name,
      '',
      c.memberNumber,
      f.fundAbn,
      '',
      f.fundName,
      dollars(c.superCents),
      dollars(c.sacrificeCents),
      s.superPaymentId,
    ]
      .map(csvField)
      .join(','),
  );
  return [CONTRIBUTION_COLUMNS.join(','), ...rows].map((l) => `${l}\r\n`).join('');
}

async function executePay(p: Params, s: Subject, uow: Uow): Promise<Result> {
  const id = s.superPaymentId;
  const journalId = newJournalId();
  const lines: PostingLine[] = [
    ...s.runs.map((r) => ({
      account: { key: 'super_payable' },
      debitCents: owedBy(r),
      docId: r.id,
      description: `Super paid, pay run ${r.id}`,
    })),
    { account: s.account.accountCode, creditCents: s.totalCents, description: `Super payment ${id}` },
  ];
  await postJournal(uow, {
    id: journalId,
    date: p.paymentDate,
    memo: `Super payment ${id}: ${s.runs.length} pay run${s.runs.length === 1 ? '' : 's'}`,
    source: { kind: SUPER_PAYMENT_SOURCE, id },
    lines,
    dateField: 'paymentDate',
  });
  for (const f of s.funds) await enqueuePaymentFile(uow, { runId: id, fileName: f.fileName, content: contributionCsv(s, f) });
  const funds = s.funds.map((f) => ({
    fundAbn: f.fundAbn,
    fundName: f.fundName,
    amountCents: f.amountCents,
    employeeCount: new Set(f.contributions.map((c) => c.employeeId)).size,
    fileName: f.fileName,
  }));
  const event = await uow.emit(events.superPay, {
    entityId: id,
    payload: {
      superPaymentId: id,
      paymentDate: p.paymentDate,
      payRunIds: s.runs.map((r) => r.id),
      totalCents: s.totalCents,
      funds: funds.map((f) => ({ fundAbn: f.fundAbn, amountCents: f.amountCents, fileName: f.fileName })),
      fundingAccountId: s.account.id,
      journalId,
    },
  });
  await uow.tx.run(
    `INSERT INTO super_payments (org_id, id, payment_date, funding_account_id, account_code, through, total_cents, funds, journal_id, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uow.orgId,
      id,
      p.paymentDate,
      s.account.id,
      s.account.accountCode,
      p.through ?? null,
      s.totalCents,
      JSON.stringify(funds),
      journalId,
      uow.now,
      event.ledgerId,
    ],
  );
  for (const r of s.runs) {
    await uow.tx.run('INSERT INTO super_payment_runs (org_id, pay_run_id, super_payment_id, amount_cents) VALUES (?, ?, ?, ?)', [
      uow.orgId,
      r.id,
      id,
      owedBy(r),
    ]);
  }
  return {
    superPaymentId: id,
    paymentDate: p.paymentDate,
    fundingAccountId: s.account.id,
    accountCode: s.account.accountCode,
    totalCents: s.totalCents,
    payRuns: s.runs.map((r) => ({ payRunId: r.id, paymentDate: r.payment_date, superCents: owedBy(r) })),
    funds,
    journalId,
    ledgerId: event.ledgerId,
  };
}

export const superPayAct: SignatureAct<Params, Subject, typeof payroll.superPay> = {
  spec: payroll.superPay,
  load: loadSubject,
  // A repeat has no subject of its own: it answers the payment before any proof is asked for.
  subjectId: (s) => s.subjectId || `${SUPER_PAYMENT_SUBJECT}${s.superPaymentId}`,
  // Money leaving the business for the funds always needs a human's signature.
  needsProof: () => true,
  summary: paySummary,
  state(_p, s) {
    if (s.same) return { ...s.same, noop: true };
    if (s.refusal !== null) throw conflict(s.refusal);
    return null;
  },
  execute: executePay,
};

export const superPay = signatureHandler<z.infer<typeof payroll.superPay.params>, Subject, typeof payroll.superPay>(superPayAct);
