import { z } from 'zod';
import { limits } from '../limits.js';
import { ACTION_CLASSES } from '../signature.js';
import { textProblem } from '../text-rules.js';

/**
 * Field builders shared by every method declaration, so that the same kind of field has the
 * same bounds and the same error wording everywhere (docs/protocol.md, validation). Every string
 * has an upper bound.
 */
/**
 * A single line of text (names, titles, references): the text rules with no tab or line break.
 * The message names the character class, never the text (text-rules.ts).
 */
export const singleLine = <T extends z.ZodString>(schema: T): T => withTextRule(schema, false);

function withTextRule<T extends z.ZodString>(schema: T, multiline: boolean): T {
  return schema.superRefine((s, ctx) => {
    const problem = textProblem(s, { multiline });
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: s });
  });
}

export const text = (max: number = limits.nameCharsMax) => singleLine(z.string().min(1, { error: 'must not be empty' }).max(max));

/** Free text that may span lines (descriptions, reasons, notes): tab and line breaks allowed. */
export const multilineText = (max: number = limits.textCharsMax) =>
  withTextRule(z.string().min(1, { error: 'must not be empty' }).max(max), true);

export const cents = () =>
  z
    .number({ error: 'must be an integer number of cents' })
    .int({ error: 'must be an integer number of cents' })
    .gt(0, { error: 'must be an integer greater than 0' })
    // Every check names its own bound: the schema-level error above would otherwise say
    // "must be an integer number of cents" of an integer that is merely too large.
    .max(limits.centsMax, { error: `must be at most ${limits.centsMax}` });

export const days = () =>
  z
    .number({ error: 'must be an integer number of days' })
    .int({ error: 'must be an integer number of days' })
    .min(0, { error: 'must be an integer of at least 0' })
    .max(limits.dueDaysMax, { error: `must be an integer of at most ${limits.dueDaysMax}` });

export const id = () =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(limits.idCharsMax)
    .regex(/^[A-Za-z0-9_-]+$/, { error: 'must be an id (letters, digits, _ and -)' });

/**
 * The bounds of every queryInt schema, keyed by its definition. The wire carries a string, but a
 * schema generator (the MCP server's tool schemas) shows the integer it stands for; queryInt's
 * refine cannot be introspected. `.describe()` clones a schema with the same definition, so a
 * described queryInt is still known by its bounds.
 */
const queryIntRanges = new WeakMap<object, { readonly min: number; readonly max: number }>();

/** Query-string integer (GET reads): digits only, so `1.5`, `-1` or `abc` are refused. */
export const queryInt = (min: number, max: number) => {
  const schema = z
    .string()
    .regex(/^\d{1,15}$/, { error: `must be an integer from ${min} to ${max}` })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: `must be an integer from ${min} to ${max}` });
  queryIntRanges.set(schema._zod.def, { min, max });
  return schema;
};

/** The integer range a queryInt schema accepts, or undefined for any other schema. */
export function queryIntRange(schema: object): { readonly min: number; readonly max: number } | undefined {
  const def = (schema as { _zod?: { def?: object } })._zod?.def;
  return def === undefined ? undefined : queryIntRanges.get(def);
}

/** Page size of a POST read (`limit`): 1 to limits.pageRowsMax; the server's default is pageRowsDefault. */
export const pageLimit = () =>
  z
    .number({ error: `must be an integer from 1 to ${limits.pageRowsMax}` })
    .int({ error: `must be an integer from 1 to ${limits.pageRowsMax}` })
    .min(1, { error: `must be an integer from 1 to ${limits.pageRowsMax}` })
    .max(limits.pageRowsMax, { error: `must be an integer from 1 to ${limits.pageRowsMax}` });

/** A signature act takes its ordinary params plus, on retry, one of these (docs/protocol.md). */
export const proofFields = {
  approvalId: id().optional().describe('Retry only: the approved approvalId'),
  signatureToken: z.string().min(1).max(2048).optional().describe('Or approvalId'),
};

/** Add the proof fields to a strict params object and refuse both at once. */
export function withProof<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject({ ...shape, ...proofFields }).refine(
    (p) => {
      const proof = p as { approvalId?: unknown; signatureToken?: unknown };
      return !(proof.approvalId !== undefined && proof.signatureToken !== undefined);
    },
    {
      error: 'give either approvalId or signatureToken, not both',
      path: ['signatureToken'],
    },
  );
}

/**
 * The hold frame's result (frames.ts HoldResult): a signature act's answer without proof.
 * `approval.actionClass` is the same enum `approval.request` takes, so a typed caller files the hold's
 * approval as it stands (no cast); `ledgerId` is the event that records the held attempt.
 */
export const holdFrame = z.object({
  status: z.literal('approval_required'),
  approval: z.object({
    actionClass: z.enum(ACTION_CLASSES),
    payloadHash: z.string(),
    subject: z.object({ kind: z.literal('books.signature'), subjectId: z.string(), summary: z.string() }),
    expiresInMs: z.number().int(),
  }),
  subjectId: z.string(),
  message: z.string(),
  ledgerId: z.string(),
});

export const hash64 = () => z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be 64 lowercase hex characters' });

const DATE_FORMAT = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar date written `YYYY-MM-DD` (not 2024-02-30, not 2024-1-1). */
export function isCalendarDate(s: string): boolean {
  if (!DATE_FORMAT.test(s)) return false;
  const t = Date.parse(`${s}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().startsWith(s);
}

/**
 * A calendar date `YYYY-MM-DD`. Each value gets one message: the calendar check only speaks
 * when the format is right, so `2024-1-1` is `must be a date YYYY-MM-DD` alone. The checks do
 * not abort, so the other fields and the object's own checks are still reported; object
 * checks that compare dates must use isCalendarDate first.
 */
export const isoDate = () =>
  z
    .string()
    .regex(DATE_FORMAT, { error: 'must be a date YYYY-MM-DD' })
    .refine((s) => !DATE_FORMAT.test(s) || isCalendarDate(s), { error: 'must be a real calendar date' });

export const email = () => z.email({ error: 'must be an email address' }).max(254);

export const reason = () => multilineText(500);

/**
 * The decimal places of a number in its shortest round-trip form, the form JSON writes it in
 * (7.6 → 1, 38 → 0); null for a form with an exponent (1e-7), which no valid amount takes.
 */
export function decimalPlacesOf(n: number): number | null {
  const s = String(Math.abs(n));
  if (!/^\d+(?:\.\d+)?$/.test(s)) return null;
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
}

/**
 * A JSON number with at most `places` decimal places, from `min` (or above it, with `above`) to
 * `max`: hours (7.6) and pay multipliers (1.5). The server reads it exactly from that decimal
 * form (payroll/decimal.ts), never by arithmetic on the float; an integer is valid as it always was.
 */
export const decimalNumber = (o: { readonly min: number; readonly max: number; readonly places: number; readonly above?: boolean }) => {
  const low = o.above ? `greater than ${o.min} and at most` : `from ${o.min} to`;
  const message = `must be a number ${low} ${o.max}${o.places === 0 ? '' : ` with at most ${o.places} decimal places`}`;
  return z
    .number({ error: message })
    .refine((n) => (o.above ? n > o.min : n >= o.min) && n <= o.max && (decimalPlacesOf(n) ?? Infinity) <= o.places, { error: message });
};
