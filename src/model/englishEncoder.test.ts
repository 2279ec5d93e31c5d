import { beforeAll, describe, expect, it } from 'vitest';
import { modelSchema } from '../core/runConfig';
import { bioTags } from './data';
import { adaptEncoder, ENCODER_FORMAT, type EncoderAsset, encoderMismatch, parseEncoderAsset } from './englishEncoder';
import { buildFeaturizer, featureDims } from './features';
import { decodeFloat32, packWeights } from './packedWeights';
import { pretrainEncoder } from './pretrain';
import { Tagger } from './tagger';
import * as tf from './tf';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// "General English" and a project's text: they share some characters ('a', 't', ...), not all ('z', 'q').
const english = Array.from({ length: 40 }, (_, k) => ({ words: [['the', 'a'][k % 2], ['cat', 'dog', 'bird'][k % 3], 'sat', 'on', 'the', 'mat'] }));
const project = [{ words: ['zinc', 'quota', 'at', 'the', 'dog'] }, { words: ['the', 'zinc', 'sat'] }];
const vocab = [...new Set([...english, ...project].flatMap((s) => s.words))];
const glove = { dims: 4, index: new Map(vocab.map((w, k) => [w, k])), vectors: Float32Array.from({ length: vocab.length * 4 }, (_, i) => Math.cos(i)) };
const model = modelSchema.parse({ hidden: 8, charDim: 4, charFilters: 4, dropout: 0 });
const tags = bioTags(['X']);

async function asset(): Promise<EncoderAsset> {
  const feat = buildFeaturizer(
    glove,
    english.map((s) => s.words),
    ['O'],
  );
  const e = (await pretrainEncoder(model, feat, english, { epochs: 1, vocab: 20, batchSize: 16, lr: 0.02, clip: 5, seed: 1 }))!;
  return {
    format: ENCODER_FORMAT,
    provenance: { trainedOn: 'a test' },
    model: { encoder: 'bilstm', hidden: 8, charDim: 4, charFilters: 4, spelling: false },
    wordDims: featureDims(feat).word,
    chars: [...feat.chars],
    weights: packWeights(Object.fromEntries(Object.entries(e.weights).filter(([k]) => k !== 'oov/emb'))),
  };
}

describe('an encoder pre-trained on English text, adapted to a project', () => {
  it('carries the shared characters, the character CNN and the BiLSTM; dictionary rows and unseen characters start fresh', async () => {
    const a = parseEncoderAsset(JSON.parse(JSON.stringify(await asset())), 'test asset');
    // The project's model reads dictionary features (3 types), which the asset never saw.
    const feat = {
      ...buildFeaturizer(
        glove,
        project.map((s) => s.words),
        tags,
      ),
      lexicon: ['A', 'B', 'C'],
    };
    const dims = featureDims(feat);
    expect(dims.lex).toBeGreaterThan(0);
    const { weights, chars, inputRows } = adaptEncoder(a, { ...model, head: 'crf' }, feat, 7);
    const from = new Map(a.chars);
    const shared = [...feat.chars.keys()].filter((c) => from.has(c));
    expect(chars).toBe(shared.length);
    expect(shared.length).toBeLessThan(feat.chars.size);
    expect(inputRows).toBe(dims.word + model.charFilters);

    const t = new Tagger({ ...model, head: 'crf' }, dims, 3);
    // Every encoder weight fits the project's model (the trainable word vectors are the project's own).
    expect(t.loadEncoder(weights)).toBe(9);
    const w = await t.getWeights();
    const src = (k: string) => decodeFloat32(a.weights[k].base64);
    const D = 4;
    for (const ch of shared) {
      const to = feat.chars.get(ch)!;
      const at = from.get(ch)!;
      expect(w['char/emb'].data.subarray(to * D, (to + 1) * D)).toEqual(src('char/emb').subarray(at * D, (at + 1) * D));
    }
    const z = feat.chars.get('z')!;
    expect(w['char/emb'].data.subarray(z * D, (z + 1) * D).some((v) => v !== 0)).toBe(true);
    for (const k of ['lstm/fw/wh', 'lstm/bw/b', 'char/conv/w']) expect(w[k].data).toEqual(src(k));
    const wx = w['lstm/fw/wx'];
    expect(wx.shape).toEqual([dims.word + model.charFilters + dims.lex, 4 * model.hidden]);
    expect(wx.data.subarray(0, inputRows * 4 * model.hidden)).toEqual(src('lstm/fw/wx'));
    const fresh = wx.data.subarray(inputRows * 4 * model.hidden);
    expect(Math.max(...fresh.map(Math.abs))).toBeGreaterThan(0);
    expect(Math.max(...fresh.map(Math.abs))).toBeLessThanOrEqual(Math.sqrt(6 / (wx.shape[0] + wx.shape[1])));
    t.dispose();
  });

  it('says why a model cannot start from it, and refuses a file that is not one', async () => {
    const a = await asset();
    const feat = buildFeaturizer(
      glove,
      project.map((s) => s.words),
      tags,
    );
    expect(encoderMismatch(a, { ...model, head: 'crf' }, feat)).toBeNull();
    expect(encoderMismatch(a, { ...model, hidden: 16 }, feat)).toBe("the model's hidden is 16, the encoder's 8");
    const wider = { ...feat, glove: { ...glove, dims: 5 } };
    expect(encoderMismatch(a, model, wider)).toBe(`the word vectors are ${featureDims(wider).word} wide, the encoder's ${a.wordDims}`);
    expect(() => adaptEncoder(a, { ...model, encoder: 'idcnn' }, feat, 1)).toThrow(/does not fit this model: the model's encoder is idcnn/);
    expect(() => parseEncoderAsset({ format: 'ner-studio-starter/1' }, 'x.json')).toThrow('x.json: not an encoder asset');
    const broken = { ...a, weights: { ...a.weights, 'lstm/fw/wh': { shape: [9, 32], base64: a.weights['lstm/fw/wh'].base64 } } };
    expect(() => parseEncoderAsset(broken, 'x.json')).toThrow('x.json: weight lstm/fw/wh has 1024 bytes for shape [9, 32] (1152 expected)');
  });
});
