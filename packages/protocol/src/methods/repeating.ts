import { z } from 'zod';
import { formatIssues } from '../validation.js';
import { billCapture, invoiceDraft } from './books.js';
import { id, isoDate, method, pageLimit } from './index-fields.js';
import type { MethodSpec } from './types.js';

/**
 * Repeating invoices and bills (an extension beyond the core contract): a schedule holds the
 * params of books.invoiceDraft or books.billCapture, and the server's repeating sweep creates one
 * document per due date through the same domain functions, dated that date.
 */

export const REPEATING_KINDS = ['invoice', 'bill'] as const;
export type RepeatingKind = (typeof REPEATING_KINDS)[number];
export const REPEATING_FREQUENCIES = ['weekly', 'fortnightly', 'monthly', 'quarterly', 'yearly'] as const;
export type RepeatingFrequency = (typeof REPEATING_FREQUENCIES)[number];
/** invoice: draft | send; bill: capture (left captured) | approve (approved too unless the bill-approval rule holds it). */
export const REPEATING_ACTIONS = ['draft', 'send', 'capture', 'approve'] as const;
export type RepeatingAction = (typeof REPEATING_ACTIONS)[number];
export const REPEATING_STATUSES = ['active', 'paused', 'ended'] as const;
/** Active and paused schedules an organisation may hold at once. */
export const REPEATING_ACTIVE_MAX = 200;
/** The most documents one schedule may make (count). */
export const REPEATING_COUNT_MAX = 1000;

const ACTIONS_OF: Readonly<Record<RepeatingKind, readonly RepeatingAction[]>> = {
  invoice: ['draft', 'send'],
  bill: ['capture', 'approve'],
};

/** Fields of a template the schedule decides itself: each run is dated its due date and numbered in sequence. */
const SCHEDULE_DECIDES: Readonly<Record<RepeatingKind, readonly string[]>> = { invoice: ['issueDate', 'number'], bill: ['issueDate'] };

/**
 * What is wrong with `template` as the params of the kind's create method (its own schema, so a
 * template is exactly a document an agent could create), each problem named `template.<field>`;
 * null when nothing is.
 */
export function templateProblems(kind: RepeatingKind, template: unknown): string | null {
  const spec = kind === 'invoice' ? invoiceDraft : billCapture;
  const parsed = spec.params.safeParse(template, { reportInput: true });
  const issues = parsed.success ? [] : parsed.error.issues.map((i) => ({ ...i, path: ['template', ...i.path] }));
  const extra =
    typeof template === 'object' && template !== null
      ? SCHEDULE_DECIDES[kind]
          .filter((f) => f in template)
          .map((f) => ({ path: ['template', f], message: 'is set by the schedule (each run is dated its due date)' }))
      : [];
  return issues.length + extra.length === 0 ? null : formatIssues([...issues, ...extra]);
}

export const repeatingSchedule = z.object({
  id: z.string(),
  kind: z.enum(REPEATING_KINDS),
  action: z.enum(REPEATING_ACTIONS),
  /** The books.invoiceDraft or books.billCapture params each run is created with. */
  template: z.record(z.string(), z.unknown()),
  frequency: z.enum(REPEATING_FREQUENCIES),
  /** Monthly, quarterly, yearly: the day of the month (a shorter month's last day when past it). */
  dayOfMonth: z.number().int().nullable(),
  startDate: z.string(),
  endDate: z.string().nullable(),
  count: z.number().int().nullable(),
  status: z.enum(REPEATING_STATUSES),
  /** The next due date, or null when the schedule has made its last document. */
  nextDue: z.string().nullable(),
  /** Documents made so far. */
  runs: z.number().int(),
  lastRun: z.object({ dueOn: z.string(), documentId: z.string() }).nullable(),
  /** The last run that failed (the schedule moves on to its other work and retries it next sweep). */
  lastError: z.object({ dueOn: z.string(), message: z.string(), at: z.string() }).nullable(),
  /** The actor that set the schedule: its runs are recorded as acts of it. */
  createdBy: z.string(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const repeatingSet = method({
  name: 'books.repeatingSet',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Set a repeating invoice or bill (extension beyond the core contract). New: kind (invoice | bill), template (the params of books.invoiceDraft or books.billCapture, checked by that method's schema; no issueDate or invoice number: each run is dated its due date), frequency (weekly | fortnightly | monthly | quarterly | yearly), dayOfMonth (1-31, default startDate's; a shorter month's last day), startDate, optional endDate or count (1-1000), action (invoice: draft | send; bill: capture, or approve: approved too unless the bill-approval rule holds it for a human, as a captured bill would be). The server creates each due document on the organisation's date, catching up missed dates, one document per date. At most 200 active or paused schedules. With id: a new template, endDate, or status (paused, active, ended: final). The same again is a no-op.",
  brief:
    'Repeat an invoice (draft/send) or bill (capture/approve) weekly to yearly from a template of invoiceDraft/billCapture params; with id: pause, resume, end or change the template.',
  params: z
    .strictObject({
      id: id().optional().describe('Schedule id, to change it'),
      kind: z.enum(REPEATING_KINDS, { error: 'must be one of invoice, bill' }).optional().describe('invoice | bill'),
      template: z.record(z.string(), z.unknown()).optional().describe('invoiceDraft / billCapture params'),
      frequency: z
        .enum(REPEATING_FREQUENCIES, { error: `must be one of ${REPEATING_FREQUENCIES.join(', ')}` })
        .optional()
        .describe('weekly..yearly'),
      dayOfMonth: z
        .number({ error: 'must be an integer from 1 to 31' })
        .int({ error: 'must be an integer from 1 to 31' })
        .min(1, { error: 'must be an integer from 1 to 31' })
        .max(31, { error: 'must be an integer from 1 to 31' })
        .optional()
        .describe('1-31; monthly+'),
      startDate: isoDate().optional().describe('First due date'),
      endDate: isoDate().nullable().optional().describe('Last possible date'),
      count: z
        .number({ error: `must be an integer from 1 to ${REPEATING_COUNT_MAX}` })
        .int({ error: `must be an integer from 1 to ${REPEATING_COUNT_MAX}` })
        .min(1, { error: `must be an integer from 1 to ${REPEATING_COUNT_MAX}` })
        .max(REPEATING_COUNT_MAX, { error: `must be an integer from 1 to ${REPEATING_COUNT_MAX}` })
        .optional()
        .describe('Documents to make'),
      action: z
        .enum(REPEATING_ACTIONS, { error: `must be one of ${REPEATING_ACTIONS.join(', ')}` })
        .optional()
        .describe('See summary'),
      status: z.enum(REPEATING_STATUSES, { error: 'must be one of active, paused, ended' }).optional().describe('With id'),
    })
    .superRefine((p, ctx) => {
      const add = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
      if (p.id !== undefined) {
        for (const f of ['kind', 'frequency', 'dayOfMonth', 'startDate', 'count', 'action'] as const) {
          if (p[f] !== undefined) add(f, 'cannot change on a schedule (end it and set a new one)');
        }
        if (p.template === undefined && p.status === undefined && p.endDate === undefined) {
          add('id', 'give template, endDate or status to change');
        }
        return;
      }
      for (const f of ['kind', 'template', 'frequency', 'startDate', 'action'] as const) if (p[f] === undefined) add(f, 'is required');
      if (p.status !== undefined && p.status !== 'active') add('status', 'a new schedule is active');
      if (p.endDate !== undefined && p.endDate !== null && p.count !== undefined) add('endDate', 'give endDate or count, not both');
      if (p.endDate && p.startDate && p.endDate < p.startDate) add('endDate', `must not be before startDate ${p.startDate}`);
      if (p.dayOfMonth !== undefined && (p.frequency === 'weekly' || p.frequency === 'fortnightly')) {
        add('dayOfMonth', 'is for monthly, quarterly and yearly schedules');
      }
      if (p.kind !== undefined && p.action !== undefined && !ACTIONS_OF[p.kind].includes(p.action)) {
        add('action', `must be one of ${ACTIONS_OF[p.kind].join(', ')} for ${p.kind === 'invoice' ? 'an invoice' : 'a bill'}`);
      }
      if (p.kind !== undefined && p.template !== undefined) {
        const spec = p.kind === 'invoice' ? invoiceDraft : billCapture;
        const parsed = spec.params.safeParse(p.template, { reportInput: true });
        if (!parsed.success) for (const i of parsed.error.issues) ctx.addIssue({ ...i, path: ['template', ...i.path] });
        for (const f of SCHEDULE_DECIDES[p.kind])
          if (f in p.template) add(`template.${f}`, 'is set by the schedule (each run is dated its due date)');
      }
    }),
  result: repeatingSchedule,
});

export const repeating = method({
  name: 'books.repeating',
  scope: 'books.read',
  kind: 'read',
  summary:
    'List repeating invoice and bill schedules (extension), newest first: status, next due date, documents made, the last run and the last error. Filters: status, kind; page with cursor and limit (1-200, default 50).',
  brief: 'Repeating invoice and bill schedules with next due date, last run and last error.',
  params: z.strictObject({
    status: z.enum(REPEATING_STATUSES).optional().describe('Status'),
    kind: z.enum(REPEATING_KINDS).optional().describe('invoice | bill'),
    cursor: id().optional().describe('nextCursor'),
    limit: pageLimit().optional().describe('1-200 (50)'),
  }),
  result: z.object({ schedules: z.array(repeatingSchedule), nextCursor: z.string().nullable() }),
});

/** Declarations of this area (see index.ts). */
export const repeatingMethods = [repeatingSet, repeating] as const satisfies readonly MethodSpec[];
