/**
 * The studio at ten times CoNLL-2003 (issue 22): conll03-distant's training text repeated
 * `--times` times (10: 140,410 sentences, 2.0M tokens, one document a line) and one gazetteer of
 * the typed strings its distant labels matched, through the pages in headless Chromium. For each
 * step: the wall time, and the longest main-thread task (PerformanceObserver "longtask") while it
 * ran; last, the project exported as one file and opened again as a new project. Run after `npm run build`: `npx tsx bench/scale-browser.ts [--times 10]`; the corpus is
 * generated from the data folder (--data, NER_STUDIO_DATA) into bench/out/scale/.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Page } from '@playwright/test';
import { chooseLines, importGazetteer, measureStep, newProject, submitImport, watchLongTasks, withStudio } from './browser';
import { dataFolder } from '../src/cli/dataFolder';
import { readCorpus } from '../src/cli/readCorpus';
import { tokenTexts } from '../src/core/types';

const { values } = parseArgs({ options: { times: { type: 'string', default: '10' }, data: { type: 'string' } } });
const times = Number(values.times);
const src = `${dataFolder(values.data)}/conll03-distant/`;
const out = new URL('./out/scale/', import.meta.url);
mkdirSync(out, { recursive: true });

const text = readFileSync(`${src}train_text.txt`, 'utf8').trimEnd();
const corpus = `${Array.from({ length: times }, () => text).join('\n')}\n`;
writeFileSync(new URL('corpus.txt', out), corpus);
// The gazetteer: each distinct typed string the distant labels matched.
const distant = readCorpus(`${src}train_text.txt`, { format: 'lines', labels: [{ file: `${src}train_label_dist.txt`, kind: 'weak', name: 'weak' }] });
const entries = new Map<string, string>();
distant.docs.forEach((d, k) => {
  const words = tokenTexts(d);
  for (const s of distant.layers[0].annotations[k].spans) entries.set(words.slice(s.start, s.end).join(' '), s.label);
});
writeFileSync(new URL('gazetteer.tsv', out), [...entries].map(([p, t]) => `${t}\t${p}`).join('\n'));
const lines = corpus.split('\n').length - 1;
const tokens = corpus.split(/\s+/).filter(Boolean).length;
console.error(`corpus: ${lines.toLocaleString()} sentences, ${tokens.toLocaleString()} tokens; gazetteer: ${entries.size.toLocaleString()} entries`);

/** measureStep, saying its seconds as it goes. */
async function measure(page: Page, step: () => Promise<void>) {
  const r = await measureStep(page, step);
  console.error(`  ${r.seconds.toFixed(1)} s`);
  return r;
}

const result = await withStudio(async (browser, url) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await watchLongTasks(page);
  const steps: Record<string, { seconds: number; longestTaskMs: number }> = {};
  await newProject(page, url, 'scale');
  await chooseLines(page, corpus);
  console.error('import');
  steps.import = await measure(page, () => submitImport(page));
  console.error('overview');
  steps.overview = await measure(page, async () => {
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    await page.getByTestId('doc-count').first().waitFor({ timeout: 600_000 });
  });
  console.error('overview tokens');
  steps.overviewTokens = await measure(page, async () => {
    await page.getByTestId('token-count').filter({ hasText: /\d/ }).waitFor({ timeout: 600_000 });
  });
  console.error('documents');
  steps.documents = await measure(page, async () => {
    await page.getByRole('link', { name: 'Documents', exact: true }).click();
    await page.locator('.doc-row').first().waitFor({ timeout: 600_000 });
  });
  await importGazetteer(page, readFileSync(new URL('gazetteer.tsv', out), 'utf8'));
  let weakReport = '';
  console.error('weakLabels');
  steps.weakLabels = await measure(page, async () => {
    await page.getByRole('button', { name: 'Make weak labels' }).click();
    await page.getByTestId('stats-table').waitFor({ timeout: 900_000 });
    weakReport = (await page.getByText(/tokens labeled in/).textContent()) ?? '';
  });
  console.error('distribution');
  steps.distribution = await measure(page, async () => {
    await page.getByRole('link', { name: 'Label distribution', exact: true }).click();
    await page.locator('[data-testid="distribution-table"] tbody tr, [data-testid="distribution-empty"]').first().waitFor({ timeout: 600_000 });
  });
  // The training page counts each layer's entities on train and dev (projectStats, in the query
  // worker) to check the layers before a run: this project has no gold layer, which it says.
  console.error('train page checks');
  steps.trainChecks = await measure(page, async () => {
    await page.getByRole('link', { name: 'Train', exact: true }).click();
    await page.locator('[data-problem="layers"]').first().waitFor({ timeout: 600_000 });
  });
  // The whole project as one file (db/projectFile.ts), then opened as a new project from the list.
  console.error('export project');
  let projectFile = { path: '', bytes: 0 };
  steps.exportProject = await measure(page, async () => {
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    const [file] = await Promise.all([page.waitForEvent('download', { timeout: 600_000 }), page.getByRole('button', { name: 'Export the project' }).click()]);
    const path = fileURLToPath(new URL('project.ner-studio.json', out));
    await file.saveAs(path);
    projectFile = { path, bytes: statSync(path).size };
  });
  console.error('open project file');
  steps.openProjectFile = await measure(page, async () => {
    await page.getByRole('link', { name: 'NER Studio' }).click();
    await page.getByLabel('Project file').setInputFiles(projectFile.path);
    await page.getByTestId('project-import-result').waitFor({ timeout: 900_000 });
  });
  await context.close();
  return { steps, weakReport, projectFileBytes: projectFile.bytes };
});

console.log(
  JSON.stringify({ bench: `the studio at ${times}x conll03 train, headless Chromium`, sentences: lines, tokens, gazetteer: entries.size, ...result }, null, 1),
);
