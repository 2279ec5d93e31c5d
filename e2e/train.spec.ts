import { createProject, docScreenshot, editOptions, expect, makeWeakLabels, openDemo, storeRows, test } from './fixtures';
import type { Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ModelFile } from '../src/core/modelFile';
import { scoreSpans, spanErrors } from '../src/core/metrics';
import type { Span } from '../src/core/types';
import { reliabilityLine, type SourceReliability } from '../src/core/weak/reliability';

/** The stored test-split spans of two layers, read straight from IndexedDB. */
async function testSpans(page: Page, layerIds: number[]) {
  return page.evaluate(async (layerIds) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const all = <T>(store: string) =>
      new Promise<T[]>((r) => {
        const g = db.transaction(store).objectStore(store).getAll();
        g.onsuccess = () => r(g.result as T[]);
      });
    const docs = (await all<{ id: number; split: string }>('documents')).filter((d) => d.split === 'test').sort((a, b) => a.id - b.id);
    const anns = [
      ...(await all<{ layerId: number; docId: number; spans: { start: number; end: number; label: string }[] }>('annotations')),
      ...((await all<unknown>('layerChunks')) as { layerId: number; docIds: number[]; anns: object[] }[]).flatMap((c) =>
        c.docIds.map((docId, k) => ({ ...c.anns[k], layerId: c.layerId, docId })),
      ),
    ] as { layerId: number; docId: number; spans: { start: number; end: number; label: string }[] }[];
    return layerIds.map((l) => docs.map((d) => anns.find((a) => a.layerId === l && a.docId === d.id)?.spans ?? []));
  }, layerIds);
}

async function startRun(
  page: Page,
  opts: {
    epochs: number;
    backend: string;
    hidden?: number;
    method?: string;
    seed?: number;
    lr?: number;
    dictDropout?: string;
    typeShifts?: boolean;
    pretrain?: number;
    starter?: boolean;
    publicLibrary?: boolean;
    sourceTrust?: boolean;
    layer?: string;
    average?: number;
    members?: number;
    shareDropout?: boolean;
    options?: (o: { method: Record<string, unknown>; pipeline: Record<string, unknown> }) => void;
  },
) {
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Training layer').selectOption({ label: opts.layer ?? 'weak: aggregate (priority)' });
  await page.getByLabel('Method', { exact: true }).selectOption({ label: opts.method ?? 'WSL: strong and weak labels, the weak as if gold' });
  if (opts.options) await editOptions(page, opts.options);
  if (opts.seed !== undefined) await page.getByLabel('Seed', { exact: true }).fill(String(opts.seed));
  if (opts.lr !== undefined) await page.getByLabel('Learning rate').fill(String(opts.lr));
  // One training per run where a test is not about the dictionary dropout (the page's "dev" trains the first stage three times).
  await page.getByLabel('Dictionary dropout').fill(opts.dictDropout ?? '0.5');
  if (opts.typeShifts !== undefined) await page.getByLabel('Type shifts', { exact: true }).setChecked(opts.typeShifts);
  if (opts.pretrain !== undefined) await page.getByLabel('Pre-training epochs').fill(String(opts.pretrain));
  if (opts.average !== undefined) await page.getByLabel('Weight averaging').fill(String(opts.average));
  if (opts.members !== undefined) await page.getByLabel('Ensemble members').fill(String(opts.members));
  if (opts.shareDropout !== undefined) await page.getByLabel("Share the first member's dropout").setChecked(opts.shareDropout);
  if (opts.starter !== undefined) await page.getByLabel('Starter model features').setChecked(opts.starter);
  if (opts.publicLibrary !== undefined) await page.getByLabel('Public gazetteer library').setChecked(opts.publicLibrary);
  if (opts.sourceTrust !== undefined) await page.getByLabel("Sources' trust").setChecked(opts.sourceTrust);
  await page.getByLabel('Hidden units').fill(String(opts.hidden ?? 16));
  await page.getByLabel('Epochs', { exact: true }).fill(String(opts.epochs));
  await page.getByLabel('Backend').selectOption(opts.backend);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
}

/** A one-epoch WSL run of 8 units on WASM from the training page, waited for: its id. */
async function smallRun(page: Page, timeout = 240_000): Promise<number> {
  await startRun(page, { epochs: 1, backend: 'wasm', hidden: 8 });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout });
  return Number(await latestRun(page).first().textContent());
}

/** The cells of the newest training run (the table lists newest first). */
function latestRun(page: Page) {
  return page.getByTestId('runs-table').locator('tbody tr').first().locator('td');
}

async function runMetrics(page: Page, id: number) {
  return page.evaluate(async (id) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    return new Promise<{
      status: string;
      metrics: { backend: string; test: { overall: { f1: number; tp: number; fn: number } }; history: { loss: number }[]; predictedLayerId: number };
    }>((r) => {
      const g = db.transaction('runs').objectStore('runs').get(id);
      g.onsuccess = () => r(g.result);
    });
  }, id);
}

test('trains on the weak layer in a worker, stores predictions as a layer and the run with its scores', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  // With weight averaging: dev scores and the stored model read the averaged weights, and the run's page says so.
  await startRun(page, { epochs: 2, backend: 'wasm', average: 0.9 });
  // The preview server is cross-origin isolated, so the WASM backend runs its threaded build.
  await expect(page.getByTestId('backend-reason')).toContainText(/WASM with SIMD and [2-9] threads/);
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const id = Number(await latestRun(page).first().textContent());
  const { metrics } = await runMetrics(page, id);
  expect(metrics.history).toHaveLength(2);
  await expect(latestRun(page).nth(9)).toHaveText((100 * metrics.test.overall.f1).toFixed(1));
  // The run's own page: how it went, its scores per type, its curves and where its predictions are.
  await latestRun(page).first().getByRole('link').click();
  await expect(page.getByTestId('run-status')).toHaveText('done');
  await expect(page.getByTestId('run-page')).toContainText('weight averaging 0.9 (dev scores and the model read the averaged weights)');
  await expect(page.getByTestId('run-facts')).toContainText('2 epochs');
  await expect(page.getByTestId('run-test-scores').locator('tbody tr').first().locator('td').nth(3)).toHaveText((100 * metrics.test.overall.f1).toFixed(1));
  await expect(page.getByTestId('run-dev-chart')).toBeVisible();
  await expect(page.getByText(`run ${id}`, { exact: true })).toBeVisible();
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(page.locator(`[data-layer="run ${id}"] td`).nth(1)).toHaveText('predicted');
});

test("a finished run's model labels the documents imported after it, into its own layer, once", async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  const id = await smallRun(page);
  const { metrics } = await runMetrics(page, id);
  // New text comes in after the run; the weak labels are made again so that they label it too (the
  // run's own weak layer is replaced: the model reads the new one).
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('text');
  await page.getByLabel('Split').selectOption('unassigned');
  const raw = 'Naloxone reverses the antihypertensive effect of clonidine. Lithium caused tremor in two patients.';
  await page.getByLabel('Corpus files').setInputFiles({ name: 'later.txt', mimeType: 'text/plain', buffer: Buffer.from(raw) });
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByTestId('import-result')).toContainText('Imported 1 document and');
  const openRun = async () => {
    await page.getByRole('link', { name: 'Train', exact: true }).click();
    await latestRun(page).first().getByRole('link').click();
  };
  await openRun();
  const unseen = page.getByTestId('unseen-documents');
  await expect(unseen).toContainText('1 document came into the project after this run finished, and its model has not labeled it.');
  // The model reads the weak labels, which do not label the new text yet: the page says so, and where to make them.
  await expect(page.getByTestId('unseen-no-weak')).toHaveText(
    'The model reads the weak labels as features, and it has none yet: make the weak labels again first, or it is labeled without them.',
  );
  await makeWeakLabels(page);
  await openRun();
  await expect(unseen).toContainText('its model has not labeled it.');
  await expect(page.getByTestId('unseen-no-weak')).toHaveCount(0);
  await unseen.getByRole('button', { name: 'Label it with this model' }).click();
  await expect(unseen).toContainText(/its model labeled 1 document that came in after it finished \(\d+ spans?\), into the layer run \d+/, {
    timeout: 120_000,
  });
  await expect(unseen.getByRole('button')).toHaveCount(0);
  // The new document has a row in the run's layer; every other row, and the run's scores, are as they were.
  const docs = await storeRows<{ id: number; name: string }>(page, 'documents');
  const later = docs.find((d) => d.name.startsWith('later'))!;
  const rows = (await storeRows<{ layerId: number; docId: number }>(page, 'annotations')).filter((r) => r.layerId === metrics.predictedLayerId);
  expect(rows.map((r) => r.docId)).toContain(later.id);
  expect(rows).toHaveLength(docs.length);
  const after = await runMetrics(page, id);
  expect(after.metrics.test).toEqual(metrics.test);
  expect((after.metrics as { later?: unknown[] }).later).toHaveLength(1);
});

test("a finished run's model downloads as one file: `studio predict` labels the project's text with it as the studio did, and opened again it is a run that does the same", async ({
  page,
  outside: _,
}, info) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  const id = await smallRun(page);
  await latestRun(page).first().getByRole('link').click();
  const box = page.getByTestId('download-model');
  const [file] = await Promise.all([page.waitForEvent('download'), box.getByRole('button', { name: 'Download the model' }).click()]);
  expect(file.suggestedFilename()).toBe(`BC5CDR_demo-run-${id}.model.json`);
  await expect(page.getByTestId('download-model-done')).toContainText(`Downloaded BC5CDR_demo-run-${id}.model.json (`);
  const modelPath = info.outputPath('model.json');
  await file.saveAs(modelPath);
  const model = JSON.parse(readFileSync(modelPath, 'utf8')) as ModelFile;
  // The page's default reads the dictionary and the weak labels: the file says how to make both on new text.
  expect(model.format).toBe('ner-studio-model/1');
  expect(model.inputs?.groups).toEqual(expect.arrayContaining(['weak label: Chemical', 'weak label: Disease']));
  expect(model.inputs?.weak?.gazetteers.length).toBeGreaterThan(0);
  // The run's predictions of the project, exported as CoNLL, and the same text labeled on the command line with the file.
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  const [predicted] = await Promise.all([
    page.waitForEvent('download'),
    page.locator(`[data-layer="run ${id}"]`).getByRole('button', { name: 'Export' }).click(),
  ]);
  const studioPath = info.outputPath('studio.conll');
  await predicted.saveAs(studioPath);
  const cliPath = info.outputPath('cli.conll');
  const out = execFileSync('npx', ['tsx', 'src/cli/main.ts', 'predict', '--model', modelPath, '--corpus', studioPath, '--out', cliPath], { encoding: 'utf8' });
  expect(JSON.parse(out.trim().split('\n').at(-1)!)).toMatchObject({ features: model.inputs!.groups });
  const tags = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('-DOCSTART-'))
      .map((l) => l.split(/\s+/).at(-1));
  const studio = tags(studioPath);
  expect(studio.filter((t) => t !== 'O').length).toBeGreaterThan(0);
  expect(tags(cliPath)).toEqual(studio);
  // Opened again in the studio, the file is a run of its own: it labels the project's documents as the run did, and is scored on its gold.
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  // A file that is no model says so, and adds no run.
  await page
    .getByLabel('Model file')
    .setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "ner-studio-project"}') });
  await expect(page.getByTestId('open-model-error')).toHaveText(
    'bad.json: not a model file written by "train --out" or downloaded from a run\'s page (format ner-studio-project)',
  );
  await expect(page.getByTestId('runs-table').locator('tbody tr')).toHaveCount(1);
  await page.getByLabel('Model file').setInputFiles(modelPath);
  await expect(page.getByTestId('open-model-result')).toContainText(`Opened as run ${id + 1}`);
  await expect(latestRun(page).nth(5)).toHaveText('from a file');
  await page.getByTestId('open-model-result').getByRole('link').click();
  await expect(page.getByTestId('run-imported')).toContainText(`Opened from the file model.json: trained in project “BC5CDR demo”, run ${id}`);
  await expect(page.getByTestId('run-page')).toContainText('Test: not scored yet');
  await expect(page.getByTestId('run-facts')).toContainText('trained elsewhere');
  const unseen = page.getByTestId('unseen-documents');
  await expect(unseen).toContainText('This model came from the file model.json and has not labeled');
  await unseen.getByRole('button', { name: 'Label them with this model' }).click();
  await expect(unseen).toContainText(/its model labeled [\d,]+ documents \([\d,]+ spans?\), into the layer run \d+/, { timeout: 120_000 });
  const [original, opened] = await Promise.all([runMetrics(page, id), runMetrics(page, id + 1)]);
  expect(opened.metrics.test).toEqual(original.metrics.test);
  const [a, b] = await testSpans(page, [original.metrics.predictedLayerId, opened.metrics.predictedLayerId]);
  expect(b).toEqual(a);
  await expect(page.getByTestId('run-test-scores')).toBeVisible();
  // Compared beside the run it came from: the same test scores; it learned from no weak labels of this project, so it has none to beat.
  await page.getByRole('link', { name: 'Compare runs', exact: true }).click();
  const cells = (run: number) => page.locator(`[data-testid="compare-table"] tbody tr[data-run="${run}"] td`).allTextContents();
  await expect(page.getByTestId('compare-table').locator('tbody tr')).toHaveCount(2);
  const [from, copy] = [await cells(id), await cells(id + 1)];
  const scores = (c: string[]) => [...c.slice(-7, -3), ...c.slice(-2)];
  expect(scores(copy)).toEqual(scores(from));
  expect(copy.at(-3)).toBe('–');
});

test('an ensemble trains in the worker: each member a run of its own seed, decoded as one, every member kept with the model', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  // The field is checked as typed, naming it.
  await page.getByLabel('Ensemble members').fill('0');
  await expect(page.getByTestId('form-problems')).toHaveText('ensemble members: must be at least 1');
  await page.getByLabel('Ensemble members').fill('1.5');
  await expect(page.getByTestId('form-problems')).toContainText('ensemble members:');
  await startRun(page, { epochs: 1, backend: 'wasm', members: 2 });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const id = Number(await latestRun(page).first().textContent());
  const run = (await runMetrics(page, id)) as unknown as {
    metrics: { members: { seed: number; devF1: number }[]; history: { stage?: string }[]; dev: { overall: { f1: number } } };
  };
  // Member 1 is the run of the form's seed, member 2 of seed + 1000; each trained its one epoch.
  expect(run.metrics.members.map((x) => x.seed)).toEqual([1, 1001]);
  expect(run.metrics.history.map((h) => h.stage)).toEqual(['member 1 of 2: wsl', 'member 2 of 2: wsl']);
  // The model keeps both members' weights; its own weights are the first member's (a review-loop fine-tune starts from them).
  const model = await page.evaluate(async (id) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const rows = await new Promise<
      {
        runId: number;
        kind: string;
        state: { weights: Record<string, { data: Float32Array }>; members?: { weights: Record<string, { data: Float32Array }> }[] };
      }[]
    >((r) => {
      const g = db.transaction('models').objectStore('models').getAll();
      g.onsuccess = () => r(g.result);
    });
    const m = rows.find((x) => x.runId === id && x.kind === 'final')!.state;
    const name = Object.keys(m.weights)[0];
    const first = (w: Record<string, { data: Float32Array }>) => Array.from(w[name].data.slice(0, 4));
    return { members: m.members?.length, own: first(m.weights), member: m.members?.map((x) => first(x.weights)) };
  }, id);
  expect(model.members).toBe(2);
  expect(model.member![0]).toEqual(model.own);
  expect(model.member![1]).not.toEqual(model.own);
  await latestRun(page).first().getByRole('link').click();
  await expect(page.getByTestId('run-facts')).toContainText(
    `an ensemble of 2 models decoded as one (members' dev F1 ${run.metrics.members.map((x) => (100 * x.devF1).toFixed(1)).join(', ')}; seeds 1, 1001)`,
  );
  // Sharing the dictionary dropout is offered where an ensemble chooses it on dev, and then member 2 trains once, at member 1's choice.
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Ensemble members').fill('1');
  await expect(page.getByLabel("Share the first member's dropout")).toHaveCount(0);
  await startRun(page, { epochs: 1, backend: 'wasm', members: 2, dictDropout: 'dev', shareDropout: true });
  // The newest row is the first run's until this one's appears.
  await expect(latestRun(page).first()).not.toHaveText(String(id));
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const sharedId = Number(await latestRun(page).first().textContent());
  const shared = (await runMetrics(page, sharedId)) as unknown as { metrics: { dictionaryDropout: number; history: { stage?: string }[] } };
  expect(shared.metrics.history.map((h) => h.stage)).toEqual([
    ...[0, 0.5, 0.75].map((r) => `member 1 of 2: wsl (dictionary dropout ${r})`),
    'member 2 of 2: wsl',
  ]);
  await latestRun(page).first().getByRole('link').click();
  await expect(page.getByTestId('run-facts')).toContainText(
    `dictionary dropout ${shared.metrics.dictionaryDropout} (chosen on dev by the first member, at which every member trained)`,
  );
});

test("the noise-aware methods run from the training page: RoSTER's loss on its two-part head, NEEDLE's stages", async ({ page, outside: _ }) => {
  test.setTimeout(400_000);
  await openDemo(page);
  await makeWeakLabels(page);
  // The paper's GCE (the default is cross entropy, chosen on dev), set in the method options: q = 0.7.
  await startRun(page, {
    epochs: 1,
    backend: 'wasm',
    hidden: 8,
    method: 'RoSTER noise-robust stage only (noisy-label removal, GCE by option)',
    options: (o) => (o.method.q = 0.7),
  });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const rosterId = Number(await latestRun(page).first().textContent());
  const roster = await runMetrics(page, rosterId);
  expect((roster as unknown as { config: { model: { head: string }; method: { name: string } } }).config.model.head).toBe('twopart');
  expect((roster as unknown as { config: { method: Record<string, unknown> } }).config.method).toEqual({
    name: 'roster',
    q: 0.7,
    tau: 0.3,
    removeFromEpoch: 2,
    dropO: 0.25,
  });
  expect(roster.metrics.history).toHaveLength(1);
  await page.getByLabel('Method', { exact: true }).selectOption({ label: 'NEEDLE: LM pre-training, completion, noise-aware loss, fine-tuning' });
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  // Wait for the new run's row before reading its status (the RoSTER row is "done" already).
  await expect(latestRun(page).first()).toHaveText(String(rosterId + 1));
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 300_000 });
  const needle = await runMetrics(page, rosterId + 1);
  // The demo's train split has weak labels only: no fine-tuning stage, the initial model is WSL.
  const stages = (needle.metrics as unknown as { stages: { stage: string }[] }).stages.map((s) => s.stage);
  expect(stages).toEqual(['Stage I: language model', 'initial (WSL)', 'noise-aware continual training']);
  // Scored on the demo's test split (its 767 gold mentions), whatever a one-epoch, 8-unit model learned.
  expect(needle.metrics.test.overall.tp + needle.metrics.test.overall.fn).toBe(767);
  // The calibration NEEDLE used (dev Viterbi-score bins) is shown as stored.
  const m = needle.metrics as unknown as { calibration: { n: number; accuracy: number }[]; confidences: number[] };
  expect(m.calibration.reduce((a, b) => a + b.n, 0)).toBe(300); // one per dev sentence
  await page.getByRole('link', { name: 'Compare runs', exact: true }).click();
  await page.getByLabel(`compare run ${rosterId + 1}`).check();
  const rows = page.getByTestId(`calibration-${rosterId + 1}`).locator('tbody tr');
  await expect(rows).toHaveCount(m.calibration.length);
  for (const [k, b] of m.calibration.entries()) await expect(rows.nth(k).locator('td').nth(3)).toHaveText((100 * b.accuracy).toFixed(1));
  await expect(page.getByTestId(`confidences-${rosterId + 1}`)).toContainText(`the ${m.confidences.length} weak sentences`);
  await docScreenshot(page.getByTestId(`needle-${rosterId + 1}`), 'needle-calibration.png');

  // The label distribution shows NEEDLE's pseudo-labels and its completed ("corrected") weak labels, as stored.
  const stored = await page.evaluate(async (runId) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const all = <T>(s: string) =>
      new Promise<T[]>((r) => {
        const g = db.transaction(s).objectStore(s).getAll();
        g.onsuccess = () => r(g.result as T[]);
      });
    const train = new Set((await all<{ id: number; split: string }>('documents')).filter((d) => d.split === 'train').map((d) => d.id));
    const rows = (await all<{ runId: number; docId: number; pseudo?: unknown[]; completion?: Record<string, string> }>('signals')).filter(
      (r) => r.runId === runId && train.has(r.docId) && r.pseudo,
    );
    return {
      docs: rows.length,
      pseudoSpans: rows.reduce((a, r) => a + r.pseudo!.length, 0),
      completed: rows.reduce((a, r) => a + Object.keys(r.completion ?? {}).length, 0),
    };
  }, rosterId + 1);
  expect(stored.docs).toBeGreaterThan(0);
  await page.getByRole('link', { name: 'Label distribution', exact: true }).click();
  await page.getByLabel('Distribution split').selectOption('train');
  const pseudoRow = page.locator(`[data-testid="distribution-table"] tr[data-layer="pseudo-labels: run ${rosterId + 1}"] td`);
  await expect(pseudoRow.nth(1)).toHaveText(String(stored.docs));
  await expect(pseudoRow.nth(2)).toHaveText(String(stored.pseudoSpans));
  await expect(page.locator(`[data-testid="distribution-table"] tr[data-layer="corrected: run ${rosterId + 1} (weak + completion)"]`)).toHaveCount(
    stored.completed ? 1 : 0,
  );
});

test('an experiment from a config file runs its methods × seeds in turn; compares runs: scores per type, mean ± std over seeds, curves, errors by kind, and a diff of two runs', async ({
  page,
  outside: _,
}) => {
  test.setTimeout(500_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Training layer').selectOption({ label: 'weak: aggregate (priority)' });
  await page.getByLabel('Backend').selectOption('wasm');
  // One click loads the leave-one-corpus-out rule's candidates, as the suite measured them.
  await page.getByRole('button', { name: "The default rule's candidates" }).click();
  await expect(page.getByTestId('experiment-file')).toHaveText('bench/configs/corpora.json, with word-dropout.json and abbreviations.json: corpora');
  const methods = page.getByRole('group', { name: 'Experiment: what to run' }).getByRole('checkbox');
  await expect(methods).toHaveCount(5);
  for (const box of await methods.all()) await expect(box).toBeChecked();
  await page.getByLabel('Experiment seeds').fill('1');
  await expect(page.getByRole('button', { name: 'Run experiment (5 runs)' })).toBeEnabled();
  // An experiment config as the CLI reads it; its file settings are replaced by the project's layers.
  const config = {
    name: 'tiny',
    model: { hidden: 16 },
    train: { epochs: 5, lr: 0.01 },
    settings: [{ kind: 'distant', name: 'files only the CLI reads' }],
    methods: [
      { label: 'distant labels', method: { name: 'weak-labels' } },
      { label: 'WSL, 5 epochs', method: { name: 'wsl' } },
    ],
    seeds: [1, 2, 3],
    records: 'tiny.jsonl',
  };
  await page.getByLabel('Experiment config').setInputFiles({ name: 'tiny.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(config)) });
  await expect(page.getByTestId('experiment-file')).toHaveText('tiny.json: tiny');
  await page.getByLabel('Experiment seeds').fill('1, 2');
  await page.getByRole('button', { name: 'Run experiment (2 runs)' }).click();
  await expect(page.getByTestId('experiment-result')).toHaveText(
    'Queued 2 runs; not run here: distant labels (no training: the Weak labels page scores the weak layer).',
  );
  await expect(page.getByTestId('queue-progress')).toHaveText('experiment: run 1 of 2 · WSL, 5 epochs');
  await expect(page.getByTestId('runs-table').locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('runs-table').locator('tbody tr td:nth-child(2)')).toHaveText(['done', 'done'], { timeout: 480_000 });
  await expect(page.getByTestId('runs-table').locator('tbody tr td:nth-child(3)')).toHaveText(['WSL, 5 epochs', 'WSL, 5 epochs']);
  const ids = (await page.getByTestId('runs-table').locator('tbody tr td:nth-child(1)').allTextContents()).map(Number).sort((a, b) => a - b);
  // One method: on each seed its run is the best on dev, chosen among 1 of 1.
  await expect(page.getByTestId('best-on-dev').locator('tbody tr')).toHaveCount(2);
  for (const [k, id] of ids.entries()) {
    const row = page.getByTestId('best-on-dev').locator('tbody tr').nth(k);
    await expect(row).toHaveAttribute('data-run', String(id));
    await expect(row.locator('td').first()).toHaveText(String(k + 1));
    await expect(row.locator('td').last()).toHaveText('1 of 1 methods');
  }
  // Started again, the experiment has nothing left to run.
  await page.getByRole('button', { name: 'Run experiment (2 runs)' }).click();
  await expect(page.getByTestId('experiment-result')).toHaveText(
    'Queued 0 runs; 2 already done with the same config and seed; not run here: distant labels (no training: the Weak labels page scores the weak layer).',
  );
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.getByRole('region', { name: 'Experiment' }).scrollIntoViewIfNeeded();
  await docScreenshot(page, 'experiment.png');
  const runs = await Promise.all(ids.map((id) => runMetrics(page, id)));
  const f1 = runs.map((r) => r.metrics.test.overall.f1);
  expect(Math.max(...f1), 'the runs learned something, so the comparison has content').toBeGreaterThan(0.2);
  await page.getByRole('link', { name: 'Compare runs', exact: true }).click();
  for (const [k, id] of ids.entries()) {
    const cells = page.locator(`[data-testid="compare-table"] tr[data-run="${id}"] td`);
    await expect(cells.nth(8)).toHaveText((100 * f1[k]).toFixed(1));
  }
  // Sorting by test F1, highest first.
  await page.getByRole('button', { name: 'Test F1' }).click();
  const best = ids[f1[0] >= f1[1] ? 0 : 1];
  await expect(page.locator('[data-testid="compare-table"] tbody tr').first()).toHaveAttribute('data-run', String(best));
  // The two runs differ only in the seed: one group, mean ± sample std.
  const mean = (f1[0] + f1[1]) / 2;
  const sd = Math.sqrt(((f1[0] - mean) ** 2 + (f1[1] - mean) ** 2) / 1);
  await expect(page.getByTestId('group-table').locator('tbody tr')).toHaveCount(1);
  await expect(page.getByTestId('group-table').locator('tbody tr td').first()).toContainText('WSL, 5 epochs');
  await expect(page.getByTestId('group-table').locator('tbody tr td').nth(3)).toHaveText(`${(100 * mean).toFixed(1)} ± ${(100 * sd).toFixed(1)}`);
  // Errors by kind on the test split, against the stored layers.
  for (const id of ids) await page.getByLabel(`compare run ${id}`).check();
  const gold = (runs[0] as unknown as { config: { data: { goldLayerId: number } } }).config.data.goldLayerId;
  const [g, p1, p2] = (await testSpans(page, [gold, runs[0].metrics.predictedLayerId, runs[1].metrics.predictedLayerId])) as Span[][][];
  for (const [k, pred] of [p1, p2].entries()) {
    const e = spanErrors(g, pred);
    await expect(page.locator(`[data-testid="error-table"] tr[data-run="${ids[k]}"] td`)).toHaveText([
      `run ${ids[k]}`,
      ...[e.correct, e.wrongType, e.wrongBoundary, e.missed, e.spurious].map(String),
    ]);
  }
  const differing = p1.filter(
    (a, k) => JSON.stringify(a.map((s) => [s.start, s.end, s.label])) !== JSON.stringify(p2[k].map((s) => [s.start, s.end, s.label])),
  ).length;
  await expect(page.getByTestId('run-diff').locator('h2')).toContainText(`(${differing} test documents)`);
  await expect(page.getByTestId('compare-curves')).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 1100 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await docScreenshot(page, 'compare-runs.png');
});

test("the starter model reads every document, and its spans are the model's features of their own groups", async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await startRun(page, { epochs: 1, backend: 'wasm', starter: true });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const id = Number(await latestRun(page).first().textContent());
  const { metrics } = (await runMetrics(page, id)) as unknown as { metrics: { starter: { sentences: number; spans: Record<string, number> } } };
  // The demo is biomedical: the news tagger still finds some names of its four types there.
  expect(Object.keys(metrics.starter.spans)).toEqual(['LOC', 'MISC', 'ORG', 'PER']);
  expect(metrics.starter.sentences).toBeGreaterThan(300);
  expect(Object.values(metrics.starter.spans).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  // The final model reads them: its feature groups end with the starter's four.
  const groups = await page.evaluate(async (id) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const rows = await new Promise<{ runId: number; kind: string; state: { lexicon?: string[] } }[]>((r) => {
      const g = db.transaction('models').objectStore('models').getAll();
      g.onsuccess = () => r(g.result);
    });
    return rows.find((m) => m.runId === id && m.kind === 'final')?.state.lexicon;
  }, id);
  expect(groups?.slice(-4)).toEqual(['starter model: LOC', 'starter model: MISC', 'starter model: ORG', 'starter model: PER']);
  await latestRun(page).first().getByRole('link').click();
  await expect(page.getByRole('heading', { level: 2 })).toContainText(`Run ${id}`);
  await expect(page.getByTestId('run-status').locator('..')).toContainText('starter model in');
  await expect(page.getByTestId('run-facts')).toContainText(`spans in ${metrics.starter.sentences.toLocaleString('en-US')} sentences`);
});

test('the public gazetteer library as a run option: the worker reads the library from the app, and the run says which lists it read', async ({
  page,
  outside: _,
}) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await startRun(page, { epochs: 1, backend: 'wasm', publicLibrary: true });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const id = Number(await latestRun(page).first().textContent());
  // The demo's types are chemicals and diseases: no list of the library maps onto them, and the run says so.
  const { metrics } = (await runMetrics(page, id)) as unknown as { metrics: { publicLibrary: unknown[] } };
  expect(metrics.publicLibrary).toEqual([]);
  await latestRun(page).first().getByRole('link').click();
  await expect(page.getByTestId('run-status').locator('..')).toContainText('public gazetteers');
  await expect(page.getByTestId('run-facts')).toContainText("the public gazetteer library: no list maps onto the project's types");
});

test("each source's trust as a run option: the dictionary features read the HMM's estimates, and the run says which", async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await page.getByRole('link', { name: 'Weak labels', exact: true }).click();
  await page.getByLabel('Aggregation').selectOption('hmm');
  await page.getByRole('button', { name: 'Make weak labels' }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
  // The estimates the Weak labels page shows are the ones the run reads.
  const weakRuns = await storeRows<{ kind: string; status: string; metrics: { sources: { name: string; reliability?: SourceReliability[string] }[] } }>(
    page,
    'runs',
  );
  const sources = weakRuns.filter((r) => r.kind === 'weak' && r.status === 'done').at(-1)!.metrics.sources;
  const trust = Object.fromEntries(sources.filter((x) => x.reliability).map((x) => [x.name, x.reliability!]));
  expect(Object.keys(trust)).toContain('dict_core.txt');
  await startRun(page, { epochs: 1, backend: 'wasm', sourceTrust: true, layer: 'weak: aggregate (hmm)' });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const id = Number(await latestRun(page).first().textContent());
  const run = (await storeRows<{ id: number; config: { model: { sourceReliability: boolean } } }>(page, 'runs')).find((r) => r.id === id)!;
  expect(run.config.model.sourceReliability).toBe(true);
  await latestRun(page).first().getByRole('link').click();
  await expect(page.getByTestId('run-page')).toContainText(
    `dictionary features valued by each source's trust, as the HMM of the newest weak labels estimated it: ${reliabilityLine(trust)}`,
  );
});

test('a cancelled run leaves every layer as it was and is marked cancelled after a reload', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  const before = await page.getByTestId('layer-table').textContent();
  await startRun(page, { epochs: 50, backend: 'wasm' });
  await expect(page.getByTestId('train-progress')).toContainText('step', { timeout: 120_000 });
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(latestRun(page).nth(1)).toHaveText('cancelled', { timeout: 60_000 });
  await page.reload();
  await expect(latestRun(page).nth(1)).toHaveText('cancelled');
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(page.getByTestId('layer-table')).toHaveText(before!);
});

/** The keys of a run's stored stages (finished stages and the running stage's epoch checkpoint). */
async function stageKeys(page: Page, runId: number): Promise<string[]> {
  const rows = await storeRows<{ runId: number; kind: string; key?: string }>(page, 'models');
  return rows.filter((m) => m.runId === runId && m.kind === 'stage').map((m) => m.key!);
}

test('a multi-stage run reloaded inside its second stage resumes from its stored stages to the model an uninterrupted run trains', async ({
  page,
  outside: _,
}) => {
  test.setTimeout(500_000);
  await openDemo(page);
  await makeWeakLabels(page);
  const sst = 'SST: self-training on a supervised model\u2019s labels';
  await startRun(page, { epochs: 4, backend: 'wasm', hidden: 8, method: sst });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 300_000 });
  const whole = Number(await latestRun(page).first().textContent());
  // The same config again, reloaded once the self-training stage has a stored epoch.
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect(latestRun(page).first()).toHaveText(String(whole + 1));
  const id = whole + 1;
  await expect.poll(() => stageKeys(page, id), { timeout: 300_000, intervals: [200] }).toContain('checkpoint 1 self-training');
  expect(await stageKeys(page, id)).toContain('stage 0 initial (WSL)');
  await page.reload();
  await expect(latestRun(page).nth(1)).toContainText('interrupted: the page was closed or reloaded while it trained');
  // What the run reports while it goes on, kept as it appears.
  await page.evaluate(() => {
    const seen: string[] = ((window as unknown as { progress: string[] }).progress = []);
    new MutationObserver(() => {
      const t = document.querySelector('[data-testid="train-progress"]')?.textContent;
      if (t && seen[seen.length - 1] !== t) seen.push(t);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await latestRun(page).nth(1).getByRole('button', { name: 'resume' }).click();
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 300_000 });
  const progress = await page.evaluate(() => (window as unknown as { progress: string[] }).progress);
  expect(progress).toContain("stage 0 initial (WSL): restored from the run's store");
  expect(
    progress.some((p) => /^stage 1 self-training: resuming after epoch [1-4] from the run's store$/.test(p)),
    progress.join(' | '),
  ).toBe(true);
  // Deterministic training on one backend: the resumed run is the uninterrupted one, stage by stage.
  type Staged = { stages: { stage: string; epochs: number; devF1: number; history: { loss: number; devF1: number }[] }[]; test: { overall: { f1: number } } };
  const [a, b] = [(await runMetrics(page, whole)).metrics as unknown as Staged, (await runMetrics(page, id)).metrics as unknown as Staged];
  expect(b.stages.map((s) => s.stage)).toEqual(['initial (WSL)', 'self-training']);
  expect(b.stages.map((s) => s.history.map((h) => [h.loss, h.devF1]))).toEqual(a.stages.map((s) => s.history.map((h) => [h.loss, h.devF1])));
  expect(b.test.overall.f1).toBe(a.test.overall.f1);
  // A finished run keeps no stage rows.
  expect(await stageKeys(page, id)).toEqual([]);
});

test('an experiment goes on from its queued runs after a reload, and cancelling it cancels the runs not started', async ({ page, outside: _ }) => {
  test.setTimeout(400_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Training layer').selectOption({ label: 'weak: aggregate (priority)' });
  await page.getByLabel('Hidden units').fill('8');
  await page.getByLabel('Epochs', { exact: true }).fill('1');
  await page.getByLabel('Dictionary dropout').fill('0.5'); // one training a run, as the queue's messages below expect
  await page.getByLabel('Backend').selectOption('wasm');
  // The catalog's methods: WSL over three seeds, cancelled during the first run.
  await page.getByRole('checkbox', { name: 'WSL: strong and weak labels, the weak as if gold' }).check();
  await page.getByRole('button', { name: 'Run experiment (3 runs)' }).click();
  await expect(page.getByTestId('queue-progress')).toHaveText('experiment: run 1 of 3 · WSL: strong and weak labels, the weak as if gold');
  await expect(page.getByTestId('train-progress')).toContainText('step', { timeout: 120_000 });
  await page.getByRole('button', { name: 'Cancel experiment' }).click();
  const status = page.getByTestId('runs-table').locator('tbody tr td:nth-child(2)');
  await expect(status).toHaveText(
    ['cancelled: the experiment was cancelled before this run', 'cancelled: the experiment was cancelled before this run', 'cancelled'],
    { timeout: 60_000 },
  );
  // Two more seeds; a reload during the first leaves it interrupted and the second queued.
  await page.getByLabel('Experiment seeds').fill('4, 5');
  await page.getByRole('button', { name: 'Run experiment (2 runs)' }).click();
  await expect(page.getByTestId('queue-progress')).toHaveText(/run 1 of 2/);
  await expect(page.getByTestId('train-progress')).toContainText('step', { timeout: 120_000 });
  await page.reload();
  await expect(status.first()).toHaveText('queued');
  await expect(status.nth(1)).toContainText('interrupted');
  await page.getByRole('button', { name: 'Run the queued runs' }).click();
  await expect(status.first()).toHaveText('done', { timeout: 240_000 });
  await expect(page.getByRole('button', { name: 'Run the queued runs' })).toHaveCount(0);
});

test('BOND runs from the training page: its early-stopped teacher, then self-training rounds on the softmax head', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await startRun(page, {
    epochs: 1,
    backend: 'wasm',
    hidden: 8,
    method: 'BOND: an early-stopped teacher on the weak labels, then self-training on its confident soft pseudo-labels, the teacher refreshed each round',
    options: (o) => Object.assign(o.pipeline, { teacherEpochs: 2, rounds: 2 }),
  });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const id = Number(await latestRun(page).first().textContent());
  const run = await page.evaluate(async (id) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    return new Promise<{ config: { model: { head: string } }; metrics: { stages: { stage: string; epochs: number }[] } }>((r) => {
      const g = db.transaction('runs').objectStore('runs').get(id);
      g.onsuccess = () => r(g.result);
    });
  }, id);
  expect(run.config.model.head).toBe('softmax');
  expect(run.metrics.stages.map((s) => [s.stage, s.epochs])).toEqual([
    ['teacher (distant labels, early-stopped)', 2],
    ['self-training round 1', 1],
    ['self-training round 2', 1],
  ]);
});

test('a dictionary dropout chosen on dev trains the model at each value and says which it kept; so do the type shifts', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await startRun(page, { epochs: 1, backend: 'wasm', hidden: 8, dictDropout: 'dev', typeShifts: true });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const id = Number(await latestRun(page).first().textContent());
  const { metrics } = (await runMetrics(page, id)) as unknown as {
    metrics: { stages: { stage: string }[]; dictionaryDropout: number; typeShifts: Record<string, number> };
  };
  expect(metrics.stages.map((s) => s.stage)).toEqual([0, 0.5, 0.75].map((r) => `wsl (dictionary dropout ${r})`));
  expect([0, 0.5, 0.75]).toContain(metrics.dictionaryDropout);
  // A shift per type of the demo's labels, each from the grid tried on dev.
  expect(Object.keys(metrics.typeShifts).sort()).toEqual(['Chemical', 'Disease']);
  for (const v of Object.values(metrics.typeShifts)) expect([-1, -0.5, -0.25, 0, 0.25, 0.5, 1]).toContain(v);
  await expect(latestRun(page).nth(5)).toHaveText('3 in 3 stages');
  await latestRun(page).first().getByRole('link').click();
  await expect(page.getByTestId('run-facts')).toContainText(`dictionary dropout ${metrics.dictionaryDropout} (chosen on dev)`);
  for (const t of Object.keys(metrics.typeShifts)) await expect(page.getByTestId('run-facts')).toContainText(new RegExp(`type shifts [^·]*${t}`));
  // Three stages of one epoch each: the page says so, lists them, and draws each as its own line.
  // The model kept is the stage of the dropout chosen on dev, not the last one trained.
  const chosen = `wsl (dictionary dropout ${metrics.dictionaryDropout})`;
  await expect(page.getByTestId('run-facts')).toContainText(`3 epochs in 3 stages (the model kept: epoch 1 of its stage “${chosen}”, the best on dev)`);
  const stageRows = page.getByTestId('run-stages').locator('tbody tr');
  await expect(stageRows).toHaveCount(3);
  await expect(stageRows.first().locator('td').first()).toHaveText(/^wsl \(dictionary dropout 0\)/);
  await expect(stageRows.filter({ hasText: 'the run keeps its model' }).locator('td').first()).toHaveText(`${chosen} (the run keeps its model)`);
  for (const r of [0, 0.5, 0.75]) await expect(page.getByTestId('run-loss-chart')).toContainText(`wsl (dictionary dropout ${r})`);
});

test('a run cut off by a reload is marked interrupted, resumes, and counts its epochs and wall time over both attempts', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await startRun(page, { epochs: 6, backend: 'wasm', hidden: 8 });
  const id = Number(await latestRun(page).first().textContent());
  const epochsDone = async () => (await runMetrics(page, id))?.metrics?.history?.length ?? 0;
  await expect.poll(epochsDone, { timeout: 200_000, intervals: [200] }).toBeGreaterThanOrEqual(2);
  const before = (await runMetrics(page, id)).metrics as unknown as { elapsedSeconds: number };
  await page.reload();
  await expect(latestRun(page).nth(1)).toContainText('interrupted: the page was closed or reloaded while it trained');
  await latestRun(page).nth(1).getByRole('button', { name: 'resume' }).click();
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 200_000 });
  const { metrics } = (await runMetrics(page, id)) as unknown as { metrics: { history: { epoch: number }[]; attempts: number; wallSeconds: number } };
  expect(metrics.history.map((h) => h.epoch)).toEqual([1, 2, 3, 4, 5, 6].slice(0, metrics.history.length));
  expect(metrics.history.length).toBeGreaterThanOrEqual(2);
  expect(metrics.attempts).toBe(2);
  expect(metrics.wallSeconds).toBeGreaterThan(before.elapsedSeconds);
  // The table counts the epochs of both attempts.
  await expect(latestRun(page).nth(5)).toContainText(String(metrics.history.length));
});

test('method options are a form: a field per option with its help, checked as typed, naming the field; JSON behind "advanced"', async ({
  page,
  outside: _,
}) => {
  await openDemo(page);
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Method', { exact: true }).selectOption({ label: 'RoSTER: noise-robust models, ensemble, self-training' });
  await page.getByText('Method options').click();
  const form = page.getByTestId('options-form');
  // Options are named in words, with the key as the tooltip.
  const tau = form.getByLabel('removal threshold τ', { exact: true });
  await expect(tau).toHaveValue('0.3');
  await expect(form.locator('.option[data-key="method.tau"] .option-name')).toHaveAttribute('title', 'method.tau');
  await expect(form.locator('.option[data-key="method.tau"]')).toContainText('Noisy-label removal threshold');
  await expect(form.getByLabel('language-model epochs', { exact: true })).toHaveValue('3');
  await tau.fill('1.5');
  await expect(page.getByTestId('options-problem')).toHaveText('Removal threshold τ (method.tau) must be at most 1.');
  await expect(tau).toHaveAttribute('aria-invalid', 'true');
  await tau.fill('0.5');
  await expect(page.getByTestId('options-problem')).toHaveCount(0);
  const rounds = form.getByLabel('self-training rounds', { exact: true });
  await rounds.fill('abc');
  await expect(page.getByTestId('options-problem')).toHaveText('Self-training rounds (pipeline.rounds) must be a number.');
  await rounds.fill('1');
  // The JSON view shows what the form holds.
  await page.getByLabel('advanced: edit as JSON').check();
  const json = JSON.parse(await page.getByLabel('Options (JSON)').inputValue());
  expect(json.method.tau).toBe(0.5);
  expect(json.pipeline.rounds).toBe(1);
});

test('weak-label completion runs from the training page: a teacher, then a student on the completed labels', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  // Text of no split: the project's unlabeled text, which completion's self-training reads.
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('text');
  await page.getByLabel('Split').selectOption('unassigned');
  await expect(page.getByTestId('unassigned-hint')).toContainText("the project's unlabeled text");
  const raw = 'Naloxone reverses the antihypertensive effect of clonidine. Lithium caused tremor in two patients.';
  await page.getByLabel('Corpus files').setInputFiles({ name: 'raw.txt', mimeType: 'text/plain', buffer: Buffer.from(raw) });
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByTestId('import-result')).toContainText('Imported 1 document and');
  await makeWeakLabels(page);
  await startRun(page, {
    epochs: 3,
    backend: 'wasm',
    hidden: 8,
    method: 'Weak-label completion: a WSL teacher, decoded with the O shift and type shifts chosen on dev, fills the weak O tokens; a student learns them',
    // One round (the catalog's has up to 3, the last two self-training): its student learns the pool.
    options: (o) => Object.assign(o.pipeline, { unlabeled: 100, rounds: 1 }),
    pretrain: 1,
  });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 200_000 });
  const id = Number(await latestRun(page).first().textContent());
  const { metrics, config } = (await runMetrics(page, id)) as unknown as {
    metrics: { stages: { stage: string; trainSentences: number }[]; typeShifts?: unknown; encoder?: { sentences: number } };
    config: { pipeline: { typeShifts: boolean; rounds: number; keepBest: boolean } };
  };
  expect(metrics.stages.map((s) => s.stage)).toEqual(['teacher (WSL)', 'student (round 1)']);
  // The student learns from the teacher's labels of the two unassigned sentences as well.
  expect(metrics.stages[1].trainSentences - metrics.stages[0].trainSentences).toBe(2);
  // The project's encoder pre-trained on the unassigned text too.
  expect(metrics.encoder!.sentences - metrics.stages[0].trainSentences).toBe(2);
  // The catalog's completion: the teacher decodes with type shifts, the final model with its O shift alone.
  expect(config.pipeline.typeShifts).toBe(true);
  expect(metrics.typeShifts).toBeUndefined();
  expect(config.pipeline.keepBest).toBe(true);
  expect(config.pipeline.rounds).toBe(1);
});

test('bad training input stops before training with a clear error', async ({ page, outside: _ }) => {
  await openDemo(page);
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  // Before weak labels exist the only layer is the demo's gold, which labels dev and test only:
  // the page says so as it opens, links to the fix, and no run can start or be queued.
  const problems = page.getByTestId('form-problems');
  await expect(page.getByLabel('Training layer')).toHaveValue(/\d+/);
  await expect(problems.locator('[data-problem="layers"]')).toHaveText(
    'Learn from: "gold" labels no entity on the train split: its 900 documents are on other splits or have no typed entity. Choose a layer that labels the train split, or make weak labels first. Make weak labels',
  );
  await expect(page.getByRole('button', { name: 'Train', exact: true })).toBeDisabled();
  await page
    .getByRole('group', { name: 'Experiment: what to run' })
    .getByRole('checkbox', { name: /^WSL: strong and weak/ })
    .check();
  await expect(page.getByRole('button', { name: 'Run experiment (3 runs)' })).toBeDisabled();
  await expect(page.getByText('No training run yet.')).toBeVisible();
  await problems.getByRole('link', { name: 'Make weak labels' }).click();
  await page.getByRole('button', { name: 'Make weak labels' }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
  // With weak labels made, the page starts on their aggregate and has nothing to say.
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await expect(page.getByLabel('Training layer')).toHaveValue(/\d+/);
  await expect(page.getByLabel('Training layer').locator('option:checked')).toHaveText('weak: aggregate (hmm)');
  await expect(problems).toHaveCount(0);
  // Choosing the gold layer by hand brings the problem back, without the link: a weak layer exists.
  await page.getByLabel('Training layer').selectOption({ label: 'gold: gold' });
  await expect(problems).toContainText('Learn from: "gold" labels no entity on the train split');
  await expect(problems.getByRole('link')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Train', exact: true })).toBeDisabled();
  await page.getByLabel('Training layer').selectOption({ label: 'weak: aggregate (hmm)' });
  await expect(problems).toHaveCount(0);
  // Options are checked as they are typed: the message names the field, and no run can start.
  await page.getByLabel('Dropout', { exact: true }).fill('3');
  await expect(page.getByTestId('form-problems')).toContainText('dropout: must be at most 0.9');
  await expect(page.getByRole('button', { name: 'Train', exact: true })).toBeDisabled();
  await page.getByLabel('Dropout', { exact: true }).fill('0.5');
  await page.getByLabel('Word dropout').fill('0.7');
  await expect(page.getByTestId('form-problems')).toHaveText('word dropout: must be at most 0.5');
  await page.getByLabel('Word dropout').fill('0.1');
  await page.getByLabel('Weight averaging').fill('1');
  await expect(page.getByTestId('form-problems')).toHaveText('weight averaging: must be at most 0.9999');
  await page.getByLabel('Weight averaging').fill('0');
  await page.getByLabel('Epochs', { exact: true }).fill('abc');
  await expect(page.getByTestId('form-problems')).toHaveText('epochs: "abc" is not a number');
  await expect(page.getByRole('button', { name: 'Train', exact: true })).toBeDisabled();
  await page.getByLabel('Epochs', { exact: true }).fill('-1');
  await expect(page.getByTestId('form-problems')).toContainText('epochs: must be more than 0');
  await page.getByLabel('Epochs', { exact: true }).fill('1e9');
  await expect(page.getByTestId('form-problems')).toContainText('epochs: must be at most 1000');
  await page.getByLabel('Epochs', { exact: true }).fill('2');
  await page.getByLabel('Dictionary dropout').fill('1.5');
  await expect(page.getByTestId('form-problems')).toContainText('dictionary dropout: must be');
  await page.getByLabel('Dictionary dropout').fill('dev');
  await expect(page.getByTestId('form-problems')).toHaveCount(0);
  await page.getByLabel('Dictionary dropout').fill('devv');
  await expect(page.getByTestId('form-problems')).toHaveText('dictionary dropout: "devv" is not a number');
  // What was typed stays across a reload.
  await page.getByLabel('Dictionary dropout').fill('dev');
  await page.getByLabel('Epochs', { exact: true }).fill('7');
  await page.reload();
  await expect(page.getByLabel('Epochs', { exact: true })).toHaveValue('7');
  await expect(page.getByLabel('Dictionary dropout')).toHaveValue('dev');
  await page.getByLabel('Dictionary features').uncheck();
  await expect(page.getByTestId('form-problems')).toHaveCount(0);
  // Patience is checked like the rest; on WebGPU the page offers batches sized for the GPU, once.
  await page.getByLabel('Patience').fill('0');
  await expect(page.getByTestId('form-problems')).toHaveText('patience: must be more than 0');
  await page.getByLabel('Patience').fill('5');
  const gpuBatch = page.getByRole('button', { name: 'Batch for the GPU' });
  await expect(gpuBatch).toHaveCount(0);
  await page.getByLabel('Backend').selectOption('webgpu');
  await gpuBatch.click();
  await expect(page.getByLabel('Batch size')).toHaveValue('128');
  await expect(page.getByLabel('Learning rate')).toHaveValue('0.008');
  await expect(page.getByLabel('Epochs', { exact: true })).toHaveValue('14');
  await expect(page.getByLabel('Patience')).toHaveValue('10');
  await expect(gpuBatch).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Train', exact: true })).toBeEnabled();
  await expect(page.getByText('No training run yet.')).toBeVisible();
});

test('WebGPU runs in headless Chromium on SwiftShader and gets the WASM loss', async ({ page, outside: _ }) => {
  // SwiftShader emulates the GPU on the CPU: slow, and slower still on a busy machine.
  test.setTimeout(720_000);
  await openDemo(page);
  const hasGpu = await page.evaluate(async () => !!(await (navigator as unknown as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu?.requestAdapter()));
  expect(hasGpu, 'a WebGPU adapter (SwiftShader with --enable-unsafe-webgpu)').toBe(true);
  await makeWeakLabels(page);
  const wasmId = await smallRun(page);
  await page.getByLabel('Backend').selectOption('webgpu');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect(page.getByTestId('backend-reason')).toContainText('WebGPU', { timeout: 60_000 });
  await expect(page.getByTestId('backend-reason')).toContainText('software adapter');
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 600_000 });
  const gpuId = Number(await latestRun(page).first().textContent());
  const [a, b] = [await runMetrics(page, wasmId), await runMetrics(page, gpuId)];
  expect(b.metrics.backend, (b.metrics as unknown as { backendReason: string }).backendReason).toBe('webgpu');
  expect((b.metrics as unknown as { crf: string }).crf, 'the CRF ran on the WGSL kernels').toBe('wgsl kernels');
  expect((a.metrics as unknown as { crf: string }).crf).toBe('generic ops');
  expect((b.metrics as unknown as { kernels: string[] }).kernels, 'every part of the step on its fused kernels').toEqual([
    'CRF',
    'LSTM',
    'character CNN',
    'Adam',
    'queue uploads',
  ]);
  expect((a.metrics as unknown as { kernels: string[] }).kernels).toEqual([]);
  const [wasm, gpu] = [a.metrics as unknown as { stepLosses: number[] }, b.metrics as unknown as { stepLosses: number[] }];
  // Same config and seed: the same weights and batches, so every step's loss agrees up to float32
  // round-off. (Before tf.addN was kept under 7 inputs, WebGPU silently zeroed the clipping norm
  // and the losses drifted apart from the second step.)
  expect(gpu.stepLosses.length).toBe(wasm.stepLosses.length);
  gpu.stepLosses.forEach((l, i) => expect(Math.abs(l - wasm.stepLosses[i]) / wasm.stepLosses[i], `step ${i + 1}`).toBeLessThan(1e-3));
});

test('the decoupled mention/context model trains in the worker on strong sentences, pre-trained on the gazetteer and the weak layer, and labels text imported after it', async ({
  page,
  outside: _,
}) => {
  test.setTimeout(400_000);
  await openDemo(page);
  await makeWeakLabels(page);
  // Strong labels for 40 train documents: an annotator's layer (here a copy of the weak aggregate).
  await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const all = <T>(store: string) =>
      new Promise<T[]>((r) => {
        const g = db.transaction(store).objectStore(store).getAll();
        g.onsuccess = () => r(g.result as T[]);
      });
    const layers = await all<{ id: number; projectId: number; role?: string }>('layers');
    const agg = layers.find((l) => l.role === 'aggregate')!;
    const docs = (await all<{ id: number; split: string }>('documents')).filter((d) => d.split === 'train').slice(0, 40);
    const anns = [
      ...(await all<{ layerId: number; docId: number; spans: { start: number; end: number; label: string }[] }>('annotations')),
      ...((await all<unknown>('layerChunks')) as { layerId: number; docIds: number[]; anns: object[] }[]).flatMap((c) =>
        c.docIds.map((docId, k) => ({ ...c.anns[k], layerId: c.layerId, docId })),
      ),
    ] as { layerId: number; docId: number; spans: { start: number; end: number; label: string }[] }[];
    const tx = db.transaction(['layers', 'annotations'], 'readwrite');
    const add = tx.objectStore('layers').add({ projectId: agg.projectId, kind: 'gold', name: 'alice', createdAt: Date.now() });
    const id = await new Promise<number>((r) => (add.onsuccess = () => r(add.result as number)));
    for (const d of docs) {
      const spans = (anns.find((a) => a.layerId === agg.id && a.docId === d.id)?.spans ?? []).filter((s) => s.label !== '?');
      tx.objectStore('annotations').put({ layerId: id, docId: d.id, spans, oMode: 'complete' });
    }
    await new Promise((r) => (tx.oncomplete = r));
  });
  await page.reload();
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Training layer').selectOption({ label: 'weak: aggregate (priority)' });
  await page.getByLabel('Strong layer').selectOption({ label: 'alice' });
  await page
    .getByLabel('Method', { exact: true })
    .selectOption({ label: 'Decoupled mention/context model: gazetteer + weak-layer pre-training, then strong labels (paper 004)' });
  // A token-level tagger's spans join the candidates (pipeline.proposer); O's shift chosen on dev.
  await editOptions(page, (o) => Object.assign(o.pipeline, { proposer: true, oShift: 'dev' }));
  await page.getByLabel('Hidden units').fill('8');
  await page.getByLabel('Epochs', { exact: true }).fill('2');
  await page.getByLabel('Backend').selectOption('wasm');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 300_000 });
  const id = Number(await latestRun(page).first().textContent());
  const { metrics } = await runMetrics(page, id);
  const m = metrics as unknown as {
    stages: { stage: string; trainSentences: number }[];
    trainSentences: number;
    test: { overall: { tp: number; fp: number; fn: number } };
  };
  expect(m.stages.map((s) => s.stage)).toEqual([
    'token model (candidate proposals)',
    'mention pre-training (dictionary)',
    'context pre-training (distant labels: masked words + type)',
    'unified training (human labels)',
  ]);
  expect(m.trainSentences).toBe(40);
  const shifts = (m.stages[3] as unknown as { history: { methodStats?: { oShift?: number } }[] }).history.map((h) => h.methodStats?.oShift);
  expect(shifts.length).toBeGreaterThan(0);
  shifts.forEach((x) => expect(Math.abs(x ?? NaN)).toBeLessThanOrEqual(3));
  // The stored test scores are those of the predicted layer against gold.
  const goldId = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const layers = await new Promise<{ id: number; kind: string; name: string }[]>((r) => {
      const g = db.transaction('layers').objectStore('layers').getAll();
      g.onsuccess = () => r(g.result);
    });
    return layers.find((l) => l.kind === 'gold' && l.name === 'gold')!.id;
  });
  const [gold, pred] = await testSpans(page, [goldId, metrics.predictedLayerId]);
  const key = (s: Span) => `${s.start}:${s.end}:${s.label}`;
  const tp = gold.reduce((a, g, k) => a + g.filter((s) => pred[k].some((p) => key(p) === key(s))).length, 0);
  expect(m.test.overall.tp).toBe(tp);
  expect(m.test.overall.fp).toBe(pred.flat().length - tp);
  expect(m.test.overall.fn).toBe(gold.flat().length - tp);

  // Text that comes later: its model classifies the new document's candidates, its proposer's among them.
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('text');
  await page.getByLabel('Split').selectOption('unassigned');
  await page
    .getByLabel('Corpus files')
    .setInputFiles({ name: 'later.txt', mimeType: 'text/plain', buffer: Buffer.from('Lithium caused tremor and naloxone caused nausea.') });
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByTestId('import-result')).toContainText('Imported 1 document and');
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await latestRun(page).first().getByRole('link').click();
  const unseen = page.getByTestId('unseen-documents');
  // It trained on the weak layer, whose spans are candidates: they do not label the new text yet, and the page says so.
  await expect(page.getByTestId('unseen-no-weak')).toContainText('The model reads the weak labels as candidates, and it has none yet');
  await expect(unseen).toContainText(
    "its candidates are every short span, the gazetteers' matches and the weak labels' spans as they are now, and its token model’s",
  );
  // A span model classifies the candidates the project makes: no file to download, and the page says where it labels text.
  await expect(page.getByTestId('download-model')).toContainText('it labels new text here, not as a file');
  await expect(page.getByTestId('download-model').getByRole('button')).toHaveCount(0);
  await unseen.getByRole('button', { name: 'Label it with this model' }).click();
  await expect(unseen).toContainText(/its model labeled 1 document that came in after it finished \(\d+ spans?\), into the layer run \d+/, {
    timeout: 120_000,
  });
  const later = (await storeRows<{ id: number; name: string }>(page, 'documents')).find((d) => d.name.startsWith('later'))!;
  const rows = (await storeRows<{ layerId: number; docId: number }>(page, 'annotations')).filter((r) => r.layerId === metrics.predictedLayerId);
  expect(rows.map((r) => r.docId)).toContain(later.id);
  expect((await runMetrics(page, id)).metrics.test).toEqual(metrics.test);
});

test("the training page's default run beats the demo's weak labels on the test split", async ({ page, outside: _ }) => {
  // About 4-12 minutes of training on the WASM backend here (BENCHMARKS.md times it; 686 s alone on
  // a slow day of the shared VM); the test checks the F1, and its limits only stop a run that hangs.
  test.setTimeout(1_800_000);
  await openDemo(page);
  await page.getByRole('link', { name: 'Weak labels', exact: true }).click();
  await page.getByRole('button', { name: 'Make weak labels' }).click(); // the page's default aggregation (HMM)
  await expect(page.getByTestId('stats-table')).toBeVisible();
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByRole('button', { name: 'Train', exact: true }).click(); // every field as the page sets it
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 1_700_000 });
  const id = Number(await latestRun(page).first().textContent());
  const run = (await runMetrics(page, id)) as unknown as {
    config: { data: { layerId: number; goldLayerId: number } };
    metrics: { test: { overall: { f1: number } }; wallSeconds: number };
  };
  const [weak, gold] = await testSpans(page, [run.config.data.layerId, run.config.data.goldLayerId]);
  const weakF1 = scoreSpans(gold, weak).overall.f1;
  console.log(
    `demo test F1: default run ${(100 * run.metrics.test.overall.f1).toFixed(2)}, weak labels ${(100 * weakF1).toFixed(2)}; the run took ${run.metrics.wallSeconds.toFixed(0)} s`,
  );
  // The honest demo's weak labels (dict_core, training-text names, rules; the HMM fitted on all its text)
  // score about 70.8 on its 600 test sentences; on its 600 training sentences the page's run is 5.6
  // above them over seeds 1-3 in Node, 6.8 on seed 1, the page's (BENCHMARKS.md, the demo's training
  // text). The issue asks 3.
  expect(weakF1).toBeGreaterThan(0.65);
  expect(run.metrics.test.overall.f1).toBeGreaterThan(weakF1 + 0.03);
  // The run page and Compare show both figures, the weak labels' as the run recorded them.
  const recorded = (run.metrics as unknown as { weak: { test: { overall: { f1: number } } } }).weak.test.overall.f1;
  expect(Math.abs(recorded - weakF1)).toBeLessThan(0.02);
  const pid = (await storeRows<{ id: number; projectId: number }>(page, 'runs')).find((r) => r.id === id)!.projectId;
  await page.goto(`/#/p/${pid}/runs/${id}`);
  await expect(page.getByTestId('run-vs-weak')).toContainText(
    `Test F1 ${(100 * run.metrics.test.overall.f1).toFixed(1)} against the weak labels' ${(100 * recorded).toFixed(1)}`,
  );
  await expect(page.getByTestId('run-weak-test').locator('tbody tr').first()).toContainText('all types');
  await page.getByRole('link', { name: 'Compare runs', exact: true }).click();
  await expect(page.locator(`tr[data-run="${id}"]`).getByTestId('compare-weak-f1')).toHaveText((100 * recorded).toFixed(1));
});

test("a run with encoder pre-training keeps the project's encoder, the next run starts from it, and it can be deleted", async ({ page, outside: _ }) => {
  test.setTimeout(400_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Pre-training epochs').fill('x');
  await expect(page.getByRole('alert')).toContainText('pre-training epochs: "x" is not a number');
  await page.getByLabel('Pre-training epochs').fill('1');
  await smallRun(page, 300_000);
  const table = page.getByTestId('encoders-table');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table.locator('tbody tr td').nth(2)).toHaveText('1');
  // Its language model is kept with it (RoSTER's augmentation reads it).
  await expect(table.locator('tbody tr td').nth(4)).toHaveText(/^[\d,]+ words$/);
  const first = Number(await latestRun(page).first().textContent());
  type WithEncoder = { metrics: { encoder?: { epochs: number; sentences: number; seconds: number } } };
  const m1 = (await runMetrics(page, first)) as unknown as WithEncoder;
  expect(m1.metrics.encoder).toMatchObject({ epochs: 1 });
  expect(m1.metrics.encoder!.sentences).toBeGreaterThan(100);
  // A second run of the same model shape starts from the kept encoder: no second pre-training.
  await startRun(page, { epochs: 1, backend: 'wasm', hidden: 8, seed: 2 });
  // The new run's row first (the table's top row is the first run's, done, until it appears).
  await expect(latestRun(page).first()).not.toHaveText(String(first), { timeout: 60_000 });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 300_000 });
  await expect(table.locator('tbody tr')).toHaveCount(1);
  const second = Number(await latestRun(page).first().textContent());
  expect(second).toBeGreaterThan(first);
  expect(((await runMetrics(page, second)) as unknown as WithEncoder).metrics.encoder).toEqual(m1.metrics.encoder);
  await page.goto(`/#/p/${(await storeRows<{ id: number; projectId: number }>(page, 'runs')).find((r) => r.id === second)!.projectId}/runs/${second}`);
  await expect(page.getByTestId('run-facts')).toContainText("started from the project's encoder (1 epochs");
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  page.once('dialog', (d) => void d.accept());
  await page.getByTestId('encoders-table').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('encoders-table')).toHaveCount(0);
});

test('distant labels imported for the train split only: the dictionary is their strings, weak-label features are off, and the run page says the layer labels no dev or test document', async ({
  page,
  outside: _,
}) => {
  test.setTimeout(300_000);
  const names = ['Anna', 'Boris', 'Clara', 'Dmitri', 'Elena'];
  const places = ['Paris', 'Oslo', 'Lima', 'Quito'];
  // Train: distant labels that miss some names (what a dictionary match gives); dev and test: gold.
  const train = [
    ...names.flatMap((n, k) => [
      [`${n} flew to ${places[k % 4]} .`, `B-PER O O ${k % 2 ? 'O' : 'B-LOC'} O`],
      [`${n} met ${names[(k + 1) % 5]} in ${places[(k + 1) % 4]} .`, `B-PER O B-PER O B-LOC O`],
    ]),
    // A definition the distant labels do not follow up: "CPL" in the next line is O.
    ['The Central Park Library ( CPL ) hired Anna .', 'O B-LOC I-LOC I-LOC O O O O B-PER O'],
    ['CPL opened in Lima .', 'O O O B-LOC O'],
  ];
  const gold = (k: number) => [`${names[k]} lives in ${places[k % 4]} .`, 'B-PER O O B-LOC O'];
  const files = (rows: string[][], split: string) => ({
    text: { name: `${split}.txt`, mimeType: 'text/plain', buffer: Buffer.from(rows.map((r) => r[0]).join('\n')) },
    labels: { name: `${split}-labels.txt`, mimeType: 'text/plain', buffer: Buffer.from(rows.map((r) => r[1]).join('\n')) },
  });
  await createProject(page, 'Distant');
  for (const [split, rows, kind] of [
    ['train', train, 'weak'],
    ['dev', [0, 1, 2].map(gold), 'gold'],
    ['test', [3, 4, 0].map(gold), 'gold'],
  ] as const) {
    const f = files(rows as string[][], split);
    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByLabel('Format').selectOption('lines');
    await page.getByLabel('Split').selectOption(split);
    await page.getByLabel('Corpus files').setInputFiles(f.text);
    await page.getByLabel('Label files').setInputFiles(f.labels);
    await page.getByLabel(`Kind of ${f.labels.name}`).selectOption(kind);
    await page.getByLabel(`Layer name of ${f.labels.name}`).fill(kind === 'weak' ? 'distant' : 'gold');
    await page.getByRole('button', { name: 'Import' }).click();
    const confirm = page.getByRole('button', { name: 'Import anyway' });
    await expect(page.getByTestId('import-result').or(confirm)).toBeVisible();
    if (await confirm.isVisible()) await confirm.click();
    await expect(page.getByTestId('import-result')).toBeVisible();
  }
  // The distinct (type, string) pairs the distant labels hold on train.
  const strings = new Set(
    train.flatMap(([text, tags]) => {
      const w = text.split(' ');
      return tags.split(' ').flatMap((t, i) => (t.startsWith('B-') ? [`${t.slice(2)}\t${w[i]}`] : []));
    }),
  );
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Training layer').selectOption({ label: 'weak: distant' });
  await page.getByLabel('Method', { exact: true }).selectOption({ label: 'WSL: strong and weak labels, the weak as if gold' });
  await expect(page.getByLabel('Weak labels as features')).toBeChecked();
  await page.getByLabel('Dictionary dropout').fill('0.5');
  await page.getByLabel('Hidden units').fill('16');
  await page.getByLabel('Epochs', { exact: true }).fill('2');
  await page.getByLabel('Backend').selectOption('wasm');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const id = Number(await latestRun(page).first().textContent());
  const { metrics } = (await runMetrics(page, id)) as unknown as { metrics: { weak: Record<string, unknown>; features: string[] } };
  expect(metrics.weak).toEqual({ layer: 'distant' });
  await latestRun(page).first().getByRole('link').click();
  const facts = page.getByTestId('run-facts');
  await expect(facts).toContainText(
    `dictionary features: the project has no gazetteer of its own, so its dictionary is the ${strings.size} distinct strings layer "distant" labels on the train split`,
  );
  await expect(facts).toContainText('the weak labels as features: off, layer "distant" labels no dev or test document');
  await expect(page.getByTestId('run-vs-weak')).toHaveText(/The weak layer “distant” labels no dev or test document/);
  await expect(page.getByTestId('run-weak-dev')).toHaveCount(0);
  await expect(facts).not.toContainText('abbreviations');
  // The abbreviations the text defines, read into the imported layer for a run: "CPL" in the line after its definition.
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Abbreviations the text defines').check();
  const window = page.getByLabel('Documents a definition also holds in');
  await window.fill('-1');
  await expect(window).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('button', { name: 'Train', exact: true })).toBeDisabled();
  await window.fill('1');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  // The new run's row, not the first run's (done already).
  await expect(page.getByTestId('runs-table').locator('tbody tr')).toHaveCount(2);
  await expect(latestRun(page).first()).not.toHaveText(String(id));
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  await latestRun(page).first().getByRole('link').click();
  await expect(facts).toContainText(
    'the abbreviations the text defines, read into layer "distant" (a definition holds in its document and the 1 after it): 2 spans added',
  );
  await expect(facts).toContainText(`its dictionary is the ${strings.size + 1} distinct strings layer "distant" labels on the train split`);
});
