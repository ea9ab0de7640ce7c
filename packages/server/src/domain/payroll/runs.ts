import type { payroll } from '@finance-desk/protocol';
import type { z } from 'zod';
import { notFound } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';

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
}

export interface PayRunLineRow {
  employee_id: string;
  name: string;
  employment_basis: 'full_time' | 'part_time' | 'casual';
  gross_cents: number | string;
  payg_cents: number | string;
  super_cents: number | string;
  net_cents: number | string;
  hours: number | string | null;
  leave_hours: number | string;
  leave_cents: number | string;
  leave_ids: string;
  ordinary_milli_hours: number | string;
  tax_scale: number | string;
  confirmed: number | string;
  bank_bsb: string | null;
  bank_account_number: string | null;
  bank_account_name: string | null;
}

export const RUN_COLUMNS =
  'id, status, period_start, period_end, payment_date, pay_frequency, run_key, params_hash, funding, funding_account_id, entries_description, ' +
  'gross_cents, payg_cents, super_cents, net_cents, journal_id, file_name, outbox_id, reversal_journal_id, ledger_id';

export const LINE_COLUMNS =
  'employee_id, name, employment_basis, gross_cents, payg_cents, super_cents, net_cents, hours, leave_hours, leave_cents, ' +
  'leave_ids, ordinary_milli_hours, tax_scale, confirmed, bank_bsb, bank_account_number, bank_account_name';

export async function loadRun(q: Queryable, orgId: string, id: string, forUpdate = ''): Promise<PayRunRow> {
  const row = await q.get<PayRunRow>(`SELECT ${RUN_COLUMNS} FROM pay_runs WHERE org_id = ? AND id = ?${forUpdate}`, [orgId, id]);
  if (!row) throw notFound('pay run', id);
  return row;
}

export async function loadLines(q: Queryable, orgId: string, runId: string): Promise<PayRunLineRow[]> {
  return q.all<PayRunLineRow>(`SELECT ${LINE_COLUMNS} FROM pay_run_lines WHERE org_id = ? AND pay_run_id = ? ORDER BY line_no`, [
    orgId,
    runId,
  ]);
}

export function fundingOf(row: PayRunRow): Funding | null {
  return row.funding === null ? null : (JSON.parse(row.funding) as Funding);
}

/** `062-000 *****678`: the paying account as events and results show it. */
export function maskedFunding(f: Funding | null): string | null {
  return f ? `${f.bsb} ${'*'.repeat(Math.max(0, f.accountNumber.length - 3))}${f.accountNumber.slice(-3)}` : null;
}

export function toPayRun(row: PayRunRow, lines: readonly PayRunLineRow[]): PayRun {
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
      hours: l.hours === null ? null : Number(l.hours),
      leaveHours: Number(l.leave_hours),
      leaveCents: Number(l.leave_cents),
      leaveIds: JSON.parse(l.leave_ids) as string[],
      taxScale: Number(l.tax_scale),
      confirmed: Number(l.confirmed) === 1,
    })),
    totals: {
      grossCents: Number(row.gross_cents),
      paygCents: Number(row.payg_cents),
      superCents: Number(row.super_cents),
      netCents: Number(row.net_cents),
    },
    fundingAccount: maskedFunding(fundingOf(row)),
    fundingAccountId: row.funding_account_id,
    journalId: row.journal_id,
    fileName: row.file_name,
    reversalJournalId: row.reversal_journal_id,
    ledgerId: row.ledger_id,
  };
}

export async function payRunResult(q: Queryable, orgId: string, id: string): Promise<PayRun> {
  const row = await loadRun(q, orgId, id);
  return toPayRun(row, await loadLines(q, orgId, id));
}
