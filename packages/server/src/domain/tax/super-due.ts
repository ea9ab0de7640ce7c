import type { Queryable } from '../../storage/types.js';
import { addDays } from '../../clock.js';

/**
 * The super guarantee each signed pay run owes (books.taxObligations, issue 9 item 3), and what
 * is left of it as at a date. A run credits 2300 Superannuation payable with its super; a super
 * payment is any other debit to 2300 (a recoded bank line, a journal), and payments settle the
 * oldest runs first, as a clearing house applies them. A recall's reversal is not a payment: it
 * takes its run out of the list instead.
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

/** Signed runs paid on or before asOf, oldest first, with payments to 2300 applied to them in turn. */
export async function superObligations(
  q: Queryable,
  orgId: string,
  asOf: string,
  range: { readonly from: string; readonly to: string },
  limit: number,
): Promise<SuperObligation[]> {
  const runs = await q.all<RunRow>(
    `SELECT id, period_start, period_end, payment_date, super_cents FROM pay_runs
     WHERE org_id = ? AND status = 'signed' AND payment_date <= ? ORDER BY payment_date, id`,
    [orgId, asOf],
  );
  const paid = await q.get<{ cents: number | string | null }>(
    `SELECT SUM(l.debit_cents) AS cents FROM journal_lines l
     JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
     WHERE l.org_id = ? AND l.account_code = '2300' AND j.date <= ? AND j.source_kind <> 'pay_run_recall'`,
    [orgId, asOf],
  );
  let left = Number(paid?.cents ?? 0);
  const out: SuperObligation[] = [];
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
