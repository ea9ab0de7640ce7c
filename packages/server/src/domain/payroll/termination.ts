import { people } from '@finance-desk/protocol';
import { daysBetween } from '../../clock.js';
import { conflict } from '../../errors.js';
import { formatCents } from '../../money.js';
import { placeholders } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import type { EmployeeRow } from '../people/employees.js';
import { divHalfUp, toSafe } from './decimal.js';
import { ordinaryHours, PERIODS_PER_YEAR, type PayBasis, type PayFrequency } from './gross.js';
import { accrualForPay, MILLI, type EmploymentBasis } from './leave-accrual.js';
import { lumpSumWithholding } from './lump-sum.js';
import { baseHourlyRate } from './pay-items.js';
import type { PayRunLineRow } from './runs.js';
import type { TaxScale } from './withholding.js';

/**
 * The final pay of a terminated employee (books.employeeTerminate; docs/books.md "Ending
 * employment"). The pay run whose period contains the termination date is the final pay; its line
 * for the employee is computed as any other (draft-line.ts) with two differences:
 *
 * 1. Ordinary pay up to the termination date only: the period's ordinary pay × days employed in the
 *    period ÷ days in the period, one exact fraction rounded half up once (salaried: annual salary
 *    × days ÷ (pay periods in a year × days in the period); hourly staff without hours given: rate
 *    × ordinary hours × days ÷ days in the period; hours given are paid as given). The ordinary hours
 *    leave accrues on are prorated the same way (half up to the milli-hour).
 * 2. The unused annual leave is paid out: the balance after this run's own accrual and the annual
 *    leave it pays, at the base hourly rate in force (hourly: the rate; salaried: annual salary ÷ 52
 *    ÷ hoursPerWeek), one exact fraction rounded half up; plus leave loading at the recorded
 *    percentage of that, half up. A balance at or below zero pays nothing (leave taken in advance
 *    is not recovered here). Personal/carer's leave is not paid out (the NES does not pay it on
 *    termination).
 *
 * PAYG on the unused leave and loading (ATO Schedule 7): a normal termination (voluntary,
 * dismissal, contract end, transfer) uses the marginal-rate method of lump-sum.ts, the period's
 * normal earnings being the line's gross less bonus, back pay and salary sacrifice; a genuine
 * redundancy or invalidity (redundancy, ill_health) withholds 32% of it (30% and the Medicare levy:
 * residents only; lump sum A type R in STP), the payment and the result in whole dollars; no TFN
 * (scale 4) withholds the no-TFN rate from it either way. After a death nothing is withheld from
 * the final pay at all (the ATO: no withholding from salary, wages or unused leave paid after an
 * employee's death). Not modelled: foreign residents made redundant or leaving for invalidity
 * (refused), leave accrued before 18 August 1993, long service leave, ETPs.
 *
 * The leave paid out is not ordinary time earnings: no super guarantee is paid on it (the line's
 * super and its ordinary time earnings are those of the prorated pay alone).
 */
export type TerminationReason = (typeof people.TERMINATION_REASONS)[number];
export type CessationCode = (typeof people.CESSATION_CODES)[TerminationReason];

export interface TerminationRow {
  employee_id: string;
  termination_date: string;
  reason: TerminationReason;
  cessation_code: CessationCode;
  leave_loading_hundredths: number | string | null;
  final_pay_run_id: string | null;
  ledger_id: string;
}

export const TERMINATION_COLUMNS =
  'employee_id, termination_date, reason, cessation_code, leave_loading_hundredths, final_pay_run_id, ledger_id';

/** Reasons whose unused leave is a genuine redundancy or invalidity payment (32%; STP lump sum A type R). */
const REDUNDANCY_OR_INVALIDITY: ReadonlySet<string> = new Set(['redundancy', 'ill_health']);
const REDUNDANCY_CODES: ReadonlySet<string> = new Set(['R', 'I']);

/** 30% and the 2% Medicare levy, in basis points. */
const GENUINE_REDUNDANCY_BP = 3_200n;

export function isRedundancyOrInvalidity(reason: string): boolean {
  return REDUNDANCY_OR_INVALIDITY.has(reason);
}

/** Each employee's recorded termination, by employee id. */
export async function terminationsOf(q: Queryable, orgId: string, employeeIds: readonly string[]): Promise<Map<string, TerminationRow>> {
  if (employeeIds.length === 0) return new Map();
  const rows = await q.all<TerminationRow>(
    `SELECT ${TERMINATION_COLUMNS} FROM employee_terminations WHERE org_id = ? AND employee_id IN (${placeholders(employeeIds.length)})`,
    [orgId, ...employeeIds],
  );
  return new Map(rows.map((r) => [r.employee_id, r]));
}

/**
 * A run cannot pay an employee past their employment: one whose final pay is signed is paid by no
 * later run, and one whose termination is recorded is paid by no run starting after its date
 * (the run containing the date is the final pay). CONFLICT naming the employee and the date.
 */
export function refuseAfterTermination(
  period: { readonly periodStart: string },
  rows: readonly EmployeeRow[],
  terminations: ReadonlyMap<string, TerminationRow>,
): void {
  for (const e of rows) {
    const t = terminations.get(e.id);
    if (!t) continue;
    const who = `employee ${e.id} (${e.name})`;
    if (t.final_pay_run_id !== null) {
      throw conflict(
        `${who} was terminated on ${t.termination_date}: pay run ${t.final_pay_run_id} paid their final pay; a terminated employee is paid by no later run`,
      );
    }
    if (period.periodStart > t.termination_date) {
      throw conflict(
        `${who} is terminated on ${t.termination_date}, before this period starts (${period.periodStart}); ` +
          `their final pay is the run whose period contains ${t.termination_date}`,
      );
    }
  }
}

/** A final pay's termination and the days of the period it pays. */
export interface FinalPayTerms {
  readonly termination: TerminationRow;
  readonly daysEmployed: number;
  readonly daysInPeriod: number;
}

/**
 * The termination this run pays as the final pay (its date within the period, not yet paid by a
 * signed run), or null. The final pay pays out the leave balance after every earlier run, so
 * another draft still paying the employee is CONFLICT (sign or recall it first).
 */
export async function finalPayTerms(
  uow: Uow,
  p: { readonly periodStart: string; readonly periodEnd: string },
  e: Pick<EmployeeRow, 'id' | 'name'>,
): Promise<FinalPayTerms | null> {
  const t = await uow.tx.get<TerminationRow>(
    `SELECT ${TERMINATION_COLUMNS} FROM employee_terminations WHERE org_id = ? AND employee_id = ? AND final_pay_run_id IS NULL
     AND termination_date >= ? AND termination_date <= ?`,
    [uow.orgId, e.id, p.periodStart, p.periodEnd],
  );
  if (!t) return null;
  const other = await uow.tx.get<{ id: string }>(
    `SELECT r.id FROM pay_run_lines l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND l.employee_id = ? AND r.status = 'draft' ORDER BY r.id LIMIT 1`,
    [uow.orgId, e.id],
  );
  if (other) {
    throw conflict(
      `pay run ${other.id} is a draft paying employee ${e.id} (${e.name}); sign or recall it first: this run is their final pay, ` +
        'which pays out the leave balance after every earlier run',
    );
  }
  return {
    termination: t,
    daysEmployed: daysBetween(p.periodStart, t.termination_date) + 1,
    daysInPeriod: daysBetween(p.periodStart, p.periodEnd) + 1,
  };
}

/** The ordinary pay up to the termination date, one fraction rounded half up once (see the module comment). */
export function proratedOrdinaryCents(basis: PayBasis, frequency: PayFrequency, f: FinalPayTerms): number {
  const d = BigInt(f.daysEmployed);
  const n = BigInt(f.daysInPeriod);
  if ('annualSalaryCents' in basis) return toSafe(divHalfUp(BigInt(basis.annualSalaryCents) * d, PERIODS_PER_YEAR[frequency] * n));
  const { num, den } = ordinaryHours(basis.hoursPerWeek, frequency);
  return toSafe(divHalfUp(BigInt(basis.hourlyRateCents) * num * d, den * n));
}

/** Ordinary milli-hours up to the termination date (what leave accrues on), half up. */
export function proratedMilliHours(ordinaryMilliHours: number, f: FinalPayTerms | null): number {
  if (!f) return ordinaryMilliHours;
  return toSafe(divHalfUp(BigInt(ordinaryMilliHours) * BigInt(f.daysEmployed), BigInt(f.daysInPeriod)));
}

/** What a final pay adds to the line (stored on it: migration 44). */
export interface FinalPay {
  readonly terminationDate: string;
  readonly cessationCode: CessationCode;
  readonly daysEmployed: number;
  readonly daysInPeriod: number;
  readonly unusedLeaveMilliHours: number;
  readonly unusedLeaveCents: number;
  readonly leaveLoadingCents: number;
  readonly terminationPaygCents: number;
}

/** The figures of a line a final pay changes, and what it reads (items: pay-items.ts). */
interface LineFigures {
  readonly grossCents: number;
  readonly paygCents: number;
  readonly netCents: number;
  readonly ordinaryMilliHours: number;
  readonly leaveIds: readonly string[];
  readonly salarySacrificeCents?: number;
  readonly items?: readonly { readonly type: string; readonly amountCents: number }[];
}

export interface FinalPayContext {
  readonly basis: PayBasis;
  /** Ordinary hours a week: a salaried employee's base hourly rate is annual salary ÷ 52 ÷ these. */
  readonly hoursPerWeek: number;
  readonly employmentBasis: EmploymentBasis;
  readonly frequency: PayFrequency;
  readonly paymentDate: string;
  readonly scale: TaxScale;
  readonly residency: 'resident' | 'foreign';
}

const num = (v: number | string | null | undefined): number => Number(v ?? 0);

/** The annual leave balance left after this run: the ledger, this run's accrual, less the annual leave it pays. */
async function unusedAnnualMilliHours(uow: Uow, employeeId: string, c: FinalPayContext, line: LineFigures): Promise<number> {
  const ledger = await uow.tx.get<{ balance: number | string | null; ordinary: number | string | null }>(
    `SELECT SUM(milli_hours) AS balance, SUM(CASE WHEN kind = 'accrual' THEN ordinary_milli_hours ELSE 0 END) AS ordinary
     FROM leave_ledger WHERE org_id = ? AND employee_id = ? AND leave_type = 'annual'`,
    [uow.orgId, employeeId],
  );
  const accrued = accrualForPay(c.employmentBasis, num(ledger?.ordinary), line.ordinaryMilliHours).annualMilliHours;
  let taken = 0;
  if (line.leaveIds.length > 0) {
    const row = await uow.tx.get<{ s: number | string | null }>(
      `SELECT SUM(milli_hours) AS s FROM leave_requests WHERE org_id = ? AND leave_type = 'annual' AND id IN (${placeholders(line.leaveIds.length)})`,
      [uow.orgId, ...line.leaveIds],
    );
    taken = num(row?.s);
  }
  return Math.max(0, num(ledger?.balance) + accrued - taken);
}

/** The value of milli-hours at the base hourly rate (salaried: annual ÷ 52 ÷ hoursPerWeek), half up once. */
function leaveValueCents(basis: PayBasis, hoursPerWeek: number, milliHours: number): number {
  const rate = baseHourlyRate(basis, hoursPerWeek);
  return toSafe(divHalfUp(rate.num * BigInt(milliHours), rate.den * BigInt(MILLI)));
}

/** PAYG on the unused leave and loading, by the reason (see the module comment). */
function terminationWithholding(reason: string, extraCents: number, normalCents: number, c: FinalPayContext): number {
  if (extraCents <= 0 || reason === 'deceased') return 0;
  const base = { period: c.frequency, paymentDate: c.paymentDate, scale: c.scale, residency: c.residency };
  if (isRedundancyOrInvalidity(reason) && c.scale !== 4) {
    return Number((BigInt(Math.floor(extraCents / 100)) * GENUINE_REDUNDANCY_BP) / 10_000n) * 100;
  }
  return lumpSumWithholding({ ...base, normalGrossCents: normalCents, additionalCents: extraCents });
}

/**
 * The line with the final pay added: the unused leave and loading in gross, the PAYG on them in
 * PAYG (after a death, no PAYG at all), net accordingly; super unchanged. `line` is the line of the
 * prorated ordinary pay (and any earnings lines), as draft-line.ts computed it.
 */
export async function withFinalPay<L extends LineFigures>(
  uow: Uow,
  employee: Pick<EmployeeRow, 'id' | 'name'>,
  f: FinalPayTerms,
  line: L,
  c: FinalPayContext,
): Promise<L & { readonly termination: FinalPay }> {
  const t = f.termination;
  if (isRedundancyOrInvalidity(t.reason) && c.residency === 'foreign' && c.scale !== 4) {
    throw conflict(
      `employee ${employee.id} (${employee.name}) is a foreign resident terminated for ${t.reason}: the genuine redundancy and invalidity ` +
        'withholding on unused leave is modelled for residents only; record another reason only if it is the true one, else pay the final pay outside Finance Desk',
    );
  }
  const unusedLeaveMilliHours = await unusedAnnualMilliHours(uow, employee.id, c, line);
  const unusedLeaveCents = leaveValueCents(c.basis, c.hoursPerWeek, unusedLeaveMilliHours);
  const hundredths = num(t.leave_loading_hundredths);
  const leaveLoadingCents = toSafe(divHalfUp(BigInt(unusedLeaveCents) * BigInt(hundredths), 10_000n));
  const extra = unusedLeaveCents + leaveLoadingCents;
  const additional = (line.items ?? []).reduce((s, i) => s + (i.type === 'bonus' || i.type === 'back_pay' ? i.amountCents : 0), 0);
  const normal = Math.max(0, line.grossCents - additional - (line.salarySacrificeCents ?? 0));
  const terminationPaygCents = terminationWithholding(t.reason, extra, normal, c);
  // After a death nothing is withheld from anything the final pay carries.
  const paygCents = t.reason === 'deceased' ? 0 : line.paygCents + terminationPaygCents;
  return {
    ...line,
    grossCents: line.grossCents + extra,
    paygCents,
    netCents: line.netCents + line.paygCents + extra - paygCents,
    termination: {
      terminationDate: t.termination_date,
      cessationCode: t.cessation_code,
      daysEmployed: f.daysEmployed,
      daysInPeriod: f.daysInPeriod,
      unusedLeaveMilliHours,
      unusedLeaveCents,
      leaveLoadingCents,
      terminationPaygCents,
    },
  };
}

/** Keep each final pay on its line of the drafted run (the other columns are the draft's insert). */
export async function storeFinalPays(
  uow: Uow,
  runId: string,
  lines: readonly { readonly employeeId: string; readonly termination?: FinalPay | null }[],
): Promise<void> {
  for (const l of lines) {
    const f = l.termination;
    if (!f) continue;
    await uow.tx.run(
      `UPDATE pay_run_lines SET termination_date = ?, cessation_code = ?, days_employed = ?, days_in_period = ?, unused_leave_milli_hours = ?,
         unused_leave_cents = ?, leave_loading_cents = ?, termination_payg_cents = ? WHERE org_id = ? AND pay_run_id = ? AND employee_id = ?`,
      [
        f.terminationDate,
        f.cessationCode,
        f.daysEmployed,
        f.daysInPeriod,
        f.unusedLeaveMilliHours,
        f.unusedLeaveCents,
        f.leaveLoadingCents,
        f.terminationPaygCents,
        uow.orgId,
        runId,
        l.employeeId,
      ],
    );
  }
}

/** A stored line's final pay columns (runs.ts reads them with the line). */
export type FinalPayLineRow = Pick<
  PayRunLineRow,
  | 'employee_id'
  | 'termination_date'
  | 'days_employed'
  | 'days_in_period'
  | 'unused_leave_milli_hours'
  | 'unused_leave_cents'
  | 'leave_loading_cents'
  | 'termination_payg_cents'
>;

/** The signer's words for a final pay (sign.ts summary), empty for any other line. */
export function finalPayText(l: FinalPayLineRow): string {
  if (l.termination_date === null) return '';
  const hours = num(l.unused_leave_milli_hours) / MILLI;
  const loading = num(l.leave_loading_cents);
  return (
    ` (final pay: employed to ${l.termination_date}, ${num(l.days_employed)} of ${num(l.days_in_period)} days of the period; ` +
    `unused annual leave ${hours} h paid out ${formatCents(num(l.unused_leave_cents))}` +
    `${loading > 0 ? ` plus leave loading ${formatCents(loading)}` : ''}, tax on it ${formatCents(num(l.termination_payg_cents))}, no super on it)`
  );
}

/**
 * Signing a run that pays a final pay (sign.ts, after the run's accrual and leave taken): the
 * unused annual leave leaves the balance (a `payout` entry of the leave ledger dated the period's
 * end as the run's accrual is, so the balance is 0), the termination records the run, and the employee is `terminated`.
 */
export async function signFinalPays(
  uow: Uow,
  run: { readonly id: string; readonly period_end: string },
  lines: readonly FinalPayLineRow[],
  ledgerId: string,
): Promise<void> {
  for (const l of lines) {
    if (l.termination_date === null) continue;
    const milli = num(l.unused_leave_milli_hours);
    if (milli > 0) {
      await uow.tx.run(
        `INSERT INTO leave_ledger (org_id, employee_id, leave_type, entry_id, kind, milli_hours, ordinary_milli_hours,
           on_date, source_kind, source_id, ledger_id, created_at)
         VALUES (?, ?, 'annual', ?, 'payout', ?, 0, ?, 'pay_run', ?, ?, ?)`,
        [uow.orgId, l.employee_id, `payout:${run.id}`, -milli, run.period_end, run.id, ledgerId, uow.now],
      );
    }
    await uow.tx.run(
      'UPDATE employee_terminations SET final_pay_run_id = ?, updated_at = ? WHERE org_id = ? AND employee_id = ? AND final_pay_run_id IS NULL',
      [run.id, uow.now, uow.orgId, l.employee_id],
    );
    await uow.tx.run(
      `UPDATE employees SET status = 'terminated', next_step = NULL, updated_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?`,
      [uow.now, ledgerId, uow.orgId, l.employee_id],
    );
  }
}

/**
 * Recalling a signed final pay (recall.ts; its leave ledger entries, the payout with them, are
 * removed there): the termination stands, unpaid, and the employee is active again, so a new draft
 * of the period pays the final pay again.
 */
export async function reopenFinalPays(uow: Uow, runId: string): Promise<void> {
  await uow.tx.run(
    `UPDATE employees SET status = 'active', updated_at = ? WHERE org_id = ? AND status = 'terminated'
     AND id IN (SELECT employee_id FROM employee_terminations WHERE org_id = ? AND final_pay_run_id = ?)`,
    [uow.now, uow.orgId, uow.orgId, runId],
  );
  await uow.tx.run('UPDATE employee_terminations SET final_pay_run_id = NULL, updated_at = ? WHERE org_id = ? AND final_pay_run_id = ?', [
    uow.now,
    uow.orgId,
    runId,
  ]);
}

/** What a year's STP reports of an employee's end of employment (stp.ts). */
export interface TerminationYtd {
  /** Unused leave and loading paid on a normal termination: Phase 2 paid leave type U, part of gross. */
  readonly unusedLeaveCents: number;
  /** Paid on a genuine redundancy or invalidity: lump sum A type R. */
  readonly lumpSumARCents: number;
  /** The cessation, when the final pay is a signed run paid in the year. */
  readonly cessation: { readonly date: string; readonly typeCode: CessationCode } | null;
}

/** Each employee's termination figures over their signed runs paid in `fy` (an employee with none has no entry). */
export async function terminationYtdOf(
  q: Queryable,
  orgId: string,
  employeeIds: readonly string[],
  fy: { readonly start: string; readonly end: string },
): Promise<Map<string, TerminationYtd>> {
  if (employeeIds.length === 0) return new Map();
  const ids = placeholders(employeeIds.length);
  const sums = await q.all<{ employee_id: string; normal: number | string | null; redundancy: number | string | null }>(
    `SELECT l.employee_id, ${terminationLeaveSum('l', false)} AS normal, ${terminationLeaveSum('l', true)} AS redundancy
     FROM pay_run_lines l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ? AND l.termination_date IS NOT NULL
       AND l.employee_id IN (${ids})
     GROUP BY l.employee_id`,
    [orgId, fy.start, fy.end, ...employeeIds],
  );
  const ceased = await q.all<{ employee_id: string; termination_date: string; cessation_code: CessationCode }>(
    `SELECT t.employee_id, t.termination_date, t.cessation_code FROM employee_terminations t
     JOIN pay_runs r ON r.org_id = t.org_id AND r.id = t.final_pay_run_id
     WHERE t.org_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ? AND t.employee_id IN (${ids})`,
    [orgId, fy.start, fy.end, ...employeeIds],
  );
  const out = new Map<string, TerminationYtd>();
  for (const r of sums) out.set(r.employee_id, { unusedLeaveCents: num(r.normal), lumpSumARCents: num(r.redundancy), cessation: null });
  for (const c of ceased) {
    const was = out.get(c.employee_id) ?? { unusedLeaveCents: 0, lumpSumARCents: 0, cessation: null };
    out.set(c.employee_id, { ...was, cessation: { date: c.termination_date, typeCode: c.cessation_code } });
  }
  return out;
}

/**
 * A payee's year to date with the termination pay split out of salary and wages (type U, or lump
 * sum A type R), each present only when paid, as Phase 2 leaves an amount not paid unreported.
 */
export function withTerminationPay<Y extends { readonly salaryWagesCents: number }>(ytd: Y, t: TerminationYtd | undefined) {
  if (!t) return ytd;
  return {
    ...ytd,
    salaryWagesCents: ytd.salaryWagesCents - t.unusedLeaveCents - t.lumpSumARCents,
    ...(t.unusedLeaveCents !== 0 ? { unusedLeaveOnTerminationCents: t.unusedLeaveCents } : {}),
    ...(t.lumpSumARCents !== 0 ? { lumpSumA: [{ type: 'R' as const, amountCents: t.lumpSumARCents }] } : {}),
  };
}

/** The payee's cessation block (STP: the cessation date and type code), present once the final pay is signed in the year. */
export function cessationBlock(t: TerminationYtd | undefined) {
  return t?.cessation ? { cessation: { date: t.cessation.date, typeCode: t.cessation.typeCode } } : {};
}

/** The SQL sum of a line's unused leave paid on termination for the cessation codes given (true: R and I; false: the others). */
export function terminationLeaveSum(alias: string, redundancy: boolean): string {
  const codes = [...REDUNDANCY_CODES].map((c) => `'${c}'`).join(', ');
  return `SUM(CASE WHEN ${alias}.termination_date IS NOT NULL AND ${alias}.cessation_code ${redundancy ? '' : 'NOT '}IN (${codes})
    THEN ${alias}.unused_leave_cents + ${alias}.leave_loading_cents ELSE 0 END)`;
}
