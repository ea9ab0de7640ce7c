import { bankAccounts as spec, events, type reconciliation } from '@finance-desk/protocol';
import type { z } from 'zod';
import { addDays, daysBetween } from '../../clock.js';
import { badRequest, conflict, invariant } from '../../errors.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import { placeholders } from '../../storage/sql.js';
import type { Queryable } from '../../storage/types.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { checkPostable } from '../gl/periods.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { lineNow, lockLine, matchesOf, type LineRow } from '../reconciliation/feed-lines.js';
import { refreshBankJournal } from '../reconciliation/bank-journal-words.js';

/**
 * books.transferMatch: money out of one of the organisation's bank accounts and
 * the same amount into another, each seen on its own feed, matched together. Two journals through
 * 1300 Bank clearing — Cr from-account / Dr 1300 on the from line's date, Dr to-account / Cr 1300
 * on the to line's date — so each account's ledger moves on the date its own statement shows,
 * 1300 holds money in transit for the days between, and each journal touches one bank account
 * (its line's match accounts for it exactly, as documents.ts counts matches per journal).
 */
type Params = z.infer<typeof spec.transferMatch.params>;
type Suggestion = z.infer<typeof reconciliation.suggestion>;

export const TRANSFER_KIND = 'transfer' as const;
export const TRANSFER_SOURCE = 'feed_transfer';

const money = (l: LineRow) => formatCents(Math.abs(Number(l.amount_cents)));

/** The same pair matched before: the answer it had (idempotent by state, no new event). */
async function priorTransfer(uow: Uow, from: LineRow, to: LineRow) {
  const matches = await matchesOf(uow.tx, uow.orgId, [from.id, to.id]);
  const out = matches.get(from.id)?.find((m) => m.target_kind === TRANSFER_KIND && m.target_id === to.id);
  const back = matches.get(to.id)?.find((m) => m.target_kind === TRANSFER_KIND && m.target_id === from.id);
  if (!out || !back) return null;
  return {
    transferId: out.id,
    amountCents: Number(out.amount_cents),
    from: await lineNow(uow.tx, uow.orgId, from.id),
    to: await lineNow(uow.tx, uow.orgId, to.id),
    journalIds: [out.journal_id, back.journal_id],
    ledgerId: out.ledger_id,
    noop: true,
  };
}

function checkPair(from: LineRow, to: LineRow): number {
  if (from.id === to.id) throw badRequest('toLineId: is the same line as fromLineId; a transfer has two sides');
  if (Number(from.amount_cents) > 0) {
    throw badRequest(`fromLineId: bank line ${from.id} is money in (${money(from)}); fromLineId is the side money left`);
  }
  if (Number(to.amount_cents) < 0) {
    throw badRequest(`toLineId: bank line ${to.id} is money out (${money(to)}); toLineId is the side money arrived`);
  }
  if (from.account_code === to.account_code) {
    throw badRequest(`toLineId: both lines are on account ${from.account_code}; a transfer is between two accounts`);
  }
  const amount = Math.abs(Number(from.amount_cents));
  if (amount !== Number(to.amount_cents)) {
    throw badRequest(
      `toLineId: bank line ${to.id} is ${money(to)} in, bank line ${from.id} is ${money(from)} out; a transfer moves the same amount`,
    );
  }
  const apart = Math.abs(daysBetween(from.date, to.date));
  if (apart > spec.bankAccountLimits.transferDaysMax) {
    throw badRequest(
      `toLineId: bank line ${to.id} (${to.date}) is ${apart} days from bank line ${from.id} (${from.date}); a transfer's sides are at most ${spec.bankAccountLimits.transferDaysMax} days apart`,
    );
  }
  for (const [field, l] of [
    ['fromLineId', from],
    ['toLineId', to],
  ] as const) {
    if (l.status !== 'unmatched' || Number(l.matched_cents) !== 0) {
      throw conflict(`${field}: bank line ${l.id} is ${l.status}; only an unmatched line can be one side of a transfer`);
    }
  }
  return amount;
}

export async function transferMatch(p: Params, uow: Uow): Promise<ResultOf<typeof spec.transferMatch>> {
  const from = await lockLine(uow, p.fromLineId);
  const to = await lockLine(uow, p.toLineId);
  const prior = await priorTransfer(uow, from, to);
  if (prior) return prior;
  const amount = checkPair(from, to);
  checkPostable(uow, from.date, 'fromLineId');
  checkPostable(uow, to.date, 'toLineId');
  const transferId = newId('trf');
  const journalIds = [newJournalId(), newJournalId()] as const;
  const memo = `Transfer ${formatCents(amount)} from ${from.account_code} to ${to.account_code}`;
  const clearing = { key: 'clearing' } as const;
  // One entry per side, each posted, allocated and matched the same way (one
  // loop instead of two near-identical postJournal calls). Each journal debits before it credits:
  // out is Dr 1300 / Cr the from account on the from line's date, in is Dr the to account / Cr 1300
  // on the to line's date. The from side's allocation carries the transfer id, so a retry answers
  // with it (a state no-op). Both are posted before the event, which binds their lines.
  const sides = [
    {
      id: transferId,
      line: from,
      other: to,
      journalId: journalIds[0],
      way: 'out',
      dateField: 'fromLineId',
      debit: clearing,
      credit: from.account_code,
    },
    {
      id: newId('mat'),
      line: to,
      other: from,
      journalId: journalIds[1],
      way: 'in',
      dateField: 'toLineId',
      debit: to.account_code,
      credit: clearing,
    },
  ] as const;
  for (const s of sides) {
    await postJournal(uow, {
      id: s.journalId,
      date: s.line.date,
      memo: `${memo} (${s.way}, bank line ${s.line.id})`,
      source: { kind: TRANSFER_SOURCE, id: s.line.id },
      dateField: s.dateField,
      lines: [
        { account: s.debit, debitCents: amount, description: memo },
        { account: s.credit, creditCents: amount, description: memo },
      ],
    });
  }
  const event = await uow.emit(events.transferMatch, {
    entityId: transferId,
    payload: {
      transferId,
      amountCents: amount,
      fromLineId: from.id,
      fromAccountCode: from.account_code,
      fromDate: from.date,
      toLineId: to.id,
      toAccountCode: to.account_code,
      toDate: to.date,
      journalIds: [...journalIds],
    },
  });
  for (const s of sides) {
    await uow.tx.run(
      `INSERT INTO bank_feed_matches (org_id, id, line_id, target_kind, target_id, amount_cents, journal_id, created_at, ledger_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [uow.orgId, s.id, s.line.id, TRANSFER_KIND, s.other.id, amount, s.journalId, uow.now, event.ledgerId],
    );
    await refreshBankJournal(uow.tx, uow.orgId, s.journalId);
    const moved = await uow.tx.run(
      `UPDATE bank_feed_lines SET status = 'matched', matched_cents = ?, ledger_id = ?
       WHERE org_id = ? AND id = ? AND status = 'unmatched' AND matched_cents = 0`,
      [amount, event.ledgerId, uow.orgId, s.line.id],
    );
    invariant(moved.changes === 1, 'each side of a transfer is matched once');
  }
  return {
    transferId,
    amountCents: amount,
    from: await lineNow(uow.tx, uow.orgId, from.id),
    to: await lineNow(uow.tx, uow.orgId, to.id),
    journalIds: [...journalIds],
    ledgerId: event.ledgerId,
  };
}

interface OpenLine {
  id: string;
  account_code: string;
  date: string;
  amount_cents: number;
  description: string;
}

/**
 * Likely transfers for unmatched lines: an unmatched line on another of the organisation's bank
 * accounts with the opposite amount, at most transferDaysMax days away. Scored as an exact
 * amount (60) plus up to 10 for nearness, so a document with the same amount and a reference
 * still ranks above it. At most 500 lines are looked at per call.
 */
export async function transferSuggestions(
  q: Queryable,
  orgId: string,
  lines: readonly { id: string; accountCode: string; date: string; amountCents: number; open: boolean }[],
): Promise<Map<string, Suggestion[]>> {
  const out = new Map<string, Suggestion[]>();
  const open = lines.filter((l) => l.open);
  if (open.length === 0) return out;
  const dates = open.map((l) => l.date).sort();
  const amounts = [...new Set(open.map((l) => -l.amountCents))].slice(0, 200);
  const rows = await q.all<OpenLine>(
    `SELECT id, account_code, date, amount_cents, description FROM bank_feed_lines
     WHERE org_id = ? AND status = 'unmatched' AND matched_cents = 0 AND date >= ? AND date <= ?
       AND amount_cents IN (${placeholders(amounts.length)})
     ORDER BY date, id LIMIT 500`,
    [
      orgId,
      addDays(dates[0] ?? '', -spec.bankAccountLimits.transferDaysMax),
      addDays(dates.at(-1) ?? '', spec.bankAccountLimits.transferDaysMax),
      ...amounts,
    ],
  );
  for (const l of open) {
    const found = rows
      .filter((r) => r.account_code !== l.accountCode && Number(r.amount_cents) === -l.amountCents)
      .map((r) => ({ r, apart: Math.abs(daysBetween(l.date, r.date)) }))
      .filter((x) => x.apart <= spec.bankAccountLimits.transferDaysMax)
      .map(({ r, apart }): Suggestion => ({
        kind: TRANSFER_KIND,
        id: r.id,
        party: `account ${r.account_code}`,
        reference: r.description.slice(0, 200),
        outstandingCents: Math.abs(Number(r.amount_cents)),
        dueOn: r.date,
        score: 60 + Math.max(0, 10 - apart),
        reasons: ['amount'],
        daysApart: apart,
      }));
    if (found.length > 0) out.set(l.id, found);
  }
  return out;
}

/** A line's suggestions with its likely transfers merged in, best first, at most `max`. */
export function mergeSuggestions(a: readonly Suggestion[], b: readonly Suggestion[], max: number): Suggestion[] {
  return [...a, ...b].sort((x, y) => y.score - x.score || x.daysApart - y.daysApart || x.id.localeCompare(y.id)).slice(0, max);
}
