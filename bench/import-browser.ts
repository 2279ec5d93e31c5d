/**
 * Import of all of conll03-distant train (14,041 sentences: text plus gold and distant label
 * files) into IndexedDB through the studio's Import page in headless Chromium, from the click to
 * the committed transaction. Run after `npm run build`: `npx tsx bench/import-browser.ts [runs]`.
 */
import { readFileSync } from 'node:fs';
import { median, withStudio } from './browser';
import { dataFolder } from '../src/cli/dataFolder';

const DATA = new URL(`file://${dataFolder()}/conll03-distant/`);
const file = (name: string) => ({ name, mimeType: 'text/plain', buffer: readFileSync(new URL(name, DATA)) });
const runs = Number(process.argv[2] ?? 3);

const result = await withStudio(async (browser, url) => {
  const times: { reported: number; wall: number }[] = [];
  for (let r = 0; r < runs; r++) {
    const context = await browser.newContext();
    const page = await context.newPage();

    await page.goto(url);
    await page.getByTestId('project-list').waitFor();
    await page.getByLabel('Project name').fill(`bench ${r}`);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('link', { name: `bench ${r}`, exact: true }).click();
    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByLabel('Format').selectOption('lines');
    await page.getByLabel('Corpus files').setInputFiles(file('train_text.txt'));
    await page.getByLabel('Label files').setInputFiles([file('train_label_true.txt'), file('train_label_dist.txt')]);
    const t0 = Date.now();
    await page.getByRole('button', { name: 'Import' }).click();
    const msg = await page.getByTestId('import-result').textContent({ timeout: 120_000 });
    const wall = (Date.now() - t0) / 1000;
    const m = /Imported ([\d,]+) documents .* in ([\d.]+) s/.exec(msg ?? '');
    if (!m) throw new Error(`import failed: ${msg}`);
    if (m[1] !== '14,041') throw new Error(`expected 14,041 documents, got ${m[1]}`);
    times.push({ reported: Number(m[2]), wall });
    await context.close();
  }
  return times;
});
console.log(
  JSON.stringify({
    bench: 'import conll03 train (text + gold + distant) into IndexedDB, headless Chromium',
    runs: result,
    medianSeconds: median(result.map((t) => t.reported)),
    medianWallSeconds: median(result.map((t) => t.wall)),
  }),
);
