import { beforeAll, describe, expect, it } from 'vitest';
import { pretrainEncoder } from '../model/pretrain';
import * as tf from '../model/tf';
import { evaluate } from '../model/train';
import { config, dev, distant, ioFeat, toIO } from '../testing/toyTask';
import { pipelineSchema, runPipeline } from './pipelines';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const method = { name: 'roster', q: 0.7, tau: 0.7, removeFromEpoch: 2, dropO: 0.5 };
const base = config(method, { head: 'twopart' });
const cfg = { ...base, train: { ...base.train, oShift: 0 as const } };
const data = { train: toIO(distant), dev: toIO(dev) };

describe("RoSTER's whole pipeline", () => {
  it('keeps the best model on dev among its stages (keepBest), or the last round, as the paper', async () => {
    // A learning rate that wrecks the self-training round: the last stage is not the best.
    const pipeline = { kind: 'roster', models: 2, rounds: 1, roundEpochs: 1, roundLr: 3, augmentRate: 0, stopEarly: false };
    const kept = await runPipeline(pipelineSchema.parse(pipeline), cfg, ioFeat, data);
    const best = Math.max(...kept.stages.map((s) => s.devF1));
    const last = kept.stages[kept.stages.length - 1];
    expect(last.stage).toBe('self-training round 1');
    expect(last.devF1).toBeLessThan(best);
    expect(kept.keptStage).toBe(kept.stages.find((s) => s.devF1 === best)!.stage);
    expect(kept.dev!.overall.f1).toBeCloseTo(best, 6);
    // The run's model is that stage's, not only its score.
    expect((await evaluate(kept.tagger, ioFeat, data.dev)).overall.f1).toBeCloseTo(best, 6);
    kept.tagger.dispose();

    const paper = await runPipeline(pipelineSchema.parse({ ...pipeline, keepBest: false }), cfg, ioFeat, data);
    expect(paper.keptStage).toBeUndefined();
    expect(paper.stages.map((s) => s.devF1)).toEqual(kept.stages.map((s) => s.devF1));
    expect(paper.dev!.overall.f1).toBeCloseTo(last.devF1, 6);
    paper.tagger.dispose();
  }, 300_000);

  it('stops at the first stage after the ensemble that does not beat the best so far (stopEarly)', async () => {
    // Round 1's learning rate wrecks it: round 2, which would learn from its predictions, is not run.
    const pipeline = { kind: 'roster', models: 2, rounds: 2, roundEpochs: 1, roundLr: 3, augmentRate: 0 };
    const messages: string[] = [];
    const early = await runPipeline(pipelineSchema.parse(pipeline), cfg, ioFeat, data, { onStage: (m) => messages.push(m) });
    const all = await runPipeline(pipelineSchema.parse({ ...pipeline, stopEarly: false }), cfg, ioFeat, data);
    const names = all.stages.map((s) => s.stage);
    expect(names).toEqual(['noise-robust model 1', 'noise-robust model 2', 'ensemble distillation', 'self-training round 1', 'self-training round 2']);
    // The stages run are the full pipeline's first ones, up to the first that loses after the ensemble.
    const scores = all.stages.map((s) => s.devF1);
    const firstLoss = scores.findIndex((f, i) => i >= 2 && f <= Math.max(...scores.slice(0, i)));
    expect(firstLoss).toBeGreaterThanOrEqual(2);
    expect(firstLoss).toBeLessThan(4);
    expect(early.stages.map((s) => [s.stage, s.devF1])).toEqual(all.stages.slice(0, firstLoss + 1).map((s) => [s.stage, s.devF1]));
    expect(messages.some((m) => m.startsWith(`${names[firstLoss]} did not beat`) && m.includes('the pipeline stops here'))).toBe(true);
    // The run is the best stage's model either way.
    expect(early.dev!.overall.f1).toBeCloseTo(Math.max(...scores.slice(0, firstLoss + 1)), 6);
    early.tagger.dispose();
    all.tagger.dispose();
  }, 300_000);

  it('gives the ensembles of nearby seeds no model in common (spread seeds), as consecutive seeds did', async () => {
    const run = async (seed: number, ensembleSeeds: string) => {
      const pipeline = pipelineSchema.parse({ kind: 'roster', models: 2, rounds: 0, ensembleSeeds });
      const r = await runPipeline(pipeline, { ...cfg, train: { ...cfg.train, seed } }, ioFeat, data);
      r.tagger.dispose();
      return r.stages.filter((s) => s.stage.startsWith('noise-robust')).map((s) => JSON.stringify(s.history));
    };
    const [one, two] = [await run(1, 'consecutive'), await run(2, 'consecutive')];
    expect(one[1]).toBe(two[0]);
    const [a, b] = [await run(1, 'spread'), await run(2, 'spread')];
    expect(a[0]).toBe(one[0]);
    expect(new Set([...a, ...b]).size).toBe(4);
  }, 300_000);

  it("augments with the project encoder's language model when the run has one, training none of its own", async () => {
    const text = data.train.map((s) => ({ words: s.words }));
    const e = (await pretrainEncoder(cfg.model, ioFeat, text, { epochs: 1, vocab: 20, batchSize: 8, lr: 0.01, clip: 5, seed: 1 }))!;
    expect([...e.lm!.words].sort()).toEqual(['<other>', ...new Set(text.flatMap((s) => s.words.map((w) => w.toLowerCase())))].sort());
    expect(Object.keys(e.lm!.heads).sort()).toEqual(['bw/b', 'bw/w', 'fw/b', 'fw/w']);
    const pipeline = pipelineSchema.parse({ kind: 'roster', models: 1, rounds: 1, roundEpochs: 1, lm: { epochs: 1, vocab: 20 } });
    const messages: string[] = [];
    const r = await runPipeline(pipeline, cfg, ioFeat, { ...data, encoder: e.weights, encoderLm: e.lm }, { onStage: (m) => messages.push(m) });
    expect(r.stages.map((s) => [s.stage, s.epochs])).toEqual([
      ['noise-robust model 1', 3],
      ["language model for augmentation (the project encoder's)", 0],
      ['self-training round 1 (with augmented copies)', 1],
    ]);
    // Its copies are the original sentences and as many augmented ones.
    expect(r.stages[2].trainSentences).toBe(2 * data.train.length);
    expect(messages.some((m) => m.includes("the project's pre-trained encoder (9-word language model), no training"))).toBe(true);
    r.tagger.dispose();

    // Without the encoder's language model (an encoder kept before it was), the run trains its own.
    const own = await runPipeline(pipeline, cfg, ioFeat, { ...data, encoder: e.weights });
    expect(own.stages.map((s) => [s.stage, s.epochs])[1]).toEqual(['language model for augmentation', 1]);
    own.tagger.dispose();
  }, 120_000);

  it('self-trains on the unlabeled text too (unlabeled), with the training text, never in the noise-robust stage', async () => {
    const unlabeled = data.dev.map((s) => ({ ...s, tags: s.tags.map(() => 0) }));
    const pipeline = pipelineSchema.parse({ kind: 'roster', models: 1, rounds: 1, roundEpochs: 1, augmentRate: 0, unlabeled: 3 });
    const messages: string[] = [];
    const r = await runPipeline(pipeline, cfg, ioFeat, { ...data, unlabeled }, { onStage: (m) => messages.push(m) });
    expect(r.stages.map((s) => [s.stage, s.trainSentences])).toEqual([
      ['noise-robust model 1', data.train.length],
      ['self-training round 1', data.train.length + 3],
    ]);
    expect(messages).toContain('self-training on the training text and 3 unlabeled sentences');
    r.tagger.dispose();
  }, 120_000);

  it('refuses an encoder that does not fit the model', async () => {
    const text = data.train.map((s) => ({ words: s.words }));
    const e = (await pretrainEncoder({ ...cfg.model, hidden: 6 }, ioFeat, text, { epochs: 1, vocab: 20, batchSize: 8, lr: 0.01, clip: 5, seed: 1 }))!;
    const pipeline = pipelineSchema.parse({ kind: 'roster', models: 1, rounds: 1, roundEpochs: 1 });
    await expect(
      runPipeline(pipeline, { ...cfg, train: { ...cfg.train, epochs: 1 } }, ioFeat, { ...data, encoder: e.weights, encoderLm: e.lm }),
    ).rejects.toThrow(/does not fit this model/);
  }, 120_000);
});
