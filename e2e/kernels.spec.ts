import { build } from 'esbuild';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';

type Check = {
  runCrfCheck(): Promise<Array<Record<string, unknown>>>;
  runModelGradCheck(encoder: string, dropout?: number): Promise<{ kernelUsed: boolean; lstmKernelUsed: boolean; rel: Record<string, number> }>;
  runLstmCheck(): Promise<
    Array<{ kernelUsed: boolean; genericUsedKernel: boolean; kernelVsGeneric: Record<string, number>; kernelVsCpu: Record<string, number> }>
  >;
  runTrainDrift(steps: number): Promise<{ cpu: number[]; webgpu: number[]; gaps: number[]; averageGap: number }>;
  runLstmFusedCheck(): Promise<Array<{ kernelUsed: boolean; kernelVsGeneric: Record<string, number>; kernelVsCpu: Record<string, number> }>>;
  runConvCheck(): Promise<
    Array<{ kernelUsed: boolean; genericUsedKernel: boolean; kernelVsGeneric: Record<string, number>; kernelVsCpu: Record<string, number> }>
  >;
  runCharCnnCheck(): Promise<{
    kernelUsed: boolean;
    genericUsedKernel: boolean;
    kernelVsGeneric: Record<string, number>;
    kernelVsCpu: Record<string, number>;
  }>;
  runAdamCheck(steps: number): Promise<{
    vars: Record<string, number>;
    shadows: Record<string, number>;
    moments: Record<string, number>;
    names: { fused: string[]; generic: string[] };
    acc: { fused: number[]; generic: number[] };
    moved: number;
  }>;
};

/** A bare page of the studio's origin with e2e/pages/crfCheck.ts bundled in, as window.crfCheck. */
async function openCheckPage(page: Page): Promise<void> {
  const bundle = await build({
    entryPoints: ['e2e/pages/crfCheck.ts'],
    bundle: true,
    format: 'iife',
    globalName: 'crfCheck',
    write: false,
    platform: 'browser',
    logLevel: 'silent',
  });
  await page.route('**/crf-check.html', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>crf check</title>' }));
  await page.route('**/crf-check.js', (route) => route.fulfill({ contentType: 'text/javascript', body: bundle.outputFiles[0].text }));
  page.on('console', (m) => m.type() === 'error' && console.log(m.text()));
  await page.goto('/crf-check.html');
  await page.addScriptTag({ url: '/crf-check.js' });
}

// The CRF's WGSL kernels on WebGPU (SwiftShader here), log Z and the fused NLL with their
// gradients, held to the generic TensorFlow.js ops and to brute-force enumeration, to 1e-5.
test('WebGPU CRF kernels equal the generic ops and brute force', async ({ page, outside: _ }) => {
  test.setTimeout(240_000);
  await openCheckPage(page);
  const results = await page.evaluate(() => (window as unknown as { crfCheck: Check }).crfCheck.runCrfCheck());
  console.log(JSON.stringify(results));
  for (const row of results) {
    expect(row.kernelUsed, `${row.name}: the kernel ran`).toBe(true);
    for (const key of ['kernelVsGenericWebgpu', 'kernelVsCpu', 'kernelVsBrute', 'cpuVsBrute']) {
      const gaps = row[key] as Record<string, number> | undefined;
      if (!gaps) continue;
      for (const [what, v] of Object.entries(gaps)) expect(v, `${row.name}: ${key}.${what}`).toBeLessThan(1e-5);
    }
  }
});

// Every variable's gradient through the whole model, WebGPU (with the kernels) against the CPU
// backend from the same weights and batch.
test("the whole model's gradient on WebGPU equals the CPU backend's", async ({ page, outside: _ }) => {
  test.setTimeout(240_000);
  await openCheckPage(page);
  for (const [encoder, dropout] of [
    ['bilstm', 0],
    ['idcnn', 0],
    ['bilstm', 0.5],
    ['idcnn', 0.5],
  ] as const) {
    const row = await page.evaluate(([e, d]) => (window as unknown as { crfCheck: Check }).crfCheck.runModelGradCheck(e, d), [encoder, dropout] as const);
    console.log(JSON.stringify({ encoder, dropout, ...row }));
    expect(row.kernelUsed).toBe(true);
    expect(row.lstmKernelUsed, 'the LSTM ran on its WGSL kernels').toBe(true);
    for (const [k, v] of Object.entries(row.rel)) expect(v, `${encoder}: ${k}`).toBeLessThan(1e-3);
  }
});

// The LSTM's recurrence and its backpropagation through time as WGSL kernels (one program each
// per direction instead of some 17 and 30 per time step), held to the generic ops on WebGPU and
// on the CPU backend.
test('WebGPU LSTM kernels equal the generic ops', async ({ page, outside: _ }) => {
  test.setTimeout(240_000);
  await openCheckPage(page);
  const results = await page.evaluate(() => (window as unknown as { crfCheck: Check }).crfCheck.runLstmCheck());
  console.log(JSON.stringify(results));
  expect(results).toHaveLength(4);
  for (const row of results) {
    expect(row.kernelUsed, 'the kernels ran').toBe(true);
    expect(row.genericUsedKernel, 'the comparison ran the generic ops').toBe(false);
    for (const key of ['kernelVsGeneric', 'kernelVsCpu'] as const)
      for (const [what, v] of Object.entries(row[key])) expect(v, `${JSON.stringify(row)}: ${key}.${what}`).toBeLessThan(1e-4);
  }
});

// Training's BiLSTM path on the batch-major kernels (the recurrence with its bias, outputs masked
// in the kernel, the recurrent weights' gradient in one program), the character CNN and the
// ID-CNN's layer (mask · relu(dilated convolution)) as WGSL kernels: outputs and every gradient
// held to the generic ops on WebGPU and to the CPU backend.
test('the fused BiLSTM direction, character CNN and ID-CNN layer equal the generic ops', async ({ page, outside: _ }) => {
  test.setTimeout(240_000);
  await openCheckPage(page);
  const lstm = await page.evaluate(() => (window as unknown as { crfCheck: Check }).crfCheck.runLstmFusedCheck());
  const chars = await page.evaluate(() => (window as unknown as { crfCheck: Check }).crfCheck.runCharCnnCheck());
  const conv = await page.evaluate(() => (window as unknown as { crfCheck: Check }).crfCheck.runConvCheck());
  console.log(JSON.stringify({ lstm, chars, conv }));
  expect(lstm).toHaveLength(3);
  expect(conv).toHaveLength(3);
  for (const row of [...lstm, chars, ...conv]) {
    expect(row.kernelUsed, 'the kernels ran').toBe(true);
    for (const key of ['kernelVsGeneric', 'kernelVsCpu'] as const) {
      expect(Object.keys(row[key]).length, `${key}: the output and every gradient compared`).toBeGreaterThanOrEqual(4);
      for (const [what, v] of Object.entries(row[key])) expect(v, `${JSON.stringify(row)}: ${key}.${what}`).toBeLessThan(1e-5);
    }
  }
  expect(chars.genericUsedKernel, 'the comparison ran the generic ops').toBe(false);
});

// The whole training loop (Adam, gradient clipping, dropout, the CRF kernels) for 12 steps on
// WebGPU and on the CPU backend: the same losses. This caught tf.addN silently returning zeros on
// WebGPU past 7 inputs (see addMany in src/model/ops.ts).
test('training on WebGPU follows the CPU backend step by step', async ({ page, outside: _ }) => {
  test.setTimeout(240_000);
  await openCheckPage(page);
  const r = await page.evaluate(() => (window as unknown as { crfCheck: Check }).crfCheck.runTrainDrift(12));
  console.log(JSON.stringify(r));
  expect(r.webgpu).toHaveLength(12);
  r.gaps.forEach((g, i) => expect(g, `step ${i + 1}`).toBeLessThan(1e-3));
  // The model left at the weight average (stepped in the fused Adam's kernel on WebGPU) is the CPU's.
  expect(r.averageGap).toBeLessThan(1e-4);
});

// Adam with clipping by global norm as two fused WGSL kernels (adamWebgpu.ts) against
// TensorFlow.js's Adam on the same backend and on the CPU: variables and moments to 1e-5 after
// steps over and under the clipping norm, and the same state for checkpoints.
test("the fused Adam on WebGPU equals TensorFlow.js's Adam and the CPU backend", async ({ page, outside: _ }) => {
  test.setTimeout(240_000);
  await openCheckPage(page);
  const r = await page.evaluate(() => (window as unknown as { crfCheck: Check }).crfCheck.runAdamCheck(6));
  console.log(JSON.stringify(r));
  expect(r.moved, 'the steps moved the variables (Adam moves about lr = 0.01 a step)').toBeGreaterThan(0.005);
  expect(r.vars.fusedVsGeneric).toBeLessThan(1e-5);
  expect(r.vars.fusedVsCpu).toBeLessThan(1e-5);
  // The weight average's shadows, updated in the same kernel (7 of the 8 variables have one).
  expect(r.shadows.count).toBe(7);
  expect(r.shadows.fusedVsGeneric).toBeLessThan(1e-5);
  expect(r.shadows.fusedVsCpu).toBeLessThan(1e-5);
  expect(r.moments.fusedVsGeneric).toBeLessThan(1e-5);
  expect(r.names.fused).toEqual(r.names.generic);
  for (const k of [0, 1]) expect(Math.abs(r.acc.fused[k] - r.acc.generic[k])).toBeLessThan(1e-7);
});
