import type { TaxCode } from '@finance-desk/protocol';
import { events, reconciliation } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict, invariant } from '../../errors.js';
import { mirrorOf } from '../gl/mirror.js';
import { checkPostable } from '../gl/periods.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { lineNow, lockLine, type LineRow } from './feed-lines.js';
import { checkDirectPosting, taxedPosting } from './tax-lines.js';

/**
 * books.lineRecode: code a bank line straight to an account (bank fees, interest, drawings, a card
 * purchase with no bill). A new act every call (each appends its event): recoding again reverses
 * the line's previous recode journal and posts the new one, both dated the line's date, so the bank
 * account's balance on every date is unchanged and only the coding moves.
 */
type Params = z.infer<typeof reconciliation.lineRecode.params>;

/**
 * Lines that can be recoded: nothing of them is applied to a document, and no human decision is
 * pending on them. A held line (matchAccept above the materiality floor) is released only by
 * matchHoldResolve with a human's proof; recoding it would settle it by the agent alone.
 */
const recodable = (line: LineRow) => ['unmatched', 'recoded'].includes(line.status) && Number(line.matched_cents) === 0;

/** CONFLICT naming the hold and the only way out of it. */
function heldRefusal(line: LineRow) {
  return conflict(
    `bank line ${line.id} is held for a human decision (${Number(line.held_amount_cents ?? 0)} cents to ` +
      `${line.held_kind ?? ''} ${line.held_target_id ?? ''}, above the materiality floor); it cannot be recoded. ` +
      `Only ${reconciliation.matchHoldResolve.name} with a human approval (approvalId or signatureToken for ${reconciliation.matchHoldResolve.actionClass}) releases it`,
  );
}

/**
 * With no taxCode: bank fees and interest are financial supplies (input taxed, BAS G11/G14 and
 * G1/G4 in the worked quarter of docs/reference/gst-bas.md); anything else claims and reports nothing
 * until someone says what it was (no GST credit without a tax invoice).
 */
export function defaultTaxCode(accountCode: string): TaxCode {
  if (accountCode === '6300') return 'INPUT_TAXED_EXPENSE';
  if (accountCode === '4100') return 'INPUT_TAXED';
  return 'BAS_EXCLUDED';
}

/**
 * The tax code a bank line coded to `accountCode` takes when none is given: the account's own
 * default (books.accountCreate / accountUpdate taxCode) when it has one a bank line may carry,
 * else defaultTaxCode's.
 */
export async function accountTaxCode(q: Queryable, orgId: string, accountCode: string): Promise<TaxCode> {
  const row = await q.get<{ tax_code: string | null }>('SELECT tax_code FROM accounts WHERE org_id = ? AND code = ?', [orgId, accountCode]);
  const own = row?.tax_code ?? null;
  if (own !== null && (reconciliation.RECODE_TAX_CODES as readonly string[]).includes(own)) return own as TaxCode;
  return defaultTaxCode(accountCode);
}

function recodePosting(line: LineRow, accountCode: string, taxCode: TaxCode, memo: string): PostingLine[] {
  const amount = Number(line.amount_cents);
  const abs = Math.abs(amount);
  const [coded, ...gst] = taxedPosting([{ accountCode, taxCode, ...(amount < 0 ? { debitCents: abs } : { creditCents: abs }) }], memo);
  invariant(coded, 'a recode has its coded line');
  const bank: PostingLine = {
    account: line.account_code,
    ...(amount < 0 ? { creditCents: abs } : { debitCents: abs }),
    description: memo,
  };
  return amount < 0 ? [coded, ...gst, bank] : [bank, coded, ...gst];
}

export async function lineRecode(p: Params, uow: Uow) {
  const line = await lockLine(uow, p.lineId);
  if (line.status === 'held') throw heldRefusal(line);
  if (!recodable(line)) {
    throw conflict(
      `bank line ${line.id} is ${line.status} with ${Number(line.matched_cents)} cents applied to documents; ` +
        'only a line with nothing applied (unmatched or recoded) can be recoded',
    );
  }
  if (line.recode_journal_id !== null) {
    // A line recoded to another bank account may be matched there by that account's
    // own line (a transfer seen on one side first); its coding then stays.
    const other = await uow.tx.get<{ line_id: string }>('SELECT line_id FROM bank_feed_matches WHERE org_id = ? AND journal_id = ?', [
      uow.orgId,
      line.recode_journal_id,
    ]);
    if (other) {
      throw conflict(
        `bank line ${line.id}'s recode journal ${line.recode_journal_id} is matched by bank line ${other.line_id} on account ${line.recode_account ?? ''}; it cannot be recoded again`,
      );
    }
  }
  if (p.accountCode === line.account_code) throw badRequest(`accountCode: ${p.accountCode} is the bank account the line is on`);
  // A line dated in a locked period is not (re)coded: both journals are dated the line's date.
  checkPostable(uow, line.date, 'lineId');
  const taxCode = p.taxCode ?? (await accountTaxCode(uow.tx, uow.orgId, p.accountCode));
  await checkDirectPosting(uow.tx, uow.orgId, p.accountCode, taxCode, 'accountCode');
  const memo = (p.description ?? `Bank line ${line.date}: ${line.description}`).slice(0, 500);
  const lines = recodePosting(line, p.accountCode, taxCode, memo);
  const gstCents = Math.abs(lines.reduce((s, l) => s + (l.gstCents ?? 0), 0));
  const journalId = newJournalId();
  const previous = line.recode_journal_id;
  const reversalId = previous === null ? null : newJournalId();
  if (previous !== null && reversalId !== null) {
    await postJournal(uow, {
      id: reversalId,
      date: line.date,
      memo: `Reversal of recode ${previous} of bank line ${line.id}`,
      source: { kind: 'feed_recode_reversal', id: line.id },
      lines: await mirrorOf(uow, previous),
    });
  }
  await postJournal(uow, {
    id: journalId,
    date: line.date,
    memo,
    source: { kind: 'feed_recode', id: line.id },
    lines,
  });
  const event = await uow.emit(events.lineRecode, {
    entityId: line.id,
    payload: {
      lineId: line.id,
      lineAmountCents: Number(line.amount_cents),
      date: line.date,
      accountCode: p.accountCode,
      taxCode,
      gstCents,
      journalId,
      reversedJournalId: previous,
      reversalJournalId: reversalId,
    },
  });
  await uow.tx.run(
    `UPDATE bank_feed_lines SET status = 'recoded', recode_account = ?, recode_tax_code = ?, recode_gst_cents = ?, recode_journal_id = ?,
       ledger_id = ? WHERE org_id = ? AND id = ?`,
    [p.accountCode, taxCode, gstCents, journalId, event.ledgerId, uow.orgId, line.id],
  );
  return {
    lineId: line.id,
    status: 'recoded' as const,
    line: await lineNow(uow.tx, uow.orgId, line.id),
    accountCode: p.accountCode,
    taxCode,
    gstCents,
    journalId,
    reversedJournalId: previous,
    reversalJournalId: reversalId,
    ledgerId: event.ledgerId,
  };
}
