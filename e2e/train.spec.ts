import { expect, openDemo, test } from './fixtures';
import type { Page } from '@playwright/test';

async function weakLabels(page: Page) {
  await page.getByRole('link', { name: 'Weak labels' }).click();
  await page.getByLabel('Aggregation').selectOption('priority');
  await page.getByRole('button', { name: 'Make weak labels' }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
}

async function startRun(page: Page, opts: { epochs: number; backend: string; hidden?: number; method?: string }) {
  await page.getByRole('link', { name: 'Train' }).click();
  await page.getByLabel('Training layer').selectOption({ label: 'weak: aggregate (priority)' });
  if (opts.method) await page.getByLabel('Method').selectOption({ label: opts.method });
  await page.getByLabel('Hidden units').fill(String(opts.hidden ?? 16));
  await page.getByLabel('Epochs').fill(String(opts.epochs));
  await page.getByLabel('Backend').selectOption(opts.backend);
  await page.getByRole('button', { name: 'Train', exact: true }).click();
}

/** The cells of the newest training run (the table lists newest first). */
function latestRun(page: Page) {
  return page.getByTestId('runs-table').locator('tbody tr').first().locator('td');
}

async function runMetrics(page: Page, id: number) {
  return page.evaluate(async (id) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    return new Promise<{ status: string; metrics: { backend: string; test: { overall: { f1: number } }; history: { loss: number }[]; predictedLayerId: number } }>((r) => {
      const g = db.transaction('runs').objectStore('runs').get(id);
      g.onsuccess = () => r(g.result);
    });
  }, id);
}

test('trains on the weak layer in a worker, stores predictions as a layer and the run with its scores', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await weakLabels(page);
  await startRun(page, { epochs: 2, backend: 'wasm' });
  await expect(page.getByTestId('backend-reason')).toContainText('WASM');
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const id = Number(await latestRun(page).first().textContent());
  const { metrics } = await runMetrics(page, id);
  expect(metrics.history).toHaveLength(2);
  await expect(latestRun(page).nth(9)).toHaveText((100 * metrics.test.overall.f1).toFixed(1));
  await page.getByRole('link', { name: 'Overview' }).click();
  await expect(page.locator(`[data-layer="run ${id}"] td`).nth(1)).toHaveText('predicted');
});

test('the noise-aware methods run from the training page: RoSTER\'s loss on its two-part head, NEEDLE\'s stages', async ({ page, outside: _ }) => {
  test.setTimeout(400_000);
  await openDemo(page);
  await weakLabels(page);
  await startRun(page, { epochs: 1, backend: 'wasm', hidden: 8, method: 'RoSTER noise-robust stage only (GCE + removal)' });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const rosterId = Number(await latestRun(page).first().textContent());
  const roster = await runMetrics(page, rosterId);
  expect((roster as unknown as { config: { model: { head: string }; method: { name: string } } }).config.model.head).toBe('twopart');
  expect(roster.metrics.history).toHaveLength(1);
  await page.getByLabel('Method').selectOption({ label: 'NEEDLE: LM pre-training, completion, noise-aware loss, fine-tuning' });
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  // Wait for the new run's row before reading its status (the RoSTER row is "done" already).
  await expect(latestRun(page).first()).toHaveText(String(rosterId + 1));
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 300_000 });
  const needle = await runMetrics(page, rosterId + 1);
  // The demo's train split has weak labels only: no fine-tuning stage, the initial model is WSL.
  const stages = (needle.metrics as unknown as { stages: { stage: string }[] }).stages.map((s) => s.stage);
  expect(stages).toEqual(['Stage I: language model', 'initial (WSL)', 'noise-aware continual training']);
  expect(needle.metrics.test.overall.f1).toBeGreaterThanOrEqual(0);
});

test('a cancelled run leaves every layer as it was and is marked cancelled after a reload', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await weakLabels(page);
  await page.getByRole('link', { name: 'Overview' }).click();
  const before = await page.getByTestId('layer-table').textContent();
  await startRun(page, { epochs: 50, backend: 'wasm' });
  await expect(page.getByTestId('train-progress')).toContainText('step', { timeout: 120_000 });
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(latestRun(page).nth(1)).toHaveText('cancelled', { timeout: 60_000 });
  await page.reload();
  await expect(latestRun(page).nth(1)).toHaveText('cancelled');
  await page.getByRole('link', { name: 'Overview' }).click();
  await expect(page.getByTestId('layer-table')).toHaveText(before!);
});

test('bad training input stops before training with a clear error', async ({ page, outside: _ }) => {
  await openDemo(page);
  await page.getByRole('link', { name: 'Train' }).click();
  // The demo's gold layer labels dev and test only: nothing to learn from on the train split.
  await page.getByLabel('Training layer').selectOption({ label: 'gold: gold' });
  await page.getByLabel('Epochs').fill('1');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect(page.getByTestId('train-error')).toHaveText('the chosen layer has no labeled entity on the train split');
  await expect(latestRun(page).nth(1)).toContainText('failed');
  await page.getByLabel('Dropout').fill('3');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect(page.getByTestId('train-error')).toContainText('run config: model.dropout');
});

test('WebGPU runs in headless Chromium on SwiftShader and gets the WASM loss', async ({ page, outside: _ }) => {
  // SwiftShader emulates the GPU on the CPU: slow, and slower still on a busy machine.
  test.setTimeout(720_000);
  await openDemo(page);
  const hasGpu = await page.evaluate(async () => !!(await (navigator as unknown as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu?.requestAdapter()));
  expect(hasGpu, 'a WebGPU adapter (SwiftShader with --enable-unsafe-webgpu)').toBe(true);
  await weakLabels(page);
  await startRun(page, { epochs: 1, backend: 'wasm', hidden: 8 });
  await expect(latestRun(page).nth(1)).toHaveText('done', { timeout: 240_000 });
  const wasmId = Number(await latestRun(page).first().textContent());
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
  const [wasm, gpu] = [a.metrics as unknown as { stepLosses: number[] }, b.metrics as unknown as { stepLosses: number[] }];
  // Same config and seed: the same weights and batches, so every step's loss agrees up to float32
  // round-off. (Before tf.addN was kept under 7 inputs, WebGPU silently zeroed the clipping norm
  // and the losses drifted apart from the second step.)
  expect(gpu.stepLosses.length).toBe(wasm.stepLosses.length);
  gpu.stepLosses.forEach((l, i) => expect(Math.abs(l - wasm.stepLosses[i]) / wasm.stepLosses[i], `step ${i + 1}`).toBeLessThan(1e-3));
});
