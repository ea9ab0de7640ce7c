import type { payroll } from '@finance-desk/protocol';
import type { z } from 'zod';
import { notFound } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { hoursOfMilli } from './gross.js';
import type { AllowanceCategory, EarningType, PricedItem } from './pay-items.js';

/**
 * Pay run rows (migration 23) and the result every payroll method answers with (id, status,
 * lines, totals, journalId; plus the period, the paying account masked and the file name).
 */
export type PayRun = z.infer<typeof payroll.payRun>;
export type Funding = NonNullable<z.infer<typeof payroll.payrollDraft.params>['funding']>;

export interface PayRunRow {
  id: string;
  status: 'draft' | 'signed' | 'recalled';
  period_start: string;
  period_end: string;
  payment_date: string;
  pay_frequency: 'weekly' | 'fortnightly' | 'monthly';
  run_key: string;
  params_hash: string;
  funding: string | null;
  /** The bank account record the net pay file is paid from (fundingAccountId); its details are `funding`. */
  funding_account_id: string | null;
  entries_description: string | null;
  gross_cents: number | string;
  payg_cents: number | string;
  super_cents: number | string;
  net_cents: number | string;
  journal_id: string | null;
  file_name: string | null;
  outbox_id: string | null;
  reversal_journal_id: string | null;
  ledger_id: string;
  /** Gross paid to super before tax (pay items): credited to 2300 with the super guarantee. */
  salary_sacrifice_cents: number | string;
}

export interface PayRunLineRow {
  employee_id: string;
  name: string;
  employment_basis: 'full_time' | 'part_time' | 'casual';
  gross_cents: number | string;
  payg_cents: number | string;
  super_cents: number | string;
  net_cents: number | string;
  milli_hours: number | string | null;
  leave_milli_hours: number | string;
  leave_cents: number | string;
  leave_ids: string;
  ordinary_milli_hours: number | string;
  tax_scale: number | string;
  confirmed: number | string;
  bank_bsb: string | null;
  bank_account_number: string | null;
  bank_account_name: string | null;
  salary_sacrifice_cents: number | string;
  ote_cents: number | string;
  /** A final pay (migration 44, termination.ts): null termination_date on every other line. */
  termination_date: string | null;
  cessation_code: string | null;
  days_employed: number | string;
  days_in_period: number | string;
  unused_leave_milli_hours: number | string;
  unused_leave_cents: number | string;
  leave_loading_cents: number | string;
  termination_payg_cents: number | string;
}

export const RUN_COLUMNS =
  'id, status, period_start, period_end, payment_date, pay_frequency, run_key, params_hash, funding, funding_account_id, entries_description, ' +
  'gross_cents, payg_cents, super_cents, net_cents, journal_id, file_name, outbox_id, reversal_journal_id, ledger_id, salary_sacrifice_cents';

export const LINE_COLUMNS =
  'employee_id, name, employment_basis, gross_cents, payg_cents, super_cents, net_cents, milli_hours, leave_milli_hours, leave_cents, ' +
  'leave_ids, ordinary_milli_hours, tax_scale, confirmed, bank_bsb, bank_account_number, bank_account_name, salary_sacrifice_cents, ote_cents';

/** A line's final pay columns (written after the line's insert: termination.ts storeFinalPays). */
export const FINAL_PAY_COLUMNS =
  'termination_date, cessation_code, days_employed, days_in_period, unused_leave_milli_hours, unused_leave_cents, leave_loading_cents, termination_payg_cents';

export async function loadRun(q: Queryable, orgId: string, id: string, forUpdate = ''): Promise<PayRunRow> {
  const row = await q.get<PayRunRow>(`SELECT ${RUN_COLUMNS} FROM pay_runs WHERE org_id = ? AND id = ?${forUpdate}`, [orgId, id]);
  if (!row) throw notFound('pay run', id);
  return row;
}

export async function loadLines(q: Queryable, orgId: string, runId: string): Promise<PayRunLineRow[]> {
  return q.all<PayRunLineRow>(
    `SELECT ${LINE_COLUMNS}, ${FINAL_PAY_COLUMNS} FROM pay_run_lines WHERE org_id = ? AND pay_run_id = ? ORDER BY line_no`,
    [orgId, runId],
  );
}

/** One stored earnings line (pay_run_items, migration 43). */
export interface PayRunItemRow {
  employee_id: string;
  item_no: number | string;
  item_type: EarningType;
  category: AllowanceCategory | null;
  milli_hours: number | string | null;
  multiplier_milli: number | string | null;
  amount_cents: number | string;
}

/** A run's earnings lines, in the order given, per employee. */
export async function loadItems(q: Queryable, orgId: string, runId: string): Promise<PayRunItemRow[]> {
  return q.all<PayRunItemRow>(
    `SELECT employee_id, item_no, item_type, category, milli_hours, multiplier_milli, amount_cents FROM pay_run_items
     WHERE org_id = ? AND pay_run_id = ? ORDER BY employee_id, item_no`,
    [orgId, runId],
  );
}

export async function insertItems(uow: Uow, runId: string, employeeId: string, items: readonly PricedItem[]): Promise<void> {
  let n = 0;
  for (const i of items) {
    n += 1;
    await uow.tx.run(
      `INSERT INTO pay_run_items (org_id, pay_run_id, employee_id, item_no, item_type, category, milli_hours, multiplier_milli, amount_cents)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [uow.orgId, runId, employeeId, n, i.type, i.category, i.milliHours, i.multiplierMilli, i.amountCents],
    );
  }
}

/** A stored row as a priced item. */
export function itemOf(r: PayRunItemRow): PricedItem {
  return {
    type: r.item_type,
    category: r.category,
    milliHours: r.milli_hours === null ? null : Number(r.milli_hours),
    multiplierMilli: r.multiplier_milli === null ? null : Number(r.multiplier_milli),
    amountCents: Number(r.amount_cents),
  };
}

/** An earnings line as results and events show it: hours and multiplier as the decimal numbers given. */
export function publicItem(i: PricedItem) {
  return {
    type: i.type,
    category: i.category,
    hours: i.milliHours === null ? null : hoursOfMilli(i.milliHours),
    multiplier: i.multiplierMilli === null ? null : i.multiplierMilli / 1000,
    amountCents: i.amountCents,
  };
}

function itemFields(items: readonly PayRunItemRow[], sacrifice: number) {
  return {
    ...(items.length > 0 ? { earnings: items.map((i) => publicItem(itemOf(i))) } : {}),
    ...(sacrifice > 0 ? { salarySacrificeCents: sacrifice } : {}),
  };
}

/** An earnings line as events carry it: hours and multiplier in thousandths (event payloads hold integers only). */
export function eventItem(i: PricedItem) {
  return { type: i.type, category: i.category, milliHours: i.milliHours, multiplierMilli: i.multiplierMilli, amountCents: i.amountCents };
}

export function fundingOf(row: PayRunRow): Funding | null {
  return row.funding === null ? null : (JSON.parse(row.funding) as Funding);
}

/** `062-000 *****678`: the paying account as events and results show it. */
export function maskedFunding(f: Funding | null): string | null {
  return f ? `${f.bsb} ${'*'.repeat(Math.max(0, f.accountNumber.length - 3))}${f.accountNumber.slice(-3)}` : null;
}

export function toPayRun(row: PayRunRow, lines: readonly PayRunLineRow[], items: readonly PayRunItemRow[]): PayRun {
  return {
    id: row.id,
    status: row.status,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    paymentDate: row.payment_date,
    payFrequency: row.pay_frequency,
    lines: lines.map((l) => ({
      employeeId: l.employee_id,
      name: l.name,
      grossCents: Number(l.gross_cents),
      paygCents: Number(l.payg_cents),
      superCents: Number(l.super_cents),
      netCents: Number(l.net_cents),
      hours: l.milli_hours === null ? null : hoursOfMilli(Number(l.milli_hours)),
      leaveHours: hoursOfMilli(Number(l.leave_milli_hours)),
      leaveCents: Number(l.leave_cents),
      leaveIds: JSON.parse(l.leave_ids) as string[],
      taxScale: Number(l.tax_scale),
      confirmed: Number(l.confirmed) === 1,
      // Pay items show only on a line that has them: a run without them reads as it always did.
      ...itemFields(
        items.filter((i) => i.employee_id === l.employee_id),
        Number(l.salary_sacrifice_cents),
      ),
      ...(l.termination_date === null ? {} : { termination: finalPayOf(l) }),
    })),
    totals: {
      grossCents: Number(row.gross_cents),
      paygCents: Number(row.payg_cents),
      superCents: Number(row.super_cents),
      netCents: Number(row.net_cents),
      ...(Number(row.salary_sacrifice_cents) > 0 ? { salarySacrificeCents: Number(row.salary_sacrifice_cents) } : {}),
    },
    fundingAccount: maskedFunding(fundingOf(row)),
    fundingAccountId: row.funding_account_id,
    journalId: row.journal_id,
    fileName: row.file_name,
    reversalJournalId: row.reversal_journal_id,
    ledgerId: row.ledger_id,
  };
}

/** A final pay as results show it (books.employeeTerminate). */
function finalPayOf(l: PayRunLineRow) {
  return {
    terminationDate: l.termination_date ?? '',
    cessationTypeCode: l.cessation_code ?? '',
    daysEmployed: Number(l.days_employed),
    daysInPeriod: Number(l.days_in_period),
    unusedLeaveMilliHours: Number(l.unused_leave_milli_hours),
    unusedLeaveCents: Number(l.unused_leave_cents),
    leaveLoadingCents: Number(l.leave_loading_cents),
    terminationPaygCents: Number(l.termination_payg_cents),
  };
}

export async function payRunResult(q: Queryable, orgId: string, id: string): Promise<PayRun> {
  const row = await loadRun(q, orgId, id);
  return toPayRun(row, await loadLines(q, orgId, id), await loadItems(q, orgId, id));
}
