import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenTexts } from '../core/types';
import { loadExperimentConfig, loadSetting } from './experiment';
import { poolData, readSimRecords, simulateReview, simulateSchema, summarize } from './simulateReview';

const fixtures = resolve('fixtures/data');

/** The committed conll03 distant fixture as a simulation setting: its first `train` training and `dev` dev sentences. */
const conllTiny = (train: number, dev: number) => ({
  kind: 'distant',
  name: 'conll tiny',
  train: {
    text: '$data/conll03-distant/train_text.txt',
    weak: '$data/conll03-distant/train_label_dist.txt',
    gold: '$data/conll03-distant/train_label_true.txt',
  },
  dev: { text: '$data/conll03-distant/valid_text.txt', labels: '$data/conll03-distant/valid_label_true.txt' },
  test: { text: '$data/conll03-distant/test_text.txt', labels: '$data/conll03-distant/test_label_true.txt' },
  limitTrain: train,
  limitDev: dev,
});

/** The committed bc5cdr fixture as a dictionary setting (dict_core, priority aggregation). */
const bc5cdrTiny = (name: string) => ({
  kind: 'dictionary',
  name,
  corpus: '$data/bc5cdr/train_raw.txt',
  gazetteers: ['$data/bc5cdr/dict_core.txt'],
  untyped: [],
  aggregate: 'priority',
  dev: { conll: '$data/bc5cdr/dev.conll' },
  test: { conll: '$data/bc5cdr/test.conll' },
});

/** A setting as an experiment config parses it (paths resolved in the fixtures), every dev sentence kept. */
function loadedSetting(setting: Record<string, unknown>) {
  const config = { name: 't', settings: [{ ...setting, limitDev: undefined }], methods: [{ label: 'w', method: { name: 'wsl' } }], records: 'r.jsonl' };
  return loadExperimentConfig('t.json', config, fixtures).exp.settings[0];
}

/** Writes a tiny simulation config (the tiny model, one epoch, seed 1) into a fresh folder, runs it, and returns its records and log. */
async function runTinySimulation(name: string, settings: unknown[], simulate: Record<string, unknown>, model: Record<string, unknown> = { dictionary: false }) {
  const dir = mkdtempSync(join(tmpdir(), 'studio-sim-'));
  const config = {
    name,
    model: { hidden: 8, charDim: 8, charFilters: 8 },
    train: { epochs: 1, batchSize: 16 },
    seeds: [1],
    records: join(dir, 'records.jsonl'),
    settings,
    methods: [{ label: 'base', method: { name: 'wsl' }, model }],
    simulate: { ...simulate, out: join(dir, 'summary.json') },
  };
  writeFileSync(join(dir, 'sim.json'), JSON.stringify(config));
  const logs: string[] = [];
  await simulateReview(join(dir, 'sim.json'), { data: fixtures, log: (s) => logs.push(s) });
  return { dir, config, logs, records: readSimRecords(config.records) };
}

describe('simulate-review', () => {
  it('records the base, the rankings and a fine-tune per arm and budget, then skips them on restart; pools from dev for a dictionary setting', async () => {
    const { dir, config, logs, records } = await runTinySimulation('sim-test', [conllTiny(80, 30), { ...bc5cdrTiny('bc5cdr tiny'), limitDev: 30 }], {
      budgets: [0.1],
      folds: 2,
      finetune: { epochs: 1 },
      pools: { 'bc5cdr tiny': { fromDev: 40, limitTrain: 40 } },
    });
    for (const setting of ['conll tiny', 'bc5cdr tiny'])
      expect(records.filter((r) => r.setting === setting).map((r) => r.arm)).toEqual([
        'base',
        'ranking',
        'tokens',
        'control',
        'random',
        'oracle',
        'doubt',
        'doubt+travel',
        'random+travel',
        'summary',
      ]);
    const conll = records.filter((r) => r.setting === 'conll tiny');
    // The whole training set is the pool there: 10 % of 80 sentences.
    expect(conll.find((r) => r.arm === 'ranking')!.poolSize).toBe(80);
    expect(conll.find((r) => r.arm === 'random')!.corrected).toBe(8);
    // The oracle takes the sentences with the most errors: all of them have one here.
    expect(conll.find((r) => r.arm === 'oracle')!.precision).toBe(1);
    const bc = records.filter((r) => r.setting === 'bc5cdr tiny');
    expect(bc.find((r) => r.arm === 'ranking')!.poolSize).toBe(40);
    expect(logs.some((l) => l.includes('bc5cdr tiny: 80 training sentences, a pool of 40'))).toBe(true);
    // A restart runs nothing and the summary has the shape.
    await simulateReview(join(dir, 'sim.json'), { data: fixtures, log: () => {} });
    expect(readSimRecords(config.records)).toHaveLength(records.length);
    const summary = JSON.parse(readFileSync(config.simulate.out, 'utf8'));
    expect(summary.settings.map((s: { name: string }) => s.name)).toEqual(['conll tiny', 'bc5cdr tiny']);
    const b = summary.settings[0].budgets[0];
    expect(Object.keys(b).sort()).toEqual(['arms', 'fraction', 'guided', 'oracle', 'precisions', 'random', 'randomTravel', 'sentences', 'travel']);
    expect(b.oracle.precision).toBe(100);
    expect(b.guided.signal).toBe('doubt');
  }, 300_000);

  it('ranks by uncertainty alone without fold models, fine-tunes with the weak sentences weighed down, and records how well each fits its corrections', async () => {
    const { logs, records } = await runTinySimulation('sim-weighted', [conllTiny(60, 20)], {
      budgets: [0.1],
      train: ['uncertainty'],
      travel: false,
      finetune: { epochs: 1, gamma: 0.1 },
    });
    expect(records.map((r) => r.arm)).toEqual(['base', 'ranking', 'tokens', 'control', 'random', 'oracle', 'uncertainty', 'summary']);
    // No fold model trained, and the rankings it would have made are not reported as if they had been
    // (the base model's reach is); the oracles of reach are computed only where a config trains on them.
    expect(logs.some((l) => l.includes('fold'))).toBe(false);
    expect(Object.keys(records.find((r) => r.arm === 'ranking')!.precisions!).sort()).toEqual([
      'oracle',
      'random',
      'reach',
      'reach-set',
      'reach-studio',
      'uncertainty',
      'uncertainty-max',
    ]);
    // What the annotator reads: each ranking's top sentences' tokens, the same as the fine-tune that corrected them records.
    const tokens = records.find((r) => r.arm === 'tokens')!.tokensPerSentence!;
    expect(Object.keys(tokens).sort()).toEqual(Object.keys(records.find((r) => r.arm === 'ranking')!.precisions!).sort());
    for (const arm of ['random', 'oracle', 'uncertainty']) {
      const ft = records.find((r) => r.arm === arm)!;
      expect(tokens[arm]['0.1']).toBeCloseTo(ft.tokens! / ft.corrected, 2);
      expect(ft.tokens! / ft.corrected).toBeGreaterThanOrEqual(1);
    }
    // The oracle's sentences were wrong before (their weak labels' F1 below 100) and the fine-tune's fit is scored on them.
    const oracle = records.find((r) => r.arm === 'oracle')!;
    expect(oracle.fit!.weak).toBeLessThan(100);
    expect(oracle.fit!.model).toBeGreaterThanOrEqual(0);
    expect(records.find((r) => r.arm === 'control')!.fit).toBeUndefined();
    expect(logs).toContain('conll tiny/1/oracle/0.1: fine-tuning with weighted-wsl (weak sentences × 0.1)');
  }, 300_000);

  it('lets corrections travel into the dictionary: every sentence is matched again, and the summary reports both arms', async () => {
    const { config, logs, records } = await runTinySimulation(
      'sim-gazetteer',
      [{ ...conllTiny(60, 20), name: 'conll dict' }],
      {
        budgets: [0.1],
        train: ['uncertainty'],
        travel: false,
        gazetteer: true,
        finetune: { epochs: 1, gamma: 0.1 },
      },
      { dictionary: true },
    );
    expect(records.map((r) => r.arm)).toEqual([
      'base',
      'ranking',
      'tokens',
      'control',
      'random',
      'oracle',
      'uncertainty',
      'uncertainty+gazetteer',
      'random+gazetteer',
      'summary',
    ]);
    const oracleLike = records.find((r) => r.arm === 'uncertainty+gazetteer')!;
    expect(oracleLike.gazetteer!.added + oracleLike.gazetteer!.stopped).toBeGreaterThan(0);
    expect(oracleLike.travelled).toBeGreaterThanOrEqual(oracleLike.travel!.sentences);
    expect(logs.some((l) => l.includes('dictionary features from'))).toBe(true);
    const summary = JSON.parse(readFileSync(config.simulate.out, 'utf8'));
    expect(Object.keys(summary.settings[0].budgets[0])).toEqual(expect.arrayContaining(['gazetteer', 'randomGazetteer']));
    expect(logs.some((l) => l.includes('guided, into the dictionary too'))).toBe(true);
  }, 300_000);

  it('draws a pool from dev at random, or as its last sentences so that no document straddles the pool and the dev that selects', () => {
    const bc = bc5cdrTiny('bc');
    const { exp } = loadExperimentConfig(
      't.json',
      { name: 't', settings: [bc], methods: [{ label: 'w', method: { name: 'wsl' } }], records: 'r.jsonl' },
      fixtures,
    );
    const pools = (contiguous: boolean) => simulateSchema.shape.pools.parse({ bc: { fromDev: 50, limitTrain: 10, contiguous } });
    const dev = loadSetting(exp.settings[0]).dev.docs;
    const random = poolData(exp.settings[0], { pools: pools(false) });
    const last = poolData(exp.settings[0], { pools: pools(true) });
    // The contiguous pool is dev's last 50 sentences in order, after the 10 training ones; the rest of dev selects, in order.
    expect(last.data.train.corpus.docs.slice(10)).toEqual(dev.slice(-50));
    expect(last.data.dev.docs).toEqual(dev.slice(0, -50));
    expect(last.gold.slice(10).every((g) => g !== undefined)).toBe(true);
    expect(random.data.train.corpus.docs.slice(10)).not.toEqual(dev.slice(-50));
    expect(random.data.dev.docs).toHaveLength(dev.length - 50);
  });

  it('labels a distant setting’s pool from dev with its own dictionary: the strings its training labels matched, never the pool’s gold', () => {
    const s = loadedSetting(conllTiny(200, 1000));
    const { data, gold } = poolData(s, { pools: simulateSchema.shape.pools.parse({ 'conll tiny': { fromDev: 30, limitTrain: 100 } }) });
    const train = loadSetting(s).train;
    const words = (k: number) => tokenTexts(data.train.corpus.docs[k]);
    // The first 100 training sentences keep their distant labels and have no gold for the annotator.
    expect(data.train.anns.slice(0, 100)).toEqual(train.anns.slice(0, 100));
    expect(gold.slice(0, 100).every((g) => g === undefined)).toBe(true);
    // Every weak span of the pool is a typed string the first 100 distant labels gave (the dictionary), whatever the gold says.
    const typed = (anns: typeof train.anns, from: number) =>
      anns.flatMap((a, j) =>
        a.spans.map(
          (x) =>
            `${x.label}\t${words(from + j)
              .slice(x.start, x.end)
              .join(' ')}`,
        ),
      );
    const dictionary = new Set(typed(train.anns.slice(0, 100), 0));
    const poolSpans = typed(data.train.anns.slice(100), 100);
    expect(poolSpans.length).toBeGreaterThan(0);
    expect(poolSpans.every((x) => dictionary.has(x))).toBe(true);
    expect(data.train.anns.slice(100)).not.toEqual(gold.slice(100));
    expect(data.train.corpus.docs).toHaveLength(130);
  });

  it('draws a pool from test where dev is not test’s kind of text: the rest of test scores, less any repeat of a pool document, and dev stays whole', () => {
    const s = loadedSetting(conllTiny(100, 1000));
    const whole = loadSetting(s);
    const pools = (p: Record<string, unknown>) => simulateSchema.shape.pools.parse({ 'conll tiny': p });
    const { data, gold } = poolData(s, { pools: pools({ fromTest: 100 }) });
    const poolDocs = data.train.corpus.docs.slice(100);
    expect(poolDocs).toHaveLength(100);
    expect(data.dev.docs).toEqual(whole.dev.docs);
    // The pool's gold is test's gold for those documents; no text of the pool is scored.
    const testGold = whole.test.layers.find((l) => l.kind === 'gold')!.annotations;
    let at = 0;
    const poolAt = poolDocs.map((d) => {
      while (JSON.stringify(whole.test.docs[at]) !== JSON.stringify(d)) at++;
      return at++;
    });
    expect(gold.slice(100)).toEqual(poolAt.map((k) => testGold[k]));
    const poolTexts = new Set(poolDocs.map((d) => d.text));
    expect(data.test.docs.some((d) => poolTexts.has(d.text))).toBe(false);
    const repeats = whole.test.docs.filter((d) => poolTexts.has(d.text)).length - 100;
    // The fixture repeats lines ("LONDON 1996-12-06" five times): the draw takes some of them.
    expect(repeats).toBeGreaterThan(0);
    expect(data.test.docs).toHaveLength(whole.test.docs.length - 100 - repeats);
    expect(data.test.layers[0].annotations).toHaveLength(data.test.docs.length);
    expect(() => pools({ fromTest: 50, fromDev: 50 })).toThrow(/one of fromDev and fromTest/);
    expect(() => pools({})).toThrow(/one of fromDev and fromTest/);
  });

  it('summarizes gains over each seed’s own base model', () => {
    const r = (seed: number, arm: string, fraction: number, test: number) => ({
      key: `s/${seed}/${arm}/${fraction}`,
      setting: 's',
      seed,
      arm,
      fraction,
      corrected: 2,
      test,
      wallSeconds: 0,
      finishedAt: '',
    });
    const ranking = (seed: number) => ({
      ...r(seed, 'ranking', 0, 0),
      precisions: { random: { '0.02': 0.25 }, doubt: { '0.02': 0.75 }, oracle: { '0.02': 1 } },
      poolSize: 100,
      poolErrors: 40,
    });
    const records = [
      r(1, 'base', 0, 70),
      r(2, 'base', 0, 72),
      ranking(1),
      ranking(2),
      r(1, 'random', 0.02, 70.5),
      r(2, 'random', 0.02, 72.5),
      r(1, 'oracle', 0.02, 73),
      r(2, 'oracle', 0.02, 75),
      r(1, 'doubt', 0.02, 72),
      r(2, 'doubt', 0.02, 73),
    ];
    const [s] = summarize(records, { budgets: [0.02], train: ['doubt'], travel: false }, ['s']);
    expect(s.base).toEqual({ mean: 71, std: 1.41 });
    expect(s.budgets[0].random).toEqual({ gain: 0.5, std: 0, precision: 25 });
    expect(s.budgets[0].oracle.gain).toBe(3);
    expect(s.budgets[0].guided).toEqual({ signal: 'doubt', gain: 1.5, std: 0.71, precision: 75 });
    // A budget added after the ranking records: its precision comes from the fine-tunes' own.
    const later = [...records, { ...r(1, 'doubt', 0.05, 74), precision: 0.9 }, { ...r(2, 'doubt', 0.05, 75), precision: 0.8 }];
    for (const arm of ['random', 'oracle']) later.push({ ...r(1, arm, 0.05, 71), precision: 0.5 }, { ...r(2, arm, 0.05, 73), precision: 0.5 });
    const [t] = summarize(later, { budgets: [0.02, 0.05], train: ['doubt'], travel: false }, ['s']);
    expect(t.budgets[1].guided.precision).toBe(85);
    expect(t.budgets[0].guided.precision).toBe(75);
    // Every arm at a budget is reported; another config's seed in the same records is left out when the seeds are given.
    const shared = [...records, r(3, 'base', 0, 60), r(3, 'random', 0.02, 70), r(1, 'reach', 0.02, 74), r(2, 'reach', 0.02, 74)];
    const [u] = summarize(shared, { budgets: [0.02], train: ['doubt'], travel: false }, ['s'], [1, 2]);
    expect(u.budgets[0].arms).toEqual({
      doubt: { gain: 1.5, std: 0.71, seeds: 2, kept: 0 },
      oracle: { gain: 3, std: 0, seeds: 2, kept: 0 },
      random: { gain: 0.5, std: 0, seeds: 2, kept: 0 },
      reach: { gain: 3, std: 1.41, seeds: 2, kept: 0 },
    });
    // With finetune.keepStart, a fine-tune no better than its base on dev reads as the base (the loop kept its start), and is counted; without, as recorded.
    const withDev = [
      { ...r(1, 'base', 0, 70), dev: 80 },
      { ...r(2, 'base', 0, 72), dev: 80 },
      { ...r(1, 'random', 0.02, 74), dev: 79 },
      { ...r(2, 'random', 0.02, 73), dev: 81 },
    ];
    const opts = { budgets: [0.02], train: ['doubt' as const], travel: false, finetune: { keepStart: true } };
    const all = [...withDev, r(1, 'oracle', 0.02, 71), r(2, 'oracle', 0.02, 73), r(1, 'doubt', 0.02, 71), r(2, 'doubt', 0.02, 73)];
    const [k] = summarize(all, opts, ['s']);
    expect(k.budgets[0].random).toMatchObject({ gain: 0.5, std: 0.71 });
    expect(k.budgets[0].arms.random).toEqual({ gain: 0.5, std: 0.71, seeds: 2, kept: 1 });
    expect(summarize(all, { ...opts, finetune: { keepStart: false } }, ['s'])[0].budgets[0].arms.random).toEqual({ gain: 2.5, std: 2.12, seeds: 2, kept: 0 });
    expect(summarize(shared, { budgets: [0.02], train: ['doubt'], travel: false }, ['s'])[0].budgets[0].random.gain).toBeCloseTo((0.5 + 0.5 + 10) / 3, 2);
  });
});
