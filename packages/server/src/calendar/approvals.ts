import { addDays, localDayStarts } from '../clock.js';
import type { Queryable } from '../storage/types.js';
import type { MeetingItem, Window } from './window.js';

interface ApprovalRow {
  id: string;
  action_class: string;
  subject_id: string;
  status: string;
  expires_at: string;
  ledger_id: string;
  local_date: string;
}

/**
 * approval.expiry (meetings.list): approvals still open — pending a human's
 * decision, or approved with the proof not yet used — on the organisation-local date their expiry
 * instant falls on. The local date of an instant cannot be computed in SQL on both engines, so the
 * query is given the instant each local day of the range begins (clock.ts localDayStarts) and
 * names the day with a CASE over them; rows are then keyed (local date, id) like every other source
 * and the index (org_id, status, expires_at) bounds the scan to the range.
 */
export async function approvalExpiries(q: Queryable, w: Window, now: string): Promise<MeetingItem[]> {
  // Before the cursor's date nothing is wanted; after it, the cursor decides as for other kinds.
  const first = w.cursor !== null && w.cursor.date > w.from ? w.cursor.date : w.from;
  if (first > w.to) return [];
  const starts = localDayStarts(first, addDays(w.to, 1), w.timeZone);
  const days = [...starts.entries()];
  const whens = days.slice(1).map(() => 'WHEN expires_at < ? THEN ?');
  const caseArgs = days.slice(1).flatMap(([, start], i) => [start, days[i]?.[0] ?? first]);
  const lower = starts.get(first) ?? '';
  const upper = starts.get(addDays(w.to, 1)) ?? '';
  const keyset = keysetOn(w);
  const rows = await q.all<ApprovalRow>(
    `SELECT id, action_class, subject_id, status, expires_at, ledger_id, local_date FROM (
       SELECT id, action_class, subject_id, status, expires_at, ledger_id,
         CASE ${whens.join(' ')} END AS local_date
       FROM approvals
       WHERE org_id = ? AND status IN ('pending', 'approved') AND used_at IS NULL AND expires_at >= ? AND expires_at < ?
     ) a WHERE ${keyset.sql} ORDER BY local_date, id LIMIT ${w.take}`,
    [...caseArgs, w.orgId, lower, upper, ...keyset.args],
  );
  return rows.map((r) => toItem(r, now));
}

function keysetOn(w: Window) {
  const c = w.cursor;
  if (c === null || c.kind < 'approval.expiry') return { sql: '1 = 1', args: [] as string[] };
  if (c.kind > 'approval.expiry') return { sql: 'local_date > ?', args: [c.date] };
  return { sql: '(local_date > ? OR (local_date = ? AND id > ?))', args: [c.date, c.date, c.id] };
}

function toItem(r: ApprovalRow, now: string): MeetingItem {
  const expired = r.expires_at < now;
  const state = r.status === 'pending' ? 'awaits a human decision' : 'is approved and its proof not yet used';
  const status = expired ? 'expired' : r.status;
  return {
    date: r.local_date,
    kind: 'approval.expiry',
    id: r.id,
    subjectId: r.subject_id,
    title: expired
      ? `Approval ${r.id} for ${r.action_class} on ${r.subject_id} expired at ${r.expires_at} unused`
      : `Approval ${r.id} for ${r.action_class} on ${r.subject_id} ${state}; it expires at ${r.expires_at}`,
    amountCents: null,
    status,
    ledgerId: r.ledger_id,
  };
}
