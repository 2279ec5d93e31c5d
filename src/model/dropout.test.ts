import { beforeAll, describe, expect, it } from 'vitest';
import { aleaFill, dropoutMultiplier, seededDropout } from './dropout';
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

  it('keeps a cell exactly when float32 floor(u + keep) is 1, at the rounding boundary too', () => {
    // u + keep just below, at and above 1 − 2⁻²⁵ (where float32 rounding reaches 1), for many keeps.
    for (let j = 0; j < 2000; j++) {
      const keep = Math.fround(0.05 + (0.9 * j) / 2000);
      const u0 = Math.fround(1 - keep);
      for (const u of [u0, Math.fround(u0 - 2 ** -24), Math.fround(u0 - 2 ** -25), Math.fround(u0 + 2 ** -25), Math.fround(u0 - 2 ** -26)]) {
        if (!(u >= 0 && u < 1)) continue;
        const kept = Math.floor(Math.fround(u + keep)) === 1;
        expect(u + keep < 1 - 2 ** -25, `u ${u}, keep ${keep}`).toBe(!kept);
      }
    }
    // And over a long run of Alea's own draws, against tf.dropout's formula.
    const u = aleaFill(42, new Float32Array(200_000));
    const m = dropoutMultiplier(42, u.length, 0.7);
    const k = Math.fround(0.7);
    u.forEach((v, i) => {
      if (m[i] !== Math.fround(Math.floor(Math.fround(v + k)) / k)) expect(`${i}: ${m[i]}`).toBe(`${i}: ${v}`);
    });
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
