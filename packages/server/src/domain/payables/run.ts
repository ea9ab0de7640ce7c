import { payables as payablesSpec } from '@finance-desk/protocol';
import { events, canonicalJson, sha256Hex, type JsonValue, payables } from '@finance-desk/protocol';
import type { z } from 'zod';
import { AbaError, ABA_AMOUNT_CENTS_MAX, balancingPayment, buildAba, type AbaBatch, type AbaPayment } from '../../adapters/aba.js';
import { enqueuePaymentFile } from '../../adapters/payments.js';
import { badRequest, conflict, invariant, notFound } from '../../errors.js';
import { quoted } from '../../governance/quote.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import { formatCents } from '../../money.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { resolveFundingAccount, type ResolvedFunding } from '../banking/accounts.js';
import { fundingCard } from '../banking/funding.js';
import { newJournalId, owedOnDocuments, postJournal } from '../gl/post.js';
import { bankOf, BILL_COLUMNS, describeBank, maskedAccount, type BillRow } from './bills.js';
import { PAYABLES_ACCOUNT } from './ledger-api.js';

/**
 * billScheduleRun — the signature act `books.bill_schedule_run`: always held for a
 * human. With the proof it pays approved bills by one ABA file: the run row, the bills `paid`
 * (runId set), one journal Dr 2000 per bill (docId) / Cr the funding account dated the payment
 * date (the record's chart account with fundingAccountId, 1000 with inline funding), and the file
 * `<runId>.aba` through the payments adapter after commit.
 *
 * The run id is derived from the organisation, the params and the exact bills resolved, so the
 * subject a human approves is that set of bills: if the set changes between hold and retry (a
 * bill approved, paid or held meanwhile), the proof no longer matches (CONFLICT naming the
 * subject) instead of paying bills nobody saw.
 */
type Params = Omit<z.infer<typeof payables.billScheduleRun.params>, 'approvalId' | 'signatureToken'>;

interface RunRow {
  id: string;
  payment_date: string;
  bill_ids: string;
  total_cents: number;
  journal_id: string;
  file_name: string;
  ledger_id: string;
  payments: string;
}

interface Payment {
  readonly billId: string;
  readonly payee: string;
  readonly amountCents: number;
}

interface Subject {
  readonly runId: string;
  readonly paramsHash: string;
  /** What the file carries for the paying account: the record's details, or the inline funding. */
  readonly funding: ResolvedFunding;
  /** The bank account record paid from (fundingAccountId): its chart account is credited; null → 1000. */
  readonly fundingAccount: { readonly id: string; readonly accountCode: string } | null;
  readonly bills: readonly BillRow[];
  readonly payments: readonly Payment[];
  readonly existing: RunRow | null;
  readonly problem: string | null;
}

const RUN_BILLS_MAX = 200;

/** The bills named, or every approved bill due by the date; NOT_FOUND for an unknown id. */
async function resolveBills(uow: Uow, p: Params): Promise<BillRow[]> {
  if (p.billIds) {
    const rows: BillRow[] = [];
    for (const id of p.billIds) {
      const row = await uow.tx.get<BillRow>(`SELECT ${BILL_COLUMNS} FROM bills WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
        uow.orgId,
        id,
      ]);
      if (!row) throw notFound('bill', id);
      rows.push(row);
    }
    return rows;
  }
  return uow.tx.all<BillRow>(
    // A foreign bill is not paid by an ABA file (AUD only): a run due by a date leaves it out.
    `SELECT ${BILL_COLUMNS} FROM bills WHERE org_id = ? AND status = ? AND due_on <= ? AND currency IS NULL
     ORDER BY due_on, id LIMIT ${RUN_BILLS_MAX + 1}${uow.caps.forUpdate}`,
    [uow.orgId, 'approved', p.dueOnOrBefore ?? ''],
  );
}

/** Why these bills cannot be paid in a run (CONFLICT naming the bill), or null. */
function problemOf(p: Params, bills: readonly BillRow[], owed: ReadonlyMap<string, number>): string | null {
  if (bills.length === 0) return `no approved bill is due on or before ${p.dueOnOrBefore ?? ''}`;
  if (bills.length > RUN_BILLS_MAX) {
    return `more than ${RUN_BILLS_MAX} approved bills are due; pay them in runs of at most ${RUN_BILLS_MAX} with billIds`;
  }
  for (const b of bills) {
    if (b.status !== 'approved') return `bill ${b.id} is ${b.status}; only an approved bill can be paid in a run`;
    if (b.currency !== null) {
      return `bill ${b.id} is in ${b.currency}: a payment run (ABA) pays AUD bills only; record its payment with ${payablesSpec.billRecordPayment.name}`;
    }
    if (!b.payee_bsb || !b.payee_account_number || !b.payee_account_name) {
      return (
        `bill ${b.id} (${b.payee_name}) has no payee bank details (payeeBsb, payeeAccountNumber, ` +
        'payeeAccountName); it cannot be paid by ABA file'
      );
    }
    if ((owed.get(b.id) ?? 0) <= 0) return `bill ${b.id} has nothing owing in the ledger; it cannot be paid in a run`;
  }
  const total = bills.reduce((s, b) => s + (owed.get(b.id) ?? 0), 0);
  if (total > ABA_AMOUNT_CENTS_MAX) {
    return `the run's total ${formatCents(total)} exceeds what one ABA file can carry (${formatCents(ABA_AMOUNT_CENTS_MAX)})`;
  }
  return null;
}

async function loadSubject(p: Params, uow: Uow): Promise<Subject> {
  // The record is read in this transaction: its details are what the human sees and the file carries.
  const record = p.fundingAccountId === undefined ? null : await resolveFundingAccount(uow.tx, uow.orgId, p.fundingAccountId);
  const funding = record?.funding ?? p.funding;
  invariant(funding, 'the declaration requires exactly one of funding and fundingAccountId');
  const fundingAccount = record ? { id: record.id, accountCode: record.accountCode } : null;
  // With a record, its details and chart account are hashed into the run id, so an approval given
  // for one set of details cannot pay a file with another (the subject no longer matches).
  const bound = record ? { funding: record.funding as unknown as JsonValue, fundingAccountCode: record.accountCode } : {};
  const paramsHash = sha256Hex(canonicalJson({ orgId: uow.orgId, params: p as unknown as JsonValue, ...bound }));
  const bills = await resolveBills(uow, p);
  const ids = bills.map((b) => b.id).sort();
  const runId = `run_${sha256Hex(canonicalJson({ paramsHash, bills: ids })).slice(0, 26)}`;
  const existing =
    (await uow.tx.get<RunRow>(`SELECT ${RUN_COLUMNS} FROM payment_runs WHERE org_id = ? AND id = ?`, [uow.orgId, runId])) ??
    // dueOnOrBefore replayed after its run: nothing is due any more; answer with that run (a no-op).
    (bills.length === 0
      ? await uow.tx.get<RunRow>(
          `SELECT ${RUN_COLUMNS} FROM payment_runs WHERE org_id = ? AND params_hash = ? ORDER BY created_at DESC LIMIT 1`,
          [uow.orgId, paramsHash],
        )
      : undefined) ??
    null;
  if (existing) return { runId: existing.id, paramsHash, funding, fundingAccount, bills, payments: [], existing, problem: null };
  const today = uow.today;
  if (p.paymentDate < today) throw badRequest(`paymentDate: must be today (${today}) or later`);
  const owed = await owedOnDocuments(
    uow.tx,
    uow.orgId,
    PAYABLES_ACCOUNT,
    'credit',
    bills.map((b) => b.id),
  );
  const payments = bills.map((b) => ({ billId: b.id, payee: b.payee_name, amountCents: owed.get(b.id) ?? 0 }));
  return { runId, paramsHash, funding, fundingAccount, bills, payments, existing: null, problem: problemOf(p, bills, owed) };
}

const RUN_COLUMNS = 'id, payment_date, bill_ids, total_cents, journal_id, file_name, ledger_id, payments';

function runResult(row: RunRow) {
  const billIds = JSON.parse(row.bill_ids) as string[];
  return {
    runId: row.id,
    status: 'executed' as const,
    paymentDate: row.payment_date,
    billIds,
    payments: JSON.parse(row.payments) as Payment[],
    billCount: billIds.length,
    totalCents: Number(row.total_cents),
    journalId: row.journal_id,
    fileName: row.file_name,
    ledgerId: row.ledger_id,
  };
}

/**
 * What the human reads, written by the server: every payment (never a sample) with its payee,
 * amount and the exact BSB and account number the ABA file pays, then the total, date and funding
 * account.
 * Agent-supplied text (payee names, account titles) is quoted.
 */
function runSummary(p: Params, s: Subject): string {
  const total = s.payments.reduce((sum, x) => sum + x.amountCents, 0);
  const byId = new Map(s.bills.map((b) => [b.id, b]));
  const listed = s.payments.map((x, i) => {
    const b = byId.get(x.billId);
    const to = describeBank(b ? bankOf(b) : null);
    return `${i + 1}. ${quoted(x.payee)} ${formatCents(x.amountCents)} to ${to} (${x.billId})`;
  });
  const n = s.payments.length;
  const f = s.funding;
  return (
    `Pay ${n} bill${n === 1 ? '' : 's'} totalling ${formatCents(total)} by Direct Entry (ABA file ${s.runId}.aba) on ` +
    `${p.paymentDate} from ${f.bankCode} account ${f.bsb} ${f.accountNumber} ` +
    `(${quoted(f.userName)}): ${listed.join('; ')}. The file carries: ` +
    fundingCard(f, { selfBalancing: p.selfBalancing === true, record: s.fundingAccount })
  );
}

function ddmmyy(date: string): string {
  return `${date.slice(8, 10)}${date.slice(5, 7)}${date.slice(2, 4)}`;
}

/** The ABA file of the run; every field was validated when given (billCapture, this act's params). */
function abaFile(p: Params, s: Subject): string {
  const entries = (p.entriesDescription ?? 'CREDITORS').toUpperCase();
  const byId = new Map(s.bills.map((b) => [b.id, b]));
  const payments: AbaPayment[] = s.payments.map((x) => {
    const b = byId.get(x.billId);
    invariant(b?.payee_bsb && b.payee_account_number && b.payee_account_name, `bill ${x.billId} has bank details`);
    return {
      bsb: b.payee_bsb,
      accountNumber: b.payee_account_number,
      transactionCode: '50',
      amountCents: x.amountCents,
      accountTitle: b.payee_account_name,
      lodgementReference: b.payee_reference ?? `BILL ${b.id.slice(-12).toUpperCase()}`,
    };
  });
  const f = s.funding;
  const batch: AbaBatch = {
    descriptive: {
      reelSequenceNumber: 1,
      financialInstitution: f.bankCode,
      userName: f.userName.toUpperCase(),
      userIdNumber: f.apcaUserId,
      entriesDescription: entries,
      processingDate: p.paymentDate,
    },
    trace: { bsb: f.bsb, accountNumber: f.accountNumber },
    remitterName: f.remitterName.toUpperCase(),
    payments,
  };
  if (!p.selfBalancing) return buildAba(batch);
  const title = (f.accountName ?? f.userName).toUpperCase();
  const balancing = balancingPayment(batch, title, `${entries} ${ddmmyy(p.paymentDate)}`.slice(0, 18));
  return buildAba({ ...batch, payments: [...payments, balancing] });
}

async function executeRun(p: Params, s: Subject, uow: Uow): Promise<ResultOf<typeof payables.billScheduleRun>> {
  let content: string;
  try {
    content = abaFile(p, s);
  } catch (err) {
    if (err instanceof AbaError) throw badRequest(err.message);
    throw err;
  }
  const journalId = newJournalId();
  const total = s.payments.reduce((sum, x) => sum + x.amountCents, 0);
  const fileName = `${s.runId}.aba`;
  const billIds = s.payments.map((x) => x.billId);
  const byId = new Map(s.bills.map((b) => [b.id, b]));
  await postJournal(uow, {
    id: journalId,
    date: p.paymentDate,
    memo: `Payment run ${s.runId}: ${billIds.length} bill${billIds.length === 1 ? '' : 's'} by ABA file`,
    source: { kind: 'payment_run', id: s.runId },
    lines: [
      ...s.payments.map((x) => ({
        account: PAYABLES_ACCOUNT,
        debitCents: x.amountCents,
        docId: x.billId,
        description: `${x.payee} (${x.billId})`,
      })),
      // The bank side is the funding record's chart account; inline funding pays from 1000.
      { account: s.fundingAccount ? s.fundingAccount.accountCode : { key: 'bank' }, creditCents: total, description: `ABA ${fileName}` },
    ],
  });
  const outboxId = await enqueuePaymentFile(uow, { runId: s.runId, fileName, content });
  const event = await uow.emit(events.billRunExecute, {
    entityId: s.runId,
    payload: {
      runId: s.runId,
      billIds,
      // As every bill event: each bill's payee, total, heldReason and its runId, now set.
      bills: s.payments.map((x) => ({
        id: x.billId,
        payee: x.payee,
        totalCents: Number(byId.get(x.billId)?.total_cents ?? 0),
        amountCents: x.amountCents,
        heldReason: byId.get(x.billId)?.held_reason ?? null,
        runId: s.runId,
      })),
      billCount: billIds.length,
      totalCents: total,
      paymentDate: p.paymentDate,
      fundingAccount: maskedAccount(s.funding.bsb, s.funding.accountNumber),
      ...(s.fundingAccount ? { fundingAccountId: s.fundingAccount.id } : {}),
      fileName,
      journalId,
    },
  });
  for (const id of billIds) {
    const moved = await uow.tx.run(
      `UPDATE bills SET status = ?, run_id = ?, paid_at = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND status = ?`,
      ['paid', s.runId, uow.now, event.ledgerId, uow.orgId, id, 'approved'],
    );
    invariant(moved.changes === 1, `bill ${id} moves from approved to paid exactly once`);
  }
  return insertRun(uow, p, s, { journalId, total, fileName, billIds, outboxId, ledgerId: event.ledgerId });
}

async function insertRun(
  uow: Uow,
  p: Params,
  s: Subject,
  r: { journalId: string; total: number; fileName: string; billIds: string[]; outboxId: string; ledgerId: string },
) {
  const row: RunRow = {
    id: s.runId,
    payment_date: p.paymentDate,
    bill_ids: JSON.stringify(r.billIds),
    total_cents: r.total,
    journal_id: r.journalId,
    file_name: r.fileName,
    ledger_id: r.ledgerId,
    payments: JSON.stringify(s.payments),
  };
  await uow.tx.run(
    `INSERT INTO payment_runs (org_id, id, params_hash, status, payment_date, bank_code, funding_bsb, funding_account_number,
       user_name, apca_user_id, remitter_name, bill_ids, payments, bill_count, total_cents, journal_id, file_name, outbox_id,
       created_at, ledger_id, funding_account_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uow.orgId,
      row.id,
      s.paramsHash,
      'executed',
      row.payment_date,
      s.funding.bankCode,
      s.funding.bsb,
      s.funding.accountNumber,
      s.funding.userName,
      s.funding.apcaUserId,
      s.funding.remitterName,
      row.bill_ids,
      row.payments,
      r.billIds.length,
      r.total,
      r.journalId,
      r.fileName,
      r.outboxId,
      uow.now,
      r.ledgerId,
      s.fundingAccount?.id ?? null,
    ],
  );
  return runResult(row);
}

export const billScheduleRunAct: SignatureAct<Params, Subject, typeof payables.billScheduleRun> = {
  spec: payables.billScheduleRun,
  load: loadSubject,
  subjectId: (s) => s.runId,
  // A payment run always needs a human proof, whatever the key's scope.
  needsProof: () => true,
  summary: runSummary,
  state(_p, s) {
    if (s.existing) return { ...runResult(s.existing), noop: true };
    if (s.problem) throw conflict(s.problem);
    return null;
  },
  execute: executeRun,
};

export const billScheduleRun = signatureHandler<z.infer<typeof payables.billScheduleRun.params>, Subject, typeof payables.billScheduleRun>(
  billScheduleRunAct,
);
