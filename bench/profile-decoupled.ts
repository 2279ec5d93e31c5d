/**
 * Where the decoupled model's time goes (paper 004), on the WASM backend in Node: unified-training
 * steps (regions of CoNLL-2003 sentences: the entities plus 4 sampled negatives each) and
 * prediction over every candidate, timed and profiled by TensorFlow.js kernel.
 *   npx tsx bench/profile-decoupled.ts [--sentences 200] [--steps 16] [--top 25] [--shapes]
 */
import { parseArgs } from 'node:util';
import { mulberry32 } from '../src/core/random';
import { useWasmBackend } from '../src/cli/train';
import { parseRunConfig } from '../src/core/runConfig';
import { classesOf, spansOfTags } from '../src/methods/decoupled';
import { candidates, decoupledFeaturizerWords, DecoupledModel, type RegionExample } from '../src/model/decoupled';
import { trimGlove } from '../src/model/embeddings';
import { buildFeaturizer } from '../src/model/features';
import { readGloveAsset } from '../src/model/gloveNode';
import * as tf from '../src/model/tf';
import { conll03TrainSentences } from './conll03';

const { values } = parseArgs({ options: { sentences: { type: 'string', default: '200' }, steps: { type: 'string', default: '16' }, top: { type: 'string', default: '25' }, shapes: { type: 'boolean' } } });
const { tags, sentences } = conll03TrainSentences(Number(values.sentences));
await useWasmBackend();
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
const fit = (n: number) => model.fit(examples.slice(0, n), (b, s) => model.unifiedLosses(b, true, s).total, vars, { optimizer, batchSize: 32, clip: 5, seed: 1, step: 0 });
const steps = Number(values.steps);
await fit(32 * 2); // warm-up, and the heads exist after it
const profiled = async (name: string, f: () => Promise<unknown>) => {
  const t0 = performance.now();
  const prof = await tf.profile(async () => void (await f()));
  const wall = performance.now() - t0;
  const byKernel = new Map<string, { ms: number; n: number }>();
  for (const kr of prof.kernels) {
    const key = values.shapes ? `${kr.name} ${JSON.stringify(kr.inputShapes)}` : kr.name;
    const e = byKernel.get(key) ?? { ms: 0, n: 0 };
    e.ms += Number(kr.kernelTimeMs) || 0;
    e.n++;
    byKernel.set(key, e);
  }
  const total = [...byKernel.values()].reduce((a, e) => a + e.ms, 0);
  console.log(`\n${name}: ${wall.toFixed(0)} ms under the profiler, kernels ${total.toFixed(0)} ms, ${prof.kernels.length} kernel calls`);
  for (const [k, e] of [...byKernel].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(values.top))) console.log(`${((100 * e.ms) / total).toFixed(1).padStart(5)}%  ${e.ms.toFixed(1).padStart(8)} ms  ${String(e.n).padStart(6)}x  ${k}`);
};
const n = Math.min(examples.length, 32 * steps);
let t0 = performance.now();
await fit(n);
console.log(`unified training: ${n} regions in ${(performance.now() - t0).toFixed(0)} ms (${((performance.now() - t0) / Math.ceil(n / 32)).toFixed(1)} ms a step)`);
const cands = sentences.map((s) => candidates(s.words, 4));
const regions = cands.reduce((a, c) => a + c.length, 0);
t0 = performance.now();
await model.predict(sentences, cands);
console.log(`prediction: ${sentences.length} sentences, ${regions} candidate regions in ${(performance.now() - t0).toFixed(0)} ms`);
await profiled('unified training', () => fit(n));
await profiled('prediction', () => model.predict(sentences, cands));
