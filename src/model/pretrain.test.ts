import { getMethod } from '../methods';
import { beforeAll, describe, expect, it } from 'vitest';
import { modelSchema, parseRunConfig } from '../core/runConfig';
import '../methods';
import { bioTags } from './data';
import { buildFeaturizer, featureDims } from './features';
import { encoderKey, pretrainEncoder, textFingerprint } from './pretrain';
import { Tagger } from './tagger';
import { trainTagger } from './train';
import * as tf from './tf';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const text = Array.from({ length: 48 }, (_, k) => ({
  words: [['the', 'a'][k % 2], ['cat', 'dog', 'bird'][k % 3], ['sat', 'ran'][Math.floor(k / 6) % 2], 'on', 'the', ['mat', 'park'][Math.floor(k / 12) % 2]],
}));
const words = [...new Set(text.flatMap((s) => s.words))];
const glove = { dims: 4, index: new Map(words.map((w, k) => [w, k])), vectors: Float32Array.from({ length: words.length * 4 }, (_, i) => Math.sin(i)) };
const tags = bioTags(['X']);
const feat = buildFeaturizer(
  glove,
  text.map((s) => s.words),
  tags,
);
const model = modelSchema.parse({ hidden: 8, charDim: 4, charFilters: 4, dropout: 0 });
const o = { epochs: 2, vocab: 20, batchSize: 16, lr: 0.02, clip: 5, seed: 1 };

describe('a pre-trained encoder per project', () => {
  it('trains the BiLSTM as a language model and keeps everything but the head', async () => {
    const e = (await pretrainEncoder(model, feat, text, o))!;
    expect(e.losses).toHaveLength(2);
    expect(e.losses[1]).toBeLessThan(e.losses[0]);
    expect(e.sentences).toBe(48);
    expect(Object.keys(e.weights).sort()).toEqual([
      'char/conv/b',
      'char/conv/w',
      'char/emb',
      'lstm/bw/b',
      'lstm/bw/wh',
      'lstm/bw/wx',
      'lstm/fw/b',
      'lstm/fw/wh',
      'lstm/fw/wx',
      'oov/emb',
    ]);
    expect(e.key).toBe(encoderKey(model, feat, o, textFingerprint(text)));

    // Any head starts from it: the encoder's weights are taken, the head's stay fresh.
    for (const head of ['crf', 'span'] as const) {
      const t = new Tagger({ ...model, head }, featureDims(feat), 5);
      const fresh = await t.getWeights();
      expect(t.loadEncoder(e.weights)).toBe(10);
      const w = await t.getWeights();
      expect(w['lstm/fw/wx'].data).toEqual(e.weights['lstm/fw/wx'].data);
      const headKey = head === 'crf' ? 'crf/transitions' : 'span/w1';
      expect(w[headKey].data).toEqual(fresh[headKey].data);
      t.dispose();
    }

    // The training loop starts a fresh model from it (and only a fresh one).
    const cfg = parseRunConfig({
      data: { kind: 'files', train: { conll: '-' }, dev: { conll: '-' } },
      model: { ...model },
      train: { epochs: 1, batchSize: 16, lr: 1e-7, seed: 2, oShift: 0 },
      method: { name: 'supervised' },
    });
    const labeled = text.slice(0, 8).map((s) => ({ words: s.words, tags: s.words.map(() => 0), doc: 0, offset: 0 }));
    labeled[0].tags[1] = 1;
    const r = await trainTagger(getMethod(cfg.method.name), cfg, feat, { train: labeled, dev: labeled }, {}, undefined, undefined, e.weights);
    const after = (await r.tagger.getWeights())['lstm/bw/wh'].data;
    const maxDiff = (a: Float32Array, b: Float32Array) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));
    expect(maxDiff(after, e.weights['lstm/bw/wh'].data)).toBeLessThan(1e-4); // a tiny learning rate: still the encoder
    const scratch = await trainTagger(getMethod(cfg.method.name), cfg, feat, { train: labeled, dev: labeled });
    expect(maxDiff((await scratch.tagger.getWeights())['lstm/bw/wh'].data, e.weights['lstm/bw/wh'].data)).toBeGreaterThan(1e-2);
    scratch.tagger.dispose();
    r.tagger.dispose();
  }, 60_000);

  it('is identified by the model shape, the settings and the text', () => {
    const k = encoderKey(model, feat, o, textFingerprint(text));
    expect(encoderKey({ ...model, hidden: 16 }, feat, o, textFingerprint(text))).not.toBe(k);
    expect(encoderKey(model, feat, { ...o, epochs: 3 }, textFingerprint(text))).not.toBe(k);
    expect(encoderKey(model, feat, o, textFingerprint(text.slice(1)))).not.toBe(k);
    expect(encoderKey(model, { ...feat, spelling: true }, o, textFingerprint(text))).not.toBe(k);
    // The head and the run's seed are not part of it: one encoder serves every method and seed.
    expect(encoderKey({ ...model, head: 'span' }, feat, o, textFingerprint(text))).toBe(k);
    expect(textFingerprint([{ words: ['ab', 'c'] }])).not.toBe(textFingerprint([{ words: ['a', 'bc'] }]));
  });

  it('stops when asked, with no encoder', async () => {
    let asked = 0;
    expect(await pretrainEncoder(model, feat, text, o, { shouldStop: () => ++asked > 2 })).toBeNull();
    expect(asked).toBe(3);
    await expect(pretrainEncoder({ ...model, encoder: 'idcnn' }, feat, text, o)).rejects.toThrow('needs the BiLSTM encoder');
  });
});
