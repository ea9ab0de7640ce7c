import { z } from 'zod';
import { limits } from '../limits.js';
import { cents, id, isoDate, method, text } from './index-fields.js';
import { saleTaxCode } from './sale-fields.js';
import type { MethodSpec } from './types.js';

/**
 * Fixed assets: registered by a bill line or a manual journal line coded to 1500 Plant and
 * equipment that carries `asset` details, depreciated by month-end runs (prime cost or diminishing
 * value, by days held over 365), disposed of with the gain or loss posted. A bill line or an
 * expense claim on 1500 without details puts a pending asset on the register (on 1500 at cost, not
 * depreciated) until books.assetRegister gives its details. Postings and the state machine:
 * docs/books.md "Fixed assets"; a worked example: docs/examples/assets.md.
 */

export const ASSET_METHODS = ['prime_cost', 'diminishing_value'] as const;
export type AssetMethod = (typeof ASSET_METHODS)[number];

export const assetLimits = {
  effectiveLifeYearsMin: 1,
  effectiveLifeYearsMax: 50,
} as const;

/**
 * How the income tax return deducts an asset, beside the book schedule: instant_write_off (the
 * whole cost in the income year first used, when below that year's threshold; otherwise pooled,
 * as the simplified depreciation rules do), small_business_pool, or same_as_book (the book
 * depreciation). Reported by books.reports depreciation_schedule.
 */
export const TAX_TREATMENTS = ['same_as_book', 'instant_write_off', 'small_business_pool'] as const;
export type TaxTreatment = (typeof TAX_TREATMENTS)[number];

export const taxTreatment = () =>
  z.enum(TAX_TREATMENTS, { error: `must be one of ${TAX_TREATMENTS.join(', ')}` }).describe('Default same_as_book');

/** The fixed-asset account: a line coded to it registers an asset (pending when it has no `asset`). */
export const FIXED_ASSET_ACCOUNT = '1500';

const lifeYears = () =>
  z
    .number({ error: 'must be an integer number of years' })
    .int({ error: 'must be an integer number of years' })
    .min(assetLimits.effectiveLifeYearsMin, { error: `must be an integer from 1 to ${assetLimits.effectiveLifeYearsMax}` })
    .max(assetLimits.effectiveLifeYearsMax, { error: `must be an integer from 1 to ${assetLimits.effectiveLifeYearsMax}` });

/** What a bill line or journal line coded to 1500 carries. */
export const assetInput = z.strictObject({
  name: text(limits.nameCharsMax).describe('Asset name'),
  effectiveLifeYears: lifeYears().describe('Whole years, 1-50'),
  method: z.enum(ASSET_METHODS, { error: `must be one of ${ASSET_METHODS.join(', ')}` }).describe('Depreciation method'),
  taxTreatment: taxTreatment().optional(),
});

/**
 * A fixed asset the business holds at its conversion (books.openingBalances `assets`): on 1500 at
 * cost and 1510 at the depreciation the old books took to the conversion date; the register
 * depreciates it from the day after, from that written-down value.
 */
export const openingAsset = z
  .strictObject({
    name: text(limits.nameCharsMax).describe('Asset name'),
    acquiredDate: isoDate().describe('First used'),
    costCents: cents().describe('GST-exclusive cost'),
    accumulatedDepreciationCents: z
      .number({ error: 'must be an integer number of cents' })
      .int({ error: 'must be an integer number of cents' })
      .min(0, { error: 'must be an integer of at least 0' })
      .max(limits.centsMax, { error: `must be at most ${limits.centsMax}` })
      .describe('At conversion'),
    effectiveLifeYears: lifeYears().describe('Whole years, 1-50'),
    method: z.enum(ASSET_METHODS, { error: `must be one of ${ASSET_METHODS.join(', ')}` }).describe('Book method'),
    taxTreatment: taxTreatment().optional(),
  })
  .superRefine((a, ctx) => {
    if (
      Number.isSafeInteger(a.costCents) &&
      Number.isSafeInteger(a.accumulatedDepreciationCents) &&
      a.accumulatedDepreciationCents > a.costCents
    )
      ctx.addIssue({ code: 'custom', path: ['accumulatedDepreciationCents'], message: `must not be more than costCents (${a.costCents})` });
  });

/** pending: on 1500 at cost, awaiting books.assetRegister (its name, life and method); not depreciated. */
export const assetStatus = z.enum(['pending', 'active', 'disposed']);

const int = () => z.number().int();

/** Proceeds of a disposal: zero (scrapped) or more, in cents. */
const proceeds = () =>
  z
    .number({ error: 'must be an integer number of cents' })
    .int({ error: 'must be an integer number of cents' })
    .min(0, { error: 'must be an integer of at least 0' })
    .max(limits.centsMax, { error: `must be at most ${limits.centsMax}` });

const monthEndExample = 'the last day of a month, e.g. 2026-06-30';

export const assetDepreciationRun = method({
  name: 'books.assetDepreciationRun',
  scope: 'books.write',
  kind: 'write',
  summary: `Depreciate every active fixed asset to periodEnd (${monthEndExample}; not in the future). Each asset is depreciated for the days it was held from the day after the previous run's periodEnd (or its start date) to periodEnd, over 365: prime cost = cost × days/365 ÷ life; diminishing value = (cost − depreciation so far) × days/365 × 2 ÷ life; rounded half up to a cent per asset, never below a book value of zero. Posts one journal dated periodEnd: Dr 6400 Depreciation / Cr 1510 Accumulated depreciation per asset (docId = the asset). Pending assets (captured without their effective life) are skipped and counted in pendingSkipped; once registered, the next run depreciates them from their start date. A run for a periodEnd already run is a no-op returning that run; a periodEnd before the last run's is CONFLICT. journalId is null when nothing was depreciated.`,
  brief: 'Depreciate active assets up to a month end: one journal, Dr 6400 / Cr 1510.',
  params: z.strictObject({ periodEnd: isoDate().describe('Month end') }),
  result: z.object({
    runId: z.string(),
    periodEnd: z.string(),
    assets: z.array(z.object({ assetId: z.string(), amountCents: int() })),
    totalCents: int(),
    /** Pending assets (started by periodEnd, awaiting books.assetRegister) the run did not depreciate. */
    pendingSkipped: int(),
    journalId: z.string().nullable(),
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});

export const assetDispose = method({
  name: 'books.assetDispose',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Dispose of (sell or scrap) an active fixed asset (a pending one is CONFLICT: register it first) on date (not before it started, not in the future, not before the last depreciation run that covered it). Depreciates it to that date first, then in one journal dated date: Dr 6400 / Cr 1510 (depreciation to date), Dr 1510 (all its accumulated depreciation) / Cr 1500 (its cost), Dr 1000 Business bank account with proceedsCents (GST-inclusive; tagged with taxCode, default GST, so the BAS counts the sale at G1 and its GST at 1A), Cr 2100 with the GST (1/11 when taxCode is GST), and the difference between the GST-exclusive proceeds and the book value as Cr 4300 Gain on disposal or Dr 7100 Loss on disposal. Disposing of a disposed asset is a no-op.',
  brief: 'Sell or scrap an active asset: depreciates to date, proceeds into 1000, posts the gain or loss.',
  params: z.strictObject({
    id: id().describe('Asset id'),
    date: isoDate().describe('Not future'),
    proceedsCents: proceeds().describe('GST-incl.; 0 if scrapped'),
    taxCode: saleTaxCode().optional().describe('Default GST'),
  }),
  result: z.object({
    id: z.string(),
    status: z.literal('disposed'),
    date: z.string(),
    proceedsCents: int(),
    taxCode: z.string(),
    gstCents: int(),
    /** Depreciation from the last run (or the start) to the disposal date, posted in the same journal. */
    depreciationCents: int(),
    /** Cost less all accumulated depreciation, at the disposal date. */
    bookValueCents: int(),
    gainCents: int(),
    lossCents: int(),
    journalId: z.string(),
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});

export const asset = z.object({
  id: z.string(),
  /** A pending asset's is its document line's description until books.assetRegister names it. */
  name: z.string(),
  /** Null while pending. */
  method: z.enum(ASSET_METHODS).nullable(),
  /** Null while pending. */
  effectiveLifeYears: int().nullable(),
  startDate: z.string(),
  costCents: int(),
  /** Depreciation posted on or before asOf (at disposal: up to the disposal date). */
  accumulatedDepreciationCents: int(),
  /** cost − accumulated depreciation while held; 0 once disposed of (it has left 1500 and 1510). */
  bookValueCents: int(),
  status: assetStatus,
  taxTreatment: z.enum(TAX_TREATMENTS),
  /** First used: its start date, or for an asset carried in by books.openingBalances the date it was acquired. */
  acquiredDate: z.string(),
  /**
   * The document that registered it: a bill (its approval), a manual journal, an expense claim (its
   * approval) or the conversion (opening_balances: id is the organisation, startDate the conversion date).
   */
  source: z.object({
    kind: z.enum(['bill', 'journal', 'expense_claim', 'opening_balances']),
    id: z.string(),
    lineNo: int(),
    journalId: z.string(),
  }),
  disposal: z
    .object({
      date: z.string(),
      proceedsCents: int(),
      taxCode: z.string(),
      gstCents: int(),
      gainCents: int(),
      lossCents: int(),
      journalId: z.string(),
      /** Sold by an invoice line (assetId): the invoice; absent for books.assetDispose. */
      invoiceId: z.string().optional(),
    })
    .nullable(),
  ledgerId: z.string(),
});

export const assets = method({
  name: 'books.assets',
  scope: 'books.read',
  kind: 'read',
  summary:
    "The fixed asset register as at asOf (default today): every asset registered on or before asOf with its method, effective life, start date, cost, accumulated depreciation and book value as at asOf, status (pending: captured on 1500 without its effective life, awaiting books.assetRegister, method and effectiveLifeYears null; active; or disposed when its disposal is dated on or before asOf) and disposal details. totals.bookValueCents equals the ledger's 1500 Plant and equipment less 1510 Accumulated depreciation as at asOf (pending assets included, at cost); pending counts them and their cost. Filter by status.",
  brief: 'Fixed asset register as at a date: cost, depreciation, book value, status.',
  params: z.strictObject({
    asOf: isoDate().optional().describe('Default today'),
    status: assetStatus.optional().describe('Status'),
  }),
  result: z.object({
    asOf: z.string(),
    assets: z.array(asset),
    /** Over assets held at asOf (disposed ones excluded; pending ones included): 1500, 1510 and their difference. */
    totals: z.object({ costCents: int(), accumulatedDepreciationCents: int(), bookValueCents: int() }),
    /** Pending assets at asOf, awaiting books.assetRegister: how many and their cost (part of totals). */
    pending: z.object({ count: int(), costCents: int() }),
  }),
});

export const assetRegister = method({
  name: 'books.assetRegister',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Register a pending fixed asset (one a bill line or an expense claim put on 1500 Plant and equipment without asset details): give its name, effectiveLifeYears (1–50) and method (prime_cost | diminishing_value), as a bill line's asset. It becomes active with its start date unchanged (its document's date), so the next books.assetDepreciationRun depreciates it from then. Posts nothing: it is on 1500 at cost already. An asset already registered (active or disposed) is CONFLICT; another organisation's is NOT_FOUND.",
  brief: 'Give a pending asset its name, life and method; active from its start date. Posts nothing.',
  params: z.strictObject({ id: id().describe('Pending asset id'), ...assetInput.shape }),
  result: asset,
});

export const assetsMethods = [assetDepreciationRun, assetDispose, assets, assetRegister] as const satisfies readonly MethodSpec[];
