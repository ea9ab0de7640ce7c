import { events, quotes as spec, type books, type TaxCode } from '@finance-desk/protocol';
import type { z } from 'zod';
import { enqueueEmail } from '../../adapters/outbox.js';
import type { ReadContext } from '../../binding.js';
import { addDays, orgToday } from '../../clock.js';
import { conflict, DomainError, invariant } from '../../errors.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import { loadProfile, supplierLines } from '../../org/profile.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { assetSaleInputs } from '../assets/invoice-sale.js';
import { contactPayload, documentContactReads, finishContact, findContact, resolveDocumentContact } from '../contacts/contacts.js';
import { formatInvoiceNumber } from '../gl/migration-day-one.js';
import { checkContactFilter, pageOfDocuments } from '../paging.js';
import { quotePdf } from '../receivables/documents.js';
import { resolveSaleLines, saleAccountReads, type SaleLine } from '../receivables/invoice-lines.js';
import { invoiceDraft } from '../receivables/invoices.js';

/**
 * Quotes: an offer to a customer priced in invoice lines. Nothing is posted: a quote is not a
 * transaction. States: draft → sent → accepted | declined (a draft may be decided directly).
 * Accepting drafts the invoice through receivables' invoiceDraft, in the same unit of work, and
 * that draft's event (naming the quote) is the act's one event. `ledger_id` is the event that
 * moved the quote into its current status (a no-op answers it).
 */
type QuoteStatus = (typeof spec.QUOTE_STATUSES)[number];

interface QuoteRow {
  id: string;
  number: string;
  reference: string | null;
  terms: string | null;
  status: QuoteStatus;
  payee_name: string;
  contact_id: string;
  description: string;
  payee_email: string | null;
  quote_date: string;
  expiry_date: string;
  due_days: number;
  total_cents: number;
  gst_cents: number;
  /** The resolved lines as JSON (QuoteLine[]). */
  lines: string;
  created_at: string;
  sent_on: string | null;
  decided_on: string | null;
  invoice_id: string | null;
  ledger_id: string;
}

const QUOTE_COLUMNS =
  'id, number, reference, terms, status, payee_name, contact_id, description, payee_email, quote_date, expiry_date, due_days, ' +
  'total_cents, gst_cents, lines, created_at, sent_on, decided_on, invoice_id, ledger_id';

type InvoiceLineInput = NonNullable<z.infer<typeof books.invoiceDraft.params>['lines']>[number];

/**
 * A line as kept: the sale line as the API shows it (tracking by name; the option ids are
 * re-resolved on acceptance), its tax code one the quote's schema took (a sale code).
 */
type QuoteLine = Omit<SaleLine, 'trackingIds' | 'taxCode'> & { readonly taxCode: NonNullable<InvoiceLineInput['taxCode']> };

const QUOTE_PREFIX = 'QU-';

function linesOf(row: QuoteRow): QuoteLine[] {
  return JSON.parse(row.lines) as QuoteLine[];
}

/** Undecided and past its expiry date as at `today`. */
const isExpired = (row: QuoteRow, today: string) => (row.status === 'draft' || row.status === 'sent') && today > row.expiry_date;

function toQuote(row: QuoteRow, today: string) {
  return {
    id: row.id,
    number: row.number,
    reference: row.reference,
    terms: row.terms,
    status: row.status,
    payeeName: row.payee_name,
    contactId: row.contact_id,
    description: row.description,
    payeeEmail: row.payee_email,
    date: row.quote_date,
    expiryDate: row.expiry_date,
    expired: isExpired(row, today),
    dueDays: Number(row.due_days),
    totalCents: Number(row.total_cents),
    gstCents: Number(row.gst_cents),
    lines: linesOf(row),
    createdAt: row.created_at,
    sentOn: row.sent_on,
    decidedOn: row.decided_on,
    invoiceId: row.invoice_id,
    ledgerId: row.ledger_id,
  };
}

async function loadQuote(uow: Uow, id: string): Promise<QuoteRow> {
  const row = await uow.tx.get<QuoteRow>(`SELECT ${QUOTE_COLUMNS} FROM quotes WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    id,
  ]);
  if (!row) throw new DomainError('NOT_FOUND', `quote ${id} not found`, { field: 'id' });
  return row;
}

const badDate = (field: string, message: string) => new DomainError('BAD_REQUEST', `${field}: ${message}`, { field });

export async function quoteDraft(params: z.infer<typeof spec.quoteDraft.params>, uow: Uow) {
  const id = newId('quo');
  const date = params.date ?? uow.today;
  const expiryDate = params.expiryDate ?? addDays(date, spec.QUOTE_EXPIRY_DAYS);
  // The schema compares the two when both are given; a lone expiryDate is compared with today.
  if (expiryDate < date) throw badDate('expiryDate', `must not be before date ${date}`);
  await uow.readTogether([...saleAccountReads(uow.orgId, params.lines), ...documentContactReads(uow.orgId, params)]);
  const defaultTax: TaxCode = params.taxCode ?? 'GST';
  // The invoice draft's own line checks (accounts, assets sold, tracking) and GST shares.
  const lines = await resolveSaleLines(uow, await assetSaleInputs(uow, params.lines), defaultTax, (i) => `lines[${i}].accountCode`);
  const totalCents = lines.reduce((s, l) => s + l.amountCents, 0);
  const gstCents = lines.reduce((s, l) => s + l.gstCents, 0);
  const party = await resolveDocumentContact(uow, { ...params, email: params.payeeEmail ?? null }, 'customer');
  // Quotes are never deleted, so their count numbers the next under the organisation's lock;
  // the unique index (org_id, number) is the backstop.
  const count = await uow.tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM quotes WHERE org_id = ?', [uow.orgId]);
  const number = formatInvoiceNumber(QUOTE_PREFIX, Number(count?.n ?? 0) + 1);
  const description = params.description ?? lines[0]?.description ?? '';
  const dueDays = params.dueDays ?? spec.QUOTE_DUE_DAYS;
  const event = await uow.emit(events.quoteDraft, {
    entityId: id,
    payload: {
      number,
      payee: party.payeeName,
      totalCents,
      description,
      gstCents,
      date,
      expiryDate,
      dueDays,
      ...contactPayload(party),
      ...(params.reference !== undefined ? { reference: params.reference } : {}),
    },
  });
  await finishContact(uow, party, 'customer', event.ledgerId);
  const row: QuoteRow = {
    id,
    number,
    reference: params.reference ?? null,
    terms: params.terms ?? null,
    status: 'draft',
    payee_name: party.payeeName,
    contact_id: party.contactId,
    description,
    payee_email: params.payeeEmail ?? null,
    quote_date: date,
    expiry_date: expiryDate,
    due_days: dueDays,
    total_cents: totalCents,
    gst_cents: gstCents,
    lines: JSON.stringify(lines.map(({ trackingIds: _ids, ...l }) => l)),
    created_at: uow.now,
    sent_on: null,
    decided_on: null,
    invoice_id: null,
    ledger_id: event.ledgerId,
  };
  await uow.tx.run(`INSERT INTO quotes (org_id, ${QUOTE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    uow.orgId,
    row.id,
    row.number,
    row.reference,
    row.terms,
    row.status,
    row.payee_name,
    row.contact_id,
    row.description,
    row.payee_email,
    row.quote_date,
    row.expiry_date,
    row.due_days,
    row.total_cents,
    row.gst_cents,
    row.lines,
    row.created_at,
    null,
    null,
    null,
    row.ledger_id,
  ]);
  return toQuote(row, uow.today);
}

/** Where a quote is emailed: its own address, else its contact's (a quote is an offer asked for). */
async function recipientOf(q: Queryable, orgId: string, row: QuoteRow): Promise<string | null> {
  if (row.payee_email) return row.payee_email;
  return (await findContact(q, orgId, row.contact_id))?.email ?? null;
}

async function quoteMessage(uow: Uow, row: QuoteRow, to: string) {
  const lines = linesOf(row);
  const profile = await loadProfile(uow.tx, uow.orgId);
  const total = formatCents(Number(row.total_cents));
  const pdf = await quotePdf(
    uow.tx,
    uow.orgId,
    {
      number: row.number,
      payeeName: row.payee_name,
      description: row.description,
      date: row.quote_date,
      expiryDate: row.expiry_date,
      totalCents: Number(row.total_cents),
      gstCents: Number(row.gst_cents),
      reference: row.reference,
      terms: row.terms,
    },
    lines,
  );
  return {
    to,
    subject: `Quote ${row.number}: ${total}, valid until ${row.expiry_date}`,
    text: [
      `Dear ${row.payee_name},`,
      '',
      `Quote ${row.number}, dated ${row.quote_date}, valid until ${row.expiry_date}: ${row.description}`,
      '',
      ...lines.map((l) => `  ${l.description}  ${formatCents(l.amountCents)}  (${l.taxCode})`),
      '',
      profile.gstRegistered && Number(row.gst_cents) > 0
        ? `Total ${total}, which includes GST of ${formatCents(Number(row.gst_cents))}.`
        : `Total ${total}.`,
      ...(row.terms ? ['', row.terms] : []),
      '',
      `The quote is attached (${pdf.filename}). To accept it, reply quoting ${row.number}.`,
      '',
      'Kind regards,',
      ...supplierLines(profile),
    ].join('\n'),
    attachments: [pdf],
  };
}

export async function quoteSend(params: z.infer<typeof spec.quoteSend.params>, uow: Uow) {
  const row = await loadQuote(uow, params.id);
  if (row.status === 'sent') return { ...toQuote(row, uow.today), noop: true };
  if (row.status !== 'draft') throw conflict(`quote ${row.number} is ${row.status}; only a draft quote can be sent`);
  if (isExpired(row, uow.today)) {
    throw new DomainError('CONFLICT', `quote ${row.number} expired on ${row.expiry_date}; draft a new quote`, { field: 'expiryDate' });
  }
  const to = await recipientOf(uow.tx, uow.orgId, row);
  const message = to === null ? null : await quoteMessage(uow, row, to);
  const event = await uow.emit(events.quoteSend, {
    entityId: row.id,
    payload: {
      number: row.number,
      payee: row.payee_name,
      totalCents: Number(row.total_cents),
      sentOn: uow.today,
      expiryDate: row.expiry_date,
      channel: message ? 'email' : null,
      recipients: message ? 1 : 0,
    },
  });
  const moved = await uow.tx.run(
    "UPDATE quotes SET status = 'sent', sent_on = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND status = 'draft'",
    [uow.today, event.ledgerId, uow.orgId, row.id],
  );
  invariant(moved.changes === 1, 'a draft quote is sent exactly once');
  // Queued in the transaction, delivered by the outbox after commit (as an invoice's email).
  if (message) await enqueueEmail(uow.tx, uow.orgId, uow.now, message);
  return toQuote({ ...row, status: 'sent', sent_on: uow.today, ledger_id: event.ledgerId }, uow.today);
}

export async function quoteDecide(params: z.infer<typeof spec.quoteDecide.params>, uow: Uow) {
  const row = await loadQuote(uow, params.id);
  if (row.status === params.decision) return { ...toQuote(row, uow.today), noop: true };
  if (row.status === 'accepted' || row.status === 'declined') {
    throw conflict(`quote ${row.number} was ${row.status} on ${row.decided_on ?? '?'}; a decided quote is not decided again`);
  }
  const date = params.date ?? uow.today;
  if (date > uow.today) throw badDate('date', `${date} is in the future (today is ${uow.today})`);
  if (date < row.quote_date) throw badDate('date', `must not be before the quote's date ${row.quote_date}`);
  if (params.decision === 'declined') {
    const event = await uow.emit(events.quoteDecline, {
      entityId: row.id,
      payload: { number: row.number, payee: row.payee_name, totalCents: Number(row.total_cents), date },
    });
    await decided(uow, row, 'declined', date, null, event.ledgerId);
    return toQuote({ ...row, status: 'declined', decided_on: date, ledger_id: event.ledgerId }, uow.today);
  }
  // Accepted on its expiry date is in time; after it the offer has lapsed.
  if (date > row.expiry_date) {
    throw new DomainError('CONFLICT', `quote ${row.number} expired on ${row.expiry_date}; it cannot be accepted on ${date}`, {
      field: 'date',
    });
  }
  const lines = linesOf(row);
  const total = Number(row.total_cents);
  // The invoice draft's own function and checks (the lines' accounts, assets and tracking as they
  // are now), its next number, and its event naming the quote: this act's one event.
  const invoice = await invoiceDraft(
    {
      contactId: row.contact_id,
      description: row.description,
      totalCents: total,
      dueDays: Number(row.due_days),
      lines: lines.map((l) => ({
        description: l.description,
        amountCents: l.amountCents,
        taxCode: l.taxCode,
        // A line selling an asset takes its account (4300) from the asset, as when drafted.
        ...(l.assetId !== undefined ? { assetId: l.assetId } : { accountCode: l.accountCode }),
        ...(l.tracking !== undefined ? { tracking: l.tracking } : {}),
      })),
      ...(row.payee_email !== null ? { payeeEmail: row.payee_email } : {}),
      ...(row.reference !== null ? { reference: row.reference } : {}),
    },
    uow,
    { quoteId: row.id },
  );
  invariant(invoice.totalCents === total && invoice.gstCents === Number(row.gst_cents), 'an accepted quote is invoiced at its figures');
  await decided(uow, row, 'accepted', date, invoice.id, invoice.ledgerId);
  return {
    ...toQuote({ ...row, status: 'accepted', decided_on: date, invoice_id: invoice.id, ledger_id: invoice.ledgerId }, uow.today),
    invoice,
  };
}

async function decided(uow: Uow, row: QuoteRow, status: 'accepted' | 'declined', date: string, invoiceId: string | null, ledgerId: string) {
  const moved = await uow.tx.run(
    `UPDATE quotes SET status = ?, decided_on = ?, invoice_id = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND status IN ('draft', 'sent')`,
    [status, date, invoiceId, ledgerId, uow.orgId, row.id],
  );
  invariant(moved.changes === 1, 'an undecided quote is decided exactly once');
}

/** books.quotes: the organisation's quotes, oldest first (ids are time-ordered), paged by id. */
export async function listQuotes(p: z.infer<typeof spec.quotes.params>, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  await checkContactFilter(ctx.db.reader, orgId, p.contactId);
  const { rows, nextCursor } = await pageOfDocuments<QuoteRow>(
    ctx.db.reader,
    orgId,
    { table: 'quotes', noun: 'quote', columns: QUOTE_COLUMNS },
    [
      ['status = ?', p.status],
      ['contact_id = ?', p.contactId],
    ],
    p,
  );
  const today = await orgToday(ctx.db, orgId);
  return { quotes: rows.map((r) => toQuote(r, today)), nextCursor };
}

/** books.quote: one quote, as books.quotes lists it. */
export async function readQuote(p: z.infer<typeof spec.quoteRead.params>, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  const row = await ctx.db.reader.get<QuoteRow>(`SELECT ${QUOTE_COLUMNS} FROM quotes WHERE org_id = ? AND id = ?`, [orgId, p.id]);
  if (!row) throw new DomainError('NOT_FOUND', `quote ${p.id} not found`, { field: 'id' });
  return toQuote(row, await orgToday(ctx.db, orgId));
}
