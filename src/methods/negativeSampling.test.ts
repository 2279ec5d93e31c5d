import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/random';
import { missamplingRate, sampleWithoutReplacement, temperature, weightedScore, zeroMissamplingProbability } from './negativeSampling';

describe('negative sampling pieces (paper 002)', () => {
  it('missampling rate (Eq. 2) of a hand-made example', () => {
    expect(missamplingRate([1, 2, 3, 4], new Set([2, 4, 9]))).toBe(0.5);
    expect(missamplingRate([], new Set([1]))).toBe(0);
  });

  it('weighted score (Eq. 3-5) and the temperature schedule', () => {
    const z = [0.7, 0.2, 0.1];
    const u = -(0.7 * Math.log(0.7) + 0.2 * Math.log(0.2) + 0.1 * Math.log(0.1));
    const a = weightedScore(z, 2, 2);
    expect(a.v).toBeCloseTo(0);
    expect(a.u).toBeCloseTo(u);
    expect(a.score).toBeCloseTo(u / 2);
    const b = weightedScore([0.1, 0.8, 0.1], 2, 1);
    expect(b.v).toBeCloseTo(-0.7);
    expect(b.score).toBeCloseTo(b.u * 0.3 ** 2);
    expect(temperature(10, 1)).toBe(3);
    expect(temperature(10, 10)).toBe(1);
  });

  it('samples distinct items, uniformly or by exp(score)', () => {
    const rand = mulberry32(3);
    const counts = new Array(4).fill(0);
    for (let i = 0; i < 4000; i++) {
      const s = sampleWithoutReplacement(4, 2, [0, 0, Math.log(3), 0], rand);
      expect(new Set(s).size).toBe(2);
      for (const x of s) counts[x]++;
    }
    expect(counts[2]).toBeGreaterThan(counts[0] * 1.5);
    const uni = new Array(5).fill(0);
    for (let i = 0; i < 5000; i++) for (const x of sampleWithoutReplacement(5, 1, null, rand)) uni[x]++;
    for (const c of uni) expect(Math.abs(c - 1000)).toBeLessThan(150);
  });

  it('Theorem 1 holds for uniform sampling on sentences obeying entity sparsity (property test)', () => {
    const rand = mulberry32(11);
    for (let trial = 0; trial < 25; trial++) {
      const n = 5 + Math.floor(rand() * 40);
      const lambda = 0.1 + rand() * 0.8;
      const k = Math.ceil(lambda * n);
      const sparse = Math.floor(Math.sqrt(n));
      const m = Math.floor(rand() * (sparse + 1));
      const h = Math.max(1, sparse - m);
      if (m + h > Math.sqrt(n)) continue;
      const { exact, bound } = zeroMissamplingProbability(n, m, h, k);
      expect(exact).toBeGreaterThanOrEqual(bound - 1e-12);
      // The sampler's frequency of a clean draw matches the exact probability.
      const candidates = (n * (n + 1)) / 2 - m;
      const runs = 1000;
      let clean = 0;
      for (let r = 0; r < runs; r++) if (sampleWithoutReplacement(candidates, k, null, rand).every((i) => i >= h)) clean++;
      const sd = Math.sqrt((exact * (1 - exact)) / runs);
      expect(Math.abs(clean / runs - exact)).toBeLessThan(4 * sd + 0.01);
      expect(clean / runs).toBeGreaterThan(bound - 4 * sd - 0.01);
    }
  });
});
