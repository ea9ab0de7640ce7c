import { events, books, credits, FIXED_ASSET_ACCOUNT, type EventPayloadOf, type HeldReason, type TaxCode } from '@finance-desk/protocol';
import type { z } from 'zod';
import { addDays } from '../../clock.js';
import { conflict, DomainError, invariant, notFound } from '../../errors.js';
import type { OpenHold } from '../../governance/approvals.js';
import { payloadHashOf } from '../../governance/approvals.js';
import { loadPolicy, policyRead } from '../../governance/policy.js';
import { actionClassOf, signatureHandler, type SignatureAct } from '../../governance/signature.js';
import { newId } from '../../ids.js';
import { quoted } from '../../governance/quote.js';
import { formatCents } from '../../money.js';
import type { Queryable } from '../../storage/types.js';
import { batchCached, type Read, type Uow } from '../../write-path.js';
import { newJournalId, postJournal, type JournalInput } from '../gl/post.js';
import { issueDateOf } from '../gl/periods.js';
import { insertBillLines, loadBillLines, purchaseAccountReads, resolveLines, type PurchaseLine } from './bill-lines.js';
import { billPosting, foreignBillPaid } from './foreign.js';
import { foreignColumns, foreignDocument, foreignPayload, foreignView } from '../currencies/convert.js';
import { isForeign } from '../currencies/rates.js';
import { PAYABLES_ACCOUNT } from './ledger-api.js';
import { contactPayload, documentContactReads, finishContact, refreshContactBank, resolveDocumentContact } from '../contacts/contacts.js';
import { owedOnDocument } from './settle.js';
import { plannedBillAssets, registerAssets, returnBillAssets, saveAssetDetails } from '../assets/register.js';
import { attachedPayload, prepareFiles, saveFiles, withFiles } from '../attachments/store.js';
import { billWords, indexDocumentWords } from '../reconciliation/document-words.js';

/**
 * Bills (payables). States: captured → approved; held (the bill-approval rule: a new payee, a
 * total above the floor or changed bank details) → approved only with a human proof; on_hold
 * (parked by billHold) → approved; any open or approved state → returned (final);
 * approved → paid (a payment run, or payments applied by reconciliation until nothing is owed).
 * Accrual: approval posts the bill (Dr expense/asset + GST paid / Cr 2000, docId = bill id) once;
 * returning a posted bill posts the reversal.
 */
type BillStatus = z.infer<typeof books.billStatus>;

export interface BillRow {
  id: string;
  status: BillStatus;
  payee_name: string;
  payee_key: string;
  /** Set on every bill (migration 25 filled the older ones). */
  contact_id: string | null;
  description: string;
  total_cents: number;
  gst_cents: number;
  due_days: number;
  /** The bill's date (null for bills captured before migration 31: they post on approval day). */
  issued_on: string | null;
  due_on: string;
  reference: string | null;
  held_reason: HeldReason | null;
  note: string | null;
  run_id: string | null;
  payee_bsb: string | null;
  payee_account_number: string | null;
  payee_account_name: string | null;
  payee_reference: string | null;
  journal_id: string | null;
  created_at: string;
  ledger_id: string;
  /** A foreign bill (currencies/convert.ts): its currency, rate and AUD figures; NULL on AUD bills. */
  currency: string | null;
  exchange_rate_micros: number | null;
  aud_total_cents: number | null;
  aud_gst_cents: number | null;
}

/**
 * A bill with its lines, as the acts see it, and the bank details last approved for its payee
 * (what the human compares this bill's against; undefined when not looked up).
 */
export type LoadedBill = BillRow & { readonly lines: readonly PurchaseLine[]; readonly approvedBank?: ApprovedBank };

/** The columns a new bill is written with (a foreign bill's currency columns follow in their own statement). */
const BILL_INSERT_COLUMNS =
  'id, status, payee_name, payee_key, contact_id, description, total_cents, gst_cents, due_days, issued_on, due_on, reference, held_reason, ' +
  'note, run_id, payee_bsb, payee_account_number, payee_account_name, payee_reference, journal_id, created_at, ledger_id';

export const BILL_COLUMNS = `${BILL_INSERT_COLUMNS}, currency, exchange_rate_micros, aud_total_cents, aud_gst_cents`;

/** A new bill (captured, or an opening balance): approved_at is not among its columns, so NULL. */
export const BILL_INSERT = `INSERT INTO bills (org_id, ${BILL_INSERT_COLUMNS}) VALUES (?, ${BILL_INSERT_COLUMNS.split(',')
  .map(() => '?')
  .join(', ')})`;

/**
 * Payee identity for the bill-approval rule (NEW_PAYEE and BANK_DETAILS_CHANGED): case and spacing
 * do not make a new supplier. The one normaliser of payee names; keys are stored (bills.payee_key),
 * so a change here needs a backfill of every stored key (accents are not folded for that reason,
 * docs/decisions.md).
 */
export function payeeKey(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** Where a bill pays: BSB and account number route the money (BECS does not check the name). */
export interface BankDetails {
  readonly bsb: string;
  readonly accountNumber: string;
  readonly accountName: string | null;
}

/**
 * The payee's standing for the bill-approval rule: whether any bill of theirs was approved
 * (NEW_PAYEE), and the bank details of the most recently approved one that had any and was not
 * returned since (a returned bill's details are not what anyone agreed to pay).
 */
export interface ApprovedBank {
  readonly known: boolean;
  readonly last: BankDetails | null;
}

export function bankOf(row: Pick<BillRow, 'payee_bsb' | 'payee_account_number' | 'payee_account_name'>): BankDetails | null {
  return row.payee_bsb && row.payee_account_number
    ? { bsb: row.payee_bsb, accountNumber: row.payee_account_number, accountName: row.payee_account_name }
    : null;
}

/**
 * Kept by a batch of units of work: bills change only through units, which forget
 * them. Both select approved bills only, and BILL_INSERT writes a bill with approved_at NULL, so
 * a capture leaves them standing: a batch of bills from known suppliers reads them once.
 */
const PAYEE_APPROVED = batchCached(
  'SELECT id FROM bills WHERE org_id = ? AND payee_key = ? AND approved_at IS NOT NULL LIMIT 1',
  ['bills'],
  [BILL_INSERT],
);
const PAYEE_LAST_BANK = batchCached(
  `SELECT payee_bsb, payee_account_number, payee_account_name FROM bills
     WHERE org_id = ? AND payee_key = ? AND approved_at IS NOT NULL AND status <> 'returned' AND payee_bsb IS NOT NULL
     ORDER BY approved_at DESC, id DESC LIMIT 1`,
  ['bills'],
  [BILL_INSERT],
);

/** approvedBankOf's reads, for Uow.readTogether. */
const approvedBankReads = (orgId: string, key: string): Read[] => [
  [PAYEE_APPROVED, [orgId, key]],
  [PAYEE_LAST_BANK, [orgId, key]],
];

export async function approvedBankOf(q: Queryable, orgId: string, key: string): Promise<ApprovedBank> {
  const known = await q.get(PAYEE_APPROVED, [orgId, key]);
  if (!known) return { known: false, last: null };
  const last = await q.get<Pick<BillRow, 'payee_bsb' | 'payee_account_number' | 'payee_account_name'>>(PAYEE_LAST_BANK, [orgId, key]);
  return { known: true, last: last ? bankOf(last) : null };
}

/**
 * BANK_DETAILS_CHANGED: a bill from a known payee whose BSB or account number differs from the last
 * approved (or that brings the first details of a payee whose approved bills had none). A bill
 * without bank details cannot be paid by a run, and a new payee is held as NEW_PAYEE with its
 * details shown.
 */
export function bankChanged(bank: BankDetails | null, approved: ApprovedBank): boolean {
  if (!bank || !approved.known) return false;
  return !approved.last || approved.last.bsb !== bank.bsb || approved.last.accountNumber !== bank.accountNumber;
}

/** A held bill's bank details beside those last approved for its payee, for the approval card. */
export interface BankChange {
  readonly previous: BankDetails | null;
  readonly current: BankDetails;
}

/** The change an open bill brings, read now (what the human decides against), or null. */
export async function bankChangeOf(q: Queryable, orgId: string, billId: string): Promise<BankChange | null> {
  const row = await q.get<BillRow>(`SELECT ${BILL_COLUMNS} FROM bills WHERE org_id = ? AND id = ?`, [orgId, billId]);
  if (!row || !OPEN.includes(row.status)) return null;
  const current = bankOf(row);
  const approved = await approvedBankOf(q, orgId, row.payee_key);
  return current && bankChanged(current, approved) ? { previous: approved.last, current } : null;
}

/** A bank account in words for the approver: the full BSB and number (they are what the ABA file pays). */
export function describeBank(bank: BankDetails | null): string {
  if (!bank) return 'no bank details';
  return `BSB ${bank.bsb} account ${bank.accountNumber}${bank.accountName ? ` (${quoted(bank.accountName)})` : ''}`;
}

/** `audOutstandingCents`: a foreign bill's AUD still carried (reads give it). */
export function toBill(row: BillRow, lines: readonly PurchaseLine[], audOutstandingCents?: number) {
  invariant(row.contact_id !== null, `bill ${row.id} has a contact`);
  return {
    id: row.id,
    status: row.status,
    payeeName: row.payee_name,
    contactId: row.contact_id,
    description: row.description,
    totalCents: Number(row.total_cents),
    gstCents: Number(row.gst_cents),
    // Tracking as names; the option ids behind them are the ledger's, not the API's.
    lines: lines.map(({ trackingIds: _ids, ...l }) => ({ ...l })),
    dueDays: Number(row.due_days),
    issuedOn: row.issued_on,
    dueOn: row.due_on,
    reference: row.reference,
    heldReason: row.held_reason,
    note: row.note,
    runId: row.run_id,
    payeeBsb: row.payee_bsb,
    payeeAccountNumber: row.payee_account_number,
    payeeAccountName: row.payee_account_name,
    payeeReference: row.payee_reference,
    journalId: row.journal_id,
    ledgerId: row.ledger_id,
    ...foreignView(row, audOutstandingCents),
  };
}

/** Bank details in events only masked: the ledger is permanent, so payloads are redaction-safe. */
export function maskedAccount(bsb: string | null, account: string | null): string | null {
  return bsb && account ? `${bsb} ...${account.slice(-3)}` : null;
}

/** Every bill event carries payee, totalCents, heldReason and runId (each null when none). */
export function billEventPayload<X extends object = Record<never, never>>(row: BillRow, extra: X = {} as X) {
  return {
    payee: row.payee_name,
    totalCents: Number(row.total_cents),
    heldReason: row.held_reason,
    runId: row.run_id,
    ...extra,
  };
}

async function load(uow: Uow, id: string): Promise<LoadedBill> {
  const row = await uow.tx.get<BillRow>(`SELECT ${BILL_COLUMNS} FROM bills WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    id,
  ]);
  if (!row) throw notFound('bill', id);
  const lines = (await loadBillLines(uow.tx, uow.orgId, [id])).get(id) ?? [];
  return { ...row, lines, approvedBank: await approvedBankOf(uow.tx, uow.orgId, row.payee_key) };
}

type BillVerb = keyof typeof events.billMoves;
type BillMoveEvent<V extends BillVerb> = (typeof events.billMoves)[V];
/** The rest of a move's event payload, besides every bill event's fields and the reason (its note). */
type MoveExtra<V extends BillVerb> = Omit<EventPayloadOf<BillMoveEvent<V>>, 'payee' | 'totalCents' | 'heldReason' | 'runId' | 'reason'>;

interface Move<V extends BillVerb> {
  readonly to: BillStatus;
  /** Picks the move's event declaration (protocol events.billMoves). */
  readonly verb: V;
  readonly note: string | null;
  /** Extra event payload (e.g. the journal the move posts). */
  readonly payload?: MoveExtra<V>;
  /** The journal the move posts with its event (which binds its lines; its ledgerId is the event's). */
  readonly journal?: JournalInput | null;
  /** Columns the move sets besides status, note and ledger_id. */
  readonly set?: { readonly journal_id?: string; readonly approved_at?: string; readonly reversal_journal_id?: string };
}

async function transition<V extends BillVerb>(uow: Uow, bill: LoadedBill, move: Move<V>) {
  const next: BillRow = { ...bill, status: move.to, note: move.note ?? bill.note, journal_id: move.set?.journal_id ?? bill.journal_id };
  if (move.journal) await postJournal(uow, move.journal);
  const event = await uow.emit(events.billMoves[move.verb], {
    entityId: bill.id,
    // The verb ties the note and extra to its declaration (Move<V>); TypeScript cannot follow V through the spread.
    payload: billEventPayload(next, { ...(move.note !== null ? { reason: move.note } : {}), ...move.payload }) as EventPayloadOf<
      BillMoveEvent<V>
    >,
  });
  const set = Object.entries(move.set ?? {});
  const moved = await uow.tx.run(
    `UPDATE bills SET status = ?, note = ?, ledger_id = ?${set.map(([column]) => `, ${column} = ?`).join('')}
     WHERE org_id = ? AND id = ? AND status = ?`,
    [move.to, next.note, event.ledgerId, ...set.map(([, value]) => value), uow.orgId, bill.id, bill.status],
  );
  invariant(moved.changes === 1, `bill ${bill.id} moves from ${bill.status} exactly once`);
  return toBill({ ...next, ledger_id: event.ledgerId }, bill.lines);
}

/**
 * The bill-approval rule: BANK_DETAILS_CHANGED (whatever the amount) beats ABOVE_FLOOR, which beats
 * NEW_PAYEE; none → null. Every way a bill comes in (billCapture, a conversion's carried-in bills)
 * asks here.
 */
export async function heldReasonFor(uow: Uow, key: string, totalCents: number, bank: BankDetails | null): Promise<HeldReason | null> {
  const approved = await approvedBankOf(uow.tx, uow.orgId, key);
  if (bankChanged(bank, approved)) return 'BANK_DETAILS_CHANGED';
  const policy = await loadPolicy(uow.tx, uow.orgId);
  if (totalCents > policy.billApprovalFloorCents) return 'ABOVE_FLOOR';
  return approved.known ? null : 'NEW_PAYEE';
}

type CaptureParams = z.infer<typeof books.billCapture.params>;

const captureTax = (params: CaptureParams): TaxCode => params.taxCode ?? 'GST_ON_EXPENSES';

/** The bill's lines: as given, or one line of the whole bill; accounts checked (BAD_REQUEST). */
async function captureLines(uow: Uow, params: CaptureParams): Promise<PurchaseLine[]> {
  const defaultTax = captureTax(params);
  // A line on 1500 (fixed assets) carries `asset`, named lines[i].asset when missing.
  if (params.lines)
    return resolveLines(
      uow,
      params.lines,
      defaultTax,
      (i) => `lines[${i}].accountCode`,
      (i) => `lines[${i}].asset`,
    );
  invariant(params.totalCents !== undefined, 'the schema requires totalCents without lines');
  return resolveLines(uow, [{ description: params.description, amountCents: params.totalCents }], defaultTax, () => 'taxCode');
}

/**
 * Everything billCapture reads before it writes, in one round trip: the accounts, the
 * supplier by name, the payee's last approved bank details and the policy. All are kept by the
 * batch, so the checks below find them without another statement. The payee is known up front
 * only when the bill names it (with contactId alone its name comes from the contact).
 */
function captureReads(uow: Uow, params: CaptureParams): Read[] {
  const inputs = params.lines ?? [{ description: params.description, amountCents: params.totalCents ?? 0 }];
  return [
    ...purchaseAccountReads(uow.orgId, inputs, captureTax(params)),
    ...documentContactReads(uow.orgId, params),
    ...(params.payeeName !== undefined ? approvedBankReads(uow.orgId, payeeKey(params.payeeName)) : []),
    policyRead(uow.orgId),
  ];
}

/** `origin`: the repeating schedule capturing it (domain/repeating), named in the event. */
export async function billCapture(params: CaptureParams, uow: Uow, origin?: { readonly repeatingId: string }) {
  // Files kept with it (the supplier's PDF): checked before anything is read or written.
  const files = prepareFiles(params.attachments);
  // The bill's date (default today); it is due dueDays after it and posts dated it.
  const issuedOn = issueDateOf(uow, params.issueDate);
  await uow.readTogether(captureReads(uow, params));
  const lines = await captureLines(uow, params);
  const total = lines.reduce((s, l) => s + l.amountCents, 0);
  const gst = lines.reduce((s, l) => s + l.gstCents, 0);
  // A foreign bill: its rate fixed now, on its date. Fixed assets are registered at an AUD cost.
  const asset = isForeign(params.currency) ? lines.findIndex((l) => l.accountCode === FIXED_ASSET_ACCOUNT) : -1;
  if (asset >= 0) {
    const field = params.lines ? `lines[${asset}].accountCode` : 'taxCode';
    throw new DomainError('BAD_REQUEST', `${field}: a fixed asset (account ${FIXED_ASSET_ACCOUNT}) is bought on an AUD bill only`, {
      field,
    });
  }
  const fx = await foreignDocument(uow, params, issuedOn, total, gst);
  // The supplier's contact, found or created in this act. The bill-approval rule still keys the
  // payee by payeeKey of the name the bill is written with.
  const party = await resolveDocumentContact(uow, params, 'supplier');
  const key = payeeKey(party.payeeName);
  const bank =
    params.payeeBsb && params.payeeAccountNumber
      ? { bsb: params.payeeBsb, accountNumber: params.payeeAccountNumber, accountName: null }
      : null;
  // The approval floor is in AUD: a foreign bill is compared at its AUD total.
  const heldReason = await heldReasonFor(uow, key, fx?.audTotalCents ?? total, bank);
  const row: BillRow = {
    id: newId('bill'),
    status: heldReason ? 'held' : 'captured',
    payee_name: party.payeeName,
    payee_key: key,
    contact_id: party.contactId,
    description: params.description,
    total_cents: total,
    gst_cents: gst,
    due_days: params.dueDays,
    issued_on: issuedOn,
    due_on: addDays(issuedOn, params.dueDays),
    reference: params.reference ?? null,
    held_reason: heldReason,
    note: null,
    run_id: null,
    payee_bsb: params.payeeBsb ?? null,
    payee_account_number: params.payeeAccountNumber ?? null,
    // BECS titles are upper case (the safe choice, docs/reference/aba-format.md).
    payee_account_name: params.payeeAccountName?.toUpperCase() ?? null,
    payee_reference: params.payeeReference?.toUpperCase() ?? null,
    journal_id: null,
    created_at: uow.now,
    ledger_id: '',
    ...foreignColumns(fx),
  };
  const event = await uow.emit(events.billCapture, {
    entityId: row.id,
    payload: billEventPayload(row, {
      description: row.description,
      dueOn: row.due_on,
      gstCents: row.gst_cents,
      lineCount: lines.length,
      payeeAccount: maskedAccount(row.payee_bsb, row.payee_account_number),
      ...contactPayload(party),
      issuedOn,
      ...(row.reference !== null ? { reference: row.reference } : {}),
      ...(origin ? { repeatingId: origin.repeatingId } : {}),
      ...attachedPayload(files),
      ...foreignPayload(row),
    }),
  });
  await finishContact(uow, party, 'supplier', event.ledgerId);
  // Queued (Tx.later): on PostgreSQL the bill, its lines and asset details go out with the
  // batch's write-out, not on round trips of their own under the organisation's lock.
  await uow.tx.later(BILL_INSERT, [
    uow.orgId,
    row.id,
    row.status,
    row.payee_name,
    key,
    party.contactId,
    row.description,
    row.total_cents,
    row.gst_cents,
    row.due_days,
    row.issued_on,
    row.due_on,
    row.reference,
    heldReason,
    null,
    null,
    row.payee_bsb,
    row.payee_account_number,
    row.payee_account_name,
    row.payee_reference,
    null,
    row.created_at,
    event.ledgerId,
  ]);
  if (fx) {
    await uow.tx.later(
      'UPDATE bills SET currency = ?, exchange_rate_micros = ?, aud_total_cents = ?, aud_gst_cents = ? WHERE org_id = ? AND id = ?',
      [fx.currency, fx.micros, fx.audTotalCents, fx.audGstCents, uow.orgId, row.id],
    );
  }
  await insertBillLines(uow, row.id, lines);
  await saveAssetDetails(uow, row.id, params.lines ?? []); // fixed assets: registered on approval
  return withFiles(toBill({ ...row, ledger_id: event.ledgerId }, lines), await saveFiles(uow, 'bill', row.id, files, event.ledgerId));
}

/** Statuses billApprove takes: not approved (yet, or again after billHold). */
export const OPEN: readonly BillStatus[] = ['captured', 'held', 'on_hold'];

const HELD_WORDS: Readonly<Record<HeldReason, string>> = {
  BANK_DETAILS_CHANGED: 'bank details changed',
  ABOVE_FLOOR: 'above the approval floor',
  NEW_PAYEE: 'new payee',
};

/**
 * What the human reads, written by the server from the row: agent text quoted; where the money
 * goes in full, and, when the bank details differ from those last approved for the payee, both
 * side by side.
 */
export function billSummary(row: BillRow, approved: ApprovedBank): string {
  const held = row.held_reason ? ` (held: ${HELD_WORDS[row.held_reason]})` : '';
  const bank = bankOf(row);
  const pays = bank ? `; pays ${describeBank(bank)}` : '; no bank details (it cannot be paid by a payment run)';
  const change = bankChanged(bank, approved) ? `; bank details changed: was ${describeBank(approved.last)}, now ${describeBank(bank)}` : '';
  return (
    `Approve bill ${row.id} from ${quoted(row.payee_name)} for ${formatCents(Number(row.total_cents))}${held}: ` +
    `${quoted(row.description)}, due ${row.due_on}${change || pays}`
  );
}

/**
 * Approval posts the bill, once: a bill re-approved after billHold was posted the first time.
 * The posting registers the fixed assets of its 1500 lines, named in the event.
 */
async function approve(uow: Uow, bill: LoadedBill) {
  const journalId = bill.journal_id === null ? newJournalId() : null;
  // The accrual is dated the bill's issue date (approval day for older bills).
  // The lock date may have moved over it since capture: then the approval is refused, naming id.
  const postOn = bill.issued_on ?? uow.today;
  if (journalId !== null && bill.issued_on !== null && uow.lockDate !== null && bill.issued_on <= uow.lockDate) {
    throw new DomainError(
      'BAD_REQUEST',
      `id: bill ${bill.id} is dated ${bill.issued_on}, on or before the lock date ${uow.lockDate}: the books are locked up to and including it (an owner can move the lock date)`,
      { field: 'id' },
    );
  }
  const postedBy = journalId ?? bill.journal_id;
  invariant(postedBy !== null, `bill ${bill.id} is posted by this approval or was by an earlier one`);
  const assets = journalId === null ? [] : await plannedBillAssets(uow, bill.id, bill.lines);
  const out = await transition(uow, bill, {
    to: 'approved',
    verb: 'approve',
    note: null,
    payload: {
      journalId: postedBy,
      gstCents: Number(bill.gst_cents),
      ...(assets.length > 0 ? { assetIds: assets.map((a) => a.id) } : {}),
    },
    journal:
      journalId === null
        ? null
        : {
            id: journalId,
            date: postOn,
            dateField: bill.issued_on === null ? 'date' : 'id',
            memo: `Bill ${bill.id} from ${bill.payee_name}: ${bill.description}`,
            source: { kind: 'bill', id: bill.id },
            lines: billPosting(bill, bill.lines),
          },
    set: journalId === null ? { approved_at: uow.now } : { journal_id: journalId, approved_at: uow.now },
  });
  if (journalId !== null) await indexDocumentWords(uow.tx, uow.orgId, billWords(bill));
  if (journalId !== null) {
    await registerAssets(uow, assets, { kind: 'bill', id: bill.id, date: postOn, journalId, ledgerId: out.ledgerId });
  }
  // The contact keeps the bank details of its most recently approved bill.
  if (bill.contact_id !== null) await refreshContactBank(uow, bill.contact_id);
  return out;
}

export const billApproveAct: SignatureAct<{ id: string }, LoadedBill, typeof books.billApprove> = {
  spec: books.billApprove,
  refuseWithoutProof: true,
  load: (params, uow) => load(uow, params.id),
  subjectId: (row) => row.id,
  needsProof: (_params, row) => row.held_reason !== null,
  summary: (_params, row) => billSummary(row, row.approvedBank ?? { known: false, last: null }),
  state(_params, row) {
    if (row.status === 'approved') return { ...toBill(row, row.lines), noop: true };
    if (!OPEN.includes(row.status))
      throw conflict(`bill ${row.id} is ${row.status}; only a captured, held or on-hold bill can be approved`);
    return null;
  },
  execute: (_params, row, uow) => approve(uow, row),
};

export const billApprove = signatureHandler<z.infer<typeof books.billApprove.params>, LoadedBill, typeof books.billApprove>(billApproveAct);

export async function billHold(params: z.infer<typeof books.billHold.params>, uow: Uow) {
  const row = await load(uow, params.id);
  if (row.status === 'on_hold') return { ...toBill(row, row.lines), noop: true };
  if (!['captured', 'held', 'approved'].includes(row.status)) {
    throw conflict(`bill ${row.id} is ${row.status}; only a captured, held or approved bill can be put on hold`);
  }
  return transition(uow, row, { to: 'on_hold', verb: 'hold', note: params.reason });
}

/** Returning a posted bill reverses its posting (dated today); a partly paid bill cannot be returned. */
export async function billReturn(params: z.infer<typeof books.billReturn.params>, uow: Uow) {
  const row = await load(uow, params.id);
  if (row.status === 'returned') return { ...toBill(row, row.lines), noop: true };
  if (!['captured', 'held', 'on_hold', 'approved'].includes(row.status)) {
    throw conflict(`bill ${row.id} is ${row.status}; it can no longer be returned`);
  }
  const posted = row.journal_id !== null;
  if (posted) {
    // A foreign bill's payments are its own rows (fx-payment.ts); the ledger holds AUD.
    const owed = isForeign(row.currency)
      ? Number(row.total_cents) - ((await foreignBillPaid(uow.tx, uow.orgId, [row.id])).get(row.id) ?? 0)
      : await owedOnDocument(uow.tx, uow.orgId, PAYABLES_ACCOUNT, row.id);
    if (owed !== Number(row.total_cents)) {
      const paid = formatCents(Number(row.total_cents) - owed);
      throw conflict(`bill ${row.id} has ${paid} paid against it; a paid bill cannot be returned`);
    }
    // A return reverses the whole posting: after a note had reversed part of it (and perhaps
    // left a supplier credit), that part would be reversed twice.
    const note = await uow.tx.get<{ id: string }>('SELECT id FROM bill_credit_notes WHERE org_id = ? AND bill_id = ? LIMIT 1', [
      uow.orgId,
      row.id,
    ]);
    if (note) {
      throw conflict(
        `bill ${row.id} has adjustment note ${note.id} (${credits.billCreditNote.name}); a bill partly credited cannot be returned: credit what is left with another note`,
      );
    }
  }
  const reversalId = posted ? newJournalId() : null;
  // The reversal takes the bill's fixed assets off 1500, so off the register too.
  const assetIds = posted ? await returnBillAssets(uow, row.id) : [];
  const out = await transition(uow, row, {
    to: 'returned',
    verb: 'return',
    note: params.reason,
    payload: {
      ...(reversalId ? { reversalJournalId: reversalId } : {}),
      ...(assetIds.length > 0 ? { returnedAssetIds: assetIds } : {}),
    },
    journal:
      reversalId === null
        ? null
        : {
            id: reversalId,
            date: uow.today,
            memo: `Bill ${row.id} from ${row.payee_name} returned: ${params.reason}`,
            source: { kind: 'bill_return', id: row.id },
            lines: billPosting(row, row.lines, -1),
          },
    set: reversalId === null ? {} : { reversal_journal_id: reversalId },
  });
  // A returned bill's details are not "last approved" any more, so not the contact's either.
  if (row.contact_id !== null) await refreshContactBank(uow, row.contact_id);
  return out;
}

/** approval.request for books.bill_approve matches a bill still held under the bill-approval rule. */
export async function pbB1Hold(uow: Uow, subjectId: string, payloadHash: string): Promise<OpenHold | null> {
  const row = await uow.tx.get<BillRow>(`SELECT ${BILL_COLUMNS} FROM bills WHERE org_id = ? AND id = ?`, [uow.orgId, subjectId]);
  if (!row || row.held_reason === null || !OPEN.includes(row.status)) return null;
  const params = { id: row.id };
  if (payloadHashOf(actionClassOf(books.billApprove), row.id, params) !== payloadHash) return null;
  return { method: books.billApprove.name, params, summary: billSummary(row, await approvedBankOf(uow.tx, uow.orgId, row.payee_key)) };
}
