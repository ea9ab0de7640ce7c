import type { BrowserContext } from 'playwright-core';
import { hasChromium, launchChromium, screenshotPath, warnIfNoChromium } from './browser-helpers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { startTestServer, type TestServer } from './harness.js';

/**
 * The approval console in a real browser: Debian's Chromium driven by playwright-core.
 * SQLite only: the HTTP tests already cover both engines; this one checks what a person sees.
 */
warnIfNoChromium('console browser test');
const SCREENSHOT = screenshotPath('console-inbox.png');

/** The agent's side: invoice drafted and sent, reminder 1, step 2 held, approval.request filed. */
async function heldChase(t: TestServer, org: CreatedOrg) {
  const agent = org.keys.agent;
  const draft = await t.post(agent, 'books.invoiceDraft', {
    payeeName: 'Harbour Cafe',
    payeeEmail: 'accounts@harbour-cafe.example',
    description: 'October catering',
    totalCents: 110_000,
    dueDays: 14,
  });
  const id = draft.body.result.id as string;
  expect((await t.post(agent, 'books.invoiceSend', { id })).body.ok).toBe(true);
  expect((await t.post(agent, 'books.invoiceChaseStep', { id, step: 1, early: true })).body.ok).toBe(true);
  const held = await t.post(agent, 'books.invoiceChaseStep', { id, step: 2 });
  expect(held.body.result.status).toBe('approval_required');
  const a = held.body.result.approval;
  const req = await t.post(agent, 'approval.request', {
    actionClass: a.actionClass,
    payloadHash: a.payloadHash,
    subject: { kind: 'books.signature', subjectId: a.subject.subjectId },
  });
  expect(req.body.ok).toBe(true);
  return { invoiceId: id, approvalId: req.body.result.approvalId as string };
}

describe.skipIf(!hasChromium)('approval console in Chromium (sqlite)', () => {
  let t: TestServer;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    t = await startTestServer('sqlite');
    ({ browser, close: closeBrowser } = await launchChromium({ width: 1000, height: 800 }));
  });
  afterAll(async () => {
    await closeBrowser?.();
    await t?.close();
  });

  it('a person signs in, sees the held chase step with its summary, approves it; the agent retry completes', async () => {
    const org = await t.org('Harbour Books');
    const { invoiceId, approvalId } = await heldChase(t, org);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });

    await page.goto(`${t.url}/console`);
    expect(page.url()).toBe(`${t.url}/console/login`);
    await page.getByLabel('Organisation (slug)').fill(org.slug);
    await page.getByLabel('Email').fill(org.owner.email);
    await page.getByLabel('Password').fill(org.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).press('Enter');
    await page.waitForURL(`${t.url}/console`);

    const card = page.locator('article.card', { hasText: approvalId });
    const text = await card.innerText();
    expect(text).toContain('Escalate dunning on an unpaid invoice');
    expect(text).toContain('Harbour Cafe');
    expect(text).toContain('$1,100.00');
    expect(text).toContain('Setup agent key');
    // The card leads with how much and when; the technical payload is folded away.
    expect(text).toMatch(/How much\s+\$1,100\.00 \(still owed\)/);
    expect(text).toMatch(/Due\s+not due until \d{4}-\d\d-\d\d \(in 14 days\)/);
    expect(text).not.toContain('books.invoiceChaseStep');
    expect(await page.locator('.chain .badge').innerText()).toBe('verified');
    await page.screenshot({ path: SCREENSHOT });

    // Readable on a phone: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1000, height: 800 });

    // By keyboard: the first Tab reaches the skip link.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to main content');
    // The folded technical payload opens on demand and shows the exact method.
    const technical = card.locator('details.technical');
    expect(await technical.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await technical.locator('summary').click();
    expect(await technical.innerText()).toContain('books.invoiceChaseStep');

    await card.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(`${t.url}/console?done=approved`);
    expect(await page.getByRole('status').first().innerText()).toContain('Approved.');
    expect(await page.locator('article.card', { hasText: approvalId }).count()).toBe(0);
    expect(problems).toEqual([]);

    // The agent's side: the wait answers approved, the retry with the approval completes.
    const wait = await t.get(org.keys.agent, `approval.wait?approvalId=${approvalId}&timeoutMs=5000`);
    expect(wait.body).toMatchObject({
      approvalId,
      status: 'approved',
      decidedBy: org.owner.userId,
    });
    const retry = await t.post(
      org.keys.agent,
      'books.invoiceChaseStep',
      { id: invoiceId, step: 2, approvalId },
      { 'x-idempotency-key': `browser-retry-${Date.now()}` },
    );
    expect(retry.body).toMatchObject({ ok: true, result: { id: invoiceId, step: 2 } });
    const events = (await t.get(org.keys.observer, 'events?limit=500')).body.events;
    expect(events.at(-1)).toMatchObject({
      kind: 'books.invoice.chase',
      entity_id: invoiceId,
      payload: { approvalId },
    });
  });
});
