/**
 * A distant setting's dictionary (the distinct strings its distant training labels matched) read
 * on dev in each case mode: how many spans it matches, how many are gold mentions (span and type,
 * or span alone), precision and recall of the spans. What reading the dictionary case-insensitively
 * would give a model's dictionary features, without training one.
 *   npx tsx bench/dictionary-case.ts DIR TRAIN_TEXT TRAIN_LABELS DEV_TEXT DEV_LABELS
 *   npx tsx bench/dictionary-case.ts ../shared/data/twitter-distant train_text.txt train_label_dist.txt valid_text.txt valid_label_true.txt
 */
import { readFileSync } from 'node:fs';
import { lexiconFromSpans, lexiconMatcher, makeLexicon } from '../src/core/lexicon';
import { tagsToSpans } from '../src/core/tagScheme';
const D = process.argv[2];
const [trainT, trainL, devT, devL] = process.argv.slice(3);
const read = (t: string, l: string) => {
  const T = readFileSync(`${D}/${t}`, 'utf8')
    .split('\n')
    .filter((x) => x.trim());
  const L = readFileSync(`${D}/${l}`, 'utf8')
    .split('\n')
    .filter((x) => x.trim());
  return T.map((x, i) => ({ words: x.trim().split(/ +/), spans: tagsToSpans(L[i].trim().split(/ +/)) }));
};
const train = read(trainT, trainL);
const dev = read(devT, devL);
const entries = lexiconFromSpans(train);
for (const mode of ['sensitive', 'insensitive', 'normalized'] as const) {
  const m = lexiconMatcher(makeLexicon([{ mode, entries }]));
  const lex = makeLexicon([{ mode, entries }]);
  let tp = 0,
    pred = 0,
    gold = 0,
    tpAny = 0;
  for (const s of dev) {
    const ms = m(s.words);
    const key = (a: number, b: number, t: string) => `${a}:${b}:${t}`;
    const g = new Set(s.spans.map((x) => key(x.start, x.end, x.label)));
    const gAny = new Set(s.spans.map((x) => `${x.start}:${x.end}`));
    gold += g.size;
    const p = new Set(ms.map((x) => key(x.start, x.end, lex.types[x.type])));
    const pAny = new Set(ms.map((x) => `${x.start}:${x.end}`));
    pred += pAny.size;
    for (const k of p) if (g.has(k)) tp++;
    for (const k of pAny) if (gAny.has(k)) tpAny++;
  }
  console.log(
    mode,
    'entries',
    entries.length,
    'matched spans',
    pred,
    'gold',
    gold,
    'typed exact',
    tp,
    'span exact',
    tpAny,
    'P(span)',
    (tpAny / pred).toFixed(3),
    'R(span)',
    (tpAny / gold).toFixed(3),
  );
}
