/**
 * A newcomer's corpus with distant labels, through the page as a new user brings it: the training
 * text with its distant labels imported as a weak layer on the train split, dev and test with
 * their gold, then the Train button with every default. Prints what the run page says (its facts,
 * test and dev F1), to set beside what the suite measured for the same corpus
 * (bench/configs/corpora.json, the page's default row). The corpus is a folder of the data folder
 * laid out as the distant corpora are (train_text.txt, train_label_dist.txt, valid_*, test_*).
 *
 *   npm run build && npx tsx bench/newcomer-distant.ts --corpus webpage-distant [--seed 1] [--data DIR] [--out FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from '@playwright/test';
import { dataFolder } from '../src/cli/dataFolder';
import { newProject, submitImport, withStudio } from './browser';

const { values } = parseArgs({
  options: { corpus: { type: 'string' }, seed: { type: 'string', default: '1' }, data: { type: 'string' }, out: { type: 'string' } },
});
if (!values.corpus) throw new Error('newcomer-distant: --corpus NAME (a folder of the data folder, e.g. webpage-distant)');
const dir = join(dataFolder(values.data), values.corpus);

async function importSplit(page: Page, split: string, text: string, labels: string, kind: 'weak' | 'gold') {
  const file = (name: string) => ({ name, mimeType: 'text/plain', buffer: readFileSync(join(dir, name)) });
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('lines');
  await page.getByLabel('Split').selectOption(split);
  await page.getByLabel('Corpus files').setInputFiles(file(text));
  await page.getByLabel('Label files').setInputFiles(file(labels));
  await page.getByLabel(`Kind of ${labels}`).selectOption(kind);
  await page.getByLabel(`Layer name of ${labels}`).fill(kind === 'gold' ? 'gold' : 'distant');
  await submitImport(page);
}

const result = await withStudio(async (browser, url) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await newProject(page, url, values.corpus!);
  await importSplit(page, 'train', 'train_text.txt', 'train_label_dist.txt', 'weak');
  await importSplit(page, 'dev', 'valid_text.txt', 'valid_label_true.txt', 'gold');
  await importSplit(page, 'test', 'test_text.txt', 'test_label_true.txt', 'gold');
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Seed', { exact: true }).fill(values.seed!);
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  const status = page.getByTestId('runs-table').locator('tbody tr').first().locator('td').nth(1);
  await status.filter({ hasText: /^(done|failed)$/ }).waitFor({ timeout: 3_600_000 });
  const seconds = Math.round((Date.now() - t0) / 1000);
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText (the rendered text), not the DOM property
  const ended = await status.innerText();
  await page.getByTestId('runs-table').locator('tbody tr').first().locator('a').first().click();
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText (the rendered text), not the DOM property
  const facts = await page.getByTestId('run-facts').innerText();
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText puts a tab between cells, which the split reads
  const row = async (id: string) => (await page.getByTestId(id).locator('tbody tr').first().innerText()).split('\t');
  return {
    corpus: values.corpus,
    seed: Number(values.seed),
    status: ended,
    seconds,
    facts,
    test: await row('run-test-scores'),
    dev: await row('run-dev-scores'),
  };
}, 4183);
console.log(JSON.stringify(result, null, 2));
if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
