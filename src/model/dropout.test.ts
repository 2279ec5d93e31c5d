import { beforeAll, describe, expect, it } from 'vitest';
import { aleaFill, seededDropout } from './dropout';
import * as tf from './tf';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** Equal bit for bit, -0 and +0 told apart. */
function sameBits(a: ArrayLike<number>, b: ArrayLike<number>) {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) expect(`${i}: ${a[i]}`).toBe(`${i}: ${b[i]}`);
}

describe('seeded dropout', () => {
  it('draws what tf.randomUniform draws for the same seed', () => {
    for (const seed of [1, 2, 7919 * 3 + 13 * 40 + 2, 123456789, 'text']) {
      const want = tf.randomUniform([1031], 0, 1, 'float32', seed).dataSync();
      sameBits(aleaFill(seed, new Float32Array(1031)), want);
    }
  });

  it("equals tf.dropout exactly: the kept cells, their scale and the zeros' signs", () => {
    const x = tf.randomNormal([4, 9, 13], 0, 1, 'float32', 5);
    for (const rate of [0.5, 0.25, 0.1, 1 / 3, 0.05])
      for (const seed of [3, 7919 + 13 * 2 + 1, 98765]) sameBits(seededDropout(x, rate, seed).dataSync(), tf.dropout(x, rate, undefined, seed).dataSync());
  });

  it('passes the gradient through the kept cells only, scaled', () => {
    const x = tf.randomNormal([6, 5], 0, 1, 'float32', 9);
    const g = tf
      .grad((t: tf.Tensor) => tf.sum(seededDropout(t, 0.5, 11)))(x)
      .dataSync();
    const want = tf
      .grad((t: tf.Tensor) => tf.sum(tf.dropout(t, 0.5, undefined, 11)))(x)
      .dataSync();
    sameBits(g, want);
    expect(new Set(g)).toEqual(new Set([0, 2]));
  });

  it('rejects a rate outside [0, 1) and returns a copy at 0', () => {
    const x = tf.ones([2, 2]);
    expect(() => seededDropout(x, 1, 1)).toThrow(/\[0, 1\)/);
    expect(() => seededDropout(x, Number.NaN, 1)).toThrow(/rate/);
    sameBits(seededDropout(x, 0, 1).dataSync(), x.dataSync());
  });
});
