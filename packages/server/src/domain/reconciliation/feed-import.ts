import { events, reconciliation as spec } from '@finance-desk/protocol';
import type { z } from 'zod';
import { addDays } from '../../clock.js';
import { badRequest, invariant } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { ParseError, parseBankFile, type ParsedLine } from './bank-parse.js';
import { fingerprint, planImport, type ImportPlan, type PlannedLine } from './dedupe.js';
import { lookupTargets } from './document-words.js';
import { rankFound } from './suggest.js';
import { placeholders } from '../../storage/sql.js';
import { DEFAULT_BANK_ACCOUNT, checkBankAccount } from '../banking/accounts.js';
import { mergeSuggestions, transferSuggestions } from '../banking/transfer.js';

/**
 * books.feedLines: bank lines into a bank account, de-duplicated (dedupe.ts), each a new line
 * `bln_…` with status unmatched. Nothing is posted at import: the ledger's bank account moves
 * when a line is matched or recoded, so it holds what is reconciled, and unreconciled lines are
 * listed apart (books.feedLinesList). One event, `books.feed.import`, with counts and totals
 * (no descriptions: they can name people).
 */
type Params = z.infer<typeof spec.feedLines.params>;

// Bank accounts are records (domain/banking): 1000, a bank, card or loan record,
// or an asset account with no role.
export { DEFAULT_BANK_ACCOUNT, checkBankAccount } from '../banking/accounts.js';

interface Input {
  readonly lines: readonly ParsedLine[];
  readonly closing?: ReadonlyMap<string, number> | undefined;
  /** How a problem with line i is named: `lines[i].date` or `file.content: line N`. */
  readonly where: (i: number, field: string) => string;
  readonly source: string;
}

function readInput(p: Params): Input {
  if (p.lines) {
    return { lines: p.lines, where: (i, field) => `lines[${i}].${field}`, source: 'lines' };
  }
  invariant(p.file, 'the schema asks for lines or file');
  const file = p.file;
  try {
    const parsed = parseBankFile(file);
    if (parsed.lines.length > spec.feedLimits.linesMax) {
      throw badRequest(`file.content: has ${parsed.lines.length} lines; import at most ${spec.feedLimits.linesMax} at a time`);
    }
    const source = parsed.layout ? `${file.format}:${parsed.layout}` : file.format;
    return {
      lines: parsed.lines,
      closing: parsed.closingBalanceByDate,
      where: (i, field) => `file.content: line ${parsed.sourceLines[i] ?? '?'} (${field})`,
      source,
    };
  } catch (e) {
    if (e instanceof ParseError) throw badRequest(`file.content: line ${e.line}: ${e.message}`);
    throw e;
  }
}

/** Bank dates are Australian local dates, up to a day ahead of UTC; anything later is a mistake. */
function checkDates(input: Input, today: string): void {
  const latest = addDays(today, 1);
  const late = input.lines.flatMap((l, i) => (l.date > latest ? [`${input.where(i, 'date')}: ${l.date} is in the future`] : []));
  if (late.length > 0) throw badRequest(late.slice(0, 10).join('; '));
}

async function existingFingerprints(uow: Uow, account: string, fps: readonly string[]) {
  const out = new Map<string, { id: string; import_id: string }>();
  for (let k = 0; k < fps.length; k += 500) {
    const chunk = fps.slice(k, k + 500);
    const rows = await uow.tx.all<{ id: string; import_id: string; fingerprint: string }>(
      `SELECT id, import_id, fingerprint FROM bank_feed_lines WHERE org_id = ? AND account_code = ?
       AND fingerprint IN (${placeholders(chunk.length)})`,
      [uow.orgId, account, ...chunk],
    );
    for (const r of rows) out.set(r.fingerprint, r);
  }
  return out;
}

interface NewLine extends PlannedLine {
  readonly id: string;
  readonly fingerprint: string;
}

async function insertLines(uow: Uow, account: string, importId: string, ledgerId: string, lines: readonly NewLine[]) {
  const columns = 14;
  for (let k = 0; k < lines.length; k += 100) {
    const chunk = lines.slice(k, k + 100);
    const values = chunk.flatMap((n) => [
      uow.orgId,
      n.id,
      account,
      n.line.date,
      n.line.amountCents,
      n.line.description,
      n.line.reference ?? null,
      n.line.balanceCents ?? null,
      n.fingerprint,
      importId,
      'unmatched',
      0,
      uow.now,
      ledgerId,
    ]);
    invariant(values.length === chunk.length * columns, 'one value per column');
    await uow.tx.run(
      `INSERT INTO bank_feed_lines (org_id, id, account_code, date, amount_cents, description, reference, balance_cents,
         fingerprint, import_id, status, matched_cents, created_at, ledger_id)
       VALUES ${chunk.map(() => `(${Array(columns).fill('?').join(', ')})`).join(', ')}`,
      values,
    );
  }
}

function eventPayload(importId: string, account: string, input: Input, plan: ImportPlan, fresh: readonly NewLine[], duplicates: number) {
  const dates = fresh.map((n) => n.line.date).sort();
  return {
    importId,
    accountCode: account,
    source: input.source,
    received: input.lines.length,
    imported: fresh.length,
    duplicates,
    skipped: plan.skipped.length,
    possibleDuplicates: plan.possibleDuplicates.length,
    fromDate: dates[0] ?? null,
    toDate: dates.at(-1) ?? null,
    inCents: fresh.reduce((s, n) => s + Math.max(n.line.amountCents, 0), 0),
    outCents: fresh.reduce((s, n) => s + Math.max(-n.line.amountCents, 0), 0),
  };
}

async function suggestionsFor(uow: Uow, account: string, fresh: readonly NewLine[]) {
  const some = fresh.slice(0, spec.feedLimits.suggestedLinesMax);
  if (some.length === 0) return [];
  const asked = some.map((n) => ({ ...n.line, remainingCents: Math.abs(n.line.amountCents) }));
  const { documents } = await lookupTargets(uow.tx, uow.caps.engine, uow.orgId, account, uow.today, asked);
  // Likely transfers: an unmatched opposite line already on another bank account.
  const transfers = await transferSuggestions(
    uow.tx,
    uow.orgId,
    some.map((n) => ({ id: n.id, accountCode: account, date: n.line.date, amountCents: n.line.amountCents, open: true })),
  );
  return some.flatMap((n, i) => {
    const line = asked[i];
    const ranked = line ? rankFound(line, documents[i] ?? []) : [];
    const found = mergeSuggestions(ranked, transfers.get(n.id) ?? [], spec.feedLimits.suggestionsPerLineMax);
    return found.length > 0 ? [{ lineId: n.id, candidates: found }] : [];
  });
}

export async function feedLines(p: Params, uow: Uow) {
  const account = p.accountCode ?? DEFAULT_BANK_ACCOUNT;
  await checkBankAccount(uow.tx, uow.orgId, account, 'accountCode');
  const input = readInput(p);
  checkDates(input, uow.today);
  const plan = planImport(input.lines, input.closing);
  if (plan.keep.length === 0) throw badRequest(`${p.lines ? 'lines' : 'file.content'}: has no transactions to import`);
  const planned = plan.keep.map((k) => ({
    ...k,
    fingerprint: fingerprint(account, k.line, k.occurrence),
  }));
  const existing = await existingFingerprints(
    uow,
    account,
    planned.map((k) => k.fingerprint),
  );
  const unseen = planned.filter((k) => !existing.has(k.fingerprint));
  // Ids are time-ordered but random within a millisecond: sorted, they keep the file's order.
  const ids = unseen.map(() => newId('bln')).sort();
  const fresh: NewLine[] = unseen.map((k, i) => ({ ...k, id: ids[i] ?? newId('bln') }));
  const duplicateLineIds = planned.flatMap((k) => existing.get(k.fingerprint)?.id ?? []);
  const base = {
    accountCode: account,
    received: input.lines.length,
    duplicates: duplicateLineIds.length,
    duplicateLineIds,
    skipped: plan.skipped,
    possibleDuplicates: plan.possibleDuplicates,
  };
  if (fresh.length === 0) {
    // Nothing new (idempotent by state): answer with the import that brought the first of these lines.
    const first = existing.get(planned[0]?.fingerprint ?? '');
    const prior = await uow.tx.get<{ ledger_id: string }>('SELECT ledger_id FROM bank_feed_imports WHERE org_id = ? AND id = ?', [
      uow.orgId,
      first?.import_id ?? '',
    ]);
    return {
      importId: null,
      ...base,
      imported: 0,
      lineIds: [],
      suggestions: [],
      ledgerId: prior?.ledger_id ?? '',
      noop: true,
    };
  }
  const importId = newId('imp');
  const event = await uow.emit(events.feedImport, {
    entityId: importId,
    payload: eventPayload(importId, account, input, plan, fresh, duplicateLineIds.length),
  });
  await uow.tx.run(
    `INSERT INTO bank_feed_imports (org_id, id, account_code, source, received, imported, duplicates, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, importId, account, input.source, input.lines.length, fresh.length, duplicateLineIds.length, uow.now, event.ledgerId],
  );
  await insertLines(uow, account, importId, event.ledgerId, fresh);
  const suggestions = await suggestionsFor(uow, account, fresh);
  return {
    importId,
    ...base,
    imported: fresh.length,
    lineIds: fresh.map((n) => n.id),
    suggestions,
    ledgerId: event.ledgerId,
  };
}
