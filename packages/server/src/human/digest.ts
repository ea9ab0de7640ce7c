import { tax as taxM, type ActionClass } from '@finance-desk/protocol';
import type { ReadContext } from '../binding.js';
import { addDays, clockOf, localDate, startOfLocalDay } from '../clock.js';
import { accountBalanceCents } from '../domain/gl/post.js';
import { agedReport } from '../domain/reports/aged.js';
import { taxObligations } from '../domain/tax/obligations.js';
import { actTitle } from '../governance/act-titles.js';
import { approvalFacts } from '../governance/approval-facts.js';
import { formatCents } from '../money.js';
import type { Principal } from '../principal.js';
import type { Database, Queryable } from '../storage/types.js';
import { ACTIVITY_GROUPS } from './activity.js';
import { dayWords, plural } from './activity-words.js';
import { escapeHtml } from './html.js';
import { bankAccounts } from './owner-data.js';

/**
 * The weekly digest: what an owner who never opens the console needs to know about last week, in
 * the server's words. Every figure comes from the reads the API and the console use (the aged
 * reports, the tax obligations, the bank accounts' ledger balances, the approvals), computed once
 * per organisation and sent to each recipient; text an agent wrote never appears in it. The
 * sweep that sends it is digest-sweep.ts.
 */

/** The activity page's kinds of work (its filters), in its order. */
const groupOf = new Map<string, { readonly key: string; readonly label: string }>();
for (const g of ACTIVITY_GROUPS) for (const k of g.kinds) if (!groupOf.has(k)) groupOf.set(k, g);

/** An event kind's kind of work: the first of the activity page's groups that holds it. */
export function workOf(kind: string): { readonly key: string; readonly label: string } {
  return groupOf.get(kind) ?? { key: 'setup', label: 'Setup' };
}

export interface DigestWeek {
  /** Monday and Sunday of the week the digest reports, in the organisation's time zone. */
  readonly from: string;
  readonly to: string;
}

/** A date's day of the week: Monday 0 … Sunday 6. */
export const weekdayOf = (date: string): number => (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;

/**
 * The week a digest sent on `today` reports: the Monday-to-Sunday week before the one holding
 * `today`. Its Monday is the digest's key: one digest per organisation and week.
 */
export function reportedWeek(today: string): DigestWeek {
  const weekday = weekdayOf(today);
  const monday = addDays(today, -weekday);
  return { from: addDays(monday, -7), to: addDays(monday, -1) };
}

export interface DigestFigures {
  readonly orgName: string;
  readonly week: DigestWeek;
  readonly today: string;
  /** Acts by API keys and agents in the week, by kind of work (only kinds with acts). */
  readonly agentActs: readonly { readonly label: string; readonly count: number }[];
  readonly agentActsTotal: number;
  /** Documents dated in the week, whoever made them. */
  readonly invoiced: { readonly count: number; readonly cents: number };
  readonly billed: { readonly count: number; readonly cents: number };
  readonly waiting: {
    readonly approvals: readonly { readonly title: string; readonly amountCents: number | null; readonly expiresAt: string }[];
    readonly approvalsTotal: number;
    readonly heldBills: { readonly count: number; readonly cents: number };
  };
  readonly overdue: {
    readonly invoices: { readonly count: number; readonly cents: number };
    readonly bills: { readonly count: number; readonly cents: number };
    readonly bas: readonly { readonly period: string; readonly dueOn: string }[];
    readonly superCents: number;
  };
  readonly cash: {
    readonly accounts: readonly { readonly code: string; readonly name: string; readonly cents: number }[];
    readonly cents: number;
  };
  readonly chain: { readonly verified: boolean; readonly headSeq: number };
}

/** Events one digest counts at most (a week of a busy organisation is far fewer). */
const WEEK_EVENTS_MAX = 200_000;
/** Pending approvals a digest names; the rest are counted. */
const APPROVALS_NAMED = 5;

function readContext(db: Database, orgId: string, orgSlug: string): ReadContext {
  const principal: Principal = {
    orgId,
    orgSlug,
    credentialId: '',
    tier: 'observer',
    scopes: ['books.read'],
    actor: '',
    agent: null,
  };
  return { db, principal };
}

/**
 * Acts by API keys and agents (people act through the console, the system as ''): after the
 * previous digest's head up to `headSeq`, so across digests every act is counted exactly once,
 * late digests included; the first digest counts from the reported week's start by each event's
 * own time. Bounded by seq, the primary key, never the whole chain once a digest was sent.
 */
async function agentActsIn(q: Queryable, orgId: string, afterSeq: number, headSeq: number, weekStartAt: string) {
  const rows = await q.all<{ kind: string; n: number | string }>(
    `SELECT kind, COUNT(*) AS n FROM (
       SELECT kind FROM events WHERE org_id = ? AND seq > ? AND seq <= ? ${afterSeq === 0 ? 'AND at >= ?' : ''}
         AND (actor LIKE 'key\\_%' ESCAPE '\\' OR actor LIKE 'agt\\_%' ESCAPE '\\')
       ORDER BY seq LIMIT ${WEEK_EVENTS_MAX}) w
     GROUP BY kind`,
    afterSeq === 0 ? [orgId, afterSeq, headSeq, weekStartAt] : [orgId, afterSeq, headSeq],
  );
  const byWork = new Map<string, number>();
  for (const r of rows) byWork.set(workOf(r.kind).key, (byWork.get(workOf(r.kind).key) ?? 0) + Number(r.n));
  const acts = ACTIVITY_GROUPS.flatMap((g) => (byWork.has(g.key) ? [{ label: g.label, count: byWork.get(g.key) ?? 0 }] : []));
  return { acts, total: acts.reduce((n, a) => n + a.count, 0) };
}

/**
 * Last week's figures for one organisation. `afterSeq` is the head the previous digest counted
 * to (0 for the first), `chain.headSeq` the head now.
 */
export async function digestFigures(
  db: Database,
  org: { readonly id: string; readonly slug: string; readonly name: string; readonly timeZone: string },
  today: string,
  afterSeq: number,
  chain: { readonly verified: boolean; readonly headSeq: number },
): Promise<DigestFigures> {
  const q = db.reader;
  const week = reportedWeek(today);
  const ctx = readContext(db, org.id, org.slug);
  const fromAt = startOfLocalDay(week.from, org.timeZone);
  const toAt = startOfLocalDay(addDays(week.to, 1), org.timeZone);
  const { acts, total } = await agentActsIn(q, org.id, afterSeq, chain.headSeq, fromAt);

  const sums = await q.get<{ ic: number | string; icents: number | string | null; bc: number | string; bcents: number | string | null }>(
    `SELECT (SELECT COUNT(*) FROM invoices WHERE org_id = ? AND issued_on >= ? AND issued_on <= ? AND status NOT IN ('draft', 'void')) AS ic,
            (SELECT SUM(total_cents) FROM invoices WHERE org_id = ? AND issued_on >= ? AND issued_on <= ? AND status NOT IN ('draft', 'void')) AS icents,
            (SELECT COUNT(*) FROM bills WHERE org_id = ? AND created_at >= ? AND created_at < ?) AS bc,
            (SELECT SUM(total_cents) FROM bills WHERE org_id = ? AND created_at >= ? AND created_at < ?) AS bcents`,
    [org.id, week.from, week.to, org.id, week.from, week.to, org.id, fromAt, toAt, org.id, fromAt, toAt],
  );

  const now = clockOf(db)();
  const pending = await q.all<{
    action_class: string;
    subject_id: string;
    method: string | null;
    payload: string | null;
    expires_at: string;
  }>(
    `SELECT action_class, subject_id, method, expires_at FROM approvals
      WHERE org_id = ? AND status = 'pending' AND expires_at >= ? ORDER BY expires_at, id LIMIT ${APPROVALS_NAMED}`,
    [org.id, now],
  );
  const pendingTotal = await q.get<{ n: number | string }>(
    "SELECT COUNT(*) AS n FROM approvals WHERE org_id = ? AND status = 'pending' AND expires_at >= ?",
    [org.id, now],
  );
  const approvals = [];
  for (const a of pending) {
    const facts = await approvalFacts(
      q,
      org.id,
      { actionClass: a.action_class as ActionClass, subjectId: a.subject_id, params: {} },
      today,
    );
    approvals.push({
      title: actTitle(a.action_class as ActionClass, a.method),
      amountCents: facts.amount?.cents ?? null,
      expiresAt: a.expires_at,
    });
  }
  const held = await q.get<{ n: number | string; cents: number | string | null }>(
    "SELECT COUNT(*) AS n, SUM(total_cents) AS cents FROM bills WHERE org_id = ? AND status = 'held'",
    [org.id],
  );

  const overdueOf = async (type: 'aged_receivables' | 'aged_payables') => {
    const report = await agedReport(q, org.id, type, today, { limit: 'all' });
    const items = report.parties.flatMap((p) => p.items).filter((i) => i.daysOverdue > 0 && i.outstandingCents > 0);
    return { count: items.length, cents: items.reduce((n, i) => n + i.outstandingCents, 0) };
  };
  const obligations = (await taxObligations(taxM.taxObligations.params.parse({ asOf: today }), ctx)).obligations;
  const bas = obligations.flatMap((o) =>
    o.kind === 'bas' && o.overdue ? [{ period: `${o.periodStart} to ${o.periodEnd}`, dueOn: o.dueOn }] : [],
  );
  const superCents = obligations.reduce(
    (n, o) => n + ((o.kind === 'super_guarantee' || o.kind === 'super_carried_in') && o.overdue ? o.outstandingCents : 0),
    0,
  );

  const accounts = [];
  // Cash is what the bank accounts hold: cards and loans are debts, not cash.
  for (const a of (await bankAccounts(q, org.id)).filter((b) => b.kind === 'bank'))
    accounts.push({ code: a.code, name: a.name, cents: await accountBalanceCents(q, org.id, a.code) });

  return {
    orgName: org.name,
    week,
    today,
    agentActs: acts,
    agentActsTotal: total,
    invoiced: { count: Number(sums?.ic ?? 0), cents: Number(sums?.icents ?? 0) },
    billed: { count: Number(sums?.bc ?? 0), cents: Number(sums?.bcents ?? 0) },
    waiting: {
      approvals,
      approvalsTotal: Number(pendingTotal?.n ?? 0),
      heldBills: { count: Number(held?.n ?? 0), cents: Number(held?.cents ?? 0) },
    },
    overdue: { invoices: await overdueOf('aged_receivables'), bills: await overdueOf('aged_payables'), bas, superCents },
    cash: { accounts, cents: accounts.reduce((n, a) => n + a.cents, 0) },
    chain,
  };
}

/** 3 Nov 2026: the digest always names the year. */
export const dayText = (date: string): string => dayWords(date, '');

export interface DigestLinks {
  readonly overview: string;
  readonly approvals: string;
  readonly activity: string;
}

export function digestLinks(publicUrl: string | null): DigestLinks | null {
  if (!publicUrl) return null;
  return {
    overview: `${publicUrl}/console/books`,
    approvals: `${publicUrl}/console/`,
    activity: `${publicUrl}/console/books/activity`,
  };
}

interface Section {
  readonly title: string;
  readonly lines: readonly string[];
  readonly link?: { readonly label: string; readonly href: string };
}

/** The digest's sections, in the server's words; the text and HTML forms both render these. */
export function digestSections(f: DigestFigures, links: DigestLinks | null): Section[] {
  const agents =
    f.agentActsTotal === 0
      ? ['Your agents made no changes to the books.']
      : [`Your agents made ${plural(f.agentActsTotal, 'change')} to the books:`, ...f.agentActs.map((a) => `  ${a.label}: ${a.count}`)];
  const documents = [
    `Invoices issued: ${f.invoiced.count}, ${formatCents(f.invoiced.cents)}.`,
    `Bills entered: ${f.billed.count}, ${formatCents(f.billed.cents)}.`,
  ];
  const w = f.waiting;
  const waiting =
    w.approvalsTotal === 0 && w.heldBills.count === 0
      ? ['Nothing is waiting for a decision.']
      : [
          ...(w.approvalsTotal > 0 ? [`${plural(w.approvalsTotal, 'approval')} waiting for a decision:`] : []),
          ...w.approvals.map(
            (a) =>
              `  ${a.title}${a.amountCents !== null ? `, ${formatCents(a.amountCents)}` : ''} (expires ${dayText(a.expiresAt.slice(0, 10))})`,
          ),
          ...(w.approvalsTotal > w.approvals.length ? [`  and ${w.approvalsTotal - w.approvals.length} more`] : []),
          ...(w.heldBills.count > 0 ? [`${plural(w.heldBills.count, 'bill')} held for a check, ${formatCents(w.heldBills.cents)}.`] : []),
        ];
  const o = f.overdue;
  const overdue = [
    ...(o.invoices.count > 0 ? [`${plural(o.invoices.count, 'invoice')} overdue: customers owe ${formatCents(o.invoices.cents)}.`] : []),
    ...(o.bills.count > 0 ? [`${plural(o.bills.count, 'bill')} overdue: you owe suppliers ${formatCents(o.bills.cents)}.`] : []),
    ...o.bas.map((b) => `The BAS for ${b.period} was due ${dayText(b.dueOn)} and is not lodged.`),
    ...(o.superCents > 0 ? [`Super of ${formatCents(o.superCents)} is past its due date.`] : []),
  ];
  const cash = [
    ...f.cash.accounts.map((a) => `  ${a.name} (${a.code}): ${formatCents(a.cents)}`),
    `In all: ${formatCents(f.cash.cents)} as the books stand on ${dayText(f.today)}.`,
  ];
  const chain = f.chain.verified
    ? [`The record of every change verified: ${plural(f.chain.headSeq, 'entry', 'entries')}, none altered.`]
    : ['The record of every change did NOT verify. Ask your operator to run `finance-desk verify` now.'];
  return [
    {
      title: 'What your agents did',
      lines: [...agents, ...documents],
      ...(links ? { link: { label: 'See the activity', href: links.activity } } : {}),
    },
    { title: 'Waiting for you', lines: waiting, ...(links ? { link: { label: 'Open the approvals', href: links.approvals } } : {}) },
    { title: 'Overdue', lines: overdue.length > 0 ? overdue : ['Nothing is overdue.'] },
    { title: 'Cash in the bank', lines: cash, ...(links ? { link: { label: 'Open the overview', href: links.overview } } : {}) },
    { title: 'The books’ record', lines: chain },
  ];
}

export function digestSubject(f: DigestFigures): string {
  const waiting = f.waiting.approvalsTotal > 0 ? ` · ${plural(f.waiting.approvalsTotal, 'approval')} waiting` : '';
  return `${f.orgName}: your week ${dayText(f.week.from)} – ${dayText(f.week.to)}${waiting}`;
}

export function digestText(
  f: DigestFigures,
  links: DigestLinks | null,
  recipient: { readonly email: string; readonly role: string },
): string {
  const out = [`The week of ${dayText(f.week.from)} to ${dayText(f.week.to)} in ${f.orgName}, from Finance Desk.`, ''];
  for (const s of digestSections(f, links)) {
    out.push(s.title.toUpperCase(), ...s.lines);
    if (s.link) out.push(`${s.link.label}: ${s.link.href}`);
    out.push('');
  }
  if (!links)
    out.push(
      'This server has no public address set (PUBLIC_URL), so this email has no links; open the console where you normally sign in.',
      '',
    );
  out.push(
    `You receive this weekly digest as ${recipient.email} (${recipient.role}) of ${f.orgName}. Turn it off on the Organisation page of the console.`,
  );
  return `${out.join('\n')}\n`;
}

/** The same sections as a small HTML page (inline styles only: mail readers drop style sheets). */
export function digestHtml(
  f: DigestFigures,
  links: DigestLinks | null,
  recipient: { readonly email: string; readonly role: string },
): string {
  const sections = digestSections(f, links)
    .map(
      (s) =>
        `<h2 style="font-size:16px;margin:20px 0 6px">${escapeHtml(s.title)}</h2>` +
        s.lines
          .map((l) => `<p style="margin:2px 0${l.startsWith('  ') ? ';padding-left:16px' : ''}">${escapeHtml(l.trim())}</p>`)
          .join('') +
        (s.link ? `<p style="margin:6px 0"><a href="${escapeHtml(s.link.href)}">${escapeHtml(s.link.label)}</a></p>` : ''),
    )
    .join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(digestSubject(f))}</title></head>` +
    `<body style="font-family:system-ui,sans-serif;max-width:560px;margin:16px auto;color:#1a1a1a;line-height:1.4">` +
    `<h1 style="font-size:20px">${escapeHtml(f.orgName)}: the week of ${escapeHtml(dayText(f.week.from))} to ${escapeHtml(dayText(f.week.to))}</h1>` +
    sections +
    `<p style="margin-top:24px;color:#555;font-size:13px">You receive this weekly digest as ${escapeHtml(recipient.email)} (${escapeHtml(recipient.role)}) of ${escapeHtml(f.orgName)}. Turn it off on the Organisation page of the console.</p>` +
    `</body></html>`
  );
}

/** Today in the organisation's time zone, as the sweep sees it. */
export function orgLocalNow(now: string, timeZone: string): { readonly date: string; readonly hour: number } {
  const date = localDate(now, timeZone);
  const hour = Number(new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' }).format(new Date(now)));
  return { date, hour };
}
