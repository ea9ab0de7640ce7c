import type { booksReads } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { orgToday } from '../../clock.js';
import { accountTotals, assertKnownAccounts, loadChart, normalBalance } from './ledger-totals.js';
import { trackingCategories } from '../tracking/store.js';

type Params = z.infer<typeof booksReads.accounts.params>;

/** books.accounts: the chart, each account with its totals and normal balance as at a date. */
export async function listAccounts(p: Params, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  const asOf = p.asOf ?? (await orgToday(ctx.db, orgId));
  const [chart, totals] = await Promise.all([loadChart(ctx.db.reader, orgId), accountTotals(ctx.db.reader, orgId, { to: asOf })]);
  assertKnownAccounts(chart, totals);
  // Accounts archived by books.accountArchive are listed, flagged.
  const archived = new Set(
    (await ctx.db.reader.all<{ code: string }>('SELECT code FROM accounts WHERE org_id = ? AND archived_at IS NOT NULL', [orgId])).map(
      (r) => r.code,
    ),
  );
  const accounts = chart
    .filter((a) => p.type === undefined || a.type === p.type)
    .map((a) => {
      const t = totals.get(a.code) ?? { debitCents: 0, creditCents: 0 };
      return {
        code: a.code,
        name: a.name,
        type: a.type,
        debitCents: t.debitCents,
        creditCents: t.creditCents,
        balanceCents: normalBalance(a.type, t),
        ...(archived.has(a.code) ? { archived: true as const } : {}),
      };
    });
  // The tracking categories lines may name (books.trackingSet): at most 2 of at most 100 options.
  return { asOf, accounts, trackingCategories: await trackingCategories(ctx.db.reader, orgId) };
}
