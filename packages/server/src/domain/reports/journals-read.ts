import { limits, type booksReads } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { badRequest } from '../../errors.js';
import type { Queryable, SqlValue } from '../../storage/types.js';
import { accountExists } from '../gl/post.js';
import { trackingNamer, type TrackingNamer } from '../tracking/store.js';
import { filesOf, withFiles } from '../attachments/store.js';

type Params = z.infer<typeof booksReads.journals.params>;

interface JournalRow {
  id: string;
  date: string;
  memo: string;
  source_kind: string;
  source_id: string;
  ledger_id: string;
  reversed_by: string | null;
}

interface LineRow {
  journal_id: string;
  line_no: number;
  account_code: string;
  debit_cents: number;
  credit_cents: number;
  tax_code: string | null;
  tax_base_cents: number;
  gst_cents: number;
  doc_id: string | null;
  description: string;
  tracking1: string | null;
  tracking2: string | null;
}

/** The WHERE clause of a page: filters, and the keyset after the cursor (date, then id). */
async function pageFilter(q: Queryable, orgId: string, p: Params): Promise<{ where: string[]; args: SqlValue[] }> {
  const where = ['j.org_id = ?'];
  const args: SqlValue[] = [orgId];
  const add = (sql: string, ...values: SqlValue[]) => {
    where.push(sql);
    args.push(...values);
  };
  if (p.from !== undefined) add('j.date >= ?', p.from);
  if (p.to !== undefined) add('j.date <= ?', p.to);
  if (p.sourceId !== undefined) add('j.source_id = ?', p.sourceId);
  if (p.accountCode !== undefined) {
    // An account that is not in the chart is a bad value (BAD_REQUEST), not an empty answer.
    if (!(await accountExists(q, orgId, p.accountCode))) {
      throw badRequest(`accountCode: account ${p.accountCode} is not in the chart`);
    }
    add('EXISTS (SELECT 1 FROM journal_lines x WHERE x.org_id = j.org_id AND x.journal_id = j.id AND x.account_code = ?)', p.accountCode);
  }
  if (p.cursor !== undefined) {
    const at = await q.get<{ date: string }>('SELECT date FROM journals WHERE org_id = ? AND id = ?', [orgId, p.cursor]);
    if (!at) throw badRequest(`cursor: no journal ${p.cursor} in this organisation`);
    add('(j.date > ? OR (j.date = ? AND j.id > ?))', at.date, at.date, p.cursor);
  }
  return { where, args };
}

async function linesOf(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, LineRow[]>> {
  const out = new Map<string, LineRow[]>();
  if (ids.length === 0) return out;
  const rows = await q.all<LineRow>(
    `SELECT journal_id, line_no, account_code, debit_cents, credit_cents, tax_code, tax_base_cents,
       gst_cents, doc_id, description, tracking1, tracking2
     FROM journal_lines WHERE org_id = ? AND journal_id IN (${ids.map(() => '?').join(', ')})
     ORDER BY journal_id, line_no`,
    [orgId, ...ids],
  );
  for (const r of rows) out.set(r.journal_id, [...(out.get(r.journal_id) ?? []), r]);
  return out;
}

function toLine(r: LineRow, named: TrackingNamer) {
  const tracking = named(r);
  return {
    lineNo: Number(r.line_no),
    accountCode: r.account_code,
    debitCents: Number(r.debit_cents),
    creditCents: Number(r.credit_cents),
    taxCode: r.tax_code,
    taxBaseCents: Number(r.tax_base_cents),
    gstCents: Number(r.gst_cents),
    docId: r.doc_id,
    description: r.description,
    ...(tracking ? { tracking } : {}),
  };
}

/**
 * books.journals: whole journals ordered by date then id (the order an accountant reads a
 * ledger in), paged by keyset so that a page never repeats or skips a journal.
 */
export async function listJournals(p: Params, ctx: ReadContext) {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const limit = p.limit ?? limits.pageRowsDefault;
  const { where, args } = await pageFilter(q, orgId, p);
  const rows = await q.all<JournalRow>(
    `SELECT j.id, j.date, j.memo, j.source_kind, j.source_id, j.ledger_id, j.reversed_by FROM journals j
     WHERE ${where.join(' AND ')} ORDER BY j.date, j.id LIMIT ${limit + 1}`,
    args,
  );
  const page = rows.slice(0, limit);
  const ids = page.map((r) => r.id);
  const [lines, files] = await Promise.all([linesOf(q, orgId, ids), filesOf(q, orgId, 'journal', ids)]);
  const named = await trackingNamer(q, orgId, [...lines.values()].flat());
  const journals = page.map((r) =>
    withFiles(
      {
        id: r.id,
        date: r.date,
        memo: r.memo,
        source: { kind: r.source_kind, id: r.source_id },
        ledgerId: r.ledger_id,
        reversedBy: r.reversed_by,
        lines: (lines.get(r.id) ?? []).map((l) => toLine(l, named)),
      },
      files.get(r.id),
    ),
  );
  return { journals, nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}
