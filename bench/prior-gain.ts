/**
 * A prior that travels, measured run for run: each setting of an experiment whose name is a base
 * setting's plus " + <prior>" (bench/configs/public-gazetteers.json, starter-model.json), against the
 * same method and seed on the base setting (bench/results/corpora.jsonl), on dev and test; and the
 * leave-one-corpus-out decision: keep the prior for a corpus when the other corpora's mean dev
 * gain is positive (each corpus's settings averaged first).
 *
 *   npx tsx bench/prior-gain.ts bench/results/starter-model.jsonl [bench/results/corpora.jsonl ...]
 *
 * Records made before a change of the base runs (twitter's before the hashtag lookup) compare with
 * the base runs of their day: name that file first (bench/results/withdrawn/).
 */
import { readFileSync } from 'node:fs';

interface Rec {
  setting: string;
  label: string;
  seed: number;
  dev?: { f1: number };
  test: { f1: number };
}
const read = (f: string): Rec[] =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Rec);
const [withFile, ...baseFiles] = process.argv.slice(2);
if (!withFile) throw new Error('usage: npx tsx bench/prior-gain.ts RECORDS.jsonl [BASE.jsonl ...]');
const withPrior = read(withFile);
// Several base files: the first that holds a setting, method and seed gives its base run.
const base = (baseFiles.length ? baseFiles : ['bench/results/corpora.jsonl']).flatMap(read);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const std = (xs: number[]) => (xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean(xs)) ** 2, 0) / (xs.length - 1)) : 0);
const ms = (xs: number[]) => `${mean(xs).toFixed(2)} ± ${std(xs).toFixed(2)}`;
// The base setting of "<base> + <prior>": the longest base setting name it starts with ("bc5cdr core +
// train names + word dropout 0.1" is "bc5cdr core + train names"'s, not "bc5cdr core"'s).
const baseSettings = [...new Set(base.map((b) => b.setting))].sort((a, b) => b.length - a.length);
const baseOf = (setting: string) => baseSettings.find((b) => setting.startsWith(`${b} + `)) ?? setting.split(' + ')[0];
// Settings that share a corpus (conll03 1k and 3k; bc5cdr core and core + train names) are one corpus:
// left out together, and averaged before the other corpora's mean.
const datasets = new Map(
  (JSON.parse(readFileSync('bench/configs/corpora.json', 'utf8')) as { settings: { name: string; dataset?: string }[] }).settings.map((s) => [
    s.name,
    s.dataset ?? s.name,
  ]),
);
const corpusOf = (setting: string) => datasets.get(setting) ?? setting;

/** The other corpora's mean dev gain: each corpus's settings averaged first, then the corpora. */
function otherCorporaGain(others: { corpus: string; devGain: number }[]): number {
  const byCorpus = new Map<string, number[]>();
  for (const x of others) byCorpus.set(corpusOf(x.corpus), [...(byCorpus.get(corpusOf(x.corpus)) ?? []), x.devGain]);
  return mean([...byCorpus.values()].map(mean));
}

const rows: { corpus: string; setting: string; label: string; devGain: number; testGain: number; line: string }[] = [];
const groups = new Map<string, Rec[]>();
for (const r of withPrior) groups.set(`${r.setting}\t${r.label}`, [...(groups.get(`${r.setting}\t${r.label}`) ?? []), r]);
for (const [key, recs] of groups) {
  const [setting, label] = key.split('\t');
  const baseName = baseOf(setting);
  const pairs = recs
    .map((r) => ({ r, b: base.find((b) => b.setting === baseName && b.label === label && b.seed === r.seed) }))
    .filter((p): p is { r: Rec; b: Rec } => !!p.b && p.r.dev !== undefined && p.b.dev !== undefined);
  if (!pairs.length) continue;
  const dev = (x: Rec) => x.dev!.f1;
  const devGain = mean(pairs.map((p) => dev(p.r) - dev(p.b)));
  const testGain = mean(pairs.map((p) => p.r.test.f1 - p.b.test.f1));
  rows.push({
    corpus: baseName,
    setting,
    label,
    devGain,
    testGain,
    line: `| ${setting} | ${label} | ${pairs.length} | ${ms(pairs.map((p) => dev(p.b)))} → ${ms(pairs.map((p) => dev(p.r)))} | ${devGain >= 0 ? '+' : ''}${devGain.toFixed(2)} | ${ms(pairs.map((p) => p.b.test.f1))} → ${ms(pairs.map((p) => p.r.test.f1))} | ${testGain >= 0 ? '+' : ''}${testGain.toFixed(2)} |`,
  });
}
console.log('| setting | method | seeds | dev F1 without → with | dev gain | test F1 without → with | test gain |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r.line);
// Leave one corpus out, per prior (the setting's suffix) and method: the other corpora's mean dev gain decides.
console.log('\n| setting | method | other corpora’s mean dev gain | kept | its test gain |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows) {
  const prior = r.setting.slice(r.corpus.length);
  const others = rows.filter((x) => x.label === r.label && x.setting.endsWith(prior) && corpusOf(x.corpus) !== corpusOf(r.corpus));
  if (!others.length) continue;
  const g = otherCorporaGain(others);
  console.log(
    `| ${r.setting} | ${r.label} | ${g >= 0 ? '+' : ''}${g.toFixed(2)} (${others.map((x) => x.corpus).join(', ')}) | ${g > 0 ? 'yes' : 'no'} | ${g > 0 ? `${r.testGain >= 0 ? '+' : ''}${r.testGain.toFixed(2)}` : '0 (not used)'} |`,
  );
}

// The leave-one-corpus-out choice with the prior where the rule keeps it: per seed, the best on the
// corpus's own dev among the base setting's trained rows, each row read with the prior where the rule
// keeps it for that row's method (the other corpora's mean dev gain of that method with the prior), as
// `experiment --loco` chooses. Rows of a method never run with the prior read without it.
console.log('\n| setting | methods the rule keeps the prior for | the best row on its own dev, per seed: test F1 | seeds |');
console.log('| --- | --- | --- | --- |');
for (const suffix of new Set(rows.map((r) => r.setting.slice(r.corpus.length)))) {
  for (const corpus of new Set(rows.filter((r) => r.setting.endsWith(suffix)).map((r) => r.corpus))) {
    const labels = [...new Set(base.filter((b) => b.setting === corpus && b.seed > 0 && b.dev).map((b) => b.label))];
    const seeds = [...new Set(base.filter((b) => b.setting === corpus && b.seed > 0).map((b) => b.seed))].sort();
    const keptFor = labels.filter((label) => {
      const decided = rows.filter((x) => x.setting.endsWith(suffix) && corpusOf(x.corpus) !== corpusOf(corpus) && x.label === label);
      return decided.length > 0 && otherCorporaGain(decided) > 0;
    });
    // Each kept method must have run with the prior here on every seed, or the choice mixes runs with and without it.
    const missing = keptFor.filter((label) =>
      seeds.some((seed) => !withPrior.some((r) => r.setting === corpus + suffix && r.label === label && r.seed === seed)),
    );
    const kept = keptFor.length ? keptFor.join('; ') : 'none';
    if (missing.length) {
      console.log(`| ${corpus + suffix} | ${kept} | not measured: ${missing.join('; ')} has not run with it on every seed | |`);
      continue;
    }
    const tests: number[] = [];
    for (const seed of seeds) {
      const cands = labels.map((label) =>
        keptFor.includes(label)
          ? withPrior.find((r) => r.setting === corpus + suffix && r.label === label && r.seed === seed)
          : base.find((b) => b.setting === corpus && b.label === label && b.seed === seed),
      );
      if (cands.some((c) => !c?.dev)) continue;
      const best = cands.reduce((a, b) => (b!.dev!.f1 > a!.dev!.f1 ? b : a))!;
      tests.push(best.test.f1);
    }
    if (tests.length) console.log(`| ${corpus + suffix} | ${kept} | ${ms(tests)} | ${tests.length} |`);
  }
}

// The prior switched by the corpus's own dev instead: per seed, every trained row with and without
// the prior is a candidate, and the best on the corpus's dev is read on test. A prior with no type
// of its own in a corpus (the starter's PER/LOC/ORG/MISC on chemicals and diseases) is then dropped
// where that corpus's dev says so, which the other corpora's dev cannot know.
console.log('\n| setting | the best row on its own dev, with or without the prior, per seed: test F1 | seeds | chose the prior on |');
console.log('| --- | --- | --- | --- |');
for (const suffix of new Set(rows.map((r) => r.setting.slice(r.corpus.length)))) {
  for (const corpus of new Set(rows.filter((r) => r.setting.endsWith(suffix)).map((r) => r.corpus))) {
    const labels = [...new Set(base.filter((b) => b.setting === corpus && b.seed > 0 && b.dev).map((b) => b.label))];
    const seeds = [...new Set(base.filter((b) => b.setting === corpus && b.seed > 0).map((b) => b.seed))].sort();
    const tests: number[] = [];
    let withIt = 0;
    for (const seed of seeds) {
      const plain = labels.map((label) => base.find((b) => b.setting === corpus && b.label === label && b.seed === seed));
      if (plain.some((c) => !c?.dev)) continue;
      const prior = withPrior.filter((r) => r.setting === corpus + suffix && r.seed === seed && r.dev);
      const best = [...plain, ...prior].reduce((a, b) => (b!.dev!.f1 > a!.dev!.f1 ? b : a))!;
      tests.push(best.test.f1);
      if (prior.includes(best)) withIt++;
    }
    if (tests.length) console.log(`| ${corpus + suffix} | ${ms(tests)} | ${tests.length} | ${withIt} of ${tests.length} seeds |`);
  }
}
