import { spawn, type ChildProcess } from 'node:child_process';
import { chromium, type Browser, type Page } from '@playwright/test';

/** Serves dist/ of `root` (this checkout, or a worktree of another commit) with `vite preview` and opens the system Chromium, for benchmarks in a real browser. */
export async function withStudio<T>(
  fn: (browser: Browser, url: string) => Promise<T>,
  port = 4175,
  extraArgs: string[] = [],
  root = process.cwd(),
): Promise<T> {
  const server: ChildProcess = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    stdio: 'ignore',
    detached: true,
    cwd: root,
  });
  const url = `http://127.0.0.1:${port}/`;
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(url)).ok) break;
      } catch {
        if (i > 100) throw new Error('vite preview did not start');
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // WebGPU and WebGL (SwiftShader) need the GPU process; the other benchmarks turn it off.
      args: [
        '--no-sandbox',
        ...(extraArgs.includes('--enable-unsafe-webgpu') ? [] : ['--disable-gpu']),
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        ...extraArgs,
      ],
    });
    try {
      return await fn(browser, url);
    } finally {
      await browser.close();
    }
  } finally {
    if (server.pid) process.kill(-server.pid);
  }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Keeps the longest main-thread task (PerformanceObserver "longtask") of each page the context opens, for `measureStep`. */
export async function watchLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __longest: number };
    w.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longest = Math.max(w.__longest, e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
}

/** Runs `step` and returns its wall seconds and the longest main-thread task in it (ms; `watchLongTasks` first). */
export async function measureStep(page: Page, step: () => Promise<void>): Promise<{ seconds: number; longestTaskMs: number }> {
  await page.evaluate(() => {
    (window as unknown as { __longest: number }).__longest = 0;
  });
  const t0 = Date.now();
  await step();
  const seconds = (Date.now() - t0) / 1000;
  // A long task is reported when it ends: give the last one time to land.
  await page.waitForTimeout(300);
  const longestTaskMs = await page.evaluate(() => (window as unknown as { __longest: number }).__longest);
  return { seconds: Math.round(seconds * 100) / 100, longestTaskMs: Math.round(longestTaskMs) };
}

/** Creates a project from the project list and opens its Import page. */
export async function newProject(page: Page, url: string, name: string): Promise<void> {
  await page.goto(url);
  await page.getByTestId('project-list').waitFor();
  await page.getByLabel('Project name').fill(name);
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.getByRole('link', { name, exact: true }).click();
  await page.getByRole('link', { name: 'Import', exact: true }).click();
}

/** Chooses text of one document a line as the file to import, on the Import page. */
export async function chooseLines(page: Page, text: string): Promise<void> {
  await page.getByLabel('Format').selectOption('lines');
  await page.getByLabel('Corpus files').setInputFiles({ name: 'corpus.txt', mimeType: 'text/plain', buffer: Buffer.from(text) });
}

/** Imports the chosen files (confirming if the page asks), until it says what it stored. */
export async function submitImport(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Import' }).click();
  const confirm = page.getByRole('button', { name: /Import anyway|Continue/ });
  const msg = page.getByTestId('import-result');
  await Promise.race([msg.waitFor({ timeout: 600_000 }), confirm.waitFor({ timeout: 600_000 }).then(() => confirm.click())]);
  await msg.waitFor({ timeout: 600_000 });
}

/** Imports a gazetteer (TSV: type, phrase) on the Gazetteers page and opens the Weak labels page. */
export async function importGazetteer(page: Page, tsv: string): Promise<void> {
  await page.getByRole('link', { name: 'Gazetteers', exact: true }).click();
  await page.getByLabel('Gazetteer file').setInputFiles({ name: 'gazetteer.tsv', mimeType: 'text/plain', buffer: Buffer.from(tsv) });
  await page.getByRole('button', { name: 'Import gazetteer' }).click();
  await page.getByTestId('gazetteer-result').waitFor({ timeout: 120_000 });
  await page.getByRole('link', { name: 'Weak labels', exact: true }).click();
}
