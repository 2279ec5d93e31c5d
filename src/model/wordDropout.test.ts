import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/random';
import { CASING, casing, makeBatch, type Featurizer } from './features';

/** Two GloVe words (2 dims) and one trainable out-of-GloVe word. */
const feat: Featurizer = {
  glove: {
    dims: 2,
    index: new Map([
      ['the', 0],
      ['paris', 1],
    ]),
    vectors: Float32Array.from([1, 2, 3, 4]),
  },
  chars: new Map([...'theParisxyz'].map((c, k) => [c, k + 2])),
  oov: new Map([['xyz', 1]]),
  tags: ['O', 'B-A', 'I-A'],
};
const W = 2 + CASING.length + 1;
const sentence = [{ words: ['the', 'Paris', 'xyz'] }];

describe('word dropout', () => {
  it('off, a batch reads each word as it is', () => {
    const b = makeBatch(feat, sentence);
    expect(Array.from(b.words.subarray(W, W + 2))).toEqual([3, 4]);
    expect(b.oovPos).toEqual([2]);
    expect(b.oovIds).toEqual([1]);
  });

  it('at rate 1, every word reads as the unknown word, its casing and characters kept', () => {
    const b = makeBatch(feat, sentence, undefined, undefined, { rate: 1, rand: mulberry32(1) });
    for (let t = 0; t < 3; t++) {
      expect(Array.from(b.words.subarray(t * W, t * W + 2))).toEqual([0, 0]);
      expect(b.words[t * W + W - 1]).toBe(1);
    }
    expect(b.oovPos).toEqual([0, 1, 2]);
    expect(b.oovIds).toEqual([0, 0, 0]);
    expect(b.words[W + 2 + casing('Paris')]).toBe(1);
    expect(Array.from(b.chars.subarray(16, 21))).toEqual([...'Paris'].map((c) => feat.chars.get(c)));
  });

  it('drops about its rate of the tokens, the same ones for the same seed', () => {
    const many = [{ words: Array.from({ length: 2000 }, () => 'the') }];
    const dropped = (seed: number) => makeBatch(feat, many, undefined, undefined, { rate: 0.1, rand: mulberry32(seed) }).oovPos;
    expect(dropped(3).length).toBeGreaterThan(150);
    expect(dropped(3).length).toBeLessThan(250);
    expect(dropped(3)).toEqual(dropped(3));
    expect(dropped(4)).not.toEqual(dropped(3));
  });
});
