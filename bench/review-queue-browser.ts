/**
 * The review page at CoNLL-2003 scale in headless Chromium: conll03-distant's 14,041 training
 * sentences (one document a line) imported through the page, weak labels made from a gazetteer of
 * the strings their distant labels matched, and a finished run written into IndexedDB as the
 * training worker writes one (its predictions: the gold labels; its uncertainty: seeded as in
 * bench/review-queue.ts). Then, for each build given: the wall time and the longest main-thread
 * task (PerformanceObserver "longtask") while the queue opens, while it switches to reach, while
 * five sentences are decided with `a`, while the editor, opened from the queue on the corrections
 * layer, labels a token and takes it back five times, while the run's predictions are exported
 * from the Overview, and while the run's page opens (its method's records read). Builds alternate (A B A B ...) so that a shared machine's noise falls on both.
 *
 *   npm run build && npx tsx bench/review-queue-browser.ts [--builds dist,/tmp/old/dist] [--rounds 2] [--out FILE]
 *
 * A build is a folder that `vite build` wrote (dist/ of this checkout, or of a worktree of an older commit).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from '@playwright/test';
import { chooseLines, importGazetteer, measureStep, newProject, submitImport, watchLongTasks, withStudio } from './browser';
import { dataFolder } from '../src/cli/dataFolder';
import { readCorpus } from '../src/cli/readCorpus';
import { tokenTexts } from '../src/core/types';

const { values } = parseArgs({
  options: { builds: { type: 'string', default: 'dist' }, rounds: { type: 'string', default: '1' }, out: { type: 'string' }, data: { type: 'string' } },
});
const src = `${dataFolder(values.data)}/conll03-distant/`;
const text = readFileSync(`${src}train_text.txt`, 'utf8').trimEnd();
const gold = readFileSync(`${src}train_label_true.txt`, 'utf8').trimEnd().split('\n');
const distant = readCorpus(`${src}train_text.txt`, { format: 'lines', labels: [{ file: `${src}train_label_dist.txt`, kind: 'weak', name: 'weak' }] });
const entries = new Map<string, string>();
distant.docs.forEach((d, k) => {
  const words = tokenTexts(d);
  for (const s of distant.layers[0].annotations[k].spans) entries.set(words.slice(s.start, s.end).join(' '), s.label);
});
const gazetteer = [...entries].map(([p, t]) => `${t}\t${p}`).join('\n');
const sentences = text.split('\n').length;

type Step = Awaited<ReturnType<typeof measureStep>>;

/** A finished run over every document, written as finishRun writes one: a predicted layer, its rows, the signals, the run. */
async function seedRun(page: Page, projectName: string): Promise<number> {
  return page.evaluate(
    async ({ projectName, gold }) => {
      const req = indexedDB.open('ner-studio');
      const db: IDBDatabase = await new Promise((r, j) => {
        req.onsuccess = () => r(req.result);
        req.onerror = () => j(req.error);
      });
      const all = <T>(store: string) =>
        new Promise<T[]>((r) => {
          const g = db.transaction(store).objectStore(store).getAll();
          g.onsuccess = () => r(g.result as T[]);
        });
      const project = (await all<{ id: number; name: string }>('projects')).find((p) => p.name === projectName)!;
      const docs = (await all<{ id: number; projectId: number; offsets: Uint32Array }>('documents'))
        .filter((d) => d.projectId === project.id)
        .sort((a, b) => a.id - b.id);
      // mulberry32(1), as bench/review-queue.ts seeds its uncertainty.
      let s = 1;
      const rand = () => {
        s = (s + 0x6d2b79f5) | 0;
        let t = Math.imul(s ^ (s >>> 15), 1 | s);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      const spansOf = (tags: string[]) => {
        const out: { start: number; end: number; label: string }[] = [];
        tags.forEach((tag, t) => {
          if (tag.startsWith('B-') || (tag.startsWith('I-') && (t === 0 || tags[t - 1].slice(2) !== tag.slice(2))))
            out.push({ start: t, end: t + 1, label: tag.slice(2) });
          else if (tag.startsWith('I-')) out[out.length - 1].end = t + 1;
        });
        return out;
      };
      const tx = db.transaction(['runs', 'layers', 'annotations', 'signals'], 'readwrite');
      const done = new Promise((r, j) => {
        tx.oncomplete = r;
        tx.onerror = () => j(tx.error);
      });
      const add = (store: string, row: object) =>
        new Promise<number>((r) => {
          const q = tx.objectStore(store).add(row);
          q.onsuccess = () => r(q.result as number);
        });
      const now = Date.now();
      const runId = await add('runs', { projectId: project.id, kind: 'train', config: { method: { name: 'wsl' } }, status: 'running', createdAt: now });
      const layerId = await add('layers', { projectId: project.id, kind: 'predicted', name: `run ${runId}`, createdAt: now });
      docs.forEach((d, k) => {
        const n = d.offsets.length / 2;
        tx.objectStore('annotations').add({ layerId, docId: d.id, spans: spansOf(gold[k].split(' ')), oMode: 'complete' });
        tx.objectStore('signals').put({ runId, docId: d.id, uncertainty: Float32Array.from({ length: n }, () => (rand() < 0.1 ? rand() : rand() * 0.05)) });
      });
      tx.objectStore('runs').put({
        id: runId,
        projectId: project.id,
        kind: 'train',
        config: { method: { name: 'wsl' } },
        status: 'done',
        metrics: { predictedLayerId: layerId, history: [] },
        createdAt: now,
        finishedAt: now,
      });
      await done;
      db.close();
      return runId;
    },
    { projectName, gold },
  );
}

async function benchBuild(root: string, port: number) {
  return withStudio(
    async (browser, url) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      // tsx keeps function names with a helper the page lacks; the seeding function below names its helpers.
      await page.addInitScript('window.__name = (f) => f');
      await watchLongTasks(page);
      await newProject(page, url, 'queue');
      await chooseLines(page, text);
      await submitImport(page);
      await importGazetteer(page, gazetteer);
      await page.getByRole('button', { name: 'Make weak labels' }).click();
      await page.getByTestId('stats-table').waitFor({ timeout: 300_000 });
      const runId = await seedRun(page, 'queue');
      const steps: Record<string, Step & { queued?: string; workerReadMs?: number; workerRankMs?: number }> = {};
      const items = page.getByTestId('review-queue').locator('li');
      const summary = page.getByTestId('review-summary');
      steps.open = await measureStep(page, async () => {
        await page.getByRole('link', { name: 'Review queue', exact: true }).click();
        await items.first().waitFor({ timeout: 120_000 });
        await summary.filter({ hasText: 'the model is least sure' }).waitFor();
      });
      const worker = async () => ({
        queued: (await summary.textContent())?.split(':')[0],
        workerReadMs: Number(await summary.getAttribute('data-read-ms')) || undefined,
        workerRankMs: Number(await summary.getAttribute('data-rank-ms')) || undefined,
      });
      Object.assign(steps.open, await worker());
      steps.reach = await measureStep(page, async () => {
        await page.getByLabel('Review signal').selectOption('reach');
        await summary.filter({ hasText: 'correcting it reaches farthest' }).waitFor({ timeout: 120_000 });
        await items.first().waitFor();
      });
      Object.assign(steps.reach, await worker());
      steps.decide = await measureStep(page, async () => {
        await page.getByTestId('review-box').focus();
        for (let k = 0; k < 5; k++) {
          await page.keyboard.press('a');
          await items.nth(k).and(page.locator('[data-decided="run"]')).waitFor();
        }
      });
      // The editor on the corrections layer, opened from the queue: each edit is saved there, which
      // the review loop watches (it counts the corrections).
      await page.keyboard.press('Enter');
      await page.getByTestId('annotate-box').waitFor();
      await page.getByTestId('annotate-box').focus();
      steps.edit = await measureStep(page, async () => {
        for (let k = 0; k < 5; k++) {
          for (const key of ['1', 'Backspace']) {
            await page.keyboard.press(key);
            await page.waitForTimeout(250);
          }
        }
      });
      // The run's predictions exported as CoNLL from the Overview: every document read and written.
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      const row = page.locator('[data-layer^="run "]');
      await row.waitFor({ timeout: 120_000 });
      steps.export = await measureStep(page, async () => {
        await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), row.getByRole('button', { name: 'Export' }).click()]);
        await page.getByTestId('export-result').waitFor();
      });
      // The run's page: its scores, and its method's records (a default run has none a view draws).
      steps.runPage = await measureStep(page, async () => {
        // A link followed in the page (no reload, which would time the app's start too).
        await page.evaluate((runId) => {
          location.hash = location.hash.replace(/^#\/p\/(\d+).*$/, `#/p/$1/runs/${runId}`);
        }, runId);
        await page.getByTestId(`signals-${runId}`).waitFor({ state: 'attached', timeout: 120_000 });
      });
      await context.close();
      return steps;
    },
    port,
    [],
    root,
  );
}

const builds = values.builds!.split(',').map((b) => resolve(b));
const rounds = Number(values.rounds);
const runs: { build: string; round: number; steps: Awaited<ReturnType<typeof benchBuild>> }[] = [];
for (let r = 1; r <= rounds; r++)
  for (const [k, b] of builds.entries()) {
    console.error(`round ${r}: ${b}`);
    const steps = await benchBuild(dirname(b), 4180 + k);
    console.error(JSON.stringify(steps));
    runs.push({ build: b, round: r, steps });
  }
const record = {
  bench: 'the review page at CoNLL-2003 scale, headless Chromium',
  sentences,
  gazetteer: entries.size,
  machine: `${cpus().length} × ${cpus()[0]?.model}`,
  at: new Date().toISOString(),
  runs,
};
console.log(JSON.stringify(record, null, 1));
if (values.out) writeFileSync(values.out, `${JSON.stringify(record, null, 1)}\n`);
