/**
 * The device side of bench/gpu-node.ts: the studio's training loop on WebGPU through Dawn (the
 * `webgpu` npm package, the WebGPU implementation Chromium uses) and on WASM, in Node, one JSON
 * line per backend and model. Bundled into the kit by bench/gpu-node.ts; not run from here.
 *   node gpu-node-entry.mjs INPUT.json WEBGPU_MODULE WASM_DIR BACKENDS
 */
import { readFileSync } from 'node:fs';
import { registerWasmKernels } from '../src/model/wasmKernels';
import * as tf from '../src/model/tf';
import { type DawnModule, installDawn } from './dawn-globals';
import { runThroughput, type ThroughputInput } from './train-throughput-core';

interface KitInput extends Omit<ThroughputInput, 'encoder' | 'hidden' | 'glove'> {
  glove: { dims: number; words: string[]; vectors: number[] };
  models: { encoder: 'bilstm' | 'idcnn'; hidden: number }[];
}

const [inputPath, webgpuModule, wasmDir, backends] = process.argv.slice(2);
const kit = JSON.parse(readFileSync(inputPath, 'utf8')) as KitInput;
const glove = { ...kit.glove, vectors: Float32Array.from(kit.glove.vectors) };

// TFJS_FLAGS (JSON): TensorFlow.js flags to set first, e.g. {"WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE": 64}
// or {"STUDIO_FUSED_ADAM": false}; the studio's own flags are registered by importing their modules.
await import('../src/model/adamWebgpu');
if (process.env.TFJS_FLAGS) tf.env().setFlags(JSON.parse(process.env.TFJS_FLAGS));
// MODELS: the encoders to run (bilstm,idcnn by default).
const only = process.env.MODELS?.split(',');
if (only) kit.models = kit.models.filter((m) => only.includes(m.encoder));

/** Counts the backend's GPU programs (dispatches) and queue submissions, for the cost of one. */
function countDispatches(): { programs: number; submits: number } {
  const counts = { programs: 0, submits: 0 };
  const b = tf.backend() as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const [method, key] of [
    ['runWebGPUProgram', 'programs'],
    ['submitQueue', 'submits'],
  ] as const) {
    const original = b[method].bind(b);
    b[method] = (...a: unknown[]) => {
      counts[key]++;
      return original(...a);
    };
  }
  return counts;
}

/** Starts a backend; returns how it is named in the results (the adapter, for WebGPU). */
async function start(name: string): Promise<string> {
  if (name === 'webgpu') {
    // The backend registers itself at import where navigator.gpu exists: Dawn's first.
    installDawn((await import(webgpuModule)) as DawnModule);
    // NO_LSTM_KERNEL=1: the generic ops' recurrence; NO_QUEUE_UPLOADS=1: TensorFlow.js's staging-buffer uploads; to compare.
    await (await import('../src/model/webgpuStudio')).registerStudioWebgpu({ lstm: !process.env.NO_LSTM_KERNEL, queueUploads: !process.env.NO_QUEUE_UPLOADS });
  } else if (name === 'wasm') {
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    wasm.setWasmPaths(`${wasmDir}/`);
    registerWasmKernels();
  }
  if (!(await tf.setBackend(name))) throw new Error(`backend ${name} did not start`);
  await tf.ready();
  if (name !== 'webgpu') return name;
  const info = (tf.backend() as unknown as { adapterInfo?: { vendor?: string; architecture?: string } }).adapterInfo;
  const lstm = `${process.env.NO_LSTM_KERNEL ? 'the LSTM as generic ops' : 'the LSTM as WGSL kernels'}${process.env.NO_QUEUE_UPLOADS ? ", TensorFlow.js's staging uploads" : ''}`;
  return `webgpu (Dawn${info ? `, ${[info.vendor, info.architecture].filter(Boolean).join(' ')}` : ''}; ${lstm})`;
}

for (const name of backends.split(',')) {
  let used: string;
  try {
    used = await start(name);
  } catch (e) {
    console.log(JSON.stringify({ where: name, error: (e as Error).message }));
    continue;
  }
  const counts = name === 'webgpu' ? countDispatches() : null;
  // BATCH: sentences a batch (32 by default); LR, EPOCHS: the run's; SEEDS (e.g. 1,2,3): one run each,
  // scored on the kit's dev sentences (gpu-node.ts --dev N) when it has them, else on 8 training ones.
  const env = process.env;
  const options = {
    ...(env.BATCH ? { batchSize: Number(env.BATCH) } : {}),
    ...(env.LR ? { lr: Number(env.LR) } : {}),
    ...(env.EPOCHS ? { epochs: Number(env.EPOCHS) } : {}),
  };
  const seeds = env.SEEDS ? env.SEEDS.split(',').map(Number) : [undefined];
  for (const m of kit.models)
    for (const seed of seeds) {
      try {
        if (counts) Object.assign(counts, { programs: 0, submits: 0 });
        const r = await runThroughput({ ...kit, glove, ...m, ...options, ...(seed === undefined ? {} : { seed }) });
        // Per epoch: the run's programs over its epochs (the dev evaluations included).
        const epochs = options.epochs ?? kit.epochs;
        const dispatch = counts ? { programsPerEpoch: Math.round(counts.programs / epochs), submitsPerEpoch: Math.round(counts.submits / epochs) } : {};
        console.log(JSON.stringify({ where: `Node ${process.version}, ${used}`, flags: process.env.TFJS_FLAGS ?? '', ...r, ...dispatch }));
      } catch (e) {
        console.log(JSON.stringify({ where: used, encoder: m.encoder, error: (e as Error).message }));
      }
    }
}
