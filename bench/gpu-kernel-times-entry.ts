/**
 * Where a training step's time goes on a GPU (issue 48): every GPU program's own time, from
 * WebGPU's timestamp queries (tf.profile), beside the step's wall time unprofiled; and the LSTM
 * recurrence kernels alone at 8 to 512 sentences, which says whether more sentences a workgroup
 * could gain (only where the GPU runs out of room for workgroups, each one sentence today, can
 * packing sentences shorten a program). Bundled into the kit by bench/gpu-node.ts as
 * kernel-times.mjs and run by its run.sh; not run from here.
 *   node kernel-times.mjs INPUT.json WEBGPU_MODULE
 * One JSON line per measure. Without timestamp queries (no such feature on the adapter) the
 * kernel times read 0, and the line says so.
 */
import { readFileSync } from 'node:fs';
import * as tf from '../src/model/tf';
import { type DawnModule, installDawn } from './dawn-globals';
import { runThroughput, type ThroughputInput } from './train-throughput-core';

const [inputPath, webgpuModule] = process.argv.slice(2);
const kit = JSON.parse(readFileSync(inputPath, 'utf8')) as Omit<ThroughputInput, 'glove'> & { glove: { dims: number; words: string[]; vectors: number[] } };
const glove = { ...kit.glove, vectors: Float32Array.from(kit.glove.vectors) };

// Timestamp queries are an unsafe API in Dawn's defaults, and quantized (to 100 µs) unless told not to.
installDawn((await import(webgpuModule)) as DawnModule, ['enable-dawn-features=allow_unsafe_apis', 'disable-dawn-features=timestamp_quantization']);
await (await import('../src/model/webgpuStudio')).registerStudioWebgpu({ queueUploads: !process.env.NO_QUEUE_UPLOADS });
const lstm = await import('../src/model/lstmWebgpu');
if (!(await tf.setBackend('webgpu'))) throw new Error('webgpu did not start');
await tf.ready();
const backend = tf.backend() as unknown as { supportTimestampQuery: boolean; runWebGPUProgram: (...a: unknown[]) => unknown };
const timestamps = backend.supportTimestampQuery;
const print = (o: object) => console.log(JSON.stringify({ timestamps, ...o }));

/** Programs dispatched while f runs. */
async function countPrograms<T>(f: () => Promise<T>): Promise<{ result: T; programs: number }> {
  const original = backend.runWebGPUProgram;
  let programs = 0;
  backend.runWebGPUProgram = (...a: unknown[]) => {
    programs++;
    return original.apply(backend, a);
  };
  try {
    return { result: await f(), programs };
  } finally {
    backend.runWebGPUProgram = original;
  }
}

/** GPU milliseconds by kernel name while f runs (custom gradients' scopes left out: they hold their kernels' time again). */
async function gpuTimes(f: () => Promise<unknown>): Promise<Map<string, { ms: number; n: number }>> {
  const prof = await tf.profile(async () => void (await f()));
  const by = new Map<string, { ms: number; n: number }>();
  for (const k of prof.kernels) {
    if (k.name === 'unnamed scope') continue;
    const e = by.get(k.name) ?? { ms: 0, n: 0 };
    e.ms += Number(k.kernelTimeMs) || 0;
    e.n++;
    by.set(k.name, e);
  }
  return by;
}

// A training step's programs' GPU time beside its wall time, at the studio's batch and the GPU's.
// QUICK=1 (a check on SwiftShader): fewer sentences and batches.
const quick = process.env.QUICK === '1';
const STEP_SENTENCES = quick ? 64 : 512;
for (const batchSize of [32, 128]) {
  const input = { ...kit, glove, encoder: 'bilstm' as const, hidden: 100, sentences: kit.sentences.slice(0, STEP_SENTENCES), batchSize, epochs: 2 };
  const steps = Math.ceil(STEP_SENTENCES / batchSize);
  // Unprofiled: the second epoch's wall time (the first compiles); the programs of both epochs.
  const { result, programs } = await countPrograms(() => runThroughput(input));
  const wallMsPerStep = (1000 * result.epochSeconds) / steps;
  const by = await gpuTimes(() => runThroughput({ ...input, epochs: 1 }));
  const gpuMs = [...by.values()].reduce((a, e) => a + e.ms, 0);
  const top = [...by]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 12)
    .map(([name, e]) => ({ name, msPerStep: +(e.ms / steps).toFixed(3), callsPerStep: +(e.n / steps).toFixed(1) }));
  print({
    measure: 'a training step, BiLSTM-CRF 100 units',
    batchSize,
    steps,
    tokensPerSecond: result.tokensPerSecond,
    wallMsPerStep: +wallMsPerStep.toFixed(2),
    programsPerStep: +(programs / (2 * steps)).toFixed(1),
    // The profiled epoch includes its dev pass over 8 sentences (a few programs) besides the steps.
    gpuMsPerStep: +(gpuMs / steps).toFixed(3),
    gpuShareOfWall: +(gpuMs / steps / wallMsPerStep).toFixed(3),
    top,
  });
}

// The recurrence kernels alone: one direction's forward, its backpropagation through time and its
// recurrent weights' gradient, T = 40 steps, H = 100 units, one workgroup a sentence.
const T = 40;
const H = 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const B of quick ? [8, 32] : [8, 32, 128, 512, 2048]) {
  const xw = tf.randomNormal([B, T, 4 * H], 0, 0.5, 'float32', 1);
  const m = tf.ones([B, T]);
  const wh = tf.randomNormal([H, 4 * H], 0, 0.1, 'float32', 2);
  const bias = tf.zeros([4 * H]);
  const dy = tf.randomNormal([B, T, H], 0, 0.1, 'float32', 3);
  const p = tf.engine().runKernel(lstm.LSTM_SEQ, { xw, m, wh, bias }, { reverse: false }) as tf.Tensor;
  const dz = tf.engine().runKernel(lstm.LSTM_SEQ_GRAD, { dy, p, m, wh }, { reverse: false, cells: false }) as tf.Tensor;
  await dz.data();
  const calls = {
    forward: () => tf.engine().runKernel(lstm.LSTM_SEQ, { xw, m, wh, bias }, { reverse: false }) as tf.Tensor,
    backward: () => tf.engine().runKernel(lstm.LSTM_SEQ_GRAD, { dy, p, m, wh }, { reverse: false, cells: false }) as tf.Tensor,
    whGradient: () => tf.engine().runKernel(lstm.LSTM_WH_GRAD, { p, dz }, { reverse: false }) as tf.Tensor,
  };
  const row: Record<string, number> = {};
  for (const [what, call] of Object.entries(calls)) {
    const ms: number[] = [];
    for (let k = 0; k < 5; k++) {
      const by = await gpuTimes(async () => {
        const y = call();
        await y.data();
        y.dispose();
      });
      ms.push([...by.values()].reduce((a, e) => a + e.ms, 0));
    }
    row[`${what}Ms`] = +median(ms).toFixed(4);
  }
  print({ measure: 'one LSTM direction alone', T, H, sentences: B, ...row });
  tf.dispose([xw, m, wh, bias, dy, p, dz]);
}

// The CPU cost of a program: 400 small additions dispatched, then one read.
{
  const a = tf.ones([32, 100]);
  let x = tf.zeros([32, 100]);
  await x.data();
  const t0 = performance.now();
  for (let k = 0; k < 400; k++) {
    const y = tf.add(x, a);
    x.dispose();
    x = y;
  }
  await x.data();
  print({ measure: 'a small program, dispatched 400 times then read once', msPerProgram: +((performance.now() - t0) / 400).toFixed(4) });
  tf.dispose([a, x]);
}
