/**
 * bc5cdr core's label models on the dev sentences that select models (the first 1,500; the HMM
 * fitted on train_raw.txt decodes them, as in `studio experiment`), for every subset of the three
 * suffix rules beside dict_core: span P / R / F1 of the weak labels, and each rule's own precision.
 * What "The label model chosen on dev" in BENCHMARKS.md quotes. Needs the data folder.
 *   npx tsx bench/label-model-sources.ts
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataFolder } from '../src/cli/dataFolder';
import { readCorpus } from '../src/cli/readCorpus';
import { weakLabelCorpus } from '../src/cli/weakLabel';
import { scoreSpans } from '../src/core/metrics';
import { LABEL_MODEL_ORDER } from '../src/core/weak/aggregate';

const D = join(dataFolder(), 'bc5cdr');
const DEV = 1500;
const rules = JSON.parse(readFileSync('bench/configs/bc5cdr-rules.json', 'utf8')) as { name: string }[];
const gold = readCorpus(`${D}/dev.conll`, { format: 'conll' })
  .layers[0].annotations.slice(0, DEV)
  .map((a) => a.spans);
const dir = mkdtempSync(join(tmpdir(), 'label-model-sources-'));
const pct = (x: number) => (100 * x).toFixed(2);
console.log('| rules beside dict_core | label model | dev P | dev R | dev F1 |\n| --- | --- | --- | --- | --- |');
let last: ReturnType<typeof weakLabelCorpus> | undefined;
for (let mask = 0; mask < 1 << rules.length; mask++) {
  const kept = rules.filter((_, k) => mask & (1 << k));
  const file = join(dir, `rules-${mask}.json`);
  writeFileSync(file, JSON.stringify(kept));
  for (const method of LABEL_MODEL_ORDER) {
    const sources = { gazetteers: [`${D}/dict_core.txt`], untyped: [], rules: file, mode: 'insensitive' as const, method };
    const h = weakLabelCorpus({ corpus: `${D}/train_raw.txt`, ...sources }).result.hmm;
    const dev = weakLabelCorpus({ corpus: `${D}/dev.conll`, ...sources, ...(h ? { hmm: h, types: h.types } : {}) });
    const s = scoreSpans(
      gold,
      dev.result.aggregate.slice(0, DEV).map((a) => a.spans),
    ).overall;
    console.log(`| ${kept.map((r) => r.name).join(' + ') || 'none'} | ${method} | ${pct(s.precision)} | ${pct(s.recall)} | ${pct(s.f1)} |`);
    last = dev;
  }
}
// The sources' own precision on the same sentences (the last labeling had every rule).
console.log('\n| source | spans | dev P | dev R |\n| --- | --- | --- | --- |');
for (const src of last!.result.sources) {
  const s = scoreSpans(gold, src.spans.slice(0, DEV)).overall;
  console.log(`| ${src.name} | ${src.spans.slice(0, DEV).reduce((a, x) => a + x.length, 0)} | ${pct(s.precision)} | ${pct(s.recall)} |`);
}
