/**
 * The Chromium the browser tests run: CHROMIUM_PATH, else Debian's /usr/bin/chromium, else
 * Playwright's own download when one is installed; null when there is none.
 */
import { existsSync } from 'node:fs';

export async function findBrowser() {
  if (process.env.CHROMIUM_PATH) return existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : null;
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  try {
    const { chromium } = await import('@playwright/test');
    const own = chromium.executablePath();
    return own && existsSync(own) ? own : null;
  } catch {
    return null;
  }
}
