import '../methods';
import { beforeAll, describe, expect, it } from 'vitest';
import { scoreSpans } from '../core/metrics';
import { parseRunConfig } from '../core/runConfig';
import { bioTags } from './data';
import { candidates, decodeRegions, decoupledFeaturizerWords, DecoupledModel, MASK, maskedContext, passesFilter, phraseIndex } from './decoupled';
import { buildFeaturizer } from './features';
import { bestShift, disposeDecoupled, nonEntityPhrases, O_SHIFTS, predictDecoupled, runDecoupled, spansOfTags } from '../methods/decoupled';
import * as tf from './tf';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// People are "dr X", places are "in Y": the mention tells the name, the context tells the type.
const people = ['smith', 'jones', 'brown', 'lee'];
const places = ['paris', 'rome', 'oslo', 'lima'];
const tags = bioTags(['LOC', 'PER']);
const sentence = (k: number) => {
  const per = k % 2 === 0;
  const name = (per ? people : places)[Math.floor(k / 2) % 4];
  const words = per ? ['yesterday', 'dr', name, 'spoke', 'here'] : ['we', 'flew', 'to', name, 'today'];
  const at = per ? 2 : 3;
  return { words, tags: words.map((_, t) => (t === at ? (per ? 3 : 1) : 0)), doc: k, offset: 0 };
};
const human = Array.from({ length: 32 }, (_, k) => sentence(k));
const vocab = [...new Set([...human.flatMap((s) => s.words), MASK.toLowerCase()])];
const glove = { dims: 4, index: new Map(vocab.map((w, k) => [w, k])), vectors: Float32Array.from({ length: vocab.length * 4 }, (_, i) => Math.sin(i * 1.7)) };
const feat = buildFeaturizer(
  { ...glove, index: new Map([...glove.index].filter(([w]) => w !== '[mask]')) },
  decoupledFeaturizerWords(human.map((s) => s.words)),
  tags,
);
const cfg = parseRunConfig({
  data: { kind: 'files', train: { conll: '-' }, dev: { conll: '-' } },
  model: { hidden: 8, charDim: 4, charFilters: 4, dropout: 0 },
  train: { epochs: 12, batchSize: 16, lr: 0.03, patience: 20, seed: 2 },
  method: { name: 'supervised' },
});

describe('decoupled mention / context model (paper 004)', () => {
  it('replaces the whole region by one [MASK], and no mention token reaches the context encoder', () => {
    expect(maskedContext(['a', 'b', 'c', 'd'], 1, 3)).toEqual({ words: ['a', MASK, 'd'], at: 1 });
    expect(() => maskedContext(['a'], 0, 2)).toThrow(/not inside/);
    const model = new DecoupledModel(cfg.model, feat, ['O', 'LOC', 'PER'], { alpha: 0.5, beta: 0.5, shared: true, vocab: 10 }, 1);
    const hc = (mention: string[]) =>
      tf.tidy(
        () =>
          model.contextVectors([{ words: ['we', 'flew', 'to', ...mention, 'today'], start: 3, end: 3 + mention.length, label: 0 }], false, 0).arraySync()[0],
      );
    const hm = (mention: string[]) =>
      tf.tidy(
        () =>
          model.mentionVectors([{ words: ['we', 'flew', 'to', ...mention, 'today'], start: 3, end: 3 + mention.length, label: 0 }], false, 0).arraySync()[0],
      );
    // Different mentions, even of different lengths, give the same context vector...
    expect(hc(['paris'])).toEqual(hc(['smith', 'jones', 'lee']));
    // ...while the context does not reach the mention vector, and the mention does.
    expect(tf.tidy(() => model.mentionVectors([{ words: ['x', 'paris', 'y'], start: 1, end: 2, label: 0 }], false, 0).arraySync()[0])).toEqual(hm(['paris']));
    expect(hm(['paris'])).not.toEqual(hm(['rome']));
    // The fast inference path (one pass per sentence, one LSTM step per region) gives the same h_c.
    const regions = [human[0], human[1], human[5]].flatMap((s) =>
      [
        [0, 1],
        [1, 3],
        [2, 3],
        [4, 5],
        [0, 5],
      ].map(([a, b]) => ({ words: s.words, start: a, end: b, label: 0 })),
    );
    const [slow, fast] = tf.tidy(() => [model.contextVectors(regions, false, 0).arraySync(), model.contextVectorsFast(regions).arraySync()]);
    fast.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(slow[i][j], 5)));
    // Training takes the fast path too: the encoder's gradients are the slow path's.
    const vars = model.encoderVars('context');
    const u = tf.randomNormal([regions.length, 2 * cfg.model.hidden], 0, 1, 'float32', 9);
    const gradsOf = (f: () => tf.Tensor2D) =>
      tf.tidy(() => Object.values(tf.variableGrads(() => tf.sum(tf.mul(tf.tanh(f()), u)) as tf.Scalar, vars).grads).map((g) => g.arraySync()));
    const gSlow = gradsOf(() => model.contextVectors(regions, false, 0));
    const gFast = gradsOf(() => model.contextVectorsFast(regions));
    expect(gFast.length).toBe(gSlow.length);
    gFast.forEach((g, k) => (g as number[] | number[][]).flat().forEach((v, j) => expect(v).toBeCloseTo((gSlow[k] as number[] | number[][]).flat()[j], 4)));
    model.dispose();
  });

  it('combines the losses as L = L_g + α·L_m + β·L_c on a tiny example', async () => {
    const model = new DecoupledModel(cfg.model, feat, ['O', 'LOC', 'PER'], { alpha: 0.3, beta: 0.7, shared: false, vocab: 10 }, 4);
    const regions = [
      { words: human[0].words, start: 2, end: 3, label: 2 },
      { words: human[1].words, start: 3, end: 4, label: 1 },
      { words: human[1].words, start: 0, end: 1, label: 0 },
    ];
    const l = tf.tidy(() => {
      const r = model.unifiedLosses(regions, false, 0);
      return [r.total, r.g, r.m, r.c].map((x) => x.arraySync() as number);
    });
    expect(l[0]).toBeCloseTo(l[1] + 0.3 * l[2] + 0.7 * l[3], 5);
    // L_g is the cross entropy of the global classifier's probabilities.
    const p = await model.classify(regions);
    const ce = -regions.reduce((a, r, i) => a + Math.log(p[i * 3 + r.label]), 0) / regions.length;
    expect(l[1]).toBeCloseTo(ce, 5);
    model.dispose();
  });

  it("classifies from one input pass per sentence exactly as from each region's own (shared and separate encoders, CPU and WASM)", async () => {
    await import('@tensorflow/tfjs-backend-wasm');
    (await import('./wasmKernels')).registerWasmKernels();
    for (const [backend, shared] of [
      ['cpu', true],
      ['cpu', false],
      ['wasm', true],
      ['wasm', false],
    ] as const) {
      await tf.setBackend(backend);
      const model = new DecoupledModel(cfg.model, feat, ['O', 'LOC', 'PER'], { alpha: 0.5, beta: 0.5, shared, vocab: 10 }, 5);
      // Overlapping regions of different lengths sharing starts and ends, from sentences of different
      // lengths, at a sentence's end, and one long enough to make the others' runs padded.
      const regions = [human[0], human[3], human[1]].flatMap((s) =>
        [
          [0, 1],
          [1, 3],
          [0, 4],
          [1, 4],
          [0, 3],
          [s.words.length - 2, s.words.length],
          [1, s.words.length],
        ].map(([a, b]) => ({ words: s.words, start: a, end: b, label: (a % 3) as 0 | 1 | 2 })),
      );
      // unifiedLosses reads each region's own mention batch; its L_g is the CE of the fast path's probabilities.
      const g = tf.tidy(() => model.unifiedLosses(regions, false, 0).g.arraySync() as number);
      const p = await model.classify(regions);
      expect(-regions.reduce((a, r, i) => a + Math.log(p[i * 3 + r.label]), 0) / regions.length).toBeCloseTo(g, 5);
      model.dispose();
    }
    await tf.setBackend('cpu');
  });

  it('proposes filtered candidates and dictionary matches, and decodes non-overlapping regions', () => {
    const words = ['the', 'New', 'York', 'Times', ',', 'said', 'of'];
    expect(passesFilter(words, 1, 4)).toBe(true);
    expect(passesFilter(words, 0, 2)).toBe(false); // stop word at the edge
    expect(passesFilter(words, 3, 5)).toBe(false); // punctuation at the edge
    const dict = phraseIndex([{ words: ['the', 'new', 'york', 'times', ',', 'said'], label: 1 }]);
    const c = candidates(words, 2, dict);
    expect(c).toContainEqual([0, 6]);
    expect(c).toContainEqual([1, 3]);
    expect(c).not.toContainEqual([1, 4]); // longer than 2 and not in the dictionary
    expect(
      decodeRegions([
        { start: 0, end: 2, label: 1, p: 0.6 },
        { start: 1, end: 3, label: 2, p: 0.9 },
        { start: 3, end: 4, label: 0, p: 0.99 },
        { start: 3, end: 4, label: 1, p: 0.5 },
      ]),
    ).toEqual([
      { start: 1, end: 3, label: 2, p: 0.9 },
      { start: 3, end: 4, label: 1, p: 0.5 },
    ]);
    expect(nonEntityPhrases([{ words }], dict, 50, 1).every((w) => !dict.phrases.has(w.join(' ').toLowerCase()))).toBe(true);
  });

  it('pre-trains both encoders and learns the toy task end to end', async () => {
    const p = {
      kind: 'decoupled' as const,
      alpha: 0.5,
      beta: 0.5,
      shared: true,
      maxLength: 2,
      proposer: false,
      negatives: 2,
      oShift: 0,
      mentionPretrain: { epochs: 2, oRatio: 1 },
      contextPretrain: { epochs: 2, vocab: 20, oRatio: 1 },
    };
    const dictionary = [...people.map((w) => ({ words: [w], type: 'PER' })), ...places.map((w) => ({ words: [w], type: 'LOC' }))];
    const distant = human.map((s) => ({ words: s.words, spans: spansOfTags(s.tags, tags) }));
    const r = await runDecoupled(p, cfg, feat, { human, dev: human.slice(0, 8), dictionary, distant });
    expect(r.stages.map((s) => s.stage)).toEqual([
      'mention pre-training (dictionary)',
      'context pre-training (distant labels: masked words + type)',
      'unified training (human labels)',
    ]);
    const pred = await predictDecoupled(r, human, p);
    expect(
      scoreSpans(
        human.map((s) => spansOfTags(s.tags, tags)),
        pred,
      ).overall.f1,
    ).toBeGreaterThan(0.9);
    expect(r.oShift).toBe(0);

    // O's log-probability shifted: probabilities [O, A, B] of three candidates of one sentence.
    const [, A, B] = r.model.classes;
    const cands: [number, number][][] = [
      [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
    ];
    const probs = [new Float32Array([0.3, 0.7, 0, 0.6, 0.1, 0.3, 0.98, 0.01, 0.01])];
    expect(r.model.decode(probs, cands, 0)).toEqual([[{ start: 0, end: 1, label: A }]]);
    // e^1 · 0.3 = 0.82 > 0.7: the first becomes O; e^-1 · 0.6 = 0.22 < 0.3: the second becomes B.
    expect(r.model.decode(probs, cands, 1)).toEqual([[]]);
    expect(r.model.decode(probs, cands, -1)).toEqual([
      [
        { start: 0, end: 1, label: A },
        { start: 1, end: 2, label: B },
      ],
    ]);
    // The best shift on "dev" F1, the smallest |shift| among ties.
    const gold = [[{ start: 1, end: 2, label: B }]];
    expect(bestShift(gold, (x) => r.model.decode(probs, cands, x), O_SHIFTS).shift).toBe(-0.25 * Math.ceil(Math.log(0.6 / 0.3) / 0.25));
    expect(bestShift([[{ start: 0, end: 1, label: A }]], (x) => r.model.decode(probs, cands, x), O_SHIFTS).shift).toBe(0);
    disposeDecoupled(r);
  }, 60_000);

  it('a run stopped in unified training goes on from its store to the same model', async () => {
    const p = {
      kind: 'decoupled' as const,
      alpha: 0.5,
      beta: 0.5,
      shared: true,
      maxLength: 2,
      proposer: true,
      negatives: 2,
      oShift: 'dev' as const,
      mentionPretrain: { epochs: 1, oRatio: 1 },
      contextPretrain: { epochs: 1, vocab: 20, oRatio: 1 },
    };
    const c4 = { ...cfg, train: { ...cfg.train, epochs: 4 } };
    const dictionary = people.map((w) => ({ words: [w], type: 'PER' }));
    const distant = human.map((s) => ({ words: s.words, spans: spansOfTags(s.tags, tags) }));
    const data = { human, dev: human.slice(0, 8), dictionary, distant };
    const saved = new Map<string, unknown>();
    const saves: { key: string; value: unknown }[] = [];
    const a = await runDecoupled(
      p,
      c4,
      feat,
      data,
      {},
      { load: async (k) => saved.get(k), save: async (k, v) => void (saved.set(k, v), saves.push({ key: k, value: structuredClone(v) })) },
    );
    const unified = saves.filter((x) => x.key === 'checkpoint unified');
    expect(unified.map((x) => (x.value as { epoch: number }).epoch)).toEqual([1, 2, 3, 4]);
    // The proposer and the pre-trainings kept, unified training stopped after its second epoch.
    const partial = new Map<string, unknown>([
      ...saves.filter((x) => x.key === 'stage proposer' || x.key === 'pre-training').map((x) => [x.key, x.value] as const),
      ['checkpoint unified', unified[1].value],
    ]);
    const epochs: string[] = [];
    const b = await runDecoupled(
      p,
      c4,
      feat,
      data,
      { onEpoch: (e) => void epochs.push(`${e.stage} ${e.epoch}`) },
      { load: async (k) => partial.get(k), save: async (k, v) => void partial.set(k, v) },
    );
    expect(epochs).toEqual(['unified 3', 'unified 4']);
    expect(b.stages.map((x) => x.stage)).toEqual(a.stages.map((x) => x.stage));
    expect(b.stages.at(-1)!.history).toEqual(a.stages.at(-1)!.history);
    expect(b.oShift).toBe(a.oShift);
    expect(await b.model.getWeights()).toEqual(await a.model.getWeights());
    expect(await b.proposer!.getWeights()).toEqual(await a.proposer!.getWeights());
    disposeDecoupled(a);
    disposeDecoupled(b);
  }, 120_000);

  it('classifies the spans a token tagger proposes, entities longer than maxLength included', async () => {
    // Places of three tokens ("port X city"), longer than the candidates' maxLength of 2.
    const long = Array.from({ length: 24 }, (_, k) => {
      const s = sentence(k);
      if (k % 2 === 0) return s;
      const words = ['we', 'flew', 'to', 'port', places[Math.floor(k / 2) % 4], 'city', 'today'];
      return { ...s, words, tags: [0, 0, 0, 1, 2, 2, 0] };
    });
    const f = buildFeaturizer(
      { ...glove, index: new Map([...glove.index].filter(([w]) => w !== '[mask]')) },
      decoupledFeaturizerWords(long.map((s) => s.words)),
      tags,
    );
    const gold = long.map((s) => spansOfTags(s.tags, tags));
    const p = {
      kind: 'decoupled' as const,
      alpha: 0.5,
      beta: 0.5,
      shared: true,
      maxLength: 2,
      proposer: false,
      negatives: 2,
      oShift: 0,
      mentionPretrain: { epochs: 0, oRatio: 1 },
      contextPretrain: { epochs: 0, vocab: 20, oRatio: 1 },
    };
    const plain = await runDecoupled(p, cfg, f, { human: long, dev: long.slice(0, 8) });
    const places3 = (pred: { start: number; end: number; label: string }[][]) => pred.flat().filter((x) => x.label === 'LOC' && x.end - x.start === 3).length;
    expect(places3(await predictDecoupled(plain, long, p))).toBe(0);
    // The caller's proposals (a weak layer's spans) are candidates too.
    expect(places3(await predictDecoupled(plain, long, p, gold))).toBeGreaterThan(0);
    // ... and at dev selection, where the caller gives them for the dev sentences.
    const withDev = await runDecoupled(p, cfg, f, { human: long, dev: long.slice(0, 8), devProposals: gold.slice(0, 8) });
    expect(withDev.dev!.overall.tp).toBeGreaterThan(plain.dev!.overall.tp);
    disposeDecoupled(withDev);
    disposeDecoupled(plain);
    const q = { ...p, proposer: true };
    const r = await runDecoupled(q, cfg, f, { human: long, dev: long.slice(0, 8) });
    expect(r.stages.map((s) => s.stage)).toEqual(['token model (candidate proposals)', 'unified training (human labels)']);
    expect(r.proposer).not.toBeNull();
    const pred = await predictDecoupled(r, long, q);
    expect(places3(pred)).toBeGreaterThan(8);
    expect(scoreSpans(gold, pred).overall.f1).toBeGreaterThan(0.9);
    disposeDecoupled(r);
  }, 180_000);
});
