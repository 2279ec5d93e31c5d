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
import type { LabeledSentence } from '../model/data';
import { decoupledFeaturizerWords, MASK } from '../model/decoupled';
import { buildFeaturizer } from '../model/features';
import * as tf from '../model/tf';
import { config, dev, distant, feat, glove, ioFeat, mixed, tags, toIO, train } from '../testing/toyTask';
import type { RunConfig } from '../core/runConfig';
import { type EngineData, runEngine } from '../engine/run';
import { pipelineSchema, type StageRecord } from './pipelines';

/** Completion as these tests were written for: one round, no type shifts, no self-training (the schema's defaults are the training page's). */
const ONE_ROUND = { rounds: 1, typeShifts: false, unlabeled: 0, unlabeledRounds: 1, keepBest: false };

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

/** A run through the run engine, as the worker, `studio train` and `studio experiment` make it: the data in memory, no store. */
const viaEngine = (cfg: RunConfig, data: Omit<EngineData, 'tags'>) =>
  runEngine<Reference>(
    cfg,
    {
      load: async () => ({ tags: data.feat.tags, ...data }),
      record: async (run) => {
        run.model.dispose();
        return reference(run.stages, run.dev?.overall.f1 ?? 0);
      },
      ended: async (how, reason) => {
        throw new Error(`${how}: ${reason}`);
      },
    },
    undefined,
  );
const single =
  (method: object, model: object = {}, data: LabeledSentence[] = mixed, ft = feat, dv = dev) =>
  () =>
    viaEngine({ ...config(method, model), pipeline: pipelineSchema.parse({ kind: 'single' }) }, { feat: ft, train: data, dev: dv });
const staged =
  (pipeline: object, method: object, model: object = {}, data: LabeledSentence[] = mixed, ft = feat, dv = dev, epochs = 3) =>
  () =>
    viaEngine({ ...config(method, model, epochs), pipeline: pipelineSchema.parse(pipeline) }, { feat: ft, train: data, dev: dv });

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
  holds(
    'RoSTER noise-robust stage',
    single({ name: 'roster', q: 0.7, tau: 0.7, removeFromEpoch: 2, dropO: 0.5 }, { head: 'twopart' }, toIO(distant), ioFeat, toIO(dev)),
  );
  holds('PU + negative sampling', staged({ kind: 'pu', explore: 2, lambda: 0.1 }, { name: 'pu' }, {}, distant));
  holds('SST', staged({ kind: 'sst' }, { name: 'wsl' }));
  holds('weak-label completion', staged({ kind: 'completion', ...ONE_ROUND }, { name: 'wsl' }, {}, distant));
  holds('NEEDLE', staged({ kind: 'needle', bins: 4, stage1: { epochs: 1, vocab: 20 } }, { name: 'noise-aware' }));
  holds(
    'RoSTER',
    staged(
      { kind: 'roster', models: 2, rounds: 1, roundEpochs: 1, lm: { epochs: 1, vocab: 20 }, keepBest: false, ensembleSeeds: 'consecutive' },
      { name: 'roster', q: 0.7, tau: 0.7, removeFromEpoch: 2, dropO: 0.5 },
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
      oShift: 0,
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
    // Through its module, as the engine trains it for the worker and the CLI.
    return viaEngine({ ...config({ name: 'supervised' }), pipeline: p }, { feat: dfeat, train: mixed, dev, dictionary });
  });
});
