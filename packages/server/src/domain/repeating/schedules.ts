import {
  canonicalJson,
  events,
  REPEATING_ACTIVE_MAX,
  repeating,
  sha256Hex,
  templateProblems,
  type RepeatingAction,
  type RepeatingFrequency,
  type RepeatingKind,
} from '@finance-desk/protocol';
import type { z } from 'zod';
import { addDays } from '../../clock.js';
import { conflict, DomainError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ReadContext } from '../../binding.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { dueDate, type Cadence } from './dates.js';

/**
 * Repeating invoices and bills: the schedules (books.repeatingSet, books.repeating). The sweep
 * that makes their documents is sweep.ts.
 */

type Status = 'active' | 'paused' | 'ended';

export interface ScheduleRow {
  id: string;
  kind: RepeatingKind;
  action: RepeatingAction;
  template: string;
  frequency: RepeatingFrequency;
  day_of_month: number | null;
  start_on: string;
  end_on: string | null;
  run_count: number | null;
  status: Status;
  next_on: string | null;
  runs: number;
  last_due_on: string | null;
  last_document_id: string | null;
  last_error: string | null;
  last_error_on: string | null;
  last_error_at: string | null;
  created_by: string;
  created_at: string;
  ledger_id: string;
}

export const SCHEDULE_COLUMNS =
  'id, kind, action, template, frequency, day_of_month, start_on, end_on, run_count, status, next_on, runs, last_due_on, ' +
  'last_document_id, last_error, last_error_on, last_error_at, created_by, created_at, ledger_id';

/** How far back a new schedule may start: its catch-up is bounded (a year of weekly runs at most). */
const START_BACK_DAYS_MAX = 366;

export const cadenceOf = (row: ScheduleRow): Cadence => ({
  frequency: row.frequency,
  dayOfMonth: row.day_of_month === null ? null : Number(row.day_of_month),
  startOn: row.start_on,
  endOn: row.end_on,
  count: row.run_count === null ? null : Number(row.run_count),
});

export function toSchedule(row: ScheduleRow) {
  return {
    id: row.id,
    kind: row.kind,
    action: row.action,
    template: JSON.parse(row.template) as Record<string, unknown>,
    frequency: row.frequency,
    dayOfMonth: row.day_of_month === null ? null : Number(row.day_of_month),
    startDate: row.start_on,
    endDate: row.end_on,
    count: row.run_count === null ? null : Number(row.run_count),
    status: row.status,
    nextDue: row.next_on,
    runs: Number(row.runs),
    lastRun:
      row.last_due_on !== null && row.last_document_id !== null ? { dueOn: row.last_due_on, documentId: row.last_document_id } : null,
    lastError:
      row.last_error !== null && row.last_error_on !== null && row.last_error_at !== null
        ? { dueOn: row.last_error_on, message: row.last_error, at: row.last_error_at }
        : null,
    createdBy: row.created_by,
    ledgerId: row.ledger_id,
  };
}

export async function loadSchedule(q: Queryable, orgId: string, id: string, forUpdate = ''): Promise<ScheduleRow> {
  const row = await q.get<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM repeating_schedules WHERE org_id = ? AND id = ?${forUpdate}`, [
    orgId,
    id,
  ]);
  if (!row) throw notFound('repeating schedule', id);
  return row;
}

type SetParams = z.infer<typeof repeating.repeatingSet.params>;

const templateText = (template: Record<string, unknown>) => canonicalJson(template);

/** The payee the event names: the template's name, else its contact's. */
async function payeeOf(uow: Uow, template: Record<string, unknown>): Promise<string> {
  if (typeof template.contactId === 'string') {
    const c = await uow.tx.get<{ name: string }>('SELECT name FROM contacts WHERE org_id = ? AND id = ?', [uow.orgId, template.contactId]);
    if (!c)
      throw new DomainError('NOT_FOUND', `template.contactId: contact ${template.contactId} not found`, { field: 'template.contactId' });
    if (typeof template.payeeName !== 'string') return c.name;
  }
  return String(template.payeeName);
}

function checkTemplate(kind: RepeatingKind, template: unknown): void {
  const problem = templateProblems(kind, template);
  if (problem !== null) throw new DomainError('BAD_REQUEST', problem, { field: 'template' });
}

async function emitSet(uow: Uow, row: ScheduleRow, changed: readonly ('created' | 'template' | 'endDate' | 'status')[]) {
  const template = JSON.parse(row.template) as Record<string, unknown>;
  return uow.emit(events.repeatingSet, {
    entityId: row.id,
    payload: {
      kind: row.kind,
      action: row.action,
      frequency: row.frequency,
      dayOfMonth: row.day_of_month === null ? null : Number(row.day_of_month),
      startDate: row.start_on,
      endDate: row.end_on,
      count: row.run_count === null ? null : Number(row.run_count),
      status: row.status,
      payee: await payeeOf(uow, template),
      templateSha256: sha256Hex(row.template),
      changed: [...changed],
    },
  });
}

/**
 * The next due date when a schedule is resumed: dates missed while it was paused are skipped (a
 * pause means "not those"), so it continues from the first date on or after today.
 */
function resumeIndex(row: ScheduleRow, today: string): number {
  const cadence = cadenceOf(row);
  let index = Number(row.runs);
  for (let skipped = 0; skipped < 2000; skipped += 1) {
    const date = dueDate(cadence, index);
    if (date === null || date >= today) break;
    index += 1;
  }
  return index;
}

/** books.repeatingSet: a new schedule, or a change to one (template, endDate, status). */
export async function repeatingSet(p: SetParams, uow: Uow) {
  return p.id === undefined ? create(p, uow) : change(p, p.id, uow);
}

async function create(p: SetParams, uow: Uow) {
  // The schema requires these without id.
  const { kind, template, frequency, startDate, action } = p as Required<
    Pick<SetParams, 'kind' | 'template' | 'frequency' | 'startDate' | 'action'>
  >;
  checkTemplate(kind, template);
  if (startDate < addDays(uow.today, -START_BACK_DAYS_MAX)) {
    throw new DomainError('BAD_REQUEST', `startDate: must be no more than ${START_BACK_DAYS_MAX} days before today (${uow.today})`, {
      field: 'startDate',
    });
  }
  const text = templateText(template);
  const cadence: Cadence = {
    frequency,
    dayOfMonth: frequency === 'weekly' || frequency === 'fortnightly' ? null : (p.dayOfMonth ?? Number(startDate.slice(8, 10))),
    startOn: startDate,
    endOn: p.endDate ?? null,
    count: p.count ?? null,
  };
  // The same schedule again (not ended) is a no-op answering it: a retried set never repeats rent twice.
  const same = await uow.tx.get<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM repeating_schedules WHERE org_id = ? AND status <> 'ended' AND kind = ? AND action = ? AND template = ?
       AND frequency = ? AND start_on = ? AND COALESCE(day_of_month, 0) = ? AND COALESCE(end_on, '') = ? AND COALESCE(run_count, 0) = ?
     LIMIT 1`,
    [uow.orgId, kind, action, text, frequency, startDate, cadence.dayOfMonth ?? 0, cadence.endOn ?? '', cadence.count ?? 0],
  );
  if (same) return { ...toSchedule(same), noop: true };
  const open = await uow.tx.get<{ n: number | string }>(
    "SELECT COUNT(*) AS n FROM repeating_schedules WHERE org_id = ? AND status <> 'ended'",
    [uow.orgId],
  );
  if (Number(open?.n ?? 0) >= REPEATING_ACTIVE_MAX) {
    throw conflict(
      `the organisation has ${REPEATING_ACTIVE_MAX} active or paused repeating schedules, the most it may hold: end one first`,
    );
  }
  const next = dueDate(cadence, 0);
  if (next === null) throw new DomainError('BAD_REQUEST', `endDate: the schedule has no date on or before it`, { field: 'endDate' });
  const row: ScheduleRow = {
    id: newId('rpt'),
    kind,
    action,
    template: text,
    frequency,
    day_of_month: cadence.dayOfMonth,
    start_on: startDate,
    end_on: cadence.endOn,
    run_count: cadence.count,
    status: 'active',
    next_on: next,
    runs: 0,
    last_due_on: null,
    last_document_id: null,
    last_error: null,
    last_error_on: null,
    last_error_at: null,
    created_by: uow.actor,
    created_at: uow.now,
    ledger_id: '',
  };
  const event = await emitSet(uow, row, ['created']);
  row.ledger_id = event.ledgerId;
  await uow.tx.run(
    `INSERT INTO repeating_schedules (org_id, ${SCHEDULE_COLUMNS}) VALUES (?, ${SCHEDULE_COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})`,
    [
      uow.orgId,
      row.id,
      row.kind,
      row.action,
      row.template,
      row.frequency,
      row.day_of_month,
      row.start_on,
      row.end_on,
      row.run_count,
      row.status,
      row.next_on,
      row.runs,
      null,
      null,
      null,
      null,
      null,
      row.created_by,
      row.created_at,
      row.ledger_id,
    ],
  );
  return toSchedule(row);
}

async function change(p: SetParams, id: string, uow: Uow) {
  const row = await loadSchedule(uow.tx, uow.orgId, id, uow.caps.forUpdate);
  const changed: ('template' | 'endDate' | 'status')[] = [];
  const next: ScheduleRow = { ...row };
  if (p.template !== undefined) {
    checkTemplate(row.kind, p.template);
    const text = templateText(p.template);
    if (text !== row.template) {
      next.template = text;
      changed.push('template');
    }
  }
  if (p.endDate !== undefined && p.endDate !== row.end_on) {
    if (p.endDate !== null && row.run_count !== null) {
      throw new DomainError('BAD_REQUEST', 'endDate: the schedule ends by count; give endDate or count, not both', { field: 'endDate' });
    }
    if (p.endDate !== null && p.endDate < row.start_on) {
      throw new DomainError('BAD_REQUEST', `endDate: must not be before startDate ${row.start_on}`, { field: 'endDate' });
    }
    next.end_on = p.endDate;
    changed.push('endDate');
  }
  let index = Number(row.runs);
  if (p.status !== undefined && p.status !== row.status) {
    if (p.status === 'active') index = resumeIndex(row, uow.today);
    next.status = p.status;
    changed.push('status');
  }
  if (changed.length === 0) return { ...toSchedule(row), noop: true };
  if (row.status === 'ended') throw conflict(`repeating schedule ${row.id} has ended; set a new one`);
  next.next_on = next.status === 'ended' ? null : dueDate(cadenceOf(next), index);
  const event = await emitSet(uow, next, changed);
  next.ledger_id = event.ledgerId;
  // Resuming skips the dates missed while paused: the index moves past them (runs counts documents made).
  await uow.tx.run(
    `UPDATE repeating_schedules SET template = ?, end_on = ?, status = ?, next_on = ?, runs = ?, ledger_id = ? WHERE org_id = ? AND id = ?`,
    [next.template, next.end_on, next.status, next.next_on, index, next.ledger_id, uow.orgId, row.id],
  );
  return toSchedule({ ...next, runs: index });
}

/** books.repeating: the organisation's schedules, newest first. */
export async function repeatingList(p: z.infer<typeof repeating.repeating.params>, ctx: ReadContext) {
  const limit = p.limit ?? 50;
  const where = ['org_id = ?'];
  const args: (string | number)[] = [ctx.principal.orgId];
  if (p.status !== undefined) {
    where.push('status = ?');
    args.push(p.status);
  }
  if (p.kind !== undefined) {
    where.push('kind = ?');
    args.push(p.kind);
  }
  if (p.cursor !== undefined) {
    where.push('id < ?');
    args.push(p.cursor);
  }
  const rows = await ctx.db.reader.all<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM repeating_schedules WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${limit + 1}`,
    args,
  );
  const page = rows.slice(0, limit);
  return { schedules: page.map(toSchedule), nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}
