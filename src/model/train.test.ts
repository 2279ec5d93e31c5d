import { getMethod } from '../methods';
import '../methods';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRunConfig } from '../core/runConfig';
import type { LabeledSentence } from './data';
import { bioTags, ioTags } from './data';
import { buildFeaturizer } from './features';
import * as tf from './tf';
import { trainTagger, type Checkpoint } from './train';

/** Completion as these tests were written for: one round, no type shifts, no self-training (the schema's defaults are the training page's). */
const ONE_ROUND = { rounds: 1, typeShifts: false, unlabeled: 0, unlabeledRounds: 1, keepBest: false };

beforeAll(async () => {
  await tf.setBackend('cpu');
});

// A toy language: capitalized words after "in" are places, after "mr" people.
const tags = bioTags(['LOC', 'PER']);
const words = ['in', 'mr', 'the', 'Paris', 'Rome', 'Smith', 'Jones', 'went', 'saw'];
function toy(n: number, seed: number): LabeledSentence[] {
  let s = seed;
  const r = () => (s = (s * 16807) % 2147483647) / 2147483647;
  return Array.from({ length: n }, (_, k) => {
    const out: { w: string; t: number }[] = [];
    const len = 3 + Math.floor(r() * 5);
    while (out.length < len) {
      const x = r();
      if (x < 0.25) out.push({ w: 'in', t: 0 }, { w: r() < 0.5 ? 'Paris' : 'Rome', t: 1 });
      else if (x < 0.5) out.push({ w: 'mr', t: 0 }, { w: r() < 0.5 ? 'Smith' : 'Jones', t: 3 });
      else out.push({ w: words[2 + Math.floor(r() * 2) * 5 + (r() < 0.5 ? 0 : 0)] ?? 'the', t: 0 });
    }
    return { words: out.map((o) => o.w), tags: out.map((o) => o.t), doc: k, offset: 0 };
  });
}

const glove = {
  dims: 4,
  index: new Map(words.map((w, k) => [w.toLowerCase(), k])),
  vectors: Float32Array.from({ length: words.length * 4 }, (_, i) => Math.sin(i)),
};
const train = toy(40, 3);
const dev = toy(20, 5);
const feat = buildFeaturizer(
  glove,
  train.map((s) => s.words),
  tags,
);
const config = (epochs: number, model: object = {}) =>
  parseRunConfig({
    data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
    // Word dropout off (the schema's default is 0.1): the reference losses and thresholds predate it; wordDropout.test.ts tests it.
    model: { hidden: 8, charDim: 4, charFilters: 4, dropout: 0.2, wordDropout: 0, ...model },
    train: { epochs, batchSize: 8, lr: 0.01, patience: 10, seed: 3 },
    method: { name: 'supervised' },
  });

describe('training loop', () => {
  it('keeps the tensor count flat across steps, learns the toy task, and is deterministic', async () => {
    const counts: number[] = [];
    const a = await trainTagger(getMethod(config(12).method.name), config(12), feat, { train, dev }, { onStep: () => counts.push(tf.memory().numTensors) });
    expect(new Set(counts.slice(1)).size).toBe(1);
    expect(a.bestDev!.overall.f1).toBeGreaterThan(0.9);
    const b = await trainTagger(getMethod(config(12).method.name), config(12), feat, { train, dev });
    expect(b.history.map((h) => h.loss)).toEqual(a.history.map((h) => h.loss));
    a.tagger.dispose();
    b.tagger.dispose();
  });

  it('trains the span classifier head on the same loop', async () => {
    const counts: number[] = [];
    const spanCfg = config(12, { head: 'span', spanMaxLength: 3, spanHidden: 16 });
    const r = await trainTagger(getMethod(spanCfg.method.name), spanCfg, feat, { train, dev }, { onStep: () => counts.push(tf.memory().numTensors) });
    expect(new Set(counts.slice(1)).size).toBe(1);
    expect(r.bestDev!.overall.f1).toBeGreaterThan(0.9);
    r.tagger.dispose();
  });

  it('RoSTER judges removal by the model without dropout, as rosterRemoval over its predictions', async () => {
    const { getMethod } = await import('../methods');
    const { rosterRemoval } = await import('../methods/roster');
    const { Tagger } = await import('./tagger');
    const { featureDims, makeBatch } = await import('./features');
    const { predictProbs } = await import('./train');
    const io = ioTags(['LOC', 'PER']);
    const ioFeat = buildFeaturizer(
      glove,
      train.map((s) => s.words),
      io,
    );
    const sentences = train.slice(0, 8).map((s) => ({ ...s, weak: true, tags: s.tags.map((t) => (t ? (t + 1) >> 1 : 0)) }));
    const tagger = new Tagger(parseRunConfig({ ...config(1, { head: 'twopart', dropout: 0.5 }), scheme: 'IO' }).model, featureDims(ioFeat), 3);
    const method = getMethod('roster');
    const cfg = method.schema.parse({ name: 'roster', tau: 0.5, removeFromEpoch: 1 });
    const batch = makeBatch(
      ioFeat,
      sentences,
      sentences.map((_, k) => k),
    );
    const prepare = async (step: number) =>
      (await method.prepare!({ tagger, batch, config: cfg, epoch: 1, epochs: 1, step, rand: Math.random })).data as Float32Array;
    const [a, b] = [await prepare(0), await prepare(1)];
    expect([...a]).toEqual([...b]);
    const removed = rosterRemoval(
      sentences.map((s) => s.tags),
      await predictProbs(tagger, ioFeat, sentences),
      sentences.map(() => true),
      io.length,
      0.5,
      true,
    );
    const want = sentences.flatMap((s, k) => Array.from({ length: batch.T }, (_, t) => (t < s.words.length && removed[k]![t] ? 0 : 1)));
    expect([...a]).toEqual(want);
    expect(want.some((x) => x === 0)).toBe(true);
    tagger.dispose();
  });

  it('trains every weak-label method on the shared loop, without leaking tensors', async () => {
    // Half the sentences weak, with one entity in three turned into O (the incomplete weak labels).
    const weakTrain = train.map((s, k) => (k % 2 ? { ...s, weak: true, confidence: 0.8, tags: s.tags.map((t, i) => (t && i % 3 === 0 ? 0 : t)) } : s));
    const runs = [
      ['wsl', 'crf', 8, {}],
      ['weighted-wsl', 'crf', 8, {}],
      ['partial-wsl', 'crf', 8, {}],
      ['noise-aware', 'crf', 8, {}],
      ['wsl', 'softmax', 16, {}],
      ['roster', 'softmax', 16, { removeFromEpoch: 10 }],
      ['roster', 'twopart', 16, { removeFromEpoch: 10 }],
    ] as const;
    const f1: Record<string, number> = {};
    for (const [method, head, epochs, extra] of runs) {
      const cfg = parseRunConfig({ ...config(epochs, { head }), method: { name: method, ...extra } });
      const counts: number[] = [];
      const r = await trainTagger(getMethod(cfg.method.name), cfg, feat, { train: weakTrain, dev }, { onStep: () => counts.push(tf.memory().numTensors) });
      expect(new Set(counts.slice(1)).size, `${method} ${head}: flat tensor count`).toBe(1);
      f1[`${method}/${head}`] = r.bestDev!.overall.f1;
      expect(r.bestDev!.overall.f1, `${method} ${head}`).toBeGreaterThan(0.5);
      r.tagger.dispose();
    }
    // On weak labels that miss entities, leaving weak O tokens out beats taking them as gold.
    expect(f1['partial-wsl/crf']).toBeGreaterThan(f1['wsl/crf'] + 0.1);
    await expect(trainTagger(getMethod('roster'), parseRunConfig({ ...config(1), method: { name: 'roster' } }), feat, { train, dev })).rejects.toThrow(
      /needs the softmax or twopart head/,
    );
    await expect(
      trainTagger(getMethod('supervised'), parseRunConfig({ ...config(1), method: { name: 'supervised' } }), feat, {
        train: weakTrain.filter((s) => s.weak),
        dev,
      }),
    ).rejects.toThrow(/strong labels/);
  }, 240_000);

  it('chooses the dictionary dropout on dev: the first stage at each value, the best kept, later stages at it', async () => {
    const { runPipeline, pipelineSchema } = await import('../methods/pipelines');
    const { DICTIONARY_DROPOUT_CHOICES } = await import('../core/runConfig');
    // A dictionary of the places only: its matches are typed LOC (type 0 of the lexicon).
    const withLex = (ss: LabeledSentence[]) =>
      ss.map((s) => ({ ...s, lex: s.words.flatMap((w, i) => (w === 'Paris' || w === 'Rome' ? [{ start: i, end: i + 1, type: 0 }] : [])) }));
    const lexFeat = { ...feat, lexicon: ['LOC', 'PER'] };
    const distant = withLex(train).map((s) => ({ ...s, weak: true }));
    const lexDev = withLex(dev);
    await expect(
      trainTagger(getMethod('supervised'), config(1, { dictionaryDropout: 'dev' }), lexFeat, { train: withLex(train), dev: lexDev }),
    ).rejects.toThrow(/chosen by the run's pipeline/);
    const messages: string[] = [];
    const chosen = await runPipeline(
      pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND }),
      config(3, { dictionaryDropout: 'dev' }),
      lexFeat,
      { train: distant, dev: lexDev },
      { onStage: (m) => messages.push(m) },
    );
    expect(chosen.stages.map((s) => s.stage)).toEqual([
      ...DICTIONARY_DROPOUT_CHOICES.map((r) => `teacher (WSL) (dictionary dropout ${r})`),
      'student (round 1)',
    ]);
    const line = messages.find((m) => m.startsWith('dictionary dropout chosen on dev'))!;
    const byRate = [...line.matchAll(/(\d(?:\.\d+)?): (\d+\.\d+)/g)].map((m) => ({ rate: Number(m[1]), f1: Number(m[2]) }));
    expect(byRate.map((b) => b.rate)).toEqual([...DICTIONARY_DROPOUT_CHOICES]);
    const best = byRate.reduce((a, b) => (b.f1 > a.f1 ? b : a));
    expect(chosen.dictionaryDropout).toBe(best.rate);
    // The same run at the chosen value, fixed: the same stages' scores, so the student trained at it.
    const fixed = await runPipeline(pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND }), config(3, { dictionaryDropout: best.rate }), lexFeat, {
      train: distant,
      dev: lexDev,
    });
    expect(fixed.dictionaryDropout).toBeUndefined();
    expect(fixed.stages.map((s) => s.devF1)).toEqual([chosen.stages[DICTIONARY_DROPOUT_CHOICES.indexOf(best.rate as 0)].devF1, chosen.stages[3].devF1]);
    expect(fixed.dev!.overall.f1).toBe(chosen.dev!.overall.f1);
    chosen.tagger.dispose();
    fixed.tagger.dispose();
    // With teacherEnsemble the teacher is the mean of the three models the choice trained: the same
    // stages are trained, the models not chosen are disposed after the teacher decodes (no tensor
    // is left but the final model's).
    const before = tf.memory().numTensors;
    const ensembled: string[] = [];
    const e = await runPipeline(
      pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND, teacherEnsemble: true }),
      config(3, { dictionaryDropout: 'dev' }),
      lexFeat,
      { train: distant, dev: lexDev },
      { onStage: (m) => ensembled.push(m) },
    );
    expect(e.stages.map((s) => s.stage)).toEqual(chosen.stages.map((s) => s.stage));
    expect(e.stages.slice(0, 3).map((s) => s.devF1)).toEqual(chosen.stages.slice(0, 3).map((s) => s.devF1));
    const others = DICTIONARY_DROPOUT_CHOICES.filter((r) => r !== best.rate).join(', ');
    expect(ensembled.some((m) => m.includes(`the teacher (the mean of the model chosen and those at dictionary dropout ${others}) decodes with O shift`))).toBe(
      true,
    );
    expect(tf.memory().numTensors - before).toBe(e.tagger.params.size);
    e.tagger.dispose();
  }, 240_000);

  it('decodes an ensemble of taggers from the mean of their scores and CRF parameters', async () => {
    const { TaggerEnsemble } = await import('./tagger');
    const { predict, predictEmissions, chooseShifts } = await import('./train');
    const a = await trainTagger(getMethod('supervised'), config(2), feat, { train, dev });
    const b = await trainTagger(getMethod('supervised'), parseRunConfig({ ...config(2), train: { ...config(2).train, seed: 9 } }), feat, { train, dev });
    // One member: exactly the tagger.
    expect((await predict(new TaggerEnsemble([a.tagger]), feat, dev)).paths).toEqual((await predict(a.tagger, feat, dev)).paths);
    const both = new TaggerEnsemble([a.tagger, b.tagger]);
    const [ea, eb, em] = await Promise.all([predictEmissions(a.tagger, feat, dev), predictEmissions(b.tagger, feat, dev), predictEmissions(both, feat, dev)]);
    em.forEach((row, k) => row.forEach((v, i) => expect(v).toBeCloseTo((ea[k][i] + eb[k][i]) / 2, 5)));
    const [ca, cb, cm] = [await a.tagger.crfArrays(), await b.tagger.crfArrays(), await both.crfArrays()];
    cm!.transitions.forEach((v, i) => expect(v).toBeCloseTo((ca!.transitions[i] + cb!.transitions[i]) / 2, 6));
    // Its shifts are its own: choosing them leaves the members' as they were.
    await chooseShifts(both, feat, dev, { oShift: 1, types: false });
    expect(both.oShift).toBe(1);
    expect([a.tagger.oShift, b.tagger.oShift]).toEqual([0, 0]);
    const spanCfg = parseRunConfig({ ...config(1, { head: 'span' }), method: { name: 'supervised' } });
    const s = await trainTagger(getMethod('supervised'), spanCfg, feat, { train, dev });
    expect(() => new TaggerEnsemble([a.tagger, s.tagger])).toThrow(/span head|share/);
    for (const t of [a, b, s]) t.tagger.dispose();
  }, 240_000);

  it('with type shifts, the completion teacher and the final model decode with a shift per type chosen on dev', async () => {
    const { runPipeline, pipelineSchema } = await import('../methods/pipelines');
    const { evaluate } = await import('./train');
    const distant = train.map((s, k) => ({ ...s, weak: true, tags: k % 3 === 0 ? s.tags.map(() => 0) : s.tags }));
    const cfg = parseRunConfig({ ...config(4), train: { ...config(4).train, typeShifts: true } });
    const messages: string[] = [];
    const r = await runPipeline(
      pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND }),
      cfg,
      feat,
      { train: distant, dev },
      { onStage: (m) => messages.push(m) },
    );
    const types = [...new Set(feat.tags.filter((t) => t !== 'O').map((t) => t.slice(2)))].sort();
    expect(Object.keys(r.typeShifts!).sort()).toEqual(types);
    expect(messages.some((m) => /the teacher decodes with O shift -?[\d.]+, type shifts \w+ /.test(m))).toBe(true);
    expect(messages.some((m) => m.startsWith('type shifts chosen on dev'))).toBe(true);
    // The run's dev score is the model's as it now decodes.
    expect((await evaluate(r.tagger, feat, dev)).overall.f1).toBeCloseTo(r.dev!.overall.f1, 10);
    r.tagger.dispose();
    // The pipeline's own switch: the teacher decodes with type shifts, the final model with its O shift alone.
    const teacherOnly: string[] = [];
    const t = await runPipeline(
      pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND, typeShifts: true }),
      config(4),
      feat,
      { train: distant, dev },
      { onStage: (m) => teacherOnly.push(m) },
    );
    expect(teacherOnly.some((m) => /the teacher decodes with O shift -?[\d.]+, type shifts \w+ /.test(m))).toBe(true);
    expect(t.typeShifts).toBeUndefined();
    expect(t.tagger.tagShifts).toBeNull();
    t.tagger.dispose();
  }, 240_000);

  it('runs the SST and NEEDLE pipelines with their stages', async () => {
    const { runPipeline, pipelineSchema } = await import('../methods/pipelines');
    const mixed = train.map((s, k) => (k % 4 ? { ...s, weak: true, tags: s.tags.map((t, i) => (t && i % 3 === 0 ? 0 : t)) } : s));
    const sst = await runPipeline(pipelineSchema.parse({ kind: 'sst' }), config(4), feat, { train: mixed, dev });
    expect(sst.stages.map((s) => s.stage)).toEqual(['initial (supervised)', 'self-training']);
    sst.tagger.dispose();
    // Weak-label completion on distant-only labels (a third of the entities hidden): the teacher
    // fills weak O tokens, never changes a weak entity tag, and the student trains on the result.
    const distant = train.map((s, k) => ({ ...s, weak: true, tags: k % 3 === 0 ? s.tags.map(() => 0) : s.tags }));
    const messages: string[] = [];
    const done = await runPipeline(
      pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND }),
      config(6),
      feat,
      { train: distant, dev },
      { onStage: (m) => messages.push(m) },
    );
    expect(done.stages.map((s) => s.stage)).toEqual(['teacher (WSL)', 'student (round 1)']);
    const completion = done.signals!.completion!;
    expect(completion).toHaveLength(distant.length);
    completion.forEach((c, k) => Object.keys(c ?? {}).forEach((i) => expect(distant[k].tags[Number(i)]).toBe(0)));
    // The hidden entities of the emptied sentences are among what the teacher gives back.
    const restored = completion.filter((c, k) => k % 3 === 0 && c && Object.keys(c).length > 0).length;
    expect(restored).toBeGreaterThan(0);
    expect(messages.some((m) => /completion round 1: \d+ weak-O tokens became entity tokens/.test(m))).toBe(true);
    done.tagger.dispose();
    // Cross-fitted (2 folds, 2 rounds): the first round's completion comes from two teachers, each
    // trained on the other half of the weak sentences; the second round's from the round-1 student.
    const before = tf.memory().numTensors;
    const crossed: string[] = [];
    const cf = await runPipeline(
      pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND, folds: 2, rounds: 2 }),
      config(6),
      feat,
      { train: distant, dev },
      { onStage: (m) => crossed.push(m) },
    );
    expect(cf.stages.map((s) => s.stage)).toEqual([
      'teacher (WSL)',
      'teacher for fold 1 of 2',
      'teacher for fold 2 of 2',
      'student (round 1)',
      'student (round 2)',
    ]);
    expect(cf.stages.map((s) => s.trainSentences)).toEqual([40, 20, 20, 40, 40]);
    for (const f of [1, 2])
      expect(crossed.some((m) => m.startsWith(`completion round 1 of 2: the teacher for fold ${f} of 2 (20 sentences it was not trained on) decodes`))).toBe(
        true,
      );
    expect(crossed.some((m) => m.startsWith('completion round 2 of 2: the teacher decodes'))).toBe(true);
    cf.signals!.completion!.forEach((c, k) => Object.keys(c ?? {}).forEach((i) => expect(distant[k].tags[Number(i)]).toBe(0)));
    expect(tf.memory().numTensors - before).toBe(cf.tagger.params.size);
    cf.tagger.dispose();
    // Self-training: the last round's teacher labels up to `unlabeled` sentences of the pool (tags
    // all O on the way in), and the student learns from them with the completed weak labels.
    const pool = dev.map((s) => ({ ...s, tags: s.tags.map(() => 0) }));
    const selfTrained: string[] = [];
    const st = await runPipeline(
      pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND, unlabeled: 5 }),
      config(6),
      feat,
      { train: distant, dev, unlabeled: pool },
      { onStage: (m) => selfTrained.push(m) },
    );
    expect(st.stages.map((s) => s.trainSentences)).toEqual([40, 45]);
    const line = selfTrained.find((m) => m.startsWith('completion round 1: the teacher labeled 5 unlabeled sentences'))!;
    expect(Number(/\((\d+) entity tokens\)/.exec(line)![1])).toBeGreaterThan(0);
    // The stages before the student's are the run's without the pool.
    expect(st.stages[0].devF1).toBe(done.stages[0].devF1);
    st.tagger.dispose();
    // unlabeledRounds 2 of 2 rounds: both rounds' teachers label the pool for their students, and
    // with freshStudent each student starts from scratch (this run has no encoder), not its teacher.
    const twiceLog: string[] = [];
    const st2 = await runPipeline(
      pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND, rounds: 2, unlabeled: 5, unlabeledRounds: 2, freshStudent: true }),
      config(6),
      feat,
      { train: distant, dev, unlabeled: pool },
      { onStage: (m) => twiceLog.push(m) },
    );
    expect(st2.stages.map((s) => s.trainSentences)).toEqual([40, 45, 45]);
    for (const r of [1, 2]) {
      expect(twiceLog.some((m) => m.startsWith(`completion round ${r}: the teacher labeled 5 unlabeled sentences`))).toBe(true);
      expect(twiceLog).toContain(`student, round ${r} of 2, a fresh start: training on 45 sentences, up to 6 epochs`);
    }
    // The same first teacher; a student that goes on from it does not start afresh.
    expect(st2.stages[0].devF1).toBe(st.stages[0].devF1);
    expect(selfTrained.some((m) => m.includes('fresh start'))).toBe(false);
    st2.tagger.dispose();
    // keepBest: the same rounds as without it, up to the first student that does not beat the best
    // model so far on dev (scored with its O shift); the run keeps that model, with what it learned.
    const all = await runPipeline(pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND, rounds: 4 }), config(2), feat, { train: distant, dev });
    const keptLog: string[] = [];
    const before2 = tf.memory().numTensors;
    const kb = await runPipeline(
      pipelineSchema.parse({ kind: 'completion', ...ONE_ROUND, rounds: 4, keepBest: true }),
      config(2),
      feat,
      { train: distant, dev },
      { onStage: (m) => keptLog.push(m) },
    );
    // At 2 epochs a round the round-2 student falls below the round-1 student (33.71 against 51.85
    // with their O shifts): the run stops there and keeps round 1's model.
    expect(kb.stages.map((s) => s.devF1)).toEqual(all.stages.slice(0, 3).map((s) => s.devF1));
    expect(keptLog.filter((m) => m.includes('does not beat'))).toEqual([
      "completion round 2: the student's dev F1 33.71 does not beat 51.85 (student (round 1)): the run keeps that model and stops",
    ]);
    expect(keptLog.some((m) => m.startsWith('student, round 3'))).toBe(false);
    expect(kb.keptStage).toBe('student (round 1)');
    // Its dev F1 is the one it was kept on, with the O shift the run chose for it.
    expect(100 * kb.dev!.overall.f1).toBeCloseTo(51.85, 2);
    expect(kb.signals!.completion).toHaveLength(distant.length);
    // No tensor is left but the kept model's: the teacher, and the round-2 student, are disposed.
    expect(tf.memory().numTensors - before2).toBe(kb.tagger.params.size);
    all.tagger.dispose();
    kb.tagger.dispose();
    const needle = await runPipeline(pipelineSchema.parse({ kind: 'needle', bins: 4, stage1: { epochs: 2, vocab: 20 } }), config(4), feat, {
      train: mixed,
      dev,
    });
    expect(needle.stages.map((s) => s.stage)).toEqual([
      'Stage I: language model',
      'initial (supervised)',
      'noise-aware continual training',
      'fine-tuning (strong)',
    ]);
    expect(needle.metrics?.confidences).toHaveLength(mixed.filter((s) => s.weak).length);
    for (const c of needle.metrics!.confidences!) expect(c).toBeLessThanOrEqual(0.95);
    expect(needle.metrics!.calibration!.reduce((a, b) => a + b.n, 0)).toBe(dev.length);
    expect(needle.dev!.overall.f1).toBeGreaterThan(0.2);
    needle.tagger.dispose();
    const ioTrain = mixed.map((s) => ({ ...s, weak: true, tags: s.tags.map((t) => (t ? (t + 1) >> 1 : 0)) }));
    const ioDev = dev.map((s) => ({ ...s, tags: s.tags.map((t) => (t ? (t + 1) >> 1 : 0)) }));
    const ioFeat = buildFeaturizer(
      glove,
      train.map((s) => s.words),
      ioTags(['LOC', 'PER']),
    );
    const roster = await runPipeline(
      pipelineSchema.parse({ kind: 'roster', models: 2, rounds: 1, roundEpochs: 1, lm: { epochs: 1, vocab: 20 }, stopEarly: false }),
      parseRunConfig({ ...config(14, { head: 'twopart' }), method: { name: 'roster', removeFromEpoch: 8 } }),
      ioFeat,
      { train: ioTrain, dev: ioDev },
    );
    expect(roster.stages.map((s) => s.stage)).toEqual([
      'noise-robust model 1',
      'noise-robust model 2',
      'ensemble distillation',
      'language model for augmentation',
      'self-training round 1 (with augmented copies)',
    ]);
    expect(roster.stages[4].trainSentences).toBe(2 * ioTrain.length);
    expect(roster.dev!.overall.f1).toBeGreaterThan(0.2);
    roster.tagger.dispose();
    const noFt = await runPipeline(pipelineSchema.parse({ kind: 'needle', nal: false, ft: false, stage1: { epochs: 0, vocab: 2 } }), config(2), feat, {
      train: mixed,
      dev,
    });
    expect(noFt.stages.map((s) => s.stage)).toEqual(['initial (supervised)', 'continual training (NLL)']);
    noFt.tagger.dispose();
    // A second round of Stages II and III starts from the fine-tuned model (NEEDLE §4.5).
    const twice = await runPipeline(pipelineSchema.parse({ kind: 'needle', rounds: 2, bins: 4, stage1: { epochs: 0, vocab: 2 } }), config(2), feat, {
      train: mixed,
      dev,
    });
    expect(twice.stages.map((s) => s.stage)).toEqual([
      'initial (supervised)',
      'noise-aware continual training',
      'fine-tuning (strong)',
      'noise-aware continual training (round 2)',
      'fine-tuning (strong) (round 2)',
    ]);
    expect(twice.metrics!.calibration!.reduce((a, b) => a + b.n, 0)).toBe(dev.length);
    twice.tagger.dispose();
  }, 240_000);

  it('trains the span head with uniform and weighted negative sampling, recording missampling and uncertainty', async () => {
    // Synthetic missing annotations: every other entity hidden (turned into O) and remembered.
    const masked = train.map((s) => {
      let n = 0;
      const hidden = s.tags.map((t) => (t && n++ % 2 === 0 ? t : 0));
      return { ...s, tags: s.tags.map((t, i) => (hidden[i] ? 0 : t)), hidden };
    });
    for (const sampling of ['uniform', 'weighted'] as const) {
      const cfg = parseRunConfig({
        ...config(12, { head: 'span', spanMaxLength: 3, spanHidden: 16 }),
        method: { name: 'negative-sampling', sampling, lambda: 0.3 },
      });
      const r = await trainTagger(getMethod(cfg.method.name), cfg, feat, { train: masked, dev });
      const stats = r.history.map((h) => h.methodStats!);
      expect(stats[0].missamplingRate).toBeGreaterThanOrEqual(0);
      expect(stats[0].missamplingRate).toBeLessThan(0.2);
      expect(stats[0].sampledUncertainty).toBeGreaterThan(0);
      expect(r.bestDev!.overall.f1, sampling).toBeGreaterThan(0.5);
      r.tagger.dispose();
    }
  }, 120_000);

  it('a pipeline run stopped between or inside stages goes on from its store to the same model', async () => {
    const { runPipeline, pipelineSchema } = await import('../methods/pipelines');
    const weakTrain = train.map((s, k) => (k % 2 ? { ...s, weak: true, confidence: 0.8, tags: s.tags.map((t, i) => (t && i % 3 === 0 ? 0 : t)) } : s));
    const cfg = parseRunConfig({ ...config(4), method: { name: 'wsl' } });
    const sst = pipelineSchema.parse({ kind: 'sst' });
    const saved = new Map<string, unknown>();
    const saves: { key: string; value: unknown }[] = [];
    const a = await runPipeline(
      sst,
      cfg,
      feat,
      { train: weakTrain, dev },
      {},
      {
        load: async (k) => saved.get(k),
        save: async (k, v) => void (saved.set(k, v), saves.push({ key: k, value: structuredClone(v) })),
      },
    );
    expect(a.stages.map((x) => x.stage)).toEqual(['initial (supervised)', 'self-training']);
    // Everything finished is restored: no epoch trains, the same model comes back.
    let epochs = 0;
    const b = await runPipeline(
      sst,
      cfg,
      feat,
      { train: weakTrain, dev },
      { onEpoch: () => void epochs++ },
      { load: async (k) => saved.get(k), save: async () => {} },
    );
    expect(epochs).toBe(0);
    expect(b.dev!.overall.f1).toBe(a.dev!.overall.f1);
    expect(await b.tagger.getWeights()).toEqual(await a.tagger.getWeights());
    // Stopped in the second stage after its second epoch: the first stage and that checkpoint.
    const partial = new Map<string, unknown>();
    const first = saves.find((x) => x.key.startsWith('stage 0 '))!;
    const inside = saves.find((x) => x.key.startsWith('checkpoint 1 ') && (x.value as Checkpoint).epoch === 2)!;
    partial.set(first.key, first.value).set(inside.key, inside.value);
    const resumed: number[] = [];
    const c = await runPipeline(
      sst,
      cfg,
      feat,
      { train: weakTrain, dev },
      { onEpoch: (e) => void resumed.push(e.epoch) },
      { load: async (k) => partial.get(k), save: async (k, v) => void partial.set(k, v) },
    );
    expect(resumed).toEqual(a.stages[1].history!.slice(2).map((h) => h.epoch));
    expect(resumed.length).toBeGreaterThan(0);
    expect(c.stages[1].history!.map((h) => h.loss)).toEqual(a.stages[1].history!.map((h) => h.loss));
    expect(await c.tagger.getWeights()).toEqual(await a.tagger.getWeights());
    for (const r of [a, b, c]) r.tagger.dispose();
  }, 120_000);

  it('runs PU learning with negative sampling, recording O-values and the detection curve', async () => {
    const { runPipeline, pipelineSchema } = await import('../methods/pipelines');
    const masked = train.map((s) => {
      let n = 0;
      const hidden = s.tags.map((t) => (t && n++ % 2 === 0 ? t : 0));
      return { ...s, tags: s.tags.map((t, i) => (hidden[i] ? 0 : t)), hidden };
    });
    for (const angle of [false, true]) {
      const cfg = parseRunConfig({ ...config(16, { head: 'softmax', angle }), method: { name: 'pu', gamma: 0.3 } });
      const r = await runPipeline(pipelineSchema.parse({ kind: 'pu', explore: 3, lambda: 0.1 }), cfg, feat, { train: masked, dev });
      expect(r.stages.map((s) => s.stage)).toEqual(['exploratory training', 'PU + negative sampling']);
      const stats = r.stages[0].history![0].methodStats!;
      // The O-values the exploratory model gives the hidden entities' tokens (labeled O) are lower than the true O tokens': what PU removal reads (Eq. 9).
      expect(stats.oValueTrueO).toBeGreaterThan(0);
      expect(stats.oValueHidden, `angle ${angle}`).toBeLessThan(stats.oValueTrueO);
      expect(r.metrics!.detection!.map((d) => d.lambda)).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5]);
      expect(r.dev!.overall.f1, `angle ${angle}`).toBeGreaterThan(0.5);
      r.tagger.dispose();
    }
  }, 120_000);

  it('resuming from a checkpoint gives the run an uninterrupted one gives', async () => {
    const full = await trainTagger(getMethod(config(3).method.name), config(3), feat, { train, dev });
    let ckpt: Checkpoint | undefined;
    const first = await trainTagger(
      getMethod(config(3).method.name),
      config(3),
      feat,
      { train, dev },
      { onCheckpoint: (c) => void (ckpt = c), control: () => (ckpt ? 'stop' : 'go') },
    );
    expect(first.history).toHaveLength(1);
    const resumed = await trainTagger(getMethod(config(3).method.name), config(3), feat, { train, dev }, {}, ckpt);
    expect(resumed.history.map((h) => h.loss)).toEqual(full.history.map((h) => h.loss));
    for (const t of [full, first, resumed]) t.tagger.dispose();
  });

  it('chooses the O shift on dev: decoding shifted as predict does, never below the unshifted F1', async () => {
    const { chooseOShift, evaluate } = await import('./train');
    // Undertrained on purpose, so that the shift has something to move.
    const r = await trainTagger(getMethod(config(2).method.name), config(2), feat, { train, dev });
    const at0 = (await evaluate(r.tagger, feat, dev)).overall.f1;
    const chosen = await chooseOShift(r.tagger, feat, dev);
    expect(chosen.byShift.find((b) => b.shift === 0)!.f1).toBeCloseTo(at0, 10);
    expect(chosen.dev.overall.f1).toBeGreaterThanOrEqual(at0);
    expect(chosen.dev.overall.f1).toBe(Math.max(...chosen.byShift.map((b) => b.f1)));
    expect(r.tagger.oShift).toBe(chosen.shift);
    // predict() decodes with the chosen shift: the same F1 as chosen on dev.
    expect((await evaluate(r.tagger, feat, dev)).overall.f1).toBeCloseTo(chosen.dev.overall.f1, 10);
    // A larger shift never predicts fewer entity tokens.
    const count = async (shift: number) => {
      r.tagger.oShift = shift;
      const { predict } = await import('./train');
      return (await predict(r.tagger, feat, dev)).paths.flat().filter((t) => t !== 0).length;
    };
    expect(await count(3)).toBeGreaterThanOrEqual(await count(0));
    expect(await count(0)).toBeGreaterThanOrEqual(await count(-2));
    r.tagger.dispose();
  });

  it('chooses a shift per type on dev after the O shift: never below the O shift alone, and decoded as chosen', async () => {
    const { chooseOShift, chooseTypeShifts, evaluate, predict, tagShiftsOf, TYPE_SHIFTS } = await import('./train');
    const r = await trainTagger(getMethod(config(2).method.name), config(2), feat, { train, dev });
    await chooseOShift(r.tagger, feat, dev);
    const oOnly = (await evaluate(r.tagger, feat, dev)).overall.f1;
    const chosen = await chooseTypeShifts(r.tagger, feat, dev);
    const types = [...new Set(feat.tags.filter((t) => t !== 'O').map((t) => t.slice(2)))];
    expect(Object.keys(chosen.shifts).sort()).toEqual(types.sort());
    for (const v of Object.values(chosen.shifts)) expect(TYPE_SHIFTS).toContain(v);
    expect(chosen.before.overall.f1).toBeCloseTo(oOnly, 10);
    expect(chosen.dev.overall.f1).toBeGreaterThanOrEqual(oOnly);
    // predict() decodes with them: the F1 chosen on dev.
    expect((await evaluate(r.tagger, feat, dev)).overall.f1).toBeCloseTo(chosen.dev.overall.f1, 10);
    // Each tag of a type carries its type's shift, O none; all zeros are no shifts at all.
    const t = feat.tags.findIndex((x) => x.startsWith('B-'));
    const ts = tagShiftsOf(feat.tags, { [feat.tags[t].slice(2)]: 0.5 })!;
    expect(ts[0]).toBe(0);
    expect(ts[t]).toBe(0.5);
    expect(ts[feat.tags.indexOf(`I-${feat.tags[t].slice(2)}`)]).toBe(0.5);
    expect(tagShiftsOf(feat.tags, {})).toBeNull();
    // Held out on dev's halves: the O shift alone there is the model's own score on them, and the
    // tagger's shifts are as they were after.
    const { heldOutTypeShifts } = await import('./train');
    const kept = r.tagger.tagShifts;
    const held = await heldOutTypeShifts(r.tagger, feat, dev);
    expect(r.tagger.tagShifts).toBe(kept);
    r.tagger.tagShifts = null;
    expect(held.without.f1).toBeCloseTo((await evaluate(r.tagger, feat, dev)).overall.f1, 10);
    // Shifts chosen on one half of dev and scored on the other: a real score, near the model's own.
    expect(held.with.f1).toBeGreaterThan(held.without.f1 - 0.2);
    // Raising one type's tags never predicts fewer tokens of that type.
    const typeTokens = async (v: number) => {
      r.tagger.tagShifts = tagShiftsOf(feat.tags, { [feat.tags[t].slice(2)]: v });
      return (await predict(r.tagger, feat, dev)).paths.flat().filter((k) => feat.tags[k].slice(2) === feat.tags[t].slice(2)).length;
    };
    expect(await typeTokens(1)).toBeGreaterThanOrEqual(await typeTokens(0));
    expect(await typeTokens(0)).toBeGreaterThanOrEqual(await typeTokens(-1));
    r.tagger.dispose();
  });
});
