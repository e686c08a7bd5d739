/**
 * Debian's Chromium for the browser suites (test/e2e), driven by playwright-core: never a
 * downloaded browser. Without /usr/bin/chromium the suites are skipped with a visible notice
 * (.ci/run installs it).
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Where the suites write their screenshots (not committed). */
export const SCREENSHOTS = new URL('../e2e/screenshots/', import.meta.url);

if (!HAVE_CHROMIUM) {
  console.warn(
    `\n[e2e] SKIPPED: ${CHROMIUM} is missing, so the browser tests do not run. Install it with: apt-get install -y chromium\n`,
  );
}

/** Headless Chromium with no network of its own beyond what the test pages ask for. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Full-page screenshots of `page` as it is, at 1280 px (800 high) and at 390 px (844 high: a
 * phone), as SCREENSHOTS/<name>-1280.png and <name>-390.png; the viewport is left at 390 px.
 */
export async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.screenshot({ path: new URL(`${name}-${width}.png`, SCREENSHOTS).pathname, fullPage: true });
  }
}
