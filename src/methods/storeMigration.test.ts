/**
 * Stored runs keep working across code changes: run stores written by the code before the method
 * modules were rebuilt (commit 0e55597: the pipelines still one if-chain) resume under today's
 * code to the run an uninterrupted one gives. The fixtures (fixtures/run-stores/) are the RoSTER
 * case of the reference-loss test, stopped inside its second noise-robust model and before its
 * self-training round, written by the CLI's file store; the studio's IndexedDB store keeps the same
 * keys and values.
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { fileRunStore } from '../cli/runStore';
import * as tf from '../model/tf';
import { config, distant, dev, ioFeat, toIO } from '../testing/toyTask';
import { pipelineSchema, runPipeline } from './pipelines';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const reference = JSON.parse(readFileSync(new URL('./reference-losses.json', import.meta.url), 'utf8')).RoSTER as {
  stages: { stage: string; losses: string[] }[];
  devF1: string;
};
const FIXTURES = fileURLToPath(new URL('../../fixtures/run-stores/', import.meta.url));

async function resume(fixture: string, stamp: string) {
  const dir = join(mkdtempSync(join(tmpdir(), 'store-')), fixture);
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  const store = fileRunStore(dir, { fixture: stamp });
  const trained: string[] = [];
  const restored: string[] = [];
  const r = await runPipeline(
    pipelineSchema.parse({ kind: 'roster', models: 2, rounds: 1, roundEpochs: 1, lm: { epochs: 1, vocab: 20 }, keepBest: false, ensembleSeeds: 'consecutive' }),
    config({ name: 'roster', q: 0.7, tau: 0.7, removeFromEpoch: 2, dropO: 0.5 }, { head: 'twopart' }),
    ioFeat,
    { train: toIO(distant), dev: toIO(dev) },
    { onEpoch: (e) => void trained.push(`${e.stage} ${e.epoch}`), onStage: (m) => void (m.includes('restored') && restored.push(m)) },
    store,
  );
  r.tagger.dispose();
  expect(r.stages.map((s) => ({ stage: s.stage, losses: (s.history ?? []).map((h) => h.loss.toFixed(6)) }))).toEqual(
    reference.stages.map(({ stage, losses }) => ({ stage, losses })),
  );
  expect((r.dev?.overall.f1 ?? 0).toFixed(6)).toBe(reference.devF1);
  return { trained, restored };
}

describe('run stores written before the method modules', () => {
  it('resume inside a stage: the finished stage is restored, the stopped one goes on from its checkpoint', async () => {
    const { trained } = await resume('roster-stopped-inside-model-2', 'roster, stopped inside its second noise-robust model');
    expect(trained).toEqual([
      'noise-robust model 2 of 2 3',
      'ensemble distillation 1',
      'ensemble distillation 2',
      'ensemble distillation 3',
      'self-training round 1 of 1 (with augmented copies) 1',
    ]);
  }, 120_000);

  it('resume after the language model: three stages and the language model restored, only the round trains', async () => {
    const { trained, restored } = await resume('roster-stopped-before-round', 'roster, stopped before its self-training round');
    expect(trained).toEqual(['self-training round 1 of 1 (with augmented copies) 1']);
    expect(restored).toEqual([
      "stage 0 noise-robust model 1: restored from the run's store",
      "stage 1 noise-robust model 2: restored from the run's store",
      "stage 2 ensemble distillation: restored from the run's store",
      "language model for augmentation: restored from the run's store",
    ]);
  }, 120_000);
});
