/**
 * Negative sampling's training step on the span head (issue 6), two ways side by side in one
 * process on the WASM backend: the loss over every span slot's logits with the unsampled ones
 * weighted 0 (before), and the span MLP run on the labeled and sampled slots only (the method's
 * `emissions`). Same batches, same samples, same weights; prints ms a step for each (median over
 * rounds, the two alternating), their ratio, and the largest loss difference; and the cost of
 * `prepare` a step with the oracle read (the weighted sampler's, and the uniform sampler's every
 * 10th step for its statistics) and without (the uniform sampler's other steps).
 *   npx tsx bench/span-sampled-step.ts [--sentences 320] [--rounds 3] [--hidden 100]
 */
import { parseArgs } from 'node:util';
import '../src/methods';
import { getMethod } from '../src/methods';
import { initWasmBackend } from '../src/cli/train';
import { mulberry32 } from '../src/core/random';
import { parseRunConfig } from '../src/core/runConfig';
import { trimGlove } from '../src/model/embeddings';
import { buildFeaturizer, featureDims, makeBatch } from '../src/model/features';
import { readGloveAsset } from '../src/model/gloveNode';
import { applyClipped } from '../src/model/ops';
import { spanCrossEntropy, spanSlots } from '../src/model/spanHead';
import { batchTensors, Tagger } from '../src/model/tagger';
import * as tf from '../src/model/tf';
import { makeBatches } from '../src/model/train';
import { median } from './browser';
import { conll03TrainSentences } from './conll03';

const { values } = parseArgs({
  options: { sentences: { type: 'string', default: '320' }, rounds: { type: 'string', default: '3' }, hidden: { type: 'string', default: '100' } },
});
const { tags, sentences } = conll03TrainSentences(Number(values.sentences));
const backend = await initWasmBackend();
const feat = buildFeaturizer(
  trimGlove(
    readGloveAsset(),
    sentences.flatMap((s) => s.words),
  ),
  sentences.map((s) => s.words),
  tags,
);
const cfg = parseRunConfig({
  data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
  model: { encoder: 'bilstm', hidden: Number(values.hidden), head: 'span', dropout: 0.5 },
  method: { name: 'negative-sampling' },
  train: { epochs: 1, batchSize: 32, lr: 0.002, seed: 1 },
});
const method = getMethod('negative-sampling');
const config = method.schema.parse(cfg.method);
const tagger = new Tagger(cfg.model, featureDims(feat), 1);
const vars = [...tagger.params.values()];
const batches = makeBatches(sentences, 32, mulberry32(1));
// Each batch's samples drawn once, so both ways train on the same spans.
const prepared: { batch: ReturnType<typeof makeBatch>; data: { slots: Int32Array; labels: Int32Array } }[] = [];
for (const [k, idx] of batches.entries()) {
  const batch = makeBatch(
    feat,
    idx.map((i) => sentences[i]),
    idx,
  );
  prepared.push({
    batch,
    data: (await method.prepare!({ tagger, batch, config, epoch: 1, epochs: 25, step: k, rand: mulberry32(k) })).data as {
      slots: Int32Array;
      labels: Int32Array;
    },
  });
}
const optimizer = tf.train.sgd(0); // the step's cost without moving the weights
const step = async (k: number, chosen: boolean) => {
  const { batch, data } = prepared[k];
  const { value, grads } = tf.variableGrads(
    () =>
      tf.tidy(() => {
        const tensors = batchTensors(batch, tagger.dims);
        if (chosen)
          return method.loss({
            tagger,
            batch,
            tensors,
            emissions: method.emissions!({ tagger, tensors, step: k, prepared: data }),
            config,
            epoch: 1,
            step: k,
            rand: Math.random,
            prepared: data,
          });
        const S = spanSlots(batch.T, cfg.model.spanMaxLength).S;
        const labels = new Int32Array(batch.B * S);
        const weights = new Float32Array(batch.B * S);
        data.slots.forEach((s, i) => ((labels[s] = data.labels[i]), (weights[s] = 1)));
        return spanCrossEntropy(tagger.emissions(tensors, true, k), labels, weights);
      }),
    vars,
  );
  applyClipped(optimizer, vars, grads, 5);
  const loss = (await value.data())[0];
  value.dispose();
  tf.dispose(Object.values(grads));
  return loss;
};
const ms: Record<'all' | 'chosen', number[]> = { all: [], chosen: [] };
let maxDiff = 0;
for (let r = 0; r < Number(values.rounds); r++) {
  const losses: Record<string, number[]> = { all: [], chosen: [] };
  for (const way of ['all', 'chosen'] as const) {
    const t0 = performance.now();
    for (let k = 0; k < batches.length; k++) losses[way].push(await step(k, way === 'chosen'));
    if (r > 0) ms[way].push((performance.now() - t0) / batches.length); // round 0 warms up
  }
  losses.all.forEach((l, k) => (maxDiff = Math.max(maxDiff, Math.abs(l - losses.chosen[k]))));
}
const [all, chosen] = [median(ms.all), median(ms.chosen)];
const prepareMs: Record<'oracle' | 'none', number[]> = { oracle: [], none: [] };
const weighted = method.schema.parse({ ...cfg.method, sampling: 'weighted' });
for (let r = 0; r < Number(values.rounds); r++) {
  for (const way of ['oracle', 'none'] as const) {
    const t0 = performance.now();
    for (let k = 0; k < batches.length; k++)
      await method.prepare!({
        tagger,
        batch: prepared[k].batch,
        config: way === 'oracle' ? weighted : config,
        epoch: 1,
        epochs: 25,
        step: k,
        rand: mulberry32(k),
      });
    if (r > 0) prepareMs[way].push((performance.now() - t0) / batches.length);
  }
}
const prep = { withOracle: +median(prepareMs.oracle).toFixed(1), without: +median(prepareMs.none).toFixed(1) };
console.log(
  JSON.stringify({
    backend,
    sentences: sentences.length,
    steps: batches.length,
    msPerStep: { allSlots: +all.toFixed(1), chosenSlots: +chosen.toFixed(1) },
    speedup: +(all / chosen).toFixed(2),
    maxLossDifference: maxDiff,
    prepareMsPerStep: prep,
  }),
);
