/**
 * The figures behind "The abbreviations the text defines" in BENCHMARKS.md (needs the data folder):
 * - bc5cdr dev: the gold mentions that are the short form of a definition after a gold mention
 *   ("chloroacetaldehyde ( CAA )", the text read as one stream), and how many of them dict_core lacks;
 * - train_raw: definitions "( X )" whose parenthesis opens a line (the long form ends the line before);
 * - a table of the short forms the training text defines (bc5cdr core's weak labels, following 40)
 *   applied to dev where its weak labels say O: how many of those occurrences gold agrees with;
 * - conll03's and twitter's distant training labels with the abbreviations read: spans added, F1
 *   against gold where there is gold;
 * - the demo: spans added per split, by short form.
 *   npx tsx bench/abbreviation-analysis.ts
 */
import { demoCorpora, demoWeakSources, type DemoAsset } from '../src/core/demoAsset';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataFolder } from '../src/cli/dataFolder';
import { readCorpus } from '../src/cli/readCorpus';
import { weakLabelCorpus } from '../src/cli/weakLabel';
import { scoreSpans } from '../src/core/metrics';
import { tokenTexts } from '../src/core/types';
import { isShortForm, withAbbreviations } from '../src/core/weak/abbreviations';
import { WeakLabeler } from '../src/core/weak/pipeline';

const D = dataFolder();
const B = join(D, 'bc5cdr');
const pct = (x: number) => (100 * x).toFixed(2);

// 1. Dev gold: defined short forms, over the text read as one stream.
const dev = readCorpus(`${B}/dev.conll`, { format: 'conll' });
const toks = dev.docs.flatMap((d) => tokenTexts(d));
const offsets: number[] = [];
dev.docs.reduce((at, d) => (offsets.push(at), at + tokenTexts(d).length), 0);
const gold = dev.layers[0].annotations.flatMap((a, k) => a.spans.map((s) => ({ start: s.start + offsets[k], end: s.end + offsets[k], label: s.label })));
const endsAt = new Set(gold.map((s) => s.end));
const defined = new Set(
  gold.filter((s) => s.end - s.start === 1 && toks[s.start - 1] === '(' && toks[s.end] === ')' && endsAt.has(s.start - 1)).map((s) => toks[s.start]),
);
const dict = new Set(
  readFileSync(`${B}/dict_core.txt`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[1].toLowerCase()),
);
const asShort = gold.filter((s) => s.end - s.start === 1 && defined.has(toks[s.start]));
const lacking = asShort.filter((s) => !dict.has(toks[s.start].toLowerCase()));
console.log(
  `dev: ${gold.length} gold mentions; ${asShort.length} (${pct(asShort.length / gold.length)} %) are a short form the text defines after a gold mention (${defined.size} short forms); dict_core lacks ${lacking.length} of them`,
);

// 2. train_raw: definitions, and those whose parenthesis opens a line.
const lines = readFileSync(`${B}/train_raw.txt`, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => l.split(' '));
let inLine = 0;
let acrossLines = 0;
for (const t of lines)
  for (let i = 0; i + 2 < t.length; i++)
    if (t[i] === '(' && t[i + 2] === ')' && isShortForm(t[i + 1])) {
      if (i === 0) acrossLines++;
      else inLine++;
    }
console.log(`train_raw: "( X )" with X a short form: ${inLine + acrossLines}, ${acrossLines} of them opening a line`);

// 3. The training text's definitions as a table, applied to dev.
const sources = {
  gazetteers: [`${B}/dict_core.txt`],
  untyped: [],
  rules: 'bench/configs/bc5cdr-rules.json',
  mode: 'insensitive' as const,
  method: 'hmm' as const,
};
const train = weakLabelCorpus({ corpus: `${B}/train_raw.txt`, ...sources, abbreviations: { following: 40 } });
const plainTrain = weakLabelCorpus({ corpus: `${B}/train_raw.txt`, ...sources });
const table = new Map<string, string>();
train.result.aggregate.forEach((a, k) => {
  for (const s of a.spans)
    if (!plainTrain.result.aggregate[k].spans.some((x) => x.start === s.start && x.end === s.end)) table.set(train.docs[k].tokens[s.start], s.label);
});
const h = plainTrain.result.hmm!;
const devWeak = weakLabelCorpus({ corpus: `${B}/dev.conll`, ...sources, hmm: h, types: h.types });
let tried = 0;
let right = 0;
devWeak.result.aggregate.forEach((a, k) => {
  devWeak.docs[k].tokens.forEach((t, j) => {
    const label = table.get(t);
    if (!label || a.spans.some((s) => s.start <= j && j < s.end)) return;
    tried++;
    if (dev.layers[0].annotations[k].spans.some((s) => s.start === j && s.end === j + 1 && s.label === label)) right++;
  });
});
console.log(`the training text's ${table.size} defined short forms as a table, on dev where its weak labels say O: ${right} of ${tried} occurrences right`);

// 4. Distant labels with the abbreviations read.
for (const [name, dir, n] of [
  ['conll03 1k', 'conll03-distant', 1000],
  ['conll03 3k', 'conll03-distant', 3000],
  ['twitter', 'twitter-distant', Infinity],
] as const) {
  const hasGold = dir.startsWith('conll');
  const c = readCorpus(`${D}/${dir}/train_text.txt`, {
    format: 'lines',
    labels: [
      { file: `${D}/${dir}/train_label_dist.txt`, kind: 'weak', name: 'weak' },
      ...(hasGold ? [{ file: `${D}/${dir}/train_label_true.txt`, kind: 'gold' as const, name: 'gold' }] : []),
    ],
  });
  const docs = c.docs.slice(0, n).map((d) => ({ tokens: tokenTexts(d) }));
  const weak = c.layers.find((l) => l.kind === 'weak')!.annotations.slice(0, n);
  const r = withAbbreviations(docs, weak, { following: 40 });
  const g = c.layers.find((l) => l.kind === 'gold')?.annotations.slice(0, n);
  const f1 = (anns: typeof weak) =>
    pct(
      scoreSpans(
        g!.map((x) => x.spans),
        anns.map((x) => x.spans),
      ).overall.f1,
    );
  console.log(`${name}: ${r.added} spans added${g ? `; F1 against gold ${f1(weak)} → ${f1(r.annotations)}` : ''}`);
}

// 5. The demo as the Weak labels page labels it (every document, the HMM fitted on all): spans added by split and short form.
const demo = JSON.parse(readFileSync('public/demo/bc5cdr-demo.json', 'utf8')) as DemoAsset;
const corpora = demoCorpora(demo);
const demoDocs = corpora.flatMap((c) => c.docs);
const labeler = new WeakLabeler(demoDocs.map((d) => ({ text: d.text, offsets: d.offsets, tokens: tokenTexts(d), sentenceStarts: d.sentenceStarts })));
const request = { ...demoWeakSources(demo), method: 'hmm' as const };
const [off, on] = [labeler.run(request), labeler.run({ ...request, abbreviations: { following: 40 } })];
const added = new Map<string, number>();
demoDocs.forEach((d, k) => {
  for (const s of on.aggregate[k].spans)
    if (!off.aggregate[k].spans.some((x) => x.start === s.start && x.end === s.end)) {
      const key = `${d.split} ${tokenTexts(d).slice(s.start, s.end).join(' ')}/${s.label}`;
      added.set(key, (added.get(key) ?? 0) + 1);
    }
});
console.log(`the demo: ${on.abbreviated} spans added: ${[...added].map(([k, n]) => `${k} x${n}`).join(', ')}`);
