import { refuseForeign } from '../receivables/foreign.js';
import { payables as payablesSpec } from '@finance-desk/protocol';
import { events, FIXED_ASSET_ACCOUNT, gstOfInclusive, TAX_CODES, type books, type credits, type TaxCode } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, DomainError, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { issueDateOf } from '../gl/periods.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { loadBillLines, type PurchaseLine } from '../payables/bill-lines.js';
import { PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { owedOnDocument } from '../payables/settle.js';
import { fieldError } from './common.js';
import { creditLine, keepCredit, newCreditId } from './ledger.js';
import { mulDivHalfUp } from '../../money.js';
import { shareOverAccounts, splitParts, type LeftToCredit, type NotePart } from './split.js';

/**
 * books.billCreditNote: a supplier's adjustment note for part of a bill, mirroring
 * books.invoiceCreditNote. It credits one tax code of the bill: GST is 1/11 of the note (half up,
 * once), never more than is left of that code's GST, and the note that clears the code takes
 * exactly what is left. It reverses the expense of the lines it credits, shared over their
 * accounts in proportion to what is left on each: Dr 2000 / Cr expense (net; tags negative) / Cr
 * 1200 GST paid. Fixed-asset lines (1500) are not credited here: their cost is on the register.
 * The journals are bill_credit_note journals of the bill, so the BAS treats a note on a bill of an
 * earlier period as an increasing adjustment (G7, 1A), as it treats a bill returned, and nets one
 * in the bill's own period into its purchase labels.
 * Beyond what the bill still owes (a paid bill), the rest is the supplier's credit: a journal of
 * its own with Dr 2000 under the credit's id (the cash basis counts its GST when issued: the bill
 * was paid). The same bill, amount, tax code and reason again is a no-op.
 */
type Params = z.infer<typeof credits.billCreditNote.params>;
type BillStatus = z.infer<typeof books.billStatus>;

interface BillHead {
  id: string;
  status: BillStatus;
  payee_name: string;
  contact_id: string | null;
  issued_on: string | null;
  journal_id: string | null;
  currency: string | null;
}

interface NoteRow {
  id: string;
  amount_cents: number;
  gst_cents: number;
  tax_code: TaxCode;
  account_code: string;
  reason: string;
  issued_on: string;
  credit_id: string | null;
  credit_cents: number;
  journal_ids: string;
  ledger_id: string;
}

const NOTE_COLUMNS =
  'id, amount_cents, gst_cents, tax_code, account_code, reason, issued_on, credit_id, credit_cents, journal_ids, ledger_id';

/** Statuses an adjustment note may credit: posted (approved) and paid. */
const CREDITABLE: readonly BillStatus[] = ['approved', 'paid'];

/** The code with the largest amount among the creditable lines (the first line's on a tie). */
function dominantCode(lines: readonly PurchaseLine[]): TaxCode | null {
  const sums = new Map<TaxCode, number>();
  for (const l of lines) sums.set(l.taxCode, (sums.get(l.taxCode) ?? 0) + l.amountCents);
  let best: TaxCode | null = null;
  for (const [code, sum] of sums) if (best === null || sum > (sums.get(best) ?? 0)) best = code;
  return best;
}

/** What is left to credit of `code`: its lines less the earlier notes on this bill (their journal lines carry code and account). */
async function leftOfCode(uow: Uow, bill: BillHead, code: TaxCode, lines: readonly PurchaseLine[]): Promise<LeftToCredit> {
  const ofCode = lines.filter((l) => l.taxCode === code);
  if (ofCode.length === 0) {
    const codes = [...new Set(lines.map((l) => l.taxCode))].join(', ');
    throw fieldError(
      'BAD_REQUEST',
      'taxCode',
      `bill ${bill.id} has no ${code} line to credit; credit one of its codes (${codes || 'none'})`,
    );
  }
  const byAccount = new Map<string, { amountCents: number; gstCents: number }>();
  const add = (account: string, a: number, g: number) => {
    const x = byAccount.get(account) ?? { amountCents: 0, gstCents: 0 };
    byAccount.set(account, { amountCents: x.amountCents + a, gstCents: x.gstCents + g });
  };
  for (const l of ofCode) add(l.accountCode, l.amountCents, l.gstCents);
  // From the document's journals (journals_source) to their lines: CROSS JOIN fixes that order in
  // SQLite, which otherwise read every line of the organisation (0.25 s at 100 000 documents).
  const prior = await uow.tx.all<{ account: string; a: unknown; g: unknown }>(
    `SELECT l.account_code AS account, SUM(l.tax_base_cents) AS a, SUM(l.gst_cents) AS g
     FROM journals j CROSS JOIN journal_lines l
     WHERE l.org_id = j.org_id AND l.journal_id = j.id
       AND j.org_id = ? AND j.source_kind = 'bill_credit_note' AND j.source_id = ? AND l.tax_code = ?
     GROUP BY l.account_code`,
    [uow.orgId, bill.id, code],
  );
  // Note tags are negative: adding them takes off what was credited.
  for (const r of prior) add(r.account, Number(r.a ?? 0), Number(r.g ?? 0));
  const accounts = [...byAccount].map(([accountCode, a]) => ({ accountCode, ...a }));
  return {
    amountCents: accounts.reduce((s, a) => s + a.amountCents, 0),
    gstCents: accounts.reduce((s, a) => s + a.gstCents, 0),
    accounts,
  };
}

function result(bill: BillHead, n: NoteRow, status: BillStatus, outstandingCents: number) {
  return {
    id: bill.id,
    creditNoteId: n.id,
    amountCents: Number(n.amount_cents),
    gstCents: Number(n.gst_cents),
    taxCode: n.tax_code,
    accountCode: n.account_code,
    reason: n.reason,
    issuedOn: n.issued_on,
    status,
    outstandingCents,
    creditId: n.credit_id,
    creditCents: Number(n.credit_cents),
    journalIds: JSON.parse(n.journal_ids) as string[],
    ledgerId: n.ledger_id,
  };
}

async function postNote(
  uow: Uow,
  bill: BillHead,
  note: { id: string; code: TaxCode; reason: string; issuedOn: string },
  parts: readonly NotePart[],
  journal: { readonly id: string; readonly docId: string },
): Promise<void> {
  const amount = parts.reduce((s, x) => s + x.amountCents, 0);
  const gst = parts.reduce((s, x) => s + x.gstCents, 0);
  const beyond = journal.docId !== bill.id ? ` (beyond what was owed: kept as credit ${journal.docId})` : '';
  const memo = `Adjustment note ${note.id} on bill ${bill.id} from ${bill.payee_name}: ${note.reason}${beyond}`.slice(0, 500);
  await postJournal(uow, {
    id: journal.id,
    date: note.issuedOn,
    dateField: 'issueDate',
    memo,
    source: { kind: 'bill_credit_note', id: bill.id },
    lines: [
      journal.docId === bill.id
        ? { account: PAYABLES_ACCOUNT, debitCents: amount, docId: bill.id, description: memo }
        : creditLine('supplier', journal.docId, amount, memo),
      // Each credited account's expense is reversed; the purchase's tags go negative.
      ...parts.map((x) => ({
        account: x.accountCode,
        creditCents: x.amountCents - x.gstCents,
        taxCode: note.code,
        taxBaseCents: -x.amountCents,
        gstCents: -x.gstCents,
        description: memo,
      })),
      { account: { key: 'gst_paid' }, creditCents: gst, description: `GST on adjustment note ${note.id}` },
    ],
  });
}

export async function billCreditNote(p: Params, uow: Uow) {
  const bill = await uow.tx.get<BillHead>(
    `SELECT id, status, payee_name, contact_id, issued_on, journal_id, currency FROM bills WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
    [uow.orgId, p.id],
  );
  if (!bill) throw notFound('bill', p.id);
  refuseForeign(
    'bill',
    bill,
    'an adjustment note',
    `record what is paid with ${payablesSpec.billRecordPayment.name}, or return it while it has no payments`,
  );
  const lines = ((await loadBillLines(uow.tx, uow.orgId, [bill.id])).get(bill.id) ?? []).filter(
    (l) => l.accountCode !== FIXED_ASSET_ACCOUNT,
  );
  const code = p.taxCode ?? dominantCode(lines);
  if (code === null)
    throw fieldError('BAD_REQUEST', 'taxCode', `bill ${bill.id} has no line an adjustment note can credit (fixed assets are not)`);
  const same = await uow.tx.get<NoteRow>(
    `SELECT ${NOTE_COLUMNS} FROM bill_credit_notes WHERE org_id = ? AND bill_id = ? AND amount_cents = ? AND tax_code = ? AND reason = ?`,
    [uow.orgId, bill.id, p.amountCents, code, p.reason],
  );
  if (same) return { ...result(bill, same, bill.status, await owedOnDocument(uow.tx, uow.orgId, PAYABLES_ACCOUNT, bill.id)), noop: true };
  if (!CREDITABLE.includes(bill.status) || bill.journal_id === null) {
    throw conflict(`bill ${bill.id} is ${bill.status}; only an approved or paid bill can take an adjustment note`);
  }
  const left = await leftOfCode(uow, bill, code, lines);
  if (p.amountCents > left.amountCents) {
    throw fieldError(
      'BAD_REQUEST',
      'amountCents',
      `${p.amountCents} is more than the ${left.amountCents} cents of ${code} purchases left to credit on bill ${bill.id}`,
    );
  }
  const issuedOn = issueDateOf(uow, p.issueDate);
  const billDate =
    bill.issued_on ??
    (await uow.tx.get<{ date: string }>('SELECT date FROM journals WHERE org_id = ? AND id = ?', [uow.orgId, bill.journal_id]))?.date;
  if (billDate !== undefined && issuedOn < billDate) {
    throw new DomainError('BAD_REQUEST', `issueDate ${issuedOn} is before bill ${bill.id} was issued (${billDate})`, {
      field: 'issueDate',
    });
  }
  const gst = !TAX_CODES[code].gst
    ? 0
    : p.amountCents === left.amountCents
      ? left.gstCents
      : Math.min(gstOfInclusive(p.amountCents), left.gstCents);
  const parts = shareOverAccounts(left, p.amountCents, gst);
  invariant(parts.length > 0, 'an adjustment note credits at least one expense account');
  const accountCode = parts.reduce((m, x) => (x.amountCents > m.amountCents ? x : m)).accountCode;
  const owed = await owedOnDocument(uow.tx, uow.orgId, PAYABLES_ACCOUNT, bill.id);
  const within = Math.min(p.amountCents, Math.max(owed, 0));
  const excess = p.amountCents - within;
  const outstanding = owed - within;
  const id = newId('bcn');
  const creditId = excess > 0 ? newCreditId() : null;
  invariant(creditId === null || bill.contact_id !== null, `bill ${bill.id} has a contact`);
  const excessGst = excess === 0 ? 0 : excess === p.amountCents ? gst : mulDivHalfUp(gst, excess, p.amountCents);
  const [withinParts, beyondParts] = excess === 0 ? [parts, []] : splitParts(parts, excess, excessGst);
  const journalIds: string[] = [];
  const note = { id, code, reason: p.reason, issuedOn };
  if (withinParts.length > 0) {
    journalIds.push(newJournalId());
    await postNote(uow, bill, note, withinParts, { id: journalIds[0] ?? '', docId: bill.id });
  }
  const creditJournalId = creditId === null ? null : newJournalId();
  if (creditId !== null && creditJournalId !== null) {
    journalIds.push(creditJournalId);
    await postNote(uow, bill, note, beyondParts, { id: creditJournalId, docId: creditId });
  }
  const status: BillStatus = outstanding === 0 ? 'paid' : bill.status;
  const event = await uow.emit(events.billCreditNote, {
    entityId: bill.id,
    payload: {
      creditNoteId: id,
      payee: bill.payee_name,
      amountCents: p.amountCents,
      gstCents: gst,
      taxCode: code,
      reason: p.reason,
      issuedOn,
      status,
      outstandingCents: outstanding,
      creditId,
      creditCents: excess,
    },
  });
  const row: NoteRow = {
    id,
    amount_cents: p.amountCents,
    gst_cents: gst,
    tax_code: code,
    account_code: accountCode,
    reason: p.reason,
    issued_on: issuedOn,
    credit_id: creditId,
    credit_cents: excess,
    journal_ids: JSON.stringify(journalIds),
    ledger_id: event.ledgerId,
  };
  await uow.tx.run(
    `INSERT INTO bill_credit_notes (org_id, bill_id, created_at, ${NOTE_COLUMNS}) VALUES (?, ?, ?, ${NOTE_COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})`,
    [
      uow.orgId,
      bill.id,
      uow.now,
      id,
      p.amountCents,
      gst,
      code,
      accountCode,
      p.reason,
      issuedOn,
      creditId,
      excess,
      row.journal_ids,
      event.ledgerId,
    ],
  );
  if (creditId !== null && creditJournalId !== null && bill.contact_id !== null) {
    await keepCredit(uow, {
      id: creditId,
      contact_id: bill.contact_id,
      side: 'supplier',
      source_kind: 'adjustment_note',
      source_id: id,
      document_id: bill.id,
      amount_cents: excess,
      dated: issuedOn,
      reference: '',
      account_code: null,
      journal_id: creditJournalId,
      ledger_id: event.ledgerId,
    });
  }
  if (status !== bill.status) {
    await uow.tx.run("UPDATE bills SET status = 'paid', paid_at = ?, ledger_id = ? WHERE org_id = ? AND id = ?", [
      uow.now,
      event.ledgerId,
      uow.orgId,
      bill.id,
    ]);
  }
  return result(bill, row, status, outstanding);
}
