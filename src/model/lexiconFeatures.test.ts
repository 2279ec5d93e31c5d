import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/random';
import { featureDims, makeBatch, type Featurizer } from './features';

const feat = (lexicon?: string[]): Featurizer => ({
  glove: { dims: 2, index: new Map(), vectors: new Float32Array() },
  chars: new Map(),
  oov: new Map(),
  tags: ['O', 'B-A', 'I-A'],
  ...(lexicon ? { lexicon } : {}),
});

describe('dictionary features in a batch', () => {
  const sentences = [
    { words: ['a', 'b', 'c'], lex: [{ start: 0, end: 2, type: 1 }] },
    { words: ['d'], lex: [{ start: 0, end: 1, type: 0 }] },
  ];

  it('mark the first and later tokens of each match by type, two values a type', () => {
    expect(featureDims(feat(['A', '?'])).lex).toBe(4);
    const b = makeBatch(feat(['A', '?']), sentences);
    // [B=2, T=3, 4]: sentence 0 token 0 is B of type 1 (index 2), token 1 is I of type 1 (index 3).
    expect(Array.from(b.lex!)).toEqual([0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("carry a match's value (its entry's reliability) where it has one, the larger where matches of a type overlap", () => {
    const weighed = [
      {
        words: ['a', 'b'],
        lex: [
          { start: 0, end: 2, type: 0, value: 0.25 },
          { start: 1, end: 2, type: 0, value: 0.5 },
        ],
      },
    ];
    // [B=1, T=2, 2]: token 0 B of type 0 at 0.25; token 1 I of 0.25's match and B of 0.5's.
    expect(Array.from(makeBatch(feat(['A']), weighed).lex!)).toEqual([0.25, 0, 0.5, 0.25]);
  });

  it('are absent without a lexicon, whatever the sentences carry', () => {
    expect(makeBatch(feat(), sentences).lex).toBeNull();
    expect(featureDims(feat()).lex).toBe(0);
  });

  it('leave out about the dropout share of the matches during training, reproducibly', () => {
    const many = Array.from({ length: 400 }, () => ({ words: ['x'], lex: [{ start: 0, end: 1, type: 0 }] }));
    const kept = (seed: number) => Array.from(makeBatch(feat(['A']), many, undefined, { rate: 0.3, rand: mulberry32(seed) }).lex!).reduce((a, v) => a + v, 0);
    expect(kept(7)).toBe(kept(7));
    expect(kept(7) / 400).toBeGreaterThan(0.62);
    expect(kept(7) / 400).toBeLessThan(0.78);
    expect(Array.from(makeBatch(feat(['A']), many, undefined, { rate: 0, rand: mulberry32(1) }).lex!).reduce((a, v) => a + v, 0)).toBe(400);
  });
});
