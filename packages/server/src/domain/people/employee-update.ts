import { canonicalJson, events, maskDigits, people, type EventPayloadOf } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict } from '../../errors.js';
import { quoted } from '../../governance/quote.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import { formatCents } from '../../money.js';
import type { ResultOf, Uow } from '../../write-path.js';
import {
  employeeToday,
  loadChanges,
  PERIOD_TERMS,
  recordChange,
  termsOn,
  type BankTerms,
  type Change,
  type SuperTerms,
  type TaxTerms,
  type TermName,
  type Terms,
} from './employee-terms.js';
import { milliHoursOf } from '../payroll/gross.js';
import { loadEmployee, type EmployeeRow } from './employees.js';
import { maskedTfn, tfnQuoted } from './tax-treatment.js';

/**
 * books.employeeUpdate: an active employee's terms changed from a date (employee-terms.ts keeps
 * the history and answers what is in force when). A change of bank account is held for a human,
 * as a supplier's changed bank details hold a bill: the conditional signature act of the
 * employee class (books.onboarding_advance), whose summary the server writes with the account
 * that was and the one that is now, in full. Without a bank change no proof is needed.
 *
 * State: the given terms equal to those in force on effectiveFrom are a no-op; a term that a change
 * already recorded for the same date sets to other values is CONFLICT naming that change (a
 * second agent's different value never silently replaces the first); a change that a signed pay
 * run already paid on the old terms is CONFLICT naming the run (back pay is not modelled). The TFN
 * goes only to its columns: the event, summary and answer carry it masked.
 */
type Full = z.infer<typeof people.employeeUpdate.params>;
type Params = Omit<Full, 'approvalId' | 'signatureToken'>;

interface Subject {
  readonly row: EmployeeRow;
  readonly changes: readonly Change[];
  readonly today: string;
  readonly effectiveFrom: string;
  /** The terms in force on effectiveFrom, before this change. */
  readonly before: Terms;
  /** The terms given that differ from those, with their new values. */
  readonly set: Partial<Terms>;
  readonly changed: readonly TermName[];
  /** A signed pay run that already paid the employee on the terms this change would alter. */
  readonly paidRun: PaidRun | null;
}

interface PaidRun {
  readonly id: string;
  readonly period_start: string;
  readonly period_end: string;
  readonly payment_date: string;
}

const TERM_ORDER = people.EMPLOYEE_TERMS;
/** Terms no pay run reads: no signed run makes their change a back-dated one. */
const UNPAID_TERMS: ReadonlySet<TermName> = new Set<TermName>(['title']);

/** The terms the call gives, in the record's shape (the account name upper-cased as onboarding keeps it). */
function givenTerms(p: Params, today: string): Partial<Terms> {
  const t: { -readonly [K in keyof Terms]?: Terms[K] } = {};
  if (p.annualSalaryCents !== undefined) t.annualSalaryCents = p.annualSalaryCents;
  if (p.hourlyRateCents !== undefined) t.hourlyRateCents = p.hourlyRateCents;
  if (p.hoursPerWeek !== undefined) t.hoursPerWeek = p.hoursPerWeek;
  if (p.title !== undefined) t.title = p.title;
  if (p.fundName !== undefined && p.fundAbn !== undefined && p.memberNumber !== undefined) {
    t.superFund = { fundName: p.fundName, fundAbn: p.fundAbn, memberNumber: p.memberNumber };
  }
  if (p.taxFileNumber !== undefined && p.residency !== undefined && p.claimsTaxFreeThreshold !== undefined) {
    // Declared today (the 28-day rule for a TFN applied for counts from the declaration).
    t.taxDeclaration = {
      tfn: p.taxFileNumber,
      residency: p.residency,
      claimsTaxFreeThreshold: p.claimsTaxFreeThreshold,
      declaredOn: today,
    };
  }
  if (p.bsb !== undefined && p.accountNumber !== undefined && p.accountName !== undefined) {
    t.bankAccount = { bsb: p.bsb, accountNumber: p.accountNumber, accountName: p.accountName.toUpperCase() };
  }
  return t;
}

/** Whether a given term is what is already in force (the TFN compared, never echoed; a declaration's date is not a change). */
function same(k: TermName, given: Partial<Terms>, before: Terms): boolean {
  if (k === 'taxDeclaration') {
    const a = given.taxDeclaration;
    const b = before.taxDeclaration;
    return !!a && !!b && a.tfn === b.tfn && a.residency === b.residency && a.claimsTaxFreeThreshold === b.claimsTaxFreeThreshold;
  }
  // Hours a week may have decimals, which canonical JSON (integers only) refuses: compare them exactly as milli-hours.
  if (k === 'hoursPerWeek')
    return given.hoursPerWeek !== undefined && milliHoursOf(given.hoursPerWeek) === milliHoursOf(before.hoursPerWeek);
  return canonicalJson(given[k] ?? null) === canonicalJson(before[k] ?? null);
}

/** Bad input that needs the record: a pay basis the employee is not paid by, a date before the start. */
function checkInput(p: Params, row: EmployeeRow, effectiveFrom: string): void {
  const who = `employee ${row.id} (${row.name})`;
  if (p.annualSalaryCents !== undefined && row.annual_salary_cents === null) {
    throw badRequest(`annualSalaryCents: ${who} is paid by the hour (hourlyRateCents); a change of pay basis is not supported`);
  }
  if (p.hourlyRateCents !== undefined && row.hourly_rate_cents === null) {
    throw badRequest(`hourlyRateCents: ${who} is salaried (annualSalaryCents); a change of pay basis is not supported`);
  }
  if (effectiveFrom < row.start_date) {
    throw badRequest(`effectiveFrom: must be on or after ${who}'s start date ${row.start_date}`);
  }
}

async function load(p: Params, uow: Uow): Promise<Subject> {
  const row = await loadEmployee(uow.tx, uow.orgId, p.id, uow.caps.forUpdate);
  const effectiveFrom = p.effectiveFrom ?? uow.today;
  checkInput(p, row, effectiveFrom);
  const changes = (await loadChanges(uow.tx, uow.orgId, [row.id])).get(row.id) ?? [];
  const before = termsOn(row, changes, effectiveFrom);
  const given = givenTerms(p, uow.today);
  const changed = TERM_ORDER.filter((k) => k in given && !same(k, given, before));
  const set = Object.fromEntries(changed.map((k) => [k, given[k]])) as Partial<Terms>;
  const paidRun = await paidOnOldTerms(uow, row.id, effectiveFrom, changed);
  return { row, changes, today: uow.today, effectiveFrom, before, set, changed, paidRun };
}

/**
 * A signed pay run that paid the employee on terms this change would alter, or null: one whose
 * period starts on or after effectiveFrom for pay and hours, or whose payment date is on or after
 * it for the tax declaration, super fund and bank account.
 */
async function paidOnOldTerms(uow: Uow, employeeId: string, effectiveFrom: string, changed: readonly TermName[]) {
  const never = '9999-12-31';
  const paid = changed.filter((k) => !UNPAID_TERMS.has(k));
  if (paid.length === 0) return null;
  const byPeriod = paid.some((k) => PERIOD_TERMS.has(k)) ? effectiveFrom : never;
  const byPayment = paid.some((k) => !PERIOD_TERMS.has(k)) ? effectiveFrom : never;
  return (
    (await uow.tx.get<PaidRun>(
      `SELECT r.id, r.period_start, r.period_end, r.payment_date FROM pay_run_lines l
       JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
       WHERE l.org_id = ? AND l.employee_id = ? AND r.status = 'signed' AND (r.period_start >= ? OR r.payment_date >= ?)
       ORDER BY r.period_start DESC, r.id LIMIT 1`,
      [uow.orgId, employeeId, byPeriod, byPayment],
    )) ?? null
  );
}

function stateOf(_p: Params, s: Subject): ResultOf<typeof people.employeeUpdate> | null {
  const { row } = s;
  if (row.status !== 'active') {
    throw conflict(
      `employee ${row.id} (${row.name}) is ${row.status} (next step ${row.next_step ?? 'none'}); ` +
        'only an active employee is changed here: books.onboardingAdvance records the onboarding details',
    );
  }
  if (s.changed.length === 0) return { ...employeeToday(row, s.changes, s.today), change: null, noop: true };
  const sameDay = s.changes.find((c) => c.kind === 'change' && c.effectiveFrom === s.effectiveFrom && s.changed.some((k) => k in c.set));
  if (sameDay) {
    const terms = s.changed.filter((k) => k in sameDay.set).join(', ');
    throw conflict(
      `employee ${row.id} already has a change effective ${s.effectiveFrom} (ledger #${sameDay.ledgerId}) that sets ${terms} ` +
        'to other values; the same values again are a no-op, other values for that date are refused',
    );
  }
  const paid = s.paidRun;
  if (paid) {
    throw conflict(
      `pay run ${paid.id} (signed, ${paid.period_start} to ${paid.period_end}, paid ${paid.payment_date}) already paid employee ` +
        `${row.id} on the terms before ${s.effectiveFrom}; back pay is not modelled: recall that run (books.payrollRecall) ` +
        'or choose a later effectiveFrom',
    );
  }
  return null;
}

// ---- the human's summary ----

function payWords(k: TermName, t: Terms): string {
  switch (k) {
    case 'annualSalaryCents':
      return t.annualSalaryCents === null ? 'none' : `${formatCents(t.annualSalaryCents)} a year`;
    case 'hourlyRateCents':
      return t.hourlyRateCents === null ? 'none' : `${formatCents(t.hourlyRateCents)} an hour`;
    case 'hoursPerWeek':
      return `${t.hoursPerWeek} hours a week`;
    case 'title':
      return t.title === null ? 'none' : quoted(t.title);
    case 'superFund':
      return fundWords(t.superFund);
    case 'taxDeclaration':
      return declarationWords(t.taxDeclaration);
    case 'bankAccount':
      return bankWords(t.bankAccount);
  }
}

function fundWords(f: SuperTerms | null): string {
  return f ? `${quoted(f.fundName)} (ABN ${f.fundAbn}, member ${quoted(f.memberNumber)})` : 'none';
}

/** In full, as a bill's changed bank details are shown: the human checks the digits. */
function bankWords(b: BankTerms | null): string {
  return b ? `BSB ${b.bsb} account ${b.accountNumber} (${quoted(b.accountName)})` : 'none';
}

function declarationWords(d: TaxTerms | null): string {
  if (!d) return 'none';
  const tfn = tfnQuoted(d.tfn) ? `TFN ${maskedTfn(d.tfn)}` : `no TFN quoted (ATO code ${d.tfn})`;
  const who = d.residency === 'foreign' ? 'foreign resident' : 'Australian resident';
  return `${who}, ${d.claimsTaxFreeThreshold ? 'claims' : 'does not claim'} the tax-free threshold, ${tfn}`;
}

const TERM_WORDS: Readonly<Record<TermName, string>> = {
  annualSalaryCents: 'salary',
  hourlyRateCents: 'hourly rate',
  hoursPerWeek: 'ordinary hours',
  title: 'title',
  superFund: 'super fund',
  taxDeclaration: 'tax declaration',
  bankAccount: 'net pay bank account',
};

/** What the human approves: whose terms, from when, and each change as was → now (the bank account first). */
function summary(p: Params, s: Subject): string {
  const after: Terms = { ...s.before, ...s.set };
  const order = [...s.changed].sort((a, b) => Number(b === 'bankAccount') - Number(a === 'bankAccount'));
  const parts = order.map((k) => `${TERM_WORDS[k]} was ${payWords(k, s.before)}, now ${payWords(k, after)}`);
  const from = p.effectiveFrom === undefined ? `today (${s.effectiveFrom})` : s.effectiveFrom;
  return `Change the terms of ${quoted(s.row.name)} (${s.row.id}) from ${from}: ${parts.join('; ')}`;
}

// ---- execute ----

function eventPayload(s: Subject): EventPayloadOf<typeof events.employeeUpdate> {
  const t = s.set;
  const tax = t.taxDeclaration;
  return {
    effectiveFrom: s.effectiveFrom,
    changed: [...s.changed],
    ...(typeof t.annualSalaryCents === 'number' ? { annualSalaryCents: t.annualSalaryCents } : {}),
    ...(typeof t.hourlyRateCents === 'number' ? { hourlyRateCents: t.hourlyRateCents } : {}),
    ...(t.hoursPerWeek !== undefined ? { milliHoursPerWeek: milliHoursOf(t.hoursPerWeek) } : {}),
    ...(typeof t.title === 'string' ? { title: t.title } : {}),
    ...(t.superFund ? { superFund: { ...t.superFund } } : {}),
    // Never the TFN itself: its last 3 digits, or the not-quoted code (which identifies no one).
    ...(tax
      ? {
          taxDeclaration: {
            taxFileNumber: maskedTfn(tax.tfn),
            residency: tax.residency,
            claimsTaxFreeThreshold: tax.claimsTaxFreeThreshold,
          },
        }
      : {}),
    ...(t.bankAccount ? { bankAccount: `${t.bankAccount.bsb} ${maskDigits(t.bankAccount.accountNumber)}` } : {}),
  };
}

async function execute(_p: Params, s: Subject, uow: Uow): Promise<ResultOf<typeof people.employeeUpdate>> {
  const event = await uow.emit(events.employeeUpdate, { entityId: s.row.id, payload: eventPayload(s) });
  const changes = await recordChange(uow, s.row, s.changes, { effectiveFrom: s.effectiveFrom, set: s.set, ledgerId: event.ledgerId });
  const row = await loadEmployee(uow.tx, uow.orgId, s.row.id);
  return { ...employeeToday(row, changes, uow.today), change: { effectiveFrom: s.effectiveFrom, changed: [...s.changed] } };
}

export const employeeUpdateAct: SignatureAct<Params, Subject, typeof people.employeeUpdate> = {
  spec: people.employeeUpdate,
  load,
  subjectId: (s) => s.row.id,
  // Conditional, as a bill held for changed bank details: only a new net pay account needs a human.
  needsProof: (_p, s) => s.changed.includes('bankAccount'),
  summary,
  state: stateOf,
  execute,
};

export const employeeUpdate = signatureHandler<Full, Subject, typeof people.employeeUpdate>(employeeUpdateAct);
