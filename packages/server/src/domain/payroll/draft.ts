import { events, canonicalJson, decimalsAsText, payroll, sha256Hex, type JsonValue } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { resolveFundingAccount, type ResolvedFunding } from '../banking/accounts.js';
import { rowsForRun } from '../people/employee-terms.js';
import { EMPLOYEE_COLUMNS, type EmployeeRow } from '../people/employees.js';
import { computeLine, type DraftLine } from './draft-line.js';
import { PayItemError } from './pay-items.js';
import { refuseAfterTermination, storeFinalPays, terminationsOf } from './termination.js';
import { PayrollDataError } from './withholding.js';
import { eventItem, insertItems, LINE_COLUMNS, loadItems, loadLines, RUN_COLUMNS, toPayRun, type PayRunRow } from './runs.js';

/**
 * books.payrollDraft: resolve the employees, validate them against the period, compute each
 * line with payLine (pay-line.ts) and store the run `draft`. Nothing is posted and no leave moves:
 * that is the signature act's (sign.ts).
 *
 * Idempotent by state: the same period, frequency and employee set while that draft is open, with
 * the same details (hours, payment date, funding), answers the draft as a no-op; with other details
 * it is CONFLICT naming the draft (recall it first). Any other draft or signed run covering one of
 * these employees for an overlapping period is CONFLICT naming it: one period is paid once.
 */
type Params = z.infer<typeof payroll.payrollDraft.params>;
const { PAY_RUN_EMPLOYEES_MAX } = payroll;

/** Locked (Postgres FOR UPDATE): concurrent drafts over the same employees serialise, so a period is drafted once. */
async function resolveEmployees(uow: Uow, p: Params): Promise<EmployeeRow[]> {
  if (p.employeeIds) {
    const rows: EmployeeRow[] = [];
    for (const id of p.employeeIds) {
      const row = await uow.tx.get<EmployeeRow>(
        `SELECT ${EMPLOYEE_COLUMNS} FROM employees WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
        [uow.orgId, id],
      );
      if (!row) throw notFound('employee', id);
      rows.push(row);
    }
    return rows;
  }
  const rows = await uow.tx.all<EmployeeRow>(
    `SELECT ${EMPLOYEE_COLUMNS} FROM employees WHERE org_id = ? AND status = ? AND pay_frequency = ? ORDER BY id LIMIT ${PAY_RUN_EMPLOYEES_MAX + 1}${uow.caps.forUpdate}`,
    [uow.orgId, 'active', p.payFrequency],
  );
  if (rows.length === 0) throw conflict(`no active employee is paid ${p.payFrequency}; there is no one to pay`);
  if (rows.length > PAY_RUN_EMPLOYEES_MAX) {
    throw conflict(
      `more than ${PAY_RUN_EMPLOYEES_MAX} active employees are paid ${p.payFrequency}; pay them in runs of at most ${PAY_RUN_EMPLOYEES_MAX} with employeeIds`,
    );
  }
  return rows;
}

/** Bad input names the field; an employee not yet active is a state (CONFLICT naming it). */
function validate(p: Params, rows: readonly EmployeeRow[], today: string, funding: ResolvedFunding | null): void {
  const field = p.employeeIds ? 'employeeIds' : 'payFrequency';
  // The order of checks: bad input first (every employee), then state.
  for (const e of rows) {
    const who = `${e.id} (${e.name})`;
    if (e.pay_frequency !== p.payFrequency) throw badRequest(`${field}: employee ${who} is paid ${e.pay_frequency}, not ${p.payFrequency}`);
    if (e.start_date > p.periodEnd) throw badRequest(`periodEnd: employee ${who} starts on ${e.start_date}, after the period ends`);
  }
  const ids = new Set(rows.map((e) => e.id));
  for (const h of p.hours ?? []) {
    if (!ids.has(h.employeeId)) throw badRequest(`hours: employee ${h.employeeId} is not in this pay run`);
    const e = rows.find((r) => r.id === h.employeeId);
    if (e && e.hourly_rate_cents === null)
      throw badRequest(`hours: employee ${e.id} (${e.name}) is salaried; hours are only for hourly staff`);
  }
  (p.earnings ?? []).forEach((x, i) => {
    if (!ids.has(x.employeeId)) throw badRequest(`earnings[${i}].employeeId: employee ${x.employeeId} is not in this pay run`);
  });
  if (funding) {
    const fundingField = p.fundingAccountId !== undefined ? 'fundingAccountId' : 'funding';
    if (p.paymentDate < today)
      throw badRequest(`paymentDate: must be today (${today}) or later when ${fundingField} is given (the bank pays the file)`);
    const without = rows.filter((e) => !e.bank_bsb || !e.bank_account_number || !e.bank_account_name);
    if (without.length > 0) {
      throw badRequest(
        `${fundingField}: ${without.map((e) => `${e.id} (${e.name})`).join(', ')} has no bank details; net pay cannot be paid by ABA file`,
      );
    }
  }
  // A terminated employee is refused after validate, naming their termination date (termination.ts).
  const inactive = rows.find((e) => e.status !== 'active' && e.status !== 'terminated');
  if (inactive) {
    throw conflict(
      `employee ${inactive.id} (${inactive.name}) is ${inactive.status} (next step ${inactive.next_step ?? 'none'}); only an active employee is paid`,
    );
  }
}

/** The open draft with the same key (a no-op), or CONFLICT naming a run that already covers someone. */
async function existingRun(uow: Uow, p: Params, runKey: string, paramsHash: string, ids: readonly string[]) {
  const twin = await uow.tx.get<PayRunRow>(`SELECT ${RUN_COLUMNS} FROM pay_runs WHERE org_id = ? AND run_key = ? AND status = ?`, [
    uow.orgId,
    runKey,
    'draft',
  ]);
  if (twin && twin.params_hash === paramsHash) return twin;
  if (twin)
    throw conflict(
      `pay run ${twin.id} is a draft for this period and these employees with other details; recall it (books.payrollRecall) first`,
    );
  const marks = ids.map(() => '?').join(', ');
  const overlap = await uow.tx.get<{ id: string; status: string; employee_id: string; period_start: string; period_end: string }>(
    `SELECT r.id, r.status, l.employee_id, r.period_start, r.period_end FROM pay_run_lines l
     JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND l.employee_id IN (${marks}) AND r.status IN ('draft', 'signed')
       AND r.period_start <= ? AND r.period_end >= ? ORDER BY r.id LIMIT 1`,
    [uow.orgId, ...ids, p.periodEnd, p.periodStart],
  );
  if (overlap) {
    throw conflict(
      `employee ${overlap.employee_id} is already in pay run ${overlap.id} (${overlap.status}, ${overlap.period_start} to ${overlap.period_end}), which overlaps this period`,
    );
  }
  return null;
}

export async function payrollDraft(p: Params, uow: Uow): Promise<ResultOf<typeof payroll.payrollDraft>> {
  // A record's direct-entry details are copied into the draft (what the signer sees and the file
  // carries); signing checks they have not changed since (sign.ts).
  const record = p.fundingAccountId === undefined ? null : await resolveFundingAccount(uow.tx, uow.orgId, p.fundingAccountId);
  const funding: ResolvedFunding | null = record?.funding ?? p.funding ?? null;
  // Each employee on the terms in force for this run: pay and hours on the period's first day, the
  // tax declaration and bank account on the payment date (people/employee-terms.ts).
  const rows = await rowsForRun(uow.tx, uow.orgId, await resolveEmployees(uow, p), p.periodStart, p.paymentDate);
  validate(p, rows, uow.today, funding);
  const ids = rows.map((e) => e.id);
  refuseAfterTermination(p, rows, await terminationsOf(uow.tx, uow.orgId, ids));
  const runKey = sha256Hex(
    canonicalJson({ periodStart: p.periodStart, periodEnd: p.periodEnd, payFrequency: p.payFrequency, ids: [...ids].sort() }),
  );
  const bound = record ? { fundingDetails: record.funding as unknown as JsonValue } : {};
  // Hours and multipliers with decimals hash as text (canonical JSON takes integers only).
  const paramsHash = sha256Hex(canonicalJson(decimalsAsText({ ...p, employeeIds: [...ids].sort(), ...bound })));
  const twin = await existingRun(uow, p, runKey, paramsHash, ids);
  if (twin)
    return { ...toPayRun(twin, await loadLines(uow.tx, uow.orgId, twin.id), await loadItems(uow.tx, uow.orgId, twin.id)), noop: true };
  const lines: DraftLine[] = [];
  try {
    for (const e of rows) {
      const hours = p.hours?.find((h) => h.employeeId === e.id)?.hours;
      const earnings = (p.earnings ?? []).filter((x) => x.employeeId === e.id);
      try {
        lines.push(await computeLine(uow, p, e, hours, earnings));
      } catch (err) {
        if (err instanceof PayItemError) throw badRequest(`earnings: employee ${e.id} (${e.name}): ${err.message}`);
        throw err;
      }
    }
  } catch (err) {
    if (err instanceof PayrollDataError) throw badRequest(`paymentDate: ${err.message}`);
    throw err;
  }
  if (lines.every((l) => l.grossCents === 0)) throw badRequest('hours: the run pays nothing (every gross is $0.00)');
  return insertDraft(uow, p, { runKey, paramsHash, lines, funding, fundingAccountId: record?.id ?? null });
}

async function insertDraft(
  uow: Uow,
  p: Params,
  d: { runKey: string; paramsHash: string; lines: readonly DraftLine[]; funding: ResolvedFunding | null; fundingAccountId: string | null },
) {
  const fundingJson = d.funding ? JSON.stringify(d.funding) : null;
  const id = newId('pay');
  const sum = (k: 'grossCents' | 'paygCents' | 'superCents' | 'netCents' | 'salarySacrificeCents') => d.lines.reduce((s, l) => s + l[k], 0);
  const sacrificeCents = sum('salarySacrificeCents');
  const totals = { grossCents: sum('grossCents'), paygCents: sum('paygCents'), superCents: sum('superCents'), netCents: sum('netCents') };
  const event = await uow.emit(events.payRunDraft, {
    entityId: id,
    payload: {
      id,
      periodStart: p.periodStart,
      periodEnd: p.periodEnd,
      paymentDate: p.paymentDate,
      payFrequency: p.payFrequency,
      lines: d.lines.map((l) => ({
        employeeId: l.employeeId,
        grossCents: l.grossCents,
        paygCents: l.paygCents,
        superCents: l.superCents,
        netCents: l.netCents,
        leaveIds: [...l.leaveIds],
        ...(l.items.length > 0 ? { earnings: l.items.map(eventItem), salarySacrificeCents: l.salarySacrificeCents } : {}),
      })),
      totals,
      funded: d.funding !== null,
    },
  });
  await uow.tx.run(
    `INSERT INTO pay_runs (org_id, id, status, period_start, period_end, payment_date, pay_frequency, run_key, params_hash, funding,
       funding_account_id, entries_description, gross_cents, payg_cents, super_cents, net_cents, created_at, ledger_id,
       salary_sacrifice_cents)
     VALUES (?, ?, 'draft', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uow.orgId,
      id,
      p.periodStart,
      p.periodEnd,
      p.paymentDate,
      p.payFrequency,
      d.runKey,
      d.paramsHash,
      fundingJson,
      d.fundingAccountId,
      p.entriesDescription ?? null,
      totals.grossCents,
      totals.paygCents,
      totals.superCents,
      totals.netCents,
      uow.now,
      event.ledgerId,
      sacrificeCents,
    ],
  );
  let n = 0;
  for (const l of d.lines) {
    n += 1;
    await uow.tx.run(
      `INSERT INTO pay_run_lines (org_id, pay_run_id, line_no, ${LINE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        uow.orgId,
        id,
        n,
        l.employeeId,
        l.name,
        l.basis,
        l.grossCents,
        l.paygCents,
        l.superCents,
        l.netCents,
        l.milliHours,
        l.leaveMilliHours,
        l.leaveCents,
        JSON.stringify(l.leaveIds),
        l.ordinaryMilliHours,
        l.taxScale,
        l.confirmed ? 1 : 0,
        l.bsb,
        l.accountNumber,
        l.accountName,
        l.salarySacrificeCents,
        l.oteCents,
      ],
    );
    await insertItems(uow, id, l.employeeId, l.items);
  }
  await storeFinalPays(uow, id, d.lines);
  return toPayRun(
    {
      id,
      status: 'draft',
      period_start: p.periodStart,
      period_end: p.periodEnd,
      payment_date: p.paymentDate,
      pay_frequency: p.payFrequency,
      run_key: d.runKey,
      params_hash: d.paramsHash,
      funding: fundingJson,
      funding_account_id: d.fundingAccountId,
      entries_description: p.entriesDescription ?? null,
      gross_cents: totals.grossCents,
      payg_cents: totals.paygCents,
      super_cents: totals.superCents,
      net_cents: totals.netCents,
      journal_id: null,
      file_name: null,
      outbox_id: null,
      reversal_journal_id: null,
      ledger_id: event.ledgerId,
      salary_sacrifice_cents: sacrificeCents,
    },
    await loadLines(uow.tx, uow.orgId, id),
    await loadItems(uow.tx, uow.orgId, id),
  );
}
