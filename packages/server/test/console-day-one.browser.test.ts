import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, screenshotPath, warnIfNoChromium } from './browser-helpers.js';
import { startTestServer, type TestServer } from './harness.js';
import { approvedBill, bank, FUNDING } from './payables-helpers.js';
import { decide, heldAndRequested } from './signature-helpers.js';

/**
 * The Bank accounts and Files console pages in a real browser (SQLite; the HTTP tests cover both
 * engines): an owner adds a credit-card account with the Bank accounts form, then a payment run a
 * human approved leaves its ABA file on the Files page, listed with its SHA-256 and downloadable.
 * Screenshots: docs/console-bank-accounts.png and docs/console-files.png with UPDATE_SCREENSHOTS=1.
 */
warnIfNoChromium('bank accounts and files browser test');

describe.skipIf(!hasChromium)('bank accounts and payment files in Chromium (sqlite)', () => {
  let t: TestServer;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    t = await startTestServer('sqlite', { paymentsOutboxDir: mkdtempSync(join(tmpdir(), 'fd-browser-pay-')) });
    ({ browser, close: closeBrowser } = await launchChromium({ width: 1100, height: 900 }));
  });
  afterAll(async () => {
    await closeBrowser?.();
    await t?.close();
  });

  async function signIn(page: Page, slug: string, email: string, password: string) {
    await page.goto(`${t.url}/console/login`);
    await page.getByLabel('Organisation (slug)').fill(slug);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).press('Enter');
    await page.waitForURL(`${t.url}/console`);
  }

  it('an owner adds a card account, and downloads the ABA file of an approved payment run with its SHA-256', async () => {
    const org = await t.org('Harbourside Joinery');
    const bill = await approvedBill(t, org, {
      payeeName: 'Coastal Timber Supplies',
      description: 'Hardwood',
      totalCents: 398_000,
      ...bank('062-703', '11223344', 'Coastal Timber'),
    });
    const params = { billIds: [bill.id], paymentDate: '2026-12-01', funding: FUNDING };
    const { approvalId } = await heldAndRequested(t, org, 'books.billScheduleRun', params);
    await decide(t, org, approvalId, true);
    const run = await t.post(org.keys.agent, 'books.billScheduleRun', { ...params, approvalId });
    expect(run.status, JSON.stringify(run.body)).toBe(200);

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await signIn(page, org.slug, org.owner.email, org.owner.password);

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Bank accounts' }).click();
    await page.waitForURL(`${t.url}/console/bank-accounts`);
    await page.getByLabel('Kind').selectOption('credit_card');
    await page.getByLabel('Name', { exact: true }).fill('Business Visa');
    await page.getByRole('button', { name: /add/i }).click();
    await page.waitForURL(/\/console\/bank-accounts\?added=2610/);
    const main = page.locator('main');
    expect(await main.innerText()).toContain('Business Visa');
    expect(await main.innerText()).toContain('2610');
    await page.screenshot({ path: screenshotPath('console-bank-accounts.png'), fullPage: true });

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Files' }).click();
    await page.waitForURL(`${t.url}/console/files`);
    const row = page.locator('tbody tr').first();
    const text = await row.innerText();
    expect(text).toMatch(/aba/i);
    expect(text).toMatch(/[0-9a-f]{64}/);
    await page.screenshot({ path: screenshotPath('console-files.png'), fullPage: true });
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link').first().click()]);
    const bytes = await download.path().then((p) => (p ? import('node:fs').then((fs) => fs.readFileSync(p)) : null));
    expect(bytes?.toString('latin1')).toMatch(/^0/); // an ABA file opens with its descriptive record (type 0)
    expect(problems).toEqual([]);
  });
});
