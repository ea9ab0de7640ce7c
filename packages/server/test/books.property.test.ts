/**
 * Property test of the books: random sequences of the money-moving methods, driven
 * through HTTP against a real server on each engine, with an independent model of what every
 * document and bank line should owe. After every step:
 *
 * - the trial balance balances, and the balance sheet does;
 * - 1100 Accounts receivable equals the open invoices less what is left of the customers'
 *   credits (server's list, the model), and aged receivables (credits as negative items) total it;
 * - 2000 Accounts payable equals the open posted bills less what is left of the suppliers' credits,
 *   and aged payables total it; 2500 equals the approved unpaid claims;
 * - contact credits (overpayments kept as credit, credit notes and supplier adjustment notes beyond
 *   what the document owes, prepayments either side; allocated to open documents of the same
 *   contact, refunded, or taken back by a dishonour): each contact's open credits per side are
 *   the model's, the contact read's totals and listed credits, and its part of 1100 or 2000 (the
 *   ledger's balances under the credits' ids), and aged reports list them as negative items; an
 *   allocation refused (another contact's document, the other side's kind, more than is left or
 *   owed, a document not open) changes nothing; a supplier's adjustment notes never reverse more of
 *   a bill's expense and GST than its posting put there, and a bill so credited is not returned;
 * - the statement of cash flows to today, from an early date or from today, reconciles (opening +
 *   net change + carried in = closing), its cash accounts are 1000, 1300 and the bank account
 *   record super is paid from, its closing cash is the balance sheet's lines of them, its opening
 *   the accounts' as at yesterday, and what it carries in the conversion's bank balance;
 * - the bank account equals the imported feed, less the feed lines not yet reconciled, plus the
 *   bank postings no line accounts for yet (payments recorded directly, runs, manual journals);
 * - 2100 and 1200 equal the GST tagged on documents (the BAS accounts method);
 * - the fixed asset register equals 1500 − 1510, today and as at yesterday;
 * - 2200, 2300 and 2400 (and 6100, 6200) equal the signed pay runs paid by the date, in the
 *   model and in the server's pay runs, today and 10 days ahead;
 * - corrections: a bank line unmatched, a receipt dishonoured, a supplier
 *   payment returned, a manual journal reversed keep every invariant above; some runs start with
 *   opening balances (documents carried in per docId, the bank's balance, super and PAYG owed),
 *   which the controls and the as-at-yesterday checks then include;
 * - opening balances only before trading: tried later (or again) they are refused and change
 *   nothing; carried-in bills, like captured ones, are held exactly as the model's bill-approval rule says
 *   (new payee, above the approval floor, bank details changed since the payee's last approval);
 * - books.taxObligations: the super outstanding (carried in and per run) is 2300's balance, and the
 *   PAYG carried in is what payments to 2200 have not covered, as the model says;
 * - a refused call changes nothing, an accepted one appends exactly one event, a no-op none;
 * - the organisation's chain verifies.
 *
 * Runs: FD_PROPERTY_RUNS (default 12 per engine; `npm run test:property` runs 200), sequences of up to 40 acts. A failure prints the
 * fast-check seed and the shrunk sequence; replay with FD_PROPERTY_SEED.
 */
import fc from 'fast-check';
import { gstOfInclusive, journalLinesSha256, ledgerId, type JournalLineForm } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptTablesDrift } from '../src/domain/kept-tables.js';
import { verifyStoredChain } from '../src/ledger/verify.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type Reply, type TestServer } from './harness.js';
import { addDays, orgToday } from '../src/clock.js';
import { agedReport } from '../src/domain/reports/aged.js';
import { approvedBill, FUNDING, inDays, today } from './payables-helpers.js';
import { decide, freshKey } from './signature-helpers.js';
import { createBankAccount, parseBankAccountCreate } from '../src/domain/banking/accounts.js';

const yesterday = () => inDays(-1);
const RUNS = Number(process.env.FD_PROPERTY_RUNS ?? 12);
const SEED = process.env.FD_PROPERTY_SEED ? Number(process.env.FD_PROPERTY_SEED) : undefined;

// ---------------------------------------------------------------- the acts, as data

const SALE_CODES = ['GST', 'GST_FREE', 'INPUT_TAXED', 'EXPORT'] as const;
const PURCHASE_CODES = ['GST_ON_EXPENSES', 'GST_FREE_EXPENSES', 'INPUT_TAXED_EXPENSE'] as const;
/** Payees: the last has no bank details, so a run over its bills is refused. */
const PAYEES = [
  { payeeName: 'Harbour Timber', payeeBsb: '062-000', payeeAccountNumber: '12345678', payeeAccountName: 'Harbour Timber Pty Ltd' },
  { payeeName: 'Coastal Power', payeeBsb: '033-001', payeeAccountNumber: '987654', payeeAccountName: 'Coastal Power' },
  { payeeName: 'Blue Van Hire', payeeBsb: '083-004', payeeAccountNumber: '55501234', payeeAccountName: 'Blue Van Hire' },
  { payeeName: 'Cash Supplier' },
  // Harbour Timber again, in other case and spacing, with another account: held as BANK_DETAILS_CHANGED.
  { payeeName: ' harbour  TIMBER', payeeBsb: '062-000', payeeAccountNumber: '87654321', payeeAccountName: 'Harbour Timber Pty Ltd' },
] as const;

/** Amounts around the policy floors: materiality 100 000, bill approval 500 000 cents. */
const amount = fc.oneof(
  fc.integer({ min: 1, max: 5_000 }),
  fc.integer({ min: 5_001, max: 150_000 }),
  fc.integer({ min: 150_001, max: 700_000 }),
);
const pick = fc.nat({ max: 1_000 });
/** How much of what is owed to apply: in thousandths; 1000 = all; above 1000 = too much. */
const portion = fc.oneof(fc.constant(1000), fc.integer({ min: 1, max: 999 }), fc.constant(1001));

const act = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('draft' as const),
      lines: fc.array(
        fc.record({ amountCents: amount, taxCode: fc.constantFrom(...SALE_CODES), accountCode: fc.constantFrom('4000', '4200') }),
        { minLength: 1, maxLength: 3 },
      ),
      send: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('send' as const), pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pay' as const), pick, portion }) },
  // A credit note: a share of what is owed, or (beyond) of what is left to credit, the part beyond what is owed a credit.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('credit' as const), pick, portion, beyond: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('void' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('promise' as const), pick }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('bill' as const),
      payee: fc.nat({ max: PAYEES.length - 1 }),
      amountCents: amount,
      taxCode: fc.constantFrom(...PURCHASE_CODES),
      approve: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('billApprove' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('billHold' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('billReturn' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('run' as const), picks: fc.array(pick, { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('claim' as const), amountCents: amount, approve: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('claimDecide' as const), pick, approve: fc.boolean() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('feed' as const),
      /** Dated yesterday: before every document here, so only a recode or a journal may take it. */
      back: fc.nat({ max: 3 }).map((n) => n === 0),
      lines: fc.array(
        fc.oneof(
          fc.record({ mirror: fc.constant(true), pick }),
          fc.record({ mirror: fc.constant(false), amountCents: amount, moneyIn: fc.boolean() }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reimport' as const) }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('match' as const),
      pick,
      target: pick,
      portion,
      leaveHeld: fc.boolean(),
      wild: fc.nat({ max: 5 }).map((n) => n === 0),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('recode' as const), pick, account: fc.constantFrom('6300', '4100', '6000', '3000') }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('journal' as const),
      amountCents: amount,
      moneyIn: fc.boolean(),
      other: fc.constantFrom('3000', '6000', '6500', '1100'),
      gst: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replay' as const) }) },
  // Corrections.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('unmatch' as const), pick, one: fc.boolean(), target: pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('dishonour' as const), pick, target: pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('payReturn' as const), pick, target: pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('statements' as const) }) },
  // Fixed assets: bought by a journal dated up to 4 months back or by a bill (today;
  // pending when its line has no asset details), depreciated to a past month end, disposed of
  // today (a pending one only once registered).
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('assetBuy' as const),
      amountCents: amount,
      monthsBack: fc.nat({ max: 4 }),
      method: fc.constantFrom('prime_cost', 'diminishing_value'),
      life: fc.integer({ min: 1, max: 50 }),
      viaBill: fc.boolean(),
      pending: fc.boolean(),
      payee: fc.nat({ max: PAYEES.length - 1 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('depreciate' as const), monthsBack: fc.integer({ min: 1, max: 4 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('dispose' as const), pick, proceedsCents: fc.nat({ max: 700_000 }), gst: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('assetRegister' as const), pick, life: fc.integer({ min: 1, max: 50 }) }) },
  // Pay runs: hire a weekly employee, draft a week (paid today or in 3 days),
  // sign (the signature loop), recall. Unfunded: net pay is credited to 2400.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('hire' as const), hourly: fc.boolean() }) },
  // With items, each employee also gets overtime (1.25 h × 1.5), a tools allowance and a bonus.
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('payRun' as const), ahead: fc.boolean(), sign: fc.boolean(), items: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('paySign' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('payRecall' as const), pick }) },
  // Super (2300) or PAYG withholding (2200) paid from the bank by a manual journal: a share of what
  // the account owes (above 1000: more than it owes).
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('liabilityPay' as const), account: fc.constantFrom('2300', '2200'), portion }) },
  // Super paid by books.superPay (held for a human): every signed run paid by today still wholly owed.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('superPay' as const) }) },
  // Contact credits. An invoice paid with excess 'credit': what is owed plus `extra` (within: less than owed, no credit).
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('overpay' as const),
      pick,
      extra: fc.oneof(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 5_001, max: 300_000 })),
      within: fc.nat({ max: 4 }).map((n) => n === 0),
    }),
  },
  // Money received from a customer (paid to a supplier) before any document, mostly from one with an open
  // document (so that allocations find one); sometimes sent twice (a no-op).
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('prepay' as const),
      customer: fc.boolean(),
      pick,
      amountCents: amount,
      again: fc.nat({ max: 4 }).map((n) => n === 0),
    }),
  },
  // A credit applied to a document: mostly an open one of its contact; sometimes another contact's, or
  // the other side's kind (refused); amount by default, or a share (above 1000: more than either allows).
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('allocate' as const),
      pick,
      target: pick,
      aim: fc.constantFrom('own', 'own', 'own', 'own', 'other', 'kind'),
      portion: fc.option(portion, { nil: undefined }),
      spent: fc.nat({ max: 5 }).map((n) => n === 0),
    }),
  },
  // A credit refunded (all left, or a share); sometimes a credit with nothing left (refused).
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      pick,
      portion: fc.option(portion, { nil: undefined }),
      spent: fc.nat({ max: 4 }).map((n) => n === 0),
    }),
  },
  // A supplier's adjustment note on a posted bill (sometimes any bill): a share of what is owed, or
  // (beyond) of what is left to credit.
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('billNote' as const),
      pick,
      portion,
      beyond: fc.boolean(),
      any: fc.nat({ max: 3 }).map((n) => n === 0),
    }),
  },
);

/** The first day of the month `back` months before today's, and the last day of the month before that first. */
const firstOfMonth = (back: number) => {
  const [y, mo] = today().split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, mo - 1 - back, 1)).toISOString().slice(0, 10);
};
const monthEndBack = (back: number) => {
  const [y, mo] = today().split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, mo - back, 0)).toISOString().slice(0, 10);
};
type Act = typeof act extends fc.Arbitrary<infer T> ? T : never;

/** Opening balances, once, at the start of some runs. */
const opening = fc.record({
  kind: fc.constant('opening' as const),
  bankCents: fc.integer({ min: 1, max: 500_000 }),
  invoices: fc.array(fc.record({ totalCents: amount, part: fc.boolean(), dueBack: fc.nat({ max: 120 }) }), { maxLength: 3 }),
  bills: fc.array(fc.record({ totalCents: amount, part: fc.boolean(), payee: fc.nat({ max: PAYEES.length - 1 }) }), { maxLength: 3 }),
  /** Super and PAYG withholding owed at the conversion (2300 and 2200 in credit), or none. */
  superCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300_000 })),
  paygCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300_000 })),
});
type OpeningAct = typeof opening extends fc.Arbitrary<infer T> ? T : never;
/** Opening balances tried again later: recorded only in an organisation that does not trade yet. */
const reopen = fc.record({ kind: fc.constant('reopen' as const), opening });
const step = fc.oneof({ weight: 60, arbitrary: act }, { weight: 1, arbitrary: reopen });
type AnyAct = Act | (typeof reopen extends fc.Arbitrary<infer T> ? T : never);
/** Before every other posting of a run: assets are bought at most 4 months back. */
const conversionDate = () => firstOfMonth(6);

// ---------------------------------------------------------------- the model

interface InvoiceM {
  id: string;
  status: string;
  totalCents: number;
  outstanding: number;
  lines: { amountCents: number; taxCode: string; accountCode: string }[];
  creditedByCode: Map<string, number>;
  gstCents: number;
  creditedGst: number;
  touched: boolean; // a payment or credit note: it can no longer be voided
  carried?: boolean; // carried in by opening balances (no revenue posted here)
  payments?: PaymentM[];
  /** The customer's contact (from the draft; for a carried-in invoice, from the first list read). */
  contactId?: string;
}
/** A payment of a document: recorded, a run's, or a bank line's match (matchId). */
interface PaymentM {
  id: string;
  amt: number;
  state: 'ok' | 'undone' | 'unmatched';
  matchId?: string;
  /** An overpayment: what the bank received (amt paid the invoice), the rest kept as this credit. */
  bank?: number;
  creditId?: string;
}
interface BillM {
  id: string;
  status: string;
  totalCents: number;
  posted: boolean;
  outstanding: number;
  payee: number;
  carried?: boolean;
  payments?: PaymentM[];
  contactId?: string;
  /** The tax code an adjustment note credits (null: only a fixed-asset line, which no note credits), its GST, and what notes took. */
  code: string | null;
  gstCents: number;
  credited: number;
  creditedGst: number;
}
/** A contact credit: what is left of it, and what it was allocated to (one allocation per document). */
interface CreditM {
  id: string;
  contactId: string;
  side: 'customer' | 'supplier';
  amount: number;
  remaining: number;
  allocations: Map<string, number>;
}
interface ClaimM {
  id: string;
  status: string;
  amountCents: number;
  outstanding: number;
}
interface LineM {
  id: string;
  date: string;
  amountCents: number;
  applied: number; // unsigned, to documents and journals
  journalApplied: number; // unsigned, of which to existing bank postings (nothing posted)
  status: string;
  held: { kind: string; id: string; amountCents: number } | null;
  matches: { kind: string; id: string; amountCents: number; matchId?: string }[];
  /** Recode journals dated the line's date (an unmatch reverses one today, so as at that date it stays). */
  recodes?: number;
}
interface PayRunM {
  id: string;
  status: 'draft' | 'signed' | 'recalled';
  paymentDate: string;
  grossCents: number;
  paygCents: number;
  superCents: number;
  netCents: number;
  /** The bonuses and the allowances the run's pay items carry (the model gives every employee the same ones). */
  bonusCents: number;
  allowanceCents: number;
}

interface JournalM {
  id: string;
  net: number; // signed, on 1000
  matched: number; // unsigned
  manual?: boolean; // books.journalPost: books.journalReverse may reverse it
  reversed?: boolean;
  /** A payment of super (2300) or PAYG withholding (2200) from the bank. */
  pays?: '2300' | '2200';
}

/** The bill-approval rule's payee identity: case and spacing do not make a new supplier. */
const payeeKeyOf = (payee: number) => PAYEES[payee]!.payeeName.trim().toLowerCase().replace(/\s+/g, ' ');
const bankOfPayee = (payee: number) => {
  const p = PAYEES[payee]!;
  return 'payeeBsb' in p ? `${p.payeeBsb} ${p.payeeAccountNumber}` : null;
};
/** The policy's bill approval floor (cents). */
const BILL_APPROVAL_FLOOR = 500_000;

class Model {
  invoices: InvoiceM[] = [];
  bills: BillM[] = [];
  claims: ClaimM[] = [];
  lines: LineM[] = [];
  journals: JournalM[] = [];
  lastFeed: unknown = null;
  runs = new Set<string>();
  /** The last depreciation run's periodEnd; bills whose asset was disposed of (not returnable). */
  lastAssetRun: string | null = null;
  /** Month ends already run: running one again is a no-op, even after a later month. */
  readonly assetRuns = new Set<string>();
  disposedBills = new Set<string>();
  employees = 0;
  payRuns: PayRunM[] = [];
  /** books.superPay: the bank account record it pays from, the runs it paid and their total (all dated today). */
  superAccount: string | null = null;
  superPaidRuns = new Set<string>();
  superPaid = 0;
  lastWrite: { method: string; params: unknown; key: string; reply: Reply } | null = null;
  counter = 0;
  /** Opening balances carried in, and what lines dated yesterday paid of them (as at yesterday). */
  opening = { receivable: 0, payable: 0, bank: 0, super: 0, payg: 0 };
  /** The params of the conversion recorded (once), and whether anything that trades was written. */
  openedWith: string | null = null;
  traded = false;
  /** Bills in the order a human (or an unheld approval) last approved them: the bill-approval rule's memory. */
  approvals: string[] = [];
  yShift = { ar: 0, ap: 0, bank: 0 };
  credits: CreditM[] = [];
  /** The ledger code of the bank account record books.superPay pays from: cash, as 1000 and 1300 are. */
  superCode: string | null = null;

  /** What is left of the contacts' credits of a side (of one contact when given). */
  credit(side: 'customer' | 'supplier', contactId?: string) {
    return this.credits
      .filter((c) => c.side === side && (contactId === undefined || c.contactId === contactId))
      .reduce((s, c) => s + c.remaining, 0);
  }
  receivable() {
    return this.invoices.reduce((s, i) => s + i.outstanding, 0);
  }
  payable() {
    return this.bills.reduce((s, b) => s + (b.posted ? b.outstanding : 0), 0);
  }
  claimsPayable() {
    return this.claims.reduce((s, c) => s + c.outstanding, 0);
  }
  /** Signed sum of what bank lines have not yet put into the ledger. */
  unreconciledLines() {
    return this.lines.reduce((s, l) => {
      if (l.status === 'recoded') return s;
      return s + Math.sign(l.amountCents) * (Math.abs(l.amountCents) - l.applied);
    }, 0);
  }
  /** Signed sum of bank postings that no line accounts for yet. */
  unreconciledPostings() {
    return this.journals.reduce((s, j) => s + j.net - Math.sign(j.net) * j.matched, 0);
  }
  feedTotal() {
    return this.lines.reduce((s, l) => s + l.amountCents, 0);
  }
  /** Payments to 2300 or 2200 by manual journals not reversed (all dated today). */
  paidTo(account: '2300' | '2200') {
    return this.journals.filter((j) => j.pays === account && !j.reversed).reduce((s, j) => s - j.net, 0);
  }
  /**
   * The bill-approval rule as billCapture applies it: the bank details differ from the payee's last approved (its
   * most recently approved bill with details, not returned since) beats above the floor, which
   * beats a payee none of whose bills was ever approved.
   */
  heldReason(payee: number, amountCents: number): string | null {
    const key = payeeKeyOf(payee);
    const approved = this.approvals.map((id) => this.bills.find((b) => b.id === id)!).filter((b) => payeeKeyOf(b.payee) === key);
    const bank = bankOfPayee(payee);
    const last = approved.filter((b) => b.status !== 'returned' && bankOfPayee(b.payee) !== null).at(-1);
    if (bank !== null && approved.length > 0 && (last === undefined || bankOfPayee(last.payee) !== bank)) return 'BANK_DETAILS_CHANGED';
    if (amountCents > BILL_APPROVAL_FLOOR) return 'ABOVE_FLOOR';
    return approved.length > 0 ? null : 'NEW_PAYEE';
  }
}

/** Methods whose success means the organisation trades here (a document, journal or bank line). */
const TRADING = new Set([
  'books.invoiceDraft',
  'books.billCapture',
  'books.expenseClaim',
  'books.feedLines',
  'books.journalPost',
  'books.payrollDraft',
]);

/** Outcomes per method (FD_PROPERTY_STATS=1 prints them): evidence that the sequences reach every path. */
const stats = new Map<string, number>();

const at = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);
const share = (owed: number, p: number) => (p >= 1000 ? owed + (p - 1000) : Math.max(1, Math.floor((owed * p) / 1000)));

// ---------------------------------------------------------------- the driver

class Run {
  readonly m = new Model();
  constructor(
    readonly t: TestServer,
    readonly o: CreatedOrg,
    readonly trace: string[],
  ) {}

  async head(): Promise<number> {
    const r = await this.t.db.reader.get<{ s: number | string | null }>('SELECT MAX(seq) AS s FROM events WHERE org_id = ?', [
      this.o.orgId,
    ]);
    return Number(r?.s ?? 0);
  }

  /**
   * One write through HTTP: an accepted call appends exactly one event, a no-op or a refusal none
   * (and a refusal is a 4xx with a field or state named, never a 5xx).
   */
  async write(method: string, params: Record<string, unknown>, expectOk?: boolean): Promise<Reply> {
    const before = await this.head();
    const key = freshKey();
    const reply = await this.t.post(this.o.keys.agent, method, params, { 'x-idempotency-key': key });
    const after = await this.head();
    const tag = `${method} ${JSON.stringify(params)} → ${reply.status} ${JSON.stringify(reply.body).slice(0, 400)}`;
    this.trace.push(tag);
    expect(reply.status, tag).toBeLessThan(500);
    if (reply.status === 200) {
      expect(after - before, `events appended by ${tag}`).toBe(reply.body.result?.noop === true ? 0 : 1);
      this.m.lastWrite = { method, params, key, reply };
      if (TRADING.has(method)) this.m.traded = true;
    } else {
      expect(after - before, `events appended by refused ${tag}`).toBe(0);
      expect(reply.body.ok, tag).toBe(false);
      expect(typeof reply.body.error.message, tag).toBe('string');
    }
    const outcome = `${method} ${reply.status === 200 ? (reply.body.result?.noop ? 'noop' : reply.body.result?.status === 'approval_required' ? 'held' : 'ok') : reply.body.error?.code}`;
    stats.set(outcome, (stats.get(outcome) ?? 0) + 1);
    if (expectOk !== undefined) expect(reply.status === 200, `expected ${expectOk ? 'success' : 'refusal'}: ${tag}`).toBe(expectOk);
    return reply;
  }

  /** A signature act to completion: hold (or a held bill's refusal) → request → a human approves → retry. */
  async signed(method: string, actionClass: string, params: Record<string, unknown>, expectOk?: boolean): Promise<Reply> {
    const first = await this.write(method, params);
    let payloadHash: string;
    let subjectId: string;
    if (first.status === 200 && first.body.result.status === 'approval_required') {
      payloadHash = first.body.result.approval.payloadHash;
      subjectId = first.body.result.approval.subject.subjectId;
    } else if (first.status === 423 && first.body.error.code === 'GOVERNANCE_NOT_READY') {
      payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.body.error.message)?.[1] ?? '';
      subjectId = String(params.id);
    } else {
      if (expectOk !== undefined)
        expect(first.status === 200, `expected ${expectOk ? 'success' : 'refusal'}: ${this.trace.at(-1)}`).toBe(expectOk);
      return first;
    }
    const req = await this.write('approval.request', { actionClass, payloadHash, subject: { kind: 'books.signature', subjectId } }, true);
    await decide(this.t, this.o, req.body.result.approvalId, true);
    return this.write(method, { ...params, approvalId: req.body.result.approvalId }, expectOk);
  }

  async step(a: AnyAct): Promise<void> {
    const m = this.m;
    const n = (m.counter += 1);
    switch (a.kind) {
      case 'reopen':
        await this.reopen(a.opening);
        return;
      case 'liabilityPay':
        await this.liabilityPay(a.account, a.portion);
        return;
      case 'superPay':
        await this.superPay();
        return;
      case 'draft': {
        const total = a.lines.reduce((s, l) => s + l.amountCents, 0);
        const r = await this.write(
          'books.invoiceDraft',
          {
            payeeName: `Customer ${n % 3}`,
            description: `Work ${n}`,
            totalCents: total,
            dueDays: 14,
            lines: a.lines.map((l, i) => ({ description: `Item ${i}`, ...l })),
          },
          total <= 9_999_999_999,
        );
        if (r.status !== 200) return;
        const gstBase = a.lines.filter((l) => l.taxCode === 'GST').reduce((s, l) => s + l.amountCents, 0);
        expect(r.body.result.gstCents).toBe(gstOfInclusive(gstBase));
        const inv: InvoiceM = {
          id: r.body.result.id,
          status: 'draft',
          totalCents: total,
          outstanding: 0,
          lines: a.lines,
          creditedByCode: new Map(),
          gstCents: r.body.result.gstCents,
          creditedGst: 0,
          touched: false,
          contactId: r.body.result.contactId,
        };
        m.invoices.push(inv);
        if (a.send) await this.send(inv);
        return;
      }
      case 'send': {
        const inv = at(m.invoices, a.pick);
        if (inv) await this.send(inv);
        return;
      }
      case 'pay': {
        const inv = at(m.invoices, a.pick);
        if (!inv) return;
        const open = inv.status === 'sent' || inv.status === 'part_paid';
        const amt = share(inv.outstanding || inv.totalCents, a.portion);
        const ok = open && amt <= inv.outstanding;
        const r = await this.write('books.invoiceRecordPayment', { id: inv.id, amountCents: amt, reference: `PAY-${n}` }, ok);
        if (r.status !== 200) return;
        inv.outstanding -= amt;
        inv.status = r.body.result.status;
        inv.touched = true;
        expect(r.body.result.outstandingCents).toBe(inv.outstanding);
        (inv.payments ??= []).push({ id: r.body.result.paymentId, amt, state: 'ok' });
        m.journals.push({ id: r.body.result.journalId, net: amt, matched: 0 });
        return;
      }
      case 'credit': {
        const inv = at(m.invoices, a.pick);
        // A carried-in invoice's revenue was the old system's: the revenue invariant leaves it out.
        if (!inv || inv.carried) return;
        const code = inv.lines[0]!.taxCode;
        const ofCode = inv.lines.filter((l) => l.taxCode === code).reduce((s, l) => s + l.amountCents, 0);
        const creditable = ofCode - (inv.creditedByCode.get(code) ?? 0);
        const amt = share((a.beyond ? creditable : Math.min(inv.outstanding, creditable)) || inv.totalCents, a.portion);
        // A paid invoice is credited too; beyond what it owes (never beyond what is left to credit) the rest is a credit.
        const ok = ['sent', 'part_paid', 'paid'].includes(inv.status) && amt <= creditable;
        const r = await this.write(
          'books.invoiceCreditNote',
          { id: inv.id, amountCents: amt, taxCode: code, reason: `Adjustment ${n}` },
          ok,
        );
        if (r.status !== 200) return;
        const excess = amt - Math.min(amt, inv.outstanding);
        const before = inv.status;
        inv.outstanding -= amt - excess;
        inv.creditedByCode.set(code, (inv.creditedByCode.get(code) ?? 0) + amt);
        inv.status = r.body.result.status;
        inv.touched = true;
        expect(r.body.result.outstandingCents).toBe(inv.outstanding);
        // Still owing: the status stays; cleared: paid (money or a credit took part), or credited by notes alone.
        const statuses = inv.outstanding > 0 ? [before] : excess > 0 ? ['paid'] : ['paid', 'credited'];
        expect(statuses, this.trace.at(-1)).toContain(inv.status);
        expect([r.body.result.creditCents, r.body.result.creditId === null], this.trace.at(-1)).toEqual([excess, excess === 0]);
        if (excess > 0) m.credits.push(this.newCredit(r.body.result.creditId, inv.contactId, 'customer', excess));
        // GST is 1/11 of the credit, never more than is left; the note that clears the code takes
        // exactly what is left, so the invoice's GST is reversed to the cent.
        const gstLeft = inv.gstCents - inv.creditedGst;
        const gst = code !== 'GST' ? 0 : amt === creditable ? gstLeft : Math.min(gstOfInclusive(amt), gstLeft);
        expect(r.body.result.gstCents).toBe(gst);
        inv.creditedGst += gst;
        await this.checkCreditedAccounts(inv);
        return;
      }
      case 'void': {
        const inv = at(m.invoices, a.pick);
        if (!inv || inv.carried) return;
        const ok = inv.status === 'draft' || inv.status === 'void' || (inv.status === 'sent' && !inv.touched);
        const r = await this.write('books.invoiceVoid', { id: inv.id, reason: `Raised in error ${n}` }, ok);
        if (r.status !== 200) return;
        expect(r.body.result.status).toBe('void');
        inv.status = 'void';
        inv.outstanding = 0;
        return;
      }
      case 'promise': {
        const inv = at(m.invoices, a.pick);
        if (!inv) return;
        const ok = (inv.status === 'sent' || inv.status === 'part_paid') && inv.outstanding > 0;
        await this.write('books.invoicePromise', { id: inv.id, promisedOn: today() }, ok);
        return;
      }
      case 'statements':
        await this.write('books.statementRun', {}, true);
        return;
      case 'bill': {
        const r = await this.write(
          'books.billCapture',
          { ...PAYEES[a.payee], description: `Supplies ${n}`, totalCents: a.amountCents, taxCode: a.taxCode, dueDays: 30 },
          true,
        );
        const heldReason = m.heldReason(a.payee, a.amountCents);
        expect({ heldReason: r.body.result.heldReason, status: r.body.result.status }, this.trace.at(-1)).toEqual({
          heldReason,
          status: heldReason ? 'held' : 'captured',
        });
        const bill: BillM = {
          id: r.body.result.id,
          status: r.body.result.status,
          totalCents: a.amountCents,
          posted: false,
          outstanding: 0,
          payee: a.payee,
          contactId: r.body.result.contactId,
          code: a.taxCode,
          gstCents: r.body.result.gstCents,
          credited: 0,
          creditedGst: 0,
        };
        m.bills.push(bill);
        if (a.approve) await this.approveBill(bill);
        return;
      }
      case 'billApprove': {
        const bill = at(m.bills, a.pick);
        if (bill) await this.approveBill(bill);
        return;
      }
      case 'billHold': {
        const bill = at(m.bills, a.pick);
        if (!bill) return;
        const ok = ['captured', 'held', 'approved', 'on_hold'].includes(bill.status);
        const r = await this.write('books.billHold', { id: bill.id, reason: `Disputed ${n}` }, ok);
        if (r.status === 200) bill.status = r.body.result.status;
        return;
      }
      case 'billReturn': {
        const bill = at(m.bills, a.pick);
        if (!bill) return;
        const ok =
          bill.status === 'returned' ||
          (['captured', 'held', 'on_hold', 'approved'].includes(bill.status) &&
            (!bill.posted || bill.outstanding === bill.totalCents) &&
            // An adjustment note reversed part of it already: never returned whole after one.
            bill.credited === 0 &&
            !m.disposedBills.has(bill.id));
        const r = await this.write('books.billReturn', { id: bill.id, reason: `Not ours ${n}` }, ok);
        if (r.status !== 200) return;
        bill.status = 'returned';
        bill.outstanding = 0;
        return;
      }
      case 'run': {
        const chosen = [...new Set(a.picks.map((p) => at(m.bills, p)).filter((b): b is BillM => b !== undefined))];
        if (chosen.length === 0) return;
        // The run id derives from the bills and params: the same run again is a no-op (idempotent by state).
        const runKey = chosen.map((b) => b.id).join(',');
        const again = m.runs.has(runKey);
        const ok = again || chosen.every((b) => b.status === 'approved' && b.outstanding > 0 && 'payeeBsb' in PAYEES[b.payee]!);
        const r = await this.signed(
          'books.billScheduleRun',
          'books.bill_schedule_run',
          { billIds: chosen.map((b) => b.id), paymentDate: today(), funding: FUNDING },
          ok,
        );
        if (r.status !== 200) return;
        if (again) {
          expect(r.body.result.noop).toBe(true);
          return;
        }
        m.runs.add(runKey);
        const total = chosen.reduce((s, b) => s + b.outstanding, 0);
        expect(r.body.result.totalCents).toBe(total);
        for (const b of chosen) {
          (b.payments ??= []).push({ id: r.body.result.runId, amt: b.outstanding, state: 'ok' });
          b.outstanding = 0;
          b.status = 'paid';
        }
        m.journals.push({ id: r.body.result.journalId, net: -total, matched: 0 });
        return;
      }
      case 'claim': {
        const r = await this.write(
          'books.expenseClaim',
          { claimant: 'Sam Staff', description: `Taxi ${n}`, amountCents: a.amountCents, spentOn: today(), receiptRef: `ext-${n}` },
          true,
        );
        const claim: ClaimM = { id: r.body.result.id, status: 'submitted', amountCents: a.amountCents, outstanding: 0 };
        m.claims.push(claim);
        if (a.approve) await this.decideClaim(claim, true);
        return;
      }
      case 'claimDecide': {
        const claim = at(m.claims, a.pick);
        if (claim) await this.decideClaim(claim, a.approve);
        return;
      }
      case 'feed': {
        const date = a.back ? yesterday() : today();
        const lines = a.lines.map((l, i) => {
          if (l.mirror) {
            // A bank line for an open document: its amount and its id in the description.
            const docs = [
              ...m.invoices.filter((d) => d.outstanding > 0).map((d) => ({ id: d.id, cents: d.outstanding })),
              ...m.bills.filter((d) => d.outstanding > 0).map((d) => ({ id: d.id, cents: -d.outstanding })),
              ...m.claims.filter((d) => d.outstanding > 0).map((d) => ({ id: d.id, cents: -d.outstanding })),
            ];
            const doc = at(docs, l.pick);
            if (doc) return { date, amountCents: doc.cents, description: `Transfer ${doc.id} ${n}.${i}` };
            return { date, amountCents: 1 + (l.pick % 997), description: `Deposit ${n}.${i}` };
          }
          return { date, amountCents: l.moneyIn ? l.amountCents : -l.amountCents, description: `Card ${n}.${i}` };
        });
        const r = await this.write('books.feedLines', { lines }, true);
        expect(r.body.result.imported).toBe(lines.length);
        r.body.result.lineIds.forEach((id: string, i: number) =>
          m.lines.push({
            id,
            date,
            amountCents: lines[i]!.amountCents,
            applied: 0,
            journalApplied: 0,
            status: 'unmatched',
            held: null,
            matches: [],
          }),
        );
        m.lastFeed = { lines };
        return;
      }
      case 'reimport': {
        if (m.lastFeed === null) return;
        const r = await this.write('books.feedLines', m.lastFeed as Record<string, unknown>, true);
        expect(r.body.result.imported).toBe(0);
        expect(r.body.result.noop).toBe(true);
        return;
      }
      case 'match':
        await this.match(a);
        return;
      case 'recode': {
        const line = at(m.lines, a.pick);
        if (!line) return;
        // A held line waits for a human (matchHoldResolve); the agent cannot recode it away.
        const ok = line.applied === 0 && line.status !== 'held';
        const r = await this.write('books.lineRecode', { lineId: line.id, accountCode: a.account }, ok);
        if (line.status === 'held') expect(r.body.error?.code).toBe('CONFLICT');
        if (r.status !== 200) return;
        if (line.status !== 'recoded') line.recodes = (line.recodes ?? 0) + 1;
        line.status = 'recoded';
        return;
      }
      case 'journal': {
        const bankSide = a.moneyIn ? { debitCents: a.amountCents } : { creditCents: a.amountCents };
        const otherSide = a.moneyIn ? { creditCents: a.amountCents } : { debitCents: a.amountCents };
        const taxCode = a.gst ? (a.moneyIn ? 'GST' : 'GST_ON_EXPENSES') : undefined;
        const ok = a.other !== '1100';
        const r = await this.write(
          'books.journalPost',
          {
            date: today(),
            memo: `Manual ${n}`,
            lines: [
              { accountCode: '1000', ...bankSide },
              { accountCode: a.other, ...otherSide, ...(taxCode && a.other !== '3000' ? { taxCode } : {}) },
            ],
          },
          ok,
        );
        if (r.status === 200)
          m.journals.push({ id: r.body.result.journalId, net: a.moneyIn ? a.amountCents : -a.amountCents, matched: 0, manual: true });
        return;
      }
      case 'assetBuy':
      case 'depreciate':
      case 'dispose':
      case 'assetRegister':
        await this.assetAct(a);
        return;
      case 'hire':
      case 'payRun':
      case 'paySign':
      case 'payRecall':
        await this.payAct(a);
        return;
      case 'unmatch':
      case 'dishonour':
      case 'payReturn':
      case 'reverse':
        await this.correction(a);
        return;
      case 'overpay':
      case 'prepay':
      case 'allocate':
      case 'refund':
      case 'billNote':
        await this.creditAct(a);
        return;
      case 'replay': {
        const last = m.lastWrite;
        if (!last) return;
        const before = await this.head();
        const again = await this.t.post(this.o.keys.agent, last.method, last.params, { 'x-idempotency-key': last.key });
        this.trace.push(`replay ${last.method} → ${again.status}`);
        expect(again.status).toBe(last.reply.status);
        expect(again.body).toEqual({ ...last.reply.body, code: 'IDEMPOTENT_REPLAY' });
        expect(await this.head()).toBe(before);
        return;
      }
    }
  }

  newCredit(id: unknown, contactId: string | undefined, side: CreditM['side'], amount: number): CreditM {
    expect([typeof id, typeof contactId], `a credit of a known contact ${this.trace.at(-1)}`).toEqual(['string', 'string']);
    return { id: id as string, contactId: contactId!, side, amount, remaining: amount, allocations: new Map() };
  }

  /**
   * Contact credits: an overpayment kept as a credit, a prepayment, an allocation, a refund, a
   * supplier's adjustment note (beyond what the bill owes, a supplier credit). The model says
   * which is refused and why (the server checks the document, then a repeat, then states, then
   * amounts), what each document owes after and what is left of each credit.
   */
  async creditAct(a: Extract<Act, { kind: 'overpay' | 'prepay' | 'allocate' | 'refund' | 'billNote' }>): Promise<void> {
    const m = this.m;
    const n = m.counter;
    const bankNet = (side: CreditM['side'], moneyIn: boolean, amt: number) => (moneyIn === (side === 'customer') ? amt : -amt);
    if (a.kind === 'overpay') {
      const inv = at(m.invoices, a.pick);
      if (!inv) return;
      const open = inv.status === 'sent' || inv.status === 'part_paid';
      const amt = a.within ? Math.max(1, inv.outstanding - a.extra) : inv.outstanding + a.extra;
      const r = await this.write(
        'books.invoiceRecordPayment',
        { id: inv.id, amountCents: amt, reference: `OVER-${n}`, excess: 'credit' },
        open,
      );
      if (r.status !== 200) return;
      const part = Math.min(amt, inv.outstanding);
      const excess = amt - part;
      inv.outstanding -= part;
      inv.status = r.body.result.status;
      inv.touched = true;
      expect(
        [r.body.result.outstandingCents, inv.status, r.body.result.creditCents ?? 0, r.body.result.creditId === undefined],
        this.trace.at(-1),
      ).toEqual([inv.outstanding, inv.outstanding === 0 ? 'paid' : 'part_paid', excess, excess === 0]);
      const credit = excess > 0 ? this.newCredit(r.body.result.creditId, inv.contactId, 'customer', excess) : undefined;
      if (credit) m.credits.push(credit);
      (inv.payments ??= []).push({
        id: r.body.result.paymentId,
        amt: part,
        state: 'ok',
        bank: amt,
        ...(credit ? { creditId: credit.id } : {}),
      });
      m.journals.push({ id: r.body.result.journalId, net: amt, matched: 0 });
      return;
    }
    if (a.kind === 'prepay') {
      const side = a.customer ? 'customer' : 'supplier';
      const docs: { contactId?: string; outstanding: number; status: string }[] = a.customer ? m.invoices : m.bills;
      const of = (list: typeof docs) => [...new Set(list.map((d) => d.contactId).filter((c): c is string => c !== undefined))];
      const owing = of(docs.filter((d) => d.outstanding > 0 && ['sent', 'part_paid', 'approved'].includes(d.status)));
      const contactId = at(owing.length > 0 && a.pick % 4 !== 0 ? owing : of(docs), a.pick);
      if (!contactId) return;
      const params = { contactId, side, amountCents: a.amountCents, reference: `PRE-${n}` };
      const r = await this.write('books.creditPrepayment', params, true);
      expect([r.body.result.side, r.body.result.amountCents, r.body.result.remainingCents]).toEqual([side, a.amountCents, a.amountCents]);
      m.credits.push(this.newCredit(r.body.result.id, contactId, side, a.amountCents));
      m.journals.push({ id: r.body.result.journalId, net: bankNet(side, true, a.amountCents), matched: 0 });
      if (a.again) {
        // The same reference, amount and date again (a new key): the same prepayment.
        const again = await this.write('books.creditPrepayment', params, true);
        expect([again.body.result.noop, again.body.result.id]).toEqual([true, r.body.result.id]);
      }
      return;
    }
    if (a.kind === 'refund') {
      const credit = at(a.spent ? m.credits : m.credits.filter((c) => c.remaining > 0), a.pick);
      if (!credit) return;
      const amt = a.portion === undefined ? undefined : share(credit.remaining || credit.amount, a.portion);
      const ok = credit.remaining > 0 && (amt === undefined || amt <= credit.remaining);
      const r = await this.write(
        'books.creditRefund',
        { creditId: credit.id, reference: `REF-${n}`, ...(amt === undefined ? {} : { amountCents: amt }) },
        ok,
      );
      if (r.status !== 200) {
        expect(r.body.error.code, this.trace.at(-1)).toBe(credit.remaining > 0 ? 'BAD_REQUEST' : 'CONFLICT');
        return;
      }
      const paid = amt ?? credit.remaining;
      credit.remaining -= paid;
      expect([r.body.result.amountCents, r.body.result.creditRemainingCents]).toEqual([paid, credit.remaining]);
      // Paid out to the customer, received back from the supplier.
      m.journals.push({ id: r.body.result.journalId, net: bankNet(credit.side, false, paid), matched: 0 });
      return;
    }
    if (a.kind === 'billNote') {
      const bill = at(
        a.any ? m.bills : m.bills.filter((b) => b.posted && b.code !== null && ['approved', 'paid'].includes(b.status)),
        a.pick,
      );
      if (!bill) return;
      const creditable = bill.code === null ? 0 : bill.totalCents - bill.credited;
      const amt = share((a.beyond ? creditable : Math.min(bill.outstanding, creditable)) || bill.totalCents, a.portion);
      // Refused: no line a note credits (fixed assets), then a bill not approved or paid, then more than is left of the code.
      const code = bill.code === null ? 'BAD_REQUEST' : !bill.posted || !['approved', 'paid'].includes(bill.status) ? 'CONFLICT' : null;
      const ok = code === null && amt <= creditable;
      const r = await this.write('books.billCreditNote', { id: bill.id, amountCents: amt, reason: `Short ${n}` }, ok);
      if (r.status !== 200) {
        expect(r.body.error.code, this.trace.at(-1)).toBe(code ?? 'BAD_REQUEST');
        return;
      }
      const excess = amt - Math.min(amt, bill.outstanding);
      bill.outstanding -= amt - excess;
      if (bill.outstanding === 0) bill.status = 'paid';
      const gstLeft = bill.gstCents - bill.creditedGst;
      const gst = bill.code !== 'GST_ON_EXPENSES' ? 0 : amt === creditable ? gstLeft : Math.min(gstOfInclusive(amt), gstLeft);
      bill.credited += amt;
      bill.creditedGst += gst;
      expect(
        [r.body.result.status, r.body.result.outstandingCents, r.body.result.gstCents, r.body.result.creditCents],
        this.trace.at(-1),
      ).toEqual([bill.status, bill.outstanding, gst, excess]);
      if (excess > 0) m.credits.push(this.newCredit(r.body.result.creditId, bill.contactId, 'supplier', excess));
      await this.checkBillReversals(bill);
      return;
    }
    // Allocation: mostly of a credit whose contact has an open document.
    const hasOpen = (c: CreditM) =>
      c.side === 'customer'
        ? m.invoices.some((i) => i.contactId === c.contactId && i.outstanding > 0 && (i.status === 'sent' || i.status === 'part_paid'))
        : m.bills.some((b) => b.contactId === c.contactId && b.outstanding > 0 && b.posted && b.status === 'approved');
    const left = m.credits.filter((c) => c.remaining > 0);
    const usable = left.filter(hasOpen);
    const credit = at(a.spent ? m.credits : a.aim === 'own' && usable.length > 0 ? usable : left, a.pick);
    if (!credit) return;
    type Doc = { id: string; contactId?: string; status: string; outstanding: number; payable: boolean; settle: (amt: number) => void };
    const invoices: Doc[] = m.invoices.map((i) => ({
      id: i.id,
      contactId: i.contactId,
      status: i.status,
      outstanding: i.outstanding,
      payable: i.status === 'sent' || i.status === 'part_paid',
      settle: (amt) => {
        i.outstanding -= amt;
        i.status = i.outstanding === 0 ? 'paid' : 'part_paid';
        i.touched = true;
      },
    }));
    const bills: Doc[] = m.bills.map((b) => ({
      id: b.id,
      contactId: b.contactId,
      status: b.status,
      outstanding: b.outstanding,
      payable: b.posted && b.status === 'approved',
      settle: (amt) => {
        b.outstanding -= amt;
        if (b.outstanding === 0) b.status = 'paid';
      },
    }));
    const [mine, theirs] = credit.side === 'customer' ? [invoices, bills] : [bills, invoices];
    const own = mine.filter((d) => d.contactId === credit.contactId);
    const open = own.filter((d) => d.payable && d.outstanding > 0);
    const pool =
      a.aim === 'own' ? (open.length > 0 ? open : own) : a.aim === 'other' ? mine.filter((d) => d.contactId !== credit.contactId) : theirs;
    const doc = at(pool, a.target);
    if (!doc) return;
    const prior = credit.allocations.get(doc.id);
    const amt = a.portion === undefined ? undefined : share(Math.min(credit.remaining, doc.outstanding) || credit.amount, a.portion);
    const applied = amt ?? Math.min(credit.remaining, doc.outstanding);
    // The server's order: the document (kind, contact), a repeat, the document's state, then amounts.
    const expected =
      a.aim === 'kind' || doc.contactId !== credit.contactId
        ? 'BAD_REQUEST'
        : prior !== undefined
          ? amt === undefined || amt === prior
            ? 'noop'
            : 'CONFLICT'
          : !doc.payable || credit.remaining <= 0 || doc.outstanding <= 0
            ? 'CONFLICT'
            : applied > credit.remaining || applied > doc.outstanding
              ? 'BAD_REQUEST'
              : 'ok';
    const r = await this.write(
      'books.creditAllocate',
      { creditId: credit.id, documentId: doc.id, ...(amt === undefined ? {} : { amountCents: amt }) },
      expected === 'ok' || expected === 'noop',
    );
    if (r.status !== 200) {
      expect(r.body.error.code, this.trace.at(-1)).toBe(expected);
      if (expected === 'BAD_REQUEST') expect(r.body.error.field, this.trace.at(-1)).toBe(a.aim === 'own' ? 'amountCents' : 'documentId');
      return;
    }
    if (expected === 'noop') {
      expect([r.body.result.noop, r.body.result.amountCents]).toEqual([true, prior]);
      return;
    }
    doc.settle(applied);
    credit.remaining -= applied;
    credit.allocations.set(doc.id, applied);
    expect([r.body.result.amountCents, r.body.result.creditRemainingCents, r.body.result.outstandingCents], this.trace.at(-1)).toEqual([
      applied,
      credit.remaining,
      doc.outstanding - applied,
    ]);
    expect(r.body.result.status).toBe((credit.side === 'customer' ? m.invoices : m.bills).find((d) => d.id === doc.id)!.status);
  }

  async send(inv: InvoiceM) {
    const ok = inv.status === 'draft' || inv.status === 'sent';
    const r = await this.write('books.invoiceSend', { id: inv.id }, ok || undefined);
    if (!ok) {
      // part_paid, paid, credited: a no-op reply or CONFLICT naming the state; void: CONFLICT.
      if (r.status === 200) expect(r.body.result.noop).toBe(true);
      return;
    }
    if (inv.status === 'draft') {
      inv.status = 'sent';
      inv.outstanding = inv.totalCents;
    }
    expect(r.body.result.outstandingCents).toBe(inv.outstanding);
  }

  async approveBill(bill: BillM) {
    const ok = ['captured', 'held', 'on_hold', 'approved'].includes(bill.status);
    const r = await this.signed('books.billApprove', 'books.bill_approve', { id: bill.id }, ok);
    if (r.status !== 200) return;
    // Approved now (not a no-op): its bank details are the payee's last approved.
    if (bill.status !== 'approved') this.m.approvals = [...this.m.approvals.filter((id) => id !== bill.id), bill.id];
    bill.status = r.body.result.status;
    expect(bill.status).toBe('approved');
    if (!bill.posted) {
      bill.posted = true;
      bill.outstanding = bill.totalCents;
    }
  }

  async assetAct(a: Extract<Act, { kind: 'assetBuy' | 'depreciate' | 'dispose' | 'assetRegister' }>) {
    const m = this.m;
    const n = m.counter;
    if (a.kind === 'assetBuy') {
      const asset = { name: `Machine ${n}`, effectiveLifeYears: a.life, method: a.method };
      if (a.viaBill) {
        const lines = [
          { description: `Machine ${n}`, amountCents: a.amountCents, taxCode: 'GST_ON_CAPITAL', ...(a.pending ? {} : { asset }) },
        ];
        const r = await this.write('books.billCapture', { ...PAYEES[a.payee], description: `Plant ${n}`, lines, dueDays: 30 }, true);
        const bill: BillM = {
          id: r.body.result.id,
          status: r.body.result.status,
          totalCents: a.amountCents,
          posted: false,
          outstanding: 0,
          payee: a.payee,
          contactId: r.body.result.contactId,
          // Its one line is on 1500: no adjustment note credits it.
          code: null,
          gstCents: r.body.result.gstCents,
          credited: 0,
          creditedGst: 0,
        };
        m.bills.push(bill);
        await this.approveBill(bill);
        return;
      }
      // No GST on a journal dated in an earlier month: the GST invariant reads today's tags.
      const lines = [
        { accountCode: '1500', debitCents: a.amountCents, asset },
        { accountCode: '3000', creditCents: a.amountCents },
      ];
      const r = await this.write('books.journalPost', { date: firstOfMonth(a.monthsBack), memo: `Plant ${n}`, lines }, true);
      expect(r.body.result.assetIds).toHaveLength(1);
      return;
    }
    if (a.kind === 'depreciate') {
      const periodEnd = monthEndBack(a.monthsBack);
      const ok = m.assetRuns.has(periodEnd) || m.lastAssetRun === null || periodEnd >= m.lastAssetRun;
      const r = await this.write('books.assetDepreciationRun', { periodEnd }, ok);
      if (r.status !== 200) return;
      expect(r.body.result.noop === true, `a rerun of ${periodEnd} is a no-op`).toBe(m.assetRuns.has(periodEnd));
      m.assetRuns.add(periodEnd);
      if (m.lastAssetRun === null || periodEnd > m.lastAssetRun) m.lastAssetRun = periodEnd;
      return;
    }
    const held = (await this.read('books.assets', {})).assets as any[];
    if (a.kind === 'assetRegister') {
      const pending = held.filter((x) => x.status === 'pending');
      const asset = at(pending, a.pick);
      if (!asset) return;
      await this.write(
        'books.assetRegister',
        { id: asset.id, name: `${asset.name} (registered)`, effectiveLifeYears: a.life, method: 'prime_cost' },
        true,
      );
      return;
    }
    const asset = at(held, a.pick);
    if (!asset) return;
    if (asset.status === 'pending') {
      // Not disposable until registered: CONFLICT, nothing changes.
      await this.write('books.assetDispose', { id: asset.id, date: today(), proceedsCents: a.proceedsCents }, false);
      return;
    }
    const r = await this.write(
      'books.assetDispose',
      { id: asset.id, date: today(), proceedsCents: a.proceedsCents, taxCode: a.gst ? 'GST' : 'GST_FREE' },
      true,
    );
    if (r.body.result.noop) return;
    if (asset.source.kind === 'bill') m.disposedBills.add(asset.source.id);
    if (a.proceedsCents > 0) m.journals.push({ id: r.body.result.journalId, net: a.proceedsCents, matched: 0 });
  }

  async decideClaim(claim: ClaimM, approve: boolean) {
    const method = approve ? 'books.expenseApprove' : 'books.expenseReject';
    const same = claim.status === (approve ? 'approved' : 'rejected');
    const ok = claim.status === 'submitted' || same;
    const r = await this.write(method, approve ? { id: claim.id } : { id: claim.id, reason: 'Not a business expense' }, ok);
    if (r.status !== 200 || same) return;
    claim.status = r.body.result.status;
    if (approve) claim.outstanding = claim.amountCents;
  }

  async match(a: Extract<Act, { kind: 'match' }>) {
    const m = this.m;
    const line = at(
      m.lines.filter((l) => l.status !== 'recoded' && l.applied < Math.abs(l.amountCents)),
      a.pick,
    );
    if (!line) return;
    const moneyIn = line.amountCents > 0;
    type Cand = {
      kind: string;
      id: string;
      owed: number;
      payable: boolean;
      carried?: boolean;
      onDoc: (amt: number, status: string) => void;
    };
    const cands: Cand[] = moneyIn
      ? [
          ...m.invoices.map((i) => ({
            kind: 'invoice',
            id: i.id,
            owed: i.outstanding,
            payable: i.status === 'sent' || i.status === 'part_paid',
            carried: i.carried === true,
            onDoc: (amt: number, status: string) => {
              i.outstanding -= amt;
              i.status = status;
              i.touched = true;
            },
          })),
        ]
      : [
          ...m.bills.map((b) => ({
            kind: 'bill',
            id: b.id,
            owed: b.outstanding,
            payable: b.status === 'approved',
            carried: b.carried === true,
            onDoc: (amt: number, status: string) => {
              b.outstanding -= amt;
              b.status = status;
            },
          })),
          ...m.claims.map((c) => ({
            kind: 'claim',
            id: c.id,
            owed: c.outstanding,
            payable: c.status === 'approved',
            onDoc: (amt: number, status: string) => {
              c.outstanding -= amt;
              c.status = status;
            },
          })),
        ];
    for (const j of m.journals) {
      if (j.net > 0 !== moneyIn) continue;
      cands.push({
        kind: 'journal',
        id: j.id,
        owed: Math.abs(j.net) - j.matched,
        payable: Math.abs(j.net) > j.matched,
        onDoc: (amt) => (j.matched += amt),
      });
    }
    const held = line.held;
    // Mostly a document that can take the money, best an exact amount; sometimes any (wild).
    const fit = cands.filter((c) => c.payable && c.owed > 0);
    const exact = fit.filter((c) => c.owed === Math.abs(line.amountCents) - line.applied);
    const pool = a.wild ? cands : exact.length > 0 && a.target % 2 === 0 ? exact : fit;
    const target = held ? cands.find((c) => c.kind === held.kind && c.id === held.id) : at(pool, a.target);
    if (!target) return;
    const left = Math.abs(line.amountCents) - line.applied;
    const amt = held ? held.amountCents : share(Math.min(left, target.owed) || left, a.portion);
    // The same line and target again: a no-op with the same amount, else CONFLICT.
    const same = line.matches.find((x) => x.kind === target.kind && x.id === target.id);
    if (same) {
      const r = await this.write(
        'books.matchAccept',
        { lineId: line.id, target: { kind: target.kind, id: target.id }, amountCents: amt },
        amt === same.amountCents,
      );
      if (r.status === 200) expect(r.body.result.noop).toBe(true);
      return;
    }
    // Every document here is posted today: a line dated before it cannot pay it (a journal can).
    // Documents carried in by opening balances were posted at the conversion date, before any line.
    const early = target.kind !== 'journal' && !target.carried && line.date < today();
    const ok = target.payable && target.owed > 0 && amt <= left && amt <= target.owed && !early;
    const params = { lineId: line.id, target: { kind: target.kind, id: target.id }, amountCents: amt };
    const aboveFloor = Math.abs(line.amountCents) > 100_000;
    let r: Reply;
    if (held) {
      r = await this.signed('books.matchHoldResolve', 'books.match_hold_resolve', params, ok);
    } else {
      r = await this.write('books.matchAccept', params, ok);
      if (r.status === 200 && aboveFloor) {
        expect(r.body.result.status).toBe('held');
        line.status = 'held';
        line.held = { kind: target.kind, id: target.id, amountCents: amt };
        if (a.leaveHeld) return;
        r = await this.signed('books.matchHoldResolve', 'books.match_hold_resolve', params, true);
      }
    }
    if (r.status !== 200) return;
    line.applied += amt;
    const made = r.body.result.match as { id: string; journalId: string };
    line.matches.push({ kind: target.kind, id: target.id, amountCents: amt, matchId: made.id });
    if (target.kind === 'journal') line.journalApplied += amt;
    if (target.kind === 'invoice') {
      const pay = await this.t.db.reader.get<{ id: string }>('SELECT id FROM invoice_payments WHERE org_id = ? AND journal_id = ?', [
        this.o.orgId,
        made.journalId,
      ]);
      const inv = m.invoices.find((i) => i.id === target.id);
      expect(pay, `the match's payment of invoice ${target.id}`).toBeDefined();
      (inv!.payments ??= []).push({ id: pay!.id, amt, state: 'ok', matchId: made.id });
    }
    if (target.kind === 'bill')
      (m.bills.find((b) => b.id === target.id)!.payments ??= []).push({ id: made.id, amt, state: 'ok', matchId: made.id });
    if (target.carried && line.date < today()) {
      // Paid on a day before today: as at yesterday the carried-in document owes less.
      if (target.kind === 'invoice') m.yShift.ar -= amt;
      if (target.kind === 'bill') m.yShift.ap -= amt;
      m.yShift.bank += line.amountCents > 0 ? amt : -amt;
    }
    line.held = null;
    line.status = r.body.result.status;
    target.onDoc(amt, r.body.result.document?.status ?? '');
    expect(r.body.result.document.outstandingCents, this.trace.at(-1)).toBe(target.owed - amt);
  }

  /** Opening balances: the bank, open invoices and bills carried in, super and PAYG owed, equity the rest. */
  async opening(a: OpeningAct): Promise<void> {
    const m = this.m;
    const { params, invoices, bills, receivable, payable } = this.openingParams(a);
    // Carried-in bills face the bill-approval rule as captured ones do (nothing is approved yet, so none is known).
    const held = bills.map((x, i) => m.heldReason(a.bills[i]!.payee, x.outstandingCents));
    const r = await this.write('books.openingBalances', params, true);
    const res = r.body.result;
    expect(res.bills, this.trace.at(-1)).toEqual(
      res.billIds.map((id: string, i: number) => ({ id, status: held[i] ? 'held' : 'approved', heldReason: held[i] })),
    );
    invoices.forEach((x, i) =>
      m.invoices.push({
        id: res.invoiceIds[i],
        status: x.outstandingCents < x.totalCents ? 'part_paid' : 'sent',
        totalCents: x.totalCents,
        outstanding: x.outstandingCents,
        lines: [{ amountCents: x.totalCents, taxCode: 'BAS_EXCLUDED', accountCode: '4000' }],
        creditedByCode: new Map(),
        gstCents: 0,
        creditedGst: 0,
        touched: true,
        carried: true,
        payments: [],
      }),
    );
    a.bills.forEach((x, i) =>
      m.bills.push({
        id: res.billIds[i],
        status: held[i] ? 'held' : 'approved',
        totalCents: x.totalCents,
        posted: true,
        outstanding: bills[i]!.outstandingCents,
        payee: x.payee,
        carried: true,
        payments: [],
        // Carried in with one line on 6000, BAS excluded (no GST given).
        code: 'BAS_EXCLUDED',
        gstCents: 0,
        credited: 0,
        creditedGst: 0,
      }),
    );
    m.opening = { receivable, payable, bank: a.bankCents, super: a.superCents, payg: a.paygCents };
    m.openedWith = JSON.stringify(params);
    m.journals.push({ id: res.journalId, net: a.bankCents, matched: 0 });
    // Again with the same params: a no-op.
    const again = await this.write('books.openingBalances', params, true);
    expect(again.body.result.noop).toBe(true);
    expect(again.body.result.bills).toEqual(res.bills);
  }

  /**
   * Opening balances tried later: recorded only while the organisation neither trades nor has
   * converted (the same params again: a no-op); else CONFLICT, and nothing changes.
   */
  async reopen(a: OpeningAct): Promise<void> {
    const m = this.m;
    const { params } = this.openingParams(a);
    if (m.openedWith === null && !m.traded) {
      await this.opening(a);
      return;
    }
    const same = m.openedWith === JSON.stringify(params);
    const before = await this.read('books.accounts', {});
    const r = await this.write('books.openingBalances', params, same);
    if (same) {
      expect(r.body.result.noop).toBe(true);
      return;
    }
    expect(r.status, this.trace.at(-1)).toBe(409);
    expect(r.body.error.message, this.trace.at(-1)).toContain(m.openedWith !== null ? 'recorded once' : 'already trades here');
    expect(await this.read('books.accounts', {}), `accounts after a refused conversion ${this.trace.at(-1)}`).toEqual(before);
  }

  openingParams(a: OpeningAct) {
    const conv = conversionDate();
    const invoices = a.invoices.map((x, i) => ({
      number: `OB-${i + 1}`,
      issueDate: addDays(conv, -40),
      dueDate: addDays(conv, -40 + x.dueBack),
      payeeName: `Customer ${i % 3}`,
      description: `Carried in ${i}`,
      totalCents: x.totalCents,
      outstandingCents: x.part ? Math.max(1, Math.floor(x.totalCents / 2)) : x.totalCents,
    }));
    const bills = a.bills.map((x, i) => ({
      ...PAYEES[x.payee],
      reference: `OLD-${i + 1}`,
      issueDate: addDays(conv, -20),
      dueDate: addDays(conv, 10),
      description: `Carried in ${i}`,
      totalCents: x.totalCents,
      outstandingCents: x.part ? Math.max(1, Math.floor(x.totalCents / 2)) : x.totalCents,
    }));
    const receivable = invoices.reduce((s, x) => s + x.outstandingCents, 0);
    const payable = bills.reduce((s, x) => s + x.outstandingCents, 0);
    const equity = a.bankCents + receivable - payable - a.superCents - a.paygCents;
    const accounts = [
      { accountCode: '1000', debitCents: a.bankCents },
      ...(a.superCents > 0 ? [{ accountCode: '2300', creditCents: a.superCents }] : []),
      ...(a.paygCents > 0 ? [{ accountCode: '2200', creditCents: a.paygCents }] : []),
      ...(equity > 0 ? [{ accountCode: '3000', creditCents: equity }] : equity < 0 ? [{ accountCode: '3000', debitCents: -equity }] : []),
    ];
    return { params: { conversionDate: conv, accounts, invoices, bills }, invoices, bills, receivable, payable };
  }

  /** Super or PAYG withholding paid from the bank today: a share of what the account owes now. */
  async liabilityPay(account: '2300' | '2200', portion: number): Promise<void> {
    const m = this.m;
    const signed = m.payRuns.filter((r) => r.status === 'signed' && r.paymentDate <= today());
    const owed =
      account === '2300'
        ? m.opening.super + signed.reduce((s, r) => s + r.superCents, 0) - m.paidTo('2300') - m.superPaid
        : m.opening.payg + signed.reduce((s, r) => s + r.paygCents, 0) - m.paidTo('2200');
    const amt = share(owed > 0 ? owed : 10_000, portion);
    const lines = [
      { accountCode: account, debitCents: amt },
      { accountCode: '1000', creditCents: amt },
    ];
    const r = await this.write('books.journalPost', { date: today(), memo: `Paid ${account} ${m.counter}`, lines }, true);
    m.journals.push({ id: r.body.result.journalId, net: -amt, matched: 0, manual: true, pays: account });
  }

  /**
   * Super paid by books.superPay through today from a bank account record (not 1000): the runs it
   * pays are signed, paid by today, never paid before, each in full; nothing owed is CONFLICT.
   */
  async superPay(): Promise<void> {
    const m = this.m;
    if (m.superAccount === null) {
      // The owner's act (the console's), without a console sign-in: its per-address budget would
      // refuse the sign-ins of a long run.
      const { account } = await createBankAccount(this.t.db, {
        orgId: this.o.orgId,
        actor: this.o.owner.userId,
        input: parseBankAccountCreate({ kind: 'bank', name: 'Super clearing' }),
      });
      m.superAccount = account.id;
      m.superCode = account.accountCode;
    }
    const params = { through: today(), paymentDate: today(), fundingAccountId: m.superAccount };
    const r = await this.signed('books.superPay', 'books.payroll_sign', params);
    if (r.status !== 200) {
      expect(r.body.error.message, this.trace.at(-1)).toContain('nothing is owed');
      return;
    }
    if (r.body.result.noop) return;
    for (const p of r.body.result.payRuns as { payRunId: string; superCents: number }[]) {
      const run = m.payRuns.find((x) => x.id === p.payRunId);
      expect(run?.status === 'signed' && run.paymentDate <= today() && !m.superPaidRuns.has(p.payRunId), this.trace.at(-1)).toBe(true);
      expect(p.superCents).toBe(run?.superCents);
      m.superPaidRuns.add(p.payRunId);
    }
    m.superPaid += r.body.result.totalCents as number;
  }

  /** Unmatch a bank line, dishonour a receipt, return a supplier payment, reverse a journal. */
  async correction(a: Extract<Act, { kind: 'unmatch' | 'dishonour' | 'payReturn' | 'reverse' }>): Promise<void> {
    const m = this.m;
    const reopenInvoice = (inv: InvoiceM, amt: number) => {
      inv.outstanding += amt;
      inv.status = inv.outstanding >= inv.totalCents ? 'sent' : 'part_paid';
    };
    if (a.kind === 'unmatch') {
      // Mostly a line with something to undo (or held); sometimes any line (a no-op).
      const undoable = m.lines.filter((l) => l.matches.length > 0 || l.status === 'recoded' || l.status === 'held');
      const line = at(a.target % 4 === 0 || undoable.length === 0 ? m.lines : undoable, a.pick);
      if (!line) return;
      const one = a.one ? at(line.matches, a.target) : undefined;
      const targets = one ? [one] : line.matches;
      const paymentOf = (x: LineM['matches'][number]) =>
        x.kind === 'invoice'
          ? m.invoices.find((i) => i.id === x.id)?.payments?.find((p) => p.matchId === x.matchId)
          : x.kind === 'bill'
            ? m.bills.find((b) => b.id === x.id)?.payments?.find((p) => p.matchId === x.matchId)
            : undefined;
      const blocked = line.status !== 'recoded' && targets.some((x) => paymentOf(x)?.state === 'undone');
      const ok = line.status !== 'held' && !blocked;
      const r = await this.write('books.lineUnmatch', { lineId: line.id, ...(one ? { matchId: one.matchId } : {}) }, ok);
      if (r.status !== 200) {
        expect(r.body.error.code).toBe('CONFLICT');
        return;
      }
      if (line.status === 'recoded') {
        line.status = 'unmatched';
        expect(r.body.result.status).toBe('unmatched');
        return;
      }
      expect(r.body.result.noop === true, `no-op when nothing is matched ${this.trace.at(-1)}`).toBe(targets.length === 0);
      for (const x of targets) {
        line.applied -= x.amountCents;
        const pay = paymentOf(x);
        if (pay) pay.state = 'unmatched';
        if (x.kind === 'journal') {
          line.journalApplied -= x.amountCents;
          m.journals.find((j) => j.id === x.id)!.matched -= x.amountCents;
        } else if (x.kind === 'invoice') {
          reopenInvoice(
            m.invoices.find((i) => i.id === x.id)!,
            x.amountCents,
          );
        } else if (x.kind === 'bill') {
          const b = m.bills.find((d) => d.id === x.id)!;
          b.outstanding += x.amountCents;
          if (b.status === 'paid') b.status = 'approved';
        } else {
          const c = m.claims.find((d) => d.id === x.id)!;
          c.outstanding += x.amountCents;
          if (c.status === 'paid') c.status = 'approved';
        }
      }
      line.matches = line.matches.filter((x) => !targets.includes(x));
      if (targets.length > 0) line.status = line.applied === 0 ? 'unmatched' : 'part_matched';
      expect(r.body.result.status).toBe(line.status);
      return;
    }
    if (a.kind === 'dishonour') {
      const inv = at(
        m.invoices.filter((i) => (i.payments ?? []).length > 0),
        a.pick,
      );
      const pay = inv && at(inv.payments!, a.target);
      if (!inv || !pay) return;
      // An overpayment's credit goes back with it: only while none of the credit was used.
      const credit = pay.creditId === undefined ? undefined : m.credits.find((c) => c.id === pay.creditId);
      const used = credit !== undefined && credit.remaining !== credit.amount;
      const r = await this.write(
        'books.invoicePaymentDishonour',
        { id: inv.id, paymentId: pay.id, reason: 'Dishonoured' },
        pay.state === 'undone' || (pay.state === 'ok' && !used),
      );
      if (r.status !== 200) return;
      expect(r.body.result.noop === true).toBe(pay.state === 'undone');
      if (pay.state === 'undone') return;
      pay.state = 'undone';
      reopenInvoice(inv, pay.amt);
      expect(r.body.result.outstandingCents).toBe(inv.outstanding);
      expect(r.body.result.status).toBe(inv.status);
      if (credit) credit.remaining = 0;
      m.journals.push({ id: r.body.result.journalId, net: -(pay.bank ?? pay.amt), matched: 0 });
      return;
    }
    if (a.kind === 'payReturn') {
      const bill = at(
        m.bills.filter((b) => (b.payments ?? []).length > 0),
        a.pick,
      );
      const pay = bill && at(bill.payments!, a.target);
      if (!bill || !pay) return;
      const r = await this.write(
        'books.billPaymentReturn',
        { id: bill.id, paymentId: pay.id, reason: 'Returned by the bank' },
        pay.state !== 'unmatched',
      );
      if (r.status !== 200) return;
      expect(r.body.result.noop === true).toBe(pay.state === 'undone');
      if (pay.state === 'undone') return;
      pay.state = 'undone';
      bill.outstanding += pay.amt;
      if (bill.status === 'paid') bill.status = 'approved';
      expect(r.body.result.outstandingCents).toBe(bill.outstanding);
      m.journals.push({ id: r.body.result.journalId, net: pay.amt, matched: 0 });
      return;
    }
    const j = at(m.journals, a.pick);
    if (!j) return;
    const ok = j.manual === true && (j.reversed === true || j.matched === 0);
    const r = await this.write('books.journalReverse', { journalId: j.id, reason: 'Posted in error' }, ok);
    if (r.status !== 200) {
      expect(r.body.error.code).toBe('CONFLICT');
      return;
    }
    expect(r.body.result.noop === true).toBe(j.reversed === true);
    if (j.reversed) return;
    j.reversed = true;
    m.journals.push({ id: r.body.result.reversalJournalId, net: -j.net, matched: 0 });
  }

  // ------------------------------------------------------------ the invariants

  /** Credit notes reverse the revenue accounts they credit: never more on an account than it earned. */
  async checkCreditedAccounts(inv: InvoiceM): Promise<void> {
    type J = { source: { kind: string }; lines: { accountCode: string; debitCents: number; creditCents: number }[] };
    const { journals } = (await this.read('books.journals', { sourceId: inv.id, limit: 200 })) as { journals: J[] };
    const net = (kind: string, code: string) =>
      journals
        .filter((j) => j.source.kind === kind)
        .flatMap((j) => j.lines)
        .filter((l) => l.accountCode === code)
        .reduce((s, l) => s + l.creditCents - l.debitCents, 0);
    for (const code of ['4000', '4200']) {
      const earned = net('invoice', code);
      const reversed = -net('credit_note', code);
      expect({ invoice: inv.id, code, ok: reversed >= 0 && reversed <= earned }, `${code}: ${reversed} of ${earned}`).toEqual({
        invoice: inv.id,
        code,
        ok: true,
      });
    }
  }

  /**
   * Adjustment notes and a return reverse a bill's expense and GST: together never more on an
   * account than the bill's own posting put there (a carried-in bill's expense was the old
   * system's: its notes reverse what was never posted here, as a carried-in invoice's do).
   */
  async checkBillReversals(bill: BillM): Promise<void> {
    if (bill.carried) return;
    type J = { source: { kind: string }; lines: { accountCode: string; debitCents: number; creditCents: number }[] };
    const { journals } = (await this.read('books.journals', { sourceId: bill.id, limit: 200 })) as { journals: J[] };
    const net = (kinds: string[], code: string) =>
      journals
        .filter((j) => kinds.includes(j.source.kind))
        .flatMap((j) => j.lines)
        .filter((l) => l.accountCode === code)
        .reduce((s, l) => s + l.debitCents - l.creditCents, 0);
    const codes = [...new Set(journals.filter((j) => j.source.kind === 'bill').flatMap((j) => j.lines.map((l) => l.accountCode)))];
    for (const code of codes.filter((c) => c !== '2000')) {
      const posted = net(['bill'], code);
      const reversed = -net(['bill_credit_note', 'bill_return'], code);
      expect(
        { bill: bill.id, code, ok: reversed >= 0 && reversed <= posted },
        `${code}: ${reversed} reversed of ${posted} ${this.trace.at(-1)}`,
      ).toEqual({ bill: bill.id, code, ok: true });
    }
  }

  async read(method: string, params: Record<string, unknown>) {
    const r = await this.t.post(this.o.keys.reader, method, params);
    expect(r.status, `${method} ${JSON.stringify(params)} → ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
    return r.body.result;
  }

  /**
   * An aged report read a few items a page with each nextCursor, held to the whole report the
   * server reads in one go (its overview, digest and books.ask): the same items in the same order,
   * every page's totals the whole report's. Returned whole.
   */
  async agedPaged(type: 'aged_receivables' | 'aged_payables', where: string) {
    const whole = await agedReport(this.t.db.reader, this.o.orgId, type, await orgToday(this.t.db, this.o.orgId));
    const items: { id: string; outstandingCents: number }[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await this.read('books.reports', { type, limit: 5, ...(cursor ? { cursor } : {}) });
      expect(page.totals, `${type} page totals ${where}`).toEqual(whole.totals);
      items.push(...(page.parties as { items: { id: string; outstandingCents: number }[] }[]).flatMap((p) => p.items));
      cursor = page.nextCursor;
    } while (cursor !== null);
    const ids = (list: readonly { id: string; outstandingCents: number }[]) => list.map((i) => `${i.id} ${i.outstandingCents}`);
    expect(ids(items), `${type} pages ${where}`).toEqual(ids(whole.parties.flatMap((p) => p.items)));
    return whole;
  }

  async all<T>(method: string, field: string, params: Record<string, unknown>): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await this.read(method, { ...params, limit: 200, ...(cursor ? { cursor } : {}) });
      out.push(...page[field]);
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  async payAct(a: Extract<Act, { kind: 'hire' | 'payRun' | 'paySign' | 'payRecall' }>): Promise<void> {
    const m = this.m;
    if (a.kind === 'hire') {
      const pay = a.hourly
        ? { employmentBasis: 'part_time', hourlyRateCents: 3_500, hoursPerWeek: 25 }
        : { employmentBasis: 'full_time', annualSalaryCents: 6_500_000 };
      const e = await this.write(
        'books.onboardingStart',
        { name: `Staff ${m.counter}`, email: 'staff@example.com', startDate: '2025-01-01', payFrequency: 'weekly', ...pay },
        true,
      );
      const id = e.body.result.id as string;
      await this.write(
        'books.onboardingAdvance',
        { id, step: 'tax_declaration', taxFileNumber: '876543210', residency: 'resident', claimsTaxFreeThreshold: a.hourly },
        true,
      );
      await this.write(
        'books.onboardingAdvance',
        { id, step: 'super', fundName: 'AustralianSuper', fundAbn: '65 714 394 898', memberNumber: 'M-1' },
        true,
      );
      await this.signed('books.onboardingAdvance', 'books.onboarding_advance', { id, step: 'contract', title: 'Joiner' }, true);
      m.employees += 1;
      return;
    }
    if (a.kind === 'payRun') {
      // Each run pays its own past week, so runs never overlap.
      const k = m.payRuns.length;
      const staff = a.items ? await this.all<{ id: string }>('books.employees', 'employees', { status: 'active' }) : [];
      const earnings = staff.flatMap((e) => [
        { employeeId: e.id, type: 'overtime', hours: 1.25, multiplier: 1.5 },
        { employeeId: e.id, type: 'allowance', amountCents: 1_234, category: 'TD' },
        { employeeId: e.id, type: 'bonus', amountCents: 25_000 },
      ]);
      const r = await this.write(
        'books.payrollDraft',
        {
          periodStart: inDays(-7 * k - 7),
          periodEnd: inDays(-7 * k - 1),
          paymentDate: a.ahead ? inDays(3) : today(),
          payFrequency: 'weekly',
          ...(earnings.length > 0 ? { earnings } : {}),
        },
        m.employees > 0,
      );
      if (r.status !== 200) return;
      const x = r.body.result;
      const paidStaff = (x.lines as unknown[]).length;
      const run: PayRunM = {
        id: x.id,
        status: 'draft',
        paymentDate: x.paymentDate,
        ...x.totals,
        bonusCents: staff.length > 0 ? paidStaff * 25_000 : 0,
        allowanceCents: staff.length > 0 ? paidStaff * 1_234 : 0,
      };
      m.payRuns.push(run);
      if (a.sign) await this.paySign(run);
      return;
    }
    const run = at(m.payRuns, a.pick);
    if (!run) return;
    if (a.kind === 'paySign') {
      await this.paySign(run);
      return;
    }
    const ok = run.status !== 'signed' || run.paymentDate > today();
    const r = await this.write('books.payrollRecall', { id: run.id, reason: 'property test' }, ok);
    if (r.status === 200) run.status = 'recalled';
  }

  async paySign(run: PayRunM): Promise<void> {
    const r = await this.signed('books.payrollSign', 'books.payroll_sign', { id: run.id }, run.status !== 'recalled');
    if (r.status === 200) {
      expect(r.body.result.status).toBe('signed');
      run.status = 'signed';
    }
  }

  /**
   * 2200, 2300, 2400 (and 6100, 6200) equal the signed runs paid by `asOf` (2200 and 2300 with
   * what the conversion carried in, less what was paid to them): the model and the server's pay
   * runs. books.taxObligations owes what the accounts say: the super outstanding (carried in and
   * per run) is 2300's balance (nothing when paid ahead), the PAYG carried in is what payments to
   * 2200 have not covered of it.
   */
  /**
   * The payroll reports against the model, once per run (after its last act: each report reads
   * every run and leave entry, too dear to repeat after every act).
   */
  async checkPayrollReports(where: string): Promise<void> {
    for (const asOf of [today(), inDays(10)]) {
      const paid = this.m.payRuns.filter((r) => r.status === 'signed' && r.paymentDate <= asOf);
      const sum = (k: 'grossCents' | 'paygCents' | 'superCents' | 'netCents' | 'bonusCents' | 'allowanceCents') =>
        paid.reduce((s, r) => s + r[k], 0);
      // The payroll activity report over everything paid by asOf is these signed runs; the leave
      // balances report is the leave ledger as at asOf, one row per employee hired.
      const activity = await this.read('books.reports', { type: 'payroll_activity', from: '2000-01-01', to: asOf });
      const pa = activity.totals;
      // Pay items: gross by earnings type adds up to gross (each item type present only when paid).
      const byType = Object.values(pa.earnings as Record<string, number>).reduce((a, v) => a + v, 0);
      expect(byType, `payroll activity earnings by type to ${asOf} ${where}`).toBe(pa.grossCents);
      expect(
        [
          pa.runs,
          pa.grossCents,
          pa.paygWithheldCents,
          pa.superCents,
          pa.netCents,
          pa.earnings.bonusesCommissionsCents ?? 0,
          pa.earnings.allowancesCents ?? 0,
        ],
        `payroll activity to ${asOf} ${where}`,
      ).toEqual([
        paid.length,
        sum('grossCents'),
        sum('paygCents'),
        sum('superCents'),
        sum('netCents'),
        sum('bonusCents'),
        sum('allowanceCents'),
      ]);
      const leave = await this.read('books.reports', { type: 'leave_balances', asOf });
      const ledger = await this.t.db.reader.get<{ s: number | string | null }>(
        'SELECT SUM(milli_hours) AS s FROM leave_ledger WHERE org_id = ? AND on_date <= ?',
        [this.o.orgId, asOf],
      );
      expect(
        [leave.employees.length, leave.totals.annual.milliHours + leave.totals.personal.milliHours],
        `leave balances as at ${asOf} ${where}`,
      ).toEqual([this.m.employees, Number(ledger?.s ?? 0)]);
    }
    await this.checkLeaveLedger(where);
  }

  /**
   * Each employee's leave balance (books.employees) is accruals − leave taken − leave paid out on
   * termination (each entry of its sign), plus anything carried in: nothing else moves it.
   */
  async checkLeaveLedger(where: string): Promise<void> {
    const rows = await this.t.db.reader.all<{ employee_id: string; leave_type: string; kind: string; s: number | string }>(
      'SELECT employee_id, leave_type, kind, SUM(milli_hours) AS s FROM leave_ledger WHERE org_id = ? GROUP BY employee_id, leave_type, kind',
      [this.o.orgId],
    );
    for (const e of await this.all<any>('books.employees', 'employees', {})) {
      for (const type of ['annual', 'personal'] as const) {
        const of = (k: string) =>
          rows.filter((r) => r.employee_id === e.id && r.leave_type === type && r.kind === k).reduce((a, r) => a + Number(r.s), 0);
        const other = rows
          .filter((r) => r.employee_id === e.id && r.leave_type === type && !['accrual', 'taken', 'payout'].includes(r.kind))
          .reduce((a, r) => a + Number(r.s), 0);
        const [accrued, taken, paidOut] = [of('accrual'), -of('taken'), -of('payout')];
        expect([accrued >= 0, taken >= 0, paidOut >= 0], `leave entries' signs, ${e.id} ${type} ${where}`).toEqual([true, true, true]);
        expect(e.leave[type].balanceMilliHours, `${type} leave of ${e.id} ${where}`).toBe(accrued - taken - paidOut + other);
        if (e.status === 'terminated' && type === 'annual') expect(e.leave.annual.balanceMilliHours, `${e.id} paid out ${where}`).toBe(0);
      }
    }
  }

  /** Every line's pay items sum into its gross: OTE is gross less overtime, items never exceed gross, net = gross − sacrifice − PAYG. */
  async checkPayItems(where: string): Promise<void> {
    const lines = await this.t.db.reader.all<Record<string, number | string>>(
      `SELECT l.pay_run_id, l.employee_id, l.gross_cents, l.ote_cents, l.net_cents, l.payg_cents, l.salary_sacrifice_cents,
         (SELECT SUM(i.amount_cents) FROM pay_run_items i WHERE i.org_id = l.org_id AND i.pay_run_id = l.pay_run_id
            AND i.employee_id = l.employee_id AND i.item_type = 'overtime') AS overtime,
         (SELECT SUM(i.amount_cents) FROM pay_run_items i WHERE i.org_id = l.org_id AND i.pay_run_id = l.pay_run_id
            AND i.employee_id = l.employee_id AND i.item_type <> 'salary_sacrifice') AS items
       FROM pay_run_lines l WHERE l.org_id = ?`,
      [this.o.orgId],
    );
    for (const l of lines) {
      const n = (k: string) => Number(l[k] ?? 0);
      expect(
        [n('ote_cents') + n('overtime'), n('items') <= n('gross_cents'), n('gross_cents') - n('salary_sacrifice_cents') - n('payg_cents')],
        `pay items of ${String(l.employee_id)} in ${String(l.pay_run_id)} ${where}`,
      ).toEqual([n('gross_cents'), true, n('net_cents')]);
    }
  }

  async checkPayroll(where: string): Promise<void> {
    for (const asOf of [today(), inDays(10)]) {
      const { accounts } = await this.read('books.accounts', { asOf });
      const bal = (code: string) => accounts.find((x: any) => x.code === code).balanceCents as number;
      const paid = this.m.payRuns.filter((r) => r.status === 'signed' && r.paymentDate <= asOf);
      const sum = (k: 'grossCents' | 'paygCents' | 'superCents' | 'netCents') => paid.reduce((s, r) => s + r[k], 0);
      const sub = await this.t.db.reader.get<Record<string, number | string | null>>(
        `SELECT SUM(payg_cents) AS payg, SUM(super_cents) AS sup, SUM(net_cents) AS net FROM pay_runs
         WHERE org_id = ? AND status = 'signed' AND payment_date <= ?`,
        [this.o.orgId, asOf],
      );
      const m = this.m;
      const expected = [sum('paygCents'), sum('superCents'), sum('netCents'), sum('grossCents'), sum('superCents')];
      expect([Number(sub?.payg ?? 0), Number(sub?.sup ?? 0), Number(sub?.net ?? 0)], `pay run sub-ledger as at ${asOf} ${where}`).toEqual(
        expected.slice(0, 3),
      );
      const payg = m.opening.payg + sum('paygCents') - m.paidTo('2200');
      const sup = m.opening.super + sum('superCents') - m.paidTo('2300') - m.superPaid;
      expect([bal('2200'), bal('2300'), bal('2400'), bal('6100'), bal('6200')], `payroll accounts as at ${asOf} ${where}`).toEqual([
        payg,
        sup,
        ...expected.slice(2),
      ]);
      const { obligations } = await this.read('books.taxObligations', { asOf });
      const owed = (kinds: string[]) =>
        (obligations as any[]).filter((x) => kinds.includes(x.kind)).reduce((s, x) => s + x.outstandingCents, 0);
      expect(owed(['super_carried_in', 'super_guarantee']), `super outstanding vs 2300 as at ${asOf} ${where}`).toBe(
        Math.max(0, bal('2300')),
      );
      const paygIn = (obligations as any[]).filter((x) => x.kind === 'payg_carried_in');
      expect(
        paygIn.map((x) => x.outstandingCents),
        `PAYG carried in as at ${asOf} ${where}`,
      ).toEqual(m.opening.payg > 0 ? [Math.max(0, m.opening.payg - m.paidTo('2200'))] : []);
    }
  }

  async check(): Promise<void> {
    const m = this.m;
    const where = `after:\n  ${this.trace.slice(-6).join('\n  ')}`;
    const { accounts } = await this.read('books.accounts', {});
    const bal = (code: string) => accounts.find((a: any) => a.code === code).balanceCents as number;

    const tb = await this.read('books.reports', { type: 'trial_balance' });
    const dr = tb.rows.reduce((s: number, r: any) => s + r.debitCents, 0);
    const cr = tb.rows.reduce((s: number, r: any) => s + r.creditCents, 0);
    expect(dr, `trial balance ${where}`).toBe(cr);
    expect(tb.totals).toEqual({ debitCents: dr, creditCents: cr });
    const bs = await this.read('books.reports', { type: 'balance_sheet' });
    expect(bs.balanced, where).toBe(true);
    // Reads sum the tables kept beside the ledger (totals per account and day, balances and words
    // per document, …): each equals a rebuild from the rows it is kept from, after every act.
    for (const kept of await keptTablesDrift(this.t.db.reader, this.o.orgId)) expect(kept.drift, `${kept.table} ${where}`).toEqual([]);
    const cashCodes = ['1000', '1300', ...(m.superCode === null ? [] : [m.superCode])].sort();

    const invoices = await this.all<any>('books.invoices', 'invoices', {});
    expect(invoices.length).toBe(m.invoices.length);
    for (const inv of m.invoices) {
      const s = invoices.find((x) => x.id === inv.id);
      expect({ id: inv.id, outstanding: s.outstandingCents }, where).toEqual({ id: inv.id, outstanding: inv.outstanding });
      inv.contactId ??= s.contactId;
    }
    // 1100 holds the open invoices less what is left of the customers' credits (each a credit balance under its id).
    const openInvoices = invoices.reduce((s, x) => s + x.outstandingCents, 0);
    // An aged report lists each open credit as a negative item of its contact.
    const creditItems = (aged: any) =>
      (aged.parties as { items: { id: string; outstandingCents: number }[] }[])
        .flatMap((p) => p.items)
        .filter((x) => x.id.startsWith('crd_'))
        .reduce((s, x) => s + x.outstandingCents, 0);
    expect(bal('1100'), `1100 vs open invoices less customer credits ${where}`).toBe(openInvoices - m.credit('customer'));
    expect(bal('1100')).toBe(m.receivable() - m.credit('customer'));
    const ar = await this.agedPaged('aged_receivables', where);
    expect([ar.totals.totalCents, ar.controlAccount.balanceCents], `aged receivables ${where}`).toEqual([bal('1100'), bal('1100')]);
    expect(creditItems(ar), `aged receivables' credit items ${where}`).toBe(0 - m.credit('customer') || 0);

    const bills = await this.all<any>('books.bills', 'bills', {});
    for (const b of m.bills) {
      const s = bills.find((x) => x.id === b.id);
      expect(s.status, where).toBe(b.status);
      if (b.posted) expect({ id: b.id, outstanding: s.outstandingCents }, where).toEqual({ id: b.id, outstanding: b.outstanding });
      b.contactId ??= s.contactId;
    }
    // 2000 holds the open posted bills less what is left of the suppliers' credits (debit balances under their ids).
    const openBills = bills.filter((x) => x.journalId !== null).reduce((s, x) => s + x.outstandingCents, 0);
    expect(bal('2000'), `2000 vs open bills less supplier credits ${where}`).toBe(openBills - m.credit('supplier'));
    expect(bal('2000')).toBe(m.payable() - m.credit('supplier'));
    const ap = await this.agedPaged('aged_payables', where);
    expect([ap.totals.totalCents, ap.controlAccount.balanceCents], `aged payables ${where}`).toEqual([bal('2000'), bal('2000')]);
    expect(creditItems(ap), `aged payables' credit items ${where}`).toBe(0 - m.credit('supplier') || 0);
    await this.checkCredits(where);
    expect(bal('2500'), `2500 vs approved claims ${where}`).toBe(m.claimsPayable());

    const feed = await this.read('books.feedLinesList', { status: 'all', suggestions: false, limit: 200 });
    const lines = feed.lines as any[];
    if (feed.nextCursor === null) {
      for (const l of m.lines) {
        const s = lines.find((x) => x.id === l.id);
        expect({ id: l.id, status: s.status, matched: s.matchedCents }, where).toEqual({
          id: l.id,
          status: l.status,
          matched: l.status === 'recoded' ? 0 : l.applied,
        });
      }
    }
    expect(feed.summary.ledgerBalanceCents).toBe(bal('1000'));
    expect(feed.summary.unreconciledCents, `unreconciled feed ${where}`).toBe(m.unreconciledLines());
    expect(bal('1000'), `bank = feed − unreconciled lines + unreconciled postings ${where}`).toBe(
      m.feedTotal() - feed.summary.unreconciledCents + m.unreconciledPostings(),
    );

    // Only invoices touch 4000 and 4200 here. A credit note reverses the revenue of the lines it
    // credits, so neither account goes below zero, and together they hold what the model says.
    const live = m.invoices.filter((i) => i.status !== 'draft' && i.status !== 'void' && !i.carried);
    const credited = (i: InvoiceM) => [...i.creditedByCode.values()].reduce((s, c) => s + c, 0);
    const revenue = live.reduce((s, i) => s + i.totalCents - i.gstCents - (credited(i) - i.creditedGst), 0);
    expect([bal('4000') >= 0, bal('4200') >= 0], `revenue accounts not negative ${where}`).toEqual([true, true]);
    expect(bal('4000') + bal('4200'), `4000 + 4200 vs invoiced less credited ${where}`).toBe(revenue);

    const gst = await this.read('books.reports', { type: 'gst_summary', from: today(), to: today() });
    expect(bal('2100'), `2100 vs GST on sales ${where}`).toBe(gst.accountsMethod.gstOnSalesCents);
    expect(bal('1200'), `1200 vs GST on purchases ${where}`).toBe(gst.accountsMethod.gstOnPurchasesCents);

    // The fixed asset register is 1500 − 1510, today and as at yesterday.
    const register = await this.read('books.assets', {});
    expect(register.totals, `register vs 1500 − 1510 ${where}`).toEqual({
      costCents: bal('1500'),
      accumulatedDepreciationCents: 0 - bal('1510') || 0,
      bookValueCents: bal('1500') + bal('1510'),
    });
    // Pending assets (on 1500 at cost, awaiting books.assetRegister) are part of it, and counted apart.
    const pending = (register.assets as any[]).filter((x) => x.status === 'pending');
    expect(register.pending, `pending assets ${where}`).toEqual({
      count: pending.length,
      costCents: pending.reduce((sum: number, x: any) => sum + x.costCents, 0),
    });

    // As at yesterday, before every document: nothing owed either way; the bank holds only
    // the recoded lines of that day; the reports agree with the accounts.
    const y = yesterday();
    const before = (await this.read('books.accounts', { asOf: y })).accounts as any[];
    const balY = (code: string) => before.find((a: any) => a.code === code).balanceCents as number;
    const tbY = await this.read('books.reports', { type: 'trial_balance', asOf: y });
    expect(tbY.totals.debitCents, `trial balance as at ${y} ${where}`).toBe(tbY.totals.creditCents);
    // With opening balances: what was carried in, less what lines dated yesterday paid of it.
    expect([balY('1100'), balY('2000'), balY('2500')], `controls as at ${y} ${where}`).toEqual([
      m.opening.receivable + m.yShift.ar,
      m.opening.payable + m.yShift.ap,
      0,
    ]);
    const recodedY = m.lines.filter((l) => l.date === y).reduce((s, l) => s + l.amountCents * (l.recodes ?? 0), 0);
    expect(balY('1000'), `bank as at ${y} ${where}`).toBe(recodedY + m.opening.bank + m.yShift.bank);
    await this.checkCashFlow(where, cashCodes, bs, before);
    const registerY = await this.read('books.assets', { asOf: y });
    expect(registerY.totals.bookValueCents, `register as at ${y} ${where}`).toBe(balY('1500') + balY('1510'));
    for (const type of ['aged_receivables', 'aged_payables']) {
      const aged = await this.read('books.reports', { type, asOf: y });
      expect(aged.totals.totalCents, `${type} as at ${y} ${where}`).toBe(aged.controlAccount.balanceCents);
    }

    await this.checkPayroll(where);

    await this.checkJournalBindings(where);

    const verdict = await verifyStoredChain(this.t.db, this.o.orgId);
    expect(verdict.ok, JSON.stringify(verdict)).toBe(true);
  }

  /**
   * Each contact's credits, three ways: the model (what each credit was, less what allocations,
   * refunds and dishonours took), contacts.list (its totals and its open credits), and the ledger
   * (the balances under the credits' ids on 1100 and 2000: the contact's part of the control account).
   */
  async checkCredits(where: string): Promise<void> {
    const m = this.m;
    const ledger = await this.t.db.reader.all<{ side: string; contact_id: string; dr: unknown; cr: unknown }>(
      `SELECT c.side AS side, c.contact_id AS contact_id, SUM(l.debit_cents) AS dr, SUM(l.credit_cents) AS cr
       FROM contact_credits c JOIN journal_lines l ON l.org_id = c.org_id AND l.doc_id = c.id
       WHERE c.org_id = ? GROUP BY c.side, c.contact_id`,
      [this.o.orgId],
    );
    const inLedger = (side: string, contactId: string) => {
      const r = ledger.find((x) => x.side === side && x.contact_id === contactId);
      if (r === undefined) return 0;
      return side === 'customer' ? Number(r.cr) - Number(r.dr) : Number(r.dr) - Number(r.cr);
    };
    const r = await this.t.get(this.o.keys.reader, 'contacts.list?limit=200');
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    const contacts = r.body.contacts as any[];
    expect(r.body.nextCursor ?? null).toBe(null);
    const ids = new Set([...m.credits.map((c) => c.contactId), ...ledger.map((x) => x.contact_id)]);
    for (const id of ids) {
      const c = contacts.find((x) => x.id === id);
      const want = (side: CreditM['side']) => m.credit(side, id);
      expect(
        [c?.customerCreditCents, c?.supplierCreditCents, inLedger('customer', id), inLedger('supplier', id)],
        `credits of ${id}: contact read, then ledger ${where}`,
      ).toEqual([want('customer'), want('supplier'), want('customer'), want('supplier')]);
      const open = m.credits.filter((x) => x.contactId === id && x.remaining > 0);
      if (open.length <= 20) {
        const listed = (c.credits as any[]).map((x) => `${x.id} ${x.side} ${x.remainingCents}`).sort();
        expect(listed, `open credits of ${id} ${where}`).toEqual(open.map((x) => `${x.id} ${x.side} ${x.remaining}`).sort());
      }
    }
  }

  /**
   * The statement of cash flows to today, one read per step: from an early date (every posting,
   * the conversion's cash carried in) or from today (opening cash as at yesterday). It reconciles
   * (opening + net change + carried in = closing), its cash accounts are 1000, 1300 and the bank
   * record super is paid from, and its closing cash is the balance sheet's lines of them.
   */
  async checkCashFlow(where: string, cashCodes: string[], bs: any, before: any[]): Promise<void> {
    const m = this.m;
    const early = m.counter % 2 === 0;
    const cf = await this.read('books.reports', { type: 'cash_flow', from: early ? '2000-01-01' : today(), to: today() });
    const sumOf = (lines: { code: string; amountCents?: number; balanceCents?: number }[]) =>
      lines.filter((l) => cashCodes.includes(l.code)).reduce((s, l) => s + (l.amountCents ?? l.balanceCents ?? 0), 0);
    const closing = sumOf(bs.assets.accounts);
    const sections = cf.operating.totalCents + cf.investing.totalCents + cf.financing.totalCents;
    expect(
      {
        accounts: (cf.cashAccounts as { code: string }[]).map((x) => x.code).sort(),
        reconciles: cf.reconciles,
        net: cf.netChangeCents,
        sum: cf.openingCashCents + cf.netChangeCents + cf.carriedInCents,
        closing: cf.closingCashCents,
        opening: cf.openingCashCents,
        carriedIn: cf.carriedInCents,
      },
      `cash flow from ${early ? 'the start' : 'today'} ${where}`,
    ).toEqual({
      accounts: cashCodes,
      reconciles: true,
      net: sections,
      sum: closing,
      closing,
      opening: early ? 0 : sumOf(before),
      carriedIn: early ? m.opening.bank : 0,
    });
  }

  /**
   * Every journal is bound into the chain by its lines, not only by its ledger id: the event whose
   * ledger id the journal names carries the journal's id, date and the digest of its stored lines
   * (recomputed here from journal_lines), so rewriting a journal's lines is seen by a verifier.
   */
  async checkJournalBindings(where: string) {
    const reader = this.t.db.reader;
    const orgId = this.o.orgId;
    const bound = new Map<string, { ledgerId: string; date: string; linesSha256: string }>();
    for (const e of await reader.all<{ payload: string; row_hash: string }>('SELECT payload, row_hash FROM events WHERE org_id = ?', [
      orgId,
    ])) {
      const journals = (JSON.parse(e.payload) as { journals?: { id: string; date: string; linesSha256: string }[] }).journals ?? [];
      for (const j of journals) bound.set(j.id, { ledgerId: ledgerId(e.row_hash), date: j.date, linesSha256: j.linesSha256 });
    }
    const lines = await reader.all<Record<string, string | number | null>>(
      `SELECT journal_id, account_code, debit_cents, credit_cents, tax_code, tax_base_cents, gst_cents, description, doc_id
       FROM journal_lines WHERE org_id = ? ORDER BY journal_id, line_no`,
      [orgId],
    );
    const byJournal = new Map<string, JournalLineForm[]>();
    for (const l of lines) {
      const list = byJournal.get(String(l.journal_id)) ?? [];
      list.push({
        accountCode: String(l.account_code),
        debitCents: Number(l.debit_cents),
        creditCents: Number(l.credit_cents),
        taxCode: l.tax_code === null ? null : String(l.tax_code),
        taxBaseCents: Number(l.tax_base_cents),
        gstCents: Number(l.gst_cents),
        docId: l.doc_id === null ? null : String(l.doc_id),
        description: String(l.description),
      });
      byJournal.set(String(l.journal_id), list);
    }
    const journals = await reader.all<{ id: string; date: string; ledger_id: string }>(
      'SELECT id, date, ledger_id FROM journals WHERE org_id = ?',
      [orgId],
    );
    for (const j of journals) {
      const want = { ledgerId: j.ledger_id, date: j.date, linesSha256: journalLinesSha256(byJournal.get(j.id) ?? []) };
      expect(bound.get(j.id), `journal ${j.id} bound by its event ${where}`).toEqual(want);
    }
    expect(bound.size, `every bound journal is stored ${where}`).toBe(journals.length);
  }
}

for (const engine of engines) {
  describe(`books property: random acts keep the books true (${engine})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(engine);
    });
    afterAll(async () => {
      if (process.env.FD_PROPERTY_STATS === '1')
        console.info(
          [...stats]
            .sort()
            .map(([k, v]) => `${k}: ${v}`)
            .join('\n'),
        );
      await t?.close();
    });

    it('after every act: trial balance, control accounts, bank, GST and chain hold', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.option(opening, { nil: undefined, freq: 3 }),
          fc.array(step, { minLength: 1, maxLength: 40, size: 'max' }),
          async (start, acts) => {
            const o = await t.org(undefined, { decisionRights: true });
            const run = new Run(t, o, []);
            if (start) {
              await run.opening(start);
              await run.check();
            }
            for (const a of acts) {
              await run.step(a);
              await run.check();
            }
            await run.checkPayrollReports('after the last act');
            await run.checkPayItems('after the last act');
          },
        ),
        { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: false },
      );
    }, 600_000);
  });
}

// ---------------------------------------------------------------- other currencies

/**
 * Foreign invoices and bills, their payments at other rates and revaluations, in random order:
 * after every act the trial balance balances; each document's AUD total and GST are its amounts
 * at its rate (half up, computed here in integers); what it still owes in its currency is its
 * total less its payments, and the AUD it carries is what it was posted at less what its payments
 * settled (revaluations, each reversed the next day, leave nothing); and 4400 holds exactly the
 * differences the payments realised.
 */
const FX = ['NZD', 'USD'] as const;
/** Rates as millionths: kept small enough that every figure is a few dollars to a few thousand. */
const fxRate = fc.integer({ min: 100_000, max: 2_500_000 });
const fxAct = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('fxInvoice' as const),
      currency: fc.constantFrom(...FX),
      lines: fc.array(fc.record({ amountCents: amount, taxCode: fc.constantFrom('GST', 'EXPORT') }), { minLength: 1, maxLength: 3 }),
      rate: fc.option(fxRate, { nil: undefined }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('fxBill' as const),
      currency: fc.constantFrom(...FX),
      amountCents: amount,
      taxCode: fc.constantFrom('GST_ON_EXPENSES', 'GST_FREE_EXPENSES'),
      rate: fc.option(fxRate, { nil: undefined }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('fxPay' as const), pick, portion, rate: fc.option(fxRate, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fxRevalue' as const), daysBack: fc.integer({ min: 1, max: 3 }) }) },
);

/** The rates table of each run: every currency on each of the last 10 days. */
const fxTable = fc.array(fc.tuple(fxRate, fxRate), { minLength: 11, maxLength: 11 });

const halfUp = (cents: number, micros: number) => Number((2n * BigInt(cents) * BigInt(micros) + 1_000_000n) / 2_000_000n);
const rateText = (micros: number) => `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;

interface FxDoc {
  readonly kind: 'invoice' | 'bill';
  readonly id: string;
  readonly currency: string;
  readonly total: number;
  readonly audTotal: number;
  readonly rate: number;
  paid: number;
  settled: number;
}

for (const engine of engines) {
  describe(`books property: foreign documents keep the AUD books true (${engine})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(engine);
    });
    afterAll(async () => t?.close());

    it('after every act: the ledger balances, each document is its amount at its rate, 4400 is what was realised', async () => {
      await fc.assert(
        fc.asyncProperty(fxTable, fc.array(fxAct, { minLength: 1, maxLength: 12 }), async (table, acts) => {
          const o = await t.org();
          const call = async (method: string, params: Record<string, unknown>) => t.post(o.keys.agent, method, params);
          const done = async (method: string, params: Record<string, unknown>) => {
            const r = await call(method, params);
            expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
            return r.body.result;
          };
          await done('books.exchangeRateSet', {
            rates: table.flatMap(([nzd, usd], i) => [
              { currency: 'NZD', date: inDays(-i), rate: rateText(nzd) },
              { currency: 'USD', date: inDays(-i), rate: rateText(usd) },
            ]),
          });
          // The table's rate on the documents' date, three days back.
          const tableRate = (currency: string, daysBack: number) => (table[daysBack] ?? [0, 0])[currency === 'NZD' ? 0 : 1];
          const docs: FxDoc[] = [];
          let realised = 0;
          for (const a of acts) {
            if (a.kind === 'fxInvoice') {
              const total = a.lines.reduce((s, l) => s + l.amountCents, 0);
              const rate = a.rate ?? tableRate(a.currency, 3);
              const r = await call('books.invoiceDraft', {
                payeeName: 'Wellington Traders',
                description: 'Export',
                totalCents: total,
                dueDays: 30,
                currency: a.currency,
                issueDate: inDays(-3),
                lines: a.lines.map((l, i) => ({ description: `Line ${i + 1}`, ...l })),
                ...(a.rate !== undefined ? { exchangeRate: rateText(a.rate) } : {}),
              });
              // Less than one AUD cent: nothing to post, refused.
              if (halfUp(total, rate) === 0) {
                expect(r.body.error?.field, JSON.stringify(r.body)).toBe('totalCents');
                continue;
              }
              expect(r.status, JSON.stringify(r.body)).toBe(200);
              const d = r.body.result;
              expect(d.exchangeRate).toBe(rateText(rate));
              expect(d.audTotalCents).toBe(halfUp(total, rate));
              expect(d.audGstCents).toBe(halfUp(d.gstCents, rate));
              const s = await done('books.invoiceSend', { id: d.id });
              docs.push({ kind: 'invoice', id: s.id, currency: a.currency, total, audTotal: d.audTotalCents, rate, paid: 0, settled: 0 });
            } else if (a.kind === 'fxBill') {
              const rate = a.rate ?? tableRate(a.currency, 3);
              if (halfUp(a.amountCents, rate) === 0) {
                const r = await call('books.billCapture', {
                  payeeName: 'Seattle Tools',
                  description: 'Tools',
                  totalCents: a.amountCents,
                  dueDays: 30,
                  currency: a.currency,
                  exchangeRate: rateText(rate),
                });
                expect(r.body.error?.field, JSON.stringify(r.body)).toBe('totalCents');
                continue;
              }
              const b = await approvedBill(t, o, {
                payeeName: 'Seattle Tools',
                description: 'Tools',
                totalCents: a.amountCents,
                taxCode: a.taxCode,
                currency: a.currency,
                issueDate: inDays(-3),
                ...(a.rate !== undefined ? { exchangeRate: rateText(a.rate) } : {}),
              });
              expect(b.audTotalCents).toBe(halfUp(a.amountCents, rate));
              expect(b.audGstCents).toBe(halfUp(b.gstCents, rate));
              docs.push({
                kind: 'bill',
                id: b.id,
                currency: a.currency,
                total: a.amountCents,
                audTotal: b.audTotalCents,
                rate,
                paid: 0,
                settled: 0,
              });
            } else if (a.kind === 'fxPay') {
              const open = docs.filter((d) => d.paid < d.total);
              const doc = open[a.pick % Math.max(open.length, 1)];
              if (!doc) continue;
              const left = doc.total - doc.paid;
              const amountCents = Math.max(1, Math.floor((left * a.portion) / 1000));
              const method = doc.kind === 'invoice' ? 'books.invoiceRecordPayment' : 'books.billRecordPayment';
              const r = await call(method, {
                id: doc.id,
                amountCents,
                ...(a.rate !== undefined ? { exchangeRate: rateText(a.rate) } : {}),
              });
              const rate = a.rate ?? tableRate(doc.currency, 0);
              if (amountCents > left || halfUp(amountCents, rate) === 0) {
                expect(r.body.error?.code, JSON.stringify(r.body)).toBe('BAD_REQUEST');
                continue;
              }
              expect(r.status, JSON.stringify(r.body)).toBe(200);
              const p = r.body.result;
              expect(p.exchangeRate).toBe(rateText(rate));
              const settles = amountCents === left;
              const carried = doc.audTotal - doc.settled;
              const settled = settles ? carried : Math.min(carried, halfUp(amountCents, doc.rate));
              expect(p.audAmountCents).toBe(halfUp(amountCents, rate));
              expect(p.audSettledCents).toBe(settled);
              const gain = doc.kind === 'invoice' ? p.audAmountCents - settled : settled - p.audAmountCents;
              expect(p.audGainCents).toBe(gain);
              realised += gain;
              doc.paid += amountCents;
              doc.settled += settled;
            } else {
              const r = await call('books.currencyRevalue', { date: inDays(-a.daysBack) });
              expect(r.status, JSON.stringify(r.body)).toBe(200);
            }
            // After every act.
            const accounts = (await done('books.accounts', {})).accounts as { code: string; balanceCents: number }[];
            const bal = (code: string) => accounts.find((x) => x.code === code)?.balanceCents ?? 0;
            const tb = (await t.post(o.keys.reader, 'books.reports', { type: 'trial_balance' })).body.result;
            expect(tb.totals.debitCents).toBe(tb.totals.creditCents);
            expect(bal('4400'), 'FX account = realised differences').toBe(realised);
            for (const d of docs) {
              const view =
                d.kind === 'invoice'
                  ? await done('books.invoice', { id: d.id })
                  : (await done('books.bills', { limit: 200 })).bills.find((b: { id: string }) => b.id === d.id);
              expect(view.outstandingCents).toBe(d.total - d.paid);
              expect(view.audOutstandingCents).toBe(d.audTotal - d.settled);
              expect(view.status).toBe(
                d.paid === d.total ? 'paid' : d.kind === 'invoice' ? (d.paid > 0 ? 'part_paid' : 'sent') : 'approved',
              );
            }
          }
        }),
        { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: false },
      );
    }, 600_000);
  });
}
