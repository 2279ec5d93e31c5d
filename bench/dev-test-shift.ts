/**
 * Does a corpus's dev set choose for its test set? Per type, the share of gold mentions in dev and
 * in test, and, over the recorded runs of a setting, how often a row that beats another on dev
 * (same seed) beats it on test too. Written for twitter, whose dev and test disagree (WNUT-16's
 * test tweets come from another period than its dev's).
 *
 * Last, one type's mentions (--type, company by default) on dev and test: how many strings the
 * distant training labels matched, and how many the public brands list holds.
 *
 *   npx tsx bench/dev-test-shift.ts [--data ../shared/data] [--corpus twitter-distant] [--setting twitter] [--records bench/results/corpora.jsonl] [--type company]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseRunRecords } from '../src/core/runRecord';
import { tagsToSpans } from '../src/core/tagScheme';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data' },
    corpus: { type: 'string', default: 'twitter-distant' },
    setting: { type: 'string', default: 'twitter' },
    records: { type: 'string', default: 'bench/results/corpora.jsonl' },
    type: { type: 'string', default: 'company' },
  },
});
const counts = (file: string) => {
  const lines = readFileSync(join(values.data!, values.corpus!, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const byType = new Map<string, number>();
  for (const tag of lines.flatMap((l) => l.trim().split(/\s+/))) if (tag.startsWith('B-')) byType.set(tag.slice(2), (byType.get(tag.slice(2)) ?? 0) + 1);
  return { sentences: lines.length, byType, mentions: [...byType.values()].reduce((a, b) => a + b, 0) };
};
const dev = counts('valid_label_true.txt');
const test = counts('test_label_true.txt');
const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)} %`;
console.log(
  `${values.corpus}: dev ${dev.mentions} mentions in ${dev.sentences} sentences (${(dev.mentions / dev.sentences).toFixed(2)} a sentence), test ${test.mentions} in ${test.sentences} (${(test.mentions / test.sentences).toFixed(2)})\n`,
);
console.log('| type | share of dev mentions | share of test mentions |');
console.log('| --- | --- | --- |');
for (const t of [...test.byType.keys()].sort((a, b) => test.byType.get(b)! - test.byType.get(a)!))
  console.log(`| ${t} | ${pct(dev.byType.get(t) ?? 0, dev.mentions)} | ${pct(test.byType.get(t)!, test.mentions)} |`);

const recs = parseRunRecords(values.records!, readFileSync(values.records!, 'utf8')).filter((r) => r.setting === values.setting && r.seed > 0 && r.dev);
let agree = 0;
let pairs = 0;
const devGains: number[] = [];
const testGains: number[] = [];
for (const a of recs)
  for (const b of recs) {
    if (a.seed !== b.seed || a.label >= b.label) continue;
    pairs++;
    const dd = a.dev!.f1 - b.dev!.f1;
    const dt = a.test.f1 - b.test.f1;
    if (Math.sign(dd) === Math.sign(dt)) agree++;
    devGains.push(dd);
    testGains.push(dt);
  }
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const md = mean(devGains);
const mt = mean(testGains);
const cov = mean(devGains.map((d, i) => (d - md) * (testGains[i] - mt)));
const sd = (xs: number[], m: number) => Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
console.log(
  `\n${values.setting}: ${recs.length} trained runs; of ${pairs} pairs of rows on the same seed, dev and test order them the same way in ${agree} (${pct(agree, pairs)}); correlation of the dev and test differences ${(cov / (sd(devGains, md) * sd(testGains, mt))).toFixed(2)}`,
);

// One type's mentions on dev and test: how many the distant training labels matched (the
// dictionary the suite's settings read), and how many the public brands list holds (exact string,
// a leading "#" dropped). For twitter's company: what its test holds that dev cannot show.
const mentions = (textFile: string, labelFile: string) => {
  const read = (f: string) =>
    readFileSync(join(values.data!, values.corpus!, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => l.trim().split(/\s+/));
  const texts = read(textFile);
  return read(labelFile).flatMap((tags, s) => tagsToSpans(tags).map((x) => ({ type: x.label, phrase: texts[s].slice(x.start, x.end).join(' ') })));
};
const matched = new Set(mentions('train_text.txt', 'train_label_dist.txt').map((m) => m.phrase));
const brands = new Set(
  readFileSync(new URL('../public/gazetteers/brands.txt', import.meta.url), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean),
);
const type = values.type!;
console.log(`\n| split | ${type} mentions | their string matched by the distant training labels | held by the brands list |`);
console.log('| --- | --- | --- | --- |');
for (const [split, t, l] of [
  ['dev', 'valid_text.txt', 'valid_label_true.txt'],
  ['test', 'test_text.txt', 'test_label_true.txt'],
] as const) {
  const ms = mentions(t, l).filter((m) => m.type === type);
  const inDist = ms.filter((m) => matched.has(m.phrase)).length;
  const inBrands = ms.filter((m) => brands.has(m.phrase) || brands.has(m.phrase.replace(/^#/, ''))).length;
  console.log(`| ${split} | ${ms.length} | ${inDist} | ${inBrands} |`);
  if (split === 'test') {
    const counts = new Map<string, number>();
    for (const m of ms) counts.set(m.phrase, (counts.get(m.phrase) ?? 0) + 1);
    const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(
      `\ntest's most frequent ${type} strings: ${top.map(([p, n]) => `${p} ${n}${brands.has(p) ? ' (brands)' : ''}${matched.has(p) ? ' (distant)' : ''}`).join(', ')}`,
    );
  }
}
