import { canonicalJson, events, payroll, sha256Hex } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, invariant, notFound } from '../../errors.js';
import { STP_FINALISATION_SUBJECT } from '../../governance/approval-facts.js';
import { quoted } from '../../governance/quote.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import { placeholders } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { queueStpDocument, stpNonce, stpPayees, stpPayer, ytdReportedOf, type PayeeSource } from './stp.js';
import { financialYearNamed, type FinancialYear } from './stp-year.js';
import { carriedEmployeesOf } from './conversion.js';

/**
 * books.stpFinalise — STP finalisation of a financial year, the signature act of class
 * books.payroll_sign (a person who signs pay runs signs what makes their income statements tax
 * ready), always held for a human. The human reads the year and every employee's YTD gross, PAYG
 * withheld and super; the subject id carries a digest of exactly those figures, so a proof given
 * for one set of figures cannot execute another (a run signed between the approval and the retry
 * changes the subject: CONFLICT, file a new approval).
 *
 * With the proof, one submission (an `stp_pay_event` document, submissionKind `finalisation`,
 * or `amendment` when any of the employees was finalised for the year before) queued through the
 * lodgement adapter in the act's transaction with its one event `books.stp.finalise`; each
 * employee's figures as reported are kept in stp_final_payees. The same figures as every
 * employee's last finalisation or amendment is a no-op answering that submission.
 */
type Params = Omit<z.infer<typeof payroll.stpFinalise.params>, 'approvalId' | 'signatureToken'>;
type Kind = (typeof payroll.STP_FINAL_KINDS)[number];

/** The figures a finalisation reports and an amendment compares, per employee. */
export interface Figures {
  readonly grossCents: number;
  readonly leaveCents: number;
  readonly paygCents: number;
  readonly superCents: number;
  /**
   * The year to date as the document reported it in full (stp.ts ytdReportedOf), canonical JSON:
   * the split by earnings type can change while every total stays the same. Null for a
   * finalisation recorded before it was kept (migration 46): compared by its totals only.
   */
  readonly reported: string | null;
}

interface Payee {
  readonly employeeId: string;
  readonly name: string;
  readonly source: PayeeSource;
  /** Whether a signed run paid in the year pays them, or a conversion in the year carried their figures in. */
  readonly paid: boolean;
  readonly figures: Figures;
  /** Their newest finalisation or amendment of the year, with the figures it reported. */
  readonly last: { readonly submissionId: string; readonly figures: Figures } | null;
}

interface Subject {
  readonly label: string;
  readonly fy: FinancialYear;
  readonly payees: readonly Payee[];
  readonly kind: Kind;
  /** Draft runs paid in the year that pay any of them (CONFLICT). */
  readonly drafts: readonly { readonly runId: string; readonly employeeId: string }[];
  /** The submission a repeat with the same figures answers, when every employee's are unchanged. */
  readonly same: { readonly id: string; readonly kind: Kind; readonly status: 'queued' | 'lodged'; readonly ledgerId: string } | null;
  readonly subjectId: string;
}

const sameTotals = (a: Figures, b: Figures) =>
  a.grossCents === b.grossCents && a.leaveCents === b.leaveCents && a.paygCents === b.paygCents && a.superCents === b.superCents;

/** Whether what was reported still stands: the same totals and, where both are known, the same split. */
export const sameFigures = (a: Figures, b: Figures) =>
  sameTotals(a, b) && (a.reported === null || b.reported === null || a.reported === b.reported);

export interface FinalRow {
  submission_id: string;
  employee_id: string;
  financial_year: string;
  gross_cents: number | string;
  leave_cents: number | string;
  payg_cents: number | string;
  super_cents: number | string;
  ytd_reported: string | null;
}

export const FINAL_PAYEE_COLUMNS =
  'p.submission_id, p.employee_id, p.financial_year, p.gross_cents, p.leave_cents, p.payg_cents, p.super_cents, p.ytd_reported';

export function figuresOf(r: Pick<FinalRow, 'gross_cents' | 'leave_cents' | 'payg_cents' | 'super_cents' | 'ytd_reported'>): Figures {
  return {
    grossCents: Number(r.gross_cents),
    leaveCents: Number(r.leave_cents),
    paygCents: Number(r.payg_cents),
    superCents: Number(r.super_cents),
    reported: r.ytd_reported,
  };
}

/** Each employee's figures for `fy` as a finalisation would report them now: the totals and the full year to date. */
export async function currentFigures(
  q: Queryable,
  orgId: string,
  ids: readonly string[],
  fy: FinancialYear,
): Promise<Map<string, { figures: Figures; carried: boolean }>> {
  const reported = await ytdReportedOf(q, orgId, ids, fy);
  return new Map(
    ids.map((id) => {
      const r = reported.get(id);
      invariant(r !== undefined, `employee ${id} has a year to date`);
      const figures: Figures = {
        grossCents: r.ytd.grossCents,
        leaveCents: r.ytd.paidLeaveCents,
        paygCents: r.ytd.paygWithheldCents,
        superCents: r.ytd.superLiabilityCents,
        reported: canonicalJson(r),
      };
      return [id, { figures, carried: r.carriedIn !== undefined }] as const;
    }),
  );
}

/**
 * Each employee's newest finalisation or amendment of a year (submission order: created_at, id),
 * keyed `year employeeId`.
 */
export async function lastFinalised(
  q: Queryable,
  orgId: string,
  years: readonly string[],
  employeeIds: readonly string[],
): Promise<Map<string, FinalRow>> {
  if (years.length === 0 || employeeIds.length === 0) return new Map();
  const rows = await q.all<FinalRow>(
    `SELECT ${FINAL_PAYEE_COLUMNS} FROM stp_final_payees p
     JOIN stp_submissions s ON s.org_id = p.org_id AND s.id = p.submission_id
     WHERE p.org_id = ? AND p.financial_year IN (${placeholders(years.length)}) AND p.employee_id IN (${placeholders(employeeIds.length)})
     ORDER BY s.created_at, s.id`,
    [orgId, ...years, ...employeeIds],
  );
  return new Map(rows.map((r) => [`${r.financial_year} ${r.employee_id}`, r]));
}

/** Whom the call finalises: those named (each must exist here), else everyone paid in the year or finalised for it. */
async function employeesOf(p: Params, uow: Uow, label: string, fy: FinancialYear): Promise<string[]> {
  if (p.employeeIds !== undefined) {
    const ids = p.employeeIds;
    const found = await uow.tx.all<{ id: string }>(`SELECT id FROM employees WHERE org_id = ? AND id IN (${placeholders(ids.length)})`, [
      uow.orgId,
      ...ids,
    ]);
    const known = new Set(found.map((r) => r.id));
    const missing = ids.find((id) => !known.has(id));
    if (missing !== undefined) throw notFound('employee', missing);
    return [...ids].sort();
  }
  const rows = await uow.tx.all<{ employee_id: string }>(
    `SELECT l.employee_id FROM pay_run_lines l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ?
     UNION SELECT employee_id FROM stp_final_payees WHERE org_id = ? AND financial_year = ?`,
    [uow.orgId, fy.start, fy.end, uow.orgId, label],
  );
  // Figures carried in by a conversion in the year are pay this year too.
  const carried = await carriedEmployeesOf(uow.tx, uow.orgId, label);
  const ids = [...new Set([...rows.map((r) => r.employee_id), ...carried])].sort();
  if (ids.length === 0)
    throw conflict(`no employee was paid by a signed pay run in the financial year ${label}: there is nothing to finalise`);
  return ids;
}

async function loadSubject(p: Params, uow: Uow): Promise<Subject> {
  const label = p.financialYear;
  const fy = financialYearNamed(label);
  if (fy.start > uow.today) {
    throw badRequest(`financialYear: ${label} has not begun (it starts on ${fy.start}; today is ${uow.today})`);
  }
  const ids = await employeesOf(p, uow, label, fy);
  const q = uow.tx;
  const inIds = placeholders(ids.length);
  const people = await q.all<{ id: string; name: string; employment_basis: string }>(
    `SELECT id, name, employment_basis FROM employees WHERE org_id = ? AND id IN (${inIds})`,
    [uow.orgId, ...ids],
  );
  // Each employee's signed lines in the year, the latest last: its basis and date are what the year ends on.
  const lines = await q.all<{ employee_id: string; employment_basis: string; payment_date: string }>(
    `SELECT l.employee_id, l.employment_basis, r.payment_date FROM pay_run_lines l
     JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND r.status = 'signed' AND r.payment_date >= ? AND r.payment_date <= ? AND l.employee_id IN (${inIds})
     ORDER BY r.payment_date, r.id`,
    [uow.orgId, fy.start, fy.end, ...ids],
  );
  const drafts = await q.all<{ pay_run_id: string; employee_id: string }>(
    `SELECT l.pay_run_id, l.employee_id FROM pay_run_lines l JOIN pay_runs r ON r.org_id = l.org_id AND r.id = l.pay_run_id
     WHERE l.org_id = ? AND r.status = 'draft' AND r.payment_date >= ? AND r.payment_date <= ? AND l.employee_id IN (${inIds})
     ORDER BY l.pay_run_id, l.employee_id`,
    [uow.orgId, fy.start, fy.end, ...ids],
  );
  const now = await currentFigures(q, uow.orgId, ids, fy);
  const last = await lastFinalised(q, uow.orgId, [label], ids);
  const names = new Map(people.map((e) => [e.id, e]));
  const latest = new Map(lines.map((l) => [l.employee_id, l]));
  const payees: Payee[] = ids.map((id) => {
    const e = names.get(id);
    invariant(e !== undefined, `employee ${id} exists`);
    const line = latest.get(id);
    const y = now.get(id);
    invariant(y !== undefined, `employee ${id} has figures`);
    const f = last.get(`${label} ${id}`);
    return {
      employeeId: id,
      name: e.name,
      // An employee whose every run in the year was recalled is reported as they stand now, at the year's end.
      source: { employeeId: id, employmentBasis: line?.employment_basis ?? e.employment_basis, onDate: line?.payment_date ?? fy.end },
      paid: line !== undefined || y.carried,
      figures: y.figures,
      last: f ? { submissionId: f.submission_id, figures: figuresOf(f) } : null,
    };
  });
  const kind: Kind = payees.some((x) => x.last !== null) ? 'amendment' : 'finalisation';
  const unchanged = payees.every((x) => x.last !== null && sameFigures(x.last.figures, x.figures));
  let same: Subject['same'] = null;
  if (unchanged) {
    const newest = await q.get<{ id: string; kind: Kind; status: 'queued' | 'lodged'; ledger_id: string }>(
      `SELECT id, kind, status, ledger_id FROM stp_submissions WHERE org_id = ? AND id IN (${placeholders(payees.length)})
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [uow.orgId, ...payees.map((x) => x.last?.submissionId ?? '')],
    );
    invariant(newest !== undefined, 'a finalised employee has a submission');
    same = { id: newest.id, kind: newest.kind, status: newest.status, ledgerId: newest.ledger_id };
  }
  // The figures the human reads, bound into the subject: a proof covers exactly these.
  const digest = sha256Hex(canonicalJson({ kind, payees: payees.map((x) => [x.employeeId, x.figures]) })).slice(0, 16);
  return {
    label,
    fy,
    payees,
    kind,
    drafts: drafts.map((d) => ({ runId: d.pay_run_id, employeeId: d.employee_id })),
    same,
    subjectId: `${STP_FINALISATION_SUBJECT}${label}_${digest}`,
  };
}

function longDate(date: string): string {
  const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  return `${Number(date.slice(8, 10))} ${months[Number(date.slice(5, 7)) - 1] ?? ''} ${date.slice(0, 4)}`;
}

/** What the human reads (the server's words): the year, every employee's YTD, what finalising does; agent text quoted. */
function finaliseSummary(p: Params, s: Subject): string {
  const listed = s.payees.map((x, i) => {
    const f = x.figures;
    const was = !x.last
      ? ''
      : !sameTotals(x.last.figures, f)
        ? ` (last reported: gross ${formatCents(x.last.figures.grossCents)}, PAYG ${formatCents(x.last.figures.paygCents)}, super ${formatCents(x.last.figures.superCents)})`
        : !sameFigures(x.last.figures, f)
          ? ' (the same totals as last reported, split differently by type of earnings)'
          : ' (unchanged since last reported)';
    return (
      `${i + 1}. ${quoted(x.name)} YTD gross ${formatCents(f.grossCents)}, PAYG withheld ${formatCents(f.paygCents)}, ` +
      `super ${formatCents(f.superCents)}${was}`
    );
  });
  const n = s.payees.length;
  const who = `${n} employee${n === 1 ? '' : 's'}`;
  const year = `the financial year ${s.label} (${longDate(s.fy.start)} to ${longDate(s.fy.end)})`;
  const head =
    s.kind === 'amendment'
      ? `Amend the Single Touch Payroll finalisation of ${year} for ${who}, because ${quoted(p.reason ?? '')}`
      : `Finalise Single Touch Payroll for ${year} for ${who}`;
  return (
    `${head}: ${listed.join('; ')}. This marks their income statements for ${s.label} tax ready: the ATO shows each employee ` +
    'these year-to-date figures as final for their tax return.'
  );
}

function resultOf(s: Subject, submission: { id: string; kind: Kind; status: 'queued' | 'lodged'; ledgerId: string }) {
  return {
    submissionId: submission.id,
    kind: submission.kind,
    status: submission.status,
    financialYear: s.label,
    employees: s.payees.map((x) => ({
      employeeId: x.employeeId,
      name: x.name,
      grossCents: x.figures.grossCents,
      paygWithheldCents: x.figures.paygCents,
      superLiabilityCents: x.figures.superCents,
    })),
    ledgerId: submission.ledgerId,
  };
}

async function executeFinalise(p: Params, s: Subject, uow: Uow): Promise<ResultOf<typeof payroll.stpFinalise>> {
  const id = newId('stp');
  const reason = p.reason ?? null;
  const employeeIds = s.payees.map((x) => x.employeeId);
  const event = await uow.emit(events.stpFinalise, {
    entityId: id,
    payload: { submissionId: id, kind: s.kind, financialYear: s.label, employeeIds, reason },
  });
  const payees = await stpPayees(
    uow,
    s.payees.map((x) => x.source),
    s.fy,
  );
  const body = {
    submissionKind: s.kind,
    reason,
    payer: await stpPayer(uow),
    payRun: null,
    financialYear: s.fy,
    payees: payees.map((x) => ({ ...x, finalEvent: true })),
    nonce: stpNonce(),
  };
  await queueStpDocument(uow, {
    id,
    kind: s.kind,
    payRunId: null,
    financialYear: s.fy,
    employeeCount: s.payees.length,
    reason,
    ledgerId: event.ledgerId,
    body,
  });
  for (const x of s.payees) {
    await uow.tx.run(
      `INSERT INTO stp_final_payees (org_id, submission_id, employee_id, financial_year, gross_cents, leave_cents, payg_cents, super_cents,
         ytd_reported, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        uow.orgId,
        id,
        x.employeeId,
        s.label,
        x.figures.grossCents,
        x.figures.leaveCents,
        x.figures.paygCents,
        x.figures.superCents,
        x.figures.reported,
        uow.now,
      ],
    );
  }
  return resultOf(s, { id, kind: s.kind, status: 'queued', ledgerId: event.ledgerId });
}

export const stpFinaliseAct: SignatureAct<Params, Subject, typeof payroll.stpFinalise> = {
  spec: payroll.stpFinalise,
  load: loadSubject,
  subjectId: (s) => s.subjectId,
  // Making a year's income statements tax ready always needs a human's signature.
  needsProof: () => true,
  summary: finaliseSummary,
  state(p, s) {
    if (s.same) return { ...resultOf(s, s.same), noop: true };
    if (s.kind === 'amendment' && p.reason === undefined) {
      const done = s.payees.filter((x) => x.last !== null).map((x) => x.employeeId);
      throw badRequest(
        `reason: is required to amend: ${done.join(', ')} ${done.length === 1 ? 'is' : 'are'} already finalised for ${s.label}, so this is an amendment`,
      );
    }
    const unpaid = s.payees.filter((x) => !x.paid && x.last === null).map((x) => x.employeeId);
    if (unpaid.length > 0) {
      throw conflict(`no signed pay run in the financial year ${s.label} pays ${unpaid.join(', ')}: there is nothing to finalise for them`);
    }
    if (s.drafts.length > 0) {
      const runs = [...new Set(s.drafts.map((x) => x.runId))].map(
        (run) =>
          `${run} (paying ${s.drafts
            .filter((x) => x.runId === run)
            .map((x) => x.employeeId)
            .join(', ')})`,
      );
      throw conflict(`a draft pay run paid in ${s.label} pays employees being finalised: ${runs.join('; ')}; sign or recall it first`);
    }
    return null;
  },
  execute: executeFinalise,
};

export const stpFinalise = signatureHandler<z.infer<typeof payroll.stpFinalise.params>, Subject, typeof payroll.stpFinalise>(
  stpFinaliseAct,
);
