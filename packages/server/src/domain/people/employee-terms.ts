import type { people } from '@finance-desk/protocol';
import { placeholders } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { milliHoursOf } from '../payroll/gross.js';
import { hoursPerWeekOf, toEmployee, type Employee, type EmployeeRow } from './employees.js';

/**
 * An employee's terms over time (books.employeeUpdate, migration 40). The employees row holds the
 * terms with every recorded change applied, future-dated ones too; employee_changes holds each
 * change with the date it comes into force, and, from the first change on, a `start` row with the
 * terms onboarding set. The terms in force on a date are the start row's, overlaid in date order
 * by every change effective on or before it.
 *
 * Which date a pay run asks about (docs/books.md "Changing an employee's terms"): pay, hours and
 * title in force on the period's first day, as payroll officers apply a rise from the first period
 * starting on or after it (a change effective mid-period applies from the next period; nothing is
 * pro-rated); tax declaration, super fund and bank account in force on the payment date, as
 * a new declaration applies to the payments made after it and net pay goes where the employee
 * asked at the time it is paid.
 */
export interface TaxTerms {
  readonly tfn: string;
  readonly residency: 'resident' | 'foreign';
  readonly claimsTaxFreeThreshold: boolean;
  readonly declaredOn: string;
}
export interface SuperTerms {
  readonly fundName: string;
  readonly fundAbn: string;
  readonly memberNumber: string;
}
export interface BankTerms {
  readonly bsb: string;
  readonly accountNumber: string;
  readonly accountName: string;
}

export interface Terms {
  readonly annualSalaryCents: number | null;
  readonly hourlyRateCents: number | null;
  readonly hoursPerWeek: number;
  readonly title: string | null;
  readonly superFund: SuperTerms | null;
  readonly taxDeclaration: TaxTerms | null;
  readonly bankAccount: BankTerms | null;
}

export type TermName = (typeof people.EMPLOYEE_TERMS)[number];
// The protocol's list and this record name the same terms.
const _sameTerms: [TermName, keyof Terms] extends [keyof Terms, TermName] ? true : never = true;
void _sameTerms;

/** Terms a pay run takes as in force on the period's first day; the rest as on the payment date. */
export const PERIOD_TERMS: ReadonlySet<TermName> = new Set<TermName>(['annualSalaryCents', 'hourlyRateCents', 'hoursPerWeek', 'title']);

export interface Change {
  readonly seq: number;
  /** `start`: the terms onboarding set (always applies); `change`: a books.employeeUpdate. */
  readonly kind: 'start' | 'change';
  readonly effectiveFrom: string;
  readonly set: Partial<Terms>;
  readonly ledgerId: string;
}

interface ChangeRow {
  employee_id: string;
  seq: number | string;
  kind: 'start' | 'change';
  effective_from: string;
  fields: string;
  tfn: string | null;
  ledger_id: string;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

export function termsOfRow(row: EmployeeRow): Terms {
  return {
    annualSalaryCents: num(row.annual_salary_cents),
    hourlyRateCents: num(row.hourly_rate_cents),
    hoursPerWeek: hoursPerWeekOf(row),
    title: row.title,
    superFund:
      row.super_fund_name !== null && row.super_fund_abn !== null && row.super_member_number !== null
        ? { fundName: row.super_fund_name, fundAbn: row.super_fund_abn, memberNumber: row.super_member_number }
        : null,
    taxDeclaration:
      row.tfn !== null && row.residency !== null && row.tax_declared_on !== null
        ? {
            tfn: row.tfn,
            residency: row.residency,
            claimsTaxFreeThreshold: Number(row.claims_tax_free_threshold) === 1,
            declaredOn: row.tax_declared_on,
          }
        : null,
    bankAccount:
      row.bank_bsb !== null && row.bank_account_number !== null && row.bank_account_name !== null
        ? { bsb: row.bank_bsb, accountNumber: row.bank_account_number, accountName: row.bank_account_name }
        : null,
  };
}

/** The row with these terms in its columns (status, name, dates, basis and frequency unchanged). */
export function withTerms(row: EmployeeRow, t: Terms): EmployeeRow {
  return {
    ...row,
    annual_salary_cents: t.annualSalaryCents,
    hourly_rate_cents: t.hourlyRateCents,
    milli_hours_per_week: milliHoursOf(t.hoursPerWeek),
    title: t.title,
    super_fund_name: t.superFund?.fundName ?? null,
    super_fund_abn: t.superFund?.fundAbn ?? null,
    super_member_number: t.superFund?.memberNumber ?? null,
    tfn: t.taxDeclaration?.tfn ?? null,
    residency: t.taxDeclaration?.residency ?? null,
    claims_tax_free_threshold: t.taxDeclaration ? (t.taxDeclaration.claimsTaxFreeThreshold ? 1 : 0) : null,
    tax_declared_on: t.taxDeclaration?.declaredOn ?? null,
    bank_bsb: t.bankAccount?.bsb ?? null,
    bank_account_number: t.bankAccount?.accountNumber ?? null,
    bank_account_name: t.bankAccount?.accountName ?? null,
  };
}

/** Each employee's changes, in the order they apply: by effective date, then as recorded. */
export async function loadChanges(q: Queryable, orgId: string, employeeIds: readonly string[]): Promise<Map<string, Change[]>> {
  const out = new Map<string, Change[]>();
  if (employeeIds.length === 0) return out;
  const rows = await q.all<ChangeRow>(
    `SELECT employee_id, seq, kind, effective_from, fields, tfn, ledger_id FROM employee_changes
     WHERE org_id = ? AND employee_id IN (${placeholders(employeeIds.length)}) ORDER BY employee_id, effective_from, seq`,
    [orgId, ...employeeIds],
  );
  for (const r of rows) {
    const stored = JSON.parse(r.fields) as Partial<Terms> & { taxDeclaration?: Omit<TaxTerms, 'tfn'> | null };
    const set: Partial<Terms> =
      stored.taxDeclaration && r.tfn !== null ? { ...stored, taxDeclaration: { ...stored.taxDeclaration, tfn: r.tfn } } : stored;
    const list = out.get(r.employee_id) ?? [];
    list.push({ seq: Number(r.seq), kind: r.kind, effectiveFrom: r.effective_from, set, ledgerId: r.ledger_id });
    out.set(r.employee_id, list);
  }
  return out;
}

/** The terms in force on `date` (the start row holds the terms before any change, so it always applies). */
export function termsOn(row: EmployeeRow, changes: readonly Change[], date: string): Terms {
  let t = termsOfRow(row);
  for (const c of changes) if (c.kind === 'start' || c.effectiveFrom <= date) t = { ...t, ...c.set };
  return t;
}

/** The date the next change after `today` comes into force, or null. */
export function pendingFrom(changes: readonly Change[], today: string): string | null {
  return changes.find((c) => c.kind === 'change' && c.effectiveFrom > today)?.effectiveFrom ?? null;
}

/** The employee as every result and read shows it: the terms in force today, and when the next change comes. */
export function employeeToday(row: EmployeeRow, changes: readonly Change[], today: string): Employee {
  if (changes.length === 0) return { ...toEmployee(row, today), pendingFrom: null };
  return { ...toEmployee(withTerms(row, termsOn(row, changes, today)), today), pendingFrom: pendingFrom(changes, today) };
}

/**
 * The rows a pay run computes from: each with the pay terms in force on `periodStart` and the
 * others in force on `paymentDate`.
 */
export async function rowsForRun(
  q: Queryable,
  orgId: string,
  rows: readonly EmployeeRow[],
  periodStart: string,
  paymentDate: string,
): Promise<EmployeeRow[]> {
  const changes = await loadChanges(
    q,
    orgId,
    rows.map((r) => r.id),
  );
  return rows.map((row) => {
    const list = changes.get(row.id);
    if (!list) return row;
    const byPeriod = termsOn(row, list, periodStart);
    const byPayment = termsOn(row, list, paymentDate);
    const t: Terms = {
      ...byPayment,
      annualSalaryCents: byPeriod.annualSalaryCents,
      hourlyRateCents: byPeriod.hourlyRateCents,
      hoursPerWeek: byPeriod.hoursPerWeek,
      title: byPeriod.title,
    };
    return withTerms(row, t);
  });
}

/** A change as stored: the TFN out of the JSON, in its own column. */
function stored(set: Partial<Terms>): { fields: string; tfn: string | null } {
  if (!set.taxDeclaration) return { fields: JSON.stringify(set), tfn: null };
  const { tfn, ...declaration } = set.taxDeclaration;
  return { fields: JSON.stringify({ ...set, taxDeclaration: declaration }), tfn };
}

const INSERT = `INSERT INTO employee_changes (org_id, employee_id, seq, kind, effective_from, fields, tfn, created_at, ledger_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Record a change (and, with an employee's first, the start row of the terms onboarding set) and
 * write the terms with every change applied to the employees row. Returns the employee's changes.
 */
export async function recordChange(
  uow: Uow,
  row: EmployeeRow,
  changes: readonly Change[],
  change: { readonly effectiveFrom: string; readonly set: Partial<Terms>; readonly ledgerId: string },
): Promise<Change[]> {
  const all = [...changes];
  if (all.length === 0) {
    const start: Change = { seq: 1, kind: 'start', effectiveFrom: row.start_date, set: termsOfRow(row), ledgerId: row.ledger_id };
    const s = stored(start.set);
    await uow.tx.run(INSERT, [uow.orgId, row.id, 1, 'start', row.start_date, s.fields, s.tfn, uow.now, row.ledger_id]);
    all.push(start);
  }
  const seq = Math.max(...all.map((c) => c.seq)) + 1;
  const s = stored(change.set);
  await uow.tx.run(INSERT, [uow.orgId, row.id, seq, 'change', change.effectiveFrom, s.fields, s.tfn, uow.now, change.ledgerId]);
  all.push({ seq, kind: 'change', ...change });
  all.sort((a, b) => (a.effectiveFrom === b.effectiveFrom ? a.seq - b.seq : a.effectiveFrom < b.effectiveFrom ? -1 : 1));
  const latest = withTerms(
    row,
    all.reduce<Terms>((t, c) => ({ ...t, ...c.set }), termsOfRow(row)),
  );
  await uow.tx.run(
    `UPDATE employees SET title = ?, annual_salary_cents = ?, hourly_rate_cents = ?, milli_hours_per_week = ?,
       super_fund_name = ?, super_fund_abn = ?, super_member_number = ?, tfn = ?, residency = ?, claims_tax_free_threshold = ?,
       tax_declared_on = ?, bank_bsb = ?, bank_account_number = ?, bank_account_name = ?, updated_at = ?, ledger_id = ?
     WHERE org_id = ? AND id = ?`,
    [
      latest.title,
      latest.annual_salary_cents,
      latest.hourly_rate_cents,
      latest.milli_hours_per_week,
      latest.super_fund_name,
      latest.super_fund_abn,
      latest.super_member_number,
      latest.tfn,
      latest.residency,
      latest.claims_tax_free_threshold,
      latest.tax_declared_on,
      latest.bank_bsb,
      latest.bank_account_number,
      latest.bank_account_name,
      uow.now,
      change.ledgerId,
      uow.orgId,
      row.id,
    ],
  );
  return all;
}
