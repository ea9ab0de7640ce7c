import { canonicalJson, events, payroll } from '@finance-desk/protocol';
import type { z } from 'zod';
import { AbaError, buildAba, type AbaPayment } from '../../adapters/aba.js';
import { enqueuePaymentFile } from '../../adapters/payments.js';
import { DomainError, badRequest, conflict, invariant } from '../../errors.js';
import { quoted } from '../../governance/quote.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import { formatCents } from '../../money.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { resolveFundingAccount } from '../banking/accounts.js';
import { fundingCard } from '../banking/funding.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { accrueLeave, takeLeave } from '../people/leave-ledger.js';
import { hoursOfMilli } from './gross.js';
import { queueStpPayEvent } from './stp.js';
import { finalPayText, signFinalPays } from './termination.js';
import {
  fundingOf,
  loadItems,
  loadLines,
  loadRun,
  maskedFunding,
  payRunResult,
  toPayRun,
  type Funding,
  type PayRunItemRow,
  type PayRunLineRow,
  type PayRunRow,
} from './runs.js';

/**
 * payrollSign — the signature act `books.payroll_sign`: always held for a human,
 * whatever the key. The human reads every line (name, gross, tax, super, net), the totals, the
 * payment date and the paying account. The figures are the draft's, stored and never recomputed,
 * so the proof covers exactly what was shown (payload hash of the run id; drafts are immutable).
 *
 * With the proof, in one transaction with its one event: one journal dated paymentDate —
 * Dr 6100 gross, Dr 6200 super / Cr 2200 PAYG, Cr 2300 super (both carry the run id as doc_id:
 * the liabilities' sub-ledger is the signed runs), and the net pay Cr 2400 wages payable, or, when
 * the run has a funding account, Cr that bank account (the record's chart account with
 * fundingAccountId, 1000 with inline funding) with the ABA file `<id>.aba` queued on the payment
 * outbox (as billScheduleRun: the file is the payment). Leave accrues for full- and part-time staff
 * and the approved leave the run pays is taken from the balances. The run's Single Touch Payroll
 * pay event is queued through the lodgement adapter in the same transaction (stp.ts).
 */
type Params = Omit<z.infer<typeof payroll.payrollSign.params>, 'approvalId' | 'signatureToken'>;

interface Subject {
  readonly run: PayRunRow;
  readonly lines: readonly PayRunLineRow[];
  /** The earnings lines (pay items) the human reads with each employee. */
  readonly items: readonly PayRunItemRow[];
  /** Leave the draft pays that has since been paid by another run (sign is then CONFLICT). */
  readonly paidElsewhere: { id: string; pay_run_id: string } | null;
  /** The bank account record the file is paid from (fundingAccountId): its chart account is credited. */
  readonly fundingAccount: { readonly id: string; readonly accountCode: string } | null;
  /** Why a draft cannot be signed as drafted: its funding record's details changed since (CONFLICT). */
  readonly fundingChanged: string | null;
}

/**
 * A draft paid from a record carries the record's details as they were when drafted. Signing
 * re-reads the record: if the details changed (or can no longer fund a file), the human would
 * approve one set of details while the owner meant another, so the sign is CONFLICT until the
 * draft is recalled and drafted again.
 */
async function fundingRecordOf(uow: Uow, run: PayRunRow): Promise<Pick<Subject, 'fundingAccount' | 'fundingChanged'>> {
  if (run.funding_account_id === null) return { fundingAccount: null, fundingChanged: null };
  const id = run.funding_account_id;
  const code = await uow.tx.get<{ account_code: string }>('SELECT account_code FROM bank_accounts WHERE org_id = ? AND id = ?', [
    uow.orgId,
    id,
  ]);
  invariant(code, `pay run ${run.id}'s funding record ${id} exists`);
  const fundingAccount = { id, accountCode: code.account_code };
  if (run.status !== 'draft') return { fundingAccount, fundingChanged: null };
  let now: string | null = null;
  try {
    now = canonicalJson((await resolveFundingAccount(uow.tx, uow.orgId, id)).funding);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
  }
  const drafted = canonicalJson(fundingOf(run));
  const fundingChanged =
    now === drafted
      ? null
      : `fundingAccountId: the direct-entry details of bank account ${id} changed after pay run ${run.id} was drafted; ` +
        'recall the draft (books.payrollRecall) and draft it again so the signer sees the details the file will carry';
  return { fundingAccount, fundingChanged };
}

async function loadSubject(p: Params, uow: Uow): Promise<Subject> {
  const run = await loadRun(uow.tx, uow.orgId, p.id, uow.caps.forUpdate);
  const lines = await loadLines(uow.tx, uow.orgId, run.id);
  const leaveIds = lines.flatMap((l) => JSON.parse(l.leave_ids) as string[]);
  let paidElsewhere: Subject['paidElsewhere'] = null;
  if (run.status === 'draft' && leaveIds.length > 0) {
    paidElsewhere =
      (await uow.tx.get<{ id: string; pay_run_id: string }>(
        `SELECT id, pay_run_id FROM leave_requests WHERE org_id = ? AND id IN (${leaveIds.map(() => '?').join(', ')})
         AND pay_run_id IS NOT NULL ORDER BY id LIMIT 1`,
        [uow.orgId, ...leaveIds],
      )) ?? null;
  }
  return { run, lines, items: await loadItems(uow.tx, uow.orgId, run.id), paidElsewhere, ...(await fundingRecordOf(uow, run)) };
}

function payingAccount(f: Funding | null, fileName: string, s: Subject): string {
  if (!f) return 'net pay recorded as wages payable (2400), to be paid outside Finance Desk';
  return (
    `net pay by Direct Entry (ABA file ${fileName}) from ${f.bankCode} account ${f.bsb} ${f.accountNumber} (${quoted(f.userName)}). ` +
    `The file carries: ${fundingCard(f, { selfBalancing: false, record: s.fundingAccount })}`
  );
}

/** What the human reads (the server's words): every employee, never a sample; agent text quoted. */
function signSummary(_p: Params, s: Subject): string {
  const r = s.run;
  const f = fundingOf(r);
  const listed = s.lines.map((l, i) => {
    const to = f && l.bank_bsb ? ` to BSB ${l.bank_bsb} account ${l.bank_account_number ?? ''}` : '';
    const leaveHours = hoursOfMilli(Number(l.leave_milli_hours));
    const leave = leaveHours > 0 ? ` (incl. ${leaveHours} h leave ${formatCents(Number(l.leave_cents))})` : '';
    const sacrifice = Number(l.salary_sacrifice_cents);
    const sacrificed = sacrifice > 0 ? `, salary sacrificed to super ${formatCents(sacrifice)}` : '';
    return (
      `${i + 1}. ${quoted(l.name)} gross ${formatCents(Number(l.gross_cents))}${leave}${itemsText(s.items, l.employee_id)}${finalPayText(l)}, tax ${formatCents(Number(l.payg_cents))}, ` +
      `super ${formatCents(Number(l.super_cents))}${sacrificed}, net ${formatCents(Number(l.net_cents))}${to}`
    );
  });
  const n = s.lines.length;
  return (
    `Sign pay run ${r.id} (${r.pay_frequency}, ${r.period_start} to ${r.period_end}) paying ${n} employee${n === 1 ? '' : 's'} on ` +
    `${r.payment_date}: ${listed.join('; ')}. Totals: gross ${formatCents(Number(r.gross_cents))}, tax withheld ` +
    `${formatCents(Number(r.payg_cents))}, super ${formatCents(Number(r.super_cents))}, net ${formatCents(Number(r.net_cents))}; ` +
    `${payingAccount(f, `${r.id}.aba`, s)}`
  );
}

const ITEM_WORDS: Readonly<Record<PayRunItemRow['item_type'], string>> = {
  overtime: 'overtime',
  penalty: 'penalty',
  allowance: 'allowance',
  bonus: 'bonus',
  back_pay: 'back pay',
  salary_sacrifice: 'salary sacrifice',
};

/** An employee's earnings lines in gross as the signer reads them (` with overtime 4 h × 1.5 $195.00, …`); sacrifice is shown apart. */
function itemsText(items: readonly PayRunItemRow[], employeeId: string): string {
  const own = items.filter((i) => i.employee_id === employeeId && i.item_type !== 'salary_sacrifice');
  if (own.length === 0) return '';
  const words = own.map((i) => {
    const hours = i.milli_hours === null ? '' : ` ${hoursOfMilli(Number(i.milli_hours))} h × ${Number(i.multiplier_milli) / 1000}`;
    const category = i.category === null ? '' : ` ${i.category}`;
    return `${ITEM_WORDS[i.item_type]}${category}${hours} ${formatCents(Number(i.amount_cents))}`;
  });
  return ` with ${words.join(', ')}`;
}

function ddmmyy(date: string): string {
  return `${date.slice(8, 10)}${date.slice(5, 7)}${date.slice(2, 4)}`;
}

/** The net pay ABA file: one code-53 (pay) credit per employee with net pay, to the drafted account. */
function abaFile(run: PayRunRow, f: Funding, lines: readonly PayRunLineRow[]): string {
  const payments: AbaPayment[] = lines
    .filter((l) => Number(l.net_cents) > 0)
    .map((l) => {
      invariant(l.bank_bsb && l.bank_account_number && l.bank_account_name, `line ${l.employee_id} has bank details`);
      return {
        bsb: l.bank_bsb,
        accountNumber: l.bank_account_number,
        transactionCode: '53',
        amountCents: Number(l.net_cents),
        accountTitle: l.bank_account_name,
        lodgementReference: `SALARY ${ddmmyy(run.payment_date)}`,
      };
    });
  return buildAba({
    descriptive: {
      reelSequenceNumber: 1,
      financialInstitution: f.bankCode,
      userName: f.userName.toUpperCase(),
      userIdNumber: f.apcaUserId,
      entriesDescription: (run.entries_description ?? 'PAYROLL').toUpperCase(),
      processingDate: run.payment_date,
    },
    trace: { bsb: f.bsb, accountNumber: f.accountNumber },
    remitterName: f.remitterName.toUpperCase(),
    payments,
  });
}

/** The journal of a signed run; `bank` is the account the net pay leaves (null: owed as wages payable). */
export function runPostingLines(run: PayRunRow, bank: PostingLine['account'] | null): PostingLine[] {
  const doc = run.id;
  // Salary sacrifice is part of gross wages (6100: every earnings line, allowances and bonuses
  // too) but paid to the employee's fund, not to them: 2300 is credited with it on top of the
  // super guarantee, and it is not W1 (salary or wages) on the BAS.
  const sacrifice = Number(run.salary_sacrifice_cents);
  return [
    // Tagged for the BAS (W1/W2 come from signed pay runs paid in the period): the GST report
    // and taxPrepare read W1 and W2 from these two lines, and a recall's reversal untags them.
    {
      account: { key: 'wages' },
      debitCents: Number(run.gross_cents),
      taxCode: 'BAS_EXCLUDED_WAGES',
      taxBaseCents: Number(run.gross_cents) - sacrifice,
      description: `Gross wages, pay run ${run.id}`,
    },
    { account: { key: 'super_expense' }, debitCents: Number(run.super_cents), description: `Super guarantee, pay run ${run.id}` },
    {
      account: { key: 'payg_withholding' },
      creditCents: Number(run.payg_cents),
      taxCode: 'BAS_EXCLUDED_PAYGW',
      taxBaseCents: Number(run.payg_cents),
      docId: doc,
      description: `PAYG withheld, pay run ${run.id}`,
    },
    {
      account: { key: 'super_payable' },
      creditCents: Number(run.super_cents) + sacrifice,
      docId: doc,
      description: sacrifice > 0 ? `Super payable (guarantee and salary sacrifice), pay run ${run.id}` : `Super payable, pay run ${run.id}`,
    },
    bank !== null
      ? { account: bank, creditCents: Number(run.net_cents), description: `Net pay, ABA ${run.id}.aba` }
      : {
          account: { key: 'wages_payable' },
          creditCents: Number(run.net_cents),
          docId: doc,
          description: `Net wages payable, pay run ${run.id}`,
        },
  ];
}

async function moveLeave(uow: Uow, s: Subject, ledgerId: string) {
  const accrued: { employeeId: string; annualMilliHours: number; personalMilliHours: number }[] = [];
  for (const l of s.lines) {
    const a = await accrueLeave(uow, {
      employeeId: l.employee_id,
      basis: l.employment_basis,
      payRunId: s.run.id,
      onDate: s.run.period_end,
      ordinaryMilliHours: Number(l.ordinary_milli_hours),
      ledgerId,
    });
    accrued.push({ employeeId: l.employee_id, ...a });
    for (const leaveId of JSON.parse(l.leave_ids) as string[]) {
      await takeLeave(uow, { leaveId, payRunId: s.run.id, onDate: s.run.period_end, ledgerId });
    }
  }
  return accrued;
}

async function executeSign(_p: Params, s: Subject, uow: Uow): Promise<ResultOf<typeof payroll.payrollSign>> {
  const run = s.run;
  const f = fundingOf(run);
  let content: string | null;
  try {
    content = f ? abaFile(run, f, s.lines) : null;
  } catch (err) {
    if (err instanceof AbaError) throw badRequest(err.message);
    throw err;
  }
  const journalId = newJournalId();
  const fileName = f ? `${run.id}.aba` : null;
  await postJournal(uow, {
    id: journalId,
    date: run.payment_date,
    memo: `Pay run ${run.id}: ${run.period_start} to ${run.period_end}`,
    source: { kind: 'pay_run', id: run.id },
    // The funding record's chart account; inline funding pays from 1000.
    lines: runPostingLines(run, f === null ? null : (s.fundingAccount?.accountCode ?? { key: 'bank' })),
  });
  const outboxId = content !== null && fileName ? await enqueuePaymentFile(uow, { runId: run.id, fileName, content }) : null;
  const event = await uow.emit(events.payRunSign, {
    entityId: run.id,
    payload: {
      id: run.id,
      paymentDate: run.payment_date,
      totals: {
        grossCents: Number(run.gross_cents),
        paygCents: Number(run.payg_cents),
        superCents: Number(run.super_cents),
        netCents: Number(run.net_cents),
      },
      lines: s.lines.map((l) => ({
        employeeId: l.employee_id,
        grossCents: Number(l.gross_cents),
        paygCents: Number(l.payg_cents),
        superCents: Number(l.super_cents),
        netCents: Number(l.net_cents),
      })),
      fundingAccount: maskedFunding(f),
      ...(s.fundingAccount ? { fundingAccountId: s.fundingAccount.id } : {}),
      fileName,
      journalId,
    },
  });
  await moveLeave(uow, s, event.ledgerId);
  // A final pay: the unused leave it pays leaves the balance; the employee is terminated (before the STP event, which reports the cessation).
  await signFinalPays(uow, run, s.lines, event.ledgerId);
  const moved = await uow.tx.run(
    `UPDATE pay_runs SET status = 'signed', journal_id = ?, file_name = ?, outbox_id = ?, signed_at = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND status = 'draft'`,
    [journalId, fileName, outboxId, uow.now, event.ledgerId, uow.orgId, run.id],
  );
  invariant(moved.changes === 1, `pay run ${run.id} moves from draft to signed once`);
  // STP: the run's pay event, YTD including this run (docs/books.md "Single Touch Payroll").
  await queueStpPayEvent(uow, run.id, 'pay', event.ledgerId);
  return payRunResult(uow.tx, uow.orgId, run.id);
}

export const payrollSignAct: SignatureAct<Params, Subject, typeof payroll.payrollSign> = {
  spec: payroll.payrollSign,
  load: loadSubject,
  subjectId: (s) => s.run.id,
  // A pay run always needs a human's signature.
  needsProof: () => true,
  summary: signSummary,
  state(_p, s) {
    if (s.run.status === 'signed') return { ...toPayRun(s.run, s.lines, s.items), noop: true };
    if (s.run.status === 'recalled') throw conflict(`pay run ${s.run.id} is recalled; draft a new run to pay this period`);
    if (s.fundingChanged) throw conflict(s.fundingChanged);
    if (s.paidElsewhere) {
      throw conflict(
        `leave ${s.paidElsewhere.id} in pay run ${s.run.id} was paid by pay run ${s.paidElsewhere.pay_run_id}; recall this draft and draft again`,
      );
    }
    return null;
  },
  execute: executeSign,
};

export const payrollSign = signatureHandler<z.infer<typeof payroll.payrollSign.params>, Subject, typeof payroll.payrollSign>(
  payrollSignAct,
);
