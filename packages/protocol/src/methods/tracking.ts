import { z } from 'zod';
import { method, text } from './index-fields.js';

/**
 * Tracking categories (an extension beyond the core contract): up to two dimensions an
 * organisation tags its lines with besides the account (a "Division" with options Cafe and
 * Catering, a "Region"), so the reports can be read per option. Set up by books.trackingSet,
 * listed by books.accounts, named on the lines of invoices, bills, manual journals and bank line
 * splits as `tracking: {"Division": "Cafe"}`, and filtered on by books.reports. Worked example:
 * docs/examples/tracking.md.
 */

/** Categories an organisation has at most (journal lines carry one option of each). */
export const TRACKING_CATEGORIES_MAX = 2;
/** Options a category has at most, archived ones included. */
export const TRACKING_OPTIONS_MAX = 100;
/** A category's or an option's name, one line. */
export const TRACKING_NAME_CHARS_MAX = 100;

const trackingName = () => text(TRACKING_NAME_CHARS_MAX);
/** A record key: the text rule is applied to the name by the server, which names the line. */
const categoryKey = () => z.string().min(1, { error: 'must not be empty' }).max(TRACKING_NAME_CHARS_MAX);

/** A record's key that is not a name: said as such, not as zod's "Invalid key in record". */
const keyError = {
  error: (issue: { code: string }) =>
    issue.code === 'invalid_key' ? `category names are 1 to ${TRACKING_NAME_CHARS_MAX} characters` : undefined,
};

const oneOrTwo = (r: Record<string, unknown>) => {
  const n = Object.keys(r).length;
  return n >= 1 && n <= TRACKING_CATEGORIES_MAX;
};

/**
 * A line's tracking: category name → option name, one option per category (names as
 * books.trackingSet wrote them, case and accents ignored). An unknown category or option, or an
 * archived option, is BAD_REQUEST naming the line's tracking.
 */
export const lineTracking = () =>
  z
    .record(categoryKey(), trackingName(), keyError)
    .refine(oneOrTwo, { error: `must name 1 to ${TRACKING_CATEGORIES_MAX} categories` })
    .describe('{category: option}, e.g. {Division: Cafe}');

/** A posted or drafted line's tracking as the API shows it: category name → option name. */
export const lineTrackingOut = z.record(z.string(), z.string());

/**
 * A report's tracking filter: category name → option name, or null for the lines with no option
 * in that category (unassigned). Two categories: lines matching both.
 */
export const reportTracking = () =>
  z
    .record(categoryKey(), trackingName().nullable(), keyError)
    .refine(oneOrTwo, { error: `must name 1 to ${TRACKING_CATEGORIES_MAX} categories` })
    .describe('{category: option, or null: unassigned}');

/** The reports that take a tracking filter. */
export const TRACKED_REPORTS = ['profit_and_loss', 'trial_balance', 'balance_sheet', 'account_transactions', 'budget_vs_actual'] as const;

export const trackingOption = z.object({
  id: z.string(),
  name: z.string(),
  /** Archived: kept in reports and filters, refused on new lines. */
  archived: z.boolean(),
});

export const trackingCategory = z.object({
  id: z.string(),
  name: z.string(),
  /** The options in the order they were added. */
  options: z.array(trackingOption),
});

const optionInput = z.strictObject({
  name: trackingName().describe('Option; added if new'),
  newName: trackingName().optional().describe('Rename it'),
  archived: z.boolean().optional().describe('true archives, false restores'),
});

export const trackingSet = method({
  name: 'books.trackingSet',
  scope: 'books.write',
  kind: 'write',
  summary: `Set up a tracking category (extension beyond the core contract): category names it, created when new (at most ${TRACKING_CATEGORIES_MAX} an organisation, else CONFLICT), newName renames it; options (1–${TRACKING_OPTIONS_MAX}) each name an option, added when new (at most ${TRACKING_OPTIONS_MAX} a category), newName renames it, archived true archives it (it stays in reports and filters, new lines refuse it) and false restores it. Names are unique in their category, case and accents ignored. A name already renamed to its newName is found by the new name, so the same call again is a no-op. Lines of books.invoiceDraft, books.billCapture, books.journalPost and books.lineSplit name options as tracking {category: option}; books.reports filters by them; books.accounts lists the categories.`,
  brief: `Create or rename a tracking category (max ${TRACKING_CATEGORIES_MAX}, e.g. Division) and add, rename or archive its options; the same again: no-op.`,
  params: z
    .strictObject({
      category: trackingName().describe('Name; created if new'),
      newName: trackingName().optional().describe('Rename the category'),
      options: z
        .array(optionInput)
        .min(1, { error: 'must have at least 1 option' })
        .max(TRACKING_OPTIONS_MAX, { error: `must have at most ${TRACKING_OPTIONS_MAX} options` })
        .optional()
        .describe(`1-${TRACKING_OPTIONS_MAX}`),
    })
    .superRefine((p, ctx) => {
      if (p.newName === undefined && p.options === undefined) {
        ctx.addIssue({ code: 'custom', path: ['options'], message: 'give options or newName' });
      }
    }),
  result: z.object({
    category: trackingCategory,
    /** This call's event; on a no-op the event that last changed the category. */
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});
