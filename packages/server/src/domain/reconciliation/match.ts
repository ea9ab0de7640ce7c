import { events, reconciliation } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, invariant } from '../../errors.js';
import { checkPostable } from '../gl/periods.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import { loadPolicy } from '../../governance/policy.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { applyClaimPayment } from '../expenses/ledger-api.js';
import { newJournalId } from '../gl/post.js';
import { applyBillPayment } from '../payables/ledger-api.js';
import { applyInvoicePayment } from '../receivables/ledger-api.js';
import { loadTarget, type Target } from './documents.js';
import { refreshBankJournal } from './bank-journal-words.js';
import { quoted } from '../../governance/quote.js';
import { lineNow, lockLine, matchesOf, remainingOf, toLine, toMatch, type LineRow, type MatchRow } from './feed-lines.js';

/**
 * books.matchAccept and books.matchHoldResolve: apply a bank line to a document. A line is
 * applied to each document at most once, in part or in full; it is matched when nothing is left.
 * The materiality floor (organisation policy) is about the line: a line whose absolute amount is above
 * `materialityFloorCents` is never matched by an agent alone. matchAccept parks it (status
 * held, with the proposed match); matchHoldResolve is the signature act that completes it with a
 * human's proof. At or below the floor both simply match.
 */
type Params = z.infer<typeof reconciliation.matchAccept.params>;

export interface MatchContext {
  readonly line: LineRow;
  readonly matches: readonly MatchRow[];
  readonly target: Target;
}

type Mode = 'accept' | 'resolve';

async function load(uow: Uow, p: Params): Promise<MatchContext> {
  const line = await lockLine(uow, p.lineId);
  const target = await loadTarget(uow.tx, uow.orgId, p.target.kind, p.target.id, line.account_code);
  const matches = (await matchesOf(uow.tx, uow.orgId, [line.id])).get(line.id) ?? [];
  return { line, matches, target };
}

const documentOf = (t: Target) => ({
  kind: t.kind,
  id: t.id,
  status: t.status,
  outstandingCents: t.outstandingCents,
});

const heldMessage = (c: MatchContext, floor: string) =>
  `bank line ${c.line.id} (${formatCents(Math.abs(Number(c.line.amount_cents)))}) is above the materiality floor (${floor}): ` +
  `it is matched only with a human's approval; call books.matchHoldResolve with the same lineId, target and amountCents`;

function result(c: MatchContext, extra: { match?: MatchRow | null; message?: string | null; noop?: boolean } = {}) {
  return {
    lineId: c.line.id,
    status: c.line.status,
    line: toLine(c.line, c.matches),
    match: extra.match ? toMatch(extra.match) : null,
    document: documentOf(c.target),
    message: extra.message ?? null,
    ledgerId: extra.match?.ledger_id ?? c.line.ledger_id,
    ...(extra.noop ? { noop: true } : {}),
  };
}

const describeMatch = (m: MatchRow) => `${Number(m.amount_cents)} cents to ${m.target_kind} ${m.target_id}`;

/**
 * The state step of the checks: CONFLICT naming the line's state, the no-op (the same line and
 * target again), or null to go on. The held state lets matchHoldResolve through, not matchAccept.
 */
export function matchState(p: Params, c: MatchContext, mode: Mode): ReturnType<typeof result> | null {
  const { line } = c;
  const same = c.matches.find((m) => m.target_kind === p.target.kind && m.target_id === p.target.id);
  if (same) {
    if (p.amountCents === undefined || p.amountCents === Number(same.amount_cents)) return result(c, { match: same, noop: true });
    throw conflict(`bank line ${line.id} already applies ${describeMatch(same)}; a line is applied to a document once`);
  }
  if (line.status === 'recoded') {
    throw conflict(
      `bank line ${line.id} is recoded to account ${line.recode_account ?? ''}; only an unmatched or part_matched line can be matched`,
    );
  }
  if (line.status === 'matched') {
    throw conflict(`bank line ${line.id} is matched (${c.matches.map(describeMatch).join(', ')}); nothing is left to match`);
  }
  if (line.status === 'held' && mode === 'accept') {
    const sameHeld = line.held_kind === p.target.kind && line.held_target_id === p.target.id;
    const amount = Number(line.held_amount_cents);
    if (sameHeld && (p.amountCents === undefined || p.amountCents === amount)) {
      return result(c, {
        message: `bank line ${line.id} is held for a human decision; call books.matchHoldResolve`,
        noop: true,
      });
    }
    throw conflict(
      `bank line ${line.id} is held for a human decision (${amount} cents to ${line.held_kind ?? ''} ${line.held_target_id ?? ''}); ` +
        'complete or change the match with books.matchHoldResolve',
    );
  }
  return null;
}

/** How messages name a target, as its own area does ("expense claim", not "claim"). */
const nounOf = (kind: string) => (kind === 'claim' ? 'expense claim' : kind);

/** The amount to apply: what the caller gave or what is left of the line; BAD_REQUEST when it cannot be. */
export function matchAmount(p: Params, c: MatchContext): number {
  const { line, target } = c;
  const amount = Number(line.amount_cents);
  if ((amount > 0 ? 'in' : 'out') !== target.direction) {
    const fits = amount > 0 ? 'an invoice, or a journal that received money' : 'a bill, a claim, or a journal that paid money';
    throw badRequest(`target.kind: bank line ${line.id} is money ${amount > 0 ? 'in' : 'out'}; match it to ${fits}`);
  }
  if (target.outstandingCents <= 0) {
    throw conflict(`${nounOf(target.kind)} ${target.id} is ${target.status} with nothing outstanding; there is nothing to match`);
  }
  if (!target.payableStatuses.includes(target.status)) {
    const states = target.payableStatuses.join(' or ');
    const a = /^[aeiou]/.test(states) ? 'an' : 'a';
    throw conflict(
      `${nounOf(target.kind)} ${target.id} is ${target.status}; only ${a} ${states} ${nounOf(target.kind)} can take a payment`,
    );
  }
  // A payment dated before its document was posted would leave the control account owing the
  // other way for those days (aged reports would not add up): refuse it, as for recorded payments.
  if (target.postedOn !== null && line.date < target.postedOn) {
    const posted = target.kind === 'invoice' ? 'issued' : 'approved';
    throw badRequest(
      `lineId: bank line ${line.id} of ${line.date} is dated before ${nounOf(target.kind)} ${target.id} was ${posted} (${target.postedOn})`,
    );
  }
  const remaining = remainingOf(line);
  const apply = p.amountCents ?? remaining;
  if (apply > remaining)
    throw badRequest(`amountCents: ${apply} is more than the ${remaining} cents left to match on bank line ${line.id}`);
  if (apply > target.outstandingCents) {
    const hint = p.amountCents === undefined ? '; give amountCents to apply part of the line' : '';
    throw badRequest(
      `amountCents: ${apply} is more than the ${target.outstandingCents} cents outstanding on ${nounOf(target.kind)} ${target.id}${hint}`,
    );
  }
  return apply;
}

/**
 * The payment a match posts (also books.lineSplit's document parts, domain/banking/split.ts),
 * before the act's event (which binds the journal's lines); `record` keeps the document's side
 * once the event has its ledgerId.
 */
export async function post(
  uow: Uow,
  c: Pick<MatchContext, 'line' | 'target'>,
  amount: number,
  journalId: string,
): Promise<{ status: string; record: (ledgerId: string) => Promise<void> }> {
  const base = {
    amountCents: amount,
    date: c.line.date,
    reference: `bank line ${c.line.id}`,
    journalId,
    bankAccount: c.line.account_code,
  };
  const { kind, id } = c.target;
  if (kind === 'invoice') return applyInvoicePayment(uow, { invoiceId: id, ...base });
  if (kind === 'bill') return applyBillPayment(uow, { billId: id, ...base });
  if (kind === 'claim') return applyClaimPayment(uow, { claimId: id, ...base });
  // An existing bank posting: the line accounts for it; nothing new is posted.
  return { status: amount === c.target.outstandingCents ? 'reconciled' : 'unreconciled', record: () => Promise.resolve() };
}

/** Execute a match: the posting, its one event (naming the journal, binding its lines), then the line. */
async function execute(uow: Uow, c: MatchContext, amount: number, mode: Mode) {
  // A line dated in a locked period is not matched (its payment would post then).
  checkPostable(uow, c.line.date, 'lineId');
  const journalId = c.target.kind === 'journal' ? c.target.id : newJournalId();
  const matchId = newId('mat');
  const left = c.target.outstandingCents - amount;
  const posted = await post(uow, c, amount, journalId);
  const event = await uow.emit(mode === 'accept' ? events.matchAccept : events.matchResolve, {
    entityId: c.line.id,
    payload: {
      matchId,
      lineId: c.line.id,
      lineAmountCents: Number(c.line.amount_cents),
      date: c.line.date,
      targetKind: c.target.kind,
      targetId: c.target.id,
      party: c.target.party,
      amountCents: amount,
      outstandingCents: left,
      journalId,
    },
  });
  await posted.record(event.ledgerId);
  const status = posted.status;
  const matched = Number(c.line.matched_cents) + amount;
  const lineStatus = matched === Math.abs(Number(c.line.amount_cents)) ? 'matched' : 'part_matched';
  await uow.tx.run(
    `INSERT INTO bank_feed_matches (org_id, id, line_id, target_kind, target_id, amount_cents, journal_id, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, matchId, c.line.id, c.target.kind, c.target.id, amount, journalId, uow.now, event.ledgerId],
  );
  // The journal is now (partly) accounted for: its rows leave or change in the suggestion lookup.
  await refreshBankJournal(uow.tx, uow.orgId, journalId);
  const moved = await uow.tx.run(
    `UPDATE bank_feed_lines SET status = ?, matched_cents = ?, held_kind = NULL, held_target_id = NULL, held_amount_cents = NULL,
       ledger_id = ? WHERE org_id = ? AND id = ? AND matched_cents = ?`,
    [lineStatus, matched, event.ledgerId, uow.orgId, c.line.id, Number(c.line.matched_cents)],
  );
  invariant(moved.changes === 1, 'a match is applied to the line once');
  const line = await lineNow(uow.tx, uow.orgId, c.line.id);
  const match = line.matches.find((m) => m.id === matchId) ?? null;
  return {
    lineId: line.id,
    status: line.status,
    line,
    match,
    document: { kind: c.target.kind, id: c.target.id, status, outstandingCents: left },
    message: null,
    ledgerId: event.ledgerId,
  };
}

/** Above the floor: park the proposed match on the line for a human (one event, no posting). */
async function hold(uow: Uow, c: MatchContext, amount: number, floorCents: number) {
  const event = await uow.emit(events.matchHold, {
    entityId: c.line.id,
    payload: {
      lineId: c.line.id,
      lineAmountCents: Number(c.line.amount_cents),
      targetKind: c.target.kind,
      targetId: c.target.id,
      amountCents: amount,
      materialityFloorCents: floorCents,
    },
  });
  await uow.tx.run(
    `UPDATE bank_feed_lines SET status = 'held', held_kind = ?, held_target_id = ?, held_amount_cents = ?, ledger_id = ?
     WHERE org_id = ? AND id = ?`,
    [c.target.kind, c.target.id, amount, event.ledgerId, uow.orgId, c.line.id],
  );
  const line = await lineNow(uow.tx, uow.orgId, c.line.id);
  return {
    lineId: line.id,
    status: line.status,
    line,
    match: null,
    document: documentOf(c.target),
    message: heldMessage(c, formatCents(floorCents)),
    ledgerId: event.ledgerId,
  };
}

const aboveFloor = (line: LineRow, floorCents: number) => Math.abs(Number(line.amount_cents)) > floorCents;

export async function matchAccept(p: Params, uow: Uow): Promise<ResultOf<typeof reconciliation.matchAccept>> {
  const c = await load(uow, p);
  const noop = matchState(p, c, 'accept');
  if (noop) return noop;
  const amount = matchAmount(p, c);
  const policy = await loadPolicy(uow.tx, uow.orgId);
  if (aboveFloor(c.line, policy.materialityFloorCents)) return hold(uow, c, amount, policy.materialityFloorCents);
  return execute(uow, c, amount, 'accept');
}

function summary(p: Params, c: MatchContext): string {
  const amount = Number(c.line.amount_cents);
  const text = c.line.description.length > 60 ? `${c.line.description.slice(0, 57)}...` : c.line.description;
  const apply = p.amountCents ?? remainingOf(c.line);
  return (
    // The bank text and the party's name are not the server's words: quoted.
    `Match bank line ${c.line.id} (${c.line.date}, money ${amount > 0 ? 'in' : 'out'} ${formatCents(Math.abs(amount))}, ${quoted(text)}) ` +
    `to ${c.target.kind} ${c.target.id} (${quoted(c.target.party)}): apply ${formatCents(apply)} of ` +
    `${formatCents(c.target.outstandingCents)} outstanding`
  );
}

export const resolveAct: SignatureAct<Params, MatchContext, typeof reconciliation.matchHoldResolve> = {
  spec: reconciliation.matchHoldResolve,
  load: (p, uow) => load(uow, p),
  subjectId: (c) => c.line.id,
  needsProof: (_p, c, policy) => aboveFloor(c.line, policy.materialityFloorCents),
  summary,
  state(p, c) {
    const noop = matchState(p, c, 'resolve');
    if (noop) return noop;
    matchAmount(p, c); // an impossible match is refused before it is held or run
    return null;
  },
  execute: (p, c, uow) => execute(uow, c, matchAmount(p, c), 'resolve'),
};

export const matchHoldResolve = signatureHandler<
  z.infer<typeof reconciliation.matchHoldResolve.params>,
  MatchContext,
  typeof reconciliation.matchHoldResolve
>(resolveAct);
