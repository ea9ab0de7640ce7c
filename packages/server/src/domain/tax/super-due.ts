import type { Queryable } from '../../storage/types.js';
import { addDays } from '../../clock.js';
import { carriedIn, paymentsTo } from './carried-in.js';

/**
 * The super guarantee each signed pay run owes (books.taxObligations), and what
 * is left of it as at a date. A run credits 2300 Superannuation payable with its super; the super
 * owed at a conversion is 2300's opening balance (carried-in.ts), an obligation of its own. A
 * super payment is any other movement on 2300 (a recoded bank line, a journal; a credit, such as a
 * reversed payment, counts against them), and payments settle the super carried in first, then
 * the oldest runs, as a clearing house applies them; so what is outstanding is 2300's balance. A
 * recall's reversal is not a payment: it takes its run out of the list instead.
 */
export const PAYDAY_SUPER_FROM = '2026-07-01';

/**
 * Payday Super: from 1 July 2026 an employer's super guarantee is due 7 days after the day the
 * wages are paid. Before that it was quarterly, due the 28th of the month after the quarter.
 */
export function superDueOn(paymentDate: string): string {
  if (paymentDate >= PAYDAY_SUPER_FROM) return addDays(paymentDate, 7);
  const [y, m] = paymentDate.split('-').map(Number) as [number, number];
  const quarterEnd = Math.ceil(m / 3) * 3;
  const due = quarterEnd === 12 ? { y: y + 1, m: 1 } : { y, m: quarterEnd + 1 };
  return `${due.y}-${String(due.m).padStart(2, '0')}-28`;
}

interface RunRow {
  id: string;
  period_start: string;
  period_end: string;
  payment_date: string;
  super_cents: number | string;
}

export interface SuperObligation {
  readonly kind: 'super_guarantee';
  readonly id: string;
  readonly status: 'due' | 'paid';
  readonly periodStart: string;
  readonly periodEnd: string;
  readonly paymentDate: string;
  readonly dueOn: string;
  readonly overdue: boolean;
  readonly amountCents: number;
  readonly outstandingCents: number;
}

/** The super owed at the conversion (2300's opening credit), first in line for payments. */
export interface SuperCarriedIn {
  readonly kind: 'super_carried_in';
  readonly id: string;
  readonly status: 'due' | 'paid';
  readonly conversionDate: string;
  readonly accountCode: '2300';
  readonly dueOn: string;
  readonly overdue: boolean;
  readonly amountCents: number;
  readonly outstandingCents: number;
}

/**
 * The super carried in (when the conversion put 2300 in credit), then the signed runs paid on or
 * before asOf, oldest first, with payments to 2300 applied to them in turn. The super carried in
 * is due as a run paid on the conversion date would be: its pays were on or before it.
 */
export async function superObligations(
  q: Queryable,
  orgId: string,
  asOf: string,
  range: { readonly from: string; readonly to: string },
  limit: number,
): Promise<(SuperCarriedIn | SuperObligation)[]> {
  const runs = await q.all<RunRow>(
    `SELECT id, period_start, period_end, payment_date, super_cents FROM pay_runs
     WHERE org_id = ? AND status = 'signed' AND payment_date <= ? ORDER BY payment_date, id`,
    [orgId, asOf],
  );
  const opening = await carriedIn(q, orgId, '2300', asOf);
  const carried = Math.max(0, opening?.openingCents ?? 0);
  // Super paid ahead at the conversion (2300 in debit) is a payment like any other.
  let left = Math.max(0, (await paymentsTo(q, orgId, '2300', asOf)) + Math.max(0, -(opening?.openingCents ?? 0)));
  const out: (SuperCarriedIn | SuperObligation)[] = [];
  if (opening && carried > 0) {
    const applied = Math.min(left, carried);
    left -= applied;
    const outstanding = carried - applied;
    const dueOn = superDueOn(opening.conversionDate);
    if (opening.conversionDate >= range.from && opening.conversionDate <= range.to) {
      out.push({
        kind: 'super_carried_in',
        id: opening.journalId,
        status: outstanding === 0 ? 'paid' : 'due',
        conversionDate: opening.conversionDate,
        accountCode: '2300',
        dueOn,
        overdue: outstanding > 0 && dueOn < asOf,
        amountCents: carried,
        outstandingCents: outstanding,
      });
    }
  }
  for (const r of runs) {
    const amount = Number(r.super_cents);
    const applied = Math.min(left, amount);
    left -= applied;
    if (r.payment_date < range.from || r.payment_date > range.to || out.length >= limit) continue;
    const outstanding = amount - applied;
    const dueOn = superDueOn(r.payment_date);
    out.push({
      kind: 'super_guarantee',
      id: r.id,
      status: outstanding === 0 ? 'paid' : 'due',
      periodStart: r.period_start,
      periodEnd: r.period_end,
      paymentDate: r.payment_date,
      dueOn,
      overdue: outstanding > 0 && dueOn < asOf,
      amountCents: amount,
      outstandingCents: outstanding,
    });
  }
  return out;
}
