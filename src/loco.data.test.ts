/**
 * What the leave-one-corpus-out suite says of its data, checked on the whole files (`npm run
 * test:data`): a prior marked inert on a corpus because it changes nothing there changes nothing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadExperimentConfig, loadSetting } from './cli/experiment';
import { fullData } from './testing/data';

const config = (file: string) => loadExperimentConfig(file, JSON.parse(readFileSync(file, 'utf8')), fullData()).exp;

describe('the suite’s priors on the whole data', () => {
  it('the abbreviations the text defines add no distant span where corpora.json calls them inert, and some on conll03', () => {
    const suite = config('bench/configs/corpora.json');
    const entry = suite.loco!.priors!.find((p) => typeof p !== 'string' && p.config === 'abbreviations.json') as { inert: Record<string, string> };
    expect(Object.keys(entry.inert).sort()).toEqual(['twitter', 'webpage']);
    const spans = (s: (typeof suite.settings)[number], following?: number) => {
      const d = loadSetting({ ...s, ...(following === undefined ? {} : { abbreviations: { following } }) } as typeof s);
      const n = Math.min(d.train.anns.length, s.limitTrain ?? Infinity);
      return d.train.anns.slice(0, n).reduce((k, a) => k + a.spans.length, 0);
    };
    const following = config('bench/configs/abbreviations.json').settings.find((s) => s.kind === 'distant')!;
    const window = (following as { abbreviations: { following: number } }).abbreviations.following;
    const added = Object.fromEntries(suite.settings.filter((s) => s.kind === 'distant').map((s) => [s.name, spans(s, window) - spans(s)]));
    expect(added).toEqual({ 'conll03 distant 1k, no other text': 8, 'conll03 distant 3k, no other text': 27, twitter: 0, webpage: 0 });
  }, 120_000);
});
