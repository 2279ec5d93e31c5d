import { defineConfig } from '@playwright/test';
import { findBrowser } from './scripts/browserPath.mjs';

// CHROMIUM_PATH, Debian's chromium, or Playwright's own (scripts/ensure-browser.mjs installs
// Debian's before the tests where there is none): no browser is downloaded at install time.
const executablePath = (await findBrowser()) ?? undefined;

export default defineConfig({
  testDir: 'e2e',
  timeout: 120_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: 'http://127.0.0.1:4173',
    headless: true,
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--enable-unsafe-webgpu',
        '--enable-unsafe-swiftshader',
        '--use-webgpu-adapter=swiftshader',
        '--use-angle=swiftshader',
      ],
    },
  },
  webServer: {
    command: 'npx vite preview --host 127.0.0.1 --port 4173 --strictPort',
    url: 'http://127.0.0.1:4173',
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
