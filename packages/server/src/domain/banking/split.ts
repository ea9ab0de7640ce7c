import { bankAccounts as spec, events, reconciliation, type TaxCode } from '@finance-desk/protocol';
import type { z } from 'zod';
import { DomainError, badRequest, conflict, invariant } from '../../errors.js';
import { loadPolicy } from '../../governance/policy.js';
import { newId } from '../../ids.js';
import { formatCents } from '../../money.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { checkPostable } from '../gl/periods.js';
import { newJournalId, postJournal, trackingFields, type LineTracking, type PostingLine } from '../gl/post.js';
import { resolveLineTracking } from '../tracking/store.js';
import { loadTarget, type Target } from '../reconciliation/documents.js';
import { refreshBankJournal } from '../reconciliation/bank-journal-words.js';
import { lineNow, lockLine, matchesOf, remainingOf, type LineRow, type MatchRow } from '../reconciliation/feed-lines.js';
import { matchAmount, post } from '../reconciliation/match.js';
import { accountTaxCode } from '../reconciliation/recode.js';
import { checkDirectPosting, taxedPosting } from '../reconciliation/tax-lines.js';

/**
 * books.lineSplit: one bank line applied to several documents and accounts in
 * one call and one event, every posting dated the line's date. Document parts are matches (the
 * same checks and postings as books.matchAccept); account parts are codings (as
 * books.lineRecode, GST 1/11 on GST codes). The parts add up to what is left of the line, which
 * ends matched. The signature law does not weaken: a line above the materiality floor is
 * applied to documents only through books.matchHoldResolve with a human's proof, so a split of
 * such a line with a document part is refused; its account parts may be split as lineRecode may
 * code them (coding a line to an account was never a signature act).
 */
type Params = z.infer<typeof spec.lineSplit.params>;
type Part = Params['parts'][number];
type DocumentPart = Part & { readonly target: NonNullable<Part['target']> };
type AccountPart = Part & { readonly accountCode: string };

export const SPLIT_SOURCE = 'feed_split';

const isDocument = (p: Part): p is DocumentPart => p.target !== undefined;

interface Planned {
  readonly index: number;
  readonly kind: Target['kind'] | 'account';
  readonly targetId: string;
  readonly amountCents: number;
  readonly journalId: string;
  readonly outstandingCents: number;
  readonly taxCode: TaxCode | null;
  readonly gstCents: number;
  readonly target?: Target;
  readonly lines?: PostingLine[];
}

/** Re-word a match refusal (`amountCents: …`, `target.kind: …`) to name the part's field, as sent. */
function asPart(i: number, e: unknown): never {
  if (e instanceof DomainError && e.code === 'BAD_REQUEST') {
    const m = /^(amountCents|target\.kind|target\.id|lineId): /.exec(e.message);
    if (m && m[1] !== 'lineId') throw badRequest(`parts[${i}].${m[1]}: ${e.message.slice(m[0].length)}`);
    if (m) throw badRequest(`parts[${i}].target: ${e.message.slice(m[0].length)}`);
    throw badRequest(`parts[${i}].target: ${e.message}`);
  }
  if (e instanceof DomainError && e.code === 'CONFLICT') throw conflict(`parts[${i}].target: ${e.message}`);
  throw e;
}

function checkLine(line: LineRow, p: Params): void {
  if (line.status === 'held') {
    throw conflict(
      `bank line ${line.id} is held for a human decision (above the materiality floor); only ${reconciliation.matchHoldResolve.name} with a human approval releases it`,
    );
  }
  if (line.status !== 'unmatched' && line.status !== 'part_matched') {
    throw conflict(`bank line ${line.id} is ${line.status}; only an unmatched or part_matched line can be split`);
  }
  if (line.status === 'unmatched' && p.parts.length < spec.bankAccountLimits.splitPartsMin) {
    throw badRequest(
      `parts: must have at least ${spec.bankAccountLimits.splitPartsMin} parts for an unmatched line (one part is ${reconciliation.matchAccept.name} or ${reconciliation.lineRecode.name})`,
    );
  }
  const total = p.parts.reduce((s, x) => s + x.amountCents, 0);
  const left = remainingOf(line);
  if (total !== left) {
    throw badRequest(`parts: add up to ${total} cents; ${left} cents are left to match on bank line ${line.id} (${formatCents(left)})`);
  }
}

async function planDocument(uow: Uow, line: LineRow, matches: readonly MatchRow[], part: DocumentPart, i: number): Promise<Planned> {
  const applied = matches.find((m) => m.target_kind === part.target.kind && m.target_id === part.target.id);
  if (applied) {
    throw conflict(
      `parts[${i}].target: bank line ${line.id} already applies ${Number(applied.amount_cents)} cents to ${part.target.kind} ${part.target.id}`,
    );
  }
  let target: Target;
  let amount: number;
  try {
    target = await loadTarget(uow.tx, uow.orgId, part.target.kind, part.target.id, line.account_code);
    amount = matchAmount({ lineId: line.id, target: part.target, amountCents: part.amountCents }, { line, matches, target });
  } catch (e) {
    if (e instanceof DomainError && e.code === 'NOT_FOUND') throw badRequest(`parts[${i}].target.id: ${e.message}`);
    return asPart(i, e);
  }
  return {
    index: i,
    kind: target.kind,
    targetId: target.id,
    amountCents: amount,
    journalId: target.kind === 'journal' ? target.id : newJournalId(),
    outstandingCents: target.outstandingCents - amount,
    taxCode: null,
    gstCents: 0,
    target,
  };
}

async function planAccount(uow: Uow, line: LineRow, part: AccountPart, i: number, tracking: LineTracking | undefined): Promise<Planned> {
  if (part.accountCode === line.account_code) {
    throw badRequest(`parts[${i}].accountCode: ${part.accountCode} is the bank account the line is on`);
  }
  const taxCode = part.taxCode ?? (await accountTaxCode(uow.tx, uow.orgId, part.accountCode));
  await checkDirectPosting(uow.tx, uow.orgId, part.accountCode, taxCode, `parts[${i}].accountCode`);
  const memo = (part.description ?? `Bank line ${line.date} (part ${i + 1}): ${line.description}`).slice(0, 500);
  // Money leaves the bank on this part when the line is money out, or when a part of money in
  // goes the other way (a fee deducted): Dr account / Cr bank; otherwise Dr bank / Cr account.
  const out = Number(line.amount_cents) < 0 !== part.amountCents < 0;
  const abs = Math.abs(part.amountCents);
  const [coded, ...gst] = taxedPosting(
    [{ accountCode: part.accountCode, taxCode, ...(out ? { debitCents: abs } : { creditCents: abs }) }],
    memo,
  );
  invariant(coded, 'an account part has its coded line');
  // The part's tracking goes on its coded line: the bank and GST lines are the balance sheet's.
  const tracked: PostingLine = { ...coded, ...trackingFields(tracking) };
  const bank: PostingLine = {
    account: line.account_code,
    ...(out ? { creditCents: abs } : { debitCents: abs }),
    description: memo,
  };
  const lines = out ? [tracked, ...gst, bank] : [bank, tracked, ...gst];
  return {
    index: i,
    kind: 'account',
    targetId: part.accountCode,
    amountCents: part.amountCents,
    journalId: newJournalId(),
    outstandingCents: 0,
    taxCode,
    gstCents: Math.abs(lines.reduce((s, l) => s + (l.gstCents ?? 0), 0)),
    lines,
  };
}

export async function lineSplit(p: Params, uow: Uow): Promise<ResultOf<typeof spec.lineSplit>> {
  const line = await lockLine(uow, p.lineId);
  checkLine(line, p);
  const seen = new Map<string, number>();
  p.parts.forEach((part, i) => {
    if (!isDocument(part)) return;
    const key = `${part.target.kind}:${part.target.id}`;
    const first = seen.get(key);
    if (first !== undefined)
      throw badRequest(`parts[${i}].target: ${part.target.kind} ${part.target.id} is already parts[${first}]; a document takes one part`);
    seen.set(key, i);
  });
  const policy = await loadPolicy(uow.tx, uow.orgId);
  const documentAt = p.parts.findIndex(isDocument);
  if (documentAt >= 0 && Math.abs(Number(line.amount_cents)) > policy.materialityFloorCents) {
    throw conflict(
      `parts[${documentAt}].target: bank line ${line.id} (${formatCents(Math.abs(Number(line.amount_cents)))}) is above the materiality floor ` +
        `(${formatCents(policy.materialityFloorCents)}): it is applied to documents only with a human's approval. Call ` +
        `${reconciliation.matchHoldResolve.name} for each document part (lineId, target, amountCents), then split what is left to accounts`,
    );
  }
  checkPostable(uow, line.date, 'lineId');
  const tracked = await resolveLineTracking(
    uow.tx,
    uow.orgId,
    p.parts.map((x) => x.tracking),
    (i) => `parts[${i}].tracking`,
  );
  const matches = (await matchesOf(uow.tx, uow.orgId, [line.id])).get(line.id) ?? [];
  const planned: Planned[] = [];
  // An account part going the other way (a fee deducted from a receipt) lets a document part be
  // larger than what is left of the line: the parts' total is what must equal it (checkLine). So
  // each document part is judged against the line as the offsetting parts leave it, whatever
  // their order in the call.
  const offset = p.parts.reduce((sum, x) => sum + (!isDocument(x) && x.amountCents < 0 ? -x.amountCents : 0), 0);
  const judged: LineRow = offset === 0 ? line : { ...line, matched_cents: Number(line.matched_cents) - offset };
  for (const [i, part] of p.parts.entries()) {
    if (isDocument(part)) planned.push(await planDocument(uow, judged, matches, part, i));
    else {
      invariant(part.accountCode !== undefined, 'the schema asks for target or accountCode');
      planned.push(await planAccount(uow, line, { ...part, accountCode: part.accountCode }, i, tracked[i]?.ids));
    }
  }
  const parts = planned.map((x) => ({
    kind: x.kind,
    targetId: x.targetId,
    amountCents: x.amountCents,
    journalId: x.journalId,
    outstandingCents: x.outstandingCents,
    taxCode: x.taxCode,
    gstCents: x.gstCents,
  }));
  // Every part is posted before the event, which binds the journals' lines.
  const records: ((ledgerId: string) => Promise<void>)[] = [];
  for (const x of planned) {
    if (x.target) {
      records.push((await post(uow, { line, target: x.target }, x.amountCents, x.journalId)).record);
    } else {
      invariant(x.lines, 'an account part has its posting');
      await postJournal(uow, {
        id: x.journalId,
        date: line.date,
        memo: `Split of bank line ${line.id}: part ${x.index + 1} to ${x.targetId}`,
        source: { kind: SPLIT_SOURCE, id: line.id },
        dateField: 'lineId',
        lines: x.lines,
      });
    }
  }
  const event = await uow.emit(events.lineSplit, {
    entityId: line.id,
    payload: {
      lineId: line.id,
      lineAmountCents: Number(line.amount_cents),
      date: line.date,
      accountCode: line.account_code,
      parts,
    },
  });
  for (const record of records) await record(event.ledgerId);
  for (const x of planned) {
    await uow.tx.run(
      `INSERT INTO bank_feed_matches (org_id, id, line_id, target_kind, target_id, amount_cents, journal_id, created_at, ledger_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [uow.orgId, newId('mat'), line.id, x.kind, x.targetId, x.amountCents, x.journalId, uow.now, event.ledgerId],
    );
  }
  for (const journalId of new Set(planned.map((x) => x.journalId))) await refreshBankJournal(uow.tx, uow.orgId, journalId);
  const moved = await uow.tx.run(
    `UPDATE bank_feed_lines SET status = 'matched', matched_cents = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND matched_cents = ?`,
    [Math.abs(Number(line.amount_cents)), event.ledgerId, uow.orgId, line.id, Number(line.matched_cents)],
  );
  invariant(moved.changes === 1, 'a split is applied to the line once');
  return {
    lineId: line.id,
    status: 'matched' as const,
    line: await lineNow(uow.tx, uow.orgId, line.id),
    parts,
    ledgerId: event.ledgerId,
  };
}
