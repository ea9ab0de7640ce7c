import type { MeetingKind } from '@finance-desk/protocol';

/**
 * What every source of `meetings.list` is asked for: the organisation, the
 * date range, the position after which to start (the cursor), and how many items it may return
 * at most (`take` = limit + 1: one beyond the page tells the caller whether there is more).
 */
export interface MeetingItem {
  readonly date: string;
  readonly kind: MeetingKind;
  /** Unique within its kind; the third part of the sort key and of the cursor. */
  readonly id: string;
  /** The row an agent acts on (invoice, bill, approval's subject, BAS, pay run), when there is one. */
  readonly subjectId: string | null;
  readonly title: string;
  readonly amountCents: number | null;
  readonly status: string;
  readonly ledgerId: string | null;
}

export interface Position {
  readonly date: string;
  readonly kind: MeetingKind;
  readonly id: string;
}

export interface Window {
  readonly orgId: string;
  readonly from: string;
  readonly to: string;
  readonly today: string;
  readonly timeZone: string;
  readonly cursor: Position | null;
  readonly take: number;
}

/** The sort order of items (date, kind, id), by code unit as the databases compare ids. */
export function compareItems(a: Position, b: Position): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/** Items a source computed in TypeScript, cut to the window's range, cursor and size. */
export function inWindow(items: readonly MeetingItem[], w: Window): MeetingItem[] {
  return items
    .filter((i) => i.date >= w.from && i.date <= w.to && (w.cursor === null || compareItems(i, w.cursor) > 0))
    .sort(compareItems)
    .slice(0, w.take);
}

/**
 * The SQL condition for a source of one kind whose rows are dated by `dateCol` and keyed by
 * `idCol`: inside the range and after the cursor. Against a cursor of an earlier kind, the
 * cursor's date is still open to this kind; of a later kind, it is not; of the same kind, only
 * ids after the cursor's on that date. Written so that the date column bounds an index range.
 */
export function afterCursor(w: Window, kind: MeetingKind, dateCol: string, idCol: string) {
  const where = [`${dateCol} >= ?`, `${dateCol} <= ?`];
  const args: string[] = [w.from, w.to];
  const c = w.cursor;
  if (c !== null) {
    if (kind < c.kind) {
      where.push(`${dateCol} > ?`);
      args.push(c.date);
    } else if (kind > c.kind) {
      where.push(`${dateCol} >= ?`);
      args.push(c.date);
    } else {
      where.push(`${dateCol} >= ?`, `(${dateCol} > ? OR ${idCol} > ?)`);
      args.push(c.date, c.date, c.id);
    }
  }
  return { sql: where.join(' AND '), args };
}
