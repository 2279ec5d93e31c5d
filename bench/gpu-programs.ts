/**
 * GPU programs per training step and per epoch, by where they come from (src/model/programSource.ts),
 * for the BiLSTM-CRF and the ID-CNN-CRF on WebGPU: Dawn (the `webgpu` npm package, Chromium's
 * WebGPU) in Node, on SwiftShader's Vulkan from Debian's chromium package, so no GPU is needed.
 * A program's CPU cost in the backend and Dawn is what limits WebGPU training (BENCHMARKS.md), so
 * the count is the figure to drive down.
 *
 *   npx tsx bench/gpu-programs.ts [--sentences 96] [--out bench/results/gpu-programs.json] [--average 0.99]
 *
 * It trains one epoch of the first N CoNLL-2003 sentences (batch 32; the dev pass on 8) with the
 * studio's loop and counts every runWebGPUProgram call, plus the fused optimizer's own dispatches
 * (src/model/adamWebgpu.ts). Programs per step do not depend on the batch's sentence length, so an
 * epoch of 1,000 sentences is 32 steps at the measured mean, plus its dev pass. Needs the data
 * folder (NER_STUDIO_DATA, default ../shared/data), public/glove, and /usr/bin/chromium.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MADE_ONCE_SHADOWS } from '../src/model/average';
import { attributeBackward, currentProgramSource, MADE_ONCE_VARIABLES } from '../src/model/programSource';
import * as tf from '../src/model/tf';
import { startLocalWebgpu } from './dawn-local';
import { THROUGHPUT_MODELS, throughputInput } from './throughput-input';
import { runThroughput } from './train-throughput-core';

const { values } = parseArgs({
  options: {
    sentences: { type: 'string', default: '96' },
    out: { type: 'string' },
    'no-fused': { type: 'boolean' },
    /** Also count with TensorFlow.js's generic Adam, written under "genericAdam". */
    compare: { type: 'boolean' },
    kernels: { type: 'boolean' },
    /** Count one encoder only (bilstm or idcnn): a quick look while writing a kernel, not a record. */
    only: { type: 'string' },
    /** Train with weight averaging at this decay (train.average): on the fused Adam it adds no program a step. */
    average: { type: 'string' },
  },
});
const SENTENCES = Number(values.sentences);
const BATCH = 32;
const EPOCH = 1000;

await startLocalWebgpu();

/** Counts each runWebGPUProgram call under the part that made it. */
const bySource = new Map<string, number>();
const b = tf.backend() as unknown as { runWebGPUProgram: (...a: unknown[]) => unknown };
const run = b.runWebGPUProgram.bind(b);
/** With --kernels: each source's programs by the program's class (what to fuse next). */
const byKernel = new Map<string, number>();
b.runWebGPUProgram = (...a: unknown[]) => {
  const k = currentProgramSource();
  bySource.set(k, (bySource.get(k) ?? 0) + 1);
  if (values.kernels) {
    const key = `${k} :: ${(a[0] as { constructor: { name: string } }).constructor.name}`;
    byKernel.set(key, (byKernel.get(key) ?? 0) + 1);
  }
  return run(...a);
};
const { countDispatches, MADE_ONCE } = await import('../src/model/adamWebgpu');
countDispatches((n) => {
  const k = currentProgramSource();
  bySource.set(k, (bySource.get(k) ?? 0) + n);
});
attributeBackward();

const input = throughputInput(SENTENCES);

/** Programs per step and epoch by source, for each encoder, with the fused Adam on or off. */
async function count(fused: boolean): Promise<Record<string, unknown>> {
  tf.env().set('STUDIO_FUSED_ADAM', fused);
  const out: Record<string, unknown> = {};
  for (const m of THROUGHPUT_MODELS.filter((x) => !values.only || x.encoder === values.only)) {
    bySource.clear();
    byKernel.clear();
    const r = await runThroughput({ ...input, ...m, epochs: 1, ...(values.average ? { average: Number(values.average) } : {}) });
    const steps = Math.ceil(SENTENCES / BATCH);
    const dev = bySource.get('dev pass') ?? 0;
    const onceKeys = [MADE_ONCE, MADE_ONCE_VARIABLES, MADE_ONCE_SHADOWS];
    const perStep = Object.fromEntries(
      [...bySource]
        .filter(([k]) => k !== 'dev pass' && !onceKeys.includes(k))
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => [k, +(n / steps).toFixed(2)]),
    );
    const programsPerStep = Object.values(perStep).reduce((a, x) => a + x, 0);
    const epochSteps = Math.ceil(EPOCH / BATCH);
    const row = {
      sentences: EPOCH,
      measuredOn: { sentences: SENTENCES, steps, devSentences: 8 },
      programsPerStep: Math.round(programsPerStep),
      programsPerEpoch: Math.round(programsPerStep * epochSteps + dev),
      bySource: { ...Object.fromEntries(Object.entries(perStep).map(([k, n]) => [k, Math.round(n * epochSteps)])), 'dev pass': dev },
      /** Programs of the first step only (not in the epoch's count: a run makes them once). */
      once: Object.fromEntries(onceKeys.map((k) => [k, bySource.get(k) ?? 0])),
      perStepBySource: perStep,
      losses: r.losses,
      fusedOptimizer: fused,
    };
    out[m.encoder] = row;
    console.error(
      `${m.encoder}${fused ? '' : ' (generic Adam)'}: ${row.programsPerStep} programs a step, ${row.programsPerEpoch} an epoch of ${EPOCH} sentences`,
    );
    for (const [k, n] of Object.entries(perStep)) console.error(`  ${k.padEnd(44)} ${n.toFixed(1).padStart(7)} a step`);
    if (values.kernels) for (const [k, n] of [...byKernel].sort()) console.error(`${String(n).padStart(5)}  ${k}`);
  }
  return out;
}

const record = {
  backend: 'webgpu (Dawn in Node, SwiftShader)',
  batchSize: BATCH,
  date: new Date().toISOString().slice(0, 10),
  ...(await count(!values['no-fused'])),
  ...(values.compare ? { genericAdam: await count(false) } : {}),
};
if (values.out) writeFileSync(values.out, `${JSON.stringify(record, null, 2)}\n`);
console.log(JSON.stringify(record));
