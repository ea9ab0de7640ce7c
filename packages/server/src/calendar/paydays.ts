import { addDays, daysBetween } from '../clock.js';
import type { Queryable } from '../storage/types.js';
import { payRuns } from './documents.js';
import { inWindow, type MeetingItem, type Window } from './window.js';

/**
 * payday (meetings.list). The data model has no pay schedule: an employee has a
 * pay frequency, and a pay run has a payment date. So a pay day is (1) a drafted or signed pay run
 * on its payment date, and (2) for each frequency that active employees are paid on, the dates
 * after the latest drafted or signed run on it, one period apart (weekly 7 days, fortnightly 14,
 * monthly the same day of the month, or its last day), marked `projected`. A frequency with no
 * run yet has no anchor, so nothing is projected for it (docs/decisions.md, "Hierarchy and the
 * calendar").
 */
const STEP_DAYS: Readonly<Record<string, number>> = { weekly: 7, fortnightly: 14 };

function addMonthsClamped(date: string, n: number, day: number): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  const idx = y * 12 + (m - 1) + n;
  const ym = `${Math.floor(idx / 12)}-${String((idx % 12) + 1).padStart(2, '0')}`;
  const last = Number(addDays(`${addDays(`${ym}-28`, 4).slice(0, 7)}-01`, -1).slice(8));
  return `${ym}-${String(Math.min(day, last)).padStart(2, '0')}`;
}

/** The pay dates after `anchor` from `from` to `to`, at most `max` of them. */
export function nextPayDates(anchor: string, frequency: string, from: string, to: string, max: number): string[] {
  const out: string[] = [];
  const step = STEP_DAYS[frequency];
  if (step !== undefined) {
    // Skip whole periods before `from` at once: a stale anchor costs no loop.
    let k = Math.max(1, Math.ceil(daysBetween(anchor, from) / step));
    for (let d = addDays(anchor, k * step); d <= to && out.length < max; k += 1, d = addDays(anchor, k * step)) out.push(d);
    return out;
  }
  const day = Number(anchor.slice(8));
  const months = (Number(from.slice(0, 4)) - Number(anchor.slice(0, 4))) * 12 + Number(from.slice(5, 7)) - Number(anchor.slice(5, 7));
  for (let k = Math.max(1, months); out.length < max; k += 1) {
    const d = addMonthsClamped(anchor, k, day);
    if (d > to) break;
    if (d >= from) out.push(d);
  }
  return out;
}

async function projected(q: Queryable, w: Window): Promise<MeetingItem[]> {
  const frequencies = await q.all<{ pay_frequency: string; n: number | string }>(
    "SELECT pay_frequency, COUNT(*) AS n FROM employees WHERE org_id = ? AND status = 'active' GROUP BY pay_frequency",
    [w.orgId],
  );
  const items: MeetingItem[] = [];
  for (const f of frequencies) {
    const latest = await q.get<{ id: string; payment_date: string }>(
      `SELECT id, payment_date FROM pay_runs WHERE org_id = ? AND pay_frequency = ? AND status IN ('draft', 'signed')
       ORDER BY payment_date DESC, id DESC LIMIT 1`,
      [w.orgId, f.pay_frequency],
    );
    if (!latest) continue;
    const n = Number(f.n);
    for (const date of nextPayDates(latest.payment_date, f.pay_frequency, w.from, w.to, w.take)) {
      items.push({
        date,
        kind: 'payday',
        id: `projected_${f.pay_frequency}_${date}`,
        subjectId: null,
        title: `Expected ${f.pay_frequency} pay day for ${n} active employee${n === 1 ? '' : 's'}: no pay run yet (projected from pay run ${latest.id} paid ${latest.payment_date}; books.payrollDraft)`,
        amountCents: null,
        status: 'projected',
        ledgerId: null,
      });
    }
  }
  return inWindow(items, w);
}

export async function paydays(q: Queryable, w: Window): Promise<MeetingItem[]> {
  const [runs, expected] = await Promise.all([payRuns(q, w), projected(q, w)]);
  return [...runs, ...expected];
}
