import { z } from 'zod';
import { ACTION_CLASS } from '../signature.js';
import { limits } from '../limits.js';
import { TAX_CODE_NAMES, type TaxCode } from '../tax.js';
import { accountCode } from './aba-fields.js';
import { cents, holdFrame, id, isoDate, method, multilineText, pageLimit, singleLine, withProof } from './index-fields.js';
import type { MethodSpec } from './types.js';
import { assetInput } from './assets.js';
import { lineTracking, lineTrackingOut } from './tracking.js';
import { attachmentsField, attachmentsParam } from './attachments.js';
import { UPLOAD_BYTES_MAX, uploadBase64, uploadFileName, uploadMimeType } from './upload-fields.js';

/**
 * Reconciliation: bank feed lines in, matched to documents or recoded to accounts; receipts;
 * manual journals. The state machine, postings and a worked statement are in
 * docs/examples/reconciliation.md.
 */

/** Bounds of this area (the wire contract's limits.ts holds the shared ones). */
export const feedLimits = {
  linesMax: 5000,
  /** A bank export as text; the request body is at most 1 MiB in all. */
  fileCharsMax: 1_000_000,
  referenceCharsMax: 200,
  /** Suggestions per line, and lines of a feedLines result that carry them. */
  suggestionsPerLineMax: 3,
  suggestedLinesMax: 200,
  /** Decoded receipt size (upload-fields.ts: every uploaded file's). */
  receiptBytesMax: UPLOAD_BYTES_MAX,
  journalLinesMax: 100,
} as const;

export const BANK_LAYOUTS = ['cba', 'westpac', 'westpac_col', 'nab', 'anz'] as const;
export type BankLayout = (typeof BANK_LAYOUTS)[number];

export const feedLineStatus = z.enum(['unmatched', 'part_matched', 'held', 'matched', 'recoded']);
export const matchTargetKind = z.enum(['invoice', 'bill', 'claim', 'journal']);
/**
 * What an allocation of a line names: a match target, the other line of a
 * transfer (books.transferMatch), or an account a part of a split line was coded to (books.lineSplit).
 */
export const allocationKind = z.enum([...matchTargetKind.options, 'transfer', 'account']);

/** A signed amount: + money into the account, − money out; never 0. */
const signedCents = () =>
  z
    .number({ error: 'must be an integer number of cents' })
    .int({ error: 'must be an integer number of cents' })
    .min(-limits.centsMax, { error: `must be at least -${limits.centsMax}` })
    .max(limits.centsMax, { error: `must be at most ${limits.centsMax}` })
    .refine((n) => n !== 0, { error: 'must not be 0 (+ money in, − money out)' });

const balanceCents = () =>
  z
    .number({ error: 'must be an integer number of cents' })
    .int({ error: 'must be an integer number of cents' })
    .min(-limits.centsMax, { error: `must be at least -${limits.centsMax}` })
    .max(limits.centsMax, { error: `must be at most ${limits.centsMax}` });

const feedLineInput = z.strictObject({
  date: isoDate().describe('Date'),
  amountCents: signedCents().describe('+ in, - out'),
  description: multilineText(limits.textCharsMax).describe("Bank's text"),
  reference: singleLine(z.string().max(feedLimits.referenceCharsMax)).optional().describe("Bank's ref"),
  balanceCents: balanceCents().optional().describe('Balance after'),
});

const feedFile = z.strictObject({
  format: z.enum(['csv', 'ofx', 'qif'], { error: 'must be one of csv, ofx, qif' }).describe('File format'),
  bank: z
    .enum(BANK_LAYOUTS, { error: `must be one of ${BANK_LAYOUTS.join(', ')}` })
    .optional()
    .describe('CSV layout'),
  content: z.string().min(1, { error: 'must not be empty' }).max(feedLimits.fileCharsMax).describe('File text'),
});

const matchTarget = z.strictObject({
  kind: matchTargetKind.describe('invoice in; bill, claim out'),
  id: id().describe('Document id (inv_, bill_, clm_, jnl_…)'),
});

export const suggestion = z.object({
  /** transfer: id is the opposite line on another bank account (books.transferMatch). */
  kind: z.enum([...matchTargetKind.options, 'transfer']),
  id: z.string(),
  party: z.string(),
  reference: z.string(),
  /** What is still owed on the document (for a journal: its net on the bank account, unsigned). */
  outstandingCents: z.number().int(),
  dueOn: z.string().nullable(),
  /** 0–100: exact amount 60 (part of the line or of the document: 10–20), reference 25 (id, reference, or an invoice's number or document's own reference), payee up to 15. */
  score: z.number().int(),
  reasons: z.array(z.enum(['amount', 'partial_amount', 'reference', 'payee'])),
  /** Days between the line's date and the document's due date (journal: its date); breaks ties. */
  daysApart: z.number().int(),
});

export const feedLine = z.object({
  id: z.string(),
  accountCode: z.string(),
  date: z.string(),
  amountCents: z.number().int(),
  description: z.string(),
  reference: z.string().nullable(),
  balanceCents: z.number().int().nullable(),
  status: feedLineStatus,
  /** Unsigned: how much of the line is applied to documents, and what is left. */
  matchedCents: z.number().int(),
  remainingCents: z.number().int(),
  matches: z.array(
    z.object({
      id: z.string(),
      kind: allocationKind,
      targetId: z.string(),
      amountCents: z.number().int(),
      journalId: z.string(),
      /** The match's event (its payload names the human's approval when one was needed). */
      ledgerId: z.string(),
    }),
  ),
  /** A match above the materiality floor waiting for books.matchHoldResolve. */
  held: z.object({ kind: matchTargetKind, targetId: z.string(), amountCents: z.number().int() }).nullable(),
  recode: z
    .object({
      accountCode: z.string(),
      taxCode: z.string(),
      gstCents: z.number().int(),
      journalId: z.string(),
    })
    .nullable(),
  importId: z.string(),
  /** The event that moved the line into its current status. */
  ledgerId: z.string(),
});

export const feedLines = method({
  name: 'books.feedLines',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Import bank lines into a bank account (accountCode, default 1000): either lines (1–5000 of date, amountCents signed: + money in, − money out, description, reference?, balanceCents?) or file {format: csv | ofx | qif, bank (csv only: cba, westpac, westpac_col, nab, anz; detected when omitted), content}. Each new line is bln_… with status unmatched; nothing is posted until a line is matched or recoded, so the ledger's bank account holds what is reconciled and unreconciled lines are listed by books.feedLinesList. A line already imported (same account, date, amount, description, reference and occurrence among identical lines of one file) is a duplicate, never imported twice; importing nothing new is a no-op. Rows a file repeats byte for byte with the same running balance or bank reference are export duplicates (skipped, listed); identical rows without such evidence are kept and listed as possibleDuplicates. suggestions ranks open documents for the first 200 imported lines.",
  brief: 'Import bank lines or a CSV/OFX/QIF export; repeats skipped. Posts nothing: match or recode each line next.',
  params: z
    .strictObject({
      accountCode: accountCode().optional().describe('Default 1000'),
      lines: z
        .array(feedLineInput)
        .min(1, { error: 'must have at least 1 line' })
        .max(feedLimits.linesMax, { error: `must have at most ${feedLimits.linesMax} lines` })
        .optional()
        .describe('1-5000; or file'),
      file: feedFile.optional().describe('Or lines'),
    })
    .superRefine((p, ctx) => {
      if ((p.lines === undefined) === (p.file === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['lines'], message: 'give either lines or file' });
      }
      if (p.file?.bank !== undefined && p.file.format !== 'csv') {
        ctx.addIssue({ code: 'custom', path: ['file', 'bank'], message: 'is only for format csv' });
      }
    }),
  result: z.object({
    importId: z.string().nullable(),
    accountCode: z.string(),
    received: z.number().int(),
    imported: z.number().int(),
    duplicates: z.number().int(),
    lineIds: z.array(z.string()),
    duplicateLineIds: z.array(z.string()),
    skipped: z.array(
      z.object({
        index: z.number().int(),
        reason: z.enum(['export_duplicate', 'zero_amount']),
        duplicateOf: z.number().int().nullable(),
      }),
    ),
    possibleDuplicates: z.array(z.object({ index: z.number().int(), sameAs: z.number().int() })),
    suggestions: z.array(z.object({ lineId: z.string(), candidates: z.array(suggestion) })),
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});

export const feedLinesList = method({
  name: 'books.feedLinesList',
  scope: 'books.read',
  kind: 'read',
  summary:
    "List bank feed lines, oldest first, with up to 3 ranked suggestions each (suggestions: false to leave them out): money in against open invoices, money out against open bills and expense claims, and either against bank postings no line is matched to yet (journal: a payment recorded directly or a payment run). Exact amount scores 60; the document's id or reference, an invoice's number (INV-0042, as whole words: not INV-00421) or a document's own reference quoted in the line's description or reference 25; payee name words up to 15; nearer dates break ties. status: unreconciled (default: unmatched, part_matched and held), one status, or all. summary gives the bank account's ledger balance and what the unreconciled lines add up to.",
  brief: 'Bank lines with up to 3 suggested matches; default unreconciled.',
  params: z.strictObject({
    status: z
      .enum(['unreconciled', 'all', ...feedLineStatus.options])
      .optional()
      .describe('Default unreconciled'),
    accountCode: accountCode().optional().describe('Default 1000'),
    from: isoDate().optional().describe('From'),
    to: isoDate().optional().describe('Up to'),
    suggestions: z.boolean().optional().describe('Default true'),
    cursor: id().optional().describe('nextCursor'),
    limit: pageLimit().optional().describe('1-200 (50)'),
  }),
  result: z.object({
    lines: z.array(feedLine.extend({ suggestions: z.array(suggestion) })),
    nextCursor: z.string().nullable(),
    summary: z.object({
      accountCode: z.string(),
      ledgerBalanceCents: z.number().int(),
      unreconciledLines: z.number().int(),
      /** Signed sum of what is not yet in the ledger (the remaining part of each line). */
      unreconciledCents: z.number().int(),
    }),
  }),
});

const matchResult = z.object({
  lineId: z.string(),
  status: feedLineStatus,
  line: feedLine,
  /** The allocation this call made (or, for a no-op, the one it found). */
  match: feedLine.shape.matches.element.nullable(),
  document: z
    .object({
      kind: matchTargetKind,
      id: z.string(),
      status: z.string(),
      outstandingCents: z.number().int(),
    })
    .nullable(),
  /** Why a line is held, and what to do next. */
  message: z.string().nullable(),
  ledgerId: z.string(),
  noop: z.boolean().optional(),
});

export const matchAccept = method({
  name: 'books.matchAccept',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Match a bank line to a document: target {kind: invoice (money in), bill or claim (money out), or journal (a bank posting already in the ledger, e.g. a payment recorded directly or a payment run), id}. amountCents (default what is left of the line) is applied to the document: less than it owes is a part payment; more is BAD_REQUEST; apply a line to several documents with several calls. Posts the payment dated the line's date (invoice: Dr bank / Cr 1100; bill: Dr 2000 / Cr bank; claim: Dr 2500 / Cr bank; journal: nothing). A line above the materiality floor (policy materialityFloorCents) is not matched: it becomes held and the answer says to use books.matchHoldResolve. The same line and target again is a no-op; another target for a matched or held line is CONFLICT.",
  brief:
    'Match a bank line to the document or bank journal it pays; posts on the line date (less = part payment). Above the materiality floor: held, see books.matchHoldResolve.',
  params: z.strictObject({
    lineId: id().describe('Line id'),
    target: matchTarget.describe('What the line pays'),
    amountCents: cents().optional().describe('Default: rest of line'),
  }),
  result: matchResult,
});

export const matchHoldResolve = method({
  name: 'books.matchHoldResolve',
  scope: 'books.write',
  kind: 'signature',
  actionClass: ACTION_CLASS.matchHoldResolve,
  summary:
    'Complete a match (as books.matchAccept, same params) for a line above the materiality floor: a signature act. Without proof it answers with the hold frame; after a human approves, retry with approvalId or signatureToken. A line at or below the floor is matched at once.',
  brief: 'Complete a match books.matchAccept held (above the materiality floor), same params; posts once a human approves.',
  params: withProof({
    lineId: id().describe('Line id'),
    target: matchTarget.describe('What the line pays'),
    amountCents: cents().optional().describe('Default: rest of line'),
  }),
  result: z.union([matchResult, holdFrame]),
});

export const receiptsRegister = method({
  name: 'books.receiptsRegister',
  scope: 'books.write',
  kind: 'write',
  summary:
    'Store a receipt (a photo or PDF, contentBase64 decoding to at most 700 KiB) with its SHA-256, optionally linked to a bank line (lineId) or an expense claim (claimId). The same bytes again are the same receipt: a no-op returning its id (rcpt_…), or a new link when another line or claim is given. The event records sha256, size and mimeType, never the bytes.',
  brief: "Store a receipt photo or PDF; its rcpt_ id is a claim's receiptRef.",
  params: z
    .strictObject({
      contentBase64: uploadBase64().describe('Base64, max 700 KiB'),
      filename: uploadFileName().describe('File name'),
      mimeType: uploadMimeType().describe('e.g. image/jpeg'),
      lineId: id().optional().describe('Line id'),
      claimId: id().optional().describe('Or lineId'),
    })
    .refine((p) => p.lineId === undefined || p.claimId === undefined, {
      error: 'give lineId or claimId, not both',
      path: ['claimId'],
    }),
  result: z.object({
    id: z.string(),
    sha256: z.string(),
    sizeBytes: z.number().int(),
    mimeType: z.string(),
    filename: z.string(),
    links: z.array(z.object({ kind: z.enum(['line', 'claim']), id: z.string() })),
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});

/** Tax codes a bank line may be recoded with: sales, purchases, or BAS_EXCLUDED (not the W labels). */
export const RECODE_TAX_CODES = TAX_CODE_NAMES.filter(
  (c) => c !== 'BAS_EXCLUDED_WAGES' && c !== 'BAS_EXCLUDED_PAYGW',
) as readonly TaxCode[];

const taxCodeOf = (codes: readonly TaxCode[]) => z.enum(codes as [TaxCode, ...TaxCode[]], { error: `must be one of ${codes.join(', ')}` });

export const lineRecode = method({
  name: 'books.lineRecode',
  scope: 'books.write',
  kind: 'new-act',
  summary:
    "Code a bank line with nothing applied to documents (unmatched or recoded; a held line waits for books.matchHoldResolve and a human, CONFLICT) straight to an account: bank fees, interest, owner drawings, a card purchase. Posts, dated the line's date, money out: Dr account (net) + Dr 1200 GST paid / Cr bank; money in: Dr bank / Cr account (net) + Cr 2100 GST collected (purchase codes use 1200, sale codes 2100; a purchase code on money in is a refund, its tags negative). GST is 1/11 of the line for GST codes. taxCode defaults to INPUT_TAXED_EXPENSE for 6300 Bank fees, INPUT_TAXED for 4100 Interest income, else BAS_EXCLUDED (no credit is claimed without a code). Recoding again reverses the previous recode journal and posts the new one. Each call is a new act.",
  brief: 'Code a bank line with no document (fees, interest, drawings) to an account; again replaces it.',
  params: z.strictObject({
    lineId: id().describe('Line id'),
    accountCode: accountCode().describe('Account code'),
    taxCode: taxCodeOf(RECODE_TAX_CODES).optional().describe('Default by account'),
    description: multilineText(limits.textCharsMax).optional().describe('What the money was for'),
  }),
  result: z.object({
    lineId: z.string(),
    status: z.literal('recoded'),
    line: feedLine,
    accountCode: z.string(),
    taxCode: z.string(),
    gstCents: z.number().int(),
    journalId: z.string(),
    /** The recode journal this one replaced, and the journal that reversed it. */
    reversedJournalId: z.string().nullable(),
    reversalJournalId: z.string().nullable(),
    ledgerId: z.string(),
  }),
});

const journalLineInput = z
  .strictObject({
    accountCode: accountCode().describe('Account code'),
    debitCents: cents().optional().describe('Or creditCents'),
    creditCents: cents().optional().describe('Or debitCents'),
    taxCode: taxCodeOf(TAX_CODE_NAMES).optional().describe('Makes amount GST-incl.'),
    description: multilineText(limits.textCharsMax).optional().describe('Line text'),
    /** A debit line coded to 1500 registers a fixed asset (assets.ts). */
    asset: assetInput.optional().describe('Needed on a 1500 debit'),
    tracking: lineTracking().optional(),
  })
  .refine((l) => (l.debitCents === undefined) !== (l.creditCents === undefined), {
    error: 'give exactly one of debitCents and creditCents',
    path: ['debitCents'],
  });

export const journalPost = method({
  name: 'books.journalPost',
  scope: 'books.write',
  kind: 'new-act',
  summary:
    'Post a manual journal (date not in the future; memo; 2–100 lines of accountCode and exactly one of debitCents or creditCents, taxCode?, description?). Debits must equal credits. Amounts on a line with a GST code are GST-inclusive: the server posts the net to the account and the GST (1/11, rounded once per GST account and side of the journal) to 1200 GST paid (purchase codes) or 2100 GST collected (sale codes), tagging the line for the BAS. Control accounts (1100, 2000, 2500) are refused: their documents settle through their own methods. A debit line on 1500 Plant and equipment must carry asset {name, effectiveLifeYears 1–50, method prime_cost | diminishing_value} and registers a fixed asset (cost: its GST-exclusive amount; start: date; assetIds in the result); 1500 is not credited and 1510 is not posted here (books.assetDispose and books.assetDepreciationRun do). Each call posts a new journal; send an x-idempotency-key to make a retry safe. Extension: attachments (1–10 files as books.attachmentAdd takes them) are kept with it, their SHA-256, name, type and size in its event. Extension: a line may carry tracking {category: option} (books.trackingSet).',
  extendedParams: ['attachments'],
  brief:
    'Post a balanced manual journal (GST-coded lines GST-inclusive); 1100, 2000, 2500 refused; a 1500 debit adds an asset. Undo: books.journalReverse.',
  params: z
    .strictObject({
      date: isoDate().describe('Not future'),
      memo: multilineText(500).describe('What the journal is for'),
      lines: z
        .array(journalLineInput)
        .min(2, { error: 'must have at least 2 lines' })
        .max(feedLimits.journalLinesMax, {
          error: `must have at most ${feedLimits.journalLinesMax} lines`,
        })
        .describe('2-100, balanced'),
      attachments: attachmentsParam(),
    })
    .superRefine((p, ctx) => {
      // Zod runs this even when a line failed (a validation error lists every problem); totals of lines already
      // named as wrong (too few, both sides or neither, not a positive amount) would only add noise.
      const sound = (v: number | undefined) => v === undefined || (Number.isSafeInteger(v) && v > 0);
      const malformed = (l: (typeof p.lines)[number]) =>
        (l.debitCents === undefined) === (l.creditCents === undefined) || !sound(l.debitCents) || !sound(l.creditCents);
      if (p.lines.length < 2 || p.lines.some(malformed)) return;
      let dr = 0;
      let cr = 0;
      for (const l of p.lines) {
        dr += l.debitCents ?? 0;
        cr += l.creditCents ?? 0;
      }
      if (dr !== cr)
        ctx.addIssue({
          code: 'custom',
          path: ['lines'],
          message: `debits (${dr}) must equal credits (${cr})`,
        });
    }),
  result: z.object({
    journalId: z.string(),
    date: z.string(),
    memo: z.string(),
    totalCents: z.number().int(),
    lines: z.array(
      z.object({
        accountCode: z.string(),
        debitCents: z.number().int(),
        creditCents: z.number().int(),
        taxCode: z.string().nullable(),
        taxBaseCents: z.number().int(),
        gstCents: z.number().int(),
        description: z.string(),
        tracking: lineTrackingOut.optional(),
      }),
    ),
    /** Fixed assets registered by this journal's 1500 lines (absent when none). */
    assetIds: z.array(z.string()).optional(),
    /** Files kept with it (absent when none). */
    attachments: attachmentsField(),
    ledgerId: z.string(),
  }),
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const reconciliationMethods = [
  feedLines,
  feedLinesList,
  matchAccept,
  matchHoldResolve,
  receiptsRegister,
  lineRecode,
  journalPost,
] as const satisfies readonly MethodSpec[];
