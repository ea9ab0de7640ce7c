import { events, maskDigits, type people } from '@finance-desk/protocol';
import type { z } from 'zod';
import { notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import type { Queryable } from '../../storage/types.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { grossForPeriod, hoursOfMilli, milliHoursOf, type PayBasis } from '../payroll/gross.js';
import { maskedTfn, taxScaleFor, tfnQuoted } from './tax-treatment.js';

/**
 * Employees. onboardingStart creates the record `onboarding` with nextStep
 * `tax_declaration`; onboarding.ts takes it through the steps to `active`. Pay runs read this
 * record: pay basis, hours, bank account, tax declaration and super fund.
 */
export type Employee = z.infer<typeof people.employee>;
type StartParams = z.infer<typeof people.onboardingStart.params>;

/** Salaried full-time staff without hoursPerWeek work the NES standard week (Fair Work Act s 62). */
export const STANDARD_HOURS_PER_WEEK = 38;

export interface EmployeeRow {
  id: string;
  status: 'onboarding' | 'active' | 'terminated';
  next_step: 'tax_declaration' | 'super' | 'contract' | null;
  name: string;
  email: string;
  start_date: string;
  employment_basis: 'full_time' | 'part_time' | 'casual';
  pay_frequency: 'weekly' | 'fortnightly' | 'monthly';
  annual_salary_cents: number | string | null;
  hourly_rate_cents: number | string | null;
  /** Ordinary hours a week in milli-hours (22.8 hours is 22800): exact to the hundredth the protocol allows. */
  milli_hours_per_week: number | string;
  bank_bsb: string | null;
  bank_account_number: string | null;
  bank_account_name: string | null;
  tfn: string | null;
  residency: 'resident' | 'foreign' | null;
  claims_tax_free_threshold: number | string | null;
  tax_declared_on: string | null;
  super_fund_name: string | null;
  super_fund_abn: string | null;
  super_member_number: string | null;
  title: string | null;
  ledger_id: string;
}

export const EMPLOYEE_COLUMNS =
  'id, status, next_step, name, email, start_date, employment_basis, pay_frequency, annual_salary_cents, ' +
  'hourly_rate_cents, milli_hours_per_week, bank_bsb, bank_account_number, bank_account_name, tfn, residency, ' +
  'claims_tax_free_threshold, tax_declared_on, super_fund_name, super_fund_abn, super_member_number, title, ledger_id';

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** A row's hours a week as the JSON number they were given as (22800 → 22.8); arithmetic reads them back exactly (milliHoursOf). */
export function hoursPerWeekOf(row: { milli_hours_per_week: number | string }): number {
  return hoursOfMilli(Number(row.milli_hours_per_week));
}

export async function loadEmployee(q: Queryable, orgId: string, id: string, forUpdate = ''): Promise<EmployeeRow> {
  const row = await q.get<EmployeeRow>(`SELECT ${EMPLOYEE_COLUMNS} FROM employees WHERE org_id = ? AND id = ?${forUpdate}`, [orgId, id]);
  if (!row) throw notFound('employee', id);
  return row;
}

export function payBasisOf(row: EmployeeRow): PayBasis {
  const salary = num(row.annual_salary_cents);
  if (salary !== null) return { annualSalaryCents: salary };
  return { hourlyRateCents: Number(row.hourly_rate_cents), hoursPerWeek: hoursPerWeekOf(row) };
}

/** "$85,000.00 a year" or "$32.50 an hour for 38 hours a week", paid weekly/fortnightly/monthly. */
export function describePay(row: EmployeeRow): string {
  const basis = payBasisOf(row);
  const period = row.pay_frequency === 'weekly' ? 'week' : row.pay_frequency === 'fortnightly' ? 'fortnight' : 'month';
  const gross = formatCents(grossForPeriod(basis, row.pay_frequency));
  const rate =
    'annualSalaryCents' in basis
      ? `${formatCents(basis.annualSalaryCents)} a year`
      : `${formatCents(basis.hourlyRateCents)} an hour for ${basis.hoursPerWeek} hours a week`;
  return `${rate}, paid ${row.pay_frequency} (${gross} gross a ${period})`;
}

function taxDeclarationOf(row: EmployeeRow, today: string): Employee['taxDeclaration'] {
  if (row.tfn === null || row.residency === null || row.tax_declared_on === null) return null;
  const declaration = {
    tfn: row.tfn,
    residency: row.residency,
    claimsTaxFreeThreshold: Number(row.claims_tax_free_threshold) === 1,
    declaredOn: row.tax_declared_on,
  };
  const quoted = tfnQuoted(row.tfn);
  return {
    // A not-quoted code identifies no one and tells the reader why there is no TFN.
    taxFileNumberMasked: maskedTfn(row.tfn),
    tfnQuoted: quoted,
    residency: declaration.residency,
    claimsTaxFreeThreshold: declaration.claimsTaxFreeThreshold,
    taxScale: taxScaleFor(declaration, today),
    declaredOn: declaration.declaredOn,
  };
}

/** The record as every result and read shows it: the TFN and account number masked. */
export function toEmployee(row: EmployeeRow, today: string): Employee {
  return {
    id: row.id,
    status: row.status,
    nextStep: row.next_step,
    name: row.name,
    email: row.email,
    startDate: row.start_date,
    employmentBasis: row.employment_basis,
    payFrequency: row.pay_frequency,
    annualSalaryCents: num(row.annual_salary_cents),
    hourlyRateCents: num(row.hourly_rate_cents),
    hoursPerWeek: hoursPerWeekOf(row),
    bankAccount:
      row.bank_bsb && row.bank_account_number && row.bank_account_name
        ? { bsb: row.bank_bsb, accountNumberMasked: maskDigits(row.bank_account_number), accountName: row.bank_account_name }
        : null,
    taxDeclaration: taxDeclarationOf(row, today),
    superFund:
      row.super_fund_name && row.super_fund_abn && row.super_member_number
        ? { fundName: row.super_fund_name, fundAbn: row.super_fund_abn, memberNumber: row.super_member_number }
        : null,
    title: row.title,
    ledgerId: row.ledger_id,
  };
}

function hoursOf(p: StartParams): number {
  return p.hoursPerWeek ?? STANDARD_HOURS_PER_WEEK;
}

/** books.onboardingStart: a new employee, `onboarding`, next step `tax_declaration`. */
export async function onboardingStart(p: StartParams, uow: Uow): Promise<ResultOf<typeof people.onboardingStart>> {
  const id = newId('emp');
  const bank =
    p.bsb && p.accountNumber && p.accountName ? { bsb: p.bsb, account: p.accountNumber, name: p.accountName.toUpperCase() } : null;
  const event = await uow.emit(events.onboardingStart, {
    entityId: id,
    payload: {
      name: p.name,
      startDate: p.startDate,
      employmentBasis: p.employmentBasis,
      payFrequency: p.payFrequency,
      annualSalaryCents: p.annualSalaryCents ?? null,
      hourlyRateCents: p.hourlyRateCents ?? null,
      milliHoursPerWeek: milliHoursOf(hoursOf(p)),
      bankAccount: bank ? `${bank.bsb} ${maskDigits(bank.account)}` : null,
      status: 'onboarding',
      nextStep: 'tax_declaration',
    },
  });
  await uow.tx.run(
    `INSERT INTO employees (org_id, id, status, next_step, name, email, start_date, employment_basis, pay_frequency,
       annual_salary_cents, hourly_rate_cents, milli_hours_per_week, bank_bsb, bank_account_number, bank_account_name,
       created_at, updated_at, ledger_id)
     VALUES (?, ?, 'onboarding', 'tax_declaration', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uow.orgId,
      id,
      p.name,
      p.email,
      p.startDate,
      p.employmentBasis,
      p.payFrequency,
      p.annualSalaryCents ?? null,
      p.hourlyRateCents ?? null,
      milliHoursOf(hoursOf(p)),
      bank?.bsb ?? null,
      bank?.account ?? null,
      bank?.name ?? null,
      uow.now,
      uow.now,
      event.ledgerId,
    ],
  );
  return toEmployee(await loadEmployee(uow.tx, uow.orgId, id), uow.today);
}
