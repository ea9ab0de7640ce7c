import { z } from 'zod';
import { limits } from '../limits.js';
import type { TaxCode } from '../tax.js';
import { abaText, accountCode, apcaBankCode, apcaUserId, bankAccountNumber, bsb } from './aba-fields.js';
import { id, method, multilineText, text } from './index-fields.js';
import { feedLine, matchTargetKind, RECODE_TAX_CODES } from './reconciliation.js';
import type { MethodSpec } from './types.js';
import { lineTracking } from './tracking.js';

/**
 * Bank, credit-card and loan accounts as records. Each record owns one chart
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
export const BANK_ACCOUNT_RANGES: Readonly<
  Record<BankAccountKind, { readonly from: number; readonly to: number; readonly type: 'asset' | 'liability' }>
> = {
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

/** The default bank account's chart code: an owner may give it a record (to hold its direct-entry details). */
export const DEFAULT_BANK_ACCOUNT_CODE = '1000';

/**
 * The Direct Entry identity a bank file paid from the account carries (ABA header and trace):
 * the bank's APCA code, the user id and name the bank issued, the remitter name payees see, and
 * the account title of the self-balancing record (default userName). Not secret: every bank file
 * carries them. A bank account with all four of bankCode, apcaUserId, userName, remitterName and
 * a BSB and account number can fund a payment run or a pay run (fundingAccountId).
 */
export const DIRECT_ENTRY_FIELDS = ['bankCode', 'apcaUserId', 'userName', 'remitterName', 'accountTitle'] as const;
export type DirectEntryField = (typeof DIRECT_ENTRY_FIELDS)[number];
/** What a funding account must have (besides bsb and accountNumber); accountTitle defaults to userName. */
export const DIRECT_ENTRY_REQUIRED = ['bankCode', 'apcaUserId', 'userName', 'remitterName'] as const;

const directEntryField = {
  bankCode: apcaBankCode,
  apcaUserId,
  userName: () => abaText(26),
  remitterName: () => abaText(16),
  accountTitle: () => abaText(32),
} as const;

/** What an owner gives to create one (console form, CLI flags, console JSON). */
export const bankAccountCreate = z
  .strictObject({
    kind: z.enum(BANK_ACCOUNT_KINDS, { error: `must be one of ${BANK_ACCOUNT_KINDS.join(', ')}` }),
    name: text(bankAccountLimits.nameCharsMax),
    bsb: bsb().optional(),
    accountNumber: bankAccountNumber().optional(),
    accountCode: accountCode().optional(),
    bankCode: directEntryField.bankCode().optional(),
    apcaUserId: directEntryField.apcaUserId().optional(),
    userName: directEntryField.userName().optional(),
    remitterName: directEntryField.remitterName().optional(),
    accountTitle: directEntryField.accountTitle().optional(),
  })
  .superRefine((p, ctx) => {
    if ((p.bsb === undefined) !== (p.accountNumber === undefined)) {
      const missing = p.bsb === undefined ? 'bsb' : 'accountNumber';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'give both bsb and accountNumber, or neither' });
    }
    const range = BANK_ACCOUNT_RANGES[p.kind];
    const adoptsDefault = p.kind === 'bank' && p.accountCode === DEFAULT_BANK_ACCOUNT_CODE;
    if (range && !adoptsDefault && p.accountCode !== undefined && /^\d+$/.test(p.accountCode)) {
      const n = Number(p.accountCode);
      if (p.accountCode.length !== 4 || n < range.from || n > range.to) {
        ctx.addIssue({
          code: 'custom',
          path: ['accountCode'],
          message:
            `must be a code from ${range.from} to ${range.to} for a ${p.kind} account` +
            (p.kind === 'bank' ? ` (or ${DEFAULT_BANK_ACCOUNT_CODE}, the default bank account)` : ''),
        });
      }
    }
    if (range && p.kind !== 'bank') {
      for (const f of DIRECT_ENTRY_FIELDS) {
        if (p[f] !== undefined)
          ctx.addIssue({ code: 'custom', path: [f], message: 'is only for a bank account (bank files are paid from one)' });
      }
    }
  });
export type BankAccountCreate = z.infer<typeof bankAccountCreate>;

/**
 * What an owner changes on a record (console or `finance-desk bank-account update`): each field
 * given is set, null clears it, a field left out is kept. Kind, name and chart code stay.
 * BSB and account number stay paired (checked with the record's values).
 */
export const bankAccountUpdate = z
  .strictObject({
    bsb: bsb().nullable().optional(),
    accountNumber: bankAccountNumber().nullable().optional(),
    bankCode: directEntryField.bankCode().nullable().optional(),
    apcaUserId: directEntryField.apcaUserId().nullable().optional(),
    userName: directEntryField.userName().nullable().optional(),
    remitterName: directEntryField.remitterName().nullable().optional(),
    accountTitle: directEntryField.accountTitle().nullable().optional(),
  })
  .superRefine((p, ctx) => {
    if (Object.values(p).every((v) => v === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['bankCode'],
        message: `give at least one of bsb, accountNumber, ${DIRECT_ENTRY_FIELDS.join(', ')}`,
      });
    }
  });
export type BankAccountUpdate = z.infer<typeof bankAccountUpdate>;

/** The complete direct-entry identity of an account that can fund a bank file. */
export const directEntry = z.object({
  bankCode: z.string(),
  apcaUserId: z.string(),
  userName: z.string(),
  remitterName: z.string(),
  /** The self-balancing record's account title: the one set, else userName. */
  accountTitle: z.string(),
});

export const bankAccount = z.object({
  /** bac_… for a record; null for 1000, the default bank account every organisation has, until an owner gives it a record. */
  id: z.string().nullable(),
  kind: z.enum(BANK_ACCOUNT_KINDS),
  name: z.string(),
  accountCode: z.string(),
  bsb: z.string().nullable(),
  accountNumber: z.string().nullable(),
  isDefault: z.boolean(),
  /** Direct-entry details as the owner set them (null where not set); see DIRECT_ENTRY_FIELDS. */
  bankCode: z.string().nullable(),
  apcaUserId: z.string().nullable(),
  userName: z.string().nullable(),
  remitterName: z.string().nullable(),
  accountTitle: z.string().nullable(),
  /** Set when the account can fund a bank file (fundingAccountId): bank kind, BSB, number and the four details. */
  directEntry: directEntry.nullable(),
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
    "List the organisation's bank, credit-card and loan accounts (1000 Business bank account first, the default, id null until an owner gives it a record; then the records owners created in the console or with `finance-desk bank-account add`), each with its chart account code, BSB and account number when known, its direct-entry details (bankCode, apcaUserId, userName, remitterName, accountTitle: what a bank file paid from it carries) and directEntry, set only when the account can fund a payment run or pay run by fundingAccountId (null: details missing, or not a bank account), the ledger balance (debits less credits: negative on a card or loan is what is owed) and its unreconciled feed lines (count and signed sum). Any of these account codes can take feed lines (books.feedLines accountCode).",
  brief: 'Bank, card and loan accounts: accountCode, BSB, number, balance, unreconciled lines, directEntry.',
  params: z.strictObject({}),
  result: z.object({ accounts: z.array(bankAccount) }),
});

export const transferMatch = method({
  name: 'books.transferMatch',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Match a transfer between two of the organisation's bank accounts, seen on both sides: fromLineId is money out of one account, toLineId the same amount in to another (a card repayment from the bank is one), both unmatched, at most 7 days apart. Posts Cr from-account / Dr 1300 Bank clearing dated the from line's date and Dr to-account / Cr 1300 dated the to line's date (so each account moves on its own statement's date and 1300 holds the money in transit between them), and marks both lines matched (match kind transfer, naming the other line). The same pair again is a no-op. A transfer seen on one side only: recode that line to the other bank account (books.lineRecode); when the other side's line arrives, match it to that recode journal (books.matchAccept target kind journal).",
  brief: 'Match one transfer seen on two own accounts (same amount, within 7 days) via 1300. Seen once: books.lineRecode.',
  params: z.strictObject({
    fromLineId: id().describe('Money-out line'),
    toLineId: id().describe('Money-in line'),
  }),
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
    target: z
      .strictObject({
        kind: matchTargetKind.describe('Document kind'),
        id: id().describe('Document id (inv_, bill_, clm_, jnl_…)'),
      })
      .optional()
      .describe('Or accountCode'),
    accountCode: accountCode().optional().describe('Account to code this part to; or target'),
    taxCode: splitTaxCode.optional().describe('As books.lineRecode'),
    amountCents: signedPartCents().describe('Line direction; accounts may be < 0'),
    description: multilineText(limits.textCharsMax).optional().describe('Account part text'),
    tracking: lineTracking().optional(),
  })
  .superRefine((p, ctx) => {
    if ((p.target === undefined) === (p.accountCode === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['target'], message: 'give either target (a document) or accountCode (an account)' });
      return;
    }
    if (p.target !== undefined) {
      for (const field of ['taxCode', 'description', 'tracking'] as const) {
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
    "Apply one bank line to several documents and accounts in one call: parts (2–20; 1 when the line is already part_matched) each either {target: {kind: invoice | bill | claim | journal, id}, amountCents} (as books.matchAccept: the document takes a payment dated the line's date) or {accountCode, taxCode?, amountCents, description?} (as books.lineRecode: coded straight to the account, GST 1/11 for GST codes; taxCode default as lineRecode). Amounts are unsigned in the line's direction (its sign gives it); an account part may be negative, money the other way inside the line (e.g. a card processor's fee deducted from a receipt: Dr 6300 on money in). The parts must add up to what is left of the line, which ends matched; each document at most once. A line above the materiality floor (policy materialityFloorCents) is matched to documents only through books.matchHoldResolve with a human's approval: a split of such a line with a document part is CONFLICT (resolve each document part with books.matchHoldResolve and amountCents, then split what is left to accounts). Unmatched or part_matched lines only. One event; errors name parts[i].field. An account part may carry tracking {category: option} (books.trackingSet), stored on its coded line.",
  brief: 'Split a bank line across documents and accounts, summing to its rest. Above the materiality floor, books.matchHoldResolve first.',
  params: z.strictObject({
    lineId: id().describe('Line id'),
    parts: z
      .array(splitPart)
      .min(1, { error: 'must have at least 1 part' })
      .max(bankAccountLimits.splitPartsMax, { error: `must have at most ${bankAccountLimits.splitPartsMax} parts` })
      .describe('2-20; sum = rest of line'),
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
