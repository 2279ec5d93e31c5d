/**
 * RoSTER's noise-robust step (issue 5) on the WASM backend: the cost of judging noisy-label
 * removal by the model without dropout (`prepare`, once removal is on) beside the training step
 * itself, on conll03 sentences with their distant labels, IO tags and the two-part head. Prints
 * ms a step for each (median over timed rounds) and their ratio.
 *   npx tsx bench/roster-step.ts [--sentences 320] [--rounds 3] [--hidden 100]
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
import { batchTensors, Tagger } from '../src/model/tagger';
import * as tf from '../src/model/tf';
import { makeBatches } from '../src/model/train';
import { median } from './browser';
import { conll03TrainSentences } from './conll03';

const { values } = parseArgs({
  options: { sentences: { type: 'string', default: '320' }, rounds: { type: 'string', default: '3' }, hidden: { type: 'string', default: '100' } },
});
const bio = conll03TrainSentences(Number(values.sentences));
// IO tags: B-X and I-X of a type become one tag; every sentence weak.
const types = [...new Set(bio.tags.filter((t) => t !== 'O').map((t) => t.slice(2)))];
const tags = ['O', ...types.map((t) => `I-${t}`)];
const sentences = bio.sentences.map((s) => ({ ...s, weak: true, tags: s.tags.map((t) => (t === 0 ? 0 : 1 + types.indexOf(bio.tags[t].slice(2)))) }));
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
  data: { kind: 'files', scheme: 'IO', train: { conll: 'x' }, dev: { conll: 'y' } },
  model: { encoder: 'bilstm', hidden: Number(values.hidden), head: 'twopart', dropout: 0.5 },
  method: { name: 'roster', removeFromEpoch: 1 },
  train: { epochs: 1, batchSize: 32, lr: 0.002, seed: 1 },
});
const method = getMethod('roster');
const config = method.schema.parse(cfg.method);
const tagger = new Tagger(cfg.model, featureDims(feat), 1);
const vars = [...tagger.params.values()];
const batches = makeBatches(sentences, 32, mulberry32(1)).map((idx) =>
  makeBatch(
    feat,
    idx.map((i) => sentences[i]),
    idx,
  ),
);
const optimizer = tf.train.sgd(0); // the step's cost without moving the weights
const ms: Record<'prepare' | 'step', number[]> = { prepare: [], step: [] };
for (let r = 0; r < Number(values.rounds); r++) {
  let prepare = 0;
  let step = 0;
  for (const [k, batch] of batches.entries()) {
    const p0 = performance.now();
    const prepared = await method.prepare!({ tagger, batch, config, epoch: 1, epochs: 1, step: k, rand: mulberry32(k) });
    const s0 = performance.now();
    const { value, grads } = tf.variableGrads(
      () =>
        tf.tidy(() => {
          const tensors = batchTensors(batch, tagger.dims);
          return method.loss({
            tagger,
            batch,
            tensors,
            emissions: tagger.emissions(tensors, true, k),
            config,
            epoch: 1,
            step: k,
            rand: mulberry32(k),
            prepared: prepared.data,
          });
        }),
      vars,
    );
    applyClipped(optimizer, vars, grads, 5);
    await value.data();
    value.dispose();
    tf.dispose(Object.values(grads));
    prepare += s0 - p0;
    step += performance.now() - s0;
  }
  if (r > 0) ms.prepare.push(prepare / batches.length), ms.step.push(step / batches.length); // round 0 warms up
}
const [prepare, step] = [median(ms.prepare), median(ms.step)];
console.log(
  JSON.stringify({
    backend,
    sentences: sentences.length,
    steps: batches.length,
    msPerStep: { prepare: +prepare.toFixed(1), step: +step.toFixed(1) },
    prepareShareOfStep: +(prepare / step).toFixed(2),
  }),
);
