import { events, payroll } from '@finance-desk/protocol';
import type { z } from 'zod';
import { enqueueLodgement, lodgementDocument, type LodgementConfirmer } from '../../adapters/lodgement.js';
import { conflict, invariant } from '../../errors.js';
import { newId, secret } from '../../ids.js';
import type { Queryable } from '../../storage/types.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { maskedTfn, stpTaxTreatmentCode, tfnQuoted } from '../people/tax-treatment.js';
import { loadLines, loadRun, type PayRunRow } from './runs.js';
import { placeholders } from '../../storage/sql.js';
import { financialYear, financialYearLabel, type FinancialYear } from './stp-year.js';
import { cessationBlock, terminationYtdOf, withTerminationPay } from './termination.js';
import { itemTotals, type AllowanceCategory, type EarningType } from './pay-items.js';
import { carriedYtdOf, type CarriedYtd } from './conversion.js';

/**
 * Single Touch Payroll (docs/books.md "Single Touch Payroll"). A pay event is a
 * lodgement document (kind `stp_pay_event`) queued through the lodgement adapter in the caller's
 * transaction, under the caller's one event (no event of its own): payrollSign queues the run's
 * `pay` event, payrollRecall of a signed run a `correction`, books.stpResubmit a `resubmission`.
 * Every kind carries the same shape: per payee the year-to-date figures for the financial year of
 * the run's payment date over that employee's signed runs, plus what a conversion in that year
 * carried in from the previous software (conversion.ts; the payee's `carriedIn` names that part) —
 * STP reports YTD totals, so a later event replaces an earlier one and a correction is simply the
 * YTD without the recalled run.
 *
 * The TFN is in the document (the ATO needs it; the file is 0600 and the outbox row is the
 * document) and nowhere else: no event payload, result or submission row carries it. The
 * document's exact bytes go only to the lodgement sink, to a person with payroll decision rights
 * in the console, and into the operator's audit pack (whose verifier checks them byte for byte);
 * every API key, and every other person, gets `maskedPayEvent` (docs/decisions.md "TFNs in files").
 *
 * A year's finalisation and its amendments (stp-finalise.ts) are documents of the same kind and
 * shape, about no pay run (`payRun` null), each payee marked `finalEvent`.
 */
export type StpKind = (typeof payroll.STP_SUBMISSION_KINDS)[number];
export type StpPayKind = 'pay' | 'correction' | 'resubmission';

/** The payer's ABN comes from the organisation profile (null until an owner sets it); the BMS id is the org id (stable per payer). */
const BMS_PREFIX = 'finance-desk:';

export interface YtdRow {
  employee_id: string;
  gross: number | string | null;
  leave: number | string | null;
  payg: number | string | null;
  super: number | string | null;
  /** The part the previous software reported before a conversion in the year (included in the sums above). */
  carried?: CarriedYtd;
}

interface PayeeRow {
  id: string;
  name: string;
  employment_basis: string;
  tfn: string | null;
  residency: 'resident' | 'foreign' | null;
  claims_tax_free_threshold: number | string | null;
  tax_declared_on: string | null;
}

/** Each employee's sums over their signed runs paid in `fy` (an employee with none has no row). */
export async function ytdOf(q: Queryable, orgId: string, employeeIds: readonly string[], fy: FinancialYear): Promise<Map<string, YtdRow>> {
  if (employeeIds.length === 0) return new Map();
  const rows = await q.all<YtdRow>(
    `SELECT l.employee_id, SUM(l.gross_cents) AS gross, SUM(l.leave_cents) AS leave, SUM(l.payg_cents) AS payg, SUM(l.super_cents) AS super
     FROM pay_run_lines l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ?
       AND l.employee_id IN (${placeholders(employeeIds.length)})
     GROUP BY l.employee_id`,
    [orgId, fy.start, fy.end, ...employeeIds],
  );
  const out = new Map(rows.map((r) => [r.employee_id, r]));
  // A conversion in the year: the previous software's figures are part of the year to date.
  for (const [id, c] of await carriedYtdOf(q, orgId, employeeIds, fy)) {
    const r = out.get(id);
    out.set(id, {
      ...r,
      employee_id: id,
      gross: Number(r?.gross ?? 0) + c.grossCents,
      leave: Number(r?.leave ?? 0) + c.paidLeaveCents,
      payg: Number(r?.payg ?? 0) + c.paygWithheldCents,
      super: Number(r?.super ?? 0) + c.superLiabilityCents,
      carried: c,
    });
  }
  return out;
}

/** The payee's `carriedIn` block: what of the year to date the previous software reported, and its STP ids. */
function carriedInBlock(c: CarriedYtd) {
  return {
    reportedBy: 'previous_software' as const,
    asAt: c.conversionDate,
    previousBmsId: c.previousBmsId,
    previousPayrollId: c.previousPayrollId,
    ytd: {
      salaryWagesCents: c.grossCents - c.paidLeaveCents,
      paidLeaveCents: c.paidLeaveCents,
      allowancesCents: 0,
      grossCents: c.grossCents,
      paygWithheldCents: c.paygWithheldCents,
      superLiabilityCents: c.superLiabilityCents,
    },
  };
}

/** Each employee's earnings lines over their signed runs paid in `fy`, summed by type and allowance code. */
export async function ytdItemsOf(
  q: Queryable,
  orgId: string,
  employeeIds: readonly string[],
  fy: FinancialYear,
): Promise<Map<string, { type: EarningType; category: AllowanceCategory | null; amountCents: number }[]>> {
  if (employeeIds.length === 0) return new Map();
  const rows = await q.all<{ employee_id: string; item_type: EarningType; category: AllowanceCategory | null; s: number | string }>(
    `SELECT i.employee_id, i.item_type, i.category, SUM(i.amount_cents) AS s
     FROM pay_run_items i JOIN pay_runs r ON r.org_id = i.org_id AND r.id = i.pay_run_id
     WHERE i.org_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ?
       AND i.employee_id IN (${placeholders(employeeIds.length)})
     GROUP BY i.employee_id, i.item_type, i.category`,
    [orgId, fy.start, fy.end, ...employeeIds],
  );
  const out = new Map<string, { type: EarningType; category: AllowanceCategory | null; amountCents: number }[]>();
  for (const r of rows) {
    out.set(r.employee_id, [...(out.get(r.employee_id) ?? []), { type: r.item_type, category: r.category, amountCents: Number(r.s) }]);
  }
  return out;
}

/**
 * The Phase 2 year-to-date split of a payee's gross: salary and wages (ordinary pay less paid leave,
 * with penalties and back pay of this year), paid leave, overtime, bonuses and commissions, and
 * allowances by ATO code; salary sacrifice (type S) is reported apart and is part of gross, which
 * is reported before it. Disaggregations with nothing in the year are left out, as Phase 2 leaves
 * an amount not paid unreported (allowancesCents, the total, is always there).
 */
export function ytdSplit(
  gross: number,
  leave: number,
  items: readonly { type: EarningType; category: AllowanceCategory | null; amountCents: number }[],
) {
  const t = itemTotals(items);
  const allowances = payroll.ALLOWANCE_CATEGORIES.map((type) => ({
    type,
    amountCents: items.filter((i) => i.type === 'allowance' && i.category === type).reduce((a, i) => a + i.amountCents, 0),
  })).filter((a) => a.amountCents !== 0);
  return {
    salaryWagesCents: gross - leave - t.overtime - t.bonus - t.allowance,
    paidLeaveCents: leave,
    allowancesCents: t.allowance,
    ...(t.overtime !== 0 ? { overtimeCents: t.overtime } : {}),
    ...(t.bonus !== 0 ? { bonusesCommissionsCents: t.bonus } : {}),
    ...(allowances.length > 0 ? { allowances } : {}),
    ...(t.salary_sacrifice !== 0 ? { salarySacrifice: [{ type: 'S' as const, amountCents: t.salary_sacrifice }] } : {}),
  };
}

/** Who a payee is reported as: their employment basis and the date their tax treatment is read at. */
export interface PayeeSource {
  readonly employeeId: string;
  readonly employmentBasis: string;
  readonly onDate: string;
}

/**
 * Each employee's year to date for `fy` as a document reports it: the split by earnings type (with
 * allowances by STP code, salary sacrifice, unused leave paid on termination), the totals, the
 * carried-in block of a conversion and the cessation. A finalisation keeps it, so a change in the
 * split alone shows as an amendment needed, as a change in the totals does (stp-finalise.ts).
 */
export async function ytdReportedOf(q: Queryable, orgId: string, ids: readonly string[], fy: FinancialYear) {
  const ytd = await ytdOf(q, orgId, ids, fy);
  const ytdItems = await ytdItemsOf(q, orgId, ids, fy);
  // A final pay in the year: the unused leave it paid and the cessation (termination.ts).
  const ended = await terminationYtdOf(q, orgId, ids, fy);
  return new Map(
    ids.map((id) => {
      const y = ytd.get(id);
      const gross = Number(y?.gross ?? 0);
      const leave = Number(y?.leave ?? 0);
      const reported = {
        ytd: {
          ...withTerminationPay(ytdSplit(gross, leave, ytdItems.get(id) ?? []), ended.get(id)),
          grossCents: gross,
          paygWithheldCents: Number(y?.payg ?? 0),
          superLiabilityCents: Number(y?.super ?? 0),
        },
        ...(y?.carried ? { carriedIn: carriedInBlock(y.carried) } : {}),
        ...cessationBlock(ended.get(id)),
      };
      return [id, reported] as const;
    }),
  );
}

/** The payees of a document, in `sources` order, each with the YTD for `fy` (TFN in full: the ATO needs it). */
export async function stpPayees(uow: Uow, sources: readonly PayeeSource[], fy: FinancialYear) {
  const ids = sources.map((l) => l.employeeId);
  const reported = await ytdReportedOf(uow.tx, uow.orgId, ids, fy);
  const people = await uow.tx.all<PayeeRow>(
    `SELECT id, name, employment_basis, tfn, residency, claims_tax_free_threshold, tax_declared_on FROM employees
     WHERE org_id = ? AND id IN (${placeholders(ids.length)})`,
    [uow.orgId, ...ids],
  );
  const byId = new Map(people.map((p) => [p.id, p]));
  return sources.map((l) => {
    const e = byId.get(l.employeeId);
    invariant(e && e.tfn !== null && e.residency !== null && e.tax_declared_on !== null, `employee ${l.employeeId} has a tax declaration`);
    const declaration = {
      tfn: e.tfn,
      residency: e.residency,
      claimsTaxFreeThreshold: Number(e.claims_tax_free_threshold) === 1,
      declaredOn: e.tax_declared_on,
    };
    const r = reported.get(l.employeeId);
    invariant(r !== undefined, `employee ${l.employeeId} has a year to date`);
    return {
      employeeId: e.id,
      tfn: e.tfn,
      name: e.name,
      employmentBasis: l.employmentBasis,
      taxTreatmentCode: stpTaxTreatmentCode(declaration, l.onDate),
      ...r,
    };
  });
}

/** The payer block of every STP document; the ABN is the organisation profile's (migration 26). */
export async function stpPayer(uow: Uow) {
  const org = await uow.tx.get<{ name: string; abn: string | null }>('SELECT name, abn FROM organisations WHERE id = ?', [uow.orgId]);
  invariant(org !== undefined, `organisation ${uow.orgId} exists`);
  return { name: org.name, abn: org.abn, bmsId: `${BMS_PREFIX}${uow.orgId}` };
}

/** The `stp_pay_event` body (docs/books.md "The STP pay event"). */
async function payEventBody(uow: Uow, run: PayRunRow, kind: StpPayKind, reason: string | null) {
  const lines = await loadLines(uow.tx, uow.orgId, run.id);
  const fy = financialYear(run.payment_date);
  const sources = lines.map((l) => ({ employeeId: l.employee_id, employmentBasis: l.employment_basis, onDate: run.payment_date }));
  return {
    submissionKind: kind,
    reason,
    payer: await stpPayer(uow),
    payRun: { id: run.id, status: run.status, periodStart: run.period_start, periodEnd: run.period_end, paymentDate: run.payment_date },
    financialYear: fy,
    payees: await stpPayees(uow, sources, fy),
    // Masked with the TFNs: without it the masked copy is the whole document but a few digits,
    // and its SHA-256 (which books.file and the books.stp.lodged event give) would give them away.
    nonce: stpNonce(),
  };
}

/** 128 random bits in each pay event: the document's SHA-256 cannot be searched for its TFNs. */
const NONCE_BYTES = 16;

/** A document's nonce: masked with the TFNs (maskedPayEvent). */
export const stpNonce = (): string => secret(NONCE_BYTES);

/** A TFN-shaped run of digits (9, a space or hyphen allowed between them) in a document that is not JSON. */
const TFN_SHAPED = /(?<!\d)\d(?:[ -]?\d){8}(?!\d)/g;

/**
 * A pay event as everyone but the lodgement sink and a person with payroll decision rights is
 * given it (books.file, and so the MCP tool; the console for other deciders): every
 * `tfn` masked as books.employees shows it (`maskedTfn`: `******210`, a not-quoted code as it
 * is), the nonce as asterisks, and any other place a payee's TFN appears masked too; the rest
 * byte for byte as the document was written (the same pretty-printed JSON). A text that does
 * not parse (no document is written so) has every TFN-shaped run of digits masked.
 */
export function maskedPayEvent(content: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(content) as unknown;
  } catch {
    return content.replace(TFN_SHAPED, (m) => maskedTfn(m.replace(/\D/g, '')));
  }
  const tfns = new Set<string>();
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null) return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => {
        if (k === 'tfn' && typeof x === 'string') {
          tfns.add(x);
          return [k, maskedTfn(x)];
        }
        if (k === 'nonce' && typeof x === 'string') return [k, '*'.repeat(x.length)];
        return [k, walk(x)];
      }),
    );
  };
  let text = `${JSON.stringify(walk(doc), null, 2)}\n`;
  for (const tfn of tfns) if (tfnQuoted(tfn)) text = text.replaceAll(tfn, maskedTfn(tfn));
  return text;
}

/** One STP document queued through the lodgement adapter and recorded as a submission (the caller's event's ledger id). */
export async function queueStpDocument(
  uow: Uow,
  s: {
    readonly id: string;
    readonly kind: StpKind;
    readonly payRunId: string | null;
    readonly financialYear: FinancialYear;
    readonly employeeCount: number;
    readonly reason: string | null;
    readonly ledgerId: string;
    readonly body: Readonly<Record<string, unknown>>;
  },
): Promise<void> {
  const content = lodgementDocument('stp_pay_event', s.id, uow.orgId, uow.now, s.body);
  const queued = await enqueueLodgement(uow.tx, uow.orgId, uow.now, { kind: 'stp_pay_event', subjectId: s.id, content });
  await uow.tx.run(
    `INSERT INTO stp_submissions (org_id, id, pay_run_id, financial_year, employee_count, kind, status, reason, outbox_id, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?)`,
    [
      uow.orgId,
      s.id,
      s.payRunId,
      financialYearLabel(s.financialYear),
      s.employeeCount,
      s.kind,
      s.reason,
      queued.outboxId,
      uow.now,
      s.ledgerId,
    ],
  );
}

/** Queue a pay event for `runId` (read after the caller's state change) under the caller's event; returns the submission id. */
export async function queueStpPayEvent(
  uow: Uow,
  runId: string,
  kind: StpPayKind,
  ledgerId: string,
  reason: string | null = null,
  id: string = newId('stp'),
): Promise<string> {
  const run = await loadRun(uow.tx, uow.orgId, runId);
  const body = await payEventBody(uow, run, kind, reason);
  await queueStpDocument(uow, {
    id,
    kind,
    payRunId: run.id,
    financialYear: body.financialYear,
    employeeCount: body.payees.length,
    reason,
    ledgerId,
    body,
  });
  return id;
}

type ResubmitParams = z.infer<typeof payroll.stpResubmit.params>;

/**
 * books.stpResubmit: a new act every call (each appends its event) — the run's pay event again,
 * with the YTD as it stands now, as a new submission. `queued`; lodged only when the adapter
 * confirms. A draft has no pay event (CONFLICT); a recalled run resubmits its correction (YTD
 * without it).
 */
export async function stpResubmit(p: ResubmitParams, uow: Uow): Promise<ResultOf<typeof payroll.stpResubmit>> {
  const run = await loadRun(uow.tx, uow.orgId, p.payRunId, uow.caps.forUpdate);
  if (run.status === 'draft') throw conflict(`pay run ${run.id} is a draft: it has no pay event until it is signed`);
  const submissionId = newId('stp');
  const event = await uow.emit(events.stpResubmit, {
    entityId: run.id,
    payload: { payRunId: run.id, submissionId, reason: p.reason },
  });
  await queueStpPayEvent(uow, run.id, 'resubmission', event.ledgerId, p.reason, submissionId);
  const result = { submissionId, payRunId: run.id, kind: 'resubmission', status: 'queued', ledgerId: event.ledgerId } as const;
  return result;
}

/**
 * The lodgement adapter's confirmation of an STP submission (a pay event, or a year's finalisation
 * or amendment, payRunId null): `queued` → `lodged` with the receipt, its own event
 * `books.stp.lodged` by the system (no TFN: ids, file name and hash only). A repeated delivery of
 * a lodged submission is a no-op.
 */
export const confirmStpLodged: LodgementConfirmer = async (uow, file, receipt) => {
  const row = await uow.tx.get<{ id: string; pay_run_id: string | null; kind: StpKind; status: string }>(
    `SELECT id, pay_run_id, kind, status FROM stp_submissions WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, file.subjectId],
  );
  invariant(row !== undefined, `STP submission ${file.subjectId} exists`);
  if (row.status === 'lodged') return { noop: true };
  const event = await uow.emit(events.stpLodged, {
    entityId: row.id,
    payload: { id: row.id, payRunId: row.pay_run_id, kind: row.kind, fileName: receipt.fileName, sha256: receipt.sha256 },
  });
  await uow.tx.run(
    `UPDATE stp_submissions SET status = 'lodged', receipt_file = ?, receipt_sha256 = ?, lodged_at = ?, lodged_ledger_id = ?
     WHERE org_id = ? AND id = ? AND status = 'queued'`,
    [receipt.fileName, receipt.sha256, receipt.lodgedAt, event.ledgerId, uow.orgId, row.id],
  );
  return { id: row.id, status: 'lodged' };
};
