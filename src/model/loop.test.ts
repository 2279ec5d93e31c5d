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
