import { isCalendarDate, MEETING_KINDS, MEETINGS_RANGE_DAYS_MAX, type MeetingKind } from '@finance-desk/protocol';
import { addDays, clockOf, daysBetween, localDate, orgTimeZone } from '../clock.js';
import { badRequest } from '../errors.js';
import type { Database, Queryable } from '../storage/types.js';
import { approvalExpiries } from './approvals.js';
import { billsDue, invoicesDue, promises } from './documents.js';
import { basDue, superDue } from './obligations.js';
import { paydays } from './paydays.js';
import { compareItems, type MeetingItem, type Position, type Window } from './window.js';

/**
 * GET meetings.list: the desk's calendar. Each kind of item has one source
 * that returns at most limit + 1 of its items after the cursor, in (date, kind, id) order, read
 * through an index (migration 28) or computed from a few rows; the sources are merged here and
 * the first `limit` kept. Any item of the true page is among the first limit + 1 of its own
 * source, so the page is exact, and a cursor (the last item's key) resumes it exactly: stable
 * paging over the union without an offset.
 */
export interface MeetingsQuery {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly kind?: MeetingKind | undefined;
  readonly cursor?: string | undefined;
  readonly limit: number;
}

type Source = (q: Queryable, w: Window, now: string) => Promise<MeetingItem[]>;

const SOURCES: Readonly<Record<MeetingKind, Source>> = {
  'approval.expiry': approvalExpiries,
  'bas.due': basDue,
  'bill.due': billsDue,
  'invoice.due': invoicesDue,
  payday: paydays,
  promise: promises,
  'super.due': superDue,
};

/** The cursor is the last item's key, base64url of a JSON array, opaque to callers. */
export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.date, p.kind, p.id]), 'utf8').toString('base64url');
}

export function decodeCursor(text: string): Position {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const [date, kind, id] = Array.isArray(parsed) && parsed.length === 3 ? (parsed as unknown[]) : [];
  const valid =
    typeof date === 'string' &&
    isCalendarDate(date) &&
    typeof kind === 'string' &&
    (MEETING_KINDS as readonly string[]).includes(kind) &&
    typeof id === 'string' &&
    /^[A-Za-z0-9_-]{1,100}$/.test(id);
  if (!valid) throw badRequest('cursor: must be the nextCursor of a previous page of meetings.list');
  return { date, kind: kind as MeetingKind, id };
}

/**
 * Dates the calendar reasons about: its look-backs (a BAS due ~150 days after its period) and
 * look-aheads stay four-digit years, where date strings compare as dates.
 */
const EARLIEST = '1970-01-01';
const LATEST = '9999-06-30';

/** from defaults to the organisation's today, to to from + 13 days; at most 92 days apart. */
function range(q: MeetingsQuery, today: string) {
  for (const [field, value] of [
    ['from', q.from],
    ['to', q.to],
  ] as const) {
    if (value !== undefined && (value < EARLIEST || value > LATEST)) {
      throw badRequest(`${field}: must be from ${EARLIEST} to ${LATEST}`);
    }
  }
  const from = q.from ?? today;
  const to = q.to ?? addDays(from, 13);
  if (to < from) throw badRequest(`to: must be on or after from (${from})`);
  if (daysBetween(from, to) > MEETINGS_RANGE_DAYS_MAX) {
    throw badRequest(
      `to: must be at most ${MEETINGS_RANGE_DAYS_MAX} days after from (${from}), that is on or before ${addDays(from, MEETINGS_RANGE_DAYS_MAX)}`,
    );
  }
  return { from, to };
}

export async function meetingsList(db: Database, orgId: string, q: MeetingsQuery) {
  const now = clockOf(db)();
  const timeZone = await orgTimeZone(db.reader, orgId);
  const today = localDate(now, timeZone);
  const { from, to } = range(q, today);
  const cursor = q.cursor === undefined ? null : decodeCursor(q.cursor);
  const w: Window = { orgId, from, to, today, timeZone, cursor, take: q.limit + 1 };
  const kinds = q.kind === undefined ? MEETING_KINDS : [q.kind];
  const lists = await Promise.all(kinds.map((k) => SOURCES[k](db.reader, w, now)));
  const merged = lists
    .flat()
    .filter((i) => cursor === null || compareItems(i, cursor) > 0)
    .sort(compareItems);
  const items = merged.slice(0, q.limit);
  const last = items.at(-1);
  return {
    orgId,
    timeZone,
    today,
    from,
    to,
    items,
    nextCursor: merged.length > q.limit && last ? encodeCursor(last) : null,
  };
}
