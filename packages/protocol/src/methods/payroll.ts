import { z } from 'zod';
import { ACTION_CLASS } from '../signature.js';
import { abaText } from './aba-fields.js';
import { cents, decimalNumber, holdFrame, id, isCalendarDate, isoDate, method, pageLimit, reason, withProof } from './index-fields.js';
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
 * lists every submission. superPay (the same signature class) pays signed runs' super guarantee to
 * their funds: one journal on 2300 and one contribution file per fund.
 */

export const PAY_RUN_STATUSES = ['draft', 'signed', 'recalled'] as const;

/** Hours in a pay period: at most a month of every hour (31 × 24), to the hundredth (7.6). */
export const PAY_HOURS_MAX = 744;
/** Hours are given to the hundredth of an hour (7.6, 0.25): stored exactly as milli-hours. */
export const HOURS_PLACES = 2;
/** Employees in one run (a small business; the ABA file and the human's summary list each one). */
export const PAY_RUN_EMPLOYEES_MAX = 200;

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (iss) => (iss.input === undefined ? 'is required' : `must be one of ${values.join(', ')}`) });

const payHours = () => decimalNumber({ min: 0, max: PAY_HOURS_MAX, places: HOURS_PLACES });

const hoursEntry = z.strictObject({
  employeeId: id().describe('Employee id'),
  hours: payHours().describe('Hours, 0-744, 2 decimals'),
});

/**
 * Earnings lines of a pay run beyond the ordinary pay (docs/books.md "Pay items"): overtime and
 * penalty are hours × the base hourly rate × a multiplier; allowance, bonus (bonuses and
 * commissions) and back_pay are amounts; salary_sacrifice is an amount of gross paid to super
 * before tax.
 */
export const EARNING_TYPES = ['overtime', 'penalty', 'allowance', 'bonus', 'back_pay', 'salary_sacrifice'] as const;
/**
 * The ATO's Single Touch Payroll Phase 2 allowance types: CD cars, AD award transport payments,
 * LD laundry, MD overtime meals, RD domestic or overseas travel and accommodation, TD tools, KN
 * tasks, QN qualifications and certification, OD other.
 */
export const ALLOWANCE_CATEGORIES = ['CD', 'AD', 'LD', 'MD', 'RD', 'TD', 'KN', 'QN', 'OD'] as const;
/** A multiplier of the base hourly rate: above 0, at most 5, to the thousandth (1.5, 2.5, 0.275). */
export const MULTIPLIER_MAX = 5;
export const MULTIPLIER_PLACES = 3;
/** Earnings lines in one run (a handful per employee). */
export const EARNINGS_MAX = 1000;

const HOURLY_TYPES: readonly string[] = ['overtime', 'penalty'];

const earningEntry = z
  .strictObject({
    employeeId: id().describe('Employee id'),
    type: oneOf(EARNING_TYPES).describe('Earnings type'),
    hours: decimalNumber({ min: 0, max: PAY_HOURS_MAX, places: HOURS_PLACES, above: true }).optional().describe('overtime/penalty hours'),
    multiplier: decimalNumber({ min: 0, max: MULTIPLIER_MAX, places: MULTIPLIER_PLACES, above: true })
      .optional()
      .describe('× base rate, e.g. 1.5'),
    amountCents: cents().optional().describe('Amount, cents'),
    category: oneOf(ALLOWANCE_CATEGORIES).optional().describe('Allowance STP code'),
  })
  .superRefine((e, ctx) => {
    const need = (key: 'hours' | 'multiplier' | 'amountCents' | 'category', wanted: boolean, why: string) => {
      if (wanted && e[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: `is required for ${why}` });
      if (!wanted && e[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `is not used for ${why}` });
    };
    if ((EARNING_TYPES as readonly string[]).indexOf(e.type) < 0) return;
    const hourly = HOURLY_TYPES.includes(e.type);
    need('hours', hourly, `type ${e.type}`);
    need('multiplier', hourly, `type ${e.type}`);
    need('amountCents', !hourly, `type ${e.type}`);
    need('category', e.type === 'allowance', `type ${e.type}`);
  });

/** An earnings line as priced in a run: overtime and penalty carry their hours and multiplier. */
const pricedEarning = z.object({
  type: z.enum(EARNING_TYPES),
  category: z.enum(ALLOWANCE_CATEGORIES).nullable(),
  hours: z.number().nullable(),
  multiplier: z.number().nullable(),
  amountCents: z.number().int(),
});

/**
 * A final pay (books.employeeTerminate): the line pays ordinary time up to terminationDate only and
 * the unused annual leave with its loading, all part of grossCents; paygCents includes the PAYG on
 * the leave (terminationPaygCents). No super guarantee is paid on the leave.
 */
const finalPay = z.object({
  terminationDate: z.string(),
  cessationTypeCode: z.string(),
  /** Days employed in the period (to terminationDate) of daysInPeriod. */
  daysEmployed: z.number().int(),
  daysInPeriod: z.number().int(),
  /** The annual leave balance paid out, in 1/1000 hours, and its value at the base hourly rate. */
  unusedLeaveMilliHours: z.number().int(),
  unusedLeaveCents: z.number().int(),
  leaveLoadingCents: z.number().int(),
  /** PAYG withheld on the unused leave and loading (part of paygCents). */
  terminationPaygCents: z.number().int(),
});

const payRunLine = z.object({
  employeeId: z.string(),
  name: z.string(),
  grossCents: z.number().int(),
  paygCents: z.number().int(),
  superCents: z.number().int(),
  netCents: z.number().int(),
  /** Hours paid (hours given plus leave, to the hundredth) for hourly staff with hours given; null where ordinary hours were paid. */
  hours: z.number().nullable(),
  /** Approved leave paid in this run, in hours, and its share of gross (STP "paid leave"). */
  leaveHours: z.number(),
  leaveCents: z.number().int(),
  /** The approved leave requests this run pays (taken from the balance when signed). */
  leaveIds: z.array(z.string()),
  /** Schedule 1 scale used, and whether its coefficients (and the super MCB) are confirmed. */
  taxScale: z.number().int(),
  confirmed: z.boolean(),
  /** The earnings lines paid with the ordinary pay (part of grossCents; salary_sacrifice is gross paid to super); present when given. */
  earnings: z.array(pricedEarning).optional(),
  /** Gross paid to super before tax (net = gross − this − PAYG; 2300 is credited superCents + this); present when some is. */
  salarySacrificeCents: z.number().int().optional(),
  /** Present on an employee's final pay (books.employeeTerminate). */
  termination: finalPay.optional(),
});

const totals = z.object({
  grossCents: z.number().int(),
  paygCents: z.number().int(),
  superCents: z.number().int(),
  netCents: z.number().int(),
  salarySacrificeCents: z.number().int().optional(),
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
  extendedParams: ['fundingAccountId', 'earnings'],
  summary:
    "Draft a pay run: periodStart to periodEnd (inclusive), paymentDate, payFrequency (weekly, fortnightly, monthly); optional employeeIds (default every active employee on that frequency), optional hours [{employeeId, hours}] for hourly staff (hours worked, to 2 decimal places; default their ordinary hours), optional earnings [{employeeId, type, …}]: overtime and penalty {hours, multiplier (of the base hourly rate, to 3 places; salaried: annual salary ÷ 52 ÷ hoursPerWeek)}, allowance {amountCents, category: the ATO STP code CD AD LD MD RD TD KN QN OD}, bonus and back_pay {amountCents} (PAYG by the ATO's method for additional payments), salary_sacrifice {amountCents} (paid to super from gross before tax), optional funding or fundingAccountId (at most one: the account the net pay ABA file is paid from, as billScheduleRun; paymentDate then today or later; a record's direct-entry details are copied into the draft, and signing is CONFLICT if they change before it). Each line: gross (ordinary pay plus earnings lines), PAYG by ATO Schedule 1 for the payment date on gross less bonus, back pay and salary sacrifice plus the additional-payments method on bonus and back pay, super guarantee at the rate in force on ordinary time earnings (gross less overtime), net = gross − salary sacrifice − PAYG (negative net is BAD_REQUEST); approved leave starting by periodEnd and not yet paid is paid in the run (leaveHours, leaveCents). Every employee must be active, started by periodEnd and on payFrequency. Status `draft`; nothing is posted. The same period, frequency and employees again while that draft is open, with the same details, is a no-op returning it; a draft or signed run already covering an employee for an overlapping period is CONFLICT naming it.",
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
      earnings: z
        .array(earningEntry)
        .max(EARNINGS_MAX, { error: `must have at most ${EARNINGS_MAX} entries` })
        .optional()
        .describe('Overtime, allowances…'),
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
  reachesOut: true,
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
  reachesOut: true,
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
  reachesOut: true,
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

/** Pay runs one super payment settles (a small business's quarter of weekly runs, with room). */
export const SUPER_PAY_RUNS_MAX = 100;

const superPaidRun = z.object({
  payRunId: z.string(),
  /** The run's payment date (its super is due from it). */
  paymentDate: z.string(),
  /** What the run credited to 2300 and this pays: its super guarantee and any salary sacrificed to super. */
  superCents: z.number().int(),
});

const superFundPaid = z.object({
  fundAbn: z.string(),
  fundName: z.string(),
  amountCents: z.number().int(),
  /** How many employees' contributions the file lists. */
  employeeCount: z.number().int(),
  /** The contribution file (`<superPaymentId>-<fund ABN>.csv`) queued on the payment outbox. */
  fileName: z.string(),
});

const superPayment = z.object({
  superPaymentId: z.string(),
  paymentDate: z.string(),
  fundingAccountId: z.string(),
  /** The chart account the money leaves (the bank account record's). */
  accountCode: z.string(),
  totalCents: z.number().int(),
  payRuns: z.array(superPaidRun),
  funds: z.array(superFundPaid),
  journalId: z.string(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const superPay = method({
  name: 'books.superPay',
  reachesOut: true,
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.payrollSign,
  summary:
    "Pay the super guarantee of signed pay runs in full: payRunIds (1–100 signed runs) or through (every signed run paid on or before that date whose super is still wholly unpaid), exactly one; paymentDate (today or later, and on or after every run's payment date); fundingAccountId (a bank account record, kind bank: the account the money leaves). A signature act of class books.payroll_sign, always held for a human whose summary names each fund with its amount and employees, the runs, the total and the paying account. With the proof it posts one journal dated paymentDate — Dr 2300 Superannuation payable (one line per run) / Cr the record's chart account — records the payment with the runs it settles, and queues one contribution file per fund (`<superPaymentId>-<fund ABN>.csv`, SuperStream alternative file format columns, no TFN) on the payment outbox. books.taxObligations then shows each run paid by it (paidBy). CONFLICT: a run already paid by an earlier super payment (naming it), a draft or recalled run, a run whose super payments to 2300 outside books.superPay already settle in part, or nothing owed. The same runs, paymentDate and account as an earlier payment (or the same through when nothing more is owed through it) is a no-op answering it.",
  brief: "Pay signed pay runs' super to their funds: posts 2300, writes one contribution file per fund.",
  params: withProof({
    payRunIds: z
      .array(id())
      .min(1, { error: 'must have at least 1 pay run' })
      .max(SUPER_PAY_RUNS_MAX, { error: `must have at most ${SUPER_PAY_RUNS_MAX} pay runs` })
      .optional()
      .describe('Or through'),
    through: isoDate().optional().describe('Runs paid by; or payRunIds'),
    paymentDate: isoDate().describe('Day the funds are paid'),
    fundingAccountId: id().describe('Bank account id paying'),
  }).superRefine((p, ctx) => {
    if ((p.payRunIds === undefined) === (p.through === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['payRunIds'], message: 'give exactly one of payRunIds and through' });
    }
    const ids = p.payRunIds ?? [];
    const twice = ids.find((x, i) => ids.indexOf(x) !== i);
    if (twice !== undefined) ctx.addIssue({ code: 'custom', path: ['payRunIds'], message: `names ${twice} twice` });
  }),
  result: z.union([superPayment, holdFrame]),
});

/** The account the annual leave provision is carried on, and the expense its movements go to (the chart's). */
export const LEAVE_PROVISION_ACCOUNT = '2350';
export const LEAVE_EXPENSE_ACCOUNT = '6150';

const provisionLine = z.object({
  employeeId: z.string(),
  name: z.string(),
  /** Annual leave balance as at asAt, in milli-hours (1/1000 hour), as the leave_balances report shows it. */
  milliHours: z.number().int(),
  /** The pay in force on asAt: an annual salary (an hour of leave is salary ÷ (hoursPerWeek × 52)) or an hourly rate. */
  annualSalaryCents: z.number().int().nullable(),
  hourlyRateCents: z.number().int().nullable(),
  /** To the hundredth (22.8). */
  hoursPerWeek: z.number(),
  /** The balance's value, half up to the cent (the report's annual valueCents). */
  amountCents: z.number().int(),
});

export const leaveProvision = method({
  name: 'books.leaveProvision',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Bring the annual leave provision (2350 Provision for annual leave) to the employees' annual leave liability as at asAt (not in the future, not on or before the lock date or conversion date): each active employee's annual leave balance valued at the pay in force on asAt, exactly as books.reports leave_balances values it (annual leave loading is not modelled). Posts one journal dated asAt for the difference between that total and 2350's balance as at asAt: Dr 6150 Annual leave expense / Cr 2350 when the liability grew, the reverse when it shrank. Nothing to post (the provision already equals the liability) is a no-op (noop: true, journalId and ledgerId of the provision's latest journal on or before asAt, null if none). A provision journal dated after asAt is CONFLICT (provision at that date or later). Result: each employee's hours, rate and amount, totalCents, the balance before and the difference posted.",
  brief: 'Post the annual leave provision as at a date: Dr 6150 / Cr 2350 the change in leave liability. Same date again: no-op.',
  params: z.strictObject({ asAt: isoDate().describe('Valuation date; not future') }),
  result: z.object({
    asAt: z.string(),
    employees: z.array(provisionLine),
    totalCents: z.number().int(),
    /** 2350's credit balance as at asAt before this call. */
    balanceBeforeCents: z.number().int(),
    /** What this call posted: totalCents − balanceBeforeCents (0 on a no-op). */
    differenceCents: z.number().int(),
    journalId: z.string().nullable(),
    ledgerId: z.string().nullable(),
    noop: z.literal(true).optional(),
  }),
});

/** Declarations of this area (see index.ts). */
export const payrollMethods = [
  payrollDraft,
  payrollSign,
  payrollRecall,
  stpResubmit,
  stpFinalise,
  stpSubmissions,
  leaveProvision,
  superPay,
] as const satisfies readonly MethodSpec[];
