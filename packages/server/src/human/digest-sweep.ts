import { events } from '@finance-desk/protocol';
import { DEFAULT_TIME_ZONE, addDays, clockOf, startOfLocalDay } from '../clock.js';
import { enqueueEmail } from '../adapters/outbox.js';
import { publicUrlSetting } from '../governance/approval-mail.js';
import { verifyIncrementally } from '../ledger/verify.js';
import type { Database } from '../storage/types.js';
import { DomainError } from '../errors.js';
import { inUnitOfWork } from '../write-path.js';
import {
  digestFigures,
  digestHtml,
  digestLinks,
  digestSubject,
  digestText,
  orgLocalNow,
  reportedWeek,
  weekdayOf,
  type DigestFigures,
} from './digest.js';

/**
 * The weekly digest's sweep. From 07:00 on Monday in each organisation's time zone, an
 * organisation whose last week has no digest yet gets one: the figures read once, then in one
 * unit of work a `digests` row (its primary key, organisation and week, is what stops a second
 * sweep, here or in another process, sending the week again), the org.digest.sent event, and one
 * email per recipient in the outbox, delivered after commit like every other email. A server down
 * on Monday sends it when it is back, within the week; a week with nobody to send to is skipped
 * without a trace.
 */

/** The local hour on Monday from which a week's digest is due. */
export const DIGEST_HOUR = 7;
/** Organisations read per page while looking for due digests. */
const ORGS_PAGE = 500;
/** Digests one sweep sends at most; the rest wait for the next sweep. */
const SENDS_PER_SWEEP_MAX = 1000;
/** Recipients of one organisation's digest at most (an organisation has a handful of people). */
const RECIPIENTS_MAX = 200;

export interface DigestSent {
  readonly orgId: string;
  readonly weekFrom: string;
  readonly recipients: number;
}

interface OrgRow {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly time_zone: string | null;
  readonly created_at: string;
}

/** The week due now for this organisation, or null (too early on Monday, or it did not exist then). */
function dueWeek(org: OrgRow, now: string) {
  const timeZone = org.time_zone ?? DEFAULT_TIME_ZONE;
  const local = orgLocalNow(now, timeZone);
  const monday = weekdayOf(local.date) === 0;
  if (monday && local.hour < DIGEST_HOUR) return null;
  const week = reportedWeek(local.date);
  // An organisation created after the week ended has nothing to report for it.
  if (org.created_at >= startOfLocalDay(addDays(week.to, 1), timeZone)) return null;
  return { week, today: local.date, timeZone };
}

async function sendOne(db: Database, org: OrgRow, now: string): Promise<DigestSent | null> {
  const due = dueWeek(org, now);
  if (!due) return null;
  const q = db.reader;
  if (await q.get('SELECT 1 AS one FROM digests WHERE org_id = ? AND week_from = ?', [org.id, due.week.from])) return null;
  const recipients = await q.all<{ id: string; email: string; role: string }>(
    `SELECT id, email, role FROM users WHERE org_id = ? AND (weekly_digest = 'on' OR (weekly_digest IS NULL AND role = 'owner'))
      ORDER BY email LIMIT ${RECIPIENTS_MAX}`,
    [org.id],
  );
  if (recipients.length === 0) return null;
  const check = await verifyIncrementally(db, org.id);
  const previous = await q.get<{ head_seq: number | string }>(
    'SELECT head_seq FROM digests WHERE org_id = ? ORDER BY week_from DESC LIMIT 1',
    [org.id],
  );
  const figures: DigestFigures = await digestFigures(
    db,
    { id: org.id, slug: org.slug, name: org.name, timeZone: due.timeZone },
    due.today,
    Number(previous?.head_seq ?? 0),
    { verified: check.verdict.ok, headSeq: check.head.seq },
  );
  const links = digestLinks(publicUrlSetting());
  const sent = await inUnitOfWork(db, org.id, '', async (uow) => {
    const claimed = await uow.tx.run(
      `INSERT INTO digests (org_id, week_from, week_to, head_seq, recipients, sent_at, ledger_id) VALUES (?, ?, ?, ?, ?, ?, '')
       ON CONFLICT (org_id, week_from) DO NOTHING`,
      [uow.orgId, figures.week.from, figures.week.to, figures.chain.headSeq, recipients.length, uow.now],
    );
    // Another sweep sent this week meanwhile.
    if (claimed.changes === 0) return { noop: true as const };
    const event = await uow.emit(events.digestSent, {
      entityId: `${uow.orgId}:${figures.week.from}`,
      payload: {
        weekFrom: figures.week.from,
        weekTo: figures.week.to,
        recipientIds: recipients.map((r) => r.id),
        headSeq: figures.chain.headSeq,
        agentActs: figures.agentActsTotal,
        approvalsWaiting: figures.waiting.approvalsTotal,
        overdueInvoices: figures.overdue.invoices.count,
        overdueBills: figures.overdue.bills.count,
        cashCents: figures.cash.cents,
        chainVerified: figures.chain.verified,
      },
    });
    await uow.tx.run('UPDATE digests SET ledger_id = ? WHERE org_id = ? AND week_from = ?', [event.ledgerId, uow.orgId, figures.week.from]);
    for (const r of recipients) {
      await enqueueEmail(uow.tx, uow.orgId, uow.now, {
        to: r.email,
        subject: digestSubject(figures),
        text: digestText(figures, links, r),
        html: digestHtml(figures, links, r),
      });
    }
    return { sent: true as const };
  });
  return 'noop' in sent ? null : { orgId: org.id, weekFrom: figures.week.from, recipients: recipients.length };
}

/**
 * Send every digest that is due (or one organisation's). Used by the server's sweep,
 * `finance-desk digest run` and the tests. One organisation's failure is logged and the others go on.
 */
export async function runDigests(db: Database, options: { orgId?: string; log?: (error: unknown) => void } = {}): Promise<DigestSent[]> {
  const log = options.log ?? (() => undefined);
  const now = clockOf(db)();
  const out: DigestSent[] = [];
  let after = '';
  for (;;) {
    const orgs = await db.reader.all<OrgRow>(
      `SELECT id, slug, name, time_zone, created_at FROM organisations WHERE id > ? ${options.orgId !== undefined ? 'AND id = ?' : ''}
        ORDER BY id LIMIT ${ORGS_PAGE}`,
      options.orgId !== undefined ? [after, options.orgId] : [after],
    );
    for (const org of orgs) {
      try {
        const sent = await sendOne(db, org, now);
        if (sent) out.push(sent);
      } catch (error) {
        log(error);
      }
      if (out.length >= SENDS_PER_SWEEP_MAX) return out;
    }
    if (orgs.length < ORGS_PAGE) return out;
    after = orgs[orgs.length - 1]?.id ?? after;
  }
}

/**
 * A person's choice of the weekly digest: 'on' or 'off' (their role's default until they choose:
 * owners receive it). One user.digest event when it changes; the same choice again is a no-op.
 */
export async function setWeeklyDigest(
  db: Database,
  orgId: string,
  userId: string,
  choice: 'on' | 'off',
): Promise<{ readonly userId: string; readonly weeklyDigest: 'on' | 'off'; readonly noop?: true }> {
  return inUnitOfWork(db, orgId, userId, async (uow) => {
    const row = await uow.tx.get<{ weekly_digest: string | null; role: string }>(
      'SELECT weekly_digest, role FROM users WHERE org_id = ? AND id = ?',
      [uow.orgId, userId],
    );
    if (!row) throw new DomainError('NOT_FOUND', `user ${userId} not found`);
    const current = row.weekly_digest ?? (row.role === 'owner' ? 'on' : 'off');
    if (row.weekly_digest !== null && current === choice) return { userId, weeklyDigest: choice, noop: true as const };
    await uow.tx.run('UPDATE users SET weekly_digest = ? WHERE org_id = ? AND id = ?', [choice, uow.orgId, userId]);
    await uow.emit(events.userDigestSet, { entityId: userId, payload: { userId, weeklyDigest: choice } });
    return { userId, weeklyDigest: choice };
  });
}

/** Whether a person receives the weekly digest: their choice, else their role's default. */
export function receivesDigest(u: { readonly weekly_digest: string | null; readonly role: string }): boolean {
  return u.weekly_digest === null ? u.role === 'owner' : u.weekly_digest === 'on';
}
