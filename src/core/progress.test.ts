import { describe, expect, it } from 'vitest';
import { agreementOf, cohensKappa, progressOf, reviewSpeed, sentenceReviewed } from './progress';

describe('annotation progress and agreement', () => {
  it("computes Cohen's kappa and span F1 of two annotators by hand", () => {
    // Tokens: A = X X O O O Y O O O O, B = X O O O O Y Y O O O (B splits its Y span in two).
    const docs = [{ split: 'train' as const, sentences: [[0, 10]] as [number, number][] }];
    const a = [
      {
        spans: [
          { start: 0, end: 2, label: 'X' },
          { start: 5, end: 6, label: 'Y' },
        ],
        oMode: 'complete' as const,
      },
    ];
    const all = Array.from({ length: 10 }, (_, t) => t);
    const b = [
      {
        spans: [
          { start: 0, end: 1, label: 'X' },
          { start: 5, end: 6, label: 'Y' },
          { start: 6, end: 7, label: 'Y' },
        ],
        oMode: 'partial' as const,
        oTokens: all.filter((t) => t >= 7 || (t >= 1 && t < 5)),
      },
    ];
    const r = agreementOf(docs, a, b);
    // p_o = 8/10; p_e = (2·1 + 7·7 + 1·2) / 100 = 0.53; kappa = 0.27 / 0.47.
    expect(r.observed).toBeCloseTo(0.8, 12);
    expect(r.expected).toBeCloseTo(0.53, 12);
    expect(r.kappa).toBeCloseTo(0.27 / 0.47, 12);
    // One exact span match: P = 1/3, R = 1/2, F1 = 0.4.
    expect(r.spanF1).toBeCloseTo(0.4, 12);
    expect(r.sentences).toBe(1);
    // A sentence B has not fully decided is left out.
    const partial = [{ ...b[0], oTokens: b[0].oTokens.slice(1) }];
    expect(agreementOf(docs, a, partial).sentences).toBe(0);
    expect(cohensKappa(['A', 'B'], ['A', 'B']).kappa).toBe(1);
  });

  it('counts reviewed sentences per split and type, and review speed without breaks', () => {
    const docs = [
      {
        split: 'train' as const,
        sentences: [
          [0, 3],
          [3, 5],
        ] as [number, number][],
      },
      { split: 'dev' as const, sentences: [[0, 2]] as [number, number][] },
    ];
    const anns = [
      {
        spans: [
          { start: 0, end: 1, label: 'X' },
          { start: 3, end: 4, label: 'Y' },
        ],
        oMode: 'partial' as const,
        oTokens: [1, 2],
      },
      undefined,
    ];
    expect(sentenceReviewed(anns[0], 0, 3)).toBe(true);
    expect(sentenceReviewed(anns[0], 3, 5)).toBe(false);
    const p = progressOf(docs, anns);
    expect(p.bySplit.train).toEqual({ sentences: 2, reviewed: 1, tokens: 5, reviewedTokens: 3 });
    expect(p.bySplit.dev).toEqual({ sentences: 1, reviewed: 0, tokens: 2, reviewedTokens: 0 });
    expect(p.byType).toEqual({ X: 1 });
    // Three reviews a minute apart, then one after an hour's break: 3 intervals... 2 count.
    const s = reviewSpeed([0, 60_000, 120_000, 3_720_000]);
    expect(s.activeMinutes).toBe(2);
    expect(s.perHour).toBeCloseTo((3 / 120_000) * 3_600_000, 9);
  });
});
