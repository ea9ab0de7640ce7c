import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, screenshotPath, warnIfNoChromium } from './browser-helpers.js';
import { startTestServer, type TestServer } from './harness.js';
import { approvedBill } from './payables-helpers.js';
import { report } from './reports-helpers.js';

/**
 * The owner's read-only view of the books in a real browser: Debian's Chromium
 * driven by playwright-core, SQLite only (console-owner.test.ts covers both engines through
 * HTTP). A person signs in, follows the nav to the books, reads the overview, the invoices with
 * the overdue one highlighted, the bank, and the reports for a period picked in the form; no
 * script error, nothing wider than a phone. Screenshots go to docs/console-owner-*.png with
 * UPDATE_SCREENSHOTS=1 (browser-helpers.ts), else to the temp directory.
 */
warnIfNoChromium("owner's view browser test");

describe.skipIf(!hasChromium)("the owner's view of the books in Chromium (sqlite)", () => {
  let t: TestServer;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let clock = '2026-09-10T01:00:00.000Z';

  beforeAll(async () => {
    t = await startTestServer('sqlite', { now: () => clock });
    ({ browser, close: closeBrowser } = await launchChromium({ width: 1100, height: 900 }));
  });
  afterAll(async () => {
    await closeBrowser?.();
    await t?.close();
  });

  it('an owner signs in, opens Books, and reads the overview, invoices, bank and reports', async () => {
    const org = await t.org('Harbour Books');
    const ok = async (method: string, body: Record<string, unknown>) => {
      const r = await t.post(org.keys.agent, method, body);
      expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
      return r.body.result;
    };
    const sent = async (payeeName: string, totalCents: number, description: string, dueDays = 14) => {
      const d = await ok('books.invoiceDraft', { payeeName, description, totalCents, dueDays });
      await ok('books.invoiceSend', { id: d.id });
      return d.id as string;
    };
    const overdueId = await sent('Harbour Cafe', 110_000, 'September catering');
    const partId = await sent('Seaside Events', 55_000, 'Event staffing', 60);
    await ok('books.invoiceRecordPayment', { id: partId, amountCents: 20_000 });
    await approvedBill(t, org, { payeeName: 'Paper Supplies', description: 'Paper', totalCents: 33_000, dueDays: 30 });
    await ok('books.feedLines', {
      lines: [
        { date: '2026-09-09', amountCents: 20_000, description: 'DEPOSIT SEASIDE EVENTS' },
        { date: '2026-09-09', amountCents: -4_500, description: 'MERCHANT FEES' },
      ],
    });
    clock = '2026-10-20T01:00:00.000Z';

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });

    await page.goto(`${t.url}/console/login`);
    await page.getByLabel('Organisation (slug)').fill(org.slug);
    await page.getByLabel('Email').fill(org.owner.email);
    await page.getByLabel('Password').fill(org.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).press('Enter');
    await page.waitForURL(`${t.url}/console`);

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Books' }).click();
    await page.waitForURL(`${t.url}/console/books`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('The books at a glance');
    const main = page.locator('main');
    expect(await main.innerText()).toContain('$1,450.00');
    expect(await main.locator('.badge.ok').first().innerText()).toBe('verified');
    // The pictures: four SVGs named by their titles, each with its figures a click away.
    const pictures = main.getByRole('img');
    expect(await pictures.count()).toBe(4);
    expect(await page.getByRole('img', { name: 'Owed by age: receivables and payables' }).count()).toBe(1);
    await main.locator('#chart-aged details.figures summary').click();
    expect(await main.locator('#chart-aged-table').innerText()).toContain('$1,100.00');
    await page.screenshot({ path: screenshotPath('console-owner-overview.png'), fullPage: true });

    await page.getByRole('navigation', { name: 'Books' }).getByRole('link', { name: 'Invoices' }).click();
    await page.waitForURL(`${t.url}/console/books/invoices`);
    const overdueRow = page.locator('tr.overdue', { hasText: 'Harbour Cafe' });
    expect(await overdueRow.count()).toBe(1);
    expect(await overdueRow.innerText()).toContain('$1,100.00');
    expect(await page.locator('tr', { hasText: 'Seaside Events' }).innerText()).toContain('$350.00');
    await page.screenshot({ path: screenshotPath('console-owner-invoices.png'), fullPage: true });

    // The status filter is a GET form: choosing "part paid" narrows the list.
    await page.getByLabel('Status').selectOption('part_paid');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(`${t.url}/console/books/invoices?status=part_paid`);
    expect(await page.locator('tbody tr').count()).toBe(1);

    await page.getByRole('navigation', { name: 'Books' }).getByRole('link', { name: 'Bank' }).click();
    await page.waitForURL(`${t.url}/console/books/bank`);
    expect(await main.innerText()).toContain('MERCHANT FEES');
    await page.screenshot({ path: screenshotPath('console-owner-bank.png'), fullPage: true });

    await page.getByRole('navigation', { name: 'Books' }).getByRole('link', { name: 'Reports' }).click();
    await page.waitForURL(`${t.url}/console/books/reports`);
    await page.getByLabel('From', { exact: true }).fill('2026-09-01');
    await page.getByLabel('To', { exact: true }).fill('2026-09-30');
    await page.getByRole('button', { name: 'Show' }).click();
    // The picker's comparison select goes with the period (empty: no comparison).
    await page.waitForURL(`${t.url}/console/books/reports?from=2026-09-01&to=2026-09-30&compare=`);
    const pl = await report(t, org, { type: 'profit_and_loss', from: '2026-09-01', to: '2026-09-30' });
    const net = await page.locator('#pl-net').innerText();
    expect(net.replace(/[$,]/g, '')).toBe((pl.netProfitCents / 100).toFixed(2));
    await page.screenshot({ path: screenshotPath('console-owner-reports.png'), fullPage: true });

    await page.getByRole('navigation', { name: 'Books' }).getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(`${t.url}/console/books/activity`);
    // 110 000 cents to Harbour Cafe, in the activity's own words.
    expect(await main.innerText()).toContain('Setup agent key drafted an invoice to Harbour Cafe for $1,100.00');

    // Readable on a phone: tables scroll inside their own box, the page never wider than the screen.
    await page.goto(`${t.url}/console/books/invoices/${overdueId}`);
    for (const path of ['/console/books', '/console/books/invoices', '/console/books/reports']) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${t.url}${path}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
      if (path === '/console/books') {
        // On the phone each picture scales down to its card; its smallest label is still 9.5 px or more
        // (its font size in viewBox units times the drawn width over the viewBox width).
        const smallest = await page.evaluate(() =>
          Math.min(
            ...[...document.querySelectorAll<SVGSVGElement>('svg.chart-svg')].flatMap((svg) =>
              [...svg.querySelectorAll('text')].map(
                (el) => (parseFloat(getComputedStyle(el).fontSize) * svg.getBoundingClientRect().width) / svg.viewBox.baseVal.width,
              ),
            ),
          ),
        );
        expect(smallest).toBeGreaterThanOrEqual(9.5);
        // For a look at the phone layout; never written to docs.
        await page.screenshot({ path: join(tmpdir(), `fd-${process.pid}-console-owner-overview-phone.png`), fullPage: true });
      }
    }
    expect(problems).toEqual([]);
  });
});
