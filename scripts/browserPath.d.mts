/** The Chromium the browser tests run (browserPath.mjs), or null. */
export function findBrowser(): Promise<string | null>;
