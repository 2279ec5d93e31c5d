/**
 * Where the decoupled model's time goes (paper 004), on the WASM backend in Node: unified-training
 * steps (regions of CoNLL-2003 sentences: the entities plus 4 sampled negatives each) and
 * prediction over every candidate, timed and profiled by TensorFlow.js kernel.
 *   npx tsx bench/profile-decoupled.ts [--sentences 200] [--steps 16] [--batch 32] [--predict-batch 256] [--top 25] [--shapes]
 */
import { parseArgs } from 'node:util';
import { mulberry32 } from '../src/core/random';
import { initWasmBackend } from '../src/cli/train';
import { parseRunConfig } from '../src/core/runConfig';
import { classesOf, spansOfTags } from '../src/methods/decoupled';
import { candidates, decoupledFeaturizerWords, DecoupledModel, type RegionExample } from '../src/model/decoupled';
import { trimGlove } from '../src/model/embeddings';
import { buildFeaturizer } from '../src/model/features';
import { readGloveAsset } from '../src/model/gloveNode';
import * as tf from '../src/model/tf';
import { conll03TrainSentences } from './conll03';
import { printKernelProfile } from './kernelProfile';

const { values } = parseArgs({
  options: {
    sentences: { type: 'string', default: '200' },
    steps: { type: 'string', default: '16' },
    batch: { type: 'string', default: '32' },
    'predict-batch': { type: 'string', default: '256' },
    top: { type: 'string', default: '25' },
    shapes: { type: 'boolean' },
  },
});
const { tags, sentences } = conll03TrainSentences(Number(values.sentences));
await initWasmBackend();
const words = sentences.map((s) => s.words);
const feat = buildFeaturizer(trimGlove(readGloveAsset(), words.flat()), decoupledFeaturizerWords(words), tags);
const cfg = parseRunConfig({
  data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
  model: { encoder: 'bilstm', hidden: 100, charDim: 30, charFilters: 30, head: 'crf', dropout: 0.5 },
  train: { epochs: 1, batchSize: 32, lr: 0.002, seed: 1 },
});
const classes = classesOf(feat.tags);
const cls = new Map(classes.map((c, k) => [c, k]));
const model = new DecoupledModel(cfg.model, feat, classes, { alpha: 0.5, beta: 0.5, shared: true, vocab: 5000 }, 1);
const rand = mulberry32(1);
const examples: RegionExample[] = [];
for (const s of sentences) {
  const ents = spansOfTags(s.tags, feat.tags);
  for (const e of ents) examples.push({ words: s.words, start: e.start, end: e.end, label: cls.get(e.label)! });
  const free = candidates(s.words, 4).filter(([a, b]) => ents.every((e) => b <= e.start || e.end <= a));
  for (let k = 0; k < 4 && free.length; k++) {
    const [a, b] = free.splice(Math.floor(rand() * free.length), 1)[0];
    examples.push({ words: s.words, start: a, end: b, label: 0 });
  }
}
const optimizer = tf.train.adam(0.002);
const vars = model.encoderVars('both');
const batch = Number(values.batch);
const fit = (n: number) =>
  model.fit(examples.slice(0, n), (b, s) => model.unifiedLosses(b, true, s).total, vars, { optimizer, batchSize: batch, clip: 5, seed: 1, step: 0 });
const steps = Number(values.steps);
await fit(batch * 2); // warm-up, and the heads exist after it
const n = Math.min(examples.length, batch * steps);
let t0 = performance.now();
const { steps: taken } = await fit(n);
const ms = performance.now() - t0;
console.log(
  `unified training: ${n} regions in ${ms.toFixed(0)} ms, ${taken} steps of up to ${batch} regions (${(ms / taken).toFixed(1)} ms a step, ${((1000 * n) / ms).toFixed(0)} regions/s)`,
);
const cands = sentences.map((s) => candidates(s.words, 4));
const regions = cands.reduce((a, c) => a + c.length, 0);
t0 = performance.now();
await model.predict(sentences, cands, 0, Number(values['predict-batch']));
console.log(`prediction: ${sentences.length} sentences, ${regions} candidate regions in ${(performance.now() - t0).toFixed(0)} ms`);
const opts = { shapes: values.shapes, top: Number(values.top) };
await printKernelProfile('\nunified training', () => fit(n), opts);
await printKernelProfile('\nprediction', () => model.predict(sentences, cands, 0, Number(values['predict-batch'])), opts);
