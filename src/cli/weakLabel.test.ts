import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadExperimentConfig, loadSetting } from './experiment';
import { readCorpus } from './readCorpus';
import { weakLabelCorpus } from './weakLabel';

const fixtures = resolve('fixtures/data');
const bc5cdr = (labelModelText?: 'train' | 'all') => ({
  kind: 'dictionary',
  name: 'bc',
  corpus: '$data/bc5cdr/train_raw.txt',
  gazetteers: ['$data/bc5cdr/dict_core.txt'],
  untyped: ['$data/bc5cdr/dict_full_train.txt'],
  aggregate: 'hmm',
  dev: { conll: '$data/bc5cdr/dev.conll' },
  test: { conll: '$data/bc5cdr/test.conll' },
  ...(labelModelText ? { labelModelText } : {}),
});
const setting = (labelModelText?: 'train' | 'all') =>
  loadExperimentConfig(
    't.json',
    { name: 't', settings: [bc5cdr(labelModelText)], methods: [{ label: 'w', method: { name: 'wsl' } }], records: 'r.jsonl' },
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
