import { assets, books, corrections, events, FIXED_ASSET_ACCOUNT, receivables, reconciliation } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, notFound } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal } from '../gl/post.js';
import { correctionDate, journalHead, mirrorOf } from './common.js';

/**
 * books.journalReverse: reverse a manual journal (source `manual`, posted by
 * books.journalPost) by its mirror, dated `date`; the original is marked reversed
 * (journals.reversed_by) and stays. A journal another act posted is corrected by that act's own
 * method (named in the CONFLICT), so documents and their control accounts never disagree.
 */
type Params = z.infer<typeof corrections.journalReverse.params>;

/** Who corrects a journal a given act posted (by journals.source_kind). */
const OWNERS: Readonly<Record<string, string>> = {
  invoice: `${receivables.invoiceVoid.name} or ${receivables.invoiceCreditNote.name}`,
  invoice_payment: `${corrections.invoicePaymentDishonour.name} (or ${corrections.lineUnmatch.name} when a bank line paid it)`,
  bill: `${books.billReturn.name}`,
  bill_payment: `${corrections.billPaymentReturn.name} or ${corrections.lineUnmatch.name}`,
  payment_run: corrections.billPaymentReturn.name,
  expense_claim_payment: corrections.lineUnmatch.name,
  feed_recode: `${reconciliation.lineRecode.name} or ${corrections.lineUnmatch.name}`,
  asset_disposal: assets.assetDispose.name,
  opening_balances: `${corrections.openingBalances.name} (recorded once; correct a balance with ${reconciliation.journalPost.name})`,
};

export async function journalReverse(p: Params, uow: Uow) {
  const journal = await journalHead(uow, p.journalId);
  if (!journal) throw notFound('journal', p.journalId);
  if (journal.reversed_by !== null) {
    const reversal = await uow.tx.get<{ date: string; memo: string; ledger_id: string }>(
      'SELECT date, memo, ledger_id FROM journals WHERE org_id = ? AND id = ?',
      [uow.orgId, journal.reversed_by],
    );
    const total = await totalOf(uow, journal.id);
    // The reversal's memo carries the reason after its fixed prefix.
    const prefix = `Reversal of journal ${journal.id}: `;
    const reason = reversal?.memo.startsWith(prefix) ? reversal.memo.slice(prefix.length) : (reversal?.memo ?? '');
    return {
      journalId: journal.id,
      reversalJournalId: journal.reversed_by,
      date: reversal?.date ?? '',
      reason,
      totalCents: total,
      ledgerId: reversal?.ledger_id ?? '',
      noop: true as const,
    };
  }
  if (journal.source_kind !== 'manual') {
    const owner = OWNERS[journal.source_kind];
    throw conflict(
      `journal ${journal.id} was posted by ${journal.source_kind.replace(/_/g, ' ')} ${journal.source_id}; ` +
        (owner
          ? `correct it with ${owner}`
          : `only a manual journal (${reconciliation.journalPost.name}) is reversed by ${corrections.journalReverse.name}`),
    );
  }
  const asset = await uow.tx.get('SELECT line_no FROM journal_lines WHERE org_id = ? AND journal_id = ? AND account_code = ?', [
    uow.orgId,
    journal.id,
    FIXED_ASSET_ACCOUNT,
  ]);
  if (asset) {
    throw conflict(
      `journal ${journal.id} registered a fixed asset on ${FIXED_ASSET_ACCOUNT}; dispose of the asset with ${assets.assetDispose.name} instead`,
    );
  }
  const matched = await uow.tx.get<{ line_id: string }>(
    "SELECT line_id FROM bank_feed_matches WHERE org_id = ? AND target_kind = 'journal' AND target_id = ? AND reversed_at IS NULL",
    [uow.orgId, journal.id],
  );
  if (matched) {
    throw conflict(
      `journal ${journal.id} is matched to bank line ${matched.line_id}; undo that with ${corrections.lineUnmatch.name} first`,
    );
  }
  const date = correctionDate(uow, p.date, journal.date, `journal ${journal.id} (its date)`);
  const lines = await mirrorOf(uow, journal.id);
  const totalCents = lines.reduce((s, l) => s + (l.debitCents ?? 0), 0);
  const reversalJournalId = newJournalId();
  await postJournal(uow, {
    id: reversalJournalId,
    date,
    memo: `Reversal of journal ${journal.id}: ${p.reason}`,
    source: { kind: 'journal_reversal', id: journal.id },
    lines,
  });
  const event = await uow.emit(events.journalReverse, {
    entityId: journal.id,
    payload: { journalId: journal.id, reversalJournalId, date, totalCents, reason: p.reason },
  });
  await uow.tx.run('UPDATE journals SET reversed_by = ? WHERE org_id = ? AND id = ? AND reversed_by IS NULL', [
    reversalJournalId,
    uow.orgId,
    journal.id,
  ]);
  return { journalId: journal.id, reversalJournalId, date, reason: p.reason, totalCents, ledgerId: event.ledgerId };
}

async function totalOf(uow: Uow, journalId: string): Promise<number> {
  const row = await uow.tx.get<{ dr: number | null }>(
    'SELECT SUM(debit_cents) AS dr FROM journal_lines WHERE org_id = ? AND journal_id = ?',
    [uow.orgId, journalId],
  );
  return Number(row?.dr ?? 0);
}
