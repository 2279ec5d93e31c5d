import { describe, expect, it } from 'vitest';
import { binConfidence, completedConfidence, histogramBins } from './needle';

describe('NEEDLE confidence (Appendix A)', () => {
  it('bins dev Viterbi scores by count and reads a bin\u2019s sequence accuracy', () => {
    const scores = [1, 2, 3, 4, 5, 6, 7, 8];
    const correct = [false, false, true, false, true, true, true, true];
    const h = histogramBins(scores, correct, 4);
    expect(h).toEqual([
      { lo: 1, hi: 2, n: 2, accuracy: 0 },
      { lo: 3, hi: 4, n: 2, accuracy: 0.5 },
      { lo: 5, hi: 6, n: 2, accuracy: 1 },
      { lo: 7, hi: 8, n: 2, accuracy: 1 },
    ]);
    expect(binConfidence(h, 0)).toBe(0);
    expect(binConfidence(h, 3.5)).toBe(0.5);
    expect(binConfidence(h, 99)).toBe(1);
  });

  it('mixes matched and completed tokens by their shares and caps at 0.95', () => {
    // 2 of 5 tokens matched (non-O weak labels), the model's binned confidence 0.5.
    expect(completedConfidence([0, 1, 2, 0, 0], 0.5, 0.95)).toBeCloseTo(0.4 + 0.6 * 0.5);
    expect(completedConfidence([1, 2, 2], 0.1, 0.95)).toBe(0.95);
  });
});

describe('RoSTER self-training targets (Eq. 8)', () => {
  it('keep P(O), split the entity mass by the sharpened type distribution, and sum to 1', async () => {
    const { selfTrainingTargets } = await import('./roster');
    // Two sentences, IO tags O, I-A, I-B; threshold 0 sharpens every token.
    const probs = [Float32Array.from([0.5, 0.3, 0.2, 0.1, 0.45, 0.45]), Float32Array.from([0.2, 0.1, 0.7])];
    const out = selfTrainingTargets(probs, 3, 0);
    const cond = [
      [0.6, 0.4],
      [0.5, 0.5],
      [0.125, 0.875],
    ];
    const g = [0.6 + 0.5 + 0.125, 0.4 + 0.5 + 0.875];
    const flat = [...out[0], ...out[1]];
    cond.forEach(([a, b], t) => {
      const pO = [0.5, 0.1, 0.2][t];
      expect(flat[t * 3]).toBeCloseTo(pO);
      const qa = a ** 2 / g[0];
      const qb = b ** 2 / g[1];
      expect(flat[t * 3 + 1]).toBeCloseTo((1 - pO) * (qa / (qa + qb)));
      expect(flat[t * 3] + flat[t * 3 + 1] + flat[t * 3 + 2]).toBeCloseTo(1);
    });
  });

  it('sharpen only the tokens at or above the entity threshold, over those tokens; the rest keep their distribution', async () => {
    const { selfTrainingTargets } = await import('./roster');
    const probs = [Float32Array.from([0.5, 0.3, 0.2, 0.1, 0.45, 0.45]), Float32Array.from([0.15, 0.1, 0.75])];
    const flat = selfTrainingTargets(probs, 3, 0.8).flatMap((x) => [...x]);
    // Token 0 (P(entity) 0.5) is under 0.8: unchanged.
    [0.5, 0.3, 0.2].forEach((v, j) => expect(flat[j]).toBeCloseTo(v));
    // Tokens 1 and 2 are sharpened with g over them alone.
    const g = [0.5 + 0.1 / 0.85, 0.5 + 0.75 / 0.85];
    [
      [0.5, 0.5],
      [0.1 / 0.85, 0.75 / 0.85],
    ].forEach(([a, b], k) => {
      const pO = [0.1, 0.15][k];
      const qa = a ** 2 / g[0];
      const qb = b ** 2 / g[1];
      expect(flat[(k + 1) * 3 + 1]).toBeCloseTo((1 - pO) * (qa / (qa + qb)));
      expect(flat[(k + 1) * 3 + 2]).toBeCloseTo((1 - pO) * (qb / (qa + qb)));
    });
  });
});
