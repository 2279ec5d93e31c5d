import { describe, expect, it } from 'vitest';
import { gloveRow, lookupForm, trimGlove, type GloveAsset } from './embeddings';
import { buildFeaturizer, CASING, makeBatch } from './features';
import { cosine, dequantizeSpelling, ngramRows, quantizeSpelling, spellVector, trainSpelling } from './spelling';

/**
 * A made-up GloVe: words ending in "-caine" share one direction, words ending in "-itis"
 * another, with a little noise per word; the spelling table must place an unseen "-caine" word
 * near the first.
 */
function fakeAsset(): GloveAsset {
  const d = 8;
  const stems = ['lido', 'procai', 'tetra', 'benzo', 'cocai', 'dibu', 'pramo', 'oxy', 'chloro', 'meta', 'ropi', 'levo'];
  const words = [...stems.map((s) => `${s}caine`), ...stems.map((s) => `${s}itis`)];
  const vectors = new Int8Array(words.length * d);
  const scales = new Float32Array(words.length).fill(1 / 100);
  words.forEach((w, i) => {
    const k = w.endsWith('caine') ? 0 : 1;
    for (let c = 0; c < d; c++) vectors[i * d + c] = (c % 2 === k ? 90 : 0) + ((i * 7 + c * 3) % 11) - 5;
  });
  return { vocab: words.join('\n'), vectors, scales, dims: d };
}

const opts = { words: 1000, buckets: 4096, epochs: 60, lr: 1, seed: 1 };

describe('spelling vectors for words GloVe lacks', () => {
  it("a word's n-grams are its 3- to 6-grams between < and >, the same every time", () => {
    expect(ngramRows('ab', 1 << 20)).toHaveLength(3); // <ab, ab> (3-grams), <ab> (4-gram)
    expect(ngramRows('Lidocaine', 1024)).toEqual(ngramRows('lidocaine', 1024));
    const n = 'lidocaine'.length + 2;
    expect(ngramRows('lidocaine', 1024)).toHaveLength(n - 2 + (n - 3) + (n - 4) + (n - 5));
  });

  it('learns the spelling of a class: an unseen -caine word lands near the -caine words', () => {
    const asset = fakeAsset();
    const { model } = trainSpelling(asset, opts);
    const caine = new Float32Array(8);
    const itis = new Float32Array(8);
    spellVector(model, 'bupivacaine', caine);
    spellVector(model, 'arthritis', itis);
    const row = (i: number) => Float32Array.from({ length: 8 }, (_, c) => asset.vectors[i * 8 + c] * asset.scales[i]);
    // Row 0 is lidocaine, row 12 lidoitis.
    expect(cosine(caine, row(0))).toBeGreaterThan(0.6);
    expect(cosine(caine, row(0))).toBeGreaterThan(cosine(caine, row(12)) + 0.3);
    expect(cosine(itis, row(12))).toBeGreaterThan(cosine(itis, row(0)) + 0.3);
    // int8 storage keeps the vectors.
    const q = quantizeSpelling(model);
    const back = dequantizeSpelling(q.rows, q.scales, model);
    const again = new Float32Array(8);
    spellVector(back, 'bupivacaine', again);
    expect(cosine(again, caine)).toBeGreaterThan(0.999);
  });

  it('trimGlove adds spelled rows after GloVe rows; the featurizer uses them only when asked, flag kept', () => {
    const asset = fakeAsset();
    const { model } = trainSpelling(asset, { ...opts, epochs: 5 });
    const emb = trimGlove(asset, ['lidocaine', 'bupivacaine', 'Bupivacaine'], model);
    expect(emb.spelledFrom).toBe(1);
    expect(emb.index.get('bupivacaine')).toBe(1);
    expect(gloveRow(emb, 'bupivacaine', false)).toBeUndefined();
    expect(gloveRow(emb, 'bupivacaine', true)).toBe(1);
    expect(gloveRow(emb, 'lidocaine', false)).toBe(0);
    const W = 8 + CASING.length + 1;
    for (const spelling of [false, true]) {
      const feat = buildFeaturizer(emb, [['bupivacaine', 'bupivacaine', 'lidocaine']], ['O', 'B-X', 'I-X'], { spelling });
      // Seen twice and absent from GloVe: a trainable vector either way.
      expect(feat.oov.get('bupivacaine')).toBe(1);
      const b = makeBatch(feat, [{ words: ['bupivacaine', 'lidocaine'] }]);
      const first = b.words.subarray(0, 8);
      expect(first.some((x) => x !== 0)).toBe(spelling);
      expect(b.words[W - 1]).toBe(1); // absent-from-GloVe flag
      expect(b.words[W + W - 1]).toBe(0);
      expect(b.oovPos).toEqual([0]);
    }
    // Without a spelling model nothing changes.
    expect(trimGlove(asset, ['bupivacaine']).spelledFrom).toBeUndefined();
  });

  it("a hashtag reads its word's GloVe row; its characters stay the hashtag's", () => {
    expect(lookupForm('#Lidocaine')).toBe('lidocaine');
    expect(lookupForm('#évian')).toBe('évian');
    for (const w of ['#', '#1', '##x', '@lidocaine', 'Lido#caine']) expect(lookupForm(w)).toBe(w.toLowerCase());
    const asset = fakeAsset();
    const emb = trimGlove(asset, ['#Lidocaine', 'tetracaine']);
    expect([...emb.index.keys()].sort()).toEqual(['lidocaine', 'tetracaine']);
    const feat = buildFeaturizer(emb, [['#Lidocaine', 'lidocaine']], ['O', 'B-X', 'I-X']);
    expect(feat.oov.size).toBe(0);
    expect([...feat.chars.keys()]).toContain('#');
    const b = makeBatch(feat, [{ words: ['#Lidocaine', 'lidocaine'] }]);
    const W = 8 + CASING.length + 1;
    expect([...b.words.subarray(0, 8)]).toEqual([...b.words.subarray(W, W + 8)]);
    expect(b.words[W - 1]).toBe(0); // found in GloVe
    expect(b.oovPos).toEqual([]);
  });
});
