import '../methods';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRunConfig } from '../core/runConfig';
import { getMethod } from '../methods';
import { dev, feat, train } from '../testing/toyTask';
import { WeightAverage } from './average';
import * as tf from './tf';
import { type Checkpoint, evaluate, trainTagger } from './train';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const config = (average: number, epochs = 4) =>
  parseRunConfig({
    data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
    model: { hidden: 8, charDim: 4, charFilters: 4, dropout: 0.2, wordDropout: 0 },
    method: { name: 'supervised' },
    train: { epochs, batchSize: 8, lr: 0.01, patience: 10, seed: 3, average },
  });

describe('weight averaging', () => {
  it('moves each shadow by (1 − d) toward its weight, d rising to the decay as TensorFlow counts updates', async () => {
    expect(WeightAverage.decayAt(0.99, 0)).toBeCloseTo(0.1);
    expect(WeightAverage.decayAt(0.99, 10)).toBeCloseTo(11 / 20);
    expect(WeightAverage.decayAt(0.99, 10_000)).toBe(0.99);
    const v = tf.variable(tf.tensor1d([1, 2]));
    const params = new Map<string, tf.Variable>([['w', v]]);
    const avg = new WeightAverage(0.99, params);
    avg.update(); // first sight: the shadow starts at the weight
    v.assign(tf.tensor1d([3, 6]));
    avg.update(); // the second update: d = 2 / 11
    const d = WeightAverage.decayAt(0.99, 1);
    expect([...(await avg.weights()).w.data]).toEqual([d * 1 + (1 - d) * 3, d * 2 + (1 - d) * 6].map(Math.fround));
    // A variable made later joins as itself.
    params.set('u', tf.variable(tf.scalar(5)));
    expect([...(await avg.weights()).u.data]).toEqual([5]);
    expect(() => new WeightAverage(1, params)).toThrow(/between 0 and 1/);
    avg.dispose();
    for (const p of params.values()) p.dispose();
  });

  it('trains the same steps, scores dev with the average, ends at the best averaged epoch, and resumes to the same run', async () => {
    const method = getMethod('supervised');
    const plain = await trainTagger(method, config(0), feat, { train, dev });
    const before = tf.memory().numTensors;
    const averaged = await trainTagger(method, config(0.9), feat, { train, dev });
    // Averaging reads the weights and never moves them: the losses are the plain run's.
    expect(averaged.history.map((h) => h.loss)).toEqual(plain.history.map((h) => h.loss));
    // Dev is scored with the averaged weights, so at least one epoch scores otherwise.
    expect(averaged.history.map((h) => h.dev!.overall.f1)).not.toEqual(plain.history.map((h) => h.dev!.overall.f1));
    // The model is left at the best epoch's averaged weights.
    expect((await evaluate(averaged.tagger, feat, dev)).overall.f1).toBe(averaged.bestDev!.overall.f1);
    // Nothing is left behind but the tagger's own variables.
    expect(tf.memory().numTensors - before).toBe(averaged.tagger.params.size);

    let ckpt: Checkpoint | undefined;
    const first = await trainTagger(method, config(0.9), feat, { train, dev }, { onCheckpoint: (c) => void (ckpt = c), control: () => (ckpt ? 'stop' : 'go') });
    expect(ckpt!.average!.updates).toBeGreaterThan(0);
    const resumed = await trainTagger(method, config(0.9), feat, { train, dev }, {}, ckpt);
    expect(resumed.history.map((h) => [h.loss, h.dev!.overall.f1])).toEqual(averaged.history.map((h) => [h.loss, h.dev!.overall.f1]));
    for (const t of [plain, averaged, first, resumed]) t.tagger.dispose();
  }, 120_000);
});
