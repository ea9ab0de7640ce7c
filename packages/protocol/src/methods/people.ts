import { z } from 'zod';
import { ACTION_CLASS } from '../signature.js';
import { abaText, bankAccountNumber, bsb } from './aba-fields.js';
import { cents, decimalNumber, email, holdFrame, id, isCalendarDate, isoDate, method, pageLimit, text, withProof } from './index-fields.js';
import { abn, taxFileNumber } from './people-fields.js';
import type { MethodSpec } from './types.js';

/**
 * People (docs/books.md, people): onboarding an employee (details → tax declaration → super fund →
 * contract, the contract a signature act), dated changes of an active employee's terms (a new bank
 * account a signature act), the end of employment (books.employeeTerminate), leave requests and approvals, and the employees read
 * with leave balances. A TFN is never returned, logged or put in an event: reads carry it masked
 * to its last 3 digits. Pay runs (payrollDraft/Sign/Recall, STP) build on these records.
 */

export const EMPLOYMENT_BASES = ['full_time', 'part_time', 'casual'] as const;
export const PAY_FREQUENCIES = ['weekly', 'fortnightly', 'monthly'] as const;
export const ONBOARDING_STEPS = ['tax_declaration', 'super', 'contract'] as const;
/** `terminated`: books.employeeTerminate recorded the end of employment and its final pay run is signed. */
export const EMPLOYEE_STATUSES = ['onboarding', 'active', 'terminated'] as const;
export const LEAVE_TYPES = ['annual', 'personal'] as const;
export const LEAVE_STATUSES = ['requested', 'approved'] as const;

/** An enum field: a missing value "is required", a wrong one names the choices. */
const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (iss) => (iss.input === undefined ? 'is required' : `must be one of ${values.join(', ')}`) });

/**
 * Ordinary hours a week: from 1 to 80 to the hundredth (22.8 for three 7.6-hour days), a JSON
 * number read exactly from its decimal form as pay hours are; the server keeps milli-hours.
 */
const HOURS_PER_WEEK_MAX = 80;
const hoursPerWeek = () => decimalNumber({ min: 1, max: HOURS_PER_WEEK_MAX, places: 2 });

/** A leave request's hours: a whole number from 1 to 2000 (a year of full-time hours and more). */
export const LEAVE_HOURS_MAX = 2000;
/** The longest stretch one leave request may cover, in days (inclusive). */
export const LEAVE_DAYS_MAX = 366;

const milliHours = () => z.number().int();

const leaveBalance = z.object({
  /** Accrued less taken, from the accrual ledger (payroll writes both), in 1/1000 hours. */
  balanceMilliHours: milliHours(),
  /** Approved and requested leave not yet paid in a pay run. */
  approvedMilliHours: milliHours(),
  requestedMilliHours: milliHours(),
  /** balance − approved − requested: what a new request can still use without going negative. */
  availableMilliHours: milliHours(),
});

export const employee = z.object({
  id: z.string(),
  status: z.enum(EMPLOYEE_STATUSES),
  nextStep: z.enum(ONBOARDING_STEPS).nullable(),
  name: z.string(),
  email: z.string(),
  startDate: z.string(),
  employmentBasis: z.enum(EMPLOYMENT_BASES),
  payFrequency: z.enum(PAY_FREQUENCIES),
  annualSalaryCents: z.number().int().nullable(),
  hourlyRateCents: z.number().int().nullable(),
  /** Ordinary hours a week, to the hundredth (salaried full-time staff default to 38, the NES standard week). */
  hoursPerWeek: z.number(),
  /** Where net pay goes; the account number masked to its last 3 digits. */
  bankAccount: z.object({ bsb: z.string(), accountNumberMasked: z.string(), accountName: z.string() }).nullable(),
  taxDeclaration: z
    .object({
      /** `******782`; a not-quoted code is shown as it is (it identifies no one). */
      taxFileNumberMasked: z.string(),
      tfnQuoted: z.boolean(),
      residency: z.enum(['resident', 'foreign']),
      claimsTaxFreeThreshold: z.boolean(),
      /** The Schedule 1 scale pay runs use today: 1, 2, 3 or 4 (no TFN). */
      taxScale: z.number().int(),
      declaredOn: z.string(),
    })
    .nullable(),
  superFund: z.object({ fundName: z.string(), fundAbn: z.string(), memberNumber: z.string() }).nullable(),
  /** The contract's title (role), once the contract step is done. */
  title: z.string().nullable(),
  /** The event that made the last change (a repeat that changes nothing returns it). */
  ledgerId: z.string(),
  /** The date the next change recorded by books.employeeUpdate comes into force (the fields above are today's). */
  pendingFrom: z.string().nullable().optional(),
  noop: z.boolean().optional(),
});

const BANK_FIELDS = ['bsb', 'accountNumber', 'accountName'] as const;

export const onboardingStart = method({
  name: 'books.onboardingStart',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    'Start onboarding an employee: name, email, startDate, employmentBasis (full_time, part_time, casual), payFrequency (weekly, fortnightly, monthly) and exactly one of annualSalaryCents or hourlyRateCents; hourly staff give hoursPerWeek (1–80, to 2 decimal places), as do part-time salaried staff (full-time salaried default to 38). Optional bank details bsb, accountNumber, accountName go together. The employee is `onboarding` with nextStep `tax_declaration`; nothing is posted.',
  brief: 'Create an employee; posts nothing. Then books.onboardingAdvance (tax, super, contract) before pay.',
  params: z
    .strictObject({
      name: text().describe('Full name'),
      email: email().describe('Email'),
      startDate: isoDate().describe('First day'),
      employmentBasis: oneOf(EMPLOYMENT_BASES).describe('Employment basis'),
      payFrequency: oneOf(PAY_FREQUENCIES).describe('Pay frequency'),
      annualSalaryCents: cents().optional().describe('Or hourlyRateCents'),
      hourlyRateCents: cents().optional().describe('Or annualSalaryCents'),
      hoursPerWeek: hoursPerWeek().optional().describe('1-80; needed if hourly/part-time'),
      bsb: bsb().optional().describe('Net pay BSB, NNN-NNN'),
      accountNumber: bankAccountNumber().optional().describe('Net pay account no.'),
      accountName: abaText(32).optional().describe('Net pay account name'),
    })
    .superRefine((p, ctx) => {
      const salary = p.annualSalaryCents !== undefined;
      const hourly = p.hourlyRateCents !== undefined;
      if (salary === hourly) {
        ctx.addIssue({
          code: 'custom',
          path: [salary ? 'hourlyRateCents' : 'annualSalaryCents'],
          message: 'give exactly one of annualSalaryCents and hourlyRateCents',
        });
      }
      if (hourly && p.hoursPerWeek === undefined) {
        ctx.addIssue({ code: 'custom', path: ['hoursPerWeek'], message: 'is required with hourlyRateCents' });
      }
      if (salary && !hourly && p.employmentBasis === 'part_time' && p.hoursPerWeek === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['hoursPerWeek'],
          message: 'is required for a part_time employee (leave accrues on ordinary hours)',
        });
      }
      const given = BANK_FIELDS.filter((f) => p[f] !== undefined);
      if (given.length > 0) {
        for (const f of BANK_FIELDS) {
          if (p[f] === undefined) ctx.addIssue({ code: 'custom', path: [f], message: `is required with ${given.join(', ')}` });
        }
      }
    }),
  result: employee,
});

/** The employee id, described alike in every step (the tool schema merges the steps into one object). */
const stepEmployeeId = () => id().describe('Employee id');

const taxDeclarationStep = z
  .strictObject({
    id: stepEmployeeId(),
    step: z.literal('tax_declaration').describe('Step 1: tax file number declaration'),
    taxFileNumber: taxFileNumber().describe('TFN or no-TFN code'),
    residency: oneOf(['resident', 'foreign'] as const).describe('Residency'),
    claimsTaxFreeThreshold: z.boolean({ error: 'must be true or false' }).describe('Never if foreign'),
  })
  .superRefine((p, ctx) => {
    if (p.residency === 'foreign' && p.claimsTaxFreeThreshold === true) {
      ctx.addIssue({ code: 'custom', path: ['claimsTaxFreeThreshold'], message: 'a foreign resident cannot claim the tax-free threshold' });
    }
  });

const superStep = z.strictObject({
  id: stepEmployeeId(),
  step: z.literal('super').describe('Step 2: super fund'),
  fundName: text().describe('Fund name'),
  fundAbn: abn().describe('Fund ABN'),
  memberNumber: text(30).describe('Member no.'),
});

const contractStep = withProof({
  id: stepEmployeeId(),
  step: z.literal('contract').describe('Step 3: contract, approved by a human'),
  title: text().describe('Job title'),
});

export const onboardingAdvance = method({
  name: 'books.onboardingAdvance',
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.onboardingAdvance,
  summary:
    "Advance an employee's onboarding one step, in order: `tax_declaration` {taxFileNumber (9 digits passing the ATO check digit, or an ATO not-quoted code 000000000, 111111111, 333333333, 444444444, 987654321), residency resident|foreign, claimsTaxFreeThreshold}, then `super` {fundName, fundAbn (11 digits passing the ABN check), memberNumber}, then `contract` {title}. A step's fields sit beside id and step. Out of order is CONFLICT naming the next step; repeating the last step done with the same details is a no-op (with other details, CONFLICT). The contract step is the signature act books.onboarding_advance: held for a human whose summary names the employee, role, pay and start date; with the proof the employee becomes `active` (nextStep null). The TFN is stored for Single Touch Payroll but never returned, logged or put in an event (masked to its last 3 digits).",
  brief: 'Record the next onboarding step (tax_declaration, super, contract) with its fields only; contract needs a human.',
  params: z.discriminatedUnion('step', [taxDeclarationStep, superStep, contractStep], {
    error: `must be one of ${ONBOARDING_STEPS.join(', ')}`,
  }),
  result: z.union([employee, holdFrame]),
});

const SUPER_FIELDS = ['fundName', 'fundAbn', 'memberNumber'] as const;
const TAX_FIELDS = ['taxFileNumber', 'residency', 'claimsTaxFreeThreshold'] as const;
/** Pay terms: a change of them needs effectiveFrom (pay runs apply them by period). */
const PAY_FIELDS = ['annualSalaryCents', 'hourlyRateCents', 'hoursPerWeek'] as const;
const CHANGE_FIELDS = [...PAY_FIELDS, 'title', ...SUPER_FIELDS, ...TAX_FIELDS, ...BANK_FIELDS] as const;

/** The terms one books.employeeUpdate call changes (the super fund, tax declaration and bank account each count as one). */
export const EMPLOYEE_TERMS = [
  'annualSalaryCents',
  'hourlyRateCents',
  'hoursPerWeek',
  'title',
  'superFund',
  'taxDeclaration',
  'bankAccount',
] as const;

export const employeeUpdate = method({
  name: 'books.employeeUpdate',
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.onboardingAdvance,
  summary:
    "Change an active employee's terms from effectiveFrom (on or after the start date; default today in the organisation's time zone; required with pay or hours): annualSalaryCents or hourlyRateCents (whichever the employee is paid by: a change of pay basis, employment basis or pay frequency is not supported), hoursPerWeek (1–80, to 2 decimal places), title, the super fund {fundName, fundAbn, memberNumber}, the tax declaration {taxFileNumber, residency, claimsTaxFreeThreshold} (checked as the onboarding step) and the bank account {bsb, accountNumber, accountName}, each group given whole. Pay runs use the pay and hours in force on the period's start date (a change effective mid-period applies from the next period; nothing is pro-rated) and the tax declaration, super fund and bank account in force on the payment date; name and email are not changed here; a draft keeps its figures (recall and redraft). A change of bank account is the signature act books.onboarding_advance: held for a human whose summary shows the account was and is now, in full; other changes need no proof. The same values again are a no-op; other values for a term a change already recorded for the same effectiveFrom sets are CONFLICT naming it, as is a change that a signed pay run already paid on the old terms (back pay is not modelled). The answer shows the terms in force today, pendingFrom (the next future-dated change) and the change recorded. The TFN is never returned or put in an event.",
  brief: "Change an employee's pay, hours, title, super, tax or bank from a date; a new bank account needs a human.",
  params: withProof({
    id: id().describe('Employee id'),
    effectiveFrom: isoDate().optional().describe('Default today'),
    annualSalaryCents: cents().optional().describe('If salaried'),
    hourlyRateCents: cents().optional().describe('If hourly'),
    hoursPerWeek: hoursPerWeek().optional().describe('1-80'),
    title: text().optional().describe('Job title'),
    fundName: text().optional().describe('Super fund'),
    fundAbn: abn().optional().describe('Fund ABN'),
    memberNumber: text(30).optional().describe('Member no.'),
    taxFileNumber: taxFileNumber().optional().describe('TFN or no-TFN code'),
    residency: oneOf(['resident', 'foreign'] as const)
      .optional()
      .describe('Residency'),
    claimsTaxFreeThreshold: z.boolean({ error: 'must be true or false' }).optional().describe('Never if foreign'),
    bsb: bsb().optional().describe('Net pay BSB'),
    accountNumber: bankAccountNumber().optional().describe('Account no.'),
    accountName: abaText(32).optional().describe('Account name'),
  }).superRefine((p, ctx) => {
    if (CHANGE_FIELDS.every((f) => p[f] === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: `give at least one of ${CHANGE_FIELDS.join(', ')}` });
    }
    if (p.annualSalaryCents !== undefined && p.hourlyRateCents !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['hourlyRateCents'], message: 'give one of annualSalaryCents and hourlyRateCents' });
    }
    const pay = PAY_FIELDS.filter((f) => p[f] !== undefined);
    if (pay.length > 0 && p.effectiveFrom === undefined) {
      ctx.addIssue({ code: 'custom', path: ['effectiveFrom'], message: `is required with ${pay.join(', ')}` });
    }
    for (const group of [SUPER_FIELDS, TAX_FIELDS, BANK_FIELDS]) {
      const given = group.filter((f) => p[f] !== undefined);
      if (given.length === 0) continue;
      for (const f of group) {
        if (p[f] === undefined) ctx.addIssue({ code: 'custom', path: [f], message: `is required with ${given.join(', ')}` });
      }
    }
    if (p.residency === 'foreign' && p.claimsTaxFreeThreshold === true) {
      ctx.addIssue({ code: 'custom', path: ['claimsTaxFreeThreshold'], message: 'a foreign resident cannot claim the tax-free threshold' });
    }
  }),
  result: z.union([
    employee.extend({
      /** The change this call recorded: its date and the terms it changed; null for a no-op. */
      change: z.object({ effectiveFrom: z.string(), changed: z.array(z.enum(EMPLOYEE_TERMS)) }).nullable(),
    }),
    holdFrame,
  ]),
});

export const leave = z.object({
  id: z.string(),
  employeeId: z.string(),
  status: z.enum(LEAVE_STATUSES),
  leaveType: z.enum(LEAVE_TYPES),
  startDate: z.string(),
  endDate: z.string(),
  /** To the hundredth of an hour (7.6). */
  hours: z.number(),
  /** Set when the hours exceed what the employee has available: the request stands (see summary). */
  warning: z.string().nullable(),
  /** The employee's available balance of this leave type after this request, in 1/1000 hours. */
  availableAfterMilliHours: z.number().int(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const leaveRequest = method({
  name: 'books.leaveRequest',
  scope: 'books.write',
  kind: 'write',
  repeat: 'creates',
  summary:
    "Request leave for an active full- or part-time employee: leaveType annual or personal (personal/carer's), startDate to endDate (inclusive, at most 366 days), hours (above 0 and at most 2000, to 2 decimal places (7.6), at most 24 a day of the range). A request above the available balance is accepted with a warning (leave in advance is the employer's decision at approval); casual employees accrue no paid leave (CONFLICT). Status `requested`; paid as leave by the pay run of its period once approved.",
  brief: 'Request paid leave (not casuals); over balance only warns. Then books.leaveApprove.',
  params: z
    .strictObject({
      employeeId: id().describe('Employee id'),
      leaveType: oneOf(LEAVE_TYPES).describe("personal includes carer's"),
      startDate: isoDate().describe('First day'),
      endDate: isoDate().describe('Last day'),
      hours: decimalNumber({ min: 0, max: LEAVE_HOURS_MAX, places: 2, above: true }).describe('Hours, 2 decimals, max 24 a day'),
    })
    .superRefine((p, ctx) => {
      if (!isCalendarDate(p.startDate) || !isCalendarDate(p.endDate)) return;
      if (p.endDate < p.startDate) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
      const days = (Date.parse(p.endDate) - Date.parse(p.startDate)) / 86_400_000 + 1;
      if (days > LEAVE_DAYS_MAX)
        ctx.addIssue({ code: 'custom', path: ['endDate'], message: `must be at most ${LEAVE_DAYS_MAX} days after startDate (inclusive)` });
      else if (days >= 1 && typeof p.hours === 'number' && p.hours > days * 24) {
        ctx.addIssue({ code: 'custom', path: ['hours'], message: `must be at most ${days * 24} (24 a day from startDate to endDate)` });
      }
    }),
  result: leave,
});

export const leaveApprove = method({
  name: 'books.leaveApprove',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Approve a leave request (status `approved`); approving an approved request is a no-op. The answer repeats the warning when the hours exceed the available balance at approval.',
  brief: 'Approve leave; the pay run covering it pays it.',
  params: z.strictObject({ id: id().describe('Request id') }),
  result: leave,
});

/** Why employment ended, in words; CESSATION_CODES maps each to the ATO's STP cessation type code. */
export const TERMINATION_REASONS = ['voluntary', 'ill_health', 'deceased', 'redundancy', 'dismissal', 'contract_end', 'transfer'] as const;
/** The STP Phase 2 cessation type codes: V voluntary, I ill health, D deceased, R redundancy, F dismissal, C contract end, T transfer. */
export const CESSATION_CODES = {
  voluntary: 'V',
  ill_health: 'I',
  deceased: 'D',
  redundancy: 'R',
  dismissal: 'F',
  contract_end: 'C',
  transfer: 'T',
} as const;
/** How far ahead a termination may be recorded (a notice period of up to about three months). */
export const TERMINATION_DAYS_AHEAD_MAX = 90;

/**
 * A percentage to the hundredth (17.5), a JSON number as hours are (decimalNumber: read exactly from
 * its shortest decimal form). Not also a decimal string: model hosts refuse a union of types in a
 * tool's schema.
 */
const loadingPercent = () => decimalNumber({ min: 0, max: 100, places: 2 });

/** Why an ETP is refused: named with the field, whatever value it carries. */
export const ETP_REFUSAL =
  'employment termination payments (severance or redundancy pay, payment in lieu of notice, a golden handshake, unused personal leave) are not supported: ' +
  'their tax rules (the ETP and whole-of-income caps, tax-free and taxable components, preservation age) and the STP ETP payment codes are not modelled; ' +
  'pay and report an ETP outside Finance Desk';

export const termination = z.object({
  employeeId: z.string(),
  name: z.string(),
  /** `active` until the final pay run is signed, then `terminated`. */
  status: z.enum(EMPLOYEE_STATUSES),
  terminationDate: z.string(),
  reason: z.enum(TERMINATION_REASONS),
  /** The ATO's STP cessation type code for the reason. */
  cessationTypeCode: z.enum(['V', 'I', 'D', 'R', 'F', 'C', 'T']),
  /** Leave loading paid on the unused annual leave, as a decimal string to the hundredth ("17.50"); null for none. */
  leaveLoadingPercent: z.string().nullable(),
  /** The signed pay run that paid the final pay; null until then. */
  finalPayRunId: z.string().nullable(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const employeeTerminate = method({
  name: 'books.employeeTerminate',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Record the end of an active employee's employment: employeeId, terminationDate (the last day employed: not before the start date, at most 90 days after today, after every signed pay run's period covering the employee), reason (voluntary, ill_health, deceased, redundancy, dismissal, contract_end, transfer: reported to the ATO as the STP cessation type V, I, D, R, F, C, T), optional leaveLoadingPercent (a number from 0 to 100, at most 2 decimal places: the leave loading the award gives on unused annual leave). Nothing is paid or posted here: the pay run whose period contains terminationDate (books.payrollDraft) is the final pay — ordinary pay up to terminationDate only (days employed ÷ days in the period), plus the unused annual leave balance after that run's own accrual and leave taken, at the base hourly rate in force, plus the loading; PAYG on the leave by the ATO's marginal-rate method (redundancy and ill_health: 32%, residents; deceased: nothing withheld); no super guarantee on it — and signing it (books.payrollSign) pays the leave out of the balance, reports the cessation through STP and makes the employee `terminated`; later runs refuse them. The same termination again is a no-op; other details before the final run is signed replace it (CONFLICT while a draft run covers the employee on or after the date: recall it first); once signed it is CONFLICT. employmentTerminationPaymentCents is refused: employment termination payments are not modelled.",
  brief: "Record an employee's termination; the run covering the date pays the final pay and unused leave.",
  params: z
    .strictObject({
      employeeId: id().describe('Employee id'),
      terminationDate: isoDate().describe('Last day employed'),
      reason: oneOf(TERMINATION_REASONS).describe('Why employment ended'),
      leaveLoadingPercent: loadingPercent().optional().describe('e.g. 17.5; on unused leave'),
      employmentTerminationPaymentCents: z.number({ error: ETP_REFUSAL }).optional().describe('Refused: ETPs unsupported'),
    })
    .superRefine((p, ctx) => {
      if (p.employmentTerminationPaymentCents !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['employmentTerminationPaymentCents'], message: ETP_REFUSAL });
      }
    }),
  result: termination,
});

export const employees = method({
  name: 'books.employees',
  scope: 'books.read',
  kind: 'read',
  summary:
    'List employees, oldest first, with status, nextStep, pay, masked TFN and tax scale, super fund, and leave balances (annual and personal, in 1/1000 hours: balance from the accrual ledger, approved and requested leave not yet paid, and what is available). Filter by status; page with cursor and limit (1–200, default 50).',
  brief: 'Employees: onboarding step, pay, masked TFN, super, leave (thousandths of an hour).',
  params: z.strictObject({
    status: oneOf(EMPLOYEE_STATUSES).optional().describe('Status'),
    cursor: id().optional().describe('nextCursor'),
    limit: pageLimit().optional().describe('1-200 (50)'),
  }),
  result: z.object({
    employees: z.array(employee.extend({ leave: z.object({ annual: leaveBalance, personal: leaveBalance }) })),
    nextCursor: z.string().nullable(),
  }),
});

/** Declarations of this area (see index.ts). */
export const peopleMethods = [
  onboardingStart,
  onboardingAdvance,
  employeeUpdate,
  employeeTerminate,
  leaveRequest,
  leaveApprove,
  employees,
] as const satisfies readonly MethodSpec[];
