import { beforeAll, describe, expect, it } from 'vitest';
import * as tf from './tf';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('LossReader', () => {
  it('reads the losses in batches, hands them over in step order, and leaves no tensor behind', async () => {
    const { LossReader } = await import('./loop');
    const seen: [number, number][] = [];
    const reads: number[] = [];
    const reader = new LossReader<number>(3, (loss, step) => {
      seen.push([step, loss]);
      reads.push(tf.memory().numTensors);
    });
    const before = tf.memory().numTensors;
    for (let step = 0; step < 7; step++) {
      await reader.push(tf.scalar(step / 2), step);
      // Read back at the third and sixth step only.
      expect(seen.length).toBe(step < 2 ? 0 : step < 5 ? 3 : 6);
    }
    await reader.flush();
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6].map((s) => [s, s / 2]));
    expect(tf.memory().numTensors).toBe(before);
    expect(Math.max(...reads)).toBe(before);
  });
});

describe('trainLoop', () => {
  /** A loop whose epochs score `scores` in turn (no variables, no steps). */
  async function scored(scores: number[], patience: number) {
    const { trainLoop } = await import('./loop');
    return trainLoop<number>({
      epochs: scores.length,
      lr: 0.001,
      patience,
      vars: [],
      getWeights: async () => ({}),
      setWeights: () => {},
      epoch: async () => ({ loss: 0, steps: 0 }),
      record: async (epoch) => ({ record: epoch, score: scores[epoch - 1] }),
    });
  }

  it('stops after `patience` epochs without a better dev score, counted from the first epoch that scores above 0', async () => {
    // Five epochs that tag nothing on dev do not use up a patience of 2: the model has not started.
    const slow = await scored([0, 0, 0, 0, 0, 0.1, 0.05, 0.05, 0.2], 2);
    expect(slow).toMatchObject({ stopped: 'early', bestEpoch: 6, history: [1, 2, 3, 4, 5, 6, 7, 8] });
    // Once above 0, a fall to 0 counts as any other epoch without a better score.
    expect(await scored([0.1, 0, 0, 0.3], 2)).toMatchObject({ stopped: 'early', bestEpoch: 1, history: [1, 2, 3] });
    expect(await scored([0, 0, 0], 1)).toMatchObject({ stopped: 'done', history: [1, 2, 3] });
  });
});
