import { COST_ROLLUP_RANGE_DAYS_MAX, type readSpecs } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { addDays, daysBetween, orgToday } from '../../clock.js';
import { badRequest } from '../../errors.js';

/**
 * GET cost.rollup: AI gateway spend from `ai_calls`, grouped by day (the
 * organisation's local date), actor and model, with calls, tokens and integer micro-dollars,
 * plus totals over the whole range and filters. Bounded twice: the range is at most 366 days,
 * and rows come a page at a time (limit ≤ 200) after a keyset cursor on (day, actor, model).
 */
type Query = z.infer<typeof readSpecs.costRollup.query>;

interface Key {
  day: string;
  actor: string;
  model: string;
}

function encodeCursor(k: Key): string {
  return Buffer.from(JSON.stringify([k.day, k.actor, k.model]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): Key {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'string')) {
      return { day: v[0] as string, actor: v[1] as string, model: v[2] as string };
    }
  } catch {
    // fall through
  }
  throw badRequest('cursor: must be the nextCursor of a previous page');
}

interface Row {
  day: string;
  actor: string;
  model: string;
  calls: number | string;
  input_tokens: number | string | null;
  output_tokens: number | string | null;
  cost: number | string | null;
}

export async function costRollup(q: Query, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  const today = await orgToday(ctx.db, orgId);
  const to = q.to ?? (q.from !== undefined && q.from > today ? q.from : today);
  const from = q.from ?? addDays(to, -29);
  if (to < from) throw badRequest(`to: must be on or after from (${from})`);
  if (daysBetween(from, to) + 1 > COST_ROLLUP_RANGE_DAYS_MAX) {
    throw badRequest(`to: at most ${COST_ROLLUP_RANGE_DAYS_MAX} days from from (${from}), inclusive`);
  }
  const where = ['org_id = ?', 'day >= ?', 'day <= ?'];
  const args: (string | number)[] = [orgId, from, to];
  if (q.actor !== undefined) {
    where.push('actor = ?');
    args.push(q.actor);
  }
  if (q.model !== undefined) {
    where.push('model = ?');
    args.push(q.model);
  }
  const filtered = [...args];
  const pageWhere = [...where];
  if (q.cursor !== undefined) {
    const c = decodeCursor(q.cursor);
    pageWhere.push('(day > ? OR (day = ? AND (actor > ? OR (actor = ? AND model > ?))))');
    args.push(c.day, c.day, c.actor, c.actor, c.model);
  }
  const limit = q.limit;
  const [rows, totals] = await Promise.all([
    ctx.db.reader.all<Row>(
      `SELECT day, actor, model, COUNT(*) AS calls, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
         SUM(cost_micro_usd) AS cost
       FROM ai_calls WHERE ${pageWhere.join(' AND ')}
       GROUP BY day, actor, model ORDER BY day, actor, model LIMIT ${limit + 1}`,
      args,
    ),
    ctx.db.reader.get<Omit<Row, 'day' | 'actor' | 'model'>>(
      `SELECT COUNT(*) AS calls, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens, SUM(cost_micro_usd) AS cost
       FROM ai_calls WHERE ${where.join(' AND ')}`,
      filtered,
    ),
  ]);
  const kept = rows.slice(0, limit);
  const last = kept.at(-1);
  return {
    orgId,
    from,
    to,
    rows: kept.map((r) => ({
      day: r.day,
      actor: r.actor,
      model: r.model,
      calls: Number(r.calls),
      inputTokens: Number(r.input_tokens ?? 0),
      outputTokens: Number(r.output_tokens ?? 0),
      costMicroUsd: Number(r.cost ?? 0),
    })),
    totals: {
      calls: Number(totals?.calls ?? 0),
      inputTokens: Number(totals?.input_tokens ?? 0),
      outputTokens: Number(totals?.output_tokens ?? 0),
      costMicroUsd: Number(totals?.cost ?? 0),
    },
    nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
  };
}
