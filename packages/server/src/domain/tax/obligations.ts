import type { tax } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { orgToday } from '../../clock.js';
import { BAS_COLUMNS, toBas, type BasRow } from './bas.js';
import { superObligations } from './super-due.js';

/**
 * books.taxObligations: each BAS with its period, due date, status and signed amount, and each
 * signed pay run's super guarantee (super-due.ts), by due date. PAYG withholding is paid with
 * the BAS (label 4). Status is the row's: a held or lodging BAS never reads as lodged, and only a
 * lodged one carries its receipt (toBas).
 */
type Params = z.infer<typeof tax.taxObligations.params>;

const OBLIGATIONS_MAX = 500;

export async function taxObligations(p: Params, ctx: ReadContext) {
  const orgId = ctx.principal.orgId;
  const asOf = p.asOf ?? (await orgToday(ctx.db, orgId));
  const rows = await ctx.db.reader.all<BasRow>(
    `SELECT ${BAS_COLUMNS} FROM bas_returns WHERE org_id = ? AND period_end >= ? AND period_start <= ?
     ORDER BY period_start, id LIMIT ${OBLIGATIONS_MAX}`,
    [orgId, p.from ?? '0000-01-01', p.to ?? '9999-12-31'],
  );
  const obligations = rows.map((row) => {
    const b = toBas(row);
    return {
      kind: 'bas' as const,
      id: b.id,
      status: b.status,
      periodStart: b.periodStart,
      periodEnd: b.periodEnd,
      dueOn: b.dueOn,
      overdue: b.status !== 'lodged' && b.dueOn < asOf,
      labels: b.labels,
      summary: b.summary,
      amountCents: b.netCents,
      receipt: b.receipt,
    };
  });
  const range = { from: p.from ?? '0000-01-01', to: p.to ?? '9999-12-31' };
  const supers = await superObligations(ctx.db.reader, orgId, asOf, range, OBLIGATIONS_MAX);
  const all = [...obligations, ...supers].sort((a, b) => a.dueOn.localeCompare(b.dueOn) || a.id.localeCompare(b.id));
  return { asOf, obligations: all };
}
