import type { tax } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { addDays, orgToday } from '../../clock.js';
import { loadProfile } from '../../org/profile.js';
import type { Queryable } from '../../storage/types.js';
import { BAS_COLUMNS, toBas, type BasRow } from './bas.js';
import { carriedIn, paymentsTo } from './carried-in.js';
import { basDueOn } from './figures.js';
import { superObligations } from './super-due.js';

/**
 * books.taxObligations: each BAS with its period, due date, status and signed amount, and each
 * signed pay run's super guarantee (super-due.ts), by due date. PAYG withholding is paid with
 * the BAS (label 4). Status is the row's: a held or lodging BAS never reads as lodged, and only a
 * lodged one carries its receipt (toBas). The PAYG withholding owed at a conversion (2200's opening
 * credit) was withheld by the old system's pay runs, so no BAS here reports it: it is an
 * obligation of its own, due with the BAS period that holds the conversion date, settled by
 * payments to 2200 (not BAS settlements, which clear what a BAS here reported). The super carried
 * in is super-due.ts's.
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
  const payg = await paygCarriedIn(ctx.db.reader, orgId, asOf, range);
  const all = [...obligations, ...supers, ...payg].sort((a, b) => a.dueOn.localeCompare(b.dueOn) || a.id.localeCompare(b.id));
  return { asOf, obligations: all };
}

/** 2200's opening credit, less the payments to 2200 as at asOf (none when the conversion left 2200 at nothing or in debit). */
async function paygCarriedIn(q: Queryable, orgId: string, asOf: string, range: { from: string; to: string }) {
  const opening = await carriedIn(q, orgId, '2200', asOf);
  if (!opening || opening.openingCents <= 0) return [];
  if (opening.conversionDate < range.from || opening.conversionDate > range.to) return [];
  const paid = Math.max(0, await paymentsTo(q, orgId, '2200', asOf, ['bas_settlement']));
  const outstanding = opening.openingCents - Math.min(paid, opening.openingCents);
  const { basFrequency } = await loadProfile(q, orgId);
  const dueOn = basDueOnHolding(opening.conversionDate, basFrequency);
  return [
    {
      kind: 'payg_carried_in' as const,
      id: opening.journalId,
      status: outstanding === 0 ? ('paid' as const) : ('due' as const),
      conversionDate: opening.conversionDate,
      accountCode: '2200' as const,
      dueOn,
      overdue: outstanding > 0 && dueOn < asOf,
      amountCents: opening.openingCents,
      outstandingCents: outstanding,
    },
  ];
}

/** The due date of the BAS period (a month, or a calendar quarter) holding `date`. */
function basDueOnHolding(date: string, frequency: 'monthly' | 'quarterly'): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  const first = frequency === 'monthly' ? m : m - ((m - 1) % 3);
  const last = frequency === 'monthly' ? m : first + 2;
  const ym = (month: number) => `${y}-${String(month).padStart(2, '0')}`;
  const end = last === 12 ? `${y}-12-31` : addDays(`${ym(last + 1)}-01`, -1);
  return basDueOn(`${ym(first)}-01`, end);
}
