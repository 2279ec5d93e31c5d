import { beforeAll, describe, expect, it } from 'vitest';
import { parseRunConfig } from '../core/runConfig';
import { bioTags, type LabeledSentence } from '../model/data';
import { buildFeaturizer } from '../model/features';
import * as tf from '../model/tf';
import { bondHardLabels, bondSoftLabels } from './bond';
import { getMethod } from './index';
import { pipelineSchema, runPipeline } from './pipelines';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('BOND', () => {
  it('sharpens soft labels by each class\u2019s soft frequency over all tokens (§3.2), by hand', () => {
    // Two tokens, two classes: p = (0.8, 1.2).
    const [a, b] = bondSoftLabels([Float32Array.from([0.6, 0.4]), Float32Array.from([0.2, 0.8])], 2);
    const z1 = 0.36 / 0.8 + 0.16 / 1.2;
    const z2 = 0.04 / 0.8 + 0.64 / 1.2;
    expect(a[0]).toBeCloseTo(0.36 / 0.8 / z1, 6);
    expect(a[1]).toBeCloseTo(0.16 / 1.2 / z1, 6);
    expect(b[0]).toBeCloseTo(0.04 / 0.8 / z2, 6);
    expect(b[1]).toBeCloseTo(0.64 / 1.2 / z2, 6);
  });

  it('hard pseudo-labels (BOND hard) are each token\u2019s most probable tag, one-hot, where soft ones move toward the rare class', () => {
    // Class 1 is rare (p = 2.4, 0.6): §3.2's sharpening turns the first token to it, hard labels keep the teacher's argmax.
    const probs = [Float32Array.from([0.55, 0.45, 0.9, 0.1]), Float32Array.from([0.95, 0.05])];
    expect(bondSoftLabels(probs, 2)[0][1]).toBeCloseTo(0.2025 / 0.6 / (0.3025 / 2.4 + 0.2025 / 0.6), 6);
    expect(bondHardLabels(probs, 2).map((p) => Array.from(p))).toEqual([
      [1, 0, 1, 0],
      [1, 0],
    ]);
    expect(Array.from(bondHardLabels([Float32Array.from([0.2, 0.3, 0.5, 0.6, 0.3, 0.1])], 3)[0])).toEqual([0, 0, 1, 1, 0, 0]);
  });

  it('its loss is the cross entropy to the soft labels on the confident tokens only, less their entropy (Eq. 5, §3.3), by hand', () => {
    // One sentence of three positions, the last padding. Token 0 is confident (0.95), token 1 not (0.6).
    const e = [
      [2, 0],
      [0, 1],
      [5, -5],
    ];
    const soft = Float32Array.from([0.95, 0.05, 0.6, 0.4, 0, 0]);
    const loss = tf.tidy(() =>
      getMethod('bond')
        .loss({
          tagger: { cfg: { head: 'softmax' }, dims: { tags: 2 } },
          batch: { B: 1, T: 3, soft, tags: Int32Array.from([0, 1, -1]) },
          tensors: { mask: tf.tensor2d([[1, 1, 0]]) },
          emissions: tf.tensor3d([e]),
          config: { name: 'bond', threshold: 0.9 },
        } as never)
        .arraySync(),
    );
    const logSoftmax = (x: number[]) => {
      const m = Math.max(...x);
      const z = Math.log(x.reduce((a, v) => a + Math.exp(v - m), 0)) + m;
      return x.map((v) => v - z);
    };
    const lp = logSoftmax(e[0]);
    const ce = -(0.95 * lp[0] + 0.05 * lp[1]);
    const entropy = -(0.95 * Math.log(0.95) + 0.05 * Math.log(0.05));
    expect(loss).toBeCloseTo(ce - entropy, 5);
  });

  it('runs its two stages on a toy task, refuses a head without token probabilities, and keeps the best model on dev', async () => {
    const tags = bioTags(['LOC']);
    const words = ['in', 'Paris', 'Rome', 'the', 'went'];
    const sentences = (n: number): LabeledSentence[] =>
      Array.from({ length: n }, (_, k) => {
        const w = k % 2 ? ['we', 'went', 'in', k % 4 === 1 ? 'Paris' : 'Rome'] : ['the', 'went', 'in', 'Rome', 'the'];
        return { words: w, tags: w.map((x) => (x === 'Paris' || x === 'Rome' ? 1 : 0)), doc: k, offset: 0 };
      });
    // Distant labels that miss every third entity.
    const train = sentences(30).map((s, k) => ({ ...s, weak: true, tags: k % 3 === 0 ? s.tags.map(() => 0) : s.tags }));
    const dev = sentences(10);
    const glove = {
      dims: 4,
      index: new Map(words.map((w, k) => [w.toLowerCase(), k])),
      vectors: Float32Array.from({ length: words.length * 4 }, (_, i) => Math.cos(i)),
    };
    const feat = buildFeaturizer(
      glove,
      train.map((s) => s.words),
      tags,
    );
    const cfg = (head: string) =>
      parseRunConfig({
        data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
        model: { hidden: 8, charDim: 4, charFilters: 4, dropout: 0.2, head },
        method: { name: 'wsl' },
        train: { epochs: 10, batchSize: 8, lr: 0.02, patience: 10, seed: 2 },
      });
    const pipeline = pipelineSchema.parse({ kind: 'bond', teacherEpochs: 4, rounds: 2, roundEpochs: 1 });
    await expect(runPipeline(pipeline, cfg('crf'), feat, { train, dev })).rejects.toThrow(/softmax or two-part head/);
    const messages: string[] = [];
    const r = await runPipeline(pipeline, cfg('softmax'), feat, { train, dev }, { onStage: (m) => messages.push(m) });
    expect(r.stages.map((s) => [s.stage, s.epochs])).toEqual([
      ['teacher (distant labels, early-stopped)', 4],
      ['self-training round 1', 1],
      ['self-training round 2', 1],
    ]);
    expect(messages.some((m) => /self-training round 1 of 2: \d+ of 135 tokens confident enough to teach/.test(m))).toBe(true);
    const best = Math.max(...r.stages.map((s) => s.devF1));
    expect(r.dev!.overall.f1).toBeGreaterThanOrEqual(best - 1e-9);
    r.tagger.dispose();
    // BOND hard: one-hot pseudo-labels, so every token is confident enough to teach.
    const hardMessages: string[] = [];
    const hard = await runPipeline(
      pipelineSchema.parse({ kind: 'bond', teacherEpochs: 4, rounds: 1, roundEpochs: 1, pseudoLabels: 'hard' }),
      cfg('softmax'),
      feat,
      { train, dev },
      { onStage: (m) => hardMessages.push(m) },
    );
    expect(hardMessages).toContain('self-training round 1 of 1: 135 of 135 tokens confident enough to teach');
    hard.tagger.dispose();
    // With `unlabeled` the teacher labels that many sentences of the unlabeled text too (5 of 6
    // given, 23 tokens), and they teach the student with the training text.
    const poolMessages: string[] = [];
    const unlabeled = sentences(6).map((s) => ({ ...s, tags: s.tags.map(() => 0) }));
    const pooled = await runPipeline(
      pipelineSchema.parse({ kind: 'bond', teacherEpochs: 4, rounds: 1, roundEpochs: 1, pseudoLabels: 'hard', unlabeled: 5 }),
      cfg('softmax'),
      feat,
      { train, dev, unlabeled },
      { onStage: (m) => poolMessages.push(m) },
    );
    expect(poolMessages).toContain('self-training round 1 of 1: 158 of 158 tokens (the training text and 5 unlabeled sentences) confident enough to teach');
    pooled.tagger.dispose();
  }, 120_000);
});
