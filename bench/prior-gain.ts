/**
 * A prior that travels, measured run for run: each setting of an experiment whose name is a base
 * setting's plus " + <prior>" (bench/configs/word-dropout.json, starter-model.json, ...), against the
 * same method and seed on the base setting (bench/results/corpora.jsonl), on dev and test; the
 * leave-one-corpus-out rule with the prior (`experiment --loco`'s, src/core/loco.ts: kept for a row
 * where the other corpora's mean dev gain of that row with it is positive, each corpus's settings
 * averaged first); and the prior switched by each corpus's own dev instead.
 *
 *   npx tsx bench/prior-gain.ts bench/results/starter-model.jsonl [bench/results/corpora.jsonl ...]
 *   npx tsx bench/prior-gain.ts bench/results/weight-average.jsonl --over bench/results/word-dropout.jsonl
 *
 * With --over, the prior is run on top of another ("word dropout 0.1 + weight average 0.99" on
 * "word dropout 0.1"): its runs are compared with that prior's, and the rule reads the two stacked
 * (loco.ts: kept only where the prior under it is kept).
 *
 * Records made before a change of the base runs (twitter's before the hashtag lookup) compare with
 * the base runs of their day: name that file first (bench/results/withdrawn/).
 */
import { loadExperimentConfig, locoReport, priorsOfRecords, readRecords, type RunRecord } from '../src/cli/experiment';
import { readConfigJson } from '../src/cli/dataFolder';
import type { LocoRecord } from '../src/core/loco';

const args = process.argv.slice(2);
const overAt = args.indexOf('--over');
const overFile = overAt >= 0 ? args[overAt + 1] : undefined;
if (overAt >= 0) args.splice(overAt, 2);
const [withFile, ...baseFiles] = args;
if (!withFile || (overAt >= 0 && !overFile)) throw new Error('usage: npx tsx bench/prior-gain.ts RECORDS.jsonl [--over PRIOR.jsonl] [BASE.jsonl ...]');
const SUITE = 'bench/configs/corpora.json';
const { exp } = loadExperimentConfig(SUITE, readConfigJson(SUITE));
// Several base files: the first that holds a setting, method and seed gives its base run.
const base: RunRecord[] = [];
for (const r of (baseFiles.length ? baseFiles : ['bench/results/corpora.jsonl']).flatMap(readRecords))
  if (!base.some((b) => b.setting === r.setting && b.label === r.label && b.seed === r.seed)) base.push(r);
const names = exp.settings.map((s) => s.name);
const under = overFile ? priorsOfRecords(readRecords(overFile), names)[0] : undefined;
const priors = priorsOfRecords(readRecords(withFile), names).map((p) => {
  if (!under) return p;
  if (!p.name.startsWith(`${under.name} + `)) throw new Error(`${withFile}: ${p.name} is not "${under.name} + <a prior>"`);
  return { ...p, over: under.name };
});
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const std = (xs: number[]) => (xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean(xs)) ** 2, 0) / (xs.length - 1)) : 0);
const ms = (xs: number[]) => `${mean(xs).toFixed(2)} ± ${std(xs).toFixed(2)}`;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
// A stacked prior's runs compare with the runs of the prior under it.
const baseRun = (r: LocoRecord) => (under?.records ?? base).find((b) => b.setting === r.setting && b.label === r.label && b.seed === r.seed);

console.log('| setting | method | seeds | dev F1 without → with | dev gain | test F1 without → with | test gain |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const prior of priors)
  for (const key of new Set(prior.records.map((r) => `${r.setting}\t${r.label}`))) {
    const [setting, label] = key.split('\t');
    const pairs = prior.records
      .filter((r) => r.setting === setting && r.label === label)
      .flatMap((r) => {
        const b = baseRun(r);
        return b?.dev && r.dev ? [{ r, b }] : [];
      });
    if (!pairs.length) continue;
    const dev = (x: LocoRecord) => x.dev!.f1;
    console.log(
      `| ${setting} + ${prior.name}${under ? ` (against ${under.name})` : ''} | ${label} | ${pairs.length} | ${ms(pairs.map((p) => dev(p.b)))} → ${ms(pairs.map((p) => dev(p.r)))} | ${signed(mean(pairs.map((p) => dev(p.r) - dev(p.b))))} | ${ms(pairs.map((p) => p.b.test.f1))} → ${ms(pairs.map((p) => p.r.test.f1))} | ${signed(mean(pairs.map((p) => p.r.test.f1 - p.b.test.f1)))} |`,
    );
  }

// The leave-one-corpus-out rule with the prior, as `experiment --loco` reads `loco.priors`.
console.log('\n| setting | the rule keeps the prior for (other corpora’s dev gain) | leave-one-corpus-out choice: test F1 |');
console.log('| --- | --- | --- |');
for (const prior of priors) {
  const { corpora } = locoReport(exp, base, under ? [under, prior] : [prior]);
  for (const c of corpora) {
    if (!prior.records.some((r) => r.setting === c.name)) continue;
    const p = c.priors?.[under ? 1 : 0];
    const figure = c.loco ? `${c.loco.mean.toFixed(2)} ± ${c.loco.std.toFixed(2)} (${c.loco.seeds.length})` : `not measured: ${c.notMeasured ?? 'no choice'}`;
    console.log(`| ${c.name} + ${prior.name} | ${p?.rows.length ? p.rows.join('; ') : 'none'} (${p?.why ?? 'no other corpus ran it'}) | ${figure} |`);
  }
}

// The prior switched by the corpus's own dev instead: per seed, every trained row with and without
// the prior is a candidate, and the best on the corpus's dev is read on test. A prior with no type
// of its own in a corpus (the starter's PER/LOC/ORG/MISC on chemicals and diseases) is then dropped
// where that corpus's dev says so, which the other corpora's dev cannot know.
console.log('\n| setting | the best row on its own dev, with or without the prior, per seed: test F1 | seeds | chose the prior on |');
console.log('| --- | --- | --- | --- |');
for (const prior of priors)
  for (const setting of new Set(prior.records.map((r) => r.setting))) {
    const labels = [...new Set(base.filter((b) => b.setting === setting && b.seed > 0 && b.dev).map((b) => b.label))];
    const seeds = [...new Set(base.filter((b) => b.setting === setting && b.seed > 0).map((b) => b.seed))].sort();
    const tests: number[] = [];
    let withIt = 0;
    let withUnder = 0;
    for (const seed of seeds) {
      const plain = labels.map((label) => base.find((b) => b.setting === setting && b.label === label && b.seed === seed));
      if (plain.some((c) => !c?.dev)) continue;
      const withPrior = [...(under?.records ?? []), ...prior.records].filter((r) => r.setting === setting && r.seed === seed && r.dev);
      const best = [...plain, ...withPrior].reduce<LocoRecord | undefined>((a, b) => (b!.dev!.f1 > a!.dev!.f1 ? b : a), plain[0])!;
      tests.push(best.test.f1);
      // With --over, a run of the prior under this one alone is no vote for this one.
      if (prior.records.includes(best as RunRecord)) withIt++;
      else if (withPrior.includes(best)) withUnder++;
    }
    const alone = under ? ` (${under.name} alone on ${withUnder})` : '';
    if (tests.length) console.log(`| ${setting} + ${prior.name} | ${ms(tests)} | ${tests.length} | ${withIt} of ${tests.length} seeds${alone} |`);
  }
