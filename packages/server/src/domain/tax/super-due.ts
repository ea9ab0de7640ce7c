import type { Queryable } from '../../storage/types.js';
import { addDays } from '../../clock.js';
import { carriedIn, paymentsTo } from './carried-in.js';

/**
 * The super guarantee each signed pay run owes (books.taxObligations), and what
 * is left of it as at a date. A run credits 2300 Superannuation payable with its super; the super
 * owed at a conversion is 2300's opening balance (carried-in.ts), an obligation of its own.
 *
 * Two kinds of payment settle it. A books.superPay (payroll/super-pay.ts) names the runs it pays
 * and pays each in full: from its payment date those runs are paid by it, whatever else moved on
 * 2300. Any other movement on 2300 (a recoded bank line, a journal; a credit, such as a reversed
 * payment, counts against them) is applied as a clearing house applies an unlabelled payment: to
 * the super carried in first, then to the oldest runs no super payment has paid. Together they
 * leave what is outstanding equal to 2300's balance. A recall's reversal is not a payment: it
 * takes its run out of the list instead.
 */
export const PAYDAY_SUPER_FROM = '2026-07-01';

/** The journal source kind of a books.superPay: its debits on 2300 pay the runs it names, not the oldest. */
export const SUPER_PAYMENT_SOURCE = 'super_payment';

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
  salary_sacrifice_cents: number | string;
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
  /** The super payment that paid the run (dated on or before asOf); late when after dueOn. */
  readonly paidBy: { readonly superPaymentId: string; readonly paymentDate: string; readonly late: boolean } | null;
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
    `SELECT id, period_start, period_end, payment_date, super_cents, salary_sacrifice_cents FROM pay_runs
     WHERE org_id = ? AND status = 'signed' AND payment_date <= ? ORDER BY payment_date, id`,
    [orgId, asOf],
  );
  const paidBy = new Map(
    (
      await q.all<{ pay_run_id: string; id: string; payment_date: string }>(
        `SELECT r.pay_run_id, p.id, p.payment_date FROM super_payment_runs r
         JOIN super_payments p ON p.org_id = r.org_id AND p.id = r.super_payment_id
         WHERE r.org_id = ? AND p.payment_date <= ?`,
        [orgId, asOf],
      )
    ).map((r) => [r.pay_run_id, { superPaymentId: r.id, paymentDate: r.payment_date }]),
  );
  const opening = await carriedIn(q, orgId, '2300', asOf);
  const carried = Math.max(0, opening?.openingCents ?? 0);
  // Super paid ahead at the conversion (2300 in debit) is a payment like any other; a super
  // payment's own journal is not one of these: it settles its runs by name.
  let left = Math.max(0, (await paymentsTo(q, orgId, '2300', asOf, [SUPER_PAYMENT_SOURCE])) + Math.max(0, -(opening?.openingCents ?? 0)));
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
    // What the run credited to 2300: its super guarantee and any salary sacrificed to super.
    const amount = Number(r.super_cents) + Number(r.salary_sacrifice_cents);
    const paid = paidBy.get(r.id);
    const applied = paid ? amount : Math.min(left, amount);
    if (!paid) left -= applied;
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
      paidBy: paid ? { ...paid, late: paid.paymentDate > dueOn } : null,
    });
  }
  return out;
}
