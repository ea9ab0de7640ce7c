import { books } from '@finance-desk/protocol';
import { addDays, clockOf, isoDate, orgToday } from '../../clock.js';
import { DomainError, conflict } from '../../errors.js';
import type { Database } from '../../storage/types.js';
import { inUnitOfWork, type Uow, type WriteResult } from '../../write-path.js';
import { billApprove, billCapture } from '../payables/bills.js';
import { invoiceDraft, invoiceSend } from '../receivables/invoices.js';
import { dueDate } from './dates.js';
import { cadenceOf, loadSchedule, type ScheduleRow } from './schedules.js';

/**
 * The repeating sweep: for each active schedule, every document due as of the organisation's
 * today, oldest first, one unit of work each (the document's own event, written by the same
 * domain function as the API's), recorded as an act of the actor that set the schedule. The unit
 * re-reads the schedule under the organisation's lock and makes the document only if its next due
 * date is still the one due, then moves it on; repeating_runs' primary key (schedule, date) is the
 * backstop. So sweeps running at once, in one process or several, make one document per date.
 */

/** Due dates one schedule may catch up in one sweep (a year of weekly runs; the rest next sweep). */
const CATCH_UP_MAX = 60;
/** Schedules one sweep looks at; the rest wait for the next sweep. */
const SCHEDULES_PER_SWEEP_MAX = 1000;

export interface RepeatingRun {
  readonly scheduleId: string;
  readonly dueOn: string;
  readonly kind: 'invoice' | 'bill';
  readonly documentId: string;
}

export interface RepeatingFailure {
  readonly scheduleId: string;
  readonly dueOn: string;
  readonly message: string;
}

export interface SweepOutcome {
  readonly created: RepeatingRun[];
  readonly failed: RepeatingFailure[];
}

/** A failure as recorded on the schedule: a refusal's own words; anything else is logged, not shown. */
function failureText(error: unknown): string {
  return error instanceof DomainError ? `${error.code}: ${error.message}` : 'internal error (see the server log)';
}

type Made =
  { readonly noop: true } | { readonly noop?: undefined; readonly documentId: string; readonly held: boolean; readonly dueOn: string };

/**
 * A schedule is its creator's standing instruction, so it lapses with the creator's authority: a
 * revoked agent (a named agent's keys act as the agent, so rotating one of them does not end it),
 * a revoked key of no agent, or a person no longer in the organisation makes nothing more. Anyone
 * else with the right may set it again.
 */
async function creatorStillActs(uow: Uow, actor: string): Promise<boolean> {
  const table = actor.startsWith('key_') ? 'credentials' : actor.startsWith('agt_') ? 'agents' : actor.startsWith('usr_') ? 'users' : null;
  if (table === null) return true;
  const revoked = table === 'users' ? 'NULL' : 'revoked_at';
  const row = await uow.tx.get<{ revoked: string | null }>(`SELECT ${revoked} AS revoked FROM ${table} WHERE org_id = ? AND id = ?`, [
    uow.orgId,
    actor,
  ]);
  return row !== undefined && row.revoked === null;
}

/** One due date of one schedule, in one unit of work: the document and the schedule moved on. */
async function makeOne(uow: Uow, scheduleId: string, today: string): Promise<Made> {
  const row = await loadSchedule(uow.tx, uow.orgId, scheduleId, uow.caps.forUpdate);
  const dueOn = row.next_on;
  // Another sweep got here first, or the schedule was paused or ended meanwhile.
  if (row.status !== 'active' || dueOn === null || dueOn > today) return { noop: true };
  if (!(await creatorStillActs(uow, row.created_by))) {
    throw conflict(
      `${row.created_by}, which set this schedule, has been revoked or removed: its standing instruction lapsed; set the schedule again and end this one`,
    );
  }
  const template = JSON.parse(row.template) as Record<string, unknown>;
  const origin = { repeatingId: row.id };
  const doc =
    row.kind === 'invoice'
      ? await invoiceDraft(parseTemplate(books.invoiceDraft.params, template, dueOn), uow, origin)
      : await billCapture(parseTemplate(books.billCapture.params, template, dueOn), uow, origin);
  const held = 'heldReason' in doc && doc.heldReason !== null;
  await uow.tx.run(`UPDATE ${row.kind === 'invoice' ? 'invoices' : 'bills'} SET repeating_id = ? WHERE org_id = ? AND id = ?`, [
    row.id,
    uow.orgId,
    doc.id,
  ]);
  await uow.tx.run('INSERT INTO repeating_runs (org_id, schedule_id, due_on, document_id, ledger_id) VALUES (?, ?, ?, ?, ?)', [
    uow.orgId,
    row.id,
    dueOn,
    doc.id,
    doc.ledgerId,
  ]);
  const index = Number(row.runs) + 1;
  const next = dueDate(cadenceOf(row), index);
  await uow.tx.run(
    `UPDATE repeating_schedules SET runs = ?, next_on = ?, status = ?, last_due_on = ?, last_document_id = ?,
       last_error = NULL, last_error_on = NULL, last_error_at = NULL WHERE org_id = ? AND id = ?`,
    [index, next, next === null ? 'ended' : 'active', dueOn, doc.id, uow.orgId, row.id],
  );
  return { documentId: doc.id, held, dueOn };
}

/** The template as the create method's params, dated the due date (the schema applies its defaults). */
function parseTemplate<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  template: object,
  dueOn: string,
): T {
  const parsed = schema.safeParse({ ...template, issueDate: dueOn });
  if (!parsed.success) throw new DomainError('BAD_REQUEST', 'template: no longer valid params (set a new template)', { field: 'template' });
  return parsed.data;
}

async function recordFailure(db: Database, orgId: string, scheduleId: string, dueOn: string, message: string, at: string): Promise<void> {
  // Operational state, not the books: no event (the run made nothing).
  await db.write(async (tx) => {
    await tx.run('UPDATE repeating_schedules SET last_error = ?, last_error_on = ?, last_error_at = ? WHERE org_id = ? AND id = ?', [
      message.slice(0, 1000),
      dueOn,
      at,
      orgId,
      scheduleId,
    ]);
  });
}

/** Every date of one schedule due by `today`; stops at its first failure (recorded on it). */
async function runSchedule(
  db: Database,
  orgId: string,
  row: ScheduleRow,
  today: string,
  out: SweepOutcome,
  log: (error: unknown) => void,
): Promise<void> {
  for (let n = 0; n < CATCH_UP_MAX; n += 1) {
    const dueOn = (await loadSchedule(db.reader, orgId, row.id)).next_on ?? today;
    let made: Made;
    try {
      made = await inUnitOfWork(db, orgId, row.created_by, (uow) => makeOne(uow, row.id, today));
    } catch (error) {
      if (!(error instanceof DomainError)) log(error);
      const message = failureText(error);
      out.failed.push({ scheduleId: row.id, dueOn, message });
      await recordFailure(db, orgId, row.id, dueOn, message, clockOf(db)());
      return;
    }
    if (made.noop) return;
    out.created.push({ scheduleId: row.id, dueOn: made.dueOn, kind: row.kind, documentId: made.documentId });
    // The second act of send / approve: its own unit and event, as the API's second call would be.
    // A bill the bill-approval rule held waits for a human, as a captured one does.
    const follow: ((uow: Uow) => Promise<WriteResult>) | null =
      row.action === 'send'
        ? (uow: Uow) => invoiceSend({ id: made.documentId }, uow)
        : row.action === 'approve' && !made.held
          ? (uow: Uow) => billApprove.run({ id: made.documentId }, uow)
          : null;
    if (follow) {
      try {
        await inUnitOfWork(db, orgId, row.created_by, follow);
      } catch (error) {
        if (!(error instanceof DomainError)) log(error);
        const message = failureText(error);
        out.failed.push({ scheduleId: row.id, dueOn: made.dueOn, message });
        await recordFailure(db, orgId, row.id, made.dueOn, message, clockOf(db)());
        return;
      }
    }
  }
}

/**
 * Make every document due as of each organisation's today (or one organisation's). Used by the
 * server's sweep, `finance-desk repeating run` and the tests. A failing schedule is recorded and
 * the others go on.
 */
export async function runRepeating(db: Database, options: { orgId?: string; log?: (error: unknown) => void } = {}): Promise<SweepOutcome> {
  const log = options.log ?? (() => undefined);
  // No organisation's today is later than the UTC date's next day (offsets are at most +14 h).
  const latest = addDays(isoDate(clockOf(db)()), 1);
  const rows = await db.reader.all<ScheduleRow & { org_id: string }>(
    `SELECT org_id, ${SCHEDULE_LIST} FROM repeating_schedules WHERE status = 'active' AND next_on IS NOT NULL AND next_on <= ?
       ${options.orgId !== undefined ? 'AND org_id = ?' : ''} ORDER BY org_id, next_on, id LIMIT ${SCHEDULES_PER_SWEEP_MAX}`,
    options.orgId !== undefined ? [latest, options.orgId] : [latest],
  );
  const out: SweepOutcome = { created: [], failed: [] };
  const todays = new Map<string, string>();
  for (const row of rows) {
    let today = todays.get(row.org_id);
    if (today === undefined) {
      today = await orgToday(db, row.org_id);
      todays.set(row.org_id, today);
    }
    if (row.next_on === null || row.next_on > today) continue;
    await runSchedule(db, row.org_id, row, today, out, log);
  }
  return out;
}

const SCHEDULE_LIST = 'id, kind, action, template, frequency, day_of_month, start_on, end_on, run_count, status, next_on, runs, created_by';
