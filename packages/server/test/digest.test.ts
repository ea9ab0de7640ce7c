/**
 * The weekly digest, on both engines, on the injectable clock: from 07:00 Monday in the
 * organisation's time zone each owner (and whoever opted in) gets one email about last week —
 * what the agents did, what waits, what is overdue, the cash, whether the chain verified — queued
 * through the outbox with an org.digest.sent event, never twice for one week, and off by choice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderEml } from '../src/adapters/email.js';
import { emailFromBody } from '../src/adapters/outbox.js';
import { addDays, startOfLocalDay } from '../src/clock.js';
import { setPublicUrl } from '../src/governance/approval-mail.js';
import { dayText, reportedWeek, workOf } from '../src/human/digest.js';
import { runDigests, setWeeklyDigest } from '../src/human/digest-sweep.js';
import { addUser } from '../src/human/users.js';
import { eventKinds } from '@finance-desk/protocol';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleForm, consoleGet, consoleSignIn } from './console-helpers.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { bank } from './payables-helpers.js';
import { heldAndRequested } from './signature-helpers.js';

const ZONE = 'Australia/Brisbane'; // UTC+10 all year: no daylight saving to reckon with.
const at = (date: string, hhmm: string) =>
  new Date(Date.parse(startOfLocalDay(date, ZONE)) + Date.parse(`1970-01-01T${hhmm}:00Z`)).toISOString();

/** The Monday after today (UTC), so the organisation, made now, exists before the week it reports. */
function nextMonday(): string {
  const today = new Date().toISOString().slice(0, 10);
  const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7;
  return addDays(today, 7 - weekday);
}

describe('digest weeks and kinds of work', () => {
  it('reports the Monday-to-Sunday week before the one holding today', () => {
    expect(reportedWeek('2026-12-07')).toEqual({ from: '2026-11-30', to: '2026-12-06' }); // a Monday
    expect(reportedWeek('2026-12-13')).toEqual({ from: '2026-11-30', to: '2026-12-06' }); // the Sunday after
    expect(reportedWeek('2026-12-14')).toEqual({ from: '2026-12-07', to: '2026-12-13' });
  });

  it('counts each event kind under one of the kinds of work the activity page filters by', () => {
    for (const e of eventKinds) expect(workOf(e.kind).key, e.kind).not.toBe('');
    expect(workOf('books.invoice.send').key).toBe('sales');
    expect(workOf('books.quote.draft').key).toBe('sales');
    expect(workOf('books.bill.capture').key).toBe('bills');
    expect(workOf('books.match.accept').key).toBe('bank');
    expect(workOf('books.pay_run.sign').key).toBe('payroll');
    expect(workOf('books.tax.sign_lodge').key).toBe('tax');
    expect(workOf('approval.requested').key).toBe('approvals');
    expect(workOf('org.agent.pair').key).toBe('agents');
    // A credit is sales and bills on the activity page; the digest counts it once, as sales.
    expect(workOf('books.credit.allocate').key).toBe('sales');
  });
});

describe.each(engines)('the weekly digest on %s', (engine) => {
  let t: TestServer;
  let clock = new Date().toISOString();
  const { ok } = agentCalls(() => t);
  const monday = nextMonday();
  const week = { from: monday, to: addDays(monday, 6) };
  const digestMonday = addDays(monday, 7);
  let org: CreatedOrg;
  let bookkeeper: { userId: string; email: string; password: string };

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock });
    setPublicUrl('https://books.example.test');
    org = await t.org('Harbour Cafe', { timeZone: ZONE });
    bookkeeper = await addUser(t.db, { orgId: org.orgId, email: 'sam@harbour.example', role: 'bookkeeper' });
  });

  /** The week's acts: Tuesday to Sunday of the week starting `monday`. */
  async function actsOfTheWeek() {
    // Tuesday: an agent invoices $1,100.00 due that day, takes $100.00 of it, captures a $330.00
    // bill from a new payee with bank details (held: a new payee) and sends a first reminder.
    clock = at(addDays(monday, 1), '11:00');
    const inv = await ok(org, 'books.invoiceDraft', {
      payeeName: 'Harbour Events',
      description: 'Catering',
      totalCents: 110_000,
      dueDays: 0,
    });
    await ok(org, 'books.invoiceSend', { id: inv.id });
    await ok(org, 'books.invoiceRecordPayment', { id: inv.id, amountCents: 10_000, reference: 'dep-1' });
    const bill = await ok(org, 'books.billCapture', {
      payeeName: 'Acme Supplies',
      description: 'Paper',
      totalCents: 33_000,
      dueDays: 30,
      ...bank('062-000', '12345678', 'Acme Supplies'),
    });
    expect(bill.status).toBe('held');
    await ok(org, 'books.invoiceChaseStep', { id: inv.id, step: 1, early: true });
    // Sunday evening: the reminder's second step is a signature act: held, and the agent asks a
    // human, who has not decided by Monday morning.
    clock = at(week.to, '22:00');
    await heldAndRequested(t, org, 'books.invoiceChaseStep', { id: inv.id, step: 2 });
  }
  afterAll(async () => {
    setPublicUrl(null);
    await t.close();
  });

  const emails = async () =>
    (
      await t.db.reader.all<{ body: string }>("SELECT body FROM outbox WHERE org_id = ? AND channel = 'email' ORDER BY created_at, id", [
        org.orgId,
      ])
    )
      .map((r) => emailFromBody(r.body))
      .filter((m) => m.subject.startsWith('Harbour Cafe: your week'));

  it('waits for 07:00 Monday in the organisation’s time zone, then sends last week once to each recipient', async () => {
    // The first Monday after the organisation was made: the week before, to its owner only.
    clock = at(monday, '06:30');
    expect(await runDigests(t.db, { orgId: org.orgId })).toEqual([]);
    clock = at(monday, '07:30');
    expect(await runDigests(t.db, { orgId: org.orgId })).toEqual([{ orgId: org.orgId, weekFrom: addDays(monday, -7), recipients: 1 }]);
    expect((await emails()).map((m) => m.to)).toEqual([org.owner.email]);
    expect((await emails())[0]?.text).toContain('Your agents made no changes to the books.');

    await actsOfTheWeek();
    // The bookkeeper opts in (a person's own choice); the owner receives it by default.
    expect(await setWeeklyDigest(t.db, org.orgId, bookkeeper.userId, 'on')).toEqual({ userId: bookkeeper.userId, weeklyDigest: 'on' });
    clock = at(digestMonday, '06:59');
    expect(await runDigests(t.db, { orgId: org.orgId })).toEqual([]);
    clock = at(digestMonday, '07:00');
    expect(await runDigests(t.db, { orgId: org.orgId })).toEqual([{ orgId: org.orgId, weekFrom: week.from, recipients: 2 }]);
    // Never twice for one week, however often the sweep runs.
    expect(await runDigests(t.db, { orgId: org.orgId })).toEqual([]);
    clock = at(addDays(digestMonday, 3), '09:00');
    expect(await runDigests(t.db, { orgId: org.orgId })).toEqual([]);

    const sent = (await emails()).slice(1);
    expect(sent.map((m) => m.to).sort()).toEqual([org.owner.email, bookkeeper.email].sort());
    const owner = sent.find((m) => m.to === org.owner.email);
    expect(owner?.subject).toBe(`Harbour Cafe: your week ${dayText(week.from)} – ${dayText(week.to)} · 1 approval waiting`);
    // Hand-worked: the agent's acts that week were the invoice's draft, send, payment and first
    // reminder (sales, 4), the bill (bills, 1), and the second reminder held as a signature act
    // with the agent's request for approval (approvals, 2). $1,100.00 was
    // invoiced; $1,000.00 of it is overdue (due Tuesday, $100.00 paid); the $330.00 bill is held;
    // the bank holds the $100.00 received.
    expect(owner?.text).toContain(
      [
        'WHAT YOUR AGENTS DID',
        'Your agents made 7 changes to the books:',
        '  Sales: 4',
        '  Bills and expenses: 1',
        '  Approvals: 2',
        'Invoices issued: 1, $1,100.00.',
        'Bills entered: 1, $330.00.',
        'See the activity: https://books.example.test/console/books/activity',
      ].join('\n'),
    );
    expect(owner?.text).toContain('1 bill held for a check, $330.00.');
    expect(owner?.text).toContain('1 invoice overdue: customers owe $1,000.00.');
    expect(owner?.text).toContain('In all: $100.00 as the books stand on');
    expect(owner?.text).toMatch(/The record of every change verified: \d+ entries, none altered\./);
    expect(owner?.text).toContain(`as ${org.owner.email} (owner) of Harbour Cafe`);
    // The server's words only: no agent text, no rule names, no key ids.
    expect(owner?.text).not.toMatch(/Catering|Paper|PB-[A-Z]\d|\bD\d+\b|key_|NEW_PAYEE/);
    expect(owner?.html).toContain('<h2 style="font-size:16px;margin:20px 0 6px">Waiting for you</h2>');
    expect(owner?.html).not.toMatch(/<script|Catering/);

    // Sent as text and HTML alternatives.
    const eml = renderEml(
      { ...(owner ?? { to: null, subject: '', text: '' }), messageId: 'msg_1' },
      'Finance Desk <fd@example.test>',
      new Date(clock),
    );
    expect(eml).toMatch(/Content-Type: multipart\/alternative; boundary="=_fd_[0-9a-f]{24}"/);
    expect(eml).toContain('Content-Type: text/plain; charset=utf-8');
    expect(eml).toContain('Content-Type: text/html; charset=utf-8');

    const event = (
      await t.db.reader.all<{ kind: string; actor: string; payload: string }>(
        "SELECT kind, actor, payload FROM events WHERE org_id = ? AND kind = 'org.digest.sent' ORDER BY seq",
        [org.orgId],
      )
    )[1];
    expect(event?.actor).toBe('');
    expect(JSON.parse(event?.payload ?? '{}')).toMatchObject({
      weekFrom: week.from,
      weekTo: week.to,
      recipientIds: expect.arrayContaining([org.owner.userId, bookkeeper.userId]),
      agentActs: 7,
      approvalsWaiting: 1,
      overdueInvoices: 1,
      overdueBills: 0,
      cashCents: 10_000,
      chainVerified: true,
    });
  });

  it('counts the next week from where the last digest stopped, and leaves out whoever turned it off', async () => {
    // The owner turns it off in the console; the bookkeeper keeps it.
    const s = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
    const page = await consoleGet(t, s, '/console/org');
    expect(page.text).toContain('Stop the weekly digest');
    expect((await consoleForm(t, s, '/console/org/digest', { _csrf: s.csrf, weeklyDigest: 'sideways' })).status).toBe(400);
    expect((await consoleForm(t, s, '/console/org/digest', { _csrf: s.csrf, weeklyDigest: 'off' })).status).toBe(303);
    expect((await consoleGet(t, s, '/console/org')).text).toContain('Send me the weekly digest');
    // The same choice again changes nothing and records nothing.
    expect((await setWeeklyDigest(t.db, org.orgId, org.owner.userId, 'off')).noop).toBe(true);
    const choices = await t.db.reader.all<{ payload: string }>(
      "SELECT payload FROM events WHERE org_id = ? AND kind = 'user.digest' ORDER BY seq",
      [org.orgId],
    );
    expect(choices.map((c) => JSON.parse(c.payload) as unknown)).toEqual([
      { userId: bookkeeper.userId, weeklyDigest: 'on' },
      { userId: org.owner.userId, weeklyDigest: 'off' },
    ]);

    const before = (await emails()).length;
    clock = at(addDays(digestMonday, 7), '08:00');
    expect(await runDigests(t.db, { orgId: org.orgId })).toEqual([{ orgId: org.orgId, weekFrom: digestMonday, recipients: 1 }]);
    const next = (await emails()).slice(before);
    expect(next.map((m) => m.to)).toEqual([bookkeeper.email]);
    // No agent acted that week (the approval request was the week before).
    expect(next[0]?.text).toContain('Your agents made no changes to the books.');
    expect(next[0]?.text).toContain(`as ${bookkeeper.email} (bookkeeper) of Harbour Cafe`);
  });
});
