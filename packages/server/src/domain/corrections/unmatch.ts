import { corrections, events, reconciliation } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, invariant, notFound } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { lineNow, lockLine, matchesOf, type LineRow, type MatchRow } from '../reconciliation/feed-lines.js';
import { refreshBankJournal } from '../reconciliation/bank-journal-words.js';
import { correctionDate, journalHead, mirrorOf, reopenBill, reopenClaim, reopenInvoice } from './common.js';

/**
 * books.lineUnmatch: undo a bank line's matches (all, or `matchId`) or its
 * recode. Each match's payment journal is mirrored, dated `date` (a match to an existing bank
 * journal posted nothing: only the allocation is undone); the match rows stay, marked reversed
 * with the reversal journal; invoice payments a match made are marked reversed ('unmatched');
 * the documents reopen. A recoded line's recode journal is mirrored and the recode cleared.
 */
type Params = z.infer<typeof corrections.lineUnmatch.params>;

interface Reversed {
  matchId: string | null;
  kind: string;
  targetId: string;
  amountCents: number;
  journalId: string;
  reversalJournalId: string | null;
  documentStatus: string | null;
}

const noopResult = async (uow: Uow, line: LineRow) => ({
  lineId: line.id,
  status: line.status,
  line: await lineNow(uow.tx, uow.orgId, line.id),
  reversed: [],
  ledgerId: line.ledger_id,
  noop: true as const,
});

/** Refuse a match whose payment was already undone another way (dishonoured, returned). */
async function checkUndoable(uow: Uow, m: MatchRow): Promise<void> {
  if (m.target_kind === 'invoice') {
    const pay = await uow.tx.get<{ id: string; reversal_kind: string | null }>(
      'SELECT id, reversal_kind FROM invoice_payments WHERE org_id = ? AND journal_id = ?',
      [uow.orgId, m.journal_id],
    );
    if (pay?.reversal_kind === 'dishonoured') {
      throw conflict(
        `match ${m.id} paid invoice ${m.target_id} by payment ${pay.id}, which was dishonoured (${corrections.invoicePaymentDishonour.name}); ` +
          'the line stays matched: the bounce is a bank line of its own',
      );
    }
  }
  if (m.target_kind === 'bill') {
    const ret = await uow.tx.get('SELECT id FROM bill_payment_returns WHERE org_id = ? AND bill_id = ? AND payment_id = ?', [
      uow.orgId,
      m.target_id,
      m.id,
    ]);
    if (ret) {
      throw conflict(
        `match ${m.id} paid bill ${m.target_id}, and that payment was returned (${corrections.billPaymentReturn.name}); ` +
          'the line stays matched: the return is a bank line of its own',
      );
    }
  }
}

export async function lineUnmatch(p: Params, uow: Uow) {
  const line = await lockLine(uow, p.lineId);
  if (line.status === 'held') {
    throw conflict(
      `bank line ${line.id} is held for a human decision (${Number(line.held_amount_cents ?? 0)} cents to ${line.held_kind ?? ''} ` +
        `${line.held_target_id ?? ''}); nothing is matched yet: ${reconciliation.matchHoldResolve.name} decides it`,
    );
  }
  const active = (await matchesOf(uow.tx, uow.orgId, [line.id])).get(line.id) ?? [];
  let targets: MatchRow[] = active;
  if (p.matchId !== undefined) {
    const one = active.find((m) => m.id === p.matchId);
    if (!one) {
      const old = await uow.tx.get<{ line_id: string }>('SELECT line_id FROM bank_feed_matches WHERE org_id = ? AND id = ?', [
        uow.orgId,
        p.matchId,
      ]);
      if (old?.line_id === line.id) return noopResult(uow, line); // already undone: a no-op
      throw notFound(`match of bank line ${line.id}`, p.matchId);
    }
    targets = [one];
  }
  if (line.status === 'recoded') return unrecode(p, uow, line);
  if (targets.length === 0) return noopResult(uow, line);
  for (const m of targets) await checkUndoable(uow, m);
  // Each reversal is dated on or after the journal it reverses.
  let latest = line.date;
  for (const m of targets) {
    const j = await journalHead(uow, m.journal_id);
    invariant(j, `match ${m.id} has its journal`);
    if (j.date > latest) latest = j.date;
  }
  const date = correctionDate(uow, p.date, latest, `the payment it undoes was posted`);
  const plan = targets.map((m) => ({ m, reversalJournalId: m.target_kind === 'journal' ? null : newJournalId() }));
  const undone = targets.reduce((s, m) => s + Number(m.amount_cents), 0);
  const matched = Number(line.matched_cents) - undone;
  invariant(matched >= 0, `bank line ${line.id} does not unmatch more than it matched`);
  const status = matched === 0 ? 'unmatched' : 'part_matched';
  // The reversals are posted before the event, which binds their lines.
  for (const { m, reversalJournalId } of plan) {
    if (reversalJournalId === null) continue;
    await postJournal(uow, {
      id: reversalJournalId,
      date,
      memo: `Unmatch of bank line ${line.id} from ${m.target_kind} ${m.target_id}`,
      source: { kind: 'feed_unmatch', id: line.id },
      lines: await mirrorOf(uow, m.journal_id),
    });
  }
  const event = await uow.emit(events.lineUnmatch, {
    entityId: line.id,
    payload: {
      lineId: line.id,
      lineAmountCents: Number(line.amount_cents),
      date,
      reversed: plan.map(({ m, reversalJournalId }) => ({
        matchId: m.id,
        kind: m.target_kind,
        targetId: m.target_id,
        amountCents: Number(m.amount_cents),
        journalId: m.journal_id,
        reversalJournalId,
      })),
      status,
      reason: p.reason ?? null,
    },
  });
  const reversed: Reversed[] = [];
  for (const { m, reversalJournalId } of plan) {
    let documentStatus: string | null = null;
    if (m.target_kind === 'invoice') {
      await uow.tx.run(
        `UPDATE invoice_payments SET reversed_on = ?, reversal_kind = 'unmatched', reversal_reason = ?, reversal_journal_id = ?, reversal_ledger_id = ?
         WHERE org_id = ? AND journal_id = ? AND reversed_on IS NULL`,
        [date, p.reason ?? null, reversalJournalId, event.ledgerId, uow.orgId, m.journal_id],
      );
      documentStatus = (await reopenInvoice(uow, m.target_id, event.ledgerId)).status;
    } else if (m.target_kind === 'bill') {
      documentStatus = await reopenBill(uow, m.target_id, event.ledgerId);
    } else if (m.target_kind === 'claim') {
      documentStatus = await reopenClaim(uow, m.target_id, event.ledgerId);
    }
    const done = await uow.tx.run(
      `UPDATE bank_feed_matches SET reversed_at = ?, reversal_journal_id = ?, reversal_ledger_id = ? WHERE org_id = ? AND id = ? AND reversed_at IS NULL`,
      [uow.now, reversalJournalId, event.ledgerId, uow.orgId, m.id],
    );
    invariant(done.changes === 1, `match ${m.id} is undone once`);
    // The journal is no longer (wholly) accounted for: back in the suggestion lookup.
    await refreshBankJournal(uow.tx, uow.orgId, m.journal_id);
    reversed.push({
      matchId: m.id,
      kind: m.target_kind,
      targetId: m.target_id,
      amountCents: Number(m.amount_cents),
      journalId: m.journal_id,
      reversalJournalId,
      documentStatus,
    });
  }
  const moved = await uow.tx.run(
    'UPDATE bank_feed_lines SET status = ?, matched_cents = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND matched_cents = ?',
    [status, matched, event.ledgerId, uow.orgId, line.id, Number(line.matched_cents)],
  );
  invariant(moved.changes === 1, 'the line is unmatched once');
  return { lineId: line.id, status, line: await lineNow(uow.tx, uow.orgId, line.id), reversed, ledgerId: event.ledgerId };
}

/** A recoded line: mirror its recode journal, clear the recode, the line is unmatched again. */
async function unrecode(p: Params, uow: Uow, line: LineRow) {
  const journalId = line.recode_journal_id;
  invariant(journalId !== null, `recoded line ${line.id} names its journal`);
  const j = await journalHead(uow, journalId);
  invariant(j, `recode journal ${journalId} exists`);
  const date = correctionDate(uow, p.date, j.date, `the recode it undoes was posted`);
  const reversalJournalId = newJournalId();
  const amount = Math.abs(Number(line.amount_cents));
  const entry = {
    matchId: null,
    kind: 'recode',
    targetId: line.recode_account ?? '',
    amountCents: amount,
    journalId,
    reversalJournalId,
  };
  await postJournal(uow, {
    id: reversalJournalId,
    date,
    memo: `Unmatch of bank line ${line.id}: reversal of recode ${journalId}`,
    source: { kind: 'feed_recode_reversal', id: line.id },
    lines: await mirrorOf(uow, journalId),
  });
  const event = await uow.emit(events.lineUnmatch, {
    entityId: line.id,
    payload: {
      lineId: line.id,
      lineAmountCents: Number(line.amount_cents),
      date,
      reversed: [entry],
      status: 'unmatched',
      reason: p.reason ?? null,
    },
  });
  await uow.tx.run(
    `UPDATE bank_feed_lines SET status = 'unmatched', recode_account = NULL, recode_tax_code = NULL, recode_gst_cents = NULL,
       recode_journal_id = NULL, ledger_id = ? WHERE org_id = ? AND id = ?`,
    [event.ledgerId, uow.orgId, line.id],
  );
  return {
    lineId: line.id,
    status: 'unmatched',
    line: await lineNow(uow.tx, uow.orgId, line.id),
    reversed: [{ ...entry, documentStatus: null }],
    ledgerId: event.ledgerId,
  };
}
