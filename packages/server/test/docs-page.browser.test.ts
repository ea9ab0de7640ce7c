import { books } from '@finance-desk/protocol';
import type { BrowserContext } from 'playwright-core';
import { hasChromium, launchChromium, screenshotPath, warnIfNoChromium } from './browser-helpers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_PATHS } from '../src/http/docs-route.js';
import { startTestServer, type TestServer } from './harness.js';

/**
 * The API reference at /docs in a real browser : Debian's Chromium driven by
 * playwright-core, as console.browser.test.ts launches it. Every request to anything but the
 * test server is aborted and recorded: the page must render the methods with none, and with no
 * Content-Security-Policy violation. SQLite only: nothing here touches the database.
 */
warnIfNoChromium('/docs browser test');
const SCREENSHOT = screenshotPath('api-reference.png');

describe.skipIf(!hasChromium)('/docs API reference in Chromium (sqlite)', () => {
  let t: TestServer;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    t = await startTestServer('sqlite');
    ({ browser, close: closeBrowser } = await launchChromium({ width: 1280, height: 900 }));
  });
  afterAll(async () => {
    await closeBrowser?.();
    await t?.close();
  });

  it('renders the methods offline: no request leaves the machine, no CSP violation, no error', async () => {
    const origin = new URL(t.url).origin;
    const aborted: string[] = [];
    const problems: string[] = [];
    await browser.route('**/*', async (route) => {
      const url = route.request().url();
      const u = new URL(url);
      const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
      if (u.protocol === 'data:' || u.protocol === 'blob:' || (loopback && u.origin === origin)) return route.continue();
      aborted.push(url);
      return route.abort();
    });
    const page = await browser.newPage();
    page.on('console', async (m) => {
      if (m.type() === 'error') problems.push(m.text());
      // Scalar checks the document it loads and warns of what it cannot read.
      if (m.type() === 'warning' && /validation error/i.test(m.text())) {
        const details = await Promise.all(m.args().map((a) => a.jsonValue().catch(() => null)));
        problems.push(`${m.text()} ${JSON.stringify(details).slice(0, 2000)}`);
      }
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });

    const res = await page.goto(`${t.url}${DOCS_PATHS.page}`);
    expect(res?.status()).toBe(200);
    // The sidebar and the operations list: a method's summary and its path.
    await page.getByText(`/api/v1/${books.invoiceDraft.name}`).first().waitFor({ timeout: 20_000 });
    const text = await page.locator('body').innerText();
    expect(text).toContain('Finance Desk API');
    expect(text).toContain(`/api/v1/${books.invoiceDraft.name}`);
    await page.screenshot({ path: SCREENSHOT });

    expect(aborted).toEqual([]);
    // Includes every Content-Security-Policy violation (Chromium reports them as console errors).
    expect(problems).toEqual([]);
  }, 60_000);
});
