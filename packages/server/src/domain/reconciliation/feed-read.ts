import { limits, reconciliation as spec } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { orgToday } from '../../clock.js';
import { badRequest } from '../../errors.js';
import { accountBalanceCents } from '../gl/post.js';
import { DEFAULT_BANK_ACCOUNT } from './feed-import.js';
import { LINE_COLUMNS, matchesOf, remainingOf, toLine, type LineRow } from './feed-lines.js';
import { lookupTargets } from './document-words.js';
import { rankFound } from './suggest.js';
import { placeholders } from '../../storage/sql.js';
import { mergeSuggestions, transferSuggestions } from '../banking/transfer.js';

/**
 * books.feedLinesList: bank lines oldest first (date, then id), paged by a cursor of both, each
 * with its ranked suggestions; and a summary that sets the ledger's bank balance (what is
 * reconciled) beside what the unreconciled lines add up to.
 */
type Params = z.infer<typeof spec.feedLinesList.params>;

const UNRECONCILED = ['unmatched', 'part_matched', 'held'];

/** `<date>_<line id>` of the last line of a page. */
function readCursor(cursor: string | undefined): { date: string; id: string } | null {
  if (cursor === undefined) return null;
  const m = /^(\d{4}-\d{2}-\d{2})_(bln_[a-z0-9]+)$/.exec(cursor);
  if (!m) throw badRequest('cursor: must be the nextCursor of a previous page');
  return { date: m[1] ?? '', id: m[2] ?? '' };
}

function filters(p: Params, orgId: string, account: string) {
  const where = ['org_id = ?', 'account_code = ?'];
  const args: string[] = [orgId, account];
  const add = (sql: string, ...values: string[]) => {
    where.push(sql);
    args.push(...values);
  };
  const status = p.status ?? 'unreconciled';
  if (status === 'unreconciled') add(`status IN (${placeholders(UNRECONCILED.length)})`, ...UNRECONCILED);
  else if (status !== 'all') add('status = ?', status);
  if (p.from !== undefined) add('date >= ?', p.from);
  if (p.to !== undefined) add('date <= ?', p.to);
  const after = readCursor(p.cursor);
  if (after) add('(date > ? OR (date = ? AND id > ?))', after.date, after.date, after.id);
  return { where: where.join(' AND '), args };
}

async function summary(ctx: ReadContext, orgId: string, account: string) {
  const row = await ctx.db.reader.get<{ n: number; cents: number | null }>(
    `SELECT COUNT(*) AS n, SUM(CASE WHEN amount_cents > 0 THEN amount_cents - matched_cents ELSE amount_cents + matched_cents END) AS cents
     FROM bank_feed_lines WHERE org_id = ? AND account_code = ? AND status IN (${placeholders(UNRECONCILED.length)})`,
    [orgId, account, ...UNRECONCILED],
  );
  return {
    accountCode: account,
    ledgerBalanceCents: await accountBalanceCents(ctx.db.reader, orgId, account),
    unreconciledLines: Number(row?.n ?? 0),
    unreconciledCents: Number(row?.cents ?? 0),
  };
}

export async function feedLinesList(p: Params, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  const account = p.accountCode ?? DEFAULT_BANK_ACCOUNT;
  const limit = p.limit ?? limits.pageRowsDefault;
  const f = filters(p, orgId, account);
  const rows = await ctx.db.reader.all<LineRow>(
    `SELECT ${LINE_COLUMNS} FROM bank_feed_lines WHERE ${f.where} ORDER BY date, id LIMIT ${limit + 1}`,
    f.args,
  );
  const page = rows.slice(0, limit);
  const matches = await matchesOf(
    ctx.db.reader,
    orgId,
    page.map((r) => r.id),
  );
  const open = page.filter((r) => UNRECONCILED.includes(r.status));
  const asked = new Map(
    open.map((r) => [
      r.id,
      {
        date: r.date,
        amountCents: Number(r.amount_cents),
        remainingCents: remainingOf(r),
        description: r.description,
        reference: r.reference,
      },
    ]),
  );
  const found =
    p.suggestions === false || open.length === 0
      ? { documents: [] }
      : await lookupTargets(ctx.db.reader, ctx.db.caps.engine, orgId, account, await orgToday(ctx.db, orgId), [...asked.values()]);
  const documentsOf = new Map([...asked.keys()].map((id, i) => [id, found.documents[i] ?? []]));
  // Likely transfers: the opposite line on another bank account.
  const transfers =
    p.suggestions === false
      ? new Map<string, never[]>()
      : await transferSuggestions(
          ctx.db.reader,
          orgId,
          page.map((r) => ({
            id: r.id,
            accountCode: r.account_code,
            date: r.date,
            amountCents: Number(r.amount_cents),
            open: r.status === 'unmatched' && Number(r.matched_cents) === 0,
          })),
        );
  const lines = page.map((r) => {
    const own = matches.get(r.id) ?? [];
    const exclude = new Set(own.map((m) => `${m.target_kind}:${m.target_id}`));
    const line = {
      date: r.date,
      amountCents: Number(r.amount_cents),
      remainingCents: remainingOf(r),
      description: r.description,
      reference: r.reference,
    };
    const ranked = UNRECONCILED.includes(r.status) && p.suggestions !== false ? rankFound(line, documentsOf.get(r.id) ?? [], exclude) : [];
    const suggestions = mergeSuggestions(ranked, transfers.get(r.id) ?? [], spec.feedLimits.suggestionsPerLineMax);
    return { ...toLine(r, own), suggestions };
  });
  const last = page.at(-1);
  return {
    lines,
    nextCursor: rows.length > limit && last ? `${last.date}_${last.id}` : null,
    summary: await summary(ctx, orgId, account),
  };
}
