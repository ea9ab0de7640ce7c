import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailFromBody } from '../src/adapters/outbox.js';
import { addDays, startOfLocalDay } from '../src/clock.js';
import { setPublicUrl } from '../src/governance/approval-mail.js';
import { decideApproval } from '../src/governance/approvals.js';
import { runDigests } from '../src/human/digest-sweep.js';
import { addUser } from '../src/human/users.js';
import { issueOrgKey } from '../src/org/orgs.js';
import { hasChromium, launchChromium, screenshotPath, warnIfNoChromium } from './browser-helpers.js';
import { startTestServer, type TestServer } from './harness.js';
import { bank } from './payables-helpers.js';
import { freshKey } from './signature-helpers.js';

/**
 * One week of a small business, told three ways an owner can read without the code: the overview's
 * pictures, the activity in plain words, and the Monday digest email. A named agent invoices, takes
 * payments, captures bills and asks for a human's approval; the owner approves one act in the
 * week and one waits. Chromium (SQLite) opens each and checks what a reader would look for; with
 * UPDATE_SCREENSHOTS=1 the pictures go to docs/week-{overview,activity,digest}.png.
 */
warnIfNoChromium('week story browser test');

const ZONE = 'Australia/Brisbane';
const at = (date: string, hhmm: string) =>
  new Date(Date.parse(startOfLocalDay(date, ZONE)) + Date.parse(`1970-01-01T${hhmm}:00Z`)).toISOString();

/** The Monday after today (UTC), so the organisation, made now, exists before the week it reports. */
function nextMonday(): string {
  const today = new Date().toISOString().slice(0, 10);
  return addDays(today, 7 - ((new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7));
}

describe.skipIf(!hasChromium)('a week of the books, as the owner sees it (sqlite)', () => {
  let t: TestServer;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let clock = new Date().toISOString();

  beforeAll(async () => {
    t = await startTestServer('sqlite', { now: () => clock });
    setPublicUrl('https://books.harbour.example');
    ({ browser, close: closeBrowser } = await launchChromium({ width: 1100, height: 900 }));
  });
  afterAll(async () => {
    setPublicUrl(null);
    await closeBrowser?.();
    await t?.close();
  });

  it('the overview, the activity and the digest tell what happened this week', async () => {
    const org = await t.org('Harbour Cafe', { timeZone: ZONE });
    await addUser(t.db, { orgId: org.orgId, email: 'sam@harbour.example', role: 'bookkeeper', name: 'Sam Lee' });
    const agent = (await issueOrgKey(t.db, org.slug, 'agent', 'Harbour')).key;
    const ok = async (method: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const r = await t.post(agent, method, body, headers);
      expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
      return r.body.result;
    };
    const monday = nextMonday();
    const day = (n: number, hhmm = '10:00') => (clock = at(addDays(monday, n), hhmm));

    // The week before's digest (nothing to say yet): from here on each digest counts the chain
    // from where the last one stopped.
    day(0, '07:30');
    expect(await runDigests(t.db, { orgId: org.orgId })).toHaveLength(1);
    day(0);
    const events = await ok('books.invoiceDraft', {
      payeeName: 'Harbour Events',
      description: 'Wedding catering',
      totalCents: 242_000,
      dueDays: 0,
    });
    await ok('books.invoiceSend', { id: events.id });
    const seaside = await ok('books.invoiceDraft', {
      payeeName: 'Seaside Weddings',
      description: 'Canapés',
      totalCents: 110_000,
      dueDays: 14,
    });
    await ok('books.invoiceSend', { id: seaside.id });
    day(1);
    await ok('books.billCapture', {
      payeeName: 'Acme Supplies',
      description: 'Takeaway containers',
      totalCents: 33_000,
      dueDays: 14,
      ...bank('062-000', '12345678', 'Acme Supplies'),
    });
    day(2);
    await ok('books.invoiceRecordPayment', { id: seaside.id, amountCents: 110_000, reference: 'SEASIDE-0001' });
    day(3);
    const blue = await ok('books.invoiceDraft', { payeeName: 'Blue Door Bistro', description: 'Pastries', totalCents: 66_000, dueDays: 0 });
    await ok('books.invoiceSend', { id: blue.id });
    await ok('books.invoiceChaseStep', { id: events.id, step: 1, early: true });
    await ok('books.invoiceChaseStep', { id: blue.id, step: 1, early: true });
    // Thursday: the second reminder is a signature act; the owner approves it, the agent sends it.
    const held = await ok('books.invoiceChaseStep', { id: events.id, step: 2 });
    expect(held.status).toBe('approval_required');
    const request = { actionClass: held.approval.actionClass, payloadHash: held.approval.payloadHash, subject: held.approval.subject };
    const filed = await ok('approval.request', request);
    await decideApproval(t.db, {
      orgId: org.orgId,
      approvalId: filed.approvalId,
      user: { id: org.owner.userId, role: 'owner' },
      approve: true,
      reason: null,
    });
    await ok('books.invoiceChaseStep', { id: events.id, step: 2, approvalId: filed.approvalId }, { 'x-idempotency-key': freshKey() });
    // Sunday evening: the same for the bistro, which waits for Monday.
    day(6, '21:00');
    const waiting = await ok('books.invoiceChaseStep', { id: blue.id, step: 2 });
    await ok('approval.request', {
      actionClass: waiting.approval.actionClass,
      payloadHash: waiting.approval.payloadHash,
      subject: waiting.approval.subject,
    });

    // Monday morning: the digest goes out.
    day(7, '07:30');
    const sent = await runDigests(t.db, { orgId: org.orgId });
    expect(sent).toEqual([{ orgId: org.orgId, weekFrom: monday, recipients: 1 }]);
    const digest = (
      await t.db.reader.all<{ body: string }>(
        "SELECT body FROM outbox WHERE org_id = ? AND channel = 'email' ORDER BY created_at DESC, id",
        [org.orgId],
      )
    )
      .map((r) => emailFromBody(r.body))
      .find((m) => m.subject.startsWith('Harbour Cafe: your week'));
    expect(digest?.html).toBeDefined();

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(`${t.url}/console/login`);
    await page.getByLabel('Organisation (slug)').fill(org.slug);
    await page.getByLabel('Email').fill(org.owner.email);
    await page.getByLabel('Password').fill(org.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).press('Enter');
    await page.waitForURL(`${t.url}/console`);

    await page.goto(`${t.url}/console/books`);
    const overview = await page.locator('main').innerText();
    // $1,100.00 received; $2,420.00 + $660.00 still owed by customers; the $330.00 bill to pay.
    expect(overview).toContain('$1,100.00');
    expect(overview).toContain('$3,080.00');
    await page.screenshot({ path: screenshotPath('week-overview.png'), fullPage: true });

    await page.goto(`${t.url}/console/books/activity`);
    const activity = await page.locator('main').innerText();
    expect(activity).toMatch(
      /Agent Harbour captured a bill from Acme Supplies for \$330\.00, due \d+ [A-Z][a-z]{2}( \d{4})? — held: new payee/,
    );
    expect(activity).toContain('drafted an invoice to Blue Door Bistro for $660.00, due when sent');
    expect(activity).toContain('You approved');
    expect(activity).not.toMatch(/PB-[A-Z]\d|\bD\d+\b|NEW_PAYEE/);
    await page.screenshot({ path: screenshotPath('week-activity.png'), fullPage: true });

    const mail = await browser.newPage();
    await mail.setViewportSize({ width: 640, height: 900 });
    await mail.setContent(digest?.html ?? '');
    const text = await mail.locator('body').innerText();
    expect(text).toContain('Sales: ');
    expect(text).toContain('1 approval waiting for a decision:');
    expect(text).toContain('1 bill held for a check, $330.00.');
    await mail.screenshot({ path: screenshotPath('week-digest.png'), fullPage: true });
    expect(problems).toEqual([]);
  });
});
