/**
 * Debian's Chromium for the browser tests, driven by playwright-core: one way to find it, launch
 * it with a fresh profile, and name the screenshot file (the committed one is refreshed only with
 * UPDATE_SCREENSHOTS=1, so a test run leaves the work tree clean).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** Say once, on stderr, that `what` is skipped for want of Chromium. */
export function warnIfNoChromium(what: string): void {
  if (!hasChromium) console.warn(`[finance-desk tests] ${what} SKIPPED: ${CHROMIUM} not found (apt-get install chromium).`);
}

/** docs/<name> with UPDATE_SCREENSHOTS=1, else a file in the temp directory (still taken). */
export function screenshotPath(name: string): string {
  return process.env.UPDATE_SCREENSHOTS === '1'
    ? resolve(dirname(fileURLToPath(import.meta.url)), '../../../docs', name)
    : resolve(tmpdir(), `fd-${process.pid}-${name}`);
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Chromium with a fresh profile (no cookies or cache from anything else); `close` removes it. */
export async function launchChromium(viewport: {
  width: number;
  height: number;
}): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'fd-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
