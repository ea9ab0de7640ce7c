import { z } from 'zod';
import { ACTION_CLASS } from '../signature.js';
import { holdFrame, id, isCalendarDate, isoDate, method, reason, withProof } from './index-fields.js';
import type { MethodSpec } from './types.js';

/**
 * Tax: the Business Activity Statement (BAS) prepared from the ledger, held or returned, and
 * signed by a human and lodged through the lodgement adapter (docs/books.md "Tax (BAS)").
 * States: prepared → held → prepared (taxReturn) …; prepared → lodging (taxSignLodge with a human's
 * proof) → lodged (when the lodgement adapter confirms delivery, with its receipt). A held or
 * lodging BAS is never reported as lodged.
 */
export const BAS_STATUSES = ['prepared', 'held', 'lodging', 'lodged'] as const;
export const basStatus = z.enum(BAS_STATUSES);

export const BAS_BASES = ['accrual', 'cash'] as const;

/** The BAS front in whole dollars (cents dropped, never negative), as the form takes them. */
export const BAS_LABELS = ['G1', 'G2', 'G3', 'G10', 'G11', '1A', '1B', 'W1', 'W2'] as const;

const int = () => z.number().int();
const labels = z.object(
  Object.fromEntries(BAS_LABELS.map((l) => [l, int()])) as Record<(typeof BAS_LABELS)[number], ReturnType<typeof int>>,
);

export const basReturn = z.object({
  id: z.string(),
  status: basStatus,
  periodStart: z.string(),
  periodEnd: z.string(),
  /** `quarter` or `month`, from the period's length. */
  frequency: z.enum(['quarter', 'month']),
  basis: z.enum(BAS_BASES),
  /** Quarterly: the 28th of the month after the quarter (December quarter: 28 February); monthly: the 21st of the next month. */
  dueOn: z.string(),
  labels,
  /** The same labels (and G4, G7, G13–G15, G18) in exact cents, signed: what a bookkeeper reconciles to. */
  exactCents: z.record(z.string(), int()),
  /**
   * The summary in whole dollars: 4 = W2, 8A = 1A + 4, 8B = 1B, 9 = |8A − 8B|; position
   * payable / refundable / nil; net = 8A − 8B signed (negative: refundable by the ATO).
   */
  summary: z.object({
    '4': int(),
    '8A': int(),
    '8B': int(),
    '9': int(),
    position: z.enum(['payable', 'refundable', 'nil']),
    net: int(),
  }),
  /** net in cents (whole dollars × 100), signed: what the settlement journal posts to 2150. */
  netCents: int(),
  /** The last hold or return reason, else null. */
  note: z.string().nullable(),
  /** The BAS settlement journal, posted when signed; null before. */
  journalId: z.string().nullable(),
  /** The lodgement adapter's receipt, once (and only once) the BAS is `lodged`. */
  receipt: z.object({ fileName: z.string(), sha256: z.string(), lodgedAt: z.string() }).nullable(),
  preparedAt: z.string(),
  /** The event that moved the BAS into its current status. */
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

const MONTHS_OF = { quarter: 3, month: 1 } as const;

function lastDayOf(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A BAS period: whole months, a calendar month or a quarter of the financial year. */
function checkBasPeriod(p: { periodStart: string; periodEnd: string }, ctx: z.RefinementCtx): void {
  const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
  if (!isCalendarDate(p.periodStart) || !isCalendarDate(p.periodEnd)) return;
  const [sy, sm, sd] = p.periodStart.split('-').map(Number) as [number, number, number];
  const [ey, em, ed] = p.periodEnd.split('-').map(Number) as [number, number, number];
  let whole = true;
  if (sd !== 1) {
    issue('periodStart', 'must be the first day of a month');
    whole = false;
  }
  if (ed !== lastDayOf(ey, em)) {
    issue('periodEnd', 'must be the last day of a month');
    whole = false;
  }
  if (!whole) return;
  const months = (ey - sy) * 12 + (em - sm) + 1;
  if (months === MONTHS_OF.month) return;
  if (months === MONTHS_OF.quarter && sm % 3 === 1) return;
  issue('periodEnd', 'the period must be one calendar month or a quarter (Jul–Sep, Oct–Dec, Jan–Mar, Apr–Jun)');
}

export const taxPrepare = method({
  name: 'books.taxPrepare',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Prepare the BAS for a period that has ended (periodStart the first of a month, periodEnd the last day of the same month or of a quarter Jul–Sep, Oct–Dec, Jan–Mar, Apr–Jun) from the general ledger, as the GST summary report computes it (accounts method, adjustments of earlier periods in G7/G18): labels G1, G2, G3, G10, G11, 1A, 1B, W1, W2 in whole dollars (cents dropped, never negative), exactCents, the summary 4/8A/8B/9 and the signed net. W1/W2 are the lines tagged BAS_EXCLUDED_WAGES / BAS_EXCLUDED_PAYGW in the period. basis accrual (default: documents count when posted) or cash (a document counts as it is paid: each payment’s share of its GST-inclusive base and GST per tax code, integer cents by largest remainder; tagged lines with no document count on their date). One BAS per period: preparing a period whose BAS is prepared is a no-op returning it; a held, lodging or lodged BAS, or one of an overlapping period, is CONFLICT. Nothing is posted.',
  brief: 'Prepare the BAS of an ended month or quarter; posts nothing. Then books.taxSignLodge or books.taxHold.',
  params: z
    .strictObject({
      periodStart: isoDate().describe("A month's first day"),
      periodEnd: isoDate().describe('Month or quarter end'),
      basis: z
        .enum(BAS_BASES, { error: `must be one of ${BAS_BASES.join(', ')}` })
        .optional()
        .describe("Default: profile's basis"),
    })
    .superRefine(checkBasPeriod),
  result: basReturn,
});

export const taxHold = method({
  name: 'books.taxHold',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Hold a prepared BAS (a figure to check, a question for the accountant) so that it cannot be signed or lodged. Holding a held BAS is a no-op; a lodging or lodged BAS is CONFLICT. taxReturn brings it back.',
  brief: 'Hold a prepared BAS so it cannot be lodged until books.taxReturn.',
  params: z.strictObject({
    id: id().describe('BAS id'),
    reason: reason().describe('Why held'),
  }),
  result: basReturn,
});

export const taxReturn = method({
  name: 'books.taxReturn',
  scope: 'books.write',
  kind: 'new-act',
  summary:
    'Return a prepared or held BAS to prepared with its labels recomputed from the ledger now (after corrections). A new act every call. Any approval given for the BAS before is spent, so a human signs the figures as they are now. A lodging or lodged BAS is CONFLICT.',
  brief: 'Bring a BAS back to prepared with labels recomputed; any approval is spent. Lodged: CONFLICT.',
  params: z.strictObject({
    id: id().describe('BAS id'),
    reason: reason().describe('Why recomputed'),
  }),
  result: basReturn,
});

export const taxSignLodge = method({
  name: 'books.taxSignLodge',
  reachesOut: true,
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.taxSignLodge,
  summary:
    'Sign and lodge a prepared BAS: a signature act, always held for a human, who reads the period, every label and the net payable to or refundable by the ATO. With the proof: posts the BAS settlement journal dated periodEnd (Dr 2100 GST collected, Cr 1200 GST paid, Dr 2200 PAYG withholding for W2, the net to 2150 ATO integrated client account in whole dollars, the cents dropped to 4200 as BAS rounding), status lodging, and queues the lodgement document (kind bas) through the lodgement adapter; the BAS becomes lodged with a receipt (file name and SHA-256) only when the adapter has delivered it. A held BAS is CONFLICT; a BAS whose labels no longer match the ledger is CONFLICT (taxReturn it); signing a lodging or lodged BAS again is a no-op.',
  brief: 'Sign and lodge a BAS: posts the settlement at periodEnd, queues lodgement. Stale labels: CONFLICT (books.taxReturn).',
  params: withProof({ id: id().describe('BAS id') }),
  result: z.union([basReturn, holdFrame]),
});

const basObligation = z.object({
  /** PAYG withholding is reported and paid on the BAS (W2, label 4). */
  kind: z.literal('bas'),
  id: z.string(),
  status: basStatus,
  periodStart: z.string(),
  periodEnd: z.string(),
  dueOn: z.string(),
  /** Not lodged (prepared, held or lodging) and due before asOf. */
  overdue: z.boolean(),
  labels,
  summary: basReturn.shape.summary,
  /** Signed: payable to the ATO positive, refundable negative (whole dollars in cents). */
  amountCents: int(),
  receipt: basReturn.shape.receipt,
});

/** The super guarantee of one signed pay run (2300 Superannuation payable). */
const superObligation = z.object({
  kind: z.literal('super_guarantee'),
  /** The pay run's id. */
  id: z.string(),
  /**
   * paid once a books.superPay dated on or before asOf paid it, or other payments to 2300 (after the
   * super carried in at conversion, oldest run first) cover it, as at asOf.
   */
  status: z.enum(['due', 'paid']),
  periodStart: z.string(),
  periodEnd: z.string(),
  paymentDate: z.string(),
  /** Payday Super: 7 days after the payment date from 1 July 2026; before, the 28th after the quarter. */
  dueOn: z.string(),
  /** Not paid in full and due before asOf. */
  overdue: z.boolean(),
  /** What the run credited to 2300: its super guarantee and any salary sacrificed to super. */
  amountCents: int(),
  outstandingCents: int(),
  /**
   * The books.superPay that paid the run, when dated on or before asOf; late when paid after dueOn.
   * Null when unpaid or paid by other payments to 2300.
   */
  paidBy: z.object({ superPaymentId: z.string(), paymentDate: z.string(), late: z.boolean() }).nullable(),
});

/**
 * A tax liability the organisation owed at its conversion (books.openingBalances): the credit the
 * opening balances put on 2300 (super_carried_in) or 2200 (payg_carried_in). It is older than any
 * pay run here, so it is first in line for payments to its account.
 */
const carriedInFields = {
  /** The opening balances journal's id. */
  id: z.string(),
  /** paid once payments to the account cover it, as at asOf. */
  status: z.enum(['due', 'paid']),
  conversionDate: z.string(),
  /** The account's opening credit. */
  amountCents: int(),
  outstandingCents: int(),
  /** Not paid in full and due before asOf. */
  overdue: z.boolean(),
};

const superCarriedIn = z.object({
  kind: z.literal('super_carried_in'),
  ...carriedInFields,
  accountCode: z.literal('2300'),
  /** As a pay run paid on the conversion date: Payday Super 7 days after it from 1 July 2026; before, the 28th after the quarter. */
  dueOn: z.string(),
});

const paygCarriedIn = z.object({
  kind: z.literal('payg_carried_in'),
  ...carriedInFields,
  accountCode: z.literal('2200'),
  /** The due date of the BAS period (the organisation's basFrequency) that holds the conversion date. */
  dueOn: z.string(),
});

export const obligation = z.discriminatedUnion('kind', [basObligation, superObligation, superCarriedIn, paygCarriedIn]);

export const taxObligations = method({
  name: 'books.taxObligations',
  scope: 'books.read',
  kind: 'read',
  summary:
    "The organisation's tax obligations, oldest first. Each BAS (kind bas) with its period, due date (quarterly: the 28th of the month after the quarter, the December quarter 28 February; monthly: the 21st of the next month), status, labels and signed amount (payable positive, refundable negative; PAYG withholding is paid with it, label 4); only a lodged BAS carries a receipt. Each signed pay run's super guarantee (kind super_guarantee) with its due date (Payday Super: 7 days after the payment date from 1 July 2026; for earlier payments the 28th of the month after the quarter), amount and what is still outstanding as at asOf. Liabilities carried in by books.openingBalances are obligations of their own, first in line for payments: the super owed at conversion (kind super_carried_in, 2300's opening credit, due as a run paid on the conversion date) and the PAYG withholding owed at conversion (kind payg_carried_in, 2200's opening credit, due with the BAS period holding the conversion date). A books.superPay settles exactly the runs it paid (paidBy: its id and date, late when after dueOn); other payments to 2300 Superannuation payable (its debits other than pay run recalls and super payments, less its credits other than pay runs' and the opening balances', such as a reversed payment) settle the super carried in, then the oldest runs not paid by a super payment, so the super outstanding (super_carried_in and super_guarantee together) equals 2300's balance (none when 2300 is in debit: paid ahead); payments to 2200 other than BAS settlements and recalls settle the PAYG carried in. from/to keep the BAS periods that overlap from..to and the pay runs paid in it (and the liabilities carried in at a conversion date in it); asOf (default today) decides overdue: a BAS not lodged, or super not paid in full, and due before asOf.",
  brief: 'BAS and super obligations: due dates, cents (refunds negative), overdue.',
  params: z
    .strictObject({
      asOf: isoDate().optional().describe('Default today'),
      from: isoDate().optional().describe('From'),
      to: isoDate().optional().describe('Up to'),
    })
    .superRefine((p, ctx) => {
      if (p.from !== undefined && p.to !== undefined && isCalendarDate(p.from) && isCalendarDate(p.to) && p.to < p.from) {
        ctx.addIssue({ code: 'custom', path: ['to'], message: `must be on or after from (${p.from})` });
      }
    }),
  result: z.object({ asOf: z.string(), obligations: z.array(obligation) }),
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const taxMethods = [taxPrepare, taxHold, taxReturn, taxSignLodge, taxObligations] as const satisfies readonly MethodSpec[];
