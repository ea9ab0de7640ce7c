import { addDays } from '../clock.js';
import { BAS_COLUMNS, toBas, type BasRow } from '../domain/tax/bas.js';
import { basDueOn, frequencyOf } from '../domain/tax/figures.js';
import { superObligations } from '../domain/tax/super-due.js';
import { formatCents } from '../money.js';
import type { Queryable } from '../storage/types.js';
import { inWindow, type MeetingItem, type Window } from './window.js';

/**
 * The calendar's tax sources (meetings.list), computed with the very functions
 * books.taxObligations uses (toBas/basDueOn, superObligations) so the two never disagree on a date.
 * A due date lies after its period: at most ~150 days for a BAS (the December quarter is due 28
 * February) and ~120 days for quarterly super, so only rows that recent are read.
 */
const BAS_LOOKBACK_DAYS = 160;
const SUPER_LOOKBACK_DAYS = 130;
/** Rows a range can reach: a few BAS periods, a few months of pay runs; a bound all the same. */
const ROWS_MAX = 500;

const dollars = (cents: number) => formatCents(cents);

/** The month after `ym` (YYYY-MM) moved by `n` months, as YYYY-MM. */
function addMonths(ym: string, n: number): string {
  const [y, m] = ym.split('-').map(Number) as [number, number];
  const idx = y * 12 + (m - 1) + n;
  return `${Math.floor(idx / 12)}-${String((idx % 12) + 1).padStart(2, '0')}`;
}

function lastDayOf(ym: string): string {
  return addDays(`${addMonths(ym, 1)}-01`, -1);
}

/**
 * bas.due: each BAS on its due date with its status (a held or lodging BAS never reads as lodged)
 * and signed net amount; and, once the organisation has prepared a BAS, each later period of
 * the same frequency (calendar months or quarters) with no BAS yet, as `not_prepared`. Without a
 * first BAS the frequency is unknown, so nothing is projected (docs/decisions.md, "Hierarchy and
 * the calendar").
 */
export async function basDue(q: Queryable, w: Window): Promise<MeetingItem[]> {
  const [rows, latest] = await Promise.all([
    q.all<BasRow>(
      `SELECT ${BAS_COLUMNS} FROM bas_returns WHERE org_id = ? AND period_start >= ? AND period_start <= ?
       ORDER BY period_start, id LIMIT ${ROWS_MAX}`,
      [w.orgId, addDays(w.from, -BAS_LOOKBACK_DAYS), w.to],
    ),
    q.get<{ period_start: string; period_end: string }>(
      'SELECT period_start, period_end FROM bas_returns WHERE org_id = ? ORDER BY period_start DESC, period_end DESC LIMIT 1',
      [w.orgId],
    ),
  ]);
  const items: MeetingItem[] = rows.map((row) => {
    const b = toBas(row);
    const side = b.netCents >= 0 ? 'payable' : 'refundable';
    return {
      date: b.dueOn,
      kind: 'bas.due',
      id: b.id,
      subjectId: b.id,
      title: `BAS ${b.id} for ${b.periodStart} to ${b.periodEnd} due (${b.status}): ${dollars(Math.abs(b.netCents))} ${side}`,
      amountCents: b.netCents,
      status: b.status,
      ledgerId: b.ledgerId,
    };
  });
  if (latest) items.push(...unprepared(w, latest, rows));
  return inWindow(items, w);
}

/** The periods after the latest BAS, of its frequency, due in range and with no BAS over them. */
function unprepared(w: Window, latest: { period_start: string; period_end: string }, rows: readonly BasRow[]): MeetingItem[] {
  const months = frequencyOf(latest.period_start, latest.period_end) === 'month' ? 1 : 3;
  // Periods stay aligned with the latest one; start no earlier than a due date in range allows.
  const earliest = addDays(w.from, -BAS_LOOKBACK_DAYS).slice(0, 7);
  let start = addMonths(latest.period_end.slice(0, 7), 1);
  if (start < earliest) {
    const gap = (Number(earliest.slice(0, 4)) - Number(start.slice(0, 4))) * 12 + Number(earliest.slice(5)) - Number(start.slice(5));
    start = addMonths(start, Math.floor(gap / months) * months);
  }
  const out: MeetingItem[] = [];
  for (;;) {
    const periodStart = `${start}-01`;
    const periodEnd = lastDayOf(addMonths(start, months - 1));
    const dueOn = basDueOn(periodStart, periodEnd);
    if (dueOn > w.to) break;
    const covered = rows.some((r) => r.period_start <= periodEnd && r.period_end >= periodStart);
    if (dueOn >= w.from && !covered) {
      const ended = periodEnd < w.today ? 'prepare it with books.taxPrepare' : `prepare it with books.taxPrepare after ${periodEnd}`;
      out.push({
        date: dueOn,
        kind: 'bas.due',
        id: `unprepared_${periodStart}_${periodEnd}`,
        subjectId: null,
        title: `BAS for ${periodStart} to ${periodEnd} due (not prepared): ${ended}`,
        amountCents: null,
        status: 'not_prepared',
        ledgerId: null,
      });
    }
    start = addMonths(start, months);
  }
  return out;
}

/**
 * super.due: each signed pay run's super guarantee still outstanding, and the super carried in at
 * a conversion (its subject the conversion journal), on its due date (super-due.ts: Payday Super
 * from 1 July 2026, quarterly before). Payments to 2300 are applied
 * as at today or the end of the range, whichever is later, so a run paid in the range counts.
 */
export async function superDue(q: Queryable, w: Window): Promise<MeetingItem[]> {
  const asOf = w.to > w.today ? w.to : w.today;
  const runs = await superObligations(q, w.orgId, asOf, { from: addDays(w.from, -SUPER_LOOKBACK_DAYS), to: w.to }, ROWS_MAX);
  const items: MeetingItem[] = runs
    .filter((s) => s.outstandingCents > 0)
    .map((s) => ({
      date: s.dueOn,
      kind: 'super.due',
      id: s.id,
      subjectId: s.id,
      title: `${s.kind === 'super_carried_in' ? `Super guarantee carried in at the conversion on ${s.conversionDate}` : `Super guarantee of pay run ${s.id} (paid ${s.paymentDate})`} due${s.dueOn < w.today ? ' (overdue)' : ''}: ${dollars(s.outstandingCents)} outstanding of ${dollars(s.amountCents)}`,
      amountCents: s.outstandingCents,
      status: s.dueOn < w.today ? 'overdue' : 'due',
      ledgerId: null,
    }));
  return inWindow(items, w);
}
