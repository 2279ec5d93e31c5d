/**
 * A prior that travels, measured run for run: each setting of an experiment whose name is a base
 * setting's plus " + <prior>" (bench/configs/public-gazetteers.json, starter-model.json), against the
 * same method and seed on the base setting (bench/results/corpora.jsonl), on dev and test; and the
 * leave-one-corpus-out decision: keep the prior for a corpus when the other corpora's mean dev
 * gain is positive (each corpus's settings averaged first).
 *
 *   npx tsx bench/prior-gain.ts bench/results/starter-model.jsonl [bench/results/corpora.jsonl]
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
const [withFile, baseFile = 'bench/results/corpora.jsonl'] = process.argv.slice(2);
if (!withFile) throw new Error('usage: npx tsx bench/prior-gain.ts RECORDS.jsonl [BASE.jsonl]');
const withPrior = read(withFile);
const base = read(baseFile);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const std = (xs: number[]) => (xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean(xs)) ** 2, 0) / (xs.length - 1)) : 0);
const ms = (xs: number[]) => `${mean(xs).toFixed(2)} ± ${std(xs).toFixed(2)}`;

const rows: { corpus: string; setting: string; label: string; devGain: number; testGain: number; line: string }[] = [];
const groups = new Map<string, Rec[]>();
for (const r of withPrior) groups.set(`${r.setting}\t${r.label}`, [...(groups.get(`${r.setting}\t${r.label}`) ?? []), r]);
for (const [key, recs] of groups) {
  const [setting, label] = key.split('\t');
  const baseName = setting.split(' + ')[0];
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
  const others = rows.filter((x) => x.label === r.label && x.setting.endsWith(prior) && x.corpus !== r.corpus);
  if (!others.length) continue;
  const g = mean(others.map((x) => x.devGain));
  console.log(
    `| ${r.setting} | ${r.label} | ${g >= 0 ? '+' : ''}${g.toFixed(2)} (${others.map((x) => x.corpus).join(', ')}) | ${g > 0 ? 'yes' : 'no'} | ${g > 0 ? `${r.testGain >= 0 ? '+' : ''}${r.testGain.toFixed(2)}` : '0 (not used)'} |`,
  );
}
