import { z } from 'zod';
import { limits } from '../limits.js';
import type { TaxCode } from '../tax.js';
import { accountCode, bankAccountNumber, bsb } from './aba-fields.js';
import { id, method, multilineText, text } from './index-fields.js';
import { feedLine, matchTargetKind, RECODE_TAX_CODES } from './reconciliation.js';
import type { MethodSpec } from './types.js';

/**
 * Bank, credit-card and loan accounts as records (issue 12 item 3). Each record owns one chart
 * account; 1000 Business bank account is the default one and is listed as one. Owners create
 * them (console or `finance-desk bank-account add`); agents read them (books.bankAccounts), feed
 * lines into them (books.feedLines accountCode), match transfers between them
 * (books.transferMatch) and split a line across documents and accounts (books.lineSplit).
 */

export const BANK_ACCOUNT_KINDS = ['bank', 'credit_card', 'loan'] as const;
export type BankAccountKind = (typeof BANK_ACCOUNT_KINDS)[number];

/**
 * Where each kind's chart accounts are numbered (an owner may choose a free code in the range;
 * otherwise the next free one is taken). A bank account is an asset; a card and a loan are
 * liabilities. Lines on every kind are signed the same way: + money into the account (a deposit,
 * a card repayment, a loan drawn... as the bank shows it), − money out (a payment, a card purchase).
 */
export const BANK_ACCOUNT_RANGES: Readonly<Record<BankAccountKind, { readonly from: number; readonly to: number; readonly type: 'asset' | 'liability' }>> = {
  bank: { from: 1010, to: 1099, type: 'asset' },
  credit_card: { from: 2610, to: 2699, type: 'liability' },
  loan: { from: 2700, to: 2799, type: 'liability' },
};

export const bankAccountLimits = {
  /** Records per organisation (besides 1000): bounded so the read is one small page. */
  accountsMax: 100,
  nameCharsMax: 100,
  /** Days two lines of a transfer may be apart (a transfer between banks can take a few days). */
  transferDaysMax: 7,
  splitPartsMin: 2,
  splitPartsMax: 20,
} as const;

/** What an owner gives to create one (console form, CLI flags, console JSON). */
export const bankAccountCreate = z
  .strictObject({
    kind: z.enum(BANK_ACCOUNT_KINDS, { error: `must be one of ${BANK_ACCOUNT_KINDS.join(', ')}` }),
    name: text(bankAccountLimits.nameCharsMax),
    bsb: bsb().optional(),
    accountNumber: bankAccountNumber().optional(),
    accountCode: accountCode().optional(),
  })
  .superRefine((p, ctx) => {
    if ((p.bsb === undefined) !== (p.accountNumber === undefined)) {
      const missing = p.bsb === undefined ? 'bsb' : 'accountNumber';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'give both bsb and accountNumber, or neither' });
    }
    const range = BANK_ACCOUNT_RANGES[p.kind];
    if (range && p.accountCode !== undefined && /^\d+$/.test(p.accountCode)) {
      const n = Number(p.accountCode);
      if (p.accountCode.length !== 4 || n < range.from || n > range.to) {
        ctx.addIssue({
          code: 'custom',
          path: ['accountCode'],
          message: `must be a code from ${range.from} to ${range.to} for a ${p.kind} account`,
        });
      }
    }
  });
export type BankAccountCreate = z.infer<typeof bankAccountCreate>;

export const bankAccount = z.object({
  /** bac_… for a record; null for 1000, the default bank account every organisation has. */
  id: z.string().nullable(),
  kind: z.enum(BANK_ACCOUNT_KINDS),
  name: z.string(),
  accountCode: z.string(),
  bsb: z.string().nullable(),
  accountNumber: z.string().nullable(),
  isDefault: z.boolean(),
  /**
   * The chart account's balance, debits less credits: what the ledger says is in the account
   * (negative on a card or loan: what is owed). It holds what is reconciled; unreconciled lines
   * are beside it.
   */
  ledgerBalanceCents: z.number().int(),
  unreconciledLines: z.number().int(),
  /** Signed sum of what the unreconciled lines still have to bring into the ledger. */
  unreconciledCents: z.number().int(),
  createdAt: z.string().nullable(),
});

export const bankAccounts = method({
  name: 'books.bankAccounts',
  scope: 'books.read',
  kind: 'read',
  summary:
    "List the organisation's bank, credit-card and loan accounts (1000 Business bank account first, the default; then the records owners created in the console or with `finance-desk bank-account add`), each with its chart account code, BSB and account number when known, the ledger balance (debits less credits: negative on a card or loan is what is owed) and its unreconciled feed lines (count and signed sum). Any of these account codes can take feed lines (books.feedLines accountCode).",
  params: z.strictObject({}),
  result: z.object({ accounts: z.array(bankAccount) }),
});

export const transferMatch = method({
  name: 'books.transferMatch',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Match a transfer between two of the organisation's bank accounts, seen on both sides: fromLineId is money out of one account, toLineId the same amount in to another (a card repayment from the bank is one), both unmatched, at most 7 days apart. Posts Cr from-account / Dr 1300 Bank clearing dated the from line's date and Dr to-account / Cr 1300 dated the to line's date (so each account moves on its own statement's date and 1300 holds the money in transit between them), and marks both lines matched (match kind transfer, naming the other line). The same pair again is a no-op (D3). A transfer seen on one side only: recode that line to the other bank account (books.lineRecode); when the other side's line arrives, match it to that recode journal (books.matchAccept target kind journal).",
  params: z.strictObject({ fromLineId: id(), toLineId: id() }),
  result: z.object({
    transferId: z.string(),
    amountCents: z.number().int(),
    from: feedLine,
    to: feedLine,
    journalIds: z.array(z.string()),
    ledgerId: z.string(),
    noop: z.boolean().optional(),
  }),
});

const splitTaxCode = z.enum(RECODE_TAX_CODES as [TaxCode, ...TaxCode[]], {
  error: `must be one of ${RECODE_TAX_CODES.join(', ')}`,
});

/** An account part may go the other way inside the line (a fee deducted from a receipt): − then. */
const signedPartCents = () =>
  z
    .number({ error: 'must be an integer number of cents' })
    .int({ error: 'must be an integer number of cents' })
    .min(-limits.centsMax, { error: `must be at least -${limits.centsMax}` })
    .max(limits.centsMax, { error: `must be at most ${limits.centsMax}` })
    .refine((n) => n !== 0, { error: 'must not be 0' });

/**
 * One part: a document {target, amountCents} or an account {accountCode, taxCode?, amountCents,
 * description?}. One object with a check rather than a union, so a problem is named by its field
 * (parts[1].amountCents), not as "matches neither shape".
 */
export const splitPart = z
  .strictObject({
    target: z.strictObject({ kind: matchTargetKind, id: id() }).optional(),
    accountCode: accountCode().optional(),
    taxCode: splitTaxCode.optional(),
    amountCents: signedPartCents(),
    description: multilineText(limits.textCharsMax).optional(),
  })
  .superRefine((p, ctx) => {
    if ((p.target === undefined) === (p.accountCode === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['target'], message: 'give either target (a document) or accountCode (an account)' });
      return;
    }
    if (p.target !== undefined) {
      for (const field of ['taxCode', 'description'] as const) {
        if (p[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'is only for an account part' });
      }
      if (typeof p.amountCents === 'number' && p.amountCents < 0) {
        ctx.addIssue({ code: 'custom', path: ['amountCents'], message: 'must be positive for a document part' });
      }
    }
  });

export const lineSplit = method({
  name: 'books.lineSplit',
  scope: 'books.write',
  kind: 'new-act',
  summary:
    "Apply one bank line to several documents and accounts in one call: parts (2–20; 1 when the line is already part_matched) each either {target: {kind: invoice | bill | claim | journal, id}, amountCents} (as books.matchAccept: the document takes a payment dated the line's date) or {accountCode, taxCode?, amountCents, description?} (as books.lineRecode: coded straight to the account, GST 1/11 for GST codes; taxCode default as lineRecode). Amounts are unsigned in the line's direction (its sign gives it); an account part may be negative, money the other way inside the line (e.g. a card processor's fee deducted from a receipt: Dr 6300 on money in). The parts must add up to what is left of the line, which ends matched; each document at most once. A line above the materiality floor (policy materialityFloorCents) is matched to documents only through books.matchHoldResolve with a human's approval: a split of such a line with a document part is CONFLICT (resolve each document part with books.matchHoldResolve and amountCents, then split what is left to accounts). Unmatched or part_matched lines only. One event; errors name parts[i].field.",
  params: z.strictObject({
    lineId: id(),
    parts: z
      .array(splitPart)
      .min(1, { error: 'must have at least 1 part' })
      .max(bankAccountLimits.splitPartsMax, { error: `must have at most ${bankAccountLimits.splitPartsMax} parts` }),
  }),
  result: z.object({
    lineId: z.string(),
    status: z.literal('matched'),
    line: feedLine,
    parts: z.array(
      z.object({
        kind: z.enum([...matchTargetKind.options, 'account']),
        /** The document's id, or the account code. */
        targetId: z.string(),
        /** In the line's direction; negative only for an account part that goes the other way. */
        amountCents: z.number().int(),
        journalId: z.string(),
        /** What the document still owes after this part (0 for an account part). */
        outstandingCents: z.number().int(),
        taxCode: z.string().nullable(),
        gstCents: z.number().int(),
      }),
    ),
    ledgerId: z.string(),
  }),
});

/** Declarations of this area (see index.ts). */
export const bankAccountMethods = [bankAccounts, transferMatch, lineSplit] as const satisfies readonly MethodSpec[];
