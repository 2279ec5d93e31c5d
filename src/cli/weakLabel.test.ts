import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadExperimentConfig, loadSetting, readRecords, runExperiment, settingSources } from './experiment';
import { scoreSpans } from '../core/metrics';
import { tokenTexts } from '../core/types';
import { readCorpus } from './readCorpus';
import { VERBS } from './verbs';
import { weakLabelCorpus } from './weakLabel';
import { parseArgs } from 'node:util';

const fixtures = resolve('fixtures/data');
const bc5cdr = (labelModelText?: 'train' | 'all', more: Record<string, unknown> = {}) => ({
  kind: 'dictionary',
  name: 'bc',
  corpus: '$data/bc5cdr/train_raw.txt',
  gazetteers: ['$data/bc5cdr/dict_core.txt'],
  untyped: ['$data/bc5cdr/dict_full_train.txt'],
  aggregate: 'hmm',
  dev: { conll: '$data/bc5cdr/dev.conll' },
  test: { conll: '$data/bc5cdr/test.conll' },
  ...(labelModelText ? { labelModelText } : {}),
  ...more,
});
const setting = (labelModelText?: 'train' | 'all', more: Record<string, unknown> = {}) =>
  loadExperimentConfig(
    't.json',
    { name: 't', settings: [bc5cdr(labelModelText, more)], methods: [{ label: 'w', method: { name: 'wsl' } }], records: 'r.jsonl' },
    fixtures,
  ).exp.settings[0];

describe('the text the label model is fitted on', () => {
  it('is the training corpus by default; "all" fits the HMM on dev and test text too and labels the training corpus with it', () => {
    const [train, all] = [loadSetting(setting()), loadSetting(setting('all'))];
    expect(loadSetting(setting('train')).hmm).toEqual(train.hmm);
    expect(all.train.anns).toHaveLength(train.train.anns.length);
    expect(all.hmm).toBeDefined();
    expect(all.hmm).not.toEqual(train.hmm);
    // The same as fitting on the three texts at once and decoding the training text with that HMM.
    const s = bc5cdr();
    const sources = {
      gazetteers: [`${fixtures}/bc5cdr/dict_core.txt`],
      untyped: [`${fixtures}/bc5cdr/dict_full_train.txt`],
      mode: 'insensitive' as const,
      method: 'hmm' as const,
    };
    const [dev, test] = [s.dev.conll, s.test.conll].map((f) => readCorpus(f.replace('$data', fixtures), { format: 'conll' }));
    const direct = weakLabelCorpus({ corpus: `${fixtures}/bc5cdr/train_raw.txt`, ...sources, fitAlso: [dev, test] });
    expect(direct.result.hmm).toEqual(all.hmm);
    expect(direct.result.aggregate).toEqual(all.train.anns);
  });

  it('reads no gold: dev and test with their labels taken away give the same HMM', () => {
    const sources = { gazetteers: [`${fixtures}/bc5cdr/dict_core.txt`], untyped: [], mode: 'insensitive' as const, method: 'hmm' as const };
    const read = (f: string) => readCorpus(`${fixtures}/bc5cdr/${f}`, { format: 'conll' });
    const [dev, test] = [read('dev.conll'), read('test.conll')];
    const unlabeled = [dev, test].map((c) => ({ ...c, layers: [], types: [] }));
    const fit = (also: (typeof dev)[]) => weakLabelCorpus({ corpus: `${fixtures}/bc5cdr/train_raw.txt`, ...sources, fitAlso: also }).result.hmm;
    expect(fit(unlabeled)).toEqual(fit([dev, test]));
  });
});

describe("EM's iteration cap (a dictionary setting's hmmIterations)", () => {
  it('caps EM at 15 by default; a higher cap runs it until it settles, and the fit says so', () => {
    const [capped, settled] = [loadSetting(setting('all')), loadSetting(setting('all', { hmmIterations: 300 }))];
    expect(capped.hmm!.fit).toMatchObject({ cap: 15 });
    expect(settled.hmm!.fit).toMatchObject({ cap: 300, converged: true });
    expect(settled.hmm!.fit!.iterations).toBeLessThan(300);
    expect(settled.hmm!.fit!.iterations).toBeGreaterThan(capped.hmm!.fit!.iterations);
  });
});

describe('the label model chosen on dev (aggregate "dev")', () => {
  const devGold = readCorpus(`${fixtures}/bc5cdr/dev.conll`, { format: 'conll' }).layers[0].annotations;
  const rawF1 = (method: 'hmm' | 'priority' | 'vote', n: number) => {
    const sources = {
      gazetteers: [`${fixtures}/bc5cdr/dict_core.txt`],
      untyped: [`${fixtures}/bc5cdr/dict_full_train.txt`],
      mode: 'insensitive' as const,
      method,
    };
    const h = weakLabelCorpus({ corpus: `${fixtures}/bc5cdr/train_raw.txt`, ...sources }).result.hmm;
    const dev = weakLabelCorpus({ corpus: `${fixtures}/bc5cdr/dev.conll`, ...sources, ...(h ? { hmm: h, types: h.types } : {}) }).result.aggregate;
    const f1 = scoreSpans(
      devGold.slice(0, n).map((a) => a.spans),
      dev.slice(0, n).map((a) => a.spans),
    ).overall.f1;
    return Math.round(f1 * 10000) / 100;
  };

  it('scores each label model on the selecting dev sentences, keeps the best, and labels the training text with it', () => {
    const chosen = loadSetting(setting(undefined, { aggregate: 'dev', limitDev: 100 }));
    const lm = chosen.labelModel!;
    expect(lm.devSentences).toBe(100);
    for (const m of ['hmm', 'priority', 'vote'] as const) expect(lm.devF1[m]).toBe(rawF1(m, 100));
    const best = Math.max(...Object.values(lm.devF1));
    expect(lm.devF1[lm.method]).toBe(best);
    // A tie keeps the HMM, then priority.
    expect(['hmm', 'priority', 'vote'].find((m) => lm.devF1[m as 'hmm'] === best)).toBe(lm.method);
    const fixed = loadSetting(setting(undefined, { aggregate: lm.method, limitDev: 100 }));
    expect(chosen.train.anns).toEqual(fixed.train.anns);
    expect(chosen.hmm).toEqual(fixed.hmm);
    expect(settingSources(setting(undefined, { aggregate: 'dev' }) as never, chosen).method).toBe(lm.method);
  });

  it("a dictionary setting's weak-labels row scores dev as well as test, labeled as a model's dev text is", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weak-dev-'));
    const config = {
      name: 'w',
      settings: [bc5cdr()],
      methods: [{ label: 'weak labels, HMM fitted on train', method: { name: 'weak-labels', fit: 'train' } }],
      records: join(dir, 'r.jsonl'),
    };
    writeFileSync(join(dir, 'w.json'), JSON.stringify(config));
    await runExperiment(join(dir, 'w.json'), { data: fixtures, log: () => {} });
    const [r] = readRecords(config.records);
    expect(r.dev?.f1).toBe(rawF1('hmm', Infinity));
    expect(r.dev!.tp + r.dev!.fn).toBe(devGold.reduce((n, a) => n + a.spans.length, 0));
  });

  it('reads no test text, and a labeling before the choice is an error', () => {
    const a = loadSetting(setting(undefined, { aggregate: 'dev' }));
    const b = loadSetting(setting(undefined, { aggregate: 'dev', test: { conll: '$data/bc5cdr/dev.conll' } }));
    expect(b.labelModel).toEqual(a.labelModel);
    expect(() => settingSources(setting(undefined, { aggregate: 'dev' }) as never)).toThrow(
      /aggregate "dev" labels with the label model its loaded data chose/,
    );
  });
});

describe('abbreviations the text defines (a dictionary setting\'s "abbreviations")', () => {
  // The fixture's dictionary lists its abbreviations already ("CBZ"); a list of long forms alone
  // leaves theirs to the text ("chloroacetaldehyde" ending one line, "( CAA ) is ..." the next).
  const dir = mkdtempSync(join(tmpdir(), 'abbreviations-'));
  writeFileSync(join(dir, 'long.tsv'), 'Chemical\tchloroacetaldehyde\nChemical\tglutathione\nChemical\tCarbamazepine\n');
  const withLong = (more: Record<string, unknown>) => setting(undefined, { gazetteers: [join(dir, 'long.tsv')], untyped: [], ...more });
  const words = (d: ReturnType<typeof loadSetting>) =>
    d.train.anns.flatMap((a, k) => a.spans.map((s) => tokenTexts(d.train.corpus.docs[k]).slice(s.start, s.end).join(' '))).sort();

  it("add the abbreviations to the training text's weak labels, as labeling the text with them does; dev and test are labeled the same way", () => {
    const off = loadSetting(withLong({}));
    const on = loadSetting(withLong({ abbreviations: { following: 1 } }));
    const added = words(on).filter((w) => !/^(chloroacetaldehyde|glutathione|carbamazepine)$/i.test(w));
    expect(new Set(added)).toEqual(new Set(['CAA', 'CBZ']));
    // Only added: every span the weak labels had is still there.
    on.train.anns.forEach((a, k) => {
      for (const s of off.train.anns[k].spans) expect(a.spans).toContainEqual(s);
    });
    // Definitions across lines need a window: with none, only a definition inside one line counts.
    expect(words(loadSetting(withLong({ abbreviations: { following: 0 } }))).filter((w) => w === 'CAA')).toEqual([]);
    // Read after the label model: the HMM is fitted as without them.
    expect(on.hmm).toEqual(off.hmm);
    const sources = settingSources(withLong({ abbreviations: { following: 1 } }) as never);
    expect(sources.abbreviations).toEqual({ following: 1 });
    expect(weakLabelCorpus({ corpus: `${fixtures}/bc5cdr/train_raw.txt`, ...sources }).result.aggregate).toEqual(on.train.anns);
  });

  it('are checked when the config is read', () => {
    expect(() => setting(undefined, { abbreviations: { following: -1 } })).toThrow(/abbreviations/);
    expect(() => setting(undefined, { abbreviations: { window: 3 } })).toThrow(/abbreviations/);
  });
});

describe('abbreviations the text defines over distant labels (a distant setting\'s "abbreviations")', () => {
  const dir = mkdtempSync(join(tmpdir(), 'abbreviations-distant-'));
  const lines = (rows: string[][]) => rows.map((r) => r.join(' ')).join('\n');
  const text = [
    ['The', 'Kurdistan', 'Democratic', 'Party', '(', 'KDP', ')', 'said', '.'],
    ['KDP', 'leaders', 'met', 'in', 'Paris', '.'],
    ['Later', ',', 'KDP', 'agreed', '.'],
  ];
  const tags = [
    ['O', 'B-ORG', 'I-ORG', 'I-ORG', 'O', 'O', 'O', 'O', 'O'],
    ['O', 'O', 'O', 'O', 'B-LOC', 'O'],
    ['O', 'O', 'O', 'O', 'O'],
  ];
  writeFileSync(join(dir, 'train.txt'), lines(text));
  writeFileSync(join(dir, 'train_tags.txt'), lines(tags));
  writeFileSync(join(dir, 'dev.txt'), lines([text[1]]));
  writeFileSync(join(dir, 'dev_tags.txt'), lines([['B-ORG', 'O', 'O', 'O', 'B-LOC', 'O']]));
  const distant = (more: Record<string, unknown>) =>
    loadExperimentConfig(
      join(dir, 't.json'),
      {
        name: 't',
        settings: [
          {
            kind: 'distant',
            name: 'd',
            train: { text: 'train.txt', weak: 'train_tags.txt' },
            dev: { text: 'dev.txt', labels: 'dev_tags.txt' },
            test: { text: 'dev.txt', labels: 'dev_tags.txt' },
            ...more,
          },
        ],
        methods: [{ label: 'w', method: { name: 'wsl' } }],
        records: 'r.jsonl',
      },
      dir,
    ).exp.settings[0];
  const spans = (d: ReturnType<typeof loadSetting>) =>
    d.train.anns.map((a, k) => a.spans.map((s) => `${s.label}:${tokenTexts(d.train.corpus.docs[k]).slice(s.start, s.end).join(' ')}`));

  it('type the short form where the distant labels say O, in its sentence and the following ones; off, the labels are as read', () => {
    expect(spans(loadSetting(distant({})))).toEqual([['ORG:Kurdistan Democratic Party'], ['LOC:Paris'], []]);
    expect(spans(loadSetting(distant({ abbreviations: { following: 1 } })))).toEqual([
      ['ORG:Kurdistan Democratic Party', 'ORG:KDP'],
      ['ORG:KDP', 'LOC:Paris'],
      [],
    ]);
    expect(spans(loadSetting(distant({ abbreviations: { following: 2 } })))[2]).toEqual(['ORG:KDP']);
  });

  it('are checked when the config is read', () => {
    expect(() => distant({ abbreviations: { following: 'all' } })).toThrow(/abbreviations/);
  });
});

describe("the weak verb's --case-up-to", () => {
  const dir = mkdtempSync(join(tmpdir(), 'case-up-to-'));
  writeFileSync(join(dir, 'text.txt'), 'Mg and 5 mg of MG\n');
  writeFileSync(join(dir, 'g.tsv'), 'Chemical\tMg\nDisease\tMG\n');
  const run = (...more: string[]) =>
    VERBS.weak(['--corpus', join(dir, 'text.txt'), '--format', 'lines', '--gazetteer', join(dir, 'g.tsv'), ...more], parseArgs);
  it('lets short entries keep their case, and refuses a value that is no whole number from 1 to 10', async () => {
    const spans = async (...more: string[]) => ((await run(...more)).sources as { spans: number }[])[0].spans;
    expect(await spans()).toBe(3);
    expect(await spans('--case-up-to', '2')).toBe(2);
    await expect(run('--case-up-to', 'two')).rejects.toThrow(
      'weak: --case-up-to "two": short entries keep their case up to a whole number of characters from 1 to 10, not NaN',
    );
  });
});
