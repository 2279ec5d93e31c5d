import { readFileSync } from 'node:fs';
import { test as base, expect, type Page } from '@playwright/test';
import { demoCorpora as parseDemoCorpora, type DemoAsset } from '../src/core/demoAsset';
import type { ParsedCorpus } from '../src/core/types';

export const demo = JSON.parse(readFileSync(new URL('../public/demo/bc5cdr-demo.json', import.meta.url), 'utf8')) as DemoAsset;

/** The demo's corpora parsed by the same core code the page runs, in import order. */
export function demoCorpora(): ParsedCorpus[] {
  return parseDemoCorpora(demo);
}

/**
 * Every test checks that the page asked nothing of any other origin, and that it logged no
 * uncaught error.
 */
export const test = base.extend<{ outside: string[] }>({
  outside: async ({ page, baseURL }, use) => {
    const origin = new URL(baseURL!).origin;
    const outside: string[] = [];
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) outside.push(url);
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await use(outside);
    expect(outside, 'requests outside the origin').toEqual([]);
    expect(errors, 'uncaught page errors').toEqual([]);
  },
});

export { expect };

/**
 * Screenshots for the README, taken only by `npm run docs:screenshots` (DOCS_SCREENSHOTS=1), so
 * that `npm test` never rewrites tracked files.
 */
export async function docScreenshot(target: { screenshot(o: { path: string }): Promise<unknown> }, file: string): Promise<void> {
  if (process.env.DOCS_SCREENSHOTS === '1') await target.screenshot({ path: `docs/${file}` });
}

/** Opens the app and waits for the first start (demo load) to finish. */
export async function openStudio(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.getByTestId('project-list')).toBeVisible();
}

export async function openDemo(page: Page): Promise<void> {
  await openStudio(page);
  await page.getByRole('link', { name: demo.name }).click();
  await expect(page.getByTestId('project-name')).toHaveText(demo.name);
}

export async function createProject(page: Page, name: string): Promise<void> {
  await openStudio(page);
  await page.getByLabel('Project name').fill(name);
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.getByRole('link', { name, exact: true }).click();
  await expect(page.getByTestId('project-name')).toHaveText(name);
}

/** Makes the demo's weak labels (priority aggregation) on the Weak labels page. */
export async function makeWeakLabels(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Weak labels', exact: true }).click();
  await page.getByLabel('Aggregation').selectOption('priority');
  await page.getByRole('button', { name: 'Make weak labels' }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
}

/** Trains a small model (WASM) on the weak aggregate from the Train page, and waits for it to finish. */
export async function trainSmallRun(page: Page, o: { hidden: number; epochs: number; members?: number }): Promise<void> {
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Training layer').selectOption({ label: 'weak: aggregate (priority)' });
  await page.getByLabel('Hidden units').fill(String(o.hidden));
  await page.getByLabel('Epochs', { exact: true }).fill(String(o.epochs));
  await page.getByLabel('Backend').selectOption('wasm');
  if (o.members !== undefined && o.members !== 1) await page.getByLabel('Ensemble members').fill(String(o.members));
  // A project may already list finished runs (one imported with it, say): wait for this run's own row.
  const table = page.getByTestId('runs-table');
  await expect(table.or(page.getByText('No training run yet.'))).toBeVisible();
  const rows = table.locator('tbody tr');
  const before = await rows.count();
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect.poll(() => rows.count()).toBeGreaterThan(before);
  await expect(rows.first().locator('td').nth(1)).toHaveText('done', { timeout: 240_000 });
}

/** Every row of one of the studio's IndexedDB stores, read straight from the page. */
export async function storeRows<T>(page: Page, store: string): Promise<T[]> {
  return page.evaluate(async (store) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    return new Promise<unknown[]>((r) => {
      const g = db.transaction(store).objectStore(store).getAll();
      g.onsuccess = () => r(g.result);
    });
  }, store) as Promise<T[]>;
}

/** Edits the method options (the JSON under "Method options") as an object. */
export async function editOptions(page: Page, edit: (o: { method: Record<string, unknown>; pipeline: Record<string, unknown> }) => void) {
  await page.getByText('Method options').click();
  await page.getByLabel('advanced: edit as JSON').check();
  const box = page.getByLabel('Options (JSON)');
  const o = JSON.parse(await box.inputValue());
  edit(o);
  await box.fill(JSON.stringify(o, null, 2));
}
