import { currencies as spec, events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { addDays } from '../../clock.js';
import { conflict, DomainError } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { checkPostable } from '../gl/periods.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { carriedOn, REVALUE_KIND, REVALUE_REVERSAL_KIND } from './carried.js';
import { resolveRate, toAud } from './rates.js';
import { FX_KEY } from './revalue-keys.js';

/**
 * books.currencyRevalue: the unrealised difference on what is open in other currencies at a date.
 * Each open foreign invoice or bill is measured at the table's rate on the date against the AUD it
 * carries (posting and payments; earlier revaluations are left out, each having been reversed the
 * day after it), the differences are posted in one journal dated the date (control account by
 * document against 4400) and reversed by a second dated the next day, so the payment that later
 * settles the document realises the whole difference against its original carrying value. One
 * revaluation per date: the same date again is a no-op.
 */
type Params = z.infer<typeof spec.currencyRevalue.params>;

interface OpenDoc {
  kind: 'invoice' | 'bill';
  id: string;
  currency: string;
  total_cents: number;
  paid: number | null;
}

const RECEIVABLES = '1100';
const PAYABLES = '2000';

export async function currencyRevalue(p: Params, uow: Uow) {
  if (p.date > uow.today) {
    throw new DomainError('BAD_REQUEST', `date: ${p.date} is in the future; revalue on or before today (${uow.today})`, { field: 'date' });
  }
  checkPostable(uow, p.date, 'date');
  const reversalDate = addDays(p.date, 1);
  const done = await uow.tx.all<{ id: string; source_kind: string; ledger_id: string }>(
    'SELECT id, source_kind, ledger_id FROM journals WHERE org_id = ? AND source_kind IN (?, ?) AND source_id = ?',
    [uow.orgId, REVALUE_KIND, REVALUE_REVERSAL_KIND, p.date],
  );
  const first = done.find((j) => j.source_kind === REVALUE_KIND);
  if (first) {
    return {
      date: p.date,
      reversalDate,
      documents: [],
      audGainCents: 0,
      journalId: first.id,
      reversalJournalId: done.find((j) => j.source_kind === REVALUE_REVERSAL_KIND)?.id ?? null,
      ledgerId: first.ledger_id,
      noop: true,
    };
  }
  // Open on the date: posted by then, and not settled by payments dated on or before it.
  const limit = spec.REVALUE_DOCUMENTS_MAX + 1;
  const invoices = await uow.tx.all<OpenDoc>(
    `SELECT 'invoice' AS kind, i.id AS id, i.currency AS currency, i.total_cents AS total_cents,
       (SELECT SUM(x.amount_cents) FROM invoice_payments x WHERE x.org_id = i.org_id AND x.invoice_id = i.id AND x.paid_on <= ? AND x.reversed_on IS NULL) AS paid
     FROM invoices i WHERE i.org_id = ? AND i.currency IS NOT NULL AND i.journal_id IS NOT NULL AND i.issued_on <= ?
       AND i.status IN ('sent', 'part_paid', 'paid') ORDER BY i.id LIMIT ${limit}`,
    [p.date, uow.orgId, p.date],
  );
  const bills = await uow.tx.all<OpenDoc>(
    `SELECT 'bill' AS kind, b.id AS id, b.currency AS currency, b.total_cents AS total_cents,
       (SELECT SUM(x.amount_cents) FROM bill_fx_payments x WHERE x.org_id = b.org_id AND x.bill_id = b.id AND x.paid_on <= ?) AS paid
     FROM bills b WHERE b.org_id = ? AND b.currency IS NOT NULL AND b.journal_id IS NOT NULL AND b.issued_on <= ?
       AND b.status IN ('approved', 'paid') ORDER BY b.id LIMIT ${limit}`,
    [p.date, uow.orgId, p.date],
  );
  const open = [...invoices, ...bills]
    .map((d) => ({ ...d, outstanding: Number(d.total_cents) - Number(d.paid ?? 0) }))
    .filter((d) => d.outstanding > 0);
  if (open.length > spec.REVALUE_DOCUMENTS_MAX) {
    throw conflict(`more than ${spec.REVALUE_DOCUMENTS_MAX} foreign documents are open on ${p.date}; settle some before revaluing`);
  }
  const rates = new Map<string, number>();
  for (const c of new Set(open.map((d) => d.currency))) rates.set(c, (await resolveRate(uow, c, p.date, undefined, 'date')).micros);
  const carriedAr = await carriedOn(
    uow.tx,
    uow.orgId,
    RECEIVABLES,
    'debit',
    invoices.map((d) => d.id),
    p.date,
  );
  const carriedAp = await carriedOn(
    uow.tx,
    uow.orgId,
    PAYABLES,
    'credit',
    bills.map((d) => d.id),
    p.date,
  );
  const documents = open.map((d) => {
    const micros = rates.get(d.currency) ?? 0;
    const carried = (d.kind === 'invoice' ? carriedAr : carriedAp).get(d.id) ?? 0;
    const revalued = toAud(d.outstanding, micros);
    return {
      kind: d.kind,
      id: d.id,
      currency: d.currency,
      outstandingCents: d.outstanding,
      exchangeRate: spec.rateString(micros),
      audCarriedCents: carried,
      audRevaluedCents: revalued,
      audDifferenceCents: revalued - carried,
    };
  });
  const moved = documents.filter((d) => d.audDifferenceCents !== 0);
  // More owed to us is a gain; more we owe is a loss.
  const gain = moved.reduce((s, d) => s + (d.kind === 'invoice' ? d.audDifferenceCents : -d.audDifferenceCents), 0);
  if (moved.length === 0) {
    return { date: p.date, reversalDate, documents, audGainCents: 0, journalId: null, reversalJournalId: null, ledgerId: null, noop: true };
  }
  const lines = (sign: 1 | -1): PostingLine[] => {
    const out: PostingLine[] = moved.map((d) => {
      // Debit-positive effect on the control account: an asset up, or a liability down.
      const dr = sign * (d.kind === 'invoice' ? d.audDifferenceCents : -d.audDifferenceCents);
      return {
        account: d.kind === 'invoice' ? RECEIVABLES : PAYABLES,
        ...(dr > 0 ? { debitCents: dr } : { creditCents: -dr }),
        docId: d.id,
        description: `Revaluation of ${d.kind} ${d.id}: ${d.currency} ${d.outstandingCents} cents at ${d.exchangeRate}`,
      };
    });
    const net = sign * gain;
    if (net !== 0)
      out.push({
        account: { key: FX_KEY },
        ...(net > 0 ? { creditCents: net } : { debitCents: -net }),
        description: 'Unrealised exchange difference',
      });
    return out;
  };
  const journalId = newJournalId();
  const reversalJournalId = newJournalId();
  await postJournal(uow, {
    id: journalId,
    date: p.date,
    memo: `Revaluation of foreign documents at ${p.date}`,
    source: { kind: REVALUE_KIND, id: p.date },
    lines: lines(1),
  });
  await postJournal(uow, {
    id: reversalJournalId,
    date: reversalDate,
    memo: `Reversal of the revaluation at ${p.date}`,
    source: { kind: REVALUE_REVERSAL_KIND, id: p.date },
    lines: lines(-1),
  });
  const event = await uow.emit(events.currencyRevalue, {
    entityId: `revalue-${p.date}`,
    payload: { date: p.date, reversalDate, journalId, reversalJournalId, audGainCents: gain, documents: moved },
  });
  return { date: p.date, reversalDate, documents, audGainCents: gain, journalId, reversalJournalId, ledgerId: event.ledgerId };
}
