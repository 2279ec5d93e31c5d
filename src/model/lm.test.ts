import { beforeAll, describe, expect, it } from 'vitest';
import { modelSchema } from '../core/runConfig';
import { bioTags } from './data';
import { buildFeaturizer, featureDims, makeBatch } from './features';
import { buildLmVocab, LanguageModel, LM_BATCH_ELEMENTS, lmBatchTokens, matchCase } from './lm';
import { MAX_BATCH_TOKENS } from './train';
import { batchTensors, Tagger } from './tagger';
import * as tf from './tf';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// A tiny language with strong word order: "the cat sat on the mat", "a dog ran to the park", ...
const subjects = [
  ['the', 'cat'],
  ['a', 'dog'],
  ['the', 'bird'],
];
const verbs = [
  ['sat', 'on'],
  ['ran', 'to'],
  ['looked', 'at'],
];
const places = [
  ['the', 'mat'],
  ['the', 'park'],
  ['a', 'tree'],
];
const sentences = Array.from({ length: 60 }, (_, k) => ({ words: [...subjects[k % 3], ...verbs[Math.floor(k / 3) % 3], ...places[Math.floor(k / 9) % 3]] }));
const vocabWords = [...new Set(sentences.flatMap((s) => s.words))];
const glove = {
  dims: 4,
  index: new Map(vocabWords.map((w, k) => [w, k])),
  vectors: Float32Array.from({ length: vocabWords.length * 4 }, (_, i) => Math.cos(i)),
};
const feat = buildFeaturizer(
  glove,
  sentences.map((s) => s.words),
  bioTags(['X']),
);
const newLm = () =>
  new LanguageModel(
    new Tagger(modelSchema.parse({ hidden: 16, charDim: 4, charFilters: 4, dropout: 0 }), featureDims(feat), 3),
    feat,
    buildLmVocab(
      sentences.map((s) => s.words),
      50,
    ),
  );

describe('bidirectional language model (NEEDLE Stage I, RoSTER augmentation)', () => {
  it('builds its vocabulary by frequency with a catch-all first', () => {
    const v = buildLmVocab(
      [
        ['The', 'cat'],
        ['the', 'dog'],
      ],
      2,
    );
    expect(v.words).toEqual(['<other>', 'the']);
  });

  it('learns from sentences of two words or more: a text with many one-word lines (CoNLL headings) still trains', async () => {
    const lm = newLm();
    // Sorted by length, 40 one-word sentences fill whole batches, which have no word pair to predict.
    const ones = Array.from({ length: 40 }, (_, k) => ({ words: [vocabWords[k % vocabWords.length]] }));
    const losses = await lm.pretrain([...ones, ...sentences.slice(0, 8)], { epochs: 1, batchSize: 16, lr: 0.02, clip: 5, seed: 1 });
    expect(losses).toHaveLength(1);
    // The mean is over the 8 real sentences only: close to ln(V) for an untrained model.
    expect(losses[0]).toBeGreaterThan(0.5 * Math.log(lm.vocab.words.length));
    await expect(lm.pretrain(ones, { epochs: 1, batchSize: 16, lr: 0.02, clip: 5, seed: 1 })).rejects.toThrow('no sentence of two words or more');
    lm.dispose();
    lm.tagger.dispose();
  }, 60_000);

  it('bounds a batch\u2019s padded tokens by its vocabulary, so long sentences over a large vocabulary fit the heap', () => {
    expect(lmBatchTokens(100)).toBe(MAX_BATCH_TOKENS);
    expect(lmBatchTokens(10_000)).toBe(LM_BATCH_ELEMENTS / 10_000);
    expect(lmBatchTokens(10_000_000)).toBe(64);
    // 8,000 words: under 2,000 padded tokens a batch, so 80 sentences of 100 words take five batches of
    // at most 19 (three of 32 before).
    const words = Array.from({ length: 8000 }, (_, k) => `w${k}`);
    const long = Array.from({ length: 80 }, (_, k) => ({ words: words.slice(k * 100, (k + 1) * 100) }));
    const wide = buildLmVocab(
      long.map((s) => s.words),
      10_000,
    );
    expect(lmBatchTokens(wide.words.length)).toBe(1999);
    const lm = new LanguageModel(new Tagger(modelSchema.parse({ hidden: 4, charDim: 2, charFilters: 2, dropout: 0 }), featureDims(feat), 3), feat, wide);
    const order = long.map((_, k) => k);
    expect(lm.batches(order, long, 32).map((b) => b.length)).toEqual([19, 19, 19, 19, 4]);
    // A small vocabulary: the tagger's own budget, 2,400 padded tokens.
    const small = newLm();
    expect(small.batches(order, long, 32).map((b) => b.length)).toEqual([24, 24, 24, 8]);
    lm.tagger.dispose();
    small.tagger.dispose();
  });

  it('learns the word order, and no direction reads the word it predicts', async () => {
    const lm = newLm();
    const losses = await lm.pretrain(sentences, { epochs: 15, batchSize: 16, lr: 0.02, clip: 5, seed: 1 });
    expect(losses[losses.length - 1]).toBeLessThan(losses[0] * 0.5);
    // Changing word 3 leaves the forward predictions from positions 0..2 and the backward ones from 4.. unchanged.
    const a = ['the', 'cat', 'sat', 'on', 'the', 'mat'];
    const b = ['the', 'cat', 'sat', 'to', 'the', 'mat'];
    const probs = (words: string[]) =>
      tf.tidy(() => {
        const { fw, bw } = lm.logProbs(batchTensors(makeBatch(feat, [{ words }]), lm.tagger.dims), false, 0);
        return [fw.arraySync()[0], bw.arraySync()[0]];
      });
    const [fa, ba] = probs(a);
    const [fb, bb] = probs(b);
    expect(fa.slice(0, 3)).toEqual(fb.slice(0, 3));
    expect(ba.slice(4)).toEqual(bb.slice(4));
    expect(fa[3]).not.toEqual(fb[3]);
    // After "sat", "on" is the likeliest next word.
    const on = lm.vocab.index.get('on')!;
    expect(fa[2].indexOf(Math.max(...fa[2]))).toBe(on);

    const aug = await lm.augment([{ words: ['The', 'cat', 'sat', 'on', 'the', 'mat'], tags: [0, 1, 0, 0, 0, 0] }], 1, 7);
    expect(aug[0].tags).toEqual([0, 1, 0, 0, 0, 0]);
    aug[0].words.forEach((w, t) => {
      expect(w.toLowerCase()).not.toBe(a[t]);
      expect(lm.vocab.index.has(w.toLowerCase())).toBe(true);
    });
    expect(aug[0].words[0][0]).toBe(aug[0].words[0][0].toUpperCase());
    expect((await lm.augment([{ words: a }], 0, 7))[0].words).toEqual(a);
    lm.dispose();
    lm.tagger.dispose();
  }, 60_000);

  it('copies capitalization', () => {
    expect(matchCase('paris', 'LONDON')).toBe('PARIS');
    expect(matchCase('paris', 'London')).toBe('Paris');
    expect(matchCase('paris', 'london')).toBe('paris');
  });
});
