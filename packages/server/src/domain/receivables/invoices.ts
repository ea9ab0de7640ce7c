import { loadProfile, supplierLines } from '../../org/profile.js';
import { searchKey } from '../search-key.js';
import { contactPayload, documentContactReads, finishContact, resolveDocumentContact } from '../contacts/contacts.js';
import { currencies, events, TAX_CODES, type books, type TaxCode } from '@finance-desk/protocol';
import type { z } from 'zod';
import { enqueueEmail } from '../../adapters/outbox.js';
import { addDays } from '../../clock.js';
import { conflict, DomainError, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import type { Queryable } from '../../storage/types.js';
import type { Read, Uow } from '../../write-path.js';
import { formatInvoiceNumber } from '../gl/migration-day-one.js';
import { checkPostable, issueDateOf } from '../gl/periods.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { insertSaleLines, loadSaleLines, resolveSaleLines, saleAccountReads, type SaleLine } from './invoice-lines.js';
import { foreignPaid, issuePosting } from './foreign.js';
import { foreignDocument, foreignView } from '../currencies/convert.js';
import { isForeign } from '../currencies/rates.js';
import { outstandingOn } from './ledger-api.js';
import type { EmailAttachment } from '../../adapters/email.js';
import { invoicePdf } from './documents.js';
import { assetSaleInputs, assetSales } from '../assets/invoice-sale.js';
import { attachedPayload, prepareFiles, saveFiles, withFiles } from '../attachments/store.js';
import { indexDocumentWords, invoiceWords } from '../reconciliation/document-words.js';

/**
 * Invoice state machine (docs/examples/receivables.md): draft → sent (posted) → part_paid → paid;
 * sent/part_paid → credited (credit notes clear it) or paid (they clear it after a payment);
 * draft or an untouched sent invoice → void; sent/part_paid → written_off (a bad debt, write-off.ts).
 * Every illegal move is a CONFLICT naming the state.
 * `ledger_id` is the event that moved the invoice into its current status (a no-op replay returns it).
 */
export type InvoiceStatus = 'draft' | 'sent' | 'part_paid' | 'paid' | 'credited' | 'void' | 'written_off';

export interface InvoiceRow {
  id: string;
  /** The human number (INV-0001); migration 30 numbered the older ones. */
  number: string | null;
  reference: string | null;
  status: InvoiceStatus;
  payee_name: string;
  /** Set on every invoice (migration 25 filled the older ones). */
  contact_id: string | null;
  description: string;
  total_cents: number;
  gst_cents: number;
  due_days: number;
  created_at: string;
  issued_on: string | null;
  due_on: string | null;
  payee_email: string | null;
  chase_step: number;
  journal_id: string | null;
  void_journal_id: string | null;
  void_reason: string | null;
  ledger_id: string;
  /** The quote whose acceptance drafted it (migration 57), else null. */
  quote_id: string | null;
  /** A foreign invoice (foreign.ts): its currency, rate and AUD figures; NULL on AUD invoices. */
  currency: string | null;
  exchange_rate_micros: number | null;
  aud_total_cents: number | null;
  aud_gst_cents: number | null;
}

export const INVOICE_COLUMNS =
  'id, number, reference, status, payee_name, contact_id, description, total_cents, gst_cents, due_days, created_at, issued_on, due_on, ' +
  'payee_email, chase_step, journal_id, void_journal_id, void_reason, ledger_id, quote_id, currency, exchange_rate_micros, aud_total_cents, aud_gst_cents';

/**
 * What the customer owes on an invoice the ledger does not decide for: nothing for a draft or a
 * void one; the total for one sent before invoices were posted (no journal). Null for a posted
 * invoice: its outstanding is the ledger's balance on 1100.
 */
export function outstandingOffLedger(row: InvoiceRow): number | null {
  if (row.status === 'draft' || row.status === 'void') return 0;
  if (row.journal_id === null) return Number(row.total_cents);
  return null;
}

/**
 * What the customer still owes (outstandingOffLedger, else the ledger's balance on 1100), in the
 * invoice's currency: a foreign invoice's is its total less its standing payments (foreign.ts).
 */
export async function outstandingOf(q: Queryable, orgId: string, row: InvoiceRow): Promise<number> {
  const off = outstandingOffLedger(row);
  if (off !== null) return off;
  if (isForeign(row.currency)) return Number(row.total_cents) - ((await foreignPaid(q, orgId, [row.id])).get(row.id) ?? 0);
  return outstandingOn(q, orgId, row.id);
}

/** The AUD the ledger carries for a foreign invoice (0 for a draft or void one); 0 for AUD (not shown). */
export async function audOutstandingOf(q: Queryable, orgId: string, row: InvoiceRow): Promise<number> {
  if (!isForeign(row.currency) || row.journal_id === null || row.status === 'void') return 0;
  return outstandingOn(q, orgId, row.id);
}

/** `audOutstandingCents`: a foreign invoice's AUD carried on 1100 (foreign.ts); unused for AUD. */
export function toInvoice(row: InvoiceRow, lines: readonly SaleLine[], outstandingCents: number, audOutstandingCents: number) {
  invariant(row.contact_id !== null, `invoice ${row.id} has a contact`);
  invariant(row.number !== null, `invoice ${row.id} has a number`);
  return {
    id: row.id,
    number: row.number,
    reference: row.reference,
    status: row.status,
    payeeName: row.payee_name,
    contactId: row.contact_id,
    description: row.description,
    totalCents: Number(row.total_cents),
    gstCents: Number(row.gst_cents),
    // Tracking as names; the option ids behind them are the ledger's, not the API's.
    lines: lines.map(({ trackingIds: _ids, ...l }) => ({ ...l })),
    dueDays: Number(row.due_days),
    createdAt: row.created_at,
    issuedOn: row.issued_on,
    dueOn: row.due_on,
    payeeEmail: row.payee_email,
    chaseStep: Number(row.chase_step),
    journalId: row.journal_id,
    ledgerId: row.ledger_id,
    outstandingCents,
    ...(row.quote_id ? { quoteId: row.quote_id } : {}),
    ...foreignView(row, audOutstandingCents),
  };
}

/** The invoice as the API shows it, read inside the unit of work (after its own writes). */
export async function invoiceView(uow: Uow, row: InvoiceRow) {
  const lines = (await loadSaleLines(uow.tx, uow.orgId, [row.id])).get(row.id) ?? [];
  return toInvoice(row, lines, await outstandingOf(uow.tx, uow.orgId, row), await audOutstandingOf(uow.tx, uow.orgId, row));
}

/** The invoice row, locked for this unit of work; NOT_FOUND when not this organisation's. */
export async function loadInvoice(uow: Uow, id: string): Promise<InvoiceRow> {
  const row = await uow.tx.get<InvoiceRow>(`SELECT ${INVOICE_COLUMNS} FROM invoices WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    id,
  ]);
  if (!row) throw notFound('invoice', id);
  return row;
}

/**
 * The invoice's number. Given: it must be free in the organisation (CONFLICT
 * naming `number`) and the sequence does not move. Else the organisation's next (prefix and
 * invoice_next, under the organisation's lock so two drafts cannot take the same), skipping any a business gave
 * by hand, and invoice_next moves past it in this transaction. The unique index
 * (org_id, number) is the backstop.
 */
async function allocateNumber(
  uow: Uow,
  given: string | undefined,
  alongside: () => readonly Read[],
): Promise<{ number: string; next: number | null }> {
  const seq = await uow.invoiceSequence();
  const window = await uow.optimistic(NUMBER_WINDOW_KEY, () => numberWindow(uow, seq, alongside));
  const taken = async (n: string) =>
    window?.taken.has(n) ||
    (!window?.numbers.has(n) &&
      (await uow.tx.get('SELECT id FROM invoices WHERE org_id = ? AND number = ?', [uow.orgId, n])) !== undefined);
  if (given !== undefined) {
    if (await taken(given)) throw new DomainError('CONFLICT', `number ${given} is already another invoice's number`, { field: 'number' });
    window?.taken.add(given);
    return { number: given, next: null };
  }
  // Under the organisation's lock, so two drafts cannot take the same (the batch reads
  // the sequence once and keeps it current, no round trip per draft).
  let next = seq.next;
  let number = formatInvoiceNumber(seq.prefix, next);
  // Each number is looked up once (the free one used to be looked up twice). Bounded:
  // each skip is an invoice someone numbered by hand in the sequence's way; past 1000 the
  // sequence is blocked.
  for (let skips = 0; await taken(number); skips += 1) {
    if (skips === 1000) throw conflict(`the invoice sequence is blocked at ${number}: the owner can move the next number in the profile`);
    next += 1;
    number = formatInvoiceNumber(seq.prefix, next);
  }
  window?.taken.add(number);
  // The caller moves invoice_next past it (uow.moveInvoiceSequence), after its own inserts.
  return { number, next: next + 1 };
}

/**
 * The sequence's next NUMBER_WINDOW numbers, and which of them are taken, read once
 * for a batch of drafts (uow.optimistic) instead of one look-up per draft under the lock. The
 * batch adds each number it gives out to `taken`; a number outside the window is looked up. An
 * invoice numbered by another path in the same batch is not seen here: the unique index
 * (org_id, number) refuses it when the writes go out, and the batch runs again exactly. The
 * window is read with `alongside()`, the draft's other first reads (its accounts and payee), in one
 * round trip (Uow.readTogether): they are kept by the batch, so they are not read again.
 */
interface NumberWindow {
  readonly numbers: ReadonlySet<string>;
  readonly taken: Set<string>;
}

const NUMBER_WINDOW = 256;
const NUMBER_WINDOW_KEY = 'invoice-number-window';
/** Past this many rows in the window's ranges the window is not used (every number is looked up). */
const NUMBER_WINDOW_ROWS_MAX = 1024;
/**
 * The window's numbers as at most two ranges of the unique index (org_id, number): within one
 * width, zero-padded numbers sort as they count, and 256 numbers span at most two widths. A range
 * scan costs the rows in it (hand-numbered invoices, and any text that sorts between); an IN list
 * of 256 was a filter of every invoice row against 256 values when the planner chose a sequential
 * scan (measured: it made a batch of drafts several times slower).
 *
 * One range (the usual case: every number of the window has one width) is one scan; two are a
 * scan each, their rows appended (the ranges used to be OR-ed in one
 * condition, with the one range given twice, which the index serves only as a bitmap OR). A
 * range scan needs a plan that scans the range: PostgreSQL's generic plan for this read, chosen
 * while the table was young, was every invoice of the organisation through another index,
 * filtered — storage/postgres.ts drops each connection's cached plans on a schedule for that.
 */
const NUMBER_RANGE = `SELECT number FROM invoices WHERE org_id = ? AND number >= ? AND number <= ? LIMIT ${NUMBER_WINDOW_ROWS_MAX + 1}`;
export const NUMBER_WINDOW_SQL = {
  one: NUMBER_RANGE,
  two: `SELECT number FROM (${NUMBER_RANGE}) a UNION ALL SELECT number FROM (${NUMBER_RANGE}) b`,
} as const;

async function numberWindow(
  uow: Uow,
  seq: { readonly prefix: string; readonly next: number },
  alongside: () => readonly Read[],
): Promise<NumberWindow> {
  const numbers = Array.from({ length: NUMBER_WINDOW }, (_, i) => formatInvoiceNumber(seq.prefix, seq.next + i));
  const ranges: [string, string][] = [];
  for (const n of numbers) {
    const last = ranges.at(-1);
    if (last && last[1].length === n.length) last[1] = n;
    else ranges.push([n, n]);
  }
  const first = ranges[0];
  if (first === undefined || ranges.length > 2) {
    await uow.readTogether(alongside());
    return noWindow();
  }
  const second = ranges[1];
  const window: Read = second
    ? [NUMBER_WINDOW_SQL.two, [uow.orgId, ...first, uow.orgId, ...second]]
    : [NUMBER_WINDOW_SQL.one, [uow.orgId, ...first]];
  const [read = []] = await uow.readTogether([window, ...alongside()]);
  const rows = read as { number: string }[];
  // Too many to hold: no window, each number is looked up.
  if (rows.length > NUMBER_WINDOW_ROWS_MAX) return noWindow();
  return { numbers: new Set(numbers), taken: new Set(rows.map((r) => r.number)) };
}

/** No numbers known free: each is looked up (the batch still records the ones it gives out). */
const noWindow = (): NumberWindow => ({ numbers: new Set(), taken: new Set() });

/** What drafted an invoice other than a call of books.invoiceDraft, named in its event and kept on the row. */
export type InvoiceOrigin = { readonly repeatingId: string } | { readonly quoteId: string };

/** `origin`: the repeating schedule (domain/repeating) or the accepted quote (domain/quotes) drafting it. */
export async function invoiceDraft(params: z.infer<typeof books.invoiceDraft.params>, uow: Uow, origin?: InvoiceOrigin) {
  const id = newId('inv');
  // Files kept with it: checked before anything is read or written.
  const files = prepareFiles(params.attachments);
  // Drafted with an issue date, the invoice is dated it (checked now and again at send).
  const issuedOn = params.issueDate === undefined ? null : issueDateOf(uow, params.issueDate);
  const inputs = params.lines ?? [{ description: params.description, amountCents: params.totalCents }];
  // Read with the batch's number window (its first draft): one round trip for the three.
  const alongside = () => [...saleAccountReads(uow.orgId, inputs), ...documentContactReads(uow.orgId, params)];
  const { number, next } = await allocateNumber(uow, params.number, alongside);
  const defaultTax: TaxCode = params.taxCode ?? 'GST';
  // A line naming an asset sells it (disposed of when sent); its account is 4300.
  const lines = await resolveSaleLines(uow, await assetSaleInputs(uow, inputs), defaultTax, (i) =>
    params.lines ? `lines[${i}].accountCode` : 'lines',
  );
  const gstCents = lines.reduce((s, l) => s + l.gstCents, 0);
  const fx = await draftCurrency(uow, params, issuedOn, params.totalCents, gstCents);
  // The customer's contact, found or created in this act (its event is this one).
  const party = await resolveDocumentContact(uow, { ...params, email: params.payeeEmail ?? null }, 'customer');
  const event = await uow.emit(events.invoiceDraft, {
    entityId: id,
    // The original payload (payee, description, totalCents, dueDays), kept as it was, plus the
    // contact: lines and GST are in the row, the result and books.invoices.
    payload: {
      payee: party.payeeName,
      description: params.description,
      totalCents: params.totalCents,
      dueDays: params.dueDays,
      ...contactPayload(party),
      number,
      ...(params.reference !== undefined ? { reference: params.reference } : {}),
      ...(issuedOn !== null ? { issueDate: issuedOn } : {}),
      ...(origin && 'repeatingId' in origin ? { repeatingId: origin.repeatingId } : {}),
      ...(origin && 'quoteId' in origin ? { quoteId: origin.quoteId } : {}),
      ...attachedPayload(files),
      ...(fx ? { currency: fx.currency, exchangeRate: currencies.rateString(fx.micros) } : {}),
    },
  });
  await finishContact(uow, party, 'customer', event.ledgerId);
  const row: InvoiceRow = {
    id,
    number,
    reference: params.reference ?? null,
    status: 'draft',
    payee_name: party.payeeName,
    contact_id: party.contactId,
    description: params.description,
    total_cents: params.totalCents,
    gst_cents: gstCents,
    due_days: params.dueDays,
    created_at: uow.now,
    issued_on: issuedOn,
    due_on: issuedOn === null ? null : addDays(issuedOn, params.dueDays),
    payee_email: params.payeeEmail ?? null,
    chase_step: 0,
    journal_id: null,
    void_journal_id: null,
    void_reason: null,
    ledger_id: event.ledgerId,
    quote_id: origin && 'quoteId' in origin ? origin.quoteId : null,
    currency: fx?.currency ?? null,
    exchange_rate_micros: fx?.micros ?? null,
    aud_total_cents: fx?.audTotalCents ?? null,
    aud_gst_cents: fx?.audGstCents ?? null,
  };
  await uow.tx.later(
    `INSERT INTO invoices (org_id, id, number, reference, issued_on, due_on, status, payee_name, contact_id, payee_search, description,
       total_cents, gst_cents, due_days, created_at, payee_email, chase_step, ledger_id, quote_id, currency, exchange_rate_micros,
       aud_total_cents, aud_gst_cents)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uow.orgId,
      id,
      number,
      row.reference,
      row.issued_on,
      row.due_on,
      'draft',
      row.payee_name,
      party.contactId,
      // The books.invoices payeeName filter compares this key (search-key.ts, migration 12).
      searchKey(row.payee_name),
      row.description,
      row.total_cents,
      gstCents,
      row.due_days,
      uow.now,
      row.payee_email,
      0,
      event.ledgerId,
      row.quote_id,
      row.currency,
      row.exchange_rate_micros,
      row.aud_total_cents,
      row.aud_gst_cents,
    ],
  );
  await insertSaleLines(uow, id, lines);
  // Queued after the invoice's rows (on PostgreSQL the three writes go out as one statement).
  if (next !== null) await uow.moveInvoiceSequence(next);
  // A draft has posted nothing: nothing outstanding, nothing carried in AUD.
  return withFiles(toInvoice(row, lines, 0, 0), await saveFiles(uow, 'invoice', id, files, event.ledgerId));
}

/**
 * A draft's currency: null for AUD; else its rate, fixed now (given, or the table's on the
 * document date: issueDate, else today) and the AUD total and GST it posts when sent. A line
 * selling a fixed asset is refused: a disposal's proceeds are posted in AUD.
 */
async function draftCurrency(
  uow: Uow,
  params: z.infer<typeof books.invoiceDraft.params>,
  issuedOn: string | null,
  totalCents: number,
  gstCents: number,
) {
  if (!isForeign(params.currency)) return null;
  const sold = (params.lines ?? []).findIndex((l) => l.assetId !== undefined);
  if (sold >= 0) {
    throw new DomainError(
      'BAD_REQUEST',
      `lines[${sold}].assetId: an asset is sold on an AUD invoice only (this one is in ${params.currency})`,
      {
        field: `lines[${sold}].assetId`,
      },
    );
  }
  return foreignDocument(uow, params, issuedOn ?? uow.today, totalCents, gstCents);
}

/** The invoice as emailed: a tax invoice when it carries GST (GST Act s 29-70). */
function invoiceMessage(
  row: InvoiceRow,
  lines: readonly SaleLine[],
  issuedOn: string,
  dueOn: string,
  supplier: readonly string[],
  gstRegistered: boolean,
  pdf: EmailAttachment,
) {
  // A business not registered for GST issues an "Invoice" (as the PDF says).
  const taxable = gstRegistered && lines.some((l) => TAX_CODES[l.taxCode].gst);
  const title = taxable ? 'Tax invoice' : 'Invoice';
  // A foreign invoice's amounts are in its currency: named, so "$" is not read as AUD.
  const money = (cents: number) => (isForeign(row.currency) ? `${row.currency} ${formatCents(cents)}` : formatCents(cents));
  return {
    to: row.payee_email,
    subject: `${title} ${row.number ?? row.id}: ${money(Number(row.total_cents))} due ${dueOn}`,
    text: [
      `Dear ${row.payee_name},`,
      '',
      `${title} ${row.number ?? row.id}, issued ${issuedOn}, due ${dueOn}: ${row.description}`,
      '',
      ...lines.map((l) => `  ${l.description}  ${money(l.amountCents)}  (${l.taxCode})`),
      '',
      taxable
        ? `Total ${money(Number(row.total_cents))}, which includes GST of ${money(Number(row.gst_cents))}.`
        : `Total ${money(Number(row.total_cents))}.`,
      '',
      `The ${title.toLowerCase()} is attached (${pdf.filename}), with how to pay.`,
      '',
      'Kind regards,',
      'Accounts receivable',
      // The supplier's identity and ABN from the organisation profile (GST Act s 29-70).
      ...supplier,
    ].join('\n'),
    attachments: [pdf],
  };
}

/**
 * Send a draft: it is issued today, falls due `dueDays` later, is posted (salePosting, dated the
 * issue date) and emailed when it has a payeeEmail. Sent again → no-op (idempotent by state).
 */
export async function invoiceSend(params: z.infer<typeof books.invoiceSend.params>, uow: Uow) {
  const row = await loadInvoice(uow, params.id);
  if (row.status === 'sent') return { ...(await invoiceView(uow, row)), noop: true };
  if (row.status !== 'draft') {
    throw conflict(`invoice ${row.id} is ${row.status}; only a draft invoice can be sent`);
  }
  const lines = (await loadSaleLines(uow.tx, uow.orgId, [row.id])).get(row.id) ?? [];
  invariant(lines.reduce((s, l) => s + l.amountCents, 0) === Number(row.total_cents), 'invoice lines sum to its total');
  // The issue date it was drafted with, else today; the lock date may have
  // moved since the draft, so it is checked again (postJournal would refuse it anyway).
  const issuedOn = row.issued_on ?? uow.today;
  checkPostable(uow, issuedOn, row.issued_on === null ? 'date' : 'issueDate');
  const dueOn = addDays(issuedOn, Number(row.due_days));
  const profile = row.payee_email ? await loadProfile(uow.tx, uow.orgId) : null;
  const message =
    row.payee_email && profile
      ? invoiceMessage(
          row,
          lines,
          issuedOn,
          dueOn,
          supplierLines(profile),
          profile.gstRegistered,
          await invoicePdf(uow.tx, uow.orgId, row, lines, { issuedOn, dueOn }),
        )
      : null;
  const journalId = newJournalId();
  const sales = await assetSales(uow, row.id, lines, issuedOn);
  // Redacted by design: the channel and how many recipients, never the body.
  await postJournal(uow, {
    id: journalId,
    date: issuedOn,
    dateField: row.issued_on === null ? 'date' : 'issueDate',
    memo: `Invoice ${row.id} to ${row.payee_name}`,
    source: { kind: 'invoice', id: row.id },
    lines: sales ? sales.lines : issuePosting(row, row.id, lines),
  });
  const event = await uow.emit(events.invoiceSend, {
    entityId: row.id,
    payload: {
      payee: row.payee_name,
      totalCents: Number(row.total_cents),
      gstCents: Number(row.gst_cents),
      issuedOn,
      dueOn,
      journalId,
      channel: message ? 'email' : null,
      recipients: message ? 1 : 0,
      ...(row.number !== null ? { number: row.number } : {}),
      ...(sales ? { disposedAssetIds: [...sales.assetIds] } : {}),
      ...(isForeign(row.currency) && row.exchange_rate_micros !== null
        ? {
            currency: row.currency,
            exchangeRate: currencies.rateString(Number(row.exchange_rate_micros)),
            audTotalCents: Number(row.aud_total_cents),
            audGstCents: Number(row.aud_gst_cents),
          }
        : {}),
    },
  });
  await sales?.record(journalId, event.ledgerId);
  const moved = await uow.tx.run(
    `UPDATE invoices SET status = 'sent', issued_on = ?, due_on = ?, journal_id = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND status = 'draft'`,
    [issuedOn, dueOn, journalId, event.ledgerId, uow.orgId, row.id],
  );
  invariant(moved.changes === 1, 'a draft invoice is sent exactly once');
  await indexDocumentWords(uow.tx, uow.orgId, invoiceWords({ ...row, due_on: dueOn }));
  if (message) await enqueueEmail(uow.tx, uow.orgId, uow.now, message);
  const sent: InvoiceRow = {
    ...row,
    status: 'sent',
    issued_on: issuedOn,
    due_on: dueOn,
    journal_id: journalId,
    ledger_id: event.ledgerId,
  };
  return toInvoice(sent, lines, Number(row.total_cents), Number(row.aud_total_cents ?? 0));
}
