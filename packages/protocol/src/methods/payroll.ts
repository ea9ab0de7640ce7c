import { z } from 'zod';
import { ACTION_CLASS } from '../signature.js';
import { abaText } from './aba-fields.js';
import { holdFrame, id, isCalendarDate, isoDate, method, pageLimit, reason, withProof } from './index-fields.js';
import { funding } from './payables.js';
import { PAY_FREQUENCIES } from './people.js';
import type { MethodSpec } from './types.js';

/**
 * Pay runs (docs/books.md, payroll): payrollDraft computes each employee's gross, PAYG (Schedule 1 for
 * the payment date), super guarantee and net; payrollSign is the signature act
 * `books.payroll_sign` that posts the run and writes the net pay ABA file when a funding account is
 * given; payrollRecall discards a draft or reverses a signed run before its payment date.
 * Single Touch Payroll: signing queues the run's pay event through the lodgement adapter, recalling a
 * signed run a correcting one, and stpResubmit sends it again (docs/books.md "Single Touch Payroll");
 * stpFinalise (the same signature class) finalises or amends a financial year, and stpSubmissions
 * lists every submission.
 */

export const PAY_RUN_STATUSES = ['draft', 'signed', 'recalled'] as const;

/** Hours in a pay period: whole hours, at most a month of every hour (31 × 24). */
export const PAY_HOURS_MAX = 744;
/** Employees in one run (a small business; the ABA file and the human's summary list each one). */
export const PAY_RUN_EMPLOYEES_MAX = 200;

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (iss) => (iss.input === undefined ? 'is required' : `must be one of ${values.join(', ')}`) });

const hoursEntry = z.strictObject({
  employeeId: id().describe('Employee id'),
  hours: z
    .number({ error: `must be an integer from 0 to ${PAY_HOURS_MAX}` })
    .int({ error: `must be an integer from 0 to ${PAY_HOURS_MAX}` })
    .min(0, { error: `must be an integer from 0 to ${PAY_HOURS_MAX}` })
    .max(PAY_HOURS_MAX, { error: `must be an integer from 0 to ${PAY_HOURS_MAX}` })
    .describe('Whole hours, 0-744'),
});

const payRunLine = z.object({
  employeeId: z.string(),
  name: z.string(),
  grossCents: z.number().int(),
  paygCents: z.number().int(),
  superCents: z.number().int(),
  netCents: z.number().int(),
  /** Hours paid (hours given plus leave) for hourly staff with hours given; null where ordinary hours were paid. */
  hours: z.number().int().nullable(),
  /** Approved leave paid in this run, in hours, and its share of gross (STP "paid leave"). */
  leaveHours: z.number().int(),
  leaveCents: z.number().int(),
  /** The approved leave requests this run pays (taken from the balance when signed). */
  leaveIds: z.array(z.string()),
  /** Schedule 1 scale used, and whether its coefficients (and the super MCB) are confirmed. */
  taxScale: z.number().int(),
  confirmed: z.boolean(),
});

const totals = z.object({
  grossCents: z.number().int(),
  paygCents: z.number().int(),
  superCents: z.number().int(),
  netCents: z.number().int(),
});

export const payRun = z.object({
  id: z.string(),
  status: z.enum(PAY_RUN_STATUSES),
  periodStart: z.string(),
  periodEnd: z.string(),
  paymentDate: z.string(),
  payFrequency: z.enum(PAY_FREQUENCIES),
  lines: z.array(payRunLine),
  totals,
  /** The paying account, masked (`062-000 *****678`), when a funding account was given. */
  fundingAccount: z.string().nullable(),
  /** The bank account record (fundingAccountId) the net pay file is paid from; null for inline funding or none. */
  fundingAccountId: z.string().nullable(),
  journalId: z.string().nullable(),
  /** The net pay ABA file (`<id>.aba`), written when signed with a funding account. */
  fileName: z.string().nullable(),
  /** Set when recalled: the reversing journal of a signed run (null for a discarded draft). */
  reversalJournalId: z.string().nullable(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const payrollDraft = method({
  name: 'books.payrollDraft',
  scope: 'books.write',
  kind: 'write',
  extendedParams: ['fundingAccountId'],
  summary:
    "Draft a pay run: periodStart to periodEnd (inclusive), paymentDate, payFrequency (weekly, fortnightly, monthly); optional employeeIds (default every active employee on that frequency), optional hours [{employeeId, hours}] for hourly staff (whole hours worked; default their ordinary hours), optional funding or fundingAccountId (at most one: the account the net pay ABA file is paid from, as billScheduleRun; paymentDate then today or later; a record's direct-entry details are copied into the draft, and signing is CONFLICT if they change before it). Each line: gross, PAYG by ATO Schedule 1 for the payment date, super guarantee at the rate in force, net = gross − PAYG; approved leave starting by periodEnd and not yet paid is paid in the run (leaveHours, leaveCents). Every employee must be active, started by periodEnd and on payFrequency. Status `draft`; nothing is posted. The same period, frequency and employees again while that draft is open, with the same details, is a no-op returning it; a draft or signed run already covering an employee for an overlapping period is CONFLICT naming it.",
  brief: 'Draft a pay run for one frequency; posts nothing until books.payrollSign, which writes an ABA file if funded.',
  params: z
    .strictObject({
      periodStart: isoDate().describe('First day'),
      periodEnd: isoDate().describe('Last day'),
      paymentDate: isoDate().describe('Pay day; sets tax tables'),
      payFrequency: oneOf(PAY_FREQUENCIES).describe('Who is in the run'),
      employeeIds: z
        .array(id())
        .min(1, { error: 'must have at least 1 employee' })
        .max(PAY_RUN_EMPLOYEES_MAX, { error: `must have at most ${PAY_RUN_EMPLOYEES_MAX} employees` })
        .optional()
        .describe('Default all active'),
      hours: z
        .array(hoursEntry)
        .max(PAY_RUN_EMPLOYEES_MAX, { error: `must have at most ${PAY_RUN_EMPLOYEES_MAX} entries` })
        .optional()
        .describe('Default ordinary hours'),
      funding: funding.optional().describe('Pay-from account; ABA'),
      fundingAccountId: id().describe('Bank account id; or funding').optional(),
      /** The ABA header's description of entries (default PAYROLL). */
      entriesDescription: abaText(12).optional().describe('Max 12; default PAYROLL'),
    })
    .superRefine((p, ctx) => {
      if (isCalendarDate(p.periodStart) && isCalendarDate(p.periodEnd) && p.periodEnd < p.periodStart) {
        ctx.addIssue({ code: 'custom', path: ['periodEnd'], message: 'must not be before periodStart' });
      }
      const dup = (xs: readonly string[]) => xs.find((x, i) => xs.indexOf(x) !== i);
      const e = dup(p.employeeIds ?? []);
      if (e !== undefined) ctx.addIssue({ code: 'custom', path: ['employeeIds'], message: `names ${e} twice` });
      const h = dup((p.hours ?? []).map((x) => x.employeeId));
      if (h !== undefined) ctx.addIssue({ code: 'custom', path: ['hours'], message: `names ${h} twice` });
      if (p.funding !== undefined && p.fundingAccountId !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['fundingAccountId'], message: 'give at most one of fundingAccountId and funding' });
      }
      if (p.entriesDescription !== undefined && p.funding === undefined && p.fundingAccountId === undefined) {
        ctx.addIssue({ code: 'custom', path: ['entriesDescription'], message: 'is only used with funding or fundingAccountId' });
      }
    }),
  result: payRun,
});

export const payrollSign = method({
  name: 'books.payrollSign',
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.payrollSign,
  summary:
    "Sign a draft pay run: the signature act books.payroll_sign, always held for a human whose summary lists each employee's name, gross, tax withheld, super and net pay, the totals, the payment date and the paying account with every field the bank file carries (BSB, account number, account title, bank code, APCA user id, user name, remitter name, self-balancing no). With the proof it posts one journal dated paymentDate — Dr 6100 gross, Dr 6200 super / Cr 2200 PAYG, Cr 2300 super, Cr 2400 net wages (Cr the funding account's chart account instead when one is given — 1000 for inline funding: the net pay ABA file <id>.aba is written after commit) — accrues annual and personal leave for full- and part-time staff, takes the approved leave it pays from the balances, and the run is `signed`. Signing a signed run is a no-op; a recalled run is CONFLICT.",
  brief: 'Sign a drafted pay run: posts wages on paymentDate, updates leave, queues STP, writes the ABA file if funded.',
  params: withProof({ id: id().describe('Pay run id') }),
  result: z.union([payRun, holdFrame]),
});

export const payrollRecall = method({
  name: 'books.payrollRecall',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Recall a pay run with a reason: a draft is discarded (nothing was posted); a signed run before its paymentDate (the organisation's today) is reversed — a journal dated today reversing its posting, its leave accrual and leave taken undone (the leave requests can be paid again) — unless it wrote a net pay ABA file (CONFLICT: the bank file exists). On or after the paymentDate it is CONFLICT (the money has gone; correct it in a later run). Status `recalled`; recalling a recalled run is a no-op.",
  brief: 'Recall a pay run: discard a draft, or reverse a signed one before paymentDate and without an ABA file.',
  params: z.strictObject({ id: id().describe('Pay run id'), reason: reason().describe('Why recalled') }),
  result: payRun,
});

export const stpResubmit = method({
  name: 'books.stpResubmit',
  scope: 'books.write',
  kind: 'new-act',
  summary:
    "Send a pay run's Single Touch Payroll pay event to the ATO again, with a reason: a new submission (submissionId `stp_…`) carrying each of the run's employees' year-to-date figures as they stand now (a recalled run's correction: YTD without it), queued through the lodgement adapter; status `queued`, `lodged` only once the adapter confirms delivery. Each call is a new act. A draft has no pay event: CONFLICT.",
  brief: "Send a pay run's STP pay event to the ATO again, with current year-to-date figures.",
  params: z.strictObject({
    payRunId: id().describe('Pay run id'),
    reason: reason().describe('Why resent'),
  }),
  result: z.object({
    submissionId: z.string(),
    payRunId: z.string(),
    kind: z.literal('resubmission'),
    status: z.literal('queued'),
    ledgerId: z.string(),
  }),
});

/** Every kind of STP submission: a run's pay event, its correction and resubmissions; a year's finalisation and amendments. */
export const STP_SUBMISSION_KINDS = ['pay', 'correction', 'resubmission', 'finalisation', 'amendment'] as const;
export const STP_FINAL_KINDS = ['finalisation', 'amendment'] as const;
export const STP_SUBMISSION_STATUSES = ['queued', 'lodged'] as const;

const FINANCIAL_YEAR = /^(\d{4})-(\d{2})$/;

/** A financial year (1 July to 30 June) as the ATO writes it: `2025-26` is 1 July 2025 to 30 June 2026. */
export const financialYear = () =>
  z
    .string()
    .regex(FINANCIAL_YEAR, { error: 'must be a financial year like 2025-26 (1 July 2025 to 30 June 2026)' })
    .refine(
      (s) => {
        const m = FINANCIAL_YEAR.exec(s);
        return m === null || (Number(m[1]) + 1) % 100 === Number(m[2]);
      },
      { error: 'must name two consecutive years, like 2025-26' },
    );

const finalisedPayee = z.object({
  employeeId: z.string(),
  name: z.string(),
  /** Year-to-date over the employee's signed runs paid in the year. */
  grossCents: z.number().int(),
  paygWithheldCents: z.number().int(),
  superLiabilityCents: z.number().int(),
});

const stpFinalisation = z.object({
  submissionId: z.string(),
  kind: z.enum(STP_FINAL_KINDS),
  status: z.enum(STP_SUBMISSION_STATUSES),
  financialYear: z.string(),
  employees: z.array(finalisedPayee),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const stpFinalise = method({
  name: 'books.stpFinalise',
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.payrollSign,
  summary:
    "Finalise Single Touch Payroll for a financial year (financialYear `2025-26`: 1 July 2025 to 30 June 2026), which marks the employees' income statements tax ready: a signature act of class books.payroll_sign, always held for a human whose summary names the year and each employee with year-to-date gross, PAYG withheld and super. employeeIds defaults to every employee paid by a signed run in the year (and any finalised for it before). With the proof it queues an STP update event through the lodgement adapter (lodgement kind stp_pay_event, submissionKind `finalisation`: each payee's YTD over their signed runs paid in the year, finalEvent true); status `queued`, `lodged` once the adapter confirms. Finalising an employee already finalised for the year is an `amendment` with the current figures and needs a reason (BAD_REQUEST naming reason); the same figures as every employee's last finalisation or amendment is a no-op answering that submission. Any time during or after the year; a year not yet begun is BAD_REQUEST. CONFLICT: an employee with no signed run in the year (never finalised), or a draft run paid in the year for any of them (sign or recall it first). A run signed or recalled later leaves the year finalised: books.stpSubmissions lists those employees in amendmentNeeded.",
  brief: "Finalise or amend a financial year's STP: income statements become tax ready.",
  params: withProof({
    financialYear: financialYear().describe('Like 2025-26'),
    employeeIds: z
      .array(id())
      .min(1, { error: 'must have at least 1 employee' })
      .max(PAY_RUN_EMPLOYEES_MAX, { error: `must have at most ${PAY_RUN_EMPLOYEES_MAX} employees` })
      .optional()
      .describe('Default all paid'),
    reason: reason().optional().describe('Required to amend'),
  }).superRefine((p, ctx) => {
    const ids = p.employeeIds ?? [];
    const twice = ids.find((x, i) => ids.indexOf(x) !== i);
    if (twice !== undefined) ctx.addIssue({ code: 'custom', path: ['employeeIds'], message: `names ${twice} twice` });
  }),
  result: z.union([stpFinalisation, holdFrame]),
});

const stpSubmission = z.object({
  id: z.string(),
  kind: z.enum(STP_SUBMISSION_KINDS),
  status: z.enum(STP_SUBMISSION_STATUSES),
  /** The run a pay event is about; null for a finalisation or amendment. */
  payRunId: z.string().nullable(),
  financialYear: z.string(),
  employeeCount: z.number().int(),
  /** The recall's, resubmission's or amendment's reason. */
  reason: z.string().nullable(),
  /**
   * On an employee's newest finalisation or amendment for the year: the employees whose YTD has
   * changed since (a run signed or recalled later), to be amended. Empty otherwise.
   */
  amendmentNeeded: z.array(z.string()),
  createdAt: z.string(),
  lodgedAt: z.string().nullable(),
  /** Once lodged: the file delivered and its SHA-256. */
  receipt: z.object({ fileName: z.string(), sha256: z.string() }).nullable(),
});

export const stpSubmissions = method({
  name: 'books.stpSubmissions',
  scope: 'books.read',
  kind: 'read',
  summary:
    'List Single Touch Payroll submissions, newest first: pay events, corrections and resubmissions of pay runs (payRunId), and finalisations and amendments of a financial year (payRunId null), each with kind, status (`queued`, `lodged` once the lodgement adapter confirms), financialYear, employeeCount, reason, createdAt, lodgedAt and the receipt (file name, SHA-256). amendmentNeeded names the employees whose YTD changed after their newest finalisation or amendment. Filter by kind and financialYear; page with cursor and limit (1–200, default 50). No TFN.',
  brief: 'STP submissions, newest first: kind, status, receipt, amendments needed.',
  params: z.strictObject({
    kind: oneOf(STP_SUBMISSION_KINDS).optional().describe('Kind'),
    financialYear: financialYear().optional().describe('Like 2025-26'),
    cursor: id().optional().describe('nextCursor'),
    limit: pageLimit().optional().describe('1-200 (50)'),
  }),
  result: z.object({ submissions: z.array(stpSubmission), nextCursor: z.string().nullable() }),
});

/** Declarations of this area (see index.ts). */
export const payrollMethods = [
  payrollDraft,
  payrollSign,
  payrollRecall,
  stpResubmit,
  stpFinalise,
  stpSubmissions,
] as const satisfies readonly MethodSpec[];
