/**
 * bc5cdr core's weak labels with the abbreviations the text defines read into them
 * (src/core/weak/abbreviations.ts), against without: span P / R / F1 on dev (the HMM fitted on
 * train_raw.txt decodes dev, as in `studio experiment`) for each `following` window, the source's
 * spans added, then test for the window dev chose (and none). Needs the data folder.
 *   npx tsx bench/abbreviations.ts
 */
import { join } from 'node:path';
import { dataFolder } from '../src/cli/dataFolder';
import { readCorpus } from '../src/cli/readCorpus';
import { weakLabelCorpus } from '../src/cli/weakLabel';
import { scoreSpans } from '../src/core/metrics';

const D = join(dataFolder(), 'bc5cdr');
const WINDOWS = [null, 0, 5, 10, 20, 40] as const;
const goldOf = (file: string) => readCorpus(file, { format: 'conll' }).layers[0].annotations.map((a) => a.spans);
const pct = (x: number) => (100 * x).toFixed(2);
const sources = {
  gazetteers: [`${D}/dict_core.txt`],
  untyped: [],
  rules: 'bench/configs/bc5cdr-rules.json',
  mode: 'insensitive' as const,
  method: 'hmm' as const,
};

function label(split: string, following: number | null) {
  const abbreviations = following === null ? {} : { abbreviations: { following } };
  const h = weakLabelCorpus({ corpus: `${D}/train_raw.txt`, ...sources, ...abbreviations }).result.hmm!;
  return weakLabelCorpus({ corpus: `${D}/${split}.conll`, ...sources, ...abbreviations, hmm: h, types: h.types }).result;
}

function row(split: string, following: number | null, gold: ReturnType<typeof goldOf>) {
  const r = label(split, following);
  const s = scoreSpans(
    gold,
    r.aggregate.map((a) => a.spans),
  ).overall;
  console.log(`| ${split} | ${following === null ? 'off' : following} | ${pct(s.precision)} | ${pct(s.recall)} | ${pct(s.f1)} | ${r.abbreviated} |`);
  return s.f1;
}

console.log('| split | abbreviations (following documents) | P | R | F1 | spans added |\n| --- | --- | --- | --- | --- | --- |');
const dev = goldOf(`${D}/dev.conll`);
const scores = WINDOWS.map((w) => ({ w, f1: row('dev', w, dev) }));
const best = scores.reduce((a, b) => (b.f1 > a.f1 ? b : a));
const test = goldOf(`${D}/test.conll`);
row('test', null, test);
if (best.w !== null) row('test', best.w, test);
console.log(`\ndev chose: ${best.w === null ? 'off' : `following ${best.w}`}`);
