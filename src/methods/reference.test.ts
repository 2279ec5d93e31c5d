/**
 * Every method's numerics, held still: a fixed-seed run of each on a small toy task gives the
 * losses of every epoch of every stage (6 decimals, finer than any log prints) and the dev F1 it
 * gave when the values in reference-losses.json were taken. A refactor of the methods, the
 * pipelines or the loop that moves any of them fails here. To take the values anew (only for a
 * change meant to move numerics, said in its commit): REFERENCE_LOSSES=write npx vitest run
 * src/methods/reference.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRunConfig } from '../core/runConfig';
import { bioTags, ioTags, type LabeledSentence } from '../model/data';
import { decoupledFeaturizerWords, MASK } from '../model/decoupled';
import { buildFeaturizer } from '../model/features';
import * as tf from '../model/tf';
import { getPipeline } from './index';
import { pipelineSchema, runPipeline, type StageRecord } from './pipelines';

const FILE = new URL('./reference-losses.json', import.meta.url);
const writing = process.env.REFERENCE_LOSSES === 'write';
const stored: Record<string, Reference> = writing ? {} : JSON.parse(readFileSync(FILE, 'utf8'));
const taken: Record<string, Reference> = {};

interface Reference {
  stages: { stage: string; losses: string[]; devF1: string }[];
  devF1: string;
}

beforeAll(async () => {
  await tf.setBackend('cpu');
});

afterAll(() => {
  if (writing) writeFileSync(FILE, `${JSON.stringify(taken, null, 1)}\n`);
});

// The toy language of model/train.test.ts: capitalized words after "in" are places, after "mr" people.
const tags = bioTags(['LOC', 'PER']);
const words = ['in', 'mr', 'the', 'Paris', 'Rome', 'Smith', 'Jones', 'went', 'saw'];
function toy(n: number, seed: number): LabeledSentence[] {
  let s = seed;
  const r = () => (s = (s * 16807) % 2147483647) / 2147483647;
  return Array.from({ length: n }, (_, k) => {
    const out: { w: string; t: number }[] = [];
    const len = 3 + Math.floor(r() * 5);
    while (out.length < len) {
      const x = r();
      if (x < 0.25) out.push({ w: 'in', t: 0 }, { w: r() < 0.5 ? 'Paris' : 'Rome', t: 1 });
      else if (x < 0.5) out.push({ w: 'mr', t: 0 }, { w: r() < 0.5 ? 'Smith' : 'Jones', t: 3 });
      else out.push({ w: r() < 0.5 ? 'the' : 'went', t: 0 });
    }
    return { words: out.map((o) => o.w), tags: out.map((o) => o.t), doc: k, offset: 0 };
  });
}
const glove = {
  dims: 4,
  index: new Map([...words, MASK].map((w, k) => [w.toLowerCase(), k])),
  vectors: Float32Array.from({ length: (words.length + 1) * 4 }, (_, i) => Math.sin(i)),
};
const train = toy(40, 3);
const dev = toy(20, 5);
// Weak labels: every fourth sentence strong, the others weak with a third of their entity tokens dropped.
const mixed = train.map((s, k) => (k % 4 ? { ...s, weak: true, tags: s.tags.map((t, i) => (t && i % 3 === 0 ? 0 : t)) } : s));
const distant = mixed.map((s) => ({ ...s, weak: true }));
const feat = buildFeaturizer(
  glove,
  train.map((s) => s.words),
  tags,
);
const toIO = (xs: LabeledSentence[]) => xs.map((s) => ({ ...s, tags: s.tags.map((t) => (t ? (t + 1) >> 1 : 0)) }));
const ioFeat = buildFeaturizer(
  glove,
  train.map((s) => s.words),
  ioTags(['LOC', 'PER']),
);
const config = (method: object, model: object = {}, epochs = 3) =>
  parseRunConfig({
    data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
    model: { hidden: 8, charDim: 4, charFilters: 4, dropout: 0.2, ...model },
    method,
    train: { epochs, batchSize: 8, lr: 0.01, patience: 10, seed: 3 },
  });

const f = (x: number) => x.toFixed(6);
const reference = (stages: readonly StageRecord[], devF1: number): Reference => ({
  stages: stages.map((s) => ({ stage: s.stage, losses: (s.history ?? []).map((h) => f(h.loss)), devF1: f(s.devF1) })),
  devF1: f(devF1),
});

/** Runs a case and holds it to its stored reference (or takes it). */
function holds(name: string, run: () => Promise<Reference>) {
  it(name, async () => {
    const got = await run();
    taken[name] = got;
    if (!writing) expect(got).toEqual(stored[name]);
  }, 120_000);
}

const single =
  (method: object, model: object = {}, data: LabeledSentence[] = mixed, ft = feat, dv = dev) =>
  async () => {
    const r = await runPipeline(pipelineSchema.parse({ kind: 'single' }), config(method, model), ft, { train: data, dev: dv });
    r.tagger.dispose();
    return reference(r.stages, r.dev?.overall.f1 ?? 0);
  };
const staged =
  (pipeline: object, method: object, model: object = {}, data: LabeledSentence[] = mixed, ft = feat, dv = dev, epochs = 3) =>
  async () => {
    const r = await runPipeline(pipelineSchema.parse(pipeline), config(method, model, epochs), ft, { train: data, dev: dv });
    r.tagger.dispose();
    return reference(r.stages, r.dev?.overall.f1 ?? 0);
  };

describe('reference losses: every method, fixed seed, toy task', () => {
  holds('supervised', single({ name: 'supervised' }));
  holds('wsl', single({ name: 'wsl' }));
  holds('weighted-wsl', single({ name: 'weighted-wsl' }));
  holds('partial-wsl', single({ name: 'partial-wsl' }));
  holds('wsl, softmax head', single({ name: 'wsl' }, { head: 'softmax' }));
  holds(
    'noise-aware',
    single(
      { name: 'noise-aware' },
      {},
      mixed.map((s, k) => (s.weak ? { ...s, confidence: 0.5 + (k % 5) / 10 } : s)),
    ),
  );
  holds('negative sampling, uniform', single({ name: 'negative-sampling', sampling: 'uniform' }, { head: 'span' }, distant));
  holds('negative sampling, weighted', single({ name: 'negative-sampling', sampling: 'weighted' }, { head: 'span' }, distant));
  holds('RoSTER noise-robust stage', single({ name: 'roster', removeFromEpoch: 2 }, { head: 'twopart' }, toIO(distant), ioFeat, toIO(dev)));
  holds('PU + negative sampling', staged({ kind: 'pu', explore: 2, lambda: 0.1 }, { name: 'pu' }, {}, distant));
  holds('SST', staged({ kind: 'sst' }, { name: 'wsl' }));
  holds('weak-label completion', staged({ kind: 'completion' }, { name: 'wsl' }, {}, distant));
  holds('NEEDLE', staged({ kind: 'needle', bins: 4, stage1: { epochs: 1, vocab: 20 } }, { name: 'noise-aware' }));
  holds(
    'RoSTER',
    staged(
      { kind: 'roster', models: 2, rounds: 1, roundEpochs: 1, lm: { epochs: 1, vocab: 20 } },
      { name: 'roster', removeFromEpoch: 2 },
      { head: 'twopart' },
      toIO(distant),
      ioFeat,
      toIO(dev),
    ),
  );
  holds('BOND', staged({ kind: 'bond', teacherEpochs: 3, rounds: 2, roundEpochs: 1, threshold: 0.5 }, { name: 'wsl' }, { head: 'softmax' }, distant));
  holds('decoupled', async () => {
    const p = pipelineSchema.parse({
      kind: 'decoupled',
      maxLength: 2,
      negatives: 2,
      mentionPretrain: { epochs: 1 },
      contextPretrain: { epochs: 1, vocab: 20 },
    });
    if (p.kind !== 'decoupled') throw new Error('decoupled');
    const dfeat = buildFeaturizer(
      { ...glove, index: new Map([...glove.index].filter(([w]) => w !== MASK.toLowerCase())) },
      decoupledFeaturizerWords(train.map((s) => s.words)),
      tags,
    );
    const dictionary = [
      { words: ['Paris'], type: 'LOC' },
      { words: ['Smith'], type: 'PER' },
    ];
    // Through its module, as the worker and the CLI train it.
    const r = await getPipeline('decoupled').spanModel!(
      p,
      config({ name: 'supervised' }),
      dfeat,
      {
        strong: mixed.filter((s) => !s.weak),
        weak: mixed.filter((s) => s.weak),
        dev,
        dictionary,
      },
      {},
    );
    r.dispose();
    return reference(r.stages, r.dev?.overall.f1 ?? 0);
  });
});
